#include "widgets/main_window.h"

#include "charts/break_even_chart.h"
#include "charts/chart_export.h"
#include "charts/first_vs_steady_chart.h"
#include "charts/ledger_chart.h"
#include "charts/live_step_chart.h"
#include "charts/waterfall_chart.h"
#include "config/config_json.h"
#include "config/run_config.h"
#include "controller/comparison_job.h"
#include "controller/device_probe.h"
#include "controller/query_job.h"
#include "controller/report_job.h"
#include "controller/run_controller.h"
#include "controller/store_message.h"
#include "models/comparison_model.h"
#include "models/compile_record.h"
#include "models/environment_model.h"
#include "models/history_model.h"
#include "models/ledger_model.h"
#include "models/phase_text.h"
#include "models/run_detail.h"
#include "pages/chart_page.h"
#include "pages/compare_page.h"
#include "pages/history_page.h"
#include "pages/ledger_page.h"
#include "pages/log_page.h"
#include "pages/steps_page.h"
#include "report/report_charts.h"
#include "report/run_summary.h"
#include "store/database_files.h"
#include "supervisor/sweep_runner.h"
#include "widgets/config_panel.h"
#include "widgets/environment_page.h"
#include "widgets/run_detail_dialog.h"
#include "widgets/sweep_header.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>

#include <utility>

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

// A store message with where the dashboard chooses another database file.
QString fileChoiceHint(const QString &message)
{
    return withFileChoiceHint(message, MainWindow::tr("with File › Open database…"));
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

// How long the planned-steps box waits for the typing to stop before the recommendation is
// recomputed: one recomputation per number, not per keystroke.
constexpr int kPlannedDebounceMs = 250;

// The report's charts, drawn from its ledger by the chart classes as renderReportCharts() draws
// them, but one per turn of the event loop: at print resolution each takes tens of milliseconds of
// the UI thread, all three at once more than a frame should wait.
void drawReportCharts(QObject *context, std::shared_ptr<ReportInput> input, std::function<void(ReportInput)> done)
{
    struct Drawing {
        std::shared_ptr<ReportInput> input;
        LedgerModel model;
        int next = 0;
    };
    auto drawing = std::make_shared<Drawing>();
    drawing->input = std::move(input);
    drawing->model.setLedger(drawing->input->ledger);
    auto step = std::make_shared<std::function<void()>>();
    *step = [context, drawing, done = std::move(done), step] {
        const auto title = [](const char *text) { return QCoreApplication::translate("Report", text); };
        std::unique_ptr<LedgerChart> chart;
        QString name;
        switch (drawing->next++) {
        case 0:
            chart = std::make_unique<FirstVsSteadyChart>();
            name = title("First step vs steady state");
            break;
        case 1:
            chart = std::make_unique<BreakEvenChart>();
            name = title("Break-even");
            break;
        default:
            chart = std::make_unique<WaterfallChart>();
            name = title("Waterfall of the cumulative ledger");
            break;
        }
        chart->setModel(&drawing->model);
        drawing->input->charts.append({name, renderChart(chart->plot(), kReportChartSize, 2.0)});
        if (drawing->next < 3) {
            // A timer, not a posted call: posted calls run back to back, timers let others in between.
            QTimer::singleShot(5, context, *step);
            return;
        }
        done(std::move(*drawing->input));
        *step = nullptr; // breaks the cycle of the closure holding itself
    };
    // The first chart too: a zero timer is a posted call, and would run back to back with the
    // layout and paint the export's request left queued.
    QTimer::singleShot(5, context, *step);
}

} // namespace

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setWindowTitle(tr("Stepscope"));
    setWindowIcon(QIcon(":/icons/stepscope.svg"));
    controller_ = new RunController(this);
    ledger_ = new LedgerModel(this);
    history_ = new HistoryModel(this);
    comparison_ = new ComparisonModel(this);
    environment_ = new EnvironmentModel(this);
    ledgerJob_ = new LedgerJob(ledger_, this);
    comparisonJob_ = new ComparisonJob(comparison_, this);
    queryJob_ = new QueryJob(history_, this);
    reportJob_ = new ReportJob(this);
    deviceProbe_ = new DeviceProbe(this);

    panel_ = new ConfigPanel;
    header_ = new SweepHeader;
    buildPages();

    // The panel scrolls; the planned run and Start/Stop stay under it, in view at 1280x720.
    QWidget *actions = panel_->actionBar();
    auto *scroll = new QScrollArea;
    scroll->setWidget(panel_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setMinimumWidth(panel_->minimumSizeHint().width() + scroll->verticalScrollBar()->sizeHint().width());
    auto *left = new QWidget;
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(scroll, 1);
    leftLayout->addWidget(actions);
    actions->setContentsMargins(9, 0, 9, 6);
    auto *right = new QWidget;
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->setSpacing(2);
    rightLayout->addWidget(header_);
    rightLayout->addWidget(tabs_, 1);
    auto *split = new QSplitter;
    split->addWidget(left);
    split->addWidget(right);
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
    plannedDebounce_ = new QTimer(this);
    plannedDebounce_->setSingleShot(true);
    plannedDebounce_->setInterval(kPlannedDebounceMs);
    connect(plannedDebounce_, &QTimer::timeout, this, [this] {
        const qint64 n = panel_->plannedSteps();
        if (ledger_->rowCount() == 0 && !ledgerJob_->isBusy())
            return; // the next ledger is built for it
        ledgerActivity_ = tr("Recomputing the recommendation for %1 steps…").arg(QLocale().toString(n));
        ledgerJob_->requestPlannedSteps(n);
        updateBusy();
    });

    connect(panel_, &ConfigPanel::startRequested, this, &MainWindow::startSweep);
    connect(panel_, &ConfigPanel::stopRequested, this, &MainWindow::stopSweep);
    connect(panel_, &ConfigPanel::plannedStepsChanged, plannedDebounce_, qOverload<>(&QTimer::start));
    connect(panel_, &ConfigPanel::runAgainRequested, this, &MainWindow::runAgain);
    connect(panel_, &ConfigPanel::sweepViewLeft, this, &MainWindow::leaveStoredSettings);
    connectController();
    connectJobs();

    loadSettings();
}

