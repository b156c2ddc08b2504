#include "pages/why_page.h"

#include "charts/batch_scan_chart.h"
#include "charts/why_chart.h"
#include "models/ledger_model.h"
#include "models/why_model.h"
#include "profile/kernel_diff.h"
#include "report/ledger_text.h"
#include "widgets/table_copy.h"

#include "charts/qcustomplot_compat.h"

#include <QComboBox>
#include <QDesktopServices>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QUrl>
#include <QVBoxLayout>

namespace stepscope::ui
{

WhyPage::WhyPage(LedgerModel *ledger, QWidget *parent)
    : Page(parent), ledger_(ledger), model_(new WhyModel(ledger, this)), chart_(new WhyChart), view_(new QTableView),
      a_(new QComboBox), b_(new QComboBox), diff_(new QPlainTextEdit), trace_(new QLabel),
      openTrace_(new QPushButton(tr("Open trace")))
{
    chart_->setModel(ledger);
    view_->setModel(model_);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    installTableCopy(view_);
    view_->setWordWrap(false);
    view_->verticalHeader()->hide();
    view_->horizontalHeader()->setStretchLastSection(true);
    // The verdict is the sentence the page is for: it gets the room, the figures what they need.
    const int widths[WhyModel::ColumnCount] = {200, 430, 150, 95, 150, 200, 300};
    for (int c = 0; c < WhyModel::ColumnCount; ++c)
        view_->setColumnWidth(c, widths[c]);
    diff_->setReadOnly(true);
    diff_->setLineWrapMode(QPlainTextEdit::NoWrap);
    diff_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    auto *diffBox = new QWidget;
    auto *diffLayout = new QVBoxLayout(diffBox);
    diffLayout->setContentsMargins(0, 0, 0, 0);
    auto *pick = new QHBoxLayout;
    pick->addWidget(new QLabel(tr("Kernel diff: A")));
    pick->addWidget(a_, 1);
    pick->addWidget(new QLabel(tr("B")));
    pick->addWidget(b_, 1);
    diffLayout->addLayout(pick);
    diffLayout->addWidget(diff_);

    // A batch scan's verdict across batches beside the bars; hidden for a sweep of one batch.
    auto *scan = new BatchScanChart;
    scan->setModel(ledger);
    scan->setVisible(false);
    connect(ledger, &QAbstractItemModel::modelReset, scan,
            [scan, ledger] { scan->setVisible(ledger->batchScan().batches.size() > 1); });
    auto *charts = new QSplitter(Qt::Horizontal);
    charts->addWidget(chart_);
    charts->addWidget(scan);
    // The current row's trace under the table: opened by the desktop's handler for .json.gz (or its
    // path copied into ui.perfetto.dev), or why there is none.
    trace_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    trace_->setWordWrap(true);
    openTrace_->setToolTip(tr("Opens the row's kept Chrome trace (.json.gz) with the desktop's handler; "
                              "Perfetto (ui.perfetto.dev) and chrome://tracing open it too."));
    auto *tableBox = new QWidget;
    auto *tableLayout = new QVBoxLayout(tableBox);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addWidget(view_);
    auto *traceRow = new QHBoxLayout;
    traceRow->addWidget(trace_, 1);
    traceRow->addWidget(openTrace_);
    tableLayout->addLayout(traceRow);
    auto *split = new QSplitter(Qt::Vertical);
    split->addWidget(charts);
    split->addWidget(tableBox);
    split->addWidget(diffBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setStretchFactor(2, 2);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(split);

    connect(model_, &QAbstractItemModel::modelReset, this, &WhyPage::fillChoices);
    connect(a_, &QComboBox::currentIndexChanged, this, &WhyPage::showDiff);
    connect(b_, &QComboBox::currentIndexChanged, this, &WhyPage::showDiff);
    // Selecting rows in the table picks them for the diff: the first two selected.
    connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        const auto rows = view_->selectionModel()->selectedRows();
        if (rows.size() == 2)
            setDiffRows(int(model_->whyRow(rows[0].row()).row), int(model_->whyRow(rows[1].row()).row));
    });
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &WhyPage::showTrace);
    connect(model_, &QAbstractItemModel::modelReset, this, &WhyPage::showTrace);
    connect(openTrace_, &QPushButton::clicked, this, [this] {
        const QModelIndex current = view_->currentIndex();
        if (current.isValid() && !model_->whyRow(current.row()).tracePath.empty())
            QDesktopServices::openUrl(
                QUrl::fromLocalFile(QString::fromStdString(model_->whyRow(current.row()).tracePath)));
    });
    fillChoices();
    showTrace();
}

