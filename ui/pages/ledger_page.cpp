#include "pages/ledger_page.h"
#include "config/config_json.h"
#include "config/presets.h"

#include "models/ledger_model.h"
#include "models/run_detail.h"
#include "pages/ledger_columns.h"
#include "presenters/shown_sweep.h"
#include "report/knob_worth.h"
#include "parts/run_detail_dialog.h"
#include "parts/table_copy.h"

#include <QComboBox>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QResizeEvent>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <memory>

namespace stepscope::ui
{

LedgerPage::LedgerPage(ShownSweep *shown, QWidget *parent) : Page(parent), model_(shown->ledger())
{
    // The verdict in one line, what it rests on in a smaller line under it, and the recommendation's
    // full text under "Details": at 1280x720 every line above the table is a row of it less.
    headline_ = new QLabel;
    headline_->setWordWrap(true);
    headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    headline_->setStyleSheet("QLabel { font-weight: bold; font-size: 115%; padding: 6px 6px 0 6px; }");
    headline_->setVisible(false);
    caveats_ = new QLabel;
    caveats_->setWordWrap(true);
    caveats_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    caveats_->setStyleSheet("QLabel { font-size: 90%; padding: 0 6px 0 6px; }");
    caveats_->setForegroundRole(QPalette::PlaceholderText);
    caveats_->setVisible(false);
    details_ = new QToolButton;
    details_->setObjectName(QStringLiteral("recommendationDetails"));
    details_->setText(tr("Details"));
    details_->setToolTip(tr("The recommendation in full: totals for the planned run, the runner-up, the crossing "
                            "that decides it and its interval"));
    details_->setCheckable(true);
    details_->setAutoRaise(true);
    details_->setArrowType(Qt::RightArrow);
    details_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    details_->setVisible(false);
    connect(details_, &QToolButton::toggled, this, [this](bool on) {
        details_->setArrowType(on ? Qt::DownArrow : Qt::RightArrow);
        showRecommendation();
    });
    recommendation_ = new QLabel;
    recommendation_->setWordWrap(true);
    recommendation_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    recommendation_->setStyleSheet("QLabel { padding: 2px 6px 6px 6px; }");
    status_ = new QLabel;
    status_->setWordWrap(true);
    status_->setStyleSheet("QLabel { padding: 0 6px 6px 6px; font-style: italic; }");
    status_->setVisible(false);
    proxy_ = new LedgerTableProxy(this);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(LedgerModel::SortRole);
    view_ = new QTableView;
    view_->setModel(proxy_);
    view_->setSortingEnabled(true);
    view_->sortByColumn(-1, Qt::AscendingOrder); // sweep order until the user sorts
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    // Ten columns beside the panel at 1280 px: fitLedgerColumns sizes them to the view, wrapping
    // cells (a configuration's name at each '+') rather than scrolling sideways; the full name of a
    // configuration is in its tooltip, and the header's context menu hides columns.
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    view_->horizontalHeader()->setStretchLastSection(false);
    view_->horizontalHeader()->setDefaultAlignment(Qt::AlignCenter);
    view_->setWordWrap(true);
    view_->setTextElideMode(Qt::ElideLeft); // the knob added last tells a row from the one above
    view_->setItemDelegateForColumn(LedgerModel::Configuration, new BreakAtPlusDelegate(view_));
    view_->viewport()->installEventFilter(this);
    view_->installEventFilter(this); // Enter on a row
    installLedgerColumnMenu(view_);
    installTableCopy(view_);
    view_->setToolTip(
        tr("Double-click a row (or press Enter) for its steps; a failed, cancelled or compiled configuration shows "
           "its run detail (failure, fix, log, torch.compile). Right-click the header to hide or "
           "show columns."));
    connect(view_, &QTableView::doubleClicked, this,
            [this](const QModelIndex &index) { activate(proxy_->mapToSource(index).row()); });
    // The start state the verdict is for (issue 28): a fresh machine, one built from an image with
    // the configuration's shipped caches, or this machine again. The ledger is built again for it.
    start_ = new QComboBox;
    start_->setObjectName(QStringLiteral("ledgerStart"));
    for (const store::StartState s : store::kStartStates)
        start_->addItem(tr("for %1").arg(QString::fromStdString(report::startText(s))), int(s));
    start_->setToolTip(tr("The start state the planned run has: first steps, break-evens and the recommendation "
                          "are that state's. A row that did not run it takes the first step of a state with fewer "
                          "caches (never more), and says which."));
    connect(start_, &QComboBox::currentIndexChanged, this,
            [this, shown] { shown->setStart(static_cast<store::StartState>(start_->currentData().toInt())); });
    // A batch scan (issue 35.4): one ledger per batch, the baseline's first; the others are a choice
    // away, built again by the same job.
    batch_ = new QComboBox;
    batch_->setObjectName(QStringLiteral("ledgerBatch"));
    batch_->setToolTip(tr("This sweep scanned several batch sizes: the ledger compares steps of one size. Pick the "
                          "batch whose ledger to show; the Why page charts the batches side by side."));
    batch_->setVisible(false);
    connect(batch_, &QComboBox::activated, this, [this, shown] {
        const int batch = batch_->currentData().toInt();
        if (batch > 0 && batch != model_->ledger().batch)
            shown->setBatch(batch);
    });
    // What the verdict minimizes (issue 31.4): time, or the joules of the planned run where the GPU
    // has an energy counter. The choice holds across sweeps; the model recomputes the verdict.
    objective_ = new QComboBox;
    objective_->setObjectName(QStringLiteral("ledgerObjective"));
    objective_->addItem(tr("least time"), false);
    objective_->addItem(tr("fewest joules"), true);
    connect(objective_, &QComboBox::currentIndexChanged, this,
            [this] { model_->setByJoules(objective_->currentData().toBool()); });
    // The largest batch that fits (issue 31.3): a max-batch sweep's answer, in the CLI's words.
    maxBatch_ = new QLabel;
    maxBatch_->setObjectName(QStringLiteral("maxBatchAnswers"));
    maxBatch_->setWordWrap(true);
    maxBatch_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    maxBatch_->setVisible(false);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(maxBatch_);
    auto *headlineRow = new QHBoxLayout;
    headlineRow->addWidget(headline_, 1);
    headlineRow->addWidget(batch_, 0, Qt::AlignTop);
    headlineRow->addWidget(start_, 0, Qt::AlignTop);
    headlineRow->addWidget(objective_, 0, Qt::AlignTop);
    layout->addLayout(headlineRow);
    auto *caveatsRow = new QHBoxLayout;
    caveatsRow->addWidget(caveats_, 1);
    caveatsRow->addWidget(details_, 0, Qt::AlignTop);
    layout->addLayout(caveatsRow);
    layout->addWidget(recommendation_);
    layout->addWidget(status_);
    layout->addWidget(view_);
    // What each knob of the selected row is worth (issue 35.1: the headline says it of the
    // recommended row; this asks it of any row).
    worthButton_ = new QPushButton(tr("What is each &knob worth?"));
    worthButton_->setToolTip(tr("Each knob of the selected row against the same row without it, or where the sweep "
                                "added it: its steady change with the 95% CI and its first-step cost"));
    worthButton_->setEnabled(false);
    worthAction_ = new QAction(tr("What is each knob worth?"), this);
    worthAction_->setEnabled(false);
    if (TableCopy *copy = TableCopy::of(view_)) {
        copy->menu()->addSeparator();
        copy->menu()->addAction(worthAction_);
    }
    connect(worthButton_, &QPushButton::clicked, this, [this] { showKnobWorth(selectedRow()); });
    connect(worthAction_, &QAction::triggered, this, [this] { showKnobWorth(selectedRow()); });
    worth_ = new QLabel;
    worth_->setObjectName(QStringLiteral("knobWorth"));
    worth_->setWordWrap(true);
    worth_->setTextFormat(Qt::RichText);
    worth_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    worth_->setStyleSheet(QStringLiteral("QLabel { padding: 2px 6px 6px 6px; }"));
    worth_->setVisible(false);
    closeWorth_ = new QToolButton;
    closeWorth_->setText(tr("Close"));
    closeWorth_->setAutoRaise(true);
    closeWorth_->setVisible(false);
    connect(closeWorth_, &QToolButton::clicked, this, [this] { showKnobWorth(-1); });
    addMissing_ = new QPushButton(tr("Add the missing rows to the panel"));
    addMissing_->setToolTip(tr("The selected row without each knob this sweep did not isolate: the next sweep then "
                               "measures what each of them is worth"));
    addMissing_->setVisible(false);
    connect(addMissing_, &QPushButton::clicked, this, [this] {
        for (const RunConfig &config : missing_)
            Q_EMIT configWanted(config);
    });
    auto *worthText = new QVBoxLayout;
    worthText->addWidget(worth_);
    worthText->addWidget(addMissing_, 0, Qt::AlignLeft);
    auto *worthRow = new QHBoxLayout;
    worthRow->addWidget(worthButton_, 0, Qt::AlignTop);
    worthRow->addLayout(worthText, 1);
    worthRow->addWidget(closeWorth_, 0, Qt::AlignTop);
    layout->addLayout(worthRow);
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        const int row = selectedRow();
        worthButton_->setEnabled(row >= 0);
        worthAction_->setEnabled(row >= 0);
        if (worthRow_ >= 0 && row >= 0)
            showKnobWorth(row);
    });

    connect(shown, &ShownSweep::activityChanged, this, &LedgerPage::setStatus);
    connect(model_, &LedgerModel::recommendationChanged, this, &LedgerPage::showRecommendation);
    connect(proxy_, &QAbstractItemModel::modelReset, this, &LedgerPage::modelChanged);
    connect(proxy_, &QAbstractItemModel::layoutChanged, this, &LedgerPage::modelChanged); // rows sorted
    showRecommendation();
}

