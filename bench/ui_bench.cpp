// How the live step chart holds up under a sweep's stream: 100,000 steps arrive from a producer
// thread in batches of 16 about every millisecond, a GUI timer drains them into the chart, and a
// 5 ms timer on the UI thread measures how long the thread was ever unavailable. Then, with every
// point present, it times the replots of zooming and panning. Prints figures; asserts no timing.
#include "charts/live_step_chart.h"
#include "elapsed.h"

#include "charts/qcustomplot_compat.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using stepscope::bench::elapsedMs;
using stepscope::ui::LiveStepChart;

namespace
{

constexpr int kTotalSteps = 100000;
constexpr int kBatch = 16;
constexpr int kProducerMs = 1;
constexpr int kDrainMs = 16; // one frame at 60 Hz
constexpr int kProbeMs = 5;
constexpr int kInteractions = 50;

// Step times shaped like a real run: a long first step, a warm-up that decays, noise and spikes.
class StepSource
{
  public:
    double next()
    {
        ++step_;
        if (step_ == 1)
            return 2300.0;
        const double warmup = 9.0 * std::exp(-(step_ - 2) / 60.0);
        double ms = 21.4 + warmup + noise_(rng_);
        if (spike_(rng_) < 0.002)
            ms *= 3;
        return ms;
    }
    int produced() const { return step_; }

  private:
    int step_ = 0;
    std::mt19937 rng_{2024};
    std::normal_distribution<double> noise_{0.0, 0.25};
    std::uniform_real_distribution<double> spike_{0.0, 1.0};
};

// Filled by queued calls and emptied by the drain timer, both on the UI thread: no lock needed.
struct Inbox {
    int firstIndex = 1;
    QVector<double> pending;
    int received = 0;
};

struct Figures {
    double maxProbeGapMs = 0;
    std::vector<double> probeGapsMs;
    double maxAppendMs = 0;
    double maxReplotMs = 0;
    double maxAppendPlusReplotMs = 0;
    double lastAppendMs = 0;
    int drains = 0;
    int replots = 0;
    double streamMs = 0;
};

double percentile(std::vector<double> v, double q)
{
    if (v.empty())
        return 0;
    const auto at = v.begin() + std::ptrdiff_t(std::floor(q * double(v.size() - 1)));
    std::nth_element(v.begin(), at, v.end());
    return *at;
}

void printRow(const char *figure, double ms)
{
    std::printf("  %-52s %10.2f\n", figure, ms);
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);

    LiveStepChart chart;
    chart.resize(1280, 540);
    chart.show();
    chart.beginRun(QStringLiteral("ui_bench: baseline, 100,000 steps"));
    QCustomPlot *plot = chart.plot();

    Figures fig;
    Inbox inbox;
    QElapsedTimer replotClock;
    QObject::connect(plot, &QCustomPlot::beforeReplot, [&] { replotClock.start(); });
    QObject::connect(plot, &QCustomPlot::afterReplot, [&] {
        const double ms = elapsedMs(replotClock);
        fig.maxReplotMs = std::max(fig.maxReplotMs, ms);
        // A queued replot follows the append that asked for it: the pair is what the user waits on.
        fig.maxAppendPlusReplotMs = std::max(fig.maxAppendPlusReplotMs, fig.lastAppendMs + ms);
        fig.lastAppendMs = 0;
        ++fig.replots;
    });

    // Producer: a timer on its own thread, like the supervisor's, posting batches to the UI thread.
    QThread producerThread;
    QTimer producer;
    producer.setTimerType(Qt::PreciseTimer);
    producer.setInterval(kProducerMs);
    producer.moveToThread(&producerThread);
    StepSource source;
    QObject uiSide; // lives on the UI thread: the receiver of queued batches
    QObject::connect(&producer, &QTimer::timeout, &producer, [&] {
        QVector<double> batch;
        batch.reserve(kBatch);
        while (batch.size() < kBatch && source.produced() < kTotalSteps)
            batch.append(source.next());
        QMetaObject::invokeMethod(
            &uiSide, [&inbox, batch] { inbox.pending += batch; }, Qt::QueuedConnection);
        if (source.produced() >= kTotalSteps)
            producer.stop();
    });
    QObject::connect(&producerThread, &QThread::started, &producer, qOverload<>(&QTimer::start));

