#pragma once
// What each configuration costs up front against what it costs per step, as a scatter: the first
// step on the x axis (seconds, logarithmic, because compile and autotuning put it anywhere from
// 0.3 s to minutes) and the steady-state step on the y axis (ms, linear from zero, so a 14 ms step
// stands above a 7 ms one and twice as high). One labelled point per ledger row, with whiskers
// from the lowest to the highest process in each direction where several processes ran. Lower
// left is better on both counts: the Pareto front (rows no other row beats on both) is drawn as a
// step line, and dashed lines through the baseline split the plot into better and worse.
// Rows without both figures are listed under the plot with the reason.
#include "charts/ledger_chart.h"

#include "report/ledger.h"

#include <QRectF>
#include <QString>
#include <QVector>

#include <vector>

class QCPAxis;
class QCPGraph;
class QCPErrorBars;
class QCPItemLine;
class QCPItemStraightLine;
class QCPItemText;
class QCPTextElement;

namespace stepscope::ui
{

// Rows (indices into `rows`) with a first step and a steady state that no other such row beats on
// both: another row with a first step no longer and a steady step no slower, and better on one.
// Rows whose accuracy check diverged are no candidates. In row order.
QVector<int> paretoFrontRows(const std::vector<report::LedgerRow> &rows);

class FirstVsSteadyChart : public LedgerChart
{
    Q_OBJECT
  public:
    struct Point {
        int row = 0;
        QString label;
        double firstS = 0, steadyMs = 0;
        // Whisker ends (equal to the figure where there is no spread: one process).
        double firstLowS = 0, firstHighS = 0, steadyLowMs = 0, steadyHighMs = 0;
        bool onFront = false;
        bool baseline = false; // ledger row 0
        bool diverged = false; // failed the accuracy gate: drawn hollow, never on the front
    };

    explicit FirstVsSteadyChart(QWidget *parent = nullptr);

    QCPAxis *firstStepAxis() const; // x, logarithmic, seconds
    QCPAxis *steadyAxis() const;    // y, linear, ms
    const QVector<Point> &points() const { return points_; }
    // Ledger rows on the Pareto front, ordered by first step (the order of the step line).
    const QVector<int> &frontRows() const { return front_; }
    QCPGraph *frontLine() const { return frontLine_; }
    QCPGraph *graphForRow(int row) const;
    QCPErrorBars *firstStepWhiskers(int row) const; // nullptr without a spread
    QCPErrorBars *steadyWhiskers(int row) const;
    QCPItemText *labelForRow(int row) const;
    // Where the point labels were drawn at the last layout, in plot pixels, in points() order.
    QVector<QRectF> labelRects() const;
    // The start states drawn (issue 35.6): the ledger's own, whose points are the labelled ones,
    // then each other state a row ran, as one graph of hollow markers at that state's first step
    // (the steady step is the row's: the caches a process starts with change only its first steps).
    // The legend names them when there are two or more.
    const std::vector<store::StartState> &states() const { return states_; }
    QCPGraph *stateGraph(store::StartState state) const; // nullptr for the ledger's own or one not drawn
    // "Not drawn: max-autotune (failed: compile-failed); ..." or empty.
    QString missingNote() const { return missing_; }
    // The hover text of the point nearest `pos` (plot pixels): the row's full label, its two figures
    // and its peak memory, which the axes leave out; empty away from every point.
    QString toolTipAt(const QPointF &pos) const;

  protected:
    void rebuild() override;

  private:
    void placeLabels();

    QVector<Point> points_;
    QVector<int> front_;
    QVector<QCPGraph *> graphs_;      // by ledger row, nullptr without a point
    QVector<QCPErrorBars *> xErrors_; // by ledger row
    QVector<QCPErrorBars *> yErrors_; // by ledger row
    QVector<QCPItemText *> labels_;   // in points_ order
    QVector<QCPItemLine *> leaders_;  // in points_ order
    QCPGraph *frontLine_ = nullptr;
    std::vector<store::StartState> states_;
    std::vector<std::pair<store::StartState, QCPGraph *>> stateGraphs_;
    QCPTextElement *footnote_ = nullptr; // how to read it, and the rows not drawn
    QString missing_;
};

} // namespace stepscope::ui