void LedgerPage::clear()
{
    setStatus({});
    showRecommendation();
    showBatches();
}

void LedgerPage::showBatches()
{
    const report::Ledger &ledger = model_->ledger();
    const QSignalBlocker block(batch_);
    batch_->clear();
    for (const int b : ledger.batches)
        batch_->addItem(tr("batch %1").arg(b), b);
    batch_->setCurrentIndex(batch_->findData(ledger.batch));
    batch_->setVisible(ledger.batches.size() > 1);
}

void LedgerPage::showRecommendation()
{
    const QString text = model_->recommendation();
    // A batch scan's verdict is one batch's: the headline says which.
    const bool scan = model_->ledger().batches.size() > 1;
    const QString headline = scan && !model_->headline().isEmpty()
                                 ? tr("Batch %1: %2").arg(model_->ledger().batch).arg(model_->headline())
                                 : model_->headline();
    headline_->setText(breakableAtPlus(headline));
    headline_->setVisible(!headline.isEmpty());
    const QString caveats = headline.isEmpty() ? QString() : model_->caveats();
    caveats_->setText(breakableAtPlus(caveats));
    caveats_->setVisible(!caveats.isEmpty());
    details_->setVisible(!headline.isEmpty());
    recommendation_->setVisible(headline.isEmpty() || details_->isChecked());
    if (!model_->maxBatch().empty()) {
        // A largest-batch search times nothing: its tries' few steps have no steady state, and a
        // verdict in time ("try --steps 30") would send the user the wrong way.
        headline_->setVisible(false);
        caveats_->setVisible(false);
        details_->setVisible(false);
        recommendation_->setVisible(true);
        recommendation_->setText(tr("A largest-batch search times nothing: each try runs a few steps to see whether "
                                    "its batch fits, so there is no recommendation. The answers are above; the rows "
                                    "below are the tries at one batch (the batch box picks another)."));
    } else if (!text.isEmpty())
        recommendation_->setText(breakableAtPlus(text));
    else if (const QString why = model_->noRecommendationReason(); !why.isEmpty())
        recommendation_->setText(tr("No recommendation because %1.").arg(why)); // the CLI's words
    else if (model_->rowCount() > 0)
        recommendation_->setText(tr("No recommendation yet: no configuration has a steady state."));
    else
        recommendation_->setText(tr("Run a sweep, or open one from History, to get a recommendation."));
    // Joules need an energy counter: without one the choice stays, greyed, and says why, so that a
    // CPU sweep never shows a verdict in joules it cannot have.
    const bool joules = model_->canRecommendByJoules();
    objective_->setEnabled(joules || objective_->currentData().toBool());
    objective_->setToolTip(
        joules ? tr("What the recommendation minimizes for the planned run: its time, or the GPU's joules (first "
                    "step included, read from the GPU's energy counter).")
               : tr("No row of this ledger has energy figures (a CPU run, or a GPU without an energy counter): "
                    "the recommendation is by time."));
}

