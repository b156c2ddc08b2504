#include "widgets/main_window.h"

#include "controller/comparison_job.h"
#include "controller/device_probe.h"
#include "controller/query_job.h"
#include "controller/report_job.h"
#include "controller/run_controller.h"
#include "controller/store_message.h"
#include "controller/sweep_history_job.h"
#include "models/comparison_model.h"
#include "models/history_model.h"
#include "pages/batch_scan_page.h"
#include "pages/compare_page.h"
#include "pages/history_page.h"
#include "pages/ledger_page.h"
#include "pages/log_page.h"
#include "pages/sweep_pages.h"
#include "pages/why_page.h"
#include "presenters/activity.h"
#include "presenters/live_run.h"
#include "presenters/open_database.h"
#include "presenters/report_export.h"
#include "presenters/shown_sweep.h"
#include "supervisor/managed_python.h"
#include "supervisor/torch_location.h"
#include "widgets/config_panel.h"
#include "widgets/database_dialog.h"
#include "pages/environment_page.h"
#include "widgets/export_dialogs.h"
#include "widgets/glossary.h"
#include "widgets/panel_column.h"
#include "widgets/recent_databases.h"
#include "widgets/screenshots.h"
#include "widgets/setup_dialog.h"
#include "widgets/sweep_header.h"
#include "widgets/sweep_status_bar.h"
#include "widgets/torch_banner.h"
#include "widgets/view_state.h"
#include "widgets/window_fit.h"

#include <QCloseEvent>
#include <QCoreApplication>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QGuiApplication>
#include <QHeaderView>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QShowEvent>
#include <QSplitter>
#include <QStyle>
#include <QTabBar>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace stepscope::ui
{
namespace
{

// A store message with where the dashboard chooses another database file.
QString fileChoiceHint(const QString &message)
{
    return withFileChoiceHint(message, MainWindow::tr("with File › Open database…"));
}

} // namespace

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setWindowTitle(tr("Stepscope"));
    setWindowIcon(QIcon(":/icons/stepscope.svg"));
    controller_ = new RunController(this);
    history_ = new HistoryModel(this);
    query_ = new QueryJob(history_, this);
    followOpenDatabase(controller_, query_);
    comparison_ = new ComparisonModel(this);
    comparisonJob_ = new ComparisonJob(comparison_, this);
    followOpenDatabase(controller_, comparisonJob_);
    deviceProbe_ = new DeviceProbe(this);
    sweepHistory_ = new SweepHistoryJob(this);
    followOpenDatabase(controller_, sweepHistory_);
    shown_ = new ShownSweep(controller_, this);
    export_ = new ReportExport(shown_, controller_, this);
    live_ = new LiveRun(controller_, query_, this);
    activity_ = new Activity(controller_, shown_, comparisonJob_, export_, query_, this);

    panel_ = new ConfigPanel;
    header_ = new SweepHeader(shown_, activity_);
    tabs_ = new SweepPages({controller_, shown_, live_, query_, history_, comparisonJob_, comparison_});
    status_ = new SweepStatusBar(live_, export_);
    auto *right = new QWidget;
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->setSpacing(2);
    rightLayout->addWidget(header_);
    rightLayout->addWidget(tabs_, 1);
    split_ = new QSplitter;
    split_->addWidget(panelColumn(panel_));
    split_->addWidget(right);
    split_->setStretchFactor(1, 1);
    torchBanner_ = new TorchBanner;
    auto *central = new QWidget;
    auto *centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(2);
    centralLayout->addWidget(torchBanner_);
    centralLayout->addWidget(split_, 1);
    setCentralWidget(central);
    setStatusBar(status_);
    buildMenus();
    connectRun();
    restoreWindowState();
    panel_->loadSettings(QSettings());
    lookUpTorchInBackground(); // for the Python the settings name
}

void MainWindow::fitToScreen(const QRect &available)
{
    fitToScreen(available, size());
}

