#include "widgets/main_window.h"

#include "charts/break_even_chart.h"
#include "charts/chart_export.h"
#include "charts/first_vs_steady_chart.h"
#include "charts/live_step_chart.h"
#include "charts/waterfall_chart.h"
#include "controller/run_controller.h"
#include "models/comparison_model.h"
#include "models/compile_record.h"
#include "models/environment_model.h"
#include "models/figure_sort_proxy.h"
#include "models/history_model.h"
#include "models/ledger_model.h"
#include "models/phase_text.h"
#include "models/run_detail.h"
#include "report/compile_report.h"
#include "report/report_writer.h"
#include "report/run_summary.h"
#include "stats/stats.h"
#include "supervisor/sweep_runner.h"
#include "widgets/config_panel.h"
#include "widgets/environment_page.h"
#include "widgets/run_detail_dialog.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QThread>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

#include "charts/qcustomplot_compat.h"

namespace stepscope::ui
{
namespace
{

// Widgets belong to the UI thread; a slot reached from elsewhere is a wiring bug.
void assertUiThread()
{
    Q_ASSERT(QThread::currentThread() == qApp->thread());
}

QString duration(qint64 seconds)
{
    if (seconds < 0)
        return QObject::tr("estimating time left");
    if (seconds < 90)
        return QObject::tr("%1 s left").arg(seconds);
    if (seconds < 5400)
        return QObject::tr("%1 min left").arg((seconds + 30) / 60);
    return QObject::tr("%1 h %2 min left").arg(seconds / 3600).arg((seconds % 3600) / 60);
}

// Long knob labels ("tf32+cudnn-bench+bf16+channels-last+compile-reduce-overhead+warm-cache") have
// no space to wrap at: a zero-width space after each '+' lets a word-wrapping label break there.
QString breakableAtPlus(QString text)
{
    return text.replace(QLatin1Char('+'), QStringLiteral("+\u200B"));
}

} // namespace

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setWindowTitle(tr("Stepscope"));
    setWindowIcon(QIcon(":/icons/stepscope.svg"));
    controller_ = new RunController(this);
    panel_ = new ConfigPanel;
    ledger_ = new LedgerModel(this);
    history_ = new HistoryModel(this);
    comparison_ = new ComparisonModel(this);
    environment_ = new EnvironmentModel(this);
    buildTabs();

    auto *scroll = new QScrollArea;
    scroll->setWidget(panel_);
    scroll->setWidgetResizable(true);
    scroll->setMinimumWidth(panel_->sizeHint().width() + 24);
    auto *split = new QSplitter;
    split->addWidget(scroll);
    split->addWidget(tabs_);
    split->setStretchFactor(1, 1);
    setCentralWidget(split);

    progressLabel_ = new QLabel(tr("Ready"));
    progressBar_ = new QProgressBar;
    progressBar_->setRange(0, 1000);
    progressBar_->setMaximumWidth(240);
    progressBar_->setVisible(false);
    phaseLabel_ = new QLabel;
    phaseLabel_->setStyleSheet(QStringLiteral("QLabel { font-weight: bold; padding: 0 8px; }"));
    phaseLabel_->setVisible(false);
    statusBar()->addWidget(progressLabel_, 1);
    statusBar()->addPermanentWidget(phaseLabel_);
    statusBar()->addPermanentWidget(progressBar_);

    buildMenus();

    drain_ = new QTimer(this);
    drain_->setInterval(33); // ~30 Hz: smooth to the eye, cheap for the UI thread
    connect(drain_, &QTimer::timeout, this, &MainWindow::drainSamples);

    connect(panel_, &ConfigPanel::startRequested, this, &MainWindow::startSweep);
    connect(panel_, &ConfigPanel::stopRequested, this, &MainWindow::stopSweep);
    connect(panel_, &ConfigPanel::plannedStepsChanged, this, [this](qint64 n) {
        ledger_->setPlannedSteps(n);
        recommendation_->setText(breakableAtPlus(ledger_->recommendation()));
    });