void LedgerPage::fitColumns()
{
    fitWhenShown_ = false;
    fittedWidth_ = view_->viewport()->width();
    fitLedgerColumns(view_);
}

QString LedgerPage::maxBatchText() const
{
    return model_->maxBatch().empty() ? QString() : maxBatch_->text();
}

void LedgerPage::showMaxBatch()
{
    QStringList lines;
    for (const supervisor::MaxBatchSearch &s : model_->maxBatch())
        lines << QString::fromStdString(supervisor::maxBatchLine(s)).toHtmlEscaped();
    maxBatch_->setText(lines.isEmpty() ? QString()
                                       : "<b>" + tr("Largest batch that fits") + "</b><br>" + lines.join("<br>"));
    maxBatch_->setVisible(!lines.isEmpty());
}

void LedgerPage::modelChanged()
{
    showBatches();
    showMaxBatch();
    // Another ledger (sweep, batch or start state): the panel's row may be another configuration now.
    if (worthRow_ >= 0)
        showKnobWorth(selectedRow());
    if (isVisible()) {
        fitColumns();
    } else {
        hideLedgerColumns(view_); // cheap, and what the columns' menu reads
        fitWhenShown_ = true;
    }
}

bool LedgerPage::eventFilter(QObject *watched, QEvent *event)
{
    // Enter does what a double-click does, for the keyboard's current row.
    if (watched == view_ && event->type() == QEvent::KeyPress) {
        const int key = static_cast<QKeyEvent *>(event)->key();
        if ((key == Qt::Key_Return || key == Qt::Key_Enter) && view_->currentIndex().isValid()) {
            activate(proxy_->mapToSource(view_->currentIndex()).row());
            return true;
        }
    }
    // Only the width decides the columns, and with them the rows' heights; a resize while hidden
    // comes again when the page shows.
    if (watched == view_->viewport() && event->type() == QEvent::Resize && isVisible() &&
        (fitWhenShown_ || static_cast<QResizeEvent *>(event)->size().width() != fittedWidth_))
        fitColumns();
    return Page::eventFilter(watched, event);
}