void MainWindow::fitToScreen(const QRect &available, const QSize &wanted)
{
    if (isMaximized() || isFullScreen())
        return; // the window manager fits those
    // The frame the window manager put around the window (none known before it is shown, or
    // without one); frameGeometry() includes it, geometry() does not.
    const QRect inner = geometry(), outer = frameGeometry();
    const QMargins frame(inner.left() - outer.left(), inner.top() - outer.top(), outer.right() - inner.right(),
                         outer.bottom() - inner.bottom());
    const QRect fitted = fitWindow(QRect(inner.topLeft(), wanted), frame, available);
    if (fitted.size() != inner.size())
        resize(fitted.size());
    if (fitted.topLeft() != inner.topLeft())
        move(fitted.topLeft() - QPoint(frame.left(), frame.top())); // move() places the frame
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    // Offscreen (tests, benchmarks) no one sees a screen, and its 800x800 one would squeeze the
    // 1280x720 window they lay out: sized as asked there.
    if (std::exchange(fitted_, true) || !screen() || QGuiApplication::platformName() == QLatin1String("offscreen"))
        return;
    // A window manager adds its frame after the window is mapped: fit now with a title bar's worth
    // of room kept free, and again once the real frame is known (or after a second without one).
    const QRect available = screen()->availableGeometry();
    const QSize wanted = size();
    if (frameGeometry() == geometry()) {
        const int guess = style()->pixelMetric(QStyle::PM_TitleBarHeight) +
                          2 * style()->pixelMetric(QStyle::PM_MdiSubWindowFrameWidth);
        fitToScreen(available.adjusted(0, 0, 0, -guess));
    } else {
        fitToScreen(available);
    }
    auto *watch = new QTimer(this);
    watch->setInterval(50);
    connect(watch, &QTimer::timeout, this, [this, watch, wanted, tries = 0]() mutable {
        if (frameGeometry() == geometry() && ++tries < 20)
            return;
        watch->deleteLater();
        if (screen())
            fitToScreen(screen()->availableGeometry(), wanted); // the room the guess kept back, given back
    });
    watch->start();
}

void MainWindow::showGlossary()
{
    if (!glossary_)
        glossary_ = new GlossaryDialog(this);
    glossary_->show();
    glossary_->raise();
    glossary_->activateWindow();
}

QList<QWidget *> MainWindow::arrangedViews() const
{
    QList<QWidget *> views;
    for (Page *page : tabs_->pages())
        views.append(page);
    return views;
}

void MainWindow::openChosenDatabase(const QString &path)
{
    // Opened by hand, a file shows its newest sweep (sweepHistory_ reads which), on its ledger.
    showNewest_ = openDatabase(path);
    restoreTab_ = -1;
}

void MainWindow::buildMenus()
{
    auto *file = menuBar()->addMenu(tr("&File"));
    auto *open = file->addAction(tr("&Open database…"), this, [this] {
        const QString path = chooseDatabaseFile(this, controller_->databasePath());
        if (!path.isEmpty())
            openChosenDatabase(path);
    });
    open->setShortcut(QKeySequence::Open);
    recent_ = new RecentDatabases(tr("Recent databases"), file);
    file->addMenu(recent_);
    connect(recent_, &RecentDatabases::openRequested, this, &MainWindow::openChosenDatabase);
    file->addSeparator();
    auto *exportReport =
        file->addAction(tr("&Export sweep report…"), this, [this] { exportSweepReport(this, export_); });
    exportReport->setShortcut(QKeySequence(tr("Ctrl+E")));
    file->addAction(tr("Export c&omparison report…"), tabs_->compare(), &ComparePage::exportReportInteractive);
    auto *exportChart = file->addAction(tr("Export current &chart…"), this,
                                        [this] { exportPageChart(this, tabs_->currentPage(), export_); });
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
    for (Page *page : tabs_->pages()) {
        auto *a = view->addAction(page->title().remove('&'), this, [this, page] { tabs_->setCurrentWidget(page); });
        if (++number <= 9)
            a->setShortcut(QKeySequence(QString("Ctrl+%1").arg(number)));
        // The Batch scan tab is there for a scan only, and so is its entry.
        if (page == tabs_->batchScan()) {
            a->setVisible(tabs_->batchScan()->hasScan());
            connect(tabs_->batchScan(), &BatchScanPage::scanChanged, a, &QAction::setVisible);
        }
    }
    // Ctrl+Tab and Ctrl+Shift+Tab cycle the tabs wherever the focus is (QTabWidget does it only with
    // the focus inside the tabs, and a table there takes Tab for itself).
    view->addSeparator();
    auto *next = view->addAction(tr("&Next tab"), this, [this] { stepTab(1); });
    next->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Tab), QKeySequence(Qt::CTRL | Qt::Key_PageDown)});
    auto *previous = view->addAction(tr("&Previous tab"), this, [this] { stepTab(-1); });
    // Shift+Tab arrives as Backtab (with Shift) from most keyboards, as Tab with Shift from some.
    previous->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Backtab),
                            QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Tab), QKeySequence(Qt::CTRL | Qt::Key_PageUp)});
    auto *tools = menuBar()->addMenu(tr("&Tools"));
    tools->addAction(tr("Set up &PyTorch…"), this, [this] { showSetupDialog(); });

    auto *help = menuBar()->addMenu(tr("&Help"));
    auto *glossary = help->addAction(tr("&Glossary"), this, &MainWindow::showGlossary);
    glossary->setShortcut(QKeySequence::HelpContents);
    glossary->setShortcutContext(Qt::ApplicationShortcut);
    help->addAction(tr("&About Stepscope"), this,
                    [this] { QMessageBox::about(this, tr("About Stepscope"), aboutText()); });
}