    connect(controller_, &RunController::sweepStarted, this, [this](qint64 sweepId, int runs) {
        assertUiThread();
        panel_->setRunning(true);
        progressBar_->setVisible(true);
        progressBar_->setValue(0);
        runTotal_ = runs;
        ledger_->clear();
        log_->appendPlainText(tr("Sweep %1 started: %n run(s)", nullptr, runs).arg(sweepId));
        drain_->start();
        reloadHistory();
    });
    connect(controller_, &RunController::runStarted, this,
            [this](qint64 runId, int index, int total, const QString &name) {
                assertUiThread();
                // The previous run was drained when it finished; switch first, then drain, so
                // that steps of this run already in the buffer (step 1 among them) are kept.
                liveRunId_ = runId;
                liveSeries_.clear();
                steadyClock_.invalidate();
                runIndex_ = index;
                runTotal_ = total;
                clearPhase();
                live_->beginRun(tr("%1 (run %2 of %3)").arg(name).arg(index + 1).arg(total));
                drainSamples();
                tabs_->setCurrentWidget(live_);
                log_->appendPlainText(tr("[%1/%2] %3").arg(index + 1).arg(total).arg(name));
            });
    connect(controller_, &RunController::progress, this, [this](double run, double sweep, qint64 left) {
        progressBar_->setValue(static_cast<int>(sweep * 1000));
        progressLabel_->setText(tr("Run %1 of %2: %3% · sweep %4% · %5")
                                    .arg(runIndex_ + 1)
                                    .arg(runTotal_)
                                    .arg(static_cast<int>(run * 100))
                                    .arg(static_cast<int>(sweep * 100))
                                    .arg(duration(left)));
    });
    connect(controller_, &RunController::runFinished, this,
            [this](qint64 runId, int status, const QString &category, const QString &message) {
                assertUiThread();
                drainSamples();
                if (runId == liveRunId_)
                    clearPhase();
                if (!category.isEmpty()) {
                    const auto cat = failureCategoryFromString(category.toStdString());
                    log_->appendPlainText(
                        tr("run %1 %2 [%3]: %4\n  fix: %5")
                            .arg(runId)
                            .arg(QString::fromUtf8(toString(static_cast<RunStatus>(status)).data()))
                            .arg(category, message, cat ? QString::fromUtf8(fixFor(*cat).data()) : QString()));
                    statusBar()->showMessage(
                        tr("Run %1 failed: %2 (%3). The sweep goes on.").arg(runId).arg(category, message), 8000);
                }
                reloadLedger(controller_->currentSweep());
            });
    connect(controller_, &RunController::environment, this,
            [this](qint64, const QString &json) { environment_->setEnvironmentJson(json); });
    connect(controller_, &RunController::phase, this, &MainWindow::showPhase);
    connect(controller_, &RunController::compileInfo, this, &MainWindow::reportCompile);
    connect(controller_, &RunController::logLine, this, [this](const QString &line) { log_->appendPlainText(line); });
    connect(controller_, &RunController::failed, this, [this](const QString &message) {
        QMessageBox::critical(this, tr("Database write failed"),
                              tr("%1\n\nThe sweep was stopped. Everything committed before is kept.").arg(message));
    });
    connect(controller_, &RunController::finished, this, [this](qint64 sweepId, bool cancelled) {
        assertUiThread();
        drain_->stop();
        drainSamples();
        clearPhase();
        panel_->setRunning(false);
        progressBar_->setVisible(false);
        progressLabel_->setText(cancelled ? tr("Sweep %1 stopped; finished runs are kept.").arg(sweepId)
                                          : tr("Sweep %1 complete.").arg(sweepId));
        reloadLedger(sweepId);
        reloadHistory();
        tabs_->setCurrentIndex(1); // the ledger and its recommendation
        QSettings().setValue("lastSweep", sweepId);
        Q_EMIT sweepFinished(sweepId, cancelled);
    });