void LedgerPage::showEvent(QShowEvent *event)
{
    Page::showEvent(event);
    if (fitWhenShown_)
        fitColumns();
}

QString LedgerPage::headlineText() const
{
    return headline_->text().remove(QChar(0x200B));
}

QString LedgerPage::caveatsText() const
{
    return caveats_->isHidden() ? QString() : caveats_->text().remove(QChar(0x200B));
}

bool LedgerPage::recommendationShown() const
{
    return !recommendation_->isHidden();
}

QString LedgerPage::recommendationText() const
{
    return recommendation_->text().remove(QChar(0x200B));
}

void LedgerPage::setStatus(const QString &text)
{
    status_->setText(text);
    status_->setVisible(!text.isEmpty());
}

QString LedgerPage::status() const
{
    return status_->isVisible() ? status_->text() : QString();
}

RunDetailDialog *LedgerPage::rowDetailDialog(int row)
{
    if (row < 0 || row >= model_->rowCount())
        return nullptr;
    const QModelIndex index = model_->index(row, LedgerModel::Configuration);
    const std::vector<store::RunRecord> runs = model_->runRecordsOf(row);
    const bool failed = !index.data(LedgerModel::FailureDetailRole).toString().isEmpty();
    const bool compiled = std::any_of(runs.begin(), runs.end(), [](const auto &r) { return runIsCompiled(r); });
    if (runs.empty() || (!failed && !compiled))
        return nullptr;
    auto *dialog = new RunDetailDialog(index.data().toString(), runs, RunDetailDialog::preferredRun(runs), this);
    connect(dialog, &RunDetailDialog::showStepsRequested, this, &LedgerPage::runStepsRequested);
    return dialog;
}

