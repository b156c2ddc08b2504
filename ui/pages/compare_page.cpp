#include "pages/compare_page.h"

#include "charts/chart_export.h"
#include "charts/comparison_chart.h"
#include "controller/store_message.h"
#include "models/comparison_model.h"
#include "models/status_colors.h"
#include "report/comparison_report.h"
#include "report/comparison_text.h"
#include "report/report_charts.h"
#include "store/database_files.h"
#include "parts/table_copy.h"

#include "charts/qcustomplot_compat.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGraphicsOpacityEffect>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QScopedValueRollback>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace stepscope::ui
{
namespace
{

constexpr int kPathRole = Qt::UserRole;

} // namespace

ComparePage::ComparePage(ComparisonModel *model, ComparisonJob *job, QWidget *parent)
    : Page(parent), model_(model), job_(job)
{
    auto *pickers = new QGridLayout;
    for (Picker *picker : {&a_, &b_}) {
        const int row = picker == &a_ ? 0 : 1;
        picker->file = new QComboBox;
        picker->file->setToolTip(tr("The database file this side's sweep comes from. Files added with \"Add "
                                    "database…\" are read for the comparison only; new sweeps still go to the "
                                    "dashboard's database."));
        picker->file->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        picker->sweep = new QComboBox;
        picker->sweep->setMinimumContentsLength(28);
        picker->sweep->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        pickers->addWidget(new QLabel(row == 0 ? tr("A:") : tr("B:")), row, 0);
        pickers->addWidget(picker->file, row, 1);
        pickers->addWidget(picker->sweep, row, 2);
        connect(picker->file, &QComboBox::currentIndexChanged, this, [this, picker] { fillSweeps(*picker); });
        connect(picker->sweep, &QComboBox::currentIndexChanged, this, &ComparePage::followPickers);
    }
    compareButton_ = new QPushButton(tr("Compare"));
    compareButton_->setToolTip(tr("Compare sweep B with sweep A, configuration by configuration"));
    addButton_ = new QPushButton(tr("Add database…"));
    addButton_->setToolTip(tr("Read another Stepscope database (say, from another GPU) to compare with, read-only"));
    exportButton_ = new QPushButton(tr("Export comparison report…"));
    exportButton_->setToolTip(tr("Write this comparison (table, warnings and chart) as HTML, PDF, Markdown or CSV"));
    pickers->addWidget(compareButton_, 0, 3);
    pickers->addWidget(addButton_, 1, 3);
    pickers->addWidget(exportButton_, 0, 4);
    pickers->setColumnStretch(5, 1);
    connect(compareButton_, &QPushButton::clicked, this, &ComparePage::compareSelected);
    connect(exportButton_, &QPushButton::clicked, this, &ComparePage::exportReportInteractive);
    connect(addButton_, &QPushButton::clicked, this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(this, tr("Add a database to compare with"),
                                         database_.isEmpty() ? QDir::homePath() : QFileInfo(database_).absolutePath(),
                                         tr("Stepscope databases (*.sqlite *.db);;All files (*)"));
        if (!path.isEmpty())
            addDatabase(path);
    });

    caption_ = new QLabel;
    caption_->setWordWrap(true);
    verdict_ = new QLabel;
    verdict_->setWordWrap(true);
    QFont bold = verdict_->font();
    bold.setBold(true);
    verdict_->setFont(bold);
    verdict_->setVisible(false);
    banner_ = new QLabel;
    banner_->setWordWrap(true);
    banner_->setTextFormat(Qt::RichText);
    // Readable on light and dark themes alike: dark text on a pale warning tint.
    banner_->setStyleSheet(QStringLiteral("QLabel { background-color: %1; color: black; border: 1px solid %2; "
                                          "padding: 4px; }")
                               .arg(warningColor().lighter(185).name(), warningColor().name()));
    banner_->setVisible(false);
    error_ = new QLabel;
    error_->setWordWrap(true);
    error_->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(failureColor().name()));
    error_->setVisible(false);

    view_ = new QTableView;
    view_->setModel(model);
    view_->setWordWrap(false);
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // A long knob label ("tf32+cudnn-bench+bf16+channels-last+...") would push the ratio and the
    // verdict out of view at 1280 px: its column keeps a set width and elides at the front, since the
    // knobs a row adds last are what tell it from the rows above (the whole name is its tooltip).
    view_->horizontalHeader()->setSectionResizeMode(ComparisonModel::Configuration, QHeaderView::Interactive);
    view_->horizontalHeader()->resizeSection(ComparisonModel::Configuration, 200);
    view_->setTextElideMode(Qt::ElideLeft);
    view_->horizontalHeader()->setStretchLastSection(true);
    view_->verticalHeader()->setVisible(false);
    installTableCopy(view_);
    chart_ = new ComparisonChart;
    chart_->setModel(model);
    auto *splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(view_);
    splitter->addWidget(chart_);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    splitter->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(pickers);
    layout->addWidget(verdict_);
    layout->addWidget(caption_);
    layout->addWidget(banner_);
    layout->addWidget(error_);
    layout->addWidget(splitter, 1);

    connect(job_, &ComparisonJob::sweepsListed, this, &ComparePage::onSweepsListed);
    connect(job_, &ComparisonJob::unreadable, this, &ComparePage::onUnreadable);
    connect(job_, &ComparisonJob::ready, this, &ComparePage::onReady);
    // A comparison that could not be made leaves no other pair's figures on show under its pickers.
    const auto dropStale = [this] {
        comparing_ = false;
        if (!showsPickedSides()) {
            model_->clear();
            shownA_ = shownB_ = {};
            verdict_->setVisible(false);
            banner_->setVisible(false);
            setStale(false);
        }
    };
    connect(job_, &ComparisonJob::empty, this, [this, dropStale](qint64 a, qint64 b) {
        dropStale();
        showError(tr("Sweep %1 or sweep %2 has no runs: nothing to compare.").arg(a).arg(b));
        setCaption(model_->isEmpty() ? tr("Nothing compared.") : caption());
    });
    connect(job_, &ComparisonJob::failed, this, [this, dropStale](const QString &message) {
        dropStale();
        showError(message);
    });
    connect(job_, &ComparisonJob::reportWritten, this, &ComparePage::reportWritten);
    connect(job_, &ComparisonJob::reportRefused, this,
            [this](const QString &, const QString &error) { Q_EMIT reportFailed(error); });
    clear();
}