    loadSettings();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildTabs()
{
    tabs_ = new QTabWidget;
    live_ = new LiveStepChart;
    tabs_->addTab(live_, tr("&Live"));

    auto *ledgerPage = new QWidget;
    auto *ledgerLayout = new QVBoxLayout(ledgerPage);
    recommendation_ = new QLabel(tr("Run a sweep to get a recommendation."));
    recommendation_->setWordWrap(true);
    recommendation_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    recommendation_->setStyleSheet("QLabel { font-weight: bold; padding: 6px; }");
    ledgerProxy_ = new FigureSortProxy(this);
    ledgerProxy_->setSourceModel(ledger_);
    ledgerProxy_->setSortRole(LedgerModel::SortRole);
    ledgerView_ = new QTableView;
    ledgerView_->setModel(ledgerProxy_);
    ledgerView_->setSortingEnabled(true);
    ledgerView_->sortByColumn(-1, Qt::AscendingOrder); // sweep order until the user sorts
    ledgerView_->setSelectionBehavior(QAbstractItemView::SelectRows);
    ledgerView_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    ledgerView_->horizontalHeader()->setStretchLastSection(true);
    // Compiled configurations are named by every knob: the column is capped (reloadLedger), a longer
    // name wraps or is elided in the middle (keeping the compile mode and cache state), and the
    // tooltip has the full name.
    ledgerView_->horizontalHeader()->setSectionResizeMode(LedgerModel::Configuration, QHeaderView::Interactive);
    ledgerView_->setTextElideMode(Qt::ElideMiddle);
    ledgerView_->setToolTip(tr("Double-click a row for its steps; a failed or compiled configuration shows its run "
                               "detail (failure, fix, log, torch.compile)"));
    connect(ledgerView_, &QTableView::doubleClicked, this, &MainWindow::showRowDetail);
    ledgerLayout->addWidget(recommendation_);
    ledgerLayout->addWidget(ledgerView_);
    tabs_->addTab(ledgerPage, tr("Le&dger"));

    firstVsSteady_ = new FirstVsSteadyChart;
    firstVsSteady_->setModel(ledger_);
    tabs_->addTab(firstVsSteady_, tr("&First step vs steady"));
    breakEven_ = new BreakEvenChart;
    breakEven_->setModel(ledger_);
    tabs_->addTab(breakEven_, tr("&Break-even"));
    waterfall_ = new WaterfallChart;
    waterfall_->setModel(ledger_);
    tabs_->addTab(waterfall_, tr("&Waterfall"));

    auto *historyPage = new QWidget;
    auto *historyLayout = new QVBoxLayout(historyPage);
    historyFilter_ = new QLineEdit;
    historyFilter_->setPlaceholderText(tr("Filter sweeps and runs (name, configuration, status, category)"));
    historyFilter_->setClearButtonEnabled(true);
    historyProxy_ = new QSortFilterProxyModel(this);
    historyProxy_->setSourceModel(history_);
    historyProxy_->setRecursiveFilteringEnabled(true);
    historyProxy_->setFilterKeyColumn(-1);
    historyProxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    connect(historyFilter_, &QLineEdit::textChanged, historyProxy_, &QSortFilterProxyModel::setFilterFixedString);
    historyView_ = new QTreeView;
    historyView_->setModel(historyProxy_);
    historyView_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    historyView_->setSelectionBehavior(QAbstractItemView::SelectRows);
    historyView_->setSortingEnabled(true);
    historyView_->sortByColumn(-1, Qt::AscendingOrder); // newest sweep first, runs in run order
    historyView_->header()->resizeSection(0, 380);      // configuration names are long
    connect(historyView_, &QTreeView::doubleClicked, this, [this](const QModelIndex &index) {
        const qint64 sweep = history_->sweepId(historyProxy_->mapToSource(index));
        if (sweep > 0)
            showSweep(sweep);
    });
    auto *historyButtons = new QHBoxLayout;
    auto *open = new QPushButton(tr("Show in ledger"));
    auto *compare = new QPushButton(tr("Compare two sweeps"));
    auto *remove = new QPushButton(tr("Delete sweep…"));
    connect(open, &QPushButton::clicked, this, [this] {
        const auto index = historyView_->currentIndex();
        const qint64 sweep = history_->sweepId(historyProxy_->mapToSource(index));
        if (sweep > 0)
            showSweep(sweep);
    });
    connect(compare, &QPushButton::clicked, this, &MainWindow::compareSelectedSweeps);
    connect(remove, &QPushButton::clicked, this, &MainWindow::deleteSelectedSweep);
    historyButtons->addWidget(open);
    historyButtons->addWidget(compare);
    historyButtons->addWidget(remove);
    historyButtons->addStretch();
    historyLayout->addWidget(historyFilter_);
    historyLayout->addWidget(historyView_);
    historyLayout->addLayout(historyButtons);
    tabs_->addTab(historyPage, tr("&History"));

    auto *comparePage = new QWidget;
    auto *compareLayout = new QVBoxLayout(comparePage);
    comparisonTitle_ = new QLabel(tr("Select two sweeps in History and press \"Compare two sweeps\"."));
    comparisonTitle_->setWordWrap(true);
    comparisonView_ = new QTableView;
    comparisonView_->setModel(comparison_);
    comparisonView_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    comparisonView_->horizontalHeader()->setStretchLastSection(true);
    compareLayout->addWidget(comparisonTitle_);
    compareLayout->addWidget(comparisonView_);
    tabs_->addTab(comparePage, tr("&Compare"));

    environmentPage_ = new EnvironmentPage(environment_);
    connect(environmentPage_, &EnvironmentPage::doctorRequested, this, &MainWindow::runDoctor);
    tabs_->addTab(environmentPage_, tr("&Environment"));

    log_ = new QPlainTextEdit;
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(5000);
    tabs_->addTab(log_, tr("Lo&g"));
}

void MainWindow::buildMenus()
{
    auto *file = menuBar()->addMenu(tr("&File"));
    auto *open = file->addAction(tr("&Open database…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Open or create a measurements database"), controller_->databasePath(),
            tr("Stepscope databases (*.sqlite *.db);;All files (*)"), nullptr, QFileDialog::DontConfirmOverwrite);
        if (!path.isEmpty())
            openDatabase(path);
    });
    open->setShortcut(QKeySequence::Open);
    recentMenu_ = file->addMenu(tr("Recent databases"));
    file->addSeparator();
    auto *exportReport = file->addAction(tr("&Export comparison report…"), this, &MainWindow::exportReportInteractive);
    exportReport->setShortcut(QKeySequence(tr("Ctrl+E")));
    auto *exportChart = file->addAction(tr("Export current &chart…"), this, &MainWindow::exportChartInteractive);
    exportChart->setShortcut(QKeySequence(tr("Ctrl+Shift+E")));
    file->addSeparator();
    auto *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    auto *run = menuBar()->addMenu(tr("&Run"));
    auto *start = run->addAction(tr("&Start sweep"), this, &MainWindow::startSweep);
    start->setShortcut(QKeySequence(tr("Ctrl+R")));
    auto *stop = run->addAction(tr("S&top sweep"), this, &MainWindow::stopSweep);
    stop->setShortcut(QKeySequence(tr("Ctrl+.")));

    auto *view = menuBar()->addMenu(tr("&View"));
    for (int i = 0; i < tabs_->count(); ++i) {
        auto *a = view->addAction(tabs_->tabText(i).remove('&'), this, [this, i] { tabs_->setCurrentIndex(i); });
        a->setShortcut(QKeySequence(QString("Ctrl+%1").arg(i + 1)));
    }
    auto *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Stepscope"), this, [this] {
        QMessageBox::about(this, tr("About Stepscope"),
                           tr("<b>Stepscope</b> %1<br>Which PyTorch training-step optimizations pay off on this "
                              "GPU: first-step cost, steady-state saving, break-even and the fastest way to finish "
                              "your planned run.")
                               .arg(QCoreApplication::applicationVersion()));
    });
}