QString MainWindow::aboutText()
{
    // The licence is the package's (installer/debian/copyright): GPL because QCustomPlot is.
    return tr("<b>Stepscope</b> %1<br>Which PyTorch training-step optimizations pay off on this GPU: first-step "
              "cost, steady-state saving, break-even and the fastest way to finish your planned run."
              "<p>Free software under the GNU General Public License, version 3 or (at your option) any later "
              "version (GPL-3.0-or-later), with no warranty. It uses Qt (LGPL-3), QCustomPlot (GPL-3), SQLite "
              "(public domain) and PyTorch (BSD-3-Clause).</p>")
        .arg(QCoreApplication::applicationVersion());
}

void MainWindow::stepTab(int step)
{
    const int count = tabs_->count();
    restoreTab_ = -1; // the user chose a tab
    int index = tabs_->currentIndex();
    do // past hidden tabs (Batch scan, for a sweep of one batch)
        index = ((index + step) % count + count) % count;
    while (!tabs_->isTabVisible(index) && index != tabs_->currentIndex());
    tabs_->setCurrentIndex(index);
}

SetupDialog *MainWindow::setupDialog() const
{
    return setup_.data();
}

void MainWindow::showSetupDialog(const QString &reason)
{
    if (!setup_) {
        setup_ = new SetupDialog(reason, this);
        setup_->setAttribute(Qt::WA_DeleteOnClose);
        connect(setup_, &SetupDialog::ready, panel_, &ConfigPanel::updatePythonNote);
        // Torch can answer now: the devices are looked for again (they were not, or not with it).
        connect(setup_, &SetupDialog::ready, this, [this] { detectDevices(); });
    }
    setup_->show();
    setup_->raise();
    setup_->activateWindow();
}

bool MainWindow::offerSetupInstead()
{
    // Both workers take torch from the located Python: without a usable one every run would fail
    // torch-missing. The managed environment is checked first, as it costs no process.
    if (supervisor::managedEnvironmentReady())
        return false;
    const QString python = panel_->pythonInterpreter();
    // Found usable in the background: taken without a second look (the sweep locates torch again
    // off this thread before its runs start, and a torch gone since fails them with the fix). A
    // "not usable" is looked at again here, since offering setup is a bigger step than a short stall.
    const bool knownUsable = torchUsable_ && torchUsable_->first == python && torchUsable_->second;
    lookUpTorchInBackground(); // for the next Start
    if (knownUsable)
        return false;
    const supervisor::TorchLocation torch = supervisor::locateTorch(python);
    if (torch.usable())
        return false;
    const bool open = setup_ != nullptr;
    showSetupDialog(tr("No usable PyTorch was found: %1. %2").arg(torch.problem, torch.fix));
    // The sweep asked for starts once PyTorch is there (a dialog opened from the menu before does not).
    if (!open)
        connect(
            setup_, &SetupDialog::ready, this, [this] { startSweep(); }, Qt::SingleShotConnection);
    return true;
}

