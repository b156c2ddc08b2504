#pragma once
// Step times of the configuration that is running now, drawn as they arrive. Built for 100,000
// points: one plain line (QCPGraph's adaptive sampling, no scatter symbols), appends that never
// re-sort, queued replots, and a y range fitted to the steady steps rather than to step 1, which
// is often a hundred times longer than the rest.
#include "charts/chart_widget.h"

#include <QVector>

#include <vector>

class QCPGraph;
class QCPItemLine;
class QCPItemRect;
class QCPItemText;
class QMouseEvent;

namespace stepscope::ui
{

class LiveStepChart : public ChartWidget
{
    Q_OBJECT
  public:
    explicit LiveStepChart(QWidget *parent = nullptr);

    // Clears the chart for a new run and shows its title.
    void beginRun(const QString &title);
    // Adds consecutive steps: ms[i] is step firstIndex + i (1-based: step 1 is the first step).
    // Meant to be called by a GUI timer draining worker batches; the replot is queued.
    void appendSteps(int firstIndex, const QVector<double> &ms);
    // Shades the detected steady window, steps firstStep..lastStep inclusive.
    void setSteadyWindow(int firstStep, int lastStep);
    void clearSteadyWindow();
    // A long stretch without steps (torch.compile, graph capture): "compiling 0:42" in the middle
    // of the plot with a line of explanation, so the wait never looks like a hang. Cleared by
    // clearPhase(), beginRun(), and by the next appended steps.
    void setPhase(const QString &status, const QString &explanation);
    void clearPhase();
    QString phaseText() const; // empty when none is shown

    int pointCount() const;
    // While following, each append refits the axes to all the data; a drag or a wheel zoom stops
    // following so the user keeps the view they chose; a double click resumes it.
    bool followsLatest() const { return following_; }
    void setFollowLatest(bool follow);
    void resetZoom() override { setFollowLatest(true); } // double click or Home (ChartWidget)
    // The hover text for a position in plot pixels ("step 1234: 8.21 ms"), empty when off the data.
    QString toolTipAt(const QPointF &pos) const;

    QCPGraph *stepGraph() const { return steps_; }          // steps 2, 3, ...
    QCPGraph *firstStepGraph() const { return firstStep_; } // step 1 alone, its own marker
    QCPItemRect *steadyWindowItem() const { return window_; }
    QCPItemText *firstStepNote() const { return firstNote_; }
    QCPItemText *phaseNote() const { return phase_; }

  protected:
    void paletteChanged() override;

  private:
    void restyleSeries();
    void fitRanges(bool force);
    void updateFirstStepNote();
    void showToolTip(QMouseEvent *event);

    QCPGraph *steps_ = nullptr;
    QCPGraph *firstStep_ = nullptr;
    QCPItemRect *window_ = nullptr;
    QCPItemText *windowLabel_ = nullptr;
    QCPItemText *firstNote_ = nullptr;
    QCPItemLine *firstArrow_ = nullptr;
    QCPItemText *phase_ = nullptr;

    bool following_ = true;
    int fittedCount_ = 0;         // steps >= 2 when the y range was last fitted
    double lastKey_ = 0;          // largest step index appended
    std::vector<double> scratch_; // reused buffer of the percentile fit
};

} // namespace stepscope::ui