bool MainWindow::openDatabase(const QString &path)
{
    QString error;
    if (!controller_->openDatabase(path, &error)) {
        QMessageBox::warning(
            this, tr("Cannot open database"),
            tr("%1\n\nThe file was not changed. Choose another file with File › Open database.").arg(error));
        return false;
    }
    reader_.reset(); // the next read opens the new file
    rememberDatabase(controller_->databasePath());
    setWindowTitle(tr("Stepscope — %1").arg(QFileInfo(path).fileName()));
    reloadHistory();
    ledger_->clear();
    return true;
}

void MainWindow::detectDevices(std::function<void()> then)
{
    auto *probe = new QProcess(this);
    progressLabel_->setText(tr("Looking for CUDA devices…"));
    connect(probe, &QProcess::finished, this, [this, probe, then](int code, QProcess::ExitStatus) {
        const int count = code == 0 ? probe->readAllStandardOutput().trimmed().toInt() : 0;
        probe->deleteLater();
        panel_->setCudaDevices(count);
        loadSettings();
        progressLabel_->setText(count > 0 ? tr("%n CUDA device(s) found.", nullptr, count)
                                          : tr("No CUDA device: the default sweep runs small images on the CPU."));
        if (then)
            then();
    });
    connect(probe, &QProcess::errorOccurred, this, [this, probe, then](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart)
            return;
        probe->deleteLater();
        log_->appendPlainText(
            tr("Could not start the native worker %1: %2").arg(probe->program(), probe->errorString()));
        panel_->setCudaDevices(0);
        if (then)
            then();
    });
    probe->start(supervisor::defaultNativeWorker().program, {"--cuda-devices"});
}

bool MainWindow::startSweep()
{
    assertUiThread();
    if (controller_->isRunning())
        return false;
    if (!controller_->hasDatabase() && !openDatabase(RunController::defaultDatabasePath()))
        return false;
    SweepRequest request;
    QString error;
    QStringList skipped;
    if (!panel_->buildRequest(request, &error, &skipped)) {
        QMessageBox::warning(this, tr("Cannot start"), error);
        return false;
    }
    controller_->setPythonInterpreter(panel_->pythonInterpreter());
    for (const auto &s : skipped)
        log_->appendPlainText(tr("skipped %1").arg(s));
    if (!controller_->start(request, &error)) {
        QMessageBox::warning(this, tr("Cannot start"), error);
        return false;
    }
    ledger_->setPlannedSteps(request.plannedSteps);
    stepsInRun_ = request.configs.front().totalSteps();
    return true;
}