    QElapsedTimer probeClock;
    QTimer probe;
    probe.setTimerType(Qt::PreciseTimer);
    probe.setInterval(kProbeMs);
    QObject::connect(&probe, &QTimer::timeout, [&] {
        const double gap = elapsedMs(probeClock);
        probeClock.restart();
        fig.probeGapsMs.push_back(gap);
        fig.maxProbeGapMs = std::max(fig.maxProbeGapMs, gap);
    });

    QElapsedTimer streamClock;
    QTimer drain;
    drain.setInterval(kDrainMs);
    QObject::connect(&drain, &QTimer::timeout, [&] {
        QVector<double> batch;
        batch.swap(inbox.pending);
        const int first = inbox.firstIndex;
        const int count = static_cast<int>(batch.size()); // at most kTotalSteps
        inbox.firstIndex += count;
        if (!batch.isEmpty()) {
            QElapsedTimer t;
            t.start();
            chart.appendSteps(first, batch);
            const double ms = elapsedMs(t);
            fig.maxAppendMs = std::max(fig.maxAppendMs, ms);
            fig.lastAppendMs += ms;
            inbox.received += count;
            ++fig.drains;
        }
        if (inbox.received >= kTotalSteps) {
            fig.streamMs = elapsedMs(streamClock);
            drain.stop();
            probe.stop();
            // Let the last queued replot happen before leaving the loop.
            QTimer::singleShot(50, &app, &QCoreApplication::quit);
        }
    });

    streamClock.start();
    probeClock.start();
    probe.start();
    drain.start();
    producerThread.start();
    app.exec();
    producerThread.quit();
    producerThread.wait();

    // Interaction with everything present: zoom in and out, pan, each followed by an immediate replot.
    chart.setSteadyWindow(400, kTotalSteps);
    chart.setFollowLatest(false);
    plot->replot(QCustomPlot::rpImmediateRefresh);
    std::vector<double> interactionMs;
    for (int i = 0; i < kInteractions; ++i) {
        QCPAxis *x = plot->xAxis;
        QCPAxis *y = plot->yAxis;
        switch (i % 5) {
        case 0:
            x->scaleRange(0.6, x->range().center());
            break;
        case 1:
            x->moveRange(x->range().size() * 0.2);
            break;
        case 2:
            y->scaleRange(0.8, y->range().center());
            break;
        case 3:
            x->moveRange(-x->range().size() * 0.35);
            break;
        case 4:
            x->scaleRange(1.5, x->range().center());
            y->scaleRange(1.2, y->range().center());
            break;
        }
        QElapsedTimer t;
        t.start();
        plot->replot(QCustomPlot::rpImmediateRefresh);
        interactionMs.push_back(elapsedMs(t));
    }
    chart.setFollowLatest(true);
    QElapsedTimer full;
    full.start();
    plot->replot(QCustomPlot::rpImmediateRefresh);
    const double fullViewMs = elapsedMs(full);

    std::printf("ui_bench: LiveStepChart, %d steps in batches of %d every ~%d ms, drained every %d ms, "
                "%dx%d, platform %s\n",
                kTotalSteps, kBatch, kProducerMs, kDrainMs, chart.width(), chart.height(),
                qPrintable(QGuiApplication::platformName()));
    std::printf("  %-52s %10s\n", "figure", "ms");
    printRow("streaming wall time (all steps drawn)", fig.streamMs);
    printRow("UI stall: max gap between 5 ms timer ticks", fig.maxProbeGapMs);
    printRow("UI stall: p99 gap between 5 ms timer ticks", percentile(fig.probeGapsMs, 0.99));
    printRow("longest appendSteps", fig.maxAppendMs);
    printRow("longest queued replot while streaming", fig.maxReplotMs);
    printRow("longest appendSteps + its replot", fig.maxAppendPlusReplotMs);
    printRow("zoom/pan replot, median of 50", percentile(interactionMs, 0.5));
    printRow("zoom/pan replot, max of 50", *std::max_element(interactionMs.begin(), interactionMs.end()));
    printRow("full-view replot, 100,000 points", fullViewMs);
    std::printf("  (%d drains, %d replots, %d points in the chart)\n", fig.drains, fig.replots, chart.pointCount());

    if (chart.pointCount() != kTotalSteps) {
        std::fprintf(stderr, "ui_bench: the chart holds %d points, expected %d\n", chart.pointCount(), kTotalSteps);
        return 1;
    }
    return 0;
}
