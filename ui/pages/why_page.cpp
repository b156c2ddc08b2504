#include "pages/why_page.h"

#include "charts/memory_chart.h"
#include "charts/why_chart.h"
#include "models/figure_sort_proxy.h"
#include "models/kernel_diff_model.h"
#include "models/ledger_model.h"
#include "models/why_model.h"
#include "profile/kernel_diff.h"
#include "report/ledger_text.h"
#include "report/memory_text.h"
#include "parts/table_copy.h"

#include "charts/qcustomplot_compat.h"

#include <QComboBox>
#include <QDesktopServices>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

namespace stepscope::ui
{

WhyPage::WhyPage(LedgerModel *ledger, QWidget *parent)
    : Page(parent), ledger_(ledger), model_(new WhyModel(ledger, this)), chart_(new WhyChart), view_(new QTableView),
      a_(new QComboBox), b_(new QComboBox), diffRows_(new QComboBox), diffSummary_(new QLabel),
      diffModel_(new KernelDiffModel(this)), diffProxy_(new FigureSortProxy(this)), diffView_(new QTableView),
      trace_(new QLabel), openTrace_(new QPushButton(tr("Open trace"))), addToPanel_(new QToolButton),
      memoryChart_(new MemoryChart), memory_(new QLabel)
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
    // The diff's table, sorted by the figures themselves (largest change first, as the core orders
    // it, until a header is clicked); the kernel's name takes what the figures leave.
    diffProxy_->setSourceModel(diffModel_);
    diffProxy_->setSortRole(KernelDiffModel::SortRole);
    diffView_->setModel(diffProxy_);
    diffView_->setSortingEnabled(true);
    diffView_->sortByColumn(-1, Qt::AscendingOrder);
    diffView_->setSelectionBehavior(QAbstractItemView::SelectRows);
    diffView_->setWordWrap(false);
    diffView_->setTextElideMode(Qt::ElideRight); // a templated kernel's start says what it is
    diffView_->verticalHeader()->hide();
    diffView_->verticalHeader()->setDefaultSectionSize(diffView_->fontMetrics().height() + 6); // more rows in view
    installTableCopy(diffView_);
    QHeaderView *diffHeader = diffView_->horizontalHeader();
    diffHeader->setSectionResizeMode(KernelDiffModel::Name, QHeaderView::Stretch);
    const int diffWidths[KernelDiffModel::ColumnCount] = {0, 58, 58, 76, 66, 84};
    for (int c = KernelDiffModel::AMs; c < KernelDiffModel::ColumnCount; ++c)
        diffHeader->resizeSection(c, diffWidths[c]);
    diffRows_->addItem(tr("By kernel"), int(KernelDiffModel::Rows::Kernels));
    diffRows_->addItem(tr("By family"), int(KernelDiffModel::Rows::Families));
    // The summary beside the table (the boxes above name A and B).
    diffSummary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    diffSummary_->setWordWrap(true);
    diffSummary_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    diffSummary_->setFixedWidth(280);

    auto *diffBox = new QWidget;
    auto *diffLayout = new QVBoxLayout(diffBox);
    diffLayout->setContentsMargins(0, 0, 0, 0);
    auto *pick = new QHBoxLayout;
    pick->addWidget(new QLabel(tr("Kernel diff: A")));
    pick->addWidget(a_, 1);
    pick->addWidget(new QLabel(tr("B")));
    pick->addWidget(b_, 1);
    pick->addWidget(diffRows_);
    diffLayout->addLayout(pick);
    auto *diffBody = new QHBoxLayout;
    diffBody->addWidget(diffSummary_);
    diffBody->addWidget(diffView_, 1);
    diffLayout->addLayout(diffBody, 1);

    auto *charts = new QSplitter(Qt::Horizontal);
    charts->addWidget(chart_);
    // Beside the bars: the current row's memory over one step, and its words under it (the whole
    // box says why when the row has no timeline to draw).
    memory_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    memory_->setWordWrap(true);
    memory_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    auto *memoryBox = new QWidget;
    auto *memoryLayout = new QVBoxLayout(memoryBox);
    memoryLayout->setContentsMargins(0, 0, 0, 0);
    memoryLayout->addWidget(memoryChart_, 3);
    memoryLayout->addWidget(memory_, 1);
    charts->addWidget(memoryBox);
    charts->setStretchFactor(0, 3);
    charts->setStretchFactor(1, 2);
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
    traceRow->addWidget(addToPanel_);
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
    connect(diffRows_, &QComboBox::currentIndexChanged, this, [this] {
        diffModel_->setRows(KernelDiffModel::Rows(diffRows_->currentData().toInt()));
    });
    // Selecting rows in the table picks them for the diff: the first two selected.
    connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        const auto rows = view_->selectionModel()->selectedRows();
        if (rows.size() == 2)
            setDiffRows(int(model_->whyRow(rows[0].row()).row), int(model_->whyRow(rows[1].row()).row));
    });
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &WhyPage::showTrace);
    connect(model_, &QAbstractItemModel::modelReset, this, &WhyPage::showTrace);
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &WhyPage::showMemory);
    connect(model_, &QAbstractItemModel::modelReset, this, &WhyPage::showMemory);
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &WhyPage::showAdvice);
    connect(model_, &QAbstractItemModel::modelReset, this, &WhyPage::showAdvice);
    addToPanel_->setText(tr("Add to the panel"));
    addToPanel_->setPopupMode(QToolButton::MenuButtonPopup);
    addToPanel_->setMenu(new QMenu(addToPanel_));
    addToPanel_->menu()->setToolTipsVisible(true);
    connect(openTrace_, &QPushButton::clicked, this, [this] {
        const QModelIndex current = view_->currentIndex();
        if (current.isValid() && !model_->whyRow(current.row()).tracePath.empty())
            QDesktopServices::openUrl(
                QUrl::fromLocalFile(QString::fromStdString(model_->whyRow(current.row()).tracePath)));
    });
    fillChoices();
    showTrace();
    showAdvice();
    showMemory();
}