void MainWindow::stopSweep()
{
    if (controller_->isRunning()) {
        progressLabel_->setText(tr("Stopping: the running configuration is cancelled, finished runs are kept…"));
        controller_->stop();
    }
}

void MainWindow::drainSamples()
{
    assertUiThread();
    const auto batches = controller_->takeSamples();
    for (const auto &b : batches) {
        if (b.runId != liveRunId_)
            continue; // a late batch of a run the chart has already left
        clearPhase(); // steps are here: the compile (or capture) is over
        live_->appendSteps(b.firstIndex, b.ms);
        liveSeries_ += b.ms;
    }
    if (batches.empty() || liveSeries_.size() < 12)
        return;
    // The steady window is re-detected as steps arrive (step 1 is never part of it), at most twice
    // a second: it reads the whole series, and long runs reach 100,000 steps.
    if (steadyClock_.isValid() && steadyClock_.elapsed() < 500 && controller_->isRunning())
        return;
    steadyClock_.start();
    // The running run has no stored summary yet: the window of the same rule, over what arrived.
    const auto window = report::steadyWindowOf({std::vector<double>(liveSeries_.begin() + 1, liveSeries_.end())});
    if (window.found)
        live_->setSteadyWindow(static_cast<int>(window.first), static_cast<int>(window.first + window.count - 1));
    else
        live_->clearSteadyWindow();
}

void MainWindow::reloadLedger(qint64 sweepId)
{
    if (sweepId <= 0 || !controller_->hasDatabase())
        return;
    try {
        store::Reader &reader = this->reader();
        ledger_->setPlannedSteps(panel_->plannedSteps());
        ledger_->load(reader, sweepId);
        ledgerView_->resizeColumnToContents(LedgerModel::Configuration);
        ledgerView_->setColumnWidth(LedgerModel::Configuration,
                                    std::min(ledgerView_->columnWidth(LedgerModel::Configuration), 420));
        if (const auto env = ledger_->ledger().environmentJson; !env.empty())
            environment_->setEnvironmentJson(QString::fromStdString(env));
        // Launch-bound steps and what pinning did, from the sweep's completed runs.
        QList<RunTiming> timing;
        for (const auto &run : reader.runs(sweepId)) {
            if (run.status != RunStatus::Complete)
                continue;
            const auto summary = report::summaryOf(reader, run);
            timing.append({QString::fromStdString(run.configJson), summary.medianMs.value_or(0.0),
                           run.blockWallMs.value_or(0.0)});
        }
        environment_->setTiming(assessTiming(timing));
    } catch (const store::StoreError &e) {
        statusBar()->showMessage(QString::fromUtf8(e.what()), 8000);
        return;
    }
    recommendation_->setText(ledger_->recommendation().isEmpty()
                                 ? tr("No recommendation yet: no configuration has a steady state.")
                                 : breakableAtPlus(ledger_->recommendation()));
}

void MainWindow::reloadHistory()
{
    if (!controller_->hasDatabase())
        return;
    try {
        store::Reader &reader = this->reader();
        history_->load(reader);
    } catch (const store::StoreError &e) {
        statusBar()->showMessage(QString::fromUtf8(e.what()), 8000);
    }
    historyView_->expandToDepth(-1);
}

void MainWindow::showSweep(qint64 sweepId)
{
    reloadLedger(sweepId);
    try {
        store::Reader &reader = this->reader();
        const auto runs = reader.runs(sweepId);
        if (!runs.empty())
            showRunSteps(runs.back().id);
    } catch (const store::StoreError &) {
    }
    tabs_->setCurrentIndex(1);
}

store::Reader &MainWindow::reader()
{
    // One long-lived reader: opening one checks the whole file (quick_check), which is too slow
    // to repeat on the UI thread after every run of a large database. WAL lets it see every
    // commit of the writer.
    if (!reader_)
        reader_ = store::Reader::open(controller_->databasePath().toStdString());
    return *reader_;
}

QString MainWindow::recommendationText() const
{
    return recommendation_->text().remove(QChar(0x200B));
}

QString MainWindow::phaseStatus() const
{
    return phaseLabel_->isVisible() ? phaseLabel_->text() : QString();
}