QString WhyPage::traceText() const
{
    return trace_->text();
}

void WhyPage::showTrace()
{
    const QModelIndex current = view_->currentIndex();
    openTrace_->setEnabled(false);
    if (!current.isValid()) {
        trace_->setText(model_->rowCount() > 0 ? tr("Trace: pick a row to open its profile's trace.") : QString());
        return;
    }
    const report::WhyRow &w = model_->whyRow(current.row());
    if (!w.tracePath.empty()) {
        trace_->setText(
            tr("Trace of %1: %2").arg(QString::fromStdString(w.label), QString::fromStdString(w.tracePath)));
        openTrace_->setEnabled(true);
    } else if (!w.traceProblem.empty()) {
        trace_->setText(tr("Trace of %1 not kept: %2")
                            .arg(QString::fromStdString(w.label), QString::fromStdString(w.traceProblem)));
    } else {
        trace_->setText(
            tr("%1 has no profile: %2").arg(QString::fromStdString(w.label), QString::fromStdString(w.problem)));
    }
}

QCustomPlot *WhyPage::chart() const
{
    return chart_->plot();
}

void WhyPage::fillChoices()
{
    const QSignalBlocker blockA(a_), blockB(b_);
    a_->clear();
    b_->clear();
    const report::Ledger &ledger = model_->ledger();
    for (int i = 0; i < model_->rowCount(); ++i) {
        const report::WhyRow &w = model_->whyRow(i);
        if (!w.verdict)
            continue; // no profile, nothing to diff
        const QString label = QString::fromStdString(ledger.rows[w.row].label);
        a_->addItem(label, int(w.row));
        b_->addItem(label, int(w.row));
    }
    // Default: the baseline against the recommended row (else the last profiled one).
    int recommended = b_->count() - 1;
    if (ledger.recommendation)
        if (const int at = b_->findData(int(ledger.recommendation->best)); at >= 0)
            recommended = at;
    a_->setCurrentIndex(a_->count() > 0 ? 0 : -1);
    b_->setCurrentIndex(recommended);
    showDiff();
}

void WhyPage::setDiffRows(int a, int b)
{
    const int ia = a_->findData(a), ib = b_->findData(b);
    if (ia >= 0)
        a_->setCurrentIndex(ia);
    if (ib >= 0)
        b_->setCurrentIndex(ib);
    showDiff();
}

QString WhyPage::diffText() const
{
    return diff_->toPlainText();
}

void WhyPage::showDiff()
{
    const report::Ledger &ledger = model_->ledger();
    if (a_->currentIndex() < 0 || b_->currentIndex() < 0) {
        diff_->setPlainText(ledger.rows.empty() ? QString()
                                                : tr("No row of this sweep has a profile: run it with profiling on "
                                                     "(the default; --profile-steps in the CLI)."));
        return;
    }
    const auto side = [&](const QComboBox *box) {
        const report::LedgerRow &r = ledger.rows[static_cast<std::size_t>(box->currentData().toInt())];
        return profile::DiffSide{&*r.profile, r.steadyMs, r.firstStepMs, r.label};
    };
    const profile::DiffSide a = side(a_), b = side(b_);
    const auto seconds = [](double ms) { return report::formatSecondsDelta(ms / 1000.0); };
    diff_->setPlainText(QString::fromStdString(profile::diffText(profile::diffProfiles(a, b), a, b, 15, seconds)));
}

} // namespace stepscope::ui