QCustomPlot *ComparePage::chart() const
{
    return chart_->plot();
}

void ComparePage::clear()
{
    comparing_ = false;
    shownA_ = shownB_ = {};
    verdict_->clear();
    verdict_->setVisible(false);
    setStale(false);
    setCaption(tr("Pick sweep A and sweep B above (B may come from another database: \"Add database…\"), or "
                  "select two sweeps in History and press \"Compare two sweeps\"."));
    banner_->clear();
    banner_->setVisible(false);
    error_->clear();
    error_->setVisible(false);
}

QString ComparePage::absolute(const QString &path) const
{
    return QFileInfo(path.isEmpty() ? database_ : path).absoluteFilePath();
}

void ComparePage::setDatabase(const QString &path)
{
    // The dashboard's previous file goes; files added for comparison stay.
    const QString previous = database_.isEmpty() ? QString() : absolute(database_);
    database_ = path;
    for (QComboBox *box : {a_.file, b_.file}) {
        const QSignalBlocker blocker(box);
        if (box->count() > 0 && box->itemData(0, kPathRole).toString() == previous)
            box->removeItem(0);
        const int existing = box->findData(absolute(path), kPathRole);
        if (existing >= 0)
            box->removeItem(existing);
    }
    addFile(path, true);
    sweeps_.remove(absolute(path)); // its sweeps change as the dashboard records
    a_.file->setCurrentIndex(0);
    b_.file->setCurrentIndex(0);
    job_->listSweeps(path);
}

void ComparePage::addFile(const QString &path, bool own)
{
    const QString key = absolute(path);
    const QString text = own ? tr("%1 (dashboard)").arg(QFileInfo(path).fileName())
                             : tr("%1 (read-only)").arg(QFileInfo(path).fileName());
    for (QComboBox *box : {a_.file, b_.file}) {
        const QSignalBlocker blocker(box);
        if (box->findData(key, kPathRole) >= 0)
            continue;
        if (own)
            box->insertItem(0, text, key);
        else
            box->addItem(text, key);
        box->setItemData(own ? 0 : box->count() - 1, QDir::toNativeSeparators(key), Qt::ToolTipRole);
    }
}

QStringList ComparePage::databases() const
{
    QStringList out;
    for (int i = 0; i < a_.file->count(); ++i)
        out << a_.file->itemData(i, kPathRole).toString();
    return out;
}