void MainWindow::showPhase(qint64 runId, const QString &phase, double elapsedSeconds)
{
    assertUiThread();
    if (runId != liveRunId_)
        return; // a phase of a run the window has already left
    const QString status = phaseStatusText(phase, elapsedSeconds);
    phaseLabel_->setText(status);
    phaseLabel_->setToolTip(phaseExplanation(phase));
    phaseLabel_->setVisible(true);
    live_->setPhase(status, phaseExplanation(phase));
}

void MainWindow::clearPhase()
{
    if (!phaseLabel_->isVisible())
        return;
    phaseLabel_->clear();
    phaseLabel_->setVisible(false);
    live_->clearPhase();
}

void MainWindow::reportCompile(qint64 runId, const QString &json)
{
    const CompileRecord record = parseCompileRecord(json);
    if (!record.present)
        return;
    QStringList facts{compileSettingsText(record)};
    if (record.compileS)
        facts << tr("compile %1").arg(QString::fromStdString(report::formatSeconds(*record.compileS)));
    if (const QString counts = compileCountsText(record); !counts.isEmpty())
        facts << counts;
    facts.removeAll(QString());
    log_->appendPlainText(tr("run %1 torch.compile: %2").arg(runId).arg(facts.join(QStringLiteral(", "))));
    if (record.notCompiled()) {
        // The run will be failed (compile-failed); say why now, while the user is watching.
        const QString text = notCompiledText(record);
        log_->appendPlainText(tr("run %1 %2").arg(runId).arg(text));
        statusBar()->showMessage(tr("Run %1: %2").arg(runId).arg(text), 10000);
    }
}

void MainWindow::runDoctor()
{
    environmentPage_->runDoctor(supervisor::defaultPythonWorker(panel_->pythonInterpreter()), panel_->device());
}

void MainWindow::compareSelectedSweeps()
{
    QList<qint64> sweeps;
    for (const auto &index : historyView_->selectionModel()->selectedRows()) {
        const auto source = historyProxy_->mapToSource(index);
        const qint64 id = history_->sweepId(source);
        if (id > 0 && history_->runId(source) == 0 && !sweeps.contains(id))
            sweeps << id;
    }
    if (sweeps.size() != 2) {
        QMessageBox::information(this, tr("Compare sweeps"),
                                 tr("Select exactly two sweeps (Ctrl+click) in the history, then compare."));
        return;
    }
    std::sort(sweeps.begin(), sweeps.end());
    compareSweeps(sweeps[0], sweeps[1]);
}

bool MainWindow::compareSweeps(qint64 first, qint64 second)
{
    try {
        store::Reader &reader = this->reader();
        const auto a = report::buildLedger(reader, first, panel_->plannedSteps());
        const auto b = report::buildLedger(reader, second, panel_->plannedSteps());
        if (a.rows.empty() || b.rows.empty()) {
            QMessageBox::information(this, tr("Compare sweeps"), tr("One of the two sweeps has no runs."));
            return false;
        }
        comparison_->setLedgers(a, b);
        comparisonTitle_->setText(tr("Sweep %1 (A, %2) against sweep %3 (B, %4): ratio B/A of steady-state medians "
                                     "with a bootstrap 95% CI.")
                                      .arg(first)
                                      .arg(QString::fromStdString(a.sweep.name))
                                      .arg(second)
                                      .arg(QString::fromStdString(b.sweep.name)));
    } catch (const store::StoreError &e) {
        QMessageBox::warning(this, tr("Compare sweeps"), QString::fromUtf8(e.what()));
        return false;
    }
    tabs_->setCurrentIndex(6);
    return true;
}

void MainWindow::showRunSteps(qint64 runId)
{
    if (controller_->isRunning() || !controller_->hasDatabase())
        return; // the live chart belongs to the running sweep
    try {
        store::Reader &reader = this->reader();
        const auto run = reader.run(runId);
        if (!run)
            return;
        QVector<double> ms;
        for (const auto &step : reader.steps(runId))
            ms << (step.gpuMs ? *step.gpuMs : step.wallMs);
        liveRunId_ = 0;
        live_->beginRun(tr("%1 (run %2, %3)")
                            .arg(QString::fromStdString(run->configName))
                            .arg(runId)
                            .arg(QString::fromUtf8(toString(run->status).data())));
        if (ms.isEmpty())
            return;
        live_->appendSteps(1, ms);
        // The window the run's stored summary names (read by the same rule when it has none).
        const auto summary = report::summaryOf(reader, *run);
        if (report::hasSteadyState(summary))
            live_->setSteadyWindow(static_cast<int>(summary.steadyBegin),
                                   static_cast<int>(summary.steadyBegin + summary.steadyCount - 1));
    } catch (const store::StoreError &e) {
        statusBar()->showMessage(QString::fromUtf8(e.what()), 8000);
    }
}

