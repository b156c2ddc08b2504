// The whole dashboard under load, with a 5 ms timer on the UI thread measuring how late it ever
// fires (the worst UI-thread stall), from before the window is made. Phases:
//   start-up the window made, shown, its database opened and CUDA devices looked for;
//   start   Start pressed until the sweep's first steps show (the plan is stored off the UI thread);
//   stream  a stand-in worker (bench/fake_worker.py) streams 100,000 steps in batches of 16 about
//           every millisecond through the real path (worker process, supervisor thread, SQLite
//           writer, the controller's sample buffer, the 30 Hz drain, steady-state re-detection,
//           the live chart); then zoom and pan replots with every point present;
//   sweep   a 7-configuration x 3-repeat sweep at 100,000 steps a run (2.1 million step rows) is
//           written into the open database by another connection, as the supervisor would, while
//           the window hears sweepStarted / runStarted / runFinished / finished for each run and
//           asks for the ledger after every run;
//   typing  "25000" typed into the planned-steps box at 8 keys a second;
//   open    File › Open of a small database, then of the 2.1-million-step one, and its sweep shown;
//   tabs    every page in turn, three rounds;
//   export  File › Export report of the H200 b32 sweep as PDF (the charts drawn at print size);
//   lanes   a sweep over two (stand-in) GPUs at once: prepare asks nvidia-smi for their topology;
//   setup   Tools › Set up PyTorch… opened, left a second, closed.
// The ledger is computed on a worker thread after every run of the sweep phase (reading the 2.1
// million steps takes seconds at this size on a 2-core machine; bench/ledger_bench times it alone):
// the stalls are measured with that load present.
// Prints figures; asserts no timing. `dashboard_bench --help` lists the options.
#include "charts/live_step_chart.h"
#include "common/blocking_call.h"
#include "charts/qcustomplot_compat.h"
#include "controller/run_controller.h"
#include "elapsed.h"
#include "pages/live_page.h"
#include "pages/page.h"
#include "pages/sweep_pages.h"
#include "presenters/report_export.h"
#include "presenters/shown_sweep.h"
#include "synthetic_sweep.h"
#include "widgets/config_panel.h"
#include "widgets/main_window.h"
#include "widgets/setup_dialog.h"
#include "widgets/sweep_header.h"