void ComparePage::setShownSweep(qint64 sweepId)
{
    if (sweepId <= 0 || comparing_ || !model_->isEmpty())
        return; // a comparison on show keeps its sides
    a_.wanted = sweepId;
    forgetStale(database_, sweepId);
    if (a_.file->currentIndex() == 0)
        fillSweeps(a_);
}

void ComparePage::forgetStale(const QString &path, qint64 sweepId)
{
    // A sweep recorded since the file was listed: list it again.
    const auto it = sweeps_.constFind(absolute(path));
    if (it != sweeps_.cend() &&
        std::none_of(it->cbegin(), it->cend(), [sweepId](const SweepChoice &s) { return s.id == sweepId; }))
        sweeps_.erase(it);
}

void ComparePage::selectFile(Picker &picker, const QString &path)
{
    const int index = picker.file->findData(absolute(path), kPathRole);
    if (index >= 0 && index != picker.file->currentIndex())
        picker.file->setCurrentIndex(index); // fills the sweeps
    else
        fillSweeps(picker);
}

void ComparePage::fillSweeps(Picker &picker)
{
    const QString key = picker.file->currentData(kPathRole).toString();
    const QSignalBlocker blocker(picker.sweep);
    qint64 keep = picker.wanted ? picker.wanted : picker.sweep->currentData().toLongLong();
    if (&picker == &b_ && !picker.wanted && !comparing_ && model_->isEmpty() &&
        b_.file->currentData(kPathRole) == a_.file->currentData(kPathRole) &&
        keep == a_.sweep->currentData().toLongLong())
        keep = 0; // B never defaults to A's own sweep
    picker.sweep->clear();
    if (!sweeps_.contains(key)) {
        picker.sweep->addItem(tr("reading…"), 0);
        if (!key.isEmpty())
            job_->listSweeps(key);
        return;
    }
    const auto &list = sweeps_.value(key);
    for (const SweepChoice &s : list)
        picker.sweep->addItem(s.text, s.id);
    int index = picker.sweep->findData(keep);
    if (index < 0 && &picker == &b_) {
        // B defaults to a sweep other than A's.
        const qint64 other = a_.sweep->currentData().toLongLong();
        for (int i = 0; i < picker.sweep->count() && index < 0; ++i)
            if (picker.sweep->itemData(i).toLongLong() != other ||
                b_.file->currentData(kPathRole) != a_.file->currentData(kPathRole))
                index = i;
    }
    picker.sweep->setCurrentIndex(std::max(index, 0));
    if (index >= 0 || !picker.wanted)
        picker.wanted = 0;
    // A moved onto B's sweep (the shown sweep became A): B defaults to another one, unless a
    // comparison asked for this pair (A/A is a valid request, just not a default).
    if (&picker == &a_ && !comparing_ && model_->isEmpty() && b_.sweep->count() > 1 &&
        b_.file->currentData(kPathRole) == a_.file->currentData(kPathRole) &&
        b_.sweep->currentData() == a_.sweep->currentData())
        fillSweeps(b_);
    compareButton_->setEnabled(a_.sweep->currentData().toLongLong() > 0 && b_.sweep->currentData().toLongLong() > 0);
    followPickers(); // a new file's list changes the pick without a signal
}

bool ComparePage::showsPickedSides() const
{
    const ComparisonSide a = sideOf(a_), b = sideOf(b_);
    return shownA_.sweep > 0 && a.sweep == shownA_.sweep && b.sweep == shownB_.sweep &&
           absolute(a.path) == shownA_.path && absolute(b.path) == shownB_.path;
}

void ComparePage::followPickers()
{
    if (settingPickers_ || (model_->isEmpty() && !comparing_))
        return; // nothing on show yet: Compare starts the first one
    const ComparisonSide a = sideOf(a_), b = sideOf(b_);
    if (a.sweep <= 0 || b.sweep <= 0) {
        setStale(!showsPickedSides()); // a file still being read: grey out until it is
        return;
    }
    const bool requested = absolute(a.path) == requestedA_.path && a.sweep == requestedA_.sweep &&
                           absolute(b.path) == requestedB_.path && b.sweep == requestedB_.sweep;
    if (comparing_ ? requested : showsPickedSides())
        return;
    compare(a, b);
}