void MainWindow::lookUpTorchInBackground()
{
    if (supervisor::managedEnvironmentReady())
        return;
    const QString python = panel_->pythonInterpreter();
    auto *watcher = new QFutureWatcher<bool>(this);
    connect(watcher, &QFutureWatcher<bool>::finished, this, [this, watcher, python] {
        torchUsable_ = std::make_pair(python, watcher->result());
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run([python] { return supervisor::locateTorch(python).usable(); }));
}

void MainWindow::connectRun()
{
    connect(panel_, &ConfigPanel::startRequested, this, &MainWindow::startSweep);
    connect(panel_, &ConfigPanel::stopRequested, this, &MainWindow::stopSweep);
    connect(panel_, &ConfigPanel::plannedStepsChanged, shown_, &ShownSweep::setPlannedSteps);
    connect(panel_, &ConfigPanel::runAgainRequested, this, &MainWindow::runAgain);
    connect(panel_, &ConfigPanel::sweepViewLeft, shown_, &ShownSweep::leaveStoredView);
    connect(shown_, &ShownSweep::storedSettingsWanted, panel_, &ConfigPanel::showStoredSweep);
    // Nothing on show (a deleted sweep, another file): its settings leave the panel with it.
    connect(shown_, &ShownSweep::cleared, panel_, [this] {
        if (panel_->viewingSweep())
            panel_->returnToOwnSettings();
    });
    connect(activity_, &Activity::busyChanged, this, &MainWindow::busyChanged);
    connect(activity_, &Activity::message, status_, &SweepStatusBar::say);
    connect(live_, &LiveRun::sweepBegan, this, [this] {
        panel_->setRunning(true);
        restoreTab_ = -1; // the running sweep's pages come forward now
    });
    connect(controller_, &RunController::sweepEvent, this, &MainWindow::onSweepEvent);
    connect(live_, &LiveRun::sweepEnded, this, [this](qint64 sweepId, bool cancelled) {
        panel_->setRunning(false);
        sweepHistory_->request(); // its runs are history for the next estimate
        Q_EMIT sweepFinished(sweepId, cancelled);
    });
    connect(sweepHistory_, &SweepHistoryJob::read, this,
            [this](qint64 newest, std::shared_ptr<const supervisor::TimeLeft> times) {
                panel_->setRunTimes(std::move(times));
                if (std::exchange(showNewest_, false) && newest > 0 && !controller_->isRunning())
                    showSweep(newest);
            });
    // The first sweep shown after start-up brings its ledger forward: the tab of last time stays.
    connect(shown_, &ShownSweep::ledgerForward, this, [this] {
        if (restoreTab_ >= 0)
            tabs_->setCurrentIndex(std::exchange(restoreTab_, -1));
    });
    connect(tabs_->tabBar(), &QTabBar::tabBarClicked, this, [this] { restoreTab_ = -1; });
    HistoryPage *history = tabs_->history();
    connect(history, &HistoryPage::showRequested, this, &MainWindow::showSweep);
    connect(history, &HistoryPage::compareRequested, this, &MainWindow::compareSweeps);
    connect(history, &HistoryPage::message, status_, &SweepStatusBar::say);
    // The Why page's advice and the Ledger's unmeasured knobs, as configurations to run next: into
    // the panel's custom list.
    const auto addToPanel = [this](const RunConfig &config) {
        panel_->addConfig(config);
        status_->say(tr("Added %1 to the panel's custom list: Start runs it")
                         .arg(QString::fromStdString(knobLabel(config))),
                     6000);
    };
    connect(tabs_->why(), &WhyPage::configWanted, this, addToPanel);
    connect(tabs_->ledger(), &LedgerPage::configWanted, this, addToPanel);
    connect(tabs_->compare(), &ComparePage::reportWritten, this,
            [this](const QString &path) { status_->say(tr("Comparison report written to %1").arg(path), 6000); });
    connect(tabs_->environment(), &EnvironmentPage::doctorRequested, this,
            [this] {
                tabs_->environment()->runDoctor(panel_->pythonInterpreter(), panel_->device(),
                                                controller_->databasePath());
            });
    connect(controller_, &RunController::databaseOpened, this, &MainWindow::onDatabaseOpened);
    connect(controller_, &RunController::databaseRefused, this, [this](const QString &, const QString &error) {
        startWhenOpen_ = false;
        showNewest_ = false;
        pendingCompare_.reset();
        // The store says when another file is the remedy; the dashboard says where to choose one.
        const QString hinted = fileChoiceHint(error);
        QMessageBox::warning(
            this, tr("Cannot open database"),
            hinted != error
                ? tr("%1\n\nThe file was not changed.").arg(hinted)
                : tr("%1\n\nThe file was not changed. Choose another file with File › Open database.").arg(error));
    });
    connect(controller_, &RunController::lanesNote, this, [this](const QString &note) {
        tabs_->log()->append(note);
        status_->say(note, 15000);
    });
    connect(deviceProbe_, &DeviceProbe::failedToStart, tabs_->log(), &LogPage::append);
    // The whole answer first: the GPUs' models, which "Devices at once" groups lanes by.
    connect(deviceProbe_, &DeviceProbe::answered, panel_,
            [this](const supervisor::NativeProbe &probe) { panel_->setGpus(probe.gpus); });
    connect(deviceProbe_, &DeviceProbe::found, this, &MainWindow::onDevicesFound);
    connect(deviceProbe_, &DeviceProbe::torchMissing, this, &MainWindow::onTorchMissing);
    connect(torchBanner_, &TorchBanner::setupRequested, this, [this] {
        showSetupDialog(tr("No usable PyTorch was found: %1").arg(torchProblem_));
    });
}

bool MainWindow::openDatabase(const QString &path)
{
    if (path.isEmpty()) {
        // No default path (HOME is not set): nothing is written until the user picks a file, and
        // the status bar says so rather than a dialog at start-up.
        status_->setText(RunController::noDefaultDatabase() + QLatin1Char(' ') +
                         tr("Settings are kept in %1.").arg(QFileInfo(QSettings().fileName()).absolutePath()));
        return false;
    }
    QString error;
    if (!controller_->openDatabaseAsync(path, &error)) {
        QMessageBox::warning(this, tr("Cannot open database"), error);
        return false;
    }
    clearViews(); // nothing of the previous file stays on screen while this one opens
    activity_->update();
    return true;
}

void MainWindow::onDatabaseOpened(const QString &path)
{
    recent_->remember(path);
    sweepHistory_->request();
    setWindowTitle(tr("Stepscope — %1").arg(QFileInfo(path).fileName()));
    if (std::exchange(startWhenOpen_, false))
        QTimer::singleShot(0, this, &MainWindow::startSweep);
    if (const auto compare = std::exchange(pendingCompare_, std::nullopt))
        compareSweeps(compare->first, compare->second);
    Q_EMIT databaseOpened(path);
}

void MainWindow::clearViews()
{
    query_->cancel();
    comparisonJob_->cancel();
    pendingCompare_.reset();
    shown_->clear();
    comparison_->clear();
    history_->clear();
    tabs_->clearPages();
    if (panel_->viewingSweep())
        panel_->returnToOwnSettings();
}

void MainWindow::detectDevices(std::function<void()> then)
{
    afterProbe_.push_back(std::move(then));
    status_->setText(tr("Looking for CUDA devices…"));
    deviceProbe_->start(panel_->pythonInterpreter()); // the LibTorch of the torch runs will use
}

void MainWindow::onDevicesFound(int count)
{
    panel_->setCudaDevices(count);
    panel_->loadSettings(QSettings());
    shown_->reshowStoredSettings(); // the probe reset the panel under the stored sweep
    torchProblem_.clear();
    torchBanner_->hide();
    // Said for a while, not left standing: a stored sweep on show may well have run on a GPU.
    status_->setText(tr("Ready"));
    status_->say(count > 0 ? tr("%n CUDA device(s) found.", nullptr, count)
                           : tr("No CUDA device on this machine: new sweeps run small images on the CPU."),
                 8000);
    runAfterProbe();
}

void MainWindow::onTorchMissing(const QString &why)
{
    // No verdict on CUDA: the panel keeps its devices and defaults, and says what it waits for.
    torchProblem_ = why;
    torchBanner_->showProblem(why);
    panel_->setDevicesUnknown(tr("CUDA devices are looked for once PyTorch is set up."));
    tabs_->log()->append(why);
    status_->setText(tr("PyTorch is not set up."));
    runAfterProbe();
}

void MainWindow::runAfterProbe()
{
    const auto then = std::move(afterProbe_);
    afterProbe_.clear();
    for (const auto &f : then)
        if (f)
            f();
}

bool MainWindow::startSweep()
{
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
    if (offerSetupInstead())
        return false;
    controller_->setPythonInterpreter(panel_->pythonInterpreter());
    for (const auto &s : skipped)
        tabs_->log()->append(tr("skipped %1").arg(s));
    if (panel_->viewingSweep())
        panel_->leaveSweepView();
    shown_->followNewSweep(); // the views now follow the new sweep (sweepStarted)
    if (!controller_->start(request, &error)) {
        QMessageBox::warning(this, tr("Cannot start"), error);
        return false;
    }
    return true;
}

void MainWindow::onSweepEvent(const supervisor::SweepEvent &e)
{
    if (const auto *p = std::get_if<supervisor::event::Progress>(&e)) {
        panel_->setProgress(p->sweepFraction, p->left.seconds, p->left.guess);
    } else if (const auto *f = std::get_if<supervisor::event::StorageFailed>(&e)) {
        QMessageBox::critical(
            this, tr("Database write failed"),
            tr("%1\n\nThe sweep was stopped. Everything committed before is kept.").arg(fileChoiceHint(f->message)));
    }
}

void MainWindow::runAgain()
{
    if (!shown_->hasInfo() || controller_->isRunning())
        return;
    SweepRequest request;
    QString error;
    QString note;
    switch (shown_->againRequest(panel_->cudaDevices(), panel_->gpus(), request, &error, &note)) {
    case ShownSweep::AgainRefusal::Unreadable:
        QMessageBox::warning(this, tr("Run again"), error);
        return;
    case ShownSweep::AgainRefusal::NoCuda:
        QMessageBox::information(this, tr("Run again"), error);
        return;
    case ShownSweep::AgainRefusal::None:
        break;
    }
    if (!note.isEmpty())
        status_->setText(note);
    panel_->leaveSweepView(); // the panel now shows what runs
    controller_->setPythonInterpreter(panel_->pythonInterpreter());
    shown_->followNewSweep();
    if (!controller_->start(request, &error))
        QMessageBox::warning(this, tr("Cannot start"), error);
}

void MainWindow::stopSweep()
{
    if (controller_->isRunning()) {
        status_->setText(
            tr("Stopping: the running configuration is cancelled (its recorded steps are kept), no further run "
               "starts, finished runs are kept…"));
        controller_->stop();
    }
}

void MainWindow::showSweep(qint64 sweepId)
{
    shown_->show(sweepId);
}

bool MainWindow::compareSweeps(qint64 first, qint64 second)
{
    if (controller_->isOpening()) {
        pendingCompare_ = std::make_pair(first, second);
        return true;
    }
    if (!controller_->hasDatabase())
        return false;
    tabs_->compare()->compare({controller_->databasePath(), first}, {controller_->databasePath(), second});
    tabs_->setCurrentWidget(tabs_->compare());
    activity_->update();
    return true;
}

ComparePage *MainWindow::comparePage() const
{
    return tabs_->compare();
}

bool MainWindow::isBusy() const
{
    return activity_->isBusy();
}

QString MainWindow::progressText() const
{
    return status_->text();
}

QString MainWindow::lastMessage() const
{
    return status_->lastMessage();
}

QString MainWindow::phaseStatus() const
{
    return status_->phase();
}

bool MainWindow::saveScreenshots(const QString &dir, QString *error)
{
    return ui::saveScreenshots(this, tabs_, tabs_->ledger(), dir, error);
}

void MainWindow::restoreWindowState()
{
    QSettings settings;
    // Sized for a 1280x720 screen and up the first time; showEvent fits it to the screen it is on.
    if (!restoreGeometry(settings.value("window/geometry").toByteArray()))
        resize(1280, 820);
    split_->restoreState(settings.value("window/split").toByteArray());
    restoreViewState(settings, QStringLiteral("window/views"), arrangedViews(),
                     {tabs_->ledger()->view()->horizontalHeader()}); // the ledger fits its columns itself
    const int tab = settings.value("window/tab", -1).toInt();
    if (tab >= 0 && tab < tabs_->count()) {
        tabs_->setCurrentIndex(tab);
        restoreTab_ = tab;
    }
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
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/tab", tabs_->currentIndex());
    settings.setValue("window/split", split_->saveState());
    saveViewState(settings, QStringLiteral("window/views"), arrangedViews(),
                  {tabs_->ledger()->view()->horizontalHeader()});
    // While a stored sweep's settings stand in the panel, the user's own were saved when it opened.
    if (!panel_->viewingSweep())
        panel_->saveSettings(settings);
    event->accept();
}

} // namespace stepscope::ui