#include "models/ledger_model.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QKeyEvent>
#include <QLineEdit>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <ctime>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace
{

using stepscope::bench::elapsedMs;
using stepscope::bench::elapsedS;
using stepscope::ui::MainWindow;

constexpr int kStreamSteps = 100000;
constexpr int kProbeMs = 5;
constexpr int kInteractions = 50;

double percentile(std::vector<double> v, double q)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

// One clock for the probe and the event log, ms since start.
QElapsedTimer &benchClock()
{
    static QElapsedTimer clock;
    if (!clock.isValid())
        clock.start();
    return clock;
}
double nowMs()
{
    return elapsedMs(benchClock());
}

// CPU time the calling thread has used, in ms.
double threadCpuMs()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// Gaps between ticks of a 5 ms precise timer on the UI thread, filed under the phase running.
// With each gap, the CPU time the UI thread itself used in it: a long gap with little CPU is the
// scheduler giving the cores to other threads or processes, a long gap with as much CPU is work
// done on the UI thread.
class StallProbe
{
  public:
    StallProbe()
    {
        timer_.setTimerType(Qt::PreciseTimer);
        QObject::connect(&timer_, &QTimer::timeout, [this] {
            const double cpu = threadCpuMs();
            const double now = nowMs();
            if (clock_.isValid()) {
                const double gap = elapsedMs(clock_);
                gaps_[phase_].push_back(gap);
                busy_[phase_].push_back(cpu - cpu_);
                if (gap > worstGap_) {
                    worstGap_ = gap;
                    worstFrom_ = now - gap;
                    worstTo_ = now;
                }
            }
            clock_.start();
            cpu_ = cpu;
        });
        timer_.start(kProbeMs);
    }
    void enter(const std::string &phase)
    {
        phase_ = phase;
        order_.push_back(phase);
        walls_[phase].start();
    }
    void leave() { wallMs_[phase_] = elapsedMs(walls_[phase_]); }
    double worstFrom() const { return worstFrom_; }
    double worstTo() const { return worstTo_; }
    void print() const
    {
        std::printf("  %-44s %7s %9s %9s %11s %8s\n", "phase", "wall s", "worst ms", "p99 ms", "UI busy ms", "ticks");
        std::vector<double> all, allBusy;
        auto row = [](const char *name, const char *wall, const std::vector<double> &gaps,
                      const std::vector<double> &busy) {
            std::printf("  %-44s %7s %9.1f %9.1f %11.1f %8zu\n", name, wall,
                        gaps.empty() ? 0.0 : *std::max_element(gaps.begin(), gaps.end()), percentile(gaps, 0.99),
                        busy.empty() ? 0.0 : *std::max_element(busy.begin(), busy.end()), gaps.size());
        };
        for (const auto &phase : order_) {
            const auto it = gaps_.find(phase);
            const std::vector<double> gaps = it == gaps_.end() ? std::vector<double>{} : it->second;
            const auto bt = busy_.find(phase);
            const std::vector<double> busy = bt == busy_.end() ? std::vector<double>{} : bt->second;
            all.insert(all.end(), gaps.begin(), gaps.end());
            allBusy.insert(allBusy.end(), busy.begin(), busy.end());
            char wall[32];
            std::snprintf(wall, sizeof wall, "%.1f", wallMs_.at(phase) / 1000.0);
            row(phase.c_str(), wall, gaps, busy);
        }
        row("all phases", "", all, allBusy);
        std::printf("UI-thread stall, worst gap between 5 ms timer ticks over all phases: %.1f ms "
                    "(the UI thread's own CPU time in a gap at most %.1f ms)\n",
                    all.empty() ? 0.0 : *std::max_element(all.begin(), all.end()),
                    allBusy.empty() ? 0.0 : *std::max_element(allBusy.begin(), allBusy.end()));
    }

  private:
    QTimer timer_;
    QElapsedTimer clock_;
    double cpu_ = 0;
    double worstGap_ = 0, worstFrom_ = 0, worstTo_ = 0;
    std::string phase_ = "start-up";
    std::vector<std::string> order_;
    std::map<std::string, std::vector<double>> gaps_, busy_;
    std::map<std::string, QElapsedTimer> walls_;
    std::map<std::string, double> wallMs_;
};

// Keeps the event loop running (so the probe ticks) until `done` or `ms` have passed.
bool waitFor(const std::function<bool()> &done, int ms)
{
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > ms)
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(1);
    }
    return true;
}

void spin(int ms)
{
    waitFor([] { return false; }, ms);
}

