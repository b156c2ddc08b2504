// The whole dashboard under a sweep's stream: a stand-in worker (bench/fake_worker.py) streams
// 100,000 steps in batches of 16 about every millisecond through the real path (worker process,
// supervisor thread, SQLite writer, the controller's sample buffer, the window's 30 Hz drain,
// steady-state re-detection, the live chart). A 5 ms timer on the UI thread measures how long the
// thread was ever unavailable. Then it times zoom and pan replots with every point present.
// Prints figures; asserts no timing.
#include "charts/live_step_chart.h"
#include "charts/qcustomplot_compat.h"
#include "controller/run_controller.h"
#include "widgets/config_panel.h"
#include "widgets/main_window.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace
{

constexpr int kSteps = 100000;
constexpr int kProbeMs = 5;
constexpr int kInteractions = 50;

double percentile(std::vector<double> v, double q)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

} // namespace

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
    qputenv("STEPSCOPE_NATIVE_WORKER", STEPSCOPE_SOURCE_DIR "/bench/fake_worker.sh");
    qputenv("STEPSCOPE_FAKE_STEPS", QByteArray::number(kSteps));
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName("stepscope-bench");
    QStandardPaths::setTestModeEnabled(true);

    QTemporaryDir dir;
    stepscope::ui::MainWindow window;
    window.resize(1280, 820);
    window.show();
    if (!window.openDatabase(dir.filePath("bench.sqlite")))
        return 1;
    auto *panel = window.configPanel();
    panel->setCudaDevices(0);
    panel->setSweepKind(stepscope::ui::ConfigPanel::SweepKind::Single);
    panel->setShape(2, 32, 0, kSteps - 1); // progress only: the stand-in decides the steps
    panel->setRepeats(1);

    std::vector<double> gaps;
    QElapsedTimer probeClock;
    QTimer probe;
    probe.setTimerType(Qt::PreciseTimer);
    QObject::connect(&probe, &QTimer::timeout, [&] {
        if (probeClock.isValid())
            gaps.push_back(probeClock.nsecsElapsed() / 1e6);
        probeClock.start();
    });

    QElapsedTimer sweepClock;
    bool done = false;
    QObject::connect(&window, &stepscope::ui::MainWindow::sweepFinished, [&] {
        done = true;
        probe.stop();
    });
    sweepClock.start();
    probe.start(kProbeMs);
    if (!window.startSweep())
        return 1;
    while (!done)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    const double sweepMs = sweepClock.nsecsElapsed() / 1e6;

    // Interaction with every point present: zoom in around the middle, then pan, replotting each time.
    QCustomPlot *plot = window.liveChart()->plot();
    std::vector<double> replots;
    for (int i = 0; i < kInteractions; ++i) {
        const double width = kSteps / (1.0 + i);
        const double centre = kSteps / 2.0 + (i % 10) * width / 20.0;
        plot->xAxis->setRange(centre - width / 2, centre + width / 2);
        QElapsedTimer t;
        t.start();
        plot->replot(QCustomPlot::rpImmediateRefresh);
        replots.push_back(t.nsecsElapsed() / 1e6);
    }

    const int points = window.liveChart()->pointCount();
    std::printf("dashboard_bench: MainWindow over a stand-in worker, %d steps in batches of 16 every ~1 ms, "
                "platform %s\n",
                kSteps, qPrintable(QGuiApplication::platformName()));
    std::printf("  %-52s %12s\n", "figure", "value");
    std::printf("  %-52s %12.0f\n", "sweep wall time (ms)", sweepMs);
    std::printf("  %-52s %12d\n", "points in the live chart", points);
    std::printf("  %-52s %12.2f\n", "UI stall: max gap between 5 ms timer ticks (ms)",
                gaps.empty() ? 0.0 : *std::max_element(gaps.begin(), gaps.end()));
    std::printf("  %-52s %12.2f\n", "UI stall: p99 gap (ms)", percentile(gaps, 0.99));
    std::printf("  %-52s %12.2f\n", "UI stall: median gap (ms)", percentile(gaps, 0.5));
    std::printf("  %-52s %12.2f\n", "zoom/pan replot, median of 50 (ms)", percentile(replots, 0.5));
    std::printf("  %-52s %12.2f\n", "zoom/pan replot, max of 50 (ms)", percentile(replots, 1.0));
    std::printf("  (%zu probe ticks)\n", gaps.size());
    return points == kSteps ? 0 : 1;
}
