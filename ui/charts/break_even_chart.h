#pragma once
// When each configuration pays for its first step: cumulative time T1 + (n - 1) * t against the
// number of steps n, one line per configuration with a steady state. Where a line crosses the
// baseline (row 0) the crossing is marked with the ledger's break-even step count and, where the
// ledger has one, its interval as a horizontal whisker. The crossing that decides the
// recommendation (where the recommended configuration overtakes the runner-up) has a marker of its
// own, and the planned run length N is a vertical line. Labels are placed so that none covers
// another; the legend sits in a row of its own under the plot, never over the lines. Both axes are
// logarithmic: break-even points range from a handful of steps to tens of thousands, and on log-log
// axes every line is flat while the first step dominates and rises with slope one once the steps
// do, so both phases stay readable.
#include "charts/break_even_geometry.h"
#include "charts/ledger_chart.h"

#include <QRectF>
#include <QVector>

#include <optional>

class QCPGraph;
class QCPItemLine;
class QCPItemStraightLine;
class QCPItemText;
class QCPItemTracer;

namespace stepscope::ui
{

class BreakEvenChart : public LedgerChart
{
    Q_OBJECT
  public:
    using DecidingCrossing = BreakEvenGeometry::DecidingCrossing;
    using Interval = BreakEvenGeometry::Interval;

    explicit BreakEvenChart(QWidget *parent = nullptr);

    // The line of a ledger row, or nullptr when the row has no steady state.
    QCPGraph *graphForRow(int row) const;
    QCPItemStraightLine *plannedLine() const { return planned_; }
    double plannedSteps() const; // where the planned-N line stands
    // Break-even step counts against the baseline that are drawn (finite and past step 1).
    QVector<double> crossings() const;
    // Their intervals, for the crossings whose row has one.
    const QVector<Interval> &crossingIntervals() const { return geometry_.intervals; }
    // The crossing that decides the recommendation; none without a runner-up, when the best is
    // ahead from step 1, or when the lines cross only far beyond the planned run.
    const std::optional<DecidingCrossing> &decidingCrossing() const { return geometry_.deciding; }
    QCPItemTracer *decidingMarker() const { return decidingMarker_; }
    // The crossing labels (the deciding one last) as placed at the last layout, in plot pixels.
    QVector<QRectF> crossingLabelRects() const;
    QVector<QCPItemText *> crossingLabels() const { return labels_; }
    // The unelided legend name of a row's line (legend entries elide long configuration names).
    QString fullName(int row) const;
    // The full name of the legend entry under `pos` (plot pixels) with the row's peak memory, empty
    // elsewhere.
    QString legendToolTipAt(const QPointF &pos) const;

  protected:
    void rebuild() override;

  private:
    void draw();    // turns geometry_ into plot items
    void arrange(); // after each layout: legend columns, label places

    BreakEvenGeometry geometry_; // of the last rebuild
    QVector<QCPGraph *> rowGraphs_;
    QCPItemStraightLine *planned_ = nullptr;
    QCPItemTracer *decidingMarker_ = nullptr;
    QVector<QCPItemText *> labels_;   // crossing labels, the deciding one last
    QVector<QPointF> anchors_;        // their points (plot coordinates)
    QVector<QCPItemTracer *> dots_;   // crossing dots, obstacles for the labels
    QVector<QCPItemLine *> whiskers_; // crossing intervals, obstacles too
    QVector<QCPItemLine *> leaders_;  // from a point to its label when the label had to go farther, per label
    QCPItemText *plannedLabel_ = nullptr;
    bool arranging_ = false;
};

} // namespace stepscope::ui