void MainWindow::deleteSelectedSweep()
{
    const auto index = historyProxy_->mapToSource(historyView_->currentIndex());
    const qint64 sweep = history_->sweepId(index);
    if (sweep <= 0)
        return;
    if (controller_->isRunning() && controller_->currentSweep() == sweep) {
        QMessageBox::information(this, tr("Delete sweep"), tr("Stop the running sweep before deleting it."));
        return;
    }
    if (QMessageBox::question(this, tr("Delete sweep"),
                              tr("Delete sweep %1 with all its runs and steps? This cannot be undone.").arg(sweep)) !=
        QMessageBox::Yes)
        return;
    QString error;
    if (!controller_->deleteSweep(sweep, &error)) {
        QMessageBox::warning(this, tr("Delete sweep"), error);
        return;
    }
    if (ledger_->sweepId() == sweep)
        ledger_->clear();
    reloadHistory();
}

RunDetailDialog *MainWindow::rowDetailDialog(int ledgerRow)
{
    if (ledgerRow < 0 || ledgerRow >= ledger_->rowCount() || !controller_->hasDatabase())
        return nullptr;
    const QModelIndex index = ledger_->index(ledgerRow, LedgerModel::Configuration);
    const std::string name = index.data(LedgerModel::ConfigNameRole).toString().toStdString();
    std::vector<store::RunRecord> runs;
    try {
        for (auto &run : reader().runs(ledger_->sweepId()))
            if (run.configName == name)
                runs.push_back(std::move(run));
    } catch (const store::StoreError &e) {
        statusBar()->showMessage(QString::fromUtf8(e.what()), 8000);
        return nullptr;
    }
    const bool failed = !index.data(LedgerModel::FailureDetailRole).toString().isEmpty();
    const bool compiled = std::any_of(runs.begin(), runs.end(), [](const auto &r) { return runIsCompiled(r); });
    if (runs.empty() || (!failed && !compiled))
        return nullptr;
    auto *dialog = new RunDetailDialog(index.data().toString(), runs, RunDetailDialog::preferredRun(runs), this);
    connect(dialog, &RunDetailDialog::showStepsRequested, this, [this](qint64 runId) {
        showRunSteps(runId);
        tabs_->setCurrentWidget(live_);
    });
    return dialog;
}

void MainWindow::showRowDetail(const QModelIndex &proxyIndex)
{
    const int row = ledgerProxy_->mapToSource(proxyIndex).row();
    if (std::unique_ptr<RunDetailDialog> dialog{rowDetailDialog(row)}) {
        dialog->exec();
        return;
    }
    // A plain configuration that ran: show the steps of its first complete run.
    const std::string name = ledgerProxy_->data(proxyIndex, LedgerModel::ConfigNameRole).toString().toStdString();
    try {
        store::Reader &reader = this->reader();
        for (const auto &run : reader.runs(ledger_->sweepId()))
            if (run.configName == name && run.status == RunStatus::Complete) {
                showRunSteps(run.id);
                tabs_->setCurrentWidget(live_);
                return;
            }
    } catch (const store::StoreError &) {
    }
}

bool MainWindow::exportReport(const QString &path, QString *error)
{
    if (ledger_->rowCount() == 0) {
        if (error)
            *error = tr("There is no sweep to report: run one or open one from the history.");
        return false;
    }
    ReportInput input;
    input.ledger = ledger_->ledger();
    input.environmentJson = QString::fromStdString(ledger_->ledger().environmentJson);
    input.generated = QDateTime::currentDateTime();
    try {
        input.compile = compileReportRows(reader(), input.ledger);
    } catch (const store::StoreError &e) {
        // The report still has the ledger; only the torch.compile section needs the runs.
        statusBar()->showMessage(QString::fromUtf8(e.what()), 8000);
    }
    const QSize size(900, 480);
    input.charts << qMakePair(tr("First step vs steady state"), renderChart(firstVsSteady_->plot(), size))
                 << qMakePair(tr("Break-even"), renderChart(breakEven_->plot(), size))
                 << qMakePair(tr("Waterfall of the cumulative ledger"), renderChart(waterfall_->plot(), size));
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == "html" || suffix == "htm")
        return writeHtml(input, path, error);
    if (suffix == "pdf")
        return writePdf(input, path, error);
    if (suffix == "md" || suffix == "markdown")
        return writeMarkdown(input, path, error);
    if (suffix == "csv")
        return writeCsv(input, path, error);
    if (error)
        *error = tr("Unknown report format '.%1': use .html, .pdf, .md or .csv.").arg(suffix);
    return false;
}