int LedgerPage::selectedRow() const
{
    const QModelIndex current = view_->currentIndex();
    return current.isValid() ? proxy_->mapToSource(current).row() : -1;
}

void LedgerPage::showKnobWorth(int row)
{
    const report::Ledger &ledger = model_->ledger();
    worthRow_ = row >= 0 && std::size_t(row) < ledger.rows.size() ? row : -1;
    worth_->setVisible(worthRow_ >= 0);
    closeWorth_->setVisible(worthRow_ >= 0);
    missing_.clear();
    addMissing_->setVisible(false);
    if (worthRow_ < 0) {
        worth_->clear();
        return;
    }
    // On the UI thread: this reads only the ledger already loaded, whose processes were summarised
    // with it (LedgerRow::processSummaries), so each knob is one bootstrap over a few processes:
    // milliseconds, as a recommendation for another planned run length (LedgerModel::setPlannedSteps).
    const std::vector<report::KnobWorth> worth = report::knobWorthOf(ledger, std::size_t(worthRow_));
    const QString label = QString::fromStdString(ledger.rows[std::size_t(worthRow_)].label).toHtmlEscaped();
    if (worth.empty()) {
        worth_->setText(tr("<b>%1</b> turns on no knob: nothing to weigh.").arg(label));
        return;
    }
    QString html = tr("<b>What each knob of %1 is worth</b>, against the same row without it:").arg(label);
    html += QStringLiteral("<ul style=\"margin-left: 0px; -qt-list-indent: 1;\">");
    for (const report::KnobWorth &w : worth)
        html +=
            QStringLiteral("<li>%1</li>").arg(QString::fromStdString(report::knobWorthText(ledger, w)).toHtmlEscaped());
    worth_->setText(html + QStringLiteral("</ul>"));
    // The rows that would measure the knobs no pair of rows isolates, from the row's own stored
    // configuration (its shape, device and runtime) less each knob.
    RunConfig config;
    std::vector<ConfigError> errors;
    const std::string &json = ledger.rows[std::size_t(worthRow_)].configJson;
    if (json.empty() || !parseConfig(QByteArray::fromStdString(json), config, errors))
        return;
    for (const report::KnobWorth &w : worth)
        if (w.verdict == report::KnobWorth::Verdict::NotMeasured)
            if (auto without = configWithoutKnob(config, w.knob); without && validate(*without).empty())
                missing_.push_back(*without);
    addMissing_->setVisible(!missing_.empty());
    addMissing_->setText(missing_.size() == 1 ? tr("Add the missing row to the panel")
                                              : tr("Add the %1 missing rows to the panel").arg(missing_.size()));
}

QString LedgerPage::knobWorthText() const
{
    return worth_->isVisible() || worthRow_ >= 0 ? worth_->text() : QString();
}

void LedgerPage::activate(int row)
{
    if (std::unique_ptr<RunDetailDialog> dialog{rowDetailDialog(row)}) {
        dialog->exec();
        return;
    }
    // A plain configuration that ran: the steps of its first complete run, else of a run the
    // Stop cut short.
    const auto runs = model_->runRecordsOf(row);
    const auto complete = std::find_if(runs.begin(), runs.end(),
                                       [](const store::RunRecord &r) { return r.status == RunStatus::Complete; });
    const qint64 runId = complete != runs.end() ? complete->id : model_->rowRuns(row).cancelledRun;
    if (runId > 0)
        Q_EMIT runStepsRequested(runId);
}

} // namespace stepscope::ui