void ComparePage::setStale(bool stale)
{
    // Old figures under new pickers would be read as the new pair's: greyed out, and no export.
    view_->setEnabled(!stale);
    chart_->setEnabled(!stale);
    if (stale && !chart_->graphicsEffect()) {
        auto *fade = new QGraphicsOpacityEffect(chart_);
        fade->setOpacity(0.3);
        chart_->setGraphicsEffect(fade);
    } else if (!stale) {
        chart_->setGraphicsEffect(nullptr);
    }
    verdict_->setEnabled(!stale);
    exportButton_->setEnabled(!stale);
}

void ComparePage::onSweepsListed(const QString &path, const QList<SweepChoice> &sweeps)
{
    const QString key = absolute(path);
    sweeps_.insert(key, sweeps);
    if (adding_.removeAll(key) > 0) {
        addFile(key, false);
        error_->setVisible(false);
        selectFile(b_, key);
        Q_EMIT databaseAdded(key);
    }
    for (Picker *picker : {&a_, &b_})
        if (picker->file->currentData(kPathRole).toString() == key)
            fillSweeps(*picker);
}

void ComparePage::onUnreadable(const QString &path, const QString &message)
{
    const QString key = absolute(path);
    adding_.removeAll(key);
    sweeps_.remove(key);
    if (comparing_ && (absolute(requestedA_.path) == key || absolute(requestedB_.path) == key))
        comparing_ = false;
    showError(tr("Cannot read %1: %2 The file was not changed, and the comparison on show stays.")
                  .arg(QDir::toNativeSeparators(key), withFileChoiceHint(message, tr("with \"Add database…\""))));
    // A file that went bad since it was added leaves the pickers.
    if (key != absolute(database_))
        for (QComboBox *box : {a_.file, b_.file})
            if (const int i = box->findData(key, kPathRole); i >= 0)
                box->removeItem(i);
}

void ComparePage::addDatabase(const QString &path)
{
    const QString key = absolute(path);
    if (sweeps_.contains(key) && a_.file->findData(key, kPathRole) >= 0) {
        selectFile(b_, key);
        return;
    }
    if (!adding_.contains(key))
        adding_ << key;
    error_->setVisible(false);
    job_->listSweeps(key);
}

ComparisonSide ComparePage::sideOf(const Picker &picker) const
{
    return {picker.file->currentData(kPathRole).toString(), picker.sweep->currentData().toLongLong()};
}

void ComparePage::compareSelected()
{
    const ComparisonSide a = sideOf(a_), b = sideOf(b_);
    if (a.sweep <= 0 || b.sweep <= 0) {
        showError(tr("Pick a sweep for A and one for B first."));
        return;
    }
    compare(a, b);
}

void ComparePage::compare(ComparisonSide a, ComparisonSide b)
{
    a.path = absolute(a.path);
    b.path = absolute(b.path);
    requestedA_ = a;
    requestedB_ = b;
    comparing_ = true;
    error_->setVisible(false);
    setStale(!model_->isEmpty());
    // The pickers say what is being compared, also when History asked for it; while they are set
    // one by one, a half-set pair is no change of the user's to follow.
    const QScopedValueRollback<bool> settingPickers(settingPickers_, true);
    for (const auto &pair : {std::pair{&a_, &a}, std::pair{&b_, &b}}) {
        Picker *picker = pair.first;
        const ComparisonSide *side = pair.second;
        if (picker->file->findData(side->path, kPathRole) < 0)
            addFile(side->path, false);
        picker->wanted = side->sweep;
        forgetStale(side->path, side->sweep);
        selectFile(*picker, side->path);
    }
    QString text = tr("Comparing sweep %1 of %2 with sweep %3 of %4…")
                       .arg(a.sweep)
                       .arg(QFileInfo(a.path).fileName())
                       .arg(b.sweep)
                       .arg(QFileInfo(b.path).fileName());
    if (!model_->isEmpty())
        text += tr(" The figures below, greyed out, are of the pair compared before.");
    setCaption(text);
    job_->request(a, b, 0);
}

void ComparePage::onReady()
{
    comparing_ = false;
    shownA_ = requestedA_;
    shownB_ = requestedB_;
    setStale(!showsPickedSides());
    error_->setVisible(false);
    verdict_->setText(QString::fromStdString(report::comparisonVerdict(model_->comparison())));
    verdict_->setVisible(true);
    setCaption(tr("B against A, configuration by configuration: median steady time (%1) of each side with its "
                  "95% confidence interval over cold processes, and the ratio B/A; below 1, B is faster.")
                   .arg(model_->unit()));
    const QStringList differences = model_->differences();
    if (differences.isEmpty()) {
        banner_->clear();
        banner_->setVisible(false);
    } else {
        // One paragraph, not a list: at 1280x720 every line the banner takes is a row the table loses.
        QStringList items;
        for (const QString &d : differences)
            items << d.toHtmlEscaped();
        QString html = tr("<b>A and B did not run alike</b>, read the ratios with that in mind: %1.")
                           .arg(items.join(QStringLiteral("; ")));
        if (model_->perImage())
            html += tr(" The batches differ, so every figure is <b>per image</b> (step time divided by the batch).");
        banner_->setText(html);
        banner_->setVisible(true);
    }
    Q_EMIT comparisonShown();
}

