#pragma once
// The step times of several runs over each other: the cold processes of one configuration (do they
// settle at the same level?) or one run per configuration (which settles lowest, and when). Each
// run is a thin line in its own colour, its steady window a thick bar at the window's median over
// the steps it spans, and step 1, usually far above the rest, a marker at the top edge with its
// time. The y range fits the steady steps of all runs, not step 1.
//
// The chart only draws what it is given: a page builds the RunSeries (runSeriesOf() reads a
// stored run, off the UI thread if it likes) and hands them over with setRuns() on the UI thread.
#include "charts/chart_widget.h"

#include <QSharedPointer>
#include <QString>
#include <QVector>

#include <cmath>
#include <cstdint>
#include <vector>

class QCPGraph;
class QCPGraphData;
class QCPItemLine;
template <class DataType> class QCPDataContainer;

namespace stepscope::store
{
class Reader;
}

namespace stepscope::ui
{

struct RunSeries {
    QString name;        // legend text: "tf32 #2", "baseline (run 14)"
    QVector<double> ms;  // ms[i] is step i + 1
    int steadyFirst = 0; // the steady window, 1-based and inclusive; 0: none
    int steadyLast = 0;
    int colorIndex = -1; // the ledger row, so a configuration keeps its colour; -1: by position
};

// What the chart draws, worked out from the series. At 7 runs x 100,000 steps, building the graphs'
// 700,000 points, the steady medians and the y range took ~40 ms of the UI thread, so a page works
// it out where it reads the steps (prepareOverlay touches no widget) and the UI thread only hands
// the shared data to the graphs.
struct OverlayRuns {
    QVector<RunSeries> runs;
    QVector<QSharedPointer<QCPDataContainer<QCPGraphData>>> steps; // each run's steps 2, 3, ...
    QVector<double> medians; // each run's median over its steady window; NaN without one
    double top = 1.0;        // the y range's top, from the steady steps of every run, not step 1
    double lastStep = 0;     // the longest run's step count
};
OverlayRuns prepareOverlay(QVector<RunSeries> runs);

// One stored run as a series: its steps (CUDA-event time, else wall time) and the steady window of
// its stored summary. Touches no widget: callable from a worker thread with its own Reader.
// Throws store::StoreError as the reader does.
RunSeries runSeriesOf(const store::Reader &reader, std::int64_t runId, const QString &name = {}, int colorIndex = -1);

class RunOverlayChart : public ChartWidget
{
    Q_OBJECT
  public:
    explicit RunOverlayChart(QWidget *parent = nullptr);

    // Replaces what is drawn. UI thread only.
    void setRuns(OverlayRuns prepared);
    void setRuns(const QVector<RunSeries> &runs) { setRuns(prepareOverlay(runs)); }
    void clear() { setRuns(OverlayRuns{}); }

    int runCount() const { return static_cast<int>(shown_.runs.size()); } // one per configuration or process
    const QVector<RunSeries> &runs() const { return shown_.runs; }
    QCPGraph *stepGraph(int run) const { return steps_.value(run, nullptr); }       // steps 2, 3, ...
    QCPGraph *firstStepGraph(int run) const { return firsts_.value(run, nullptr); } // step 1 (clamped to the top)
    // The steady window's bar: from (steadyFirst, median) to (steadyLast, median); nullptr without one.
    QCPItemLine *steadyBar(int run) const { return bars_.value(run, nullptr); }
    // 0 for a run without a steady window (or none at that index).
    double steadyMedianMs(int run) const
    {
        const double level = shown_.medians.value(run, 0.0);
        return std::isfinite(level) ? level : 0.0;
    }

  protected:
    void paletteChanged() override;

  private:
    void rebuild();

    OverlayRuns shown_;
    QVector<QCPGraph *> steps_, firsts_;
    QVector<QCPItemLine *> bars_;
};

} // namespace stepscope::ui
