#pragma once
// Step times of the configurations that are running now, drawn as they arrive: one trace, or on a
// sweep over several devices one trace per lane (each lane's current run, in the lane's colour), so
// that a lane starting a run never blanks another's. Built for 100,000 points a trace: plain lines
// (QCPGraph's adaptive sampling, no scatter symbols), appends that never re-sort, queued replots,
// and a y range fitted to the steady steps rather than to step 1, which is often a hundred times
// longer than the rest; the steps that fit leaves above the top get a mark at the edge instead.
#include "charts/chart_widget.h"
#include "charts/clipped_steps.h"

#include <QVector>

#include <vector>

class QCPGraph;
class QCPItemLine;
class QCPItemRect;
class QCPItemText;

namespace stepscope::ui
{

class LiveStepChart : public ChartWidget
{
    Q_OBJECT
  public:
    // The trace of a sweep on one device, or of a stored run: it has no lane.
    static constexpr int kNoLane = -1;

    explicit LiveStepChart(QWidget *parent = nullptr);

    // Clears the chart for a new run and shows its title: one trace, lanes' traces gone.
    void beginRun(const QString &title);
    // Lane `lane` (0, 1, ...: its colour) starts over for its new run: its trace is named
    // "`label` — `run`" in the legend ("cpu:0 — tf32 (run 3 of 12)"); other lanes keep their steps.
    void beginLaneRun(int lane, const QString &label, const QString &run);
    // Adds consecutive steps: ms[i] is step firstIndex + i (1-based: step 1 is the first step).
    // Meant to be called by a GUI timer draining worker batches; the replot is queued.
    void appendSteps(int firstIndex, const QVector<double> &ms) { appendSteps(kNoLane, firstIndex, ms); }
    void appendSteps(int lane, int firstIndex, const QVector<double> &ms);
    // Shades the detected steady window, steps firstStep..lastStep inclusive. A lane keeps its own;
    // the chart shades one lane's at a time (the focused lane's, else the first lane that has one).
    void setSteadyWindow(int firstStep, int lastStep) { setSteadyWindow(kNoLane, firstStep, lastStep); }
    void setSteadyWindow(int lane, int firstStep, int lastStep);
    void clearSteadyWindow() { clearSteadyWindow(kNoLane); }
    void clearSteadyWindow(int lane);
    // A long stretch without steps (torch.compile, graph capture): "compiling 0:42" in the middle
    // of the plot with a line of explanation, so the wait never looks like a hang. Cleared by
    // clearPhase(), beginRun(), and by the lane's next appended steps. As the shading, one lane's.
    void setPhase(const QString &status, const QString &explanation) { setPhase(kNoLane, status, explanation); }
    void setPhase(int lane, const QString &status, const QString &explanation);
    void clearPhase() { clearPhase(kNoLane); }
    void clearPhase(int lane);
    QString phaseText() const; // empty when none is shown
    // The lane whose shading and phase show when several have them (a click on its legend entry
    // picks it); kNoLane: the first that has one.
    void setFocusLane(int lane);
    int focusLane() const { return focus_; }

    int pointCount() const; // of every trace
    int traceCount() const { return int(traces_.size()); }
    // While following, each append refits the axes to all the data; a drag or a wheel zoom stops
    // following so the user keeps the view they chose; a double click resumes it.
    bool followsLatest() const { return following_; }
    void setFollowLatest(bool follow);
    void resetZoom() override { setFollowLatest(true); } // double click or Home (ChartWidget)
    // The hover text for a position in plot pixels ("step 1234: 8.21 ms"; a mark: the spike it
    // stands for), empty when off the data.
    QString toolTipAt(const QPointF &pos) const;

    // A lane's graphs, null when it has no trace.
    QCPGraph *stepGraph(int lane = kNoLane) const;      // steps 2, 3, ...
    QCPGraph *firstStepGraph(int lane = kNoLane) const; // step 1 alone, its own marker
    QCPItemRect *steadyWindowItem() const { return window_; }
    QCPItemText *steadyWindowLabel() const { return windowLabel_; }
    QCPItemText *firstStepNote() const { return firstNote_; }
    QCPItemText *phaseNote() const { return phase_; }
    // The marks at the top edge for clipped steps, as of the last replot (visible ones first).
    int clippedMarkCount() const;
    QCPItemText *clippedMarkItem(int i) const { return marks_.at(i).item; }

  protected:
    void paletteChanged() override;

  private:
    struct Trace {
        int lane = kNoLane;
        QString label; // "cpu:0"; empty without a lane
        QCPGraph *steps = nullptr;
        QCPGraph *first = nullptr;
        double lastKey = 0;                    // largest step index appended
        int windowFirst = 0, windowLast = 0;   // the steady window; none while windowLast == 0
        QString phaseStatus, phaseExplanation; // none while empty
    };
    struct Mark {
        QCPItemText *item = nullptr;
        QString label; // of the trace it marks
        ClippedMark spike;
    };

    Trace &traceOf(int lane); // made on first use
    // Whether the traces are lanes' (legend, lane names in the notes), not the one trace.
    bool showsLanes() const { return !traces_.empty() && traces_.front().lane != kNoLane; }
    const Trace *findTrace(int lane) const;
    void clearTrace(Trace &t);
    void restyleSeries();
    void fitRanges(bool force);
    void updateFirstStepNote();
    void showLaneItems(); // the shading and phase of one lane
    void updateClippedMarks();

    std::vector<Trace> traces_; // in lane order
    QCPItemRect *window_ = nullptr;
    QCPItemText *windowLabel_ = nullptr;
    QCPItemText *firstNote_ = nullptr;
    QCPItemLine *firstArrow_ = nullptr;
    QCPItemText *phase_ = nullptr;
    std::vector<Mark> marks_; // a pool: items are hidden, never deleted, as the marks change

    bool following_ = true;
    bool marksStale_ = true;
    int focus_ = kNoLane;
    int fittedCount_ = 0;         // steps >= 2 when the y range was last fitted
    std::vector<double> scratch_; // reused buffer of the percentile fit
};

} // namespace stepscope::ui