// The application, timing each event it delivers on the UI thread: the slowest few say where a
// stall came from (receiver class and event type).
class TimedApplication : public QApplication
{
  public:
    using QApplication::QApplication;
    bool notify(QObject *receiver, QEvent *event) override
    {
        if (depth_++ > 0 || QThread::currentThread() != thread()) {
            const bool r = QApplication::notify(receiver, event);
            --depth_;
            return r;
        }
        QElapsedTimer t;
        t.start();
        const double cpu = threadCpuMs();
        const int type = event->type();
        const QString what =
            QString::fromLatin1(receiver->metaObject()->className()) + QLatin1Char(' ') + receiver->objectName();
        const bool r = QApplication::notify(receiver, event);
        --depth_;
        const double ms = elapsedMs(t);
        const QString text =
            QStringLiteral("%1 event %2 (UI thread CPU %3 ms)").arg(what).arg(type).arg(threadCpuMs() - cpu, 0, 'f', 1);
        if (ms > 15)
            slow_.push_back({ms, QStringLiteral("at %1 ms: ").arg(nowMs() - ms, 0, 'f', 0) + text});
        log_.push_back({nowMs() - ms, ms, threadCpuMs() - cpu, text});
        return r;
    }
    // The events of more than 1 ms that ran between `from` and `to` (ms on benchClock).
    void printBetween(double from, double to) const
    {
        int count = 0;
        double cpu = 0;
        std::map<QString, std::pair<int, double>> byKind;
        for (const auto &e : log_)
            if (e.start + e.ms >= from && e.start <= to) {
                ++count;
                cpu += e.cpu;
                auto &k = byKind[e.text.section(QLatin1Char('('), 0, 0)];
                ++k.first;
                k.second += e.cpu;
                if (e.ms > 1)
                    std::printf("    at %8.1f  %6.1f ms  %s\n", e.start, e.ms, qPrintable(e.text));
            }
        std::printf("  in the worst gap (%.0f-%.0f ms): %d events, %.1f ms of UI-thread CPU in them\n", from, to, count,
                    cpu);
        for (const auto &[kind, n] : byKind)
            if (n.second > 2)
                std::printf("    %5d x %-60s %.1f ms\n", n.first, qPrintable(kind), n.second);
    }
    void printSlowest() const
    {
        auto slow = slow_;
        std::sort(slow.begin(), slow.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
        std::printf("  slowest events delivered on the UI thread:\n");
        for (std::size_t i = 0; i < slow.size() && i < 8; ++i)
            std::printf("    %7.1f ms  %s\n", slow[i].first, qPrintable(slow[i].second));
    }

  private:
    int depth_ = 0;
    std::vector<std::pair<double, QString>> slow_;
    struct Logged {
        double start, ms, cpu;
        QString text;
    };
    std::vector<Logged> log_;
};

} // namespace

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
    qputenv("STEPSCOPE_NATIVE_WORKER", STEPSCOPE_SOURCE_DIR "/bench/fake_worker.sh");
    qputenv("STEPSCOPE_FAKE_STEPS", QByteArray::number(kStreamSteps));
    TimedApplication app(argc, argv);
    QCoreApplication::setOrganizationName("stepscope-bench");
    QStandardPaths::setTestModeEnabled(true);
    const QStringList allPhases{"stream", "sweep", "typing", "open", "tabs", "export", "lanes", "setup"};
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "The whole dashboard under load at 1280x720 (offscreen): how late a 5 ms timer on the UI thread "
        "fires in each phase, with the UI thread's own CPU time. Prints figures; asserts nothing.");
    parser.addHelpOption();
    const QCommandLineOption phasesOption(
        "phases", "Comma-separated phases to run, in their fixed order: " + allPhases.join(',') + " (default: all).",
        "LIST", allPhases.join(','));
    const QCommandLineOption waitOption("wait-ledger",
                                        "Afterwards wait up to S seconds for the large sweep's ledger to show "
                                        "(default 0).",
                                        "S", "0");
    parser.addOption(phasesOption);
    parser.addOption(waitOption);
    parser.process(app); // --help, and an unknown option is refused with a message (exit 1)
    const QStringList phases = parser.value(phasesOption).split(',', Qt::SkipEmptyParts);
    for (const QString &phase : phases)
        if (!allPhases.contains(phase)) {
            std::fprintf(stderr, "dashboard_bench: unknown phase '%s'; the phases are %s\n", qPrintable(phase),
                         qPrintable(allPhases.join(',')));
            return 2;
        }
    bool numeric = false;
    const int waitLedgerS = parser.value(waitOption).toInt(&numeric);
    if (!numeric || waitLedgerS < 0) {
        std::fprintf(stderr, "dashboard_bench: --wait-ledger takes a whole number of seconds, not '%s'\n",
                     qPrintable(parser.value(waitOption)));
        return 2;
    }

    // What the UI thread said it waited for (common/blocking_call.h), as the dashboard's guard would log it.
    std::vector<std::string> waits;
    stepscope::forbidBlockingOnThisThread([&waits](std::string_view what) { waits.emplace_back(what); });
    QTemporaryDir dir;
    // The probe ticks from before the window is made: the first gap is the window's construction.
    StallProbe probe;
    probe.enter("start-up: window, empty database, device probe");
    spin(50);
    QElapsedTimer made;
    made.start();
    MainWindow window;
    const double madeMs = elapsedMs(made);
    window.resize(1280, 720);
    window.show();
    std::printf("start-up: the window was made in %.1f ms, made and shown in %.1f ms (one UI-thread turn)\n",
                madeMs, elapsedMs(made));
    auto *panel = window.configPanel();
    auto *controller = window.controller();

    const QString bigPath = dir.filePath("bench.sqlite");
    int opened = 0;
    QObject::connect(&window, &MainWindow::databaseOpened, [&] { ++opened; });
    if (!window.openDatabase(bigPath) || !waitFor([&] { return opened == 1; }, 60000))
        return 1;
    bool detected = false;
    window.detectDevices([&] { detected = true; });
    waitFor([&] { return detected; }, 150000);
    spin(200);
    probe.leave();
    panel->setCudaDevices(0);

    int points = 0;
    std::vector<double> replots;
    if (phases.contains("stream")) {
        panel->setSweepKind(stepscope::ui::ConfigPanel::SweepKind::Single);
        panel->setShape(2, 32, 0, kStreamSteps - 1); // progress only: the stand-in decides the steps
        panel->setRepeats(1);
        panel->machineWarmupBox()->setChecked(false);
        bool done = false;
        auto connection = QObject::connect(&window, &MainWindow::sweepFinished, [&] { done = true; });
        probe.enter("start: Start until the first steps show");
        QElapsedTimer startClock;
        startClock.start();
        if (!window.startSweep())
            return 1;
        waitFor([&] { return window.pages()->live()->liveChart()->pointCount() > 0 || done; }, 120000);
        std::printf("start: the first steps showed %.2f s after Start\n", elapsedS(startClock));
        probe.leave();
        probe.enter("stream: 1 config x 100,000 steps (real path)");
        waitFor([&] { return done; }, 600000);
        QObject::disconnect(connection);
        probe.leave();
        // Interaction with every point present: zoom in around the middle, then pan; one replot
        // at a time, as a user's wheel and drags come, with the event loop running in between.
        probe.enter("zoom/pan: 50 replots of 100,000 points");
        QCustomPlot *plot = window.pages()->live()->liveChart()->plot();
        for (int i = 0; i < kInteractions; ++i) {
            spin(20);
            const double width = kStreamSteps / (1.0 + i);
            const double centre = kStreamSteps / 2.0 + (i % 10) * width / 20.0;
            plot->xAxis->setRange(centre - width / 2, centre + width / 2);
            QElapsedTimer t;
            t.start();
            plot->replot(QCustomPlot::rpImmediateRefresh);
            replots.push_back(elapsedMs(t));
        }
        probe.leave();
        points = window.pages()->live()->liveChart()->pointCount();
    }

    std::int64_t bigSweep = 0;
    QElapsedTimer ledgerClock;
    if (phases.contains("sweep")) {
        probe.enter("sweep: 7 configs x 3 repeats x 100,000 steps");
        // Another connection writes the sweep as a supervisor would; the window hears of each run
        // through the controller's own events, delivered to the UI thread.
        stepscope::bench::SyntheticSweep spec;
        spec.planned = [&](std::int64_t sweepId, int runs) {
            QMetaObject::invokeMethod(controller, [=] { Q_EMIT controller->sweepStarted(sweepId, runs); });
        };
        spec.runStarting = [&](std::int64_t runId, int index, int total) {
            QMetaObject::invokeMethod(controller, [=] {
                controller->onEvent(stepscope::supervisor::event::RunStarted{runId, index, total,
                                                                             QStringLiteral("synthetic run"), {}, {}});
            });
        };
        spec.runWritten = [&](std::int64_t runId, int, int) {
            QMetaObject::invokeMethod(controller, [=] {
                controller->onEvent(
                    stepscope::supervisor::event::RunFinished{runId, stepscope::RunStatus::Complete, std::nullopt, {}});
            });
        };
        bool written = false;
        std::atomic<bool> closed{false};
        std::thread writer([&] {
            {
                auto db = stepscope::store::Database::open(bigPath.toStdString());
                bigSweep = stepscope::bench::writeSyntheticSweep(*db, spec);
            } // closed here, as a supervisor's connection would be, not on the UI thread
            QMetaObject::invokeMethod(controller, [&] {
                controller->onEvent(stepscope::supervisor::event::Finished{bigSweep, false});
                written = true;
            });
            closed = true;
        });
        waitFor([&] { return written && closed; }, 1200000);
        writer.join();
        ledgerClock.start();
        spin(500);
        probe.leave();
    }

    if (phases.contains("typing")) {
        probe.enter("typing \"25000\" into Planned run");
        QSpinBox *planned = panel->plannedBox();
        planned->setFocus();
        planned->selectAll();
        for (const char key : std::string("25000")) {
            // As the keyboard delivers them: press and release to the focused editor.
            QWidget *target = QApplication::focusWidget() ? QApplication::focusWidget() : planned;
            const QString text(QChar::fromLatin1(key));
            QKeyEvent press(QEvent::KeyPress, Qt::Key_0 + (key - '0'), Qt::NoModifier, text);
            QKeyEvent release(QEvent::KeyRelease, Qt::Key_0 + (key - '0'), Qt::NoModifier, text);
            QApplication::sendEvent(target, &press);
            QApplication::sendEvent(target, &release);
            spin(125); // 8 keys a second
        }
        std::printf("typing: the planned-steps box reads %d\n", planned->value());
        spin(1000); // the debounce fires, the request goes to the ledger job
        probe.leave();
    }

    if (phases.contains("open")) {
        probe.enter("open a small database, then the 2.1M-step one");
        opened = 0;
        if (!window.openDatabase(dir.filePath("small.sqlite")) || !waitFor([&] { return opened == 1; }, 60000))
            return 1;
        opened = 0;
        QElapsedTimer openClock;
        openClock.start();
        if (!window.openDatabase(bigPath) || !waitFor([&] { return opened == 1; }, 120000))
            return 1;
        const double openS = elapsedS(openClock);
        window.showSweep(bigSweep > 0 ? bigSweep : 1);
        waitFor([&] { return window.sweepHeader()->sweepId() > 0; }, 120000);
        const double headerS = elapsedS(openClock);
        ledgerClock.start();
        spin(500);
        probe.leave();
        std::printf("open: the large database opened in %.2f s, its sweep's header showed after %.2f s\n", openS,
                    headerS);
    }

    if (phases.contains("tabs")) {
        probe.enter("switch tabs: every page, 3 rounds");
        auto *tabs = window.findChild<QTabWidget *>();
        for (int round = 0; round < 3; ++round)
            for (int i = 0; i < tabs->count(); ++i) {
                tabs->setCurrentIndex(i);
                spin(150);
            }
        probe.leave();
    }

    if (bigSweep > 0 && waitLedgerS > 0) {
        probe.enter("waiting for the ledger");
        const bool shown = waitFor([&] { return window.shownSweep()->ledger()->rowCount() > 0 && !window.isBusy(); },
                                   waitLedgerS * 1000);
        probe.leave();
        std::printf("ledger of the 2.1M-step sweep: %s after %.0f s\n", shown ? "shown" : "not yet shown",
                    elapsedS(ledgerClock));
    } else if (bigSweep > 0) {
        std::printf("ledger of the 2.1M-step sweep: %s when the phases ended\n",
                    window.isBusy() ? "still being computed (its bootstrap runs on)" : "shown");
    }

    if (phases.contains("export")) {
        // A report of a stored sweep: its charts drawn on the UI thread, the rest on the report job's.
        probe.enter("export the H200 b32 report as PDF");
        const QString h200 = dir.filePath("h200-ledger.sqlite");
        QFile::copy(STEPSCOPE_SOURCE_DIR "/docs/results/h200-ledger.sqlite", h200);
        QFile(h200).setPermissions(QFile::ReadOwner | QFile::WriteOwner);
        opened = 0;
        if (!window.openDatabase(h200) || !waitFor([&] { return opened == 1; }, 60000))
            return 1;
        window.showSweep(1);
        waitFor([&] { return !window.isBusy(); }, 300000);
        bool written = false;
        QObject::connect(window.reportExport(), &stepscope::ui::ReportExport::written, [&] { written = true; });
        QString error;
        QElapsedTimer exportClock;
        exportClock.start();
        if (!window.reportExport()->write(dir.filePath("report.pdf"), &error))
            std::printf("export: %s\n", qPrintable(error));
        waitFor([&] { return written; }, 120000);
        std::printf("export: the PDF was written %.2f s after the click\n", elapsedS(exportClock));
        spin(300);
        probe.leave();
    }

    if (phases.contains("lanes")) {
        // Two stand-in H200s, all at once: a short stream on each lane (the stand-in ignores the device).
        probe.enter("lanes: 2 configs on 2 GPUs at once");
        qputenv("STEPSCOPE_FAKE_STEPS", "2000");
        opened = 0;
        if (!window.openDatabase(dir.filePath("lanes.sqlite")) || !waitFor([&] { return opened == 1; }, 60000))
            return 1;
        panel->setCudaDevices(2);
        panel->setGpus({{0, "NVIDIA H200", "GPU-a", "00000000:19:00.0", 143771},
                        {1, "NVIDIA H200", "GPU-b", "00000000:3B:00.0", 143771}});
        panel->setDevice("cuda");
        panel->setSweepKind(stepscope::ui::ConfigPanel::SweepKind::Single);
        panel->setShape(2, 32, 0, 1999);
        panel->setRepeats(2);
        panel->machineWarmupBox()->setChecked(false);
        panel->devicesEdit()->setText("all");
        bool done = false;
        auto connection = QObject::connect(&window, &MainWindow::sweepFinished, [&] { done = true; });
        QElapsedTimer lanesClock;
        lanesClock.start();
        if (window.startSweep())
            waitFor([&] { return done; }, 300000);
        QObject::disconnect(connection);
        std::printf("lanes: the sweep %s after %.2f s\n", done ? "finished" : "did not start or finish",
                    elapsedS(lanesClock));
        spin(300);
        probe.leave();
    }

    if (phases.contains("setup")) {
        probe.enter("setup dialog: opened, closed");
        window.showSetupDialog(QStringLiteral("the bench opens it"));
        spin(1000);
        if (window.setupDialog())
            window.setupDialog()->close();
        spin(300);
        probe.leave();
    }

    std::printf("dashboard_bench: MainWindow at 1280x720, platform %s, %u hardware threads\n",
                qPrintable(QGuiApplication::platformName()), std::thread::hardware_concurrency());
    probe.print();
    std::printf("waits the UI thread announced (blocking_call.h): %zu\n", waits.size());
    for (const std::string &what : waits)
        std::printf("    %s\n", what.c_str());
    app.printSlowest();
    app.printBetween(probe.worstFrom(), probe.worstTo());
    if (!replots.empty()) {
        std::printf("  live chart: %d points; zoom/pan replot median %.2f ms, max %.2f ms (of %d)\n", points,
                    percentile(replots, 0.5), percentile(replots, 1.0), kInteractions);
    }
    std::fflush(stdout);
    // A ledger still in its bootstrap is left to the process's end (the job does not wait for it).
    return phases.contains("stream") && points != kStreamSteps ? 1 : 0;
}
