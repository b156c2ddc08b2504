#include "widgets/main_window.h"

#include "controller/comparison_job.h"
#include "controller/query_job.h"
#include "controller/report_job.h"
#include "controller/run_controller.h"
#include "models/comparison_model.h"
#include "models/history_model.h"
#include "pages/compare_page.h"
#include "pages/history_page.h"
#include "pages/ledger_page.h"
#include "pages/log_page.h"
#include "pages/sweep_pages.h"
#include "pages/why_page.h"
#include "presenters/activity.h"
#include "presenters/launcher.h"
#include "presenters/live_run.h"
#include "presenters/open_database.h"
#include "presenters/report_export.h"
#include "presenters/shown_sweep.h"
#include "widgets/config_panel.h"
#include "pages/environment_page.h"
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
#include <QFileInfo>
#include <QGuiApplication>
#include <QHeaderView>
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

namespace stepscope::ui
{
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
    shown_ = new ShownSweep(controller_, this);
    export_ = new ReportExport(shown_, controller_, this);
    live_ = new LiveRun(controller_, query_, this);
    activity_ = new Activity(controller_, shown_, comparisonJob_, export_, query_, this);

    panel_ = new ConfigPanel;
    launcher_ = new Launcher(controller_, panel_, shown_, live_, this);
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
    launcher_->lookUpTorch(); // for the Python the settings name
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
    // Opened by hand, a file shows its newest sweep, on its ledger.
    launcher_->openChosenDatabase(path);
    restoreTab_ = -1;
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

void MainWindow::connectRun()
{
    connect(panel_, &ConfigPanel::startRequested, launcher_, &Launcher::start);
    connect(panel_, &ConfigPanel::stopRequested, launcher_, &Launcher::stop);
    connect(panel_, &ConfigPanel::runAgainRequested, launcher_, &Launcher::runAgain);
    connect(panel_, &ConfigPanel::plannedStepsChanged, shown_, &ShownSweep::setPlannedSteps);
    connect(panel_, &ConfigPanel::sweepViewLeft, shown_, &ShownSweep::leaveStoredView);
    connect(shown_, &ShownSweep::storedSettingsWanted, panel_, &ConfigPanel::showStoredSweep);
    // Nothing on show (a deleted sweep, another file): its settings leave the panel with it.
    connect(shown_, &ShownSweep::cleared, panel_, [this] {
        if (panel_->viewingSweep())
            panel_->returnToOwnSettings();
    });
    connect(activity_, &Activity::busyChanged, this, &MainWindow::busyChanged);
    connect(activity_, &Activity::message, status_, &SweepStatusBar::say);
    connect(live_, &LiveRun::sweepBegan, this, [this] { restoreTab_ = -1; }); // the running sweep's pages come forward
    connect(live_, &LiveRun::sweepEnded, this, &MainWindow::sweepFinished);
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
    // The launcher's words: message boxes, the status bar, the log, the torch banner, the setup.
    connect(launcher_, &Launcher::notice, this, [this](Launcher::Tone tone, const QString &title, const QString &text) {
        if (tone == Launcher::Tone::Information)
            QMessageBox::information(this, title, text);
        else if (tone == Launcher::Tone::Warning)
            QMessageBox::warning(this, title, text);
        else
            QMessageBox::critical(this, title, text);
    });
    connect(launcher_, &Launcher::statusText, status_, &SweepStatusBar::setText);
    connect(launcher_, &Launcher::passing, status_, &SweepStatusBar::say);
    connect(launcher_, &Launcher::logLine, tabs_->log(), &LogPage::append);
    connect(launcher_, &Launcher::opening, this, &MainWindow::clearViews);
    connect(launcher_, &Launcher::torchProblemChanged, this, [this](const QString &why) {
        if (why.isEmpty())
            torchBanner_->hide();
        else
            torchBanner_->showProblem(why);
    });
    connect(launcher_, &Launcher::setupWanted, this, [this](const QString &reason, bool startAfter) {
        const bool open = setup_ != nullptr;
        showSetupDialog(reason);
        // The sweep asked for starts once PyTorch is there (a dialog opened from the menu before does not).
        if (startAfter && !open)
            connect(setup_, &SetupDialog::ready, launcher_, &Launcher::start, Qt::SingleShotConnection);
    });
    connect(torchBanner_, &TorchBanner::setupRequested, this, [this] {
        showSetupDialog(tr("No usable PyTorch was found: %1").arg(launcher_->torchProblem()));
    });
}

bool MainWindow::openDatabase(const QString &path)
{
    return launcher_->openDatabase(path);
}

void MainWindow::onDatabaseOpened(const QString &path)
{
    recent_->remember(path);
    setWindowTitle(tr("Stepscope — %1").arg(QFileInfo(path).fileName()));
    Q_EMIT databaseOpened(path);
}

void MainWindow::clearViews()
{
    query_->cancel();
    comparisonJob_->cancel();
    shown_->clear();
    comparison_->clear();
    history_->clear();
    tabs_->clearPages();
    if (panel_->viewingSweep())
        panel_->returnToOwnSettings();
    activity_->update();
}

void MainWindow::detectDevices(std::function<void()> then)
{
    launcher_->detectDevices(std::move(then));
}

bool MainWindow::startSweep()
{
    return launcher_->start();
}

void MainWindow::stopSweep()
{
    launcher_->stop();
}

void MainWindow::showSweep(qint64 sweepId)
{
    shown_->show(sweepId);
}

bool MainWindow::compareSweeps(qint64 first, qint64 second)
{
    if (controller_->isOpening()) {
        launcher_->whenOpen([this, first, second] { compareSweeps(first, second); });
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