MainWindow::~MainWindow() = default;

void MainWindow::addPage(Page *page)
{
    pages_ << page;
    tabs_->addTab(page, page->title());
}

void MainWindow::buildPages()
{
    tabs_ = new QTabWidget;
    live_ = new LiveStepChart;
    livePage_ = new ChartPage(live_, tr("&Live"), QStringLiteral("live"), [this] {
        liveRunId_ = 0;
        live_->beginRun(tr("No run shown"));
    });
    addPage(livePage_);
    ledgerPage_ = new LedgerPage(ledger_);
    connect(ledgerPage_, &LedgerPage::rowActivated, this, &MainWindow::showRowDetail);
    addPage(ledgerPage_);
    firstVsSteady_ = new FirstVsSteadyChart;
    firstVsSteady_->setModel(ledger_);
    addPage(new ChartPage(firstVsSteady_, tr("&First step vs steady"), QStringLiteral("first-vs-steady")));
    breakEven_ = new BreakEvenChart;
    breakEven_->setModel(ledger_);
    addPage(new ChartPage(breakEven_, tr("&Break-even"), QStringLiteral("break-even")));
    waterfall_ = new WaterfallChart;
    waterfall_->setModel(ledger_);
    addPage(new ChartPage(waterfall_, tr("&Waterfall"), QStringLiteral("waterfall")));
    stepsPage_ = new StepsPage(ledger_);
    connect(stepsPage_, &StepsPage::runsWanted, this, [this](const QVector<StepsPage::Wanted> &runs) {
        if (controller_->hasDatabase() && !controller_->isOpening())
            queryJob_->requestRunSeries(runs);
    });
    addPage(stepsPage_);

    historyPage_ = new HistoryPage(history_);
    connect(historyPage_, &HistoryPage::showRequested, this, &MainWindow::showSweep);
    connect(historyPage_, &HistoryPage::compareRequested, this, &MainWindow::compareSweeps);
    connect(historyPage_, &HistoryPage::renameRequested, this, &MainWindow::renameSweep);
    connect(historyPage_, &HistoryPage::deleteRequested, this, &MainWindow::deleteSweep);
    addPage(historyPage_);
    comparePage_ = new ComparePage(comparison_, comparisonJob_);
    addPage(comparePage_);
    environmentPage_ = new EnvironmentPage(environment_);
    connect(environmentPage_, &EnvironmentPage::doctorRequested, this, &MainWindow::runDoctor);
    addPage(environmentPage_);
    log_ = new LogPage;
    addPage(log_);
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
    auto *exportReport = file->addAction(tr("&Export sweep report…"), this, &MainWindow::exportReportInteractive);
    exportReport->setShortcut(QKeySequence(tr("Ctrl+E")));
    file->addAction(tr("Export c&omparison report…"), comparePage_, &ComparePage::exportReportInteractive);
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
    int number = 0;
    for (Page *page : pages_) {
        auto *a = view->addAction(page->title().remove('&'), this, [this, page] { tabs_->setCurrentWidget(page); });
        if (++number <= 9)
            a->setShortcut(QKeySequence(QString("Ctrl+%1").arg(number)));
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

void MainWindow::connectController()
{
    connect(controller_, &RunController::databaseOpened, this, &MainWindow::onDatabaseOpened);
    connect(controller_, &RunController::databaseRefused, this, [this](const QString &, const QString &error) {
        startWhenOpen_ = false;
        pendingSweep_ = 0;
        pendingCompare_.reset();
        header_->clear();
        updateBusy();
        // The store says when another file is the remedy; the dashboard says where to choose one.
        const QString hinted = fileChoiceHint(error);
        QMessageBox::warning(
            this, tr("Cannot open database"),
            hinted != error
                ? tr("%1\n\nThe file was not changed.").arg(hinted)
                : tr("%1\n\nThe file was not changed. Choose another file with File › Open database.").arg(error));
    });
    connect(controller_, &RunController::sweepStarted, this, [this](qint64 sweepId, int runs) {
        assertUiThread();
        panel_->setRunning(true);
        progressBar_->setVisible(true);
        progressBar_->setValue(0);
        runningSweep_ = sweepId;
        runTotal_ = runs;
        runsComplete_ = runsEnded_ = 0;
        log_->append(tr("Sweep %1 started: %n run(s)", nullptr, runs).arg(sweepId));
        drain_->start();
        requestLedger(sweepId, tr("Reading sweep %1…").arg(sweepId));
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
                tabs_->setCurrentWidget(livePage_);
                log_->append(tr("[%1/%2] %3").arg(index + 1).arg(total).arg(name));
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
                ++runsEnded_;
                const auto runStatus = static_cast<RunStatus>(status);
                runsComplete_ += runStatus == RunStatus::Complete ? 1 : 0;
                if (runStatus == RunStatus::Cancelled) {
                    // A Stop ends the whole sweep: this run is cancelled, not failed, and what it
                    // recorded is kept.
                    log_->append(tr("run %1 cancelled: %2").arg(runId).arg(message));
                    showMessage(tr("Run %1 cancelled (%2): the sweep stops; its recorded steps and finished runs "
                                   "are kept.")
                                    .arg(runId)
                                    .arg(message),
                                10000);
                } else if (!category.isEmpty()) {
                    const auto cat = failureCategoryFromString(category.toStdString());
                    log_->append(tr("run %1 %2 [%3]: %4\n  fix: %5")
                                     .arg(runId)
                                     .arg(QString::fromUtf8(toString(runStatus).data()))
                                     .arg(category, message, cat ? QString::fromUtf8(fixFor(*cat).data()) : QString()));
                    showMessage(tr("Run %1 failed: %2 (%3). The sweep goes on with the next run.")
                                    .arg(runId)
                                    .arg(category, message),
                                8000);
                }
                requestLedger(runningSweep_,
                              tr("Updating the ledger after run %1 of %2…").arg(runIndex_ + 1).arg(runTotal_));
            });
    connect(controller_, &RunController::environment, this,
            [this](qint64, const QString &json) { environment_->setEnvironmentJson(json); });
    connect(controller_, &RunController::phase, this, &MainWindow::showPhase);
    connect(controller_, &RunController::compileInfo, this, &MainWindow::reportCompile);
    connect(controller_, &RunController::logLine, this, [this](const QString &line) { log_->append(line); });
    connect(controller_, &RunController::failed, this, [this](const QString &message) {
        QMessageBox::critical(
            this, tr("Database write failed"),
            tr("%1\n\nThe sweep was stopped. Everything committed before is kept.").arg(fileChoiceHint(message)));
    });
    connect(controller_, &RunController::finished, this, [this](qint64 sweepId, bool cancelled) {
        assertUiThread();
        drain_->stop();
        drainSamples();
        clearPhase();
        panel_->setRunning(false);
        progressBar_->setVisible(false);
        if (cancelled)
            progressLabel_->setText(tr("Sweep %1 cancelled: %2 of %3 runs complete and kept; the rest did not run.")
                                        .arg(sweepId)
                                        .arg(runsComplete_)
                                        .arg(runTotal_));
        else
            progressLabel_->setText(
                tr("Sweep %1 complete: %2 of %3 runs complete.").arg(sweepId).arg(runsComplete_).arg(runTotal_));
        log_->append(progressLabel_->text());
        requestLedger(sweepId, tr("Computing the ledger of sweep %1…").arg(sweepId));
        reloadHistory();
        tabs_->setCurrentWidget(ledgerPage_); // the ledger and its recommendation
        QSettings().setValue("lastSweep", sweepId);
        runningSweep_ = 0;
        Q_EMIT sweepFinished(sweepId, cancelled);
    });
}

void MainWindow::connectJobs()
{
    for (ReaderJob *job : std::initializer_list<ReaderJob *>{ledgerJob_, comparisonJob_, queryJob_, reportJob_}) {
        connect(job, &ReaderJob::busyChanged, this, &MainWindow::updateBusy);
        connect(job, &ReaderJob::failed, this, [this](const QString &message) { showMessage(message, 10000); });
    }
    connect(ledgerJob_, &LedgerJob::sweepRead, this, &MainWindow::onSweepRead);
    connect(ledgerJob_, &LedgerJob::ready, this, [this](qint64, const QList<EnvironmentEntry> &timing) {
        if (const auto &env = ledger_->ledger().environmentJson; !env.empty())
            environment_->setEnvironmentJson(QString::fromStdString(env));
        environment_->setTiming(timing);
    });
    connect(ledgerJob_, &LedgerJob::busyChanged, this, [this](bool busy) {
        if (!busy)
            ledgerActivity_.clear();
        ledgerPage_->setStatus(busy ? ledgerActivity_ : QString());
    });
    connect(comparePage_, &ComparePage::reportWritten, this,
            [this](const QString &path) { showMessage(tr("Comparison report written to %1").arg(path), 6000); });
    connect(queryJob_, &QueryJob::runStepsReady, this, &MainWindow::showSteps);
    connect(queryJob_, &QueryJob::runSeriesReady, stepsPage_, &StepsPage::setRuns);
    connect(reportJob_, &ReportJob::written, this, [this](const QString &path) {
        showMessage(tr("Report written to %1").arg(path), 6000);
        Q_EMIT reportWritten(path);
    });
    connect(reportJob_, &ReportJob::refused, this,
            [this](const QString &, const QString &error) { Q_EMIT reportFailed(error); });
    connect(deviceProbe_, &DeviceProbe::failedToStart, this, [this](const QString &message) { log_->append(message); });
    connect(deviceProbe_, &DeviceProbe::found, this, [this](int count) {
        panel_->setCudaDevices(count);
        loadSettings();
        if (storedView_ && shownInfo_)
            showStoredSettings(*shownInfo_); // the probe reset the panel under the stored sweep
        // Said for a while, not left standing: a stored sweep on show may well have run on a GPU.
        progressLabel_->setText(tr("Ready"));
        showMessage(count > 0 ? tr("%n CUDA device(s) found.", nullptr, count)
                              : tr("No CUDA device on this machine: new sweeps run small images on the CPU."),
                    8000);
        const auto then = std::move(afterProbe_);
        afterProbe_.clear();
        for (const auto &f : then)
            if (f)
                f();
    });
}

bool MainWindow::openDatabase(const QString &path)
{
    if (path.isEmpty()) {
        // No default path (HOME is not set): nothing is written until the user picks a file, and
        // the status bar says so rather than a dialog at start-up.
        progressLabel_->setText(RunController::noDefaultDatabase() + QLatin1Char(' ') +
                                tr("Settings are kept in %1.").arg(QFileInfo(QSettings().fileName()).absolutePath()));
        return false;
    }
    QString error;
    if (!controller_->openDatabaseAsync(path, &error)) {
        QMessageBox::warning(this, tr("Cannot open database"), error);
        return false;
    }
    // Nothing of the previous file stays on screen while this one opens.
    clearViews();
    header_->setActivity(tr("Opening %1…").arg(QFileInfo(path).fileName()));
    updateBusy();
    return true;
}

void MainWindow::onDatabaseOpened(const QString &path)
{
    for (ReaderJob *job : std::initializer_list<ReaderJob *>{ledgerJob_, comparisonJob_, queryJob_, reportJob_})
        job->setDatabase(path);
    comparePage_->setDatabase(path);
    rememberDatabase(path);
    setWindowTitle(tr("Stepscope — %1").arg(QFileInfo(path).fileName()));
    reloadHistory();
    if (std::exchange(startWhenOpen_, false))
        QTimer::singleShot(0, this, &MainWindow::startSweep);
    const qint64 sweep = std::exchange(pendingSweep_, 0);
    const auto compare = std::exchange(pendingCompare_, std::nullopt);
    if (sweep > 0)
        showSweep(sweep);
    if (compare)
        compareSweeps(compare->first, compare->second);
    updateBusy();
    Q_EMIT databaseOpened(path);
}

void MainWindow::clearViews()
{
    for (ReaderJob *job : std::initializer_list<ReaderJob *>{ledgerJob_, comparisonJob_, queryJob_})
        job->cancel();
    shownSweep_ = pendingSweep_ = 0;
    pendingCompare_.reset();
    shownInfo_.reset();
    ledger_->clear();
    comparison_->clear();
    history_->clear();
    environment_->clear();
    header_->clear();
    for (Page *page : pages_)
        page->clear();
    if (panel_->viewingSweep())
        leaveStoredSettings(true);
    storedView_ = false;
}

void MainWindow::detectDevices(std::function<void()> then)
{
    afterProbe_.push_back(std::move(then));
    progressLabel_->setText(tr("Looking for CUDA devices…"));
    deviceProbe_->start();
}

bool MainWindow::startSweep()
{
    assertUiThread();
    if (controller_->isRunning())
        return false;
    if (controller_->isOpening()) {
        QMessageBox::information(this, tr("Cannot start"), tr("The database is still being opened."));
        return false;
    }
    if (!controller_->hasDatabase()) {
        // No file yet: the default one, and the sweep starts once it is open.
        if (!openDatabase(RunController::defaultDatabasePath()))
            return false;
        startWhenOpen_ = true;
        return true;
    }
    SweepRequest request;
    QString error;
    QStringList skipped;
    if (!panel_->buildRequest(request, &error, &skipped)) {
        QMessageBox::warning(this, tr("Cannot start"), error);
        return false;
    }
    controller_->setPythonInterpreter(panel_->pythonInterpreter());
    for (const auto &s : skipped)
        log_->append(tr("skipped %1").arg(s));
    if (storedView_) {
        storedView_ = false;
        panel_->leaveSweepView();
    }
    // The views now follow the new sweep (sweepStarted).
    ledgerJob_->cancel();
    ledger_->clear();
    shownSweep_ = 0;
    if (!controller_->start(request, &error)) {
        QMessageBox::warning(this, tr("Cannot start"), error);
        return false;
    }
    stepsInRun_ = request.configs.front().totalSteps();
    return true;
}

void MainWindow::stopSweep()
{
    if (controller_->isRunning()) {
        progressLabel_->setText(
            tr("Stopping: the running configuration is cancelled (its recorded steps are kept), no further run "
               "starts, finished runs are kept…"));
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

void MainWindow::requestLedger(qint64 sweepId, const QString &activity)
{
    if (sweepId <= 0 || !controller_->hasDatabase())
        return;
    if (sweepId != shownSweep_)
        ledger_->clear(); // another sweep's figures must not stand under this one's header
    shownSweep_ = sweepId;
    comparePage_->setShownSweep(sweepId);
    ledgerActivity_ = activity;
    ledgerJob_->request(sweepId, panel_->plannedSteps());
    updateBusy();
}

void MainWindow::onSweepRead(const SweepInfo &info)
{
    shownInfo_ = info;
    header_->setSweep(info);
    if (const auto &env = info.environment; env && !env->json.empty())
        environment_->setEnvironmentJson(QString::fromStdString(env->json));
    if (storedView_) {
        showStoredSettings(info);
        if (info.lastRun > 0 && !controller_->isRunning())
            showRunSteps(info.lastRun);
    }
}

void MainWindow::showSweep(qint64 sweepId)
{
    if (sweepId <= 0)
        return;
    if (controller_->isOpening()) {
        pendingSweep_ = sweepId;
        return;
    }
    if (!controller_->hasDatabase())
        return;
    if (controller_->isRunning() && sweepId == runningSweep_) {
        tabs_->setCurrentWidget(ledgerPage_);
        return; // the running sweep's views follow it already
    }
    if (!storedView_ && !panel_->viewingSweep()) {
        // The user's own settings are kept while a stored sweep's stand in the panel.
        QSettings settings;
        panel_->saveSettings(settings);
    }
    storedView_ = !controller_->isRunning(); // the panel belongs to a running sweep
    tabs_->setCurrentWidget(ledgerPage_);
    if (sweepId == shownSweep_ && shownInfo_ && (ledger_->sweepId() == sweepId || ledgerJob_->isBusy())) {
        // Already on show (or on its way): its figures are not computed a second time.
        if (storedView_)
            showStoredSettings(*shownInfo_);
        return;
    }
    requestLedger(sweepId, tr("Computing the ledger of sweep %1…").arg(sweepId));
}

void MainWindow::showStoredSettings(const SweepInfo &info)
{
    std::vector<RunConfig> configs;
    for (const auto &json : info.configJsons) {
        RunConfig c;
        std::vector<ConfigError> errors;
        if (parseConfig(QByteArray::fromStdString(json), c, errors))
            configs.push_back(c);
    }
    const QJsonObject settings = QJsonDocument::fromJson(QByteArray::fromStdString(info.sweep.settingsJson)).object();
    panel_->showSweepSettings(tr("Sweep %1, \"%2\": its settings, read-only.")
                                  .arg(info.sweep.id)
                                  .arg(QString::fromStdString(info.sweep.name)),
                              configs, settings.value("repeats").toInt(1), QString::fromStdString(info.sweep.preset));
}

void MainWindow::leaveStoredSettings(bool ownSettings)
{
    storedView_ = false;
    if (!ownSettings)
        return;
    panel_->leaveSweepView();
    panel_->setCudaDevices(panel_->cudaDevices()); // drops a device listed only for the stored sweep
    QSettings settings;
    panel_->loadSettings(settings);
}

void MainWindow::runAgain()
{
    if (!shownInfo_ || controller_->isRunning())
        return;
    const SweepInfo info = *shownInfo_;
    SweepRequest request;
    for (const auto &json : info.configJsons) {
        RunConfig c;
        std::vector<ConfigError> errors;
        if (!parseConfig(QByteArray::fromStdString(json), c, errors)) {
            QMessageBox::warning(this, tr("Run again"),
                                 tr("Sweep %1 has a configuration this version cannot read.").arg(info.sweep.id));
            return;
        }
        if (c.onCuda() && panel_->cudaDevices() == 0) {
            QMessageBox::information(this, tr("Run again"),
                                     tr("Sweep %1 ran on %2; this machine has no CUDA device. Edit the settings for "
                                        "the CPU instead.")
                                         .arg(info.sweep.id)
                                         .arg(QString::fromStdString(c.device)));
            return;
        }
        if (canonicalName(c) == info.sweep.baselineConfig)
            request.baseline = request.configs.size();
        request.configs.push_back(c);
    }
    const QJsonObject settings = QJsonDocument::fromJson(QByteArray::fromStdString(info.sweep.settingsJson)).object();
    request.repeats = settings.value("repeats").toInt(1);
    request.preset = QString::fromStdString(info.sweep.preset);
    request.plannedSteps = panel_->plannedSteps();
    request.name = tr("%1 (again)").arg(QString::fromStdString(info.sweep.name));
    storedView_ = false;
    panel_->leaveSweepView(); // the panel now shows what runs
    controller_->setPythonInterpreter(panel_->pythonInterpreter());
    ledgerJob_->cancel();
    ledger_->clear();
    shownSweep_ = 0;
    QString error;
    if (!controller_->start(request, &error)) {
        QMessageBox::warning(this, tr("Cannot start"), error);
        return;
    }
    stepsInRun_ = request.configs.front().totalSteps();
}

void MainWindow::reloadHistory()
{
    if (controller_->hasDatabase() && !controller_->isOpening())
        queryJob_->requestHistory();
}

void MainWindow::showRunSteps(qint64 runId)
{
    if (controller_->isRunning() || !controller_->hasDatabase())
        return; // the live chart belongs to the running sweep
    queryJob_->requestRunSteps(runId);
}

void MainWindow::showSteps(const RunSteps &steps)
{
    if (controller_->isRunning())
        return;
    liveRunId_ = 0;
    live_->beginRun(tr("%1 (run %2, %3)")
                        .arg(QString::fromStdString(steps.run.configName))
                        .arg(steps.run.id)
                        .arg(QString::fromUtf8(toString(steps.run.status).data())));
    if (steps.ms.isEmpty())
        return;
    live_->appendSteps(1, steps.ms);
    if (steps.steady)
        live_->setSteadyWindow(steps.steadyFirst, steps.steadyLast);
}

QString MainWindow::recommendationText() const
{
    return ledgerPage_->recommendationText();
}

QString MainWindow::progressText() const
{
    return progressLabel_->text();
}

QString MainWindow::logText() const
{
    return log_->text();
}

Page *MainWindow::currentPage() const
{
    return qobject_cast<Page *>(tabs_->currentWidget());
}

QString MainWindow::phaseStatus() const
{
    return phaseLabel_->isVisible() ? phaseLabel_->text() : QString();
}

void MainWindow::showMessage(const QString &text, int timeoutMs)
{
    lastMessage_ = text;
    statusBar()->showMessage(text, timeoutMs);
}

bool MainWindow::isBusy() const
{
    return controller_->isOpening() || ledgerJob_->isBusy() || comparisonJob_->isBusy() || queryJob_->isBusy() ||
           reportJob_->isBusy() || drawingReports_ > 0;
}

void MainWindow::updateBusy()
{
    QString activity;
    if (controller_->isOpening())
        activity = tr("Opening the database…");
    else if (ledgerJob_->isBusy())
        activity = ledgerActivity_.isEmpty() ? tr("Computing the ledger…") : ledgerActivity_;
    else if (comparisonJob_->isBusy())
        activity = tr("Comparing…");
    else if (reportJob_->isBusy() || drawingReports_ > 0)
        activity = tr("Writing the report…");
    else if (queryJob_->isBusy())
        activity = tr("Reading…");
    header_->setActivity(activity);
    const bool busy = isBusy();
    if (busy != busy_) {
        busy_ = busy;
        Q_EMIT busyChanged(busy);
    }
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
    log_->append(tr("run %1 torch.compile: %2").arg(runId).arg(facts.join(QStringLiteral(", "))));
    if (record.notCompiled()) {
        // The run will be failed (compile-failed); say why now, while the user is watching.
        const QString text = notCompiledText(record);
        log_->append(tr("run %1 %2").arg(runId).arg(text));
        showMessage(tr("Run %1: %2").arg(runId).arg(text), 10000);
    }
}

void MainWindow::runDoctor()
{
    environmentPage_->runDoctor(supervisor::defaultPythonWorker(panel_->pythonInterpreter()), panel_->device());
}

bool MainWindow::compareSweeps(qint64 first, qint64 second)
{
    if (controller_->isOpening()) {
        pendingCompare_ = std::make_pair(first, second);
        return true;
    }
    if (!controller_->hasDatabase())
        return false;
    comparePage_->compare({controller_->databasePath(), first}, {controller_->databasePath(), second});
    tabs_->setCurrentWidget(comparePage_);
    updateBusy();
    return true;
}

void MainWindow::renameSweep(qint64 sweepId, const QString &name)
{
    QString error;
    const bool queued = controller_->renameSweep(
        sweepId, name,
        [this, sweepId, name](const QString &failure) {
            if (!failure.isEmpty()) {
                QMessageBox::warning(this, tr("Rename sweep"), failure);
                return;
            }
            showMessage(tr("Sweep %1 is now \"%2\".").arg(sweepId).arg(name), 6000);
            if (shownInfo_ && shownInfo_->sweep.id == sweepId) {
                shownInfo_->sweep.name = name.trimmed().toStdString();
                header_->setSweep(*shownInfo_);
            }
            reloadHistory();
        },
        &error);
    if (!queued)
        QMessageBox::warning(this, tr("Rename sweep"), error);
}

void MainWindow::deleteSweep(qint64 sweep)
{
    if (controller_->isRunning() && controller_->currentSweep() == sweep) {
        QMessageBox::information(this, tr("Delete sweep"), tr("Stop the running sweep before deleting it."));
        return;
    }
    if (QMessageBox::question(this, tr("Delete sweep"),
                              tr("Delete sweep %1 with all its runs and steps? This cannot be undone.").arg(sweep)) !=
        QMessageBox::Yes)
        return;
    if (shownSweep_ == sweep) {
        ledgerJob_->cancel();
        ledger_->clear();
        header_->clear();
        shownSweep_ = 0;
        shownInfo_.reset();
    }
    QString error;
    const bool queued = controller_->writeAsync([sweep](store::Database &db) { db.deleteSweep(sweep); },
                                                [this, sweep](const QString &failure) {
                                                    if (!failure.isEmpty())
                                                        QMessageBox::warning(this, tr("Delete sweep"), failure);
                                                    else
                                                        showMessage(tr("Sweep %1 deleted.").arg(sweep), 6000);
                                                    reloadHistory();
                                                },
                                                &error);
    if (!queued)
        QMessageBox::warning(this, tr("Delete sweep"), error);
}

RunDetailDialog *MainWindow::rowDetailDialog(int ledgerRow)
{
    if (ledgerRow < 0 || ledgerRow >= ledger_->rowCount())
        return nullptr;
    const QModelIndex index = ledger_->index(ledgerRow, LedgerModel::Configuration);
    const std::vector<store::RunRecord> runs = ledger_->runRecordsOf(ledgerRow);
    const bool failed = !index.data(LedgerModel::FailureDetailRole).toString().isEmpty();
    const bool compiled = std::any_of(runs.begin(), runs.end(), [](const auto &r) { return runIsCompiled(r); });
    if (runs.empty() || (!failed && !compiled))
        return nullptr;
    auto *dialog = new RunDetailDialog(index.data().toString(), runs, RunDetailDialog::preferredRun(runs), this);
    connect(dialog, &RunDetailDialog::showStepsRequested, this, [this](qint64 runId) {
        showRunSteps(runId);
        tabs_->setCurrentWidget(livePage_);
    });
    return dialog;
}

void MainWindow::showRowDetail(int row)
{
    if (std::unique_ptr<RunDetailDialog> dialog{rowDetailDialog(row)}) {
        dialog->exec();
        return;
    }
    // A plain configuration that ran: the steps of its first complete run, else of a run the
    // Stop cut short.
    const auto runs = ledger_->runRecordsOf(row);
    const auto complete = std::find_if(runs.begin(), runs.end(),
                                       [](const store::RunRecord &r) { return r.status == RunStatus::Complete; });
    const qint64 runId = complete != runs.end() ? complete->id : ledger_->rowRuns(row).cancelledRun;
    if (runId > 0) {
        showRunSteps(runId);
        tabs_->setCurrentWidget(livePage_);
    }
}

QString MainWindow::refusedTarget(const QString &path) const
{
    const QString clash = QString::fromStdString(
        store::databaseFileBehind(path.toStdString(), controller_->databasePath().toStdString()));
    if (clash.isEmpty())
        return {};
    return tr("Not writing %1: it is %2, and writing there would destroy the measurements. Choose another file.")
        .arg(path, clash);
}

bool MainWindow::exportReport(const QString &path, QString *error)
{
    if (const QString refused = refusedTarget(path); !refused.isEmpty()) {
        if (error)
            *error = refused;
        return false;
    }
    if (ledger_->rowCount() == 0) {
        if (error)
            *error = ledgerJob_->isBusy() ? tr("The ledger is still being computed: export it when it shows.")
                                          : tr("There is no sweep to report: run one or open one from the history.");
        return false;
    }
    const auto format = ReportJob::formatOf(path, error);
    if (!format)
        return false;
    ReportInput input;
    input.ledger = ledger_->ledger();
    input.environmentJson = QString::fromStdString(ledger_->ledger().environmentJson);
    input.generated = QDateTime::currentDateTime();
    // Charts paint on the UI thread (drawn from the reported ledger, sized for the page), one per
    // turn of the event loop; the rest is the report job's.
    ++drawingReports_;
    drawReportCharts(this, std::make_shared<ReportInput>(std::move(input)), [this, path, format](ReportInput ready) {
        --drawingReports_;
        reportJob_->request(std::move(ready), path, *format);
        updateBusy();
    });
    updateBusy();
    return true;
}

void MainWindow::exportReportInteractive()
{
    QString filter;
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export sweep report"), QDir::homePath() + "/stepscope-report.html",
        tr("HTML report (*.html);;PDF (*.pdf);;Markdown (*.md);;CSV table (*.csv)"), &filter);
    if (path.isEmpty())
        return;
    path = ComparePage::withSuffix(path, filter); // "report" typed with PDF chosen is report.pdf
    QString error;
    if (!exportReport(path, &error))
        QMessageBox::warning(this, tr("Export report"), error);
    else
        connect(
            this, &MainWindow::reportFailed, this,
            [this](const QString &failure) { QMessageBox::warning(this, tr("Export report"), failure); },
            Qt::SingleShotConnection);
}

void MainWindow::exportChartInteractive()
{
    Page *page = currentPage();
    QCustomPlot *plot = page ? page->chart() : nullptr;
    if (!plot) {
        QMessageBox::information(this, tr("Export chart"), tr("Switch to a chart tab first."));
        return;
    }
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export chart"), QDir::homePath() + "/stepscope-" + page->key() + ".png",
                                     tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
    if (path.isEmpty())
        return;
    QString error = refusedTarget(path);
    if (!error.isEmpty() || !saveChart(plot, path, &error))
        QMessageBox::warning(this, tr("Export chart"), error);
}

bool MainWindow::saveScreenshots(const QString &dir, QString *error)
{
    if (!QDir().mkpath(dir)) {
        if (error)
            *error = tr("Cannot create %1").arg(dir);
        return false;
    }
    for (Page *page : pages_) {
        tabs_->setCurrentWidget(page);
        QApplication::processEvents();
        if (QCustomPlot *plot = page->chart())
            plot->replot(QCustomPlot::rpImmediateRefresh);
        const QString path = QDir(dir).filePath(QString("stepscope-%1.png").arg(page->key()));
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
    // While a stored sweep's settings stand in the panel, the user's own were saved when it opened.
    if (!panel_->viewingSweep())
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