void ComparePage::showError(const QString &text)
{
    error_->setText(text);
    error_->setVisible(true);
}

void ComparePage::setCaption(const QString &text)
{
    caption_->setText(text);
}

QString ComparePage::caption() const
{
    return caption_->text();
}

QString ComparePage::warningText() const
{
    return model_->differences().join(QLatin1Char('\n'));
}

bool ComparePage::warningShown() const
{
    return !banner_->isHidden() && !banner_->text().isEmpty();
}

QString ComparePage::verdictText() const
{
    return verdict_->isHidden() ? QString() : verdict_->text();
}

QString ComparePage::errorText() const
{
    return error_->isHidden() ? QString() : error_->text();
}

ComparisonReport ComparePage::report() const
{
    ComparisonReport r;
    r.nameA = model_->nameA();
    r.nameB = model_->nameB();
    r.caption = caption();
    r.verdict = verdictText();
    r.environment = comparisonEnvironmentTable(model_->ledgerA().environmentJson, model_->ledgerB().environmentJson);
    r.differences = model_->differences();
    r.perImage = model_->perImage();
    r.table = comparisonTable(*view_->model());
    r.chart = renderChart(chart_->plot(), kReportChartSize, 2.0);
    r.vectorChart = recordVectorChart(chart_->plot(), kReportChartSize);
    r.generated = QDateTime::currentDateTime();
    return r;
}

bool ComparePage::exportReport(const QString &path, QString *error)
{
    const auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    if (comparing_ && !model_->isEmpty())
        return fail(tr("A or B changed and the new pair is still being compared: export it when it shows."));
    if (model_->isEmpty())
        return fail(comparing_ ? tr("The comparison is still being computed: export it when it shows.")
                               : tr("There is no comparison to report: pick sweeps A and B and press Compare."));
    // Never over a database: neither side's, nor the dashboard's (whatever the name's suffix).
    for (const QString &db : {requestedA_.path, requestedB_.path, database_}) {
        if (db.isEmpty())
            continue;
        if (const std::string behind = store::databaseFileBehind(path.toStdString(), db.toStdString());
            !behind.empty())
            return fail(tr("%1 is %2; a report never overwrites a database. Choose another name.")
                            .arg(QDir::toNativeSeparators(path), QString::fromStdString(behind)));
    }
    if (!reportFormatOf(path, error))
        return false;
    job_->writeReport(report(), path);
    return true;
}

QString ComparePage::withSuffix(const QString &path, const QString &filter)
{
    if (!QFileInfo(path).suffix().isEmpty())
        return path;
    const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("\\*\\.(\\w+)")).match(filter);
    return path + QLatin1Char('.') + (m.hasMatch() ? m.captured(1) : QStringLiteral("html"));
}

void ComparePage::exportReportInteractive()
{
    QString filter;
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export comparison report"), QDir::homePath() + "/stepscope-comparison.html",
        tr("HTML report (*.html);;PDF (*.pdf);;Markdown (*.md);;CSV table (*.csv)"), &filter);
    if (path.isEmpty())
        return;
    const QString typed = path;
    path = withSuffix(path, filter);
    // The dialog asked about overwriting the name as typed, not the one with its suffix.
    if (path != typed && QFileInfo::exists(path) &&
        QMessageBox::question(this, tr("Export comparison report"),
                              tr("%1 already exists. Replace it?").arg(QDir::toNativeSeparators(path))) !=
            QMessageBox::Yes)
        return;
    QString error;
    if (!exportReport(path, &error)) {
        QMessageBox::warning(this, tr("Export comparison report"), error);
        return;
    }
    connect(
        this, &ComparePage::reportFailed, this,
        [this](const QString &failure) { QMessageBox::warning(this, tr("Export comparison report"), failure); },
        Qt::SingleShotConnection);
}

} // namespace stepscope::ui