void WhyPage::showAdvice()
{
    // The current row's advice, each knob applied to its configuration: the button adds those that
    // apply (one configuration per knob, so the next sweep measures each), its menu one at a time.
    QMenu *menu = addToPanel_->menu();
    menu->clear();
    addToPanel_->disconnect(this);
    const QModelIndex current = view_->currentIndex();
    QString why;
    std::vector<RunConfig> configs;
    QStringList added, refused;
    if (!current.isValid()) {
        why = tr("Pick a row: its advice goes into the panel as configurations to run next.");
    } else {
        const report::WhyRow &w = model_->whyRow(current.row());
        const QString label = QString::fromStdString(w.label);
        if (!w.verdict)
            why = tr("%1 has no profile, so no advice.").arg(label);
        else if (w.verdict->advice.empty())
            why = tr("%1 has every knob its verdict names on already.").arg(label);
        else if (!w.config)
            why = tr("%1's configuration was not stored with it.").arg(label);
        for (const profile::Advice a : w.verdict && w.config ? w.verdict->advice : std::vector<profile::Advice>{}) {
            const profile::Advised advised = profile::applyAdvice(*w.config, a);
            const QString knob = QString::fromUtf8(profile::toString(a));
            QAction *action = menu->addAction(tr("%1 + %2").arg(label, knob));
            if (advised.config) {
                const RunConfig config = *advised.config;
                configs.push_back(config);
                added << knob;
                connect(action, &QAction::triggered, this, [this, config] { Q_EMIT configWanted(config); });
            } else {
                const QString problem = QString::fromStdString(advised.problem);
                refused << tr("%1: %2").arg(knob, problem);
                action->setEnabled(false);
                action->setToolTip(problem);
            }
        }
        if (why.isEmpty() && configs.empty())
            why = tr("No advised knob can be run on %1:\n%2").arg(label, refused.join('\n'));
        else if (why.isEmpty())
            why = tr("Adds %1 with each of %2 to the panel's custom list, one configuration each, to run next.%3")
                      .arg(label, added.join(tr(", ")),
                           refused.isEmpty() ? QString() : tr("\nNot: %1").arg(refused.join(tr("; "))));
    }
    addToPanel_->setEnabled(!configs.empty());
    addToPanel_->setToolTip(why);
    connect(addToPanel_, &QToolButton::clicked, this, [this, configs] {
        for (const RunConfig &c : configs)
            Q_EMIT configWanted(c);
    });
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

QString WhyPage::memoryText() const
{
    return memory_->text();
}

void WhyPage::showMemory()
{
    const QModelIndex current = view_->currentIndex();
    const report::WhyRow *row = current.isValid() ? &model_->whyRow(current.row()) : nullptr;
    for (int i = 0; !row && i < model_->rowCount(); ++i)
        if (model_->whyRow(i).memory)
            row = &model_->whyRow(i);
    // Never an empty chart standing for data: without a timeline the chart goes and a line says why.
    const profile::StoredMemory *memory = row ? row->memory : nullptr;
    const bool drawn = memory && memory->timeline && !memory->timeline->points.empty();
    memoryChart_->setTimeline(drawn ? memory->timeline : std::nullopt);
    memoryChart_->setVisible(drawn);
    if (!row) {
        memory_->setText(model_->rowCount() > 0
                             ? tr("Memory over one step: no row has a memory timeline (CUDA runs with profiling "
                                  "on record one).")
                             : QString());
        return;
    }
    const QString label = QString::fromStdString(row->label);
    if (!memory) {
        memory_->setText(tr("%1 has no memory timeline: it was not recorded (CUDA runs with profiling on record "
                            "one).")
                             .arg(label));
        return;
    }
    const report::MemoryLines lines = report::memoryLines(*memory, profile::kMaxMemoryBlocks);
    QStringList text{tr("%1, %2: %3")
                         .arg(label, QString::fromStdString(lines.title), QString::fromStdString(lines.lines.front()))};
    for (std::size_t i = 1; i < lines.lines.size(); ++i)
        text << QString::fromStdString(lines.lines[i]);
    memory_->setText(text.join('\n'));
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
    return diffSummary_->text();
}

void WhyPage::showDiff()
{
    const report::Ledger &ledger = model_->ledger();
    if (a_->currentIndex() < 0 || b_->currentIndex() < 0) {
        diffModel_->clear();
        diffSummary_->setText(ledger.rows.empty() ? QString()
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
    profile::ProfileDiff diff = profile::diffProfiles(a, b);
    diffSummary_->setText(QString::fromStdString(profile::diffSummaryText(diff, a, b, seconds)).trimmed());
    diffModel_->setDiff(std::move(diff));
}

} // namespace stepscope::ui
