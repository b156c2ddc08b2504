#pragma once
// When each configuration pays for its first step: cumulative time T1 + (n - 1) * t against the
// number of steps n, one line per configuration with a steady state. Where a line crosses the
// baseline (row 0) the crossing is marked with the ledger's break-even step count, and the planned
// run length N is a vertical line. Both axes are logarithmic: break-even points range from a handful
// of steps to tens of thousands, and on log-log axes every line is flat while the first step
// dominates and rises with slope one once the steps do, so both phases stay readable.
#include "charts/ledger_chart.h"

#include <QHash>
#include <QVector>

class QCPGraph;
class QCPItemStraightLine;

namespace stepscope::ui
{

class BreakEvenChart : public LedgerChart
{
    Q_OBJECT
  public:
    explicit BreakEvenChart(QWidget *parent = nullptr);

    // The line of a ledger row, or nullptr when the row has no steady state.
    QCPGraph *graphForRow(int row) const;
    QCPItemStraightLine *plannedLine() const { return planned_; }
    double plannedSteps() const; // where the planned-N line stands
    // Break-even step counts that are drawn (finite and past step 1), one per crossing.
    QVector<double> crossings() const { return crossings_; }
    // The unelided legend name of a row's line (legend entries elide long configuration names).
    QString fullName(int row) const;
    // The full name of the legend entry under `pos` (plot pixels), empty elsewhere.
    QString legendToolTipAt(const QPointF &pos) const;

  protected:
    void rebuild() override;

  private:
    QVector<QCPGraph *> rowGraphs_;
    QVector<double> crossings_;
    QHash<int, QString> fullNames_; // by ledger row
    QCPItemStraightLine *planned_ = nullptr;
};

} // namespace stepscope::ui