void MainWindow::exportReportInteractive()
{
    QString filter;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export comparison report"), QDir::homePath() + "/stepscope-report.html",
        tr("HTML report (*.html);;PDF (*.pdf);;Markdown (*.md);;CSV table (*.csv)"), &filter);
    if (path.isEmpty())
        return;
    QString error;
    if (exportReport(path, &error))
        statusBar()->showMessage(tr("Report written to %1").arg(path), 6000);
    else
        QMessageBox::warning(this, tr("Export report"), error);
}

QCustomPlot *MainWindow::currentPlot() const
{
    QWidget *w = tabs_->currentWidget();
    if (w == live_)
        return live_->plot();
    if (w == firstVsSteady_)
        return firstVsSteady_->plot();
    if (w == breakEven_)
        return breakEven_->plot();
    if (w == waterfall_)
        return waterfall_->plot();
    return nullptr;
}

void MainWindow::exportChartInteractive()
{
    QCustomPlot *plot = currentPlot();
    if (!plot) {
        QMessageBox::information(this, tr("Export chart"), tr("Switch to a chart tab first."));
        return;
    }
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export chart"), QDir::homePath() + "/stepscope-chart.png",
                                     tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!saveChart(plot, path, &error))
        QMessageBox::warning(this, tr("Export chart"), error);
}

bool MainWindow::saveScreenshots(const QString &dir, QString *error)
{
    if (!QDir().mkpath(dir)) {
        if (error)
            *error = tr("Cannot create %1").arg(dir);
        return false;
    }
    static const char *names[] = {"live",    "ledger",  "first-vs-steady", "break-even", "waterfall",
                                  "history", "compare", "environment",     "log"};
    for (int i = 0; i < tabs_->count() && i < 9; ++i) {
        tabs_->setCurrentIndex(i);
        QApplication::processEvents();
        if (auto *plot = currentPlot())
            plot->replot(QCustomPlot::rpImmediateRefresh);
        const QString path = QDir(dir).filePath(QString("stepscope-%1.png").arg(names[i]));
        if (!grab().save(path)) {
            if (error)
                *error = tr("Cannot write %1").arg(path);
            return false;
        }
    }
    // The run detail as a double-click shows it: the first compiled configuration that ran, and
    // the first that failed (a compile that fell back to eager among them).
    bool shotCompiled = false, shotFailed = false;
    for (int row = 0; row < ledger_->rowCount() && !(shotCompiled && shotFailed); ++row) {
        std::unique_ptr<RunDetailDialog> dialog{rowDetailDialog(row)};
        if (!dialog)
            continue;
        const bool failed = dialog->currentRun().status != RunStatus::Complete;
        if ((failed && shotFailed) || (!failed && shotCompiled))
            continue;
        (failed ? shotFailed : shotCompiled) = true;
        dialog->show();
        QApplication::processEvents();
        const QString path = QDir(dir).filePath(failed ? QStringLiteral("stepscope-run-detail-failed.png")
                                                       : QStringLiteral("stepscope-run-detail.png"));
        if (!dialog->grab().save(path)) {
            if (error)
                *error = tr("Cannot write %1").arg(path);
            return false;
        }
    }
    return true;
}

void MainWindow::rememberDatabase(const QString &path)
{
    QSettings settings;
    QStringList recent = settings.value("recentDatabases").toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > 8)
        recent.removeLast();
    settings.setValue("recentDatabases", recent);
    settings.setValue("database", path);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    if (!recentMenu_)
        return;
    recentMenu_->clear();
    const QStringList recent = QSettings().value("recentDatabases").toStringList();
    for (const auto &path : recent)
        recentMenu_->addAction(path, this, [this, path] { openDatabase(path); });
    recentMenu_->setEnabled(!recent.isEmpty());
}

void MainWindow::loadSettings()
{
    QSettings settings;
    restoreGeometry(settings.value("window/geometry").toByteArray());
    panel_->loadSettings(settings);
    rebuildRecentMenu();
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    panel_->saveSettings(settings);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (controller_->isRunning()) {
        const auto answer = QMessageBox::question(
            this, tr("Quit Stepscope"),
            tr("A sweep is running. Quit anyway? The running configuration is cancelled; finished runs are kept."));
        if (answer != QMessageBox::Yes) {
            event->ignore();
            return;
        }
    }
    saveSettings();
    event->accept();
}

} // namespace stepscope::ui
