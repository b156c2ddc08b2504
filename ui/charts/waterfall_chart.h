#pragma once
// The ledger as a waterfall: the first bar is the baseline's steady step, and each next bar floats
// from the steady step of the row it stands on to its own (21.4 -> 17.6 -> 11.1 ms ...), green when
// it got faster, red when slower, labelled with the change and the new level. The row a bar stands
// on is its parent (report/waterfall.h): the earlier row it differs from by one knob, one value of a
// knob or the runtime, so that a Python row or a second compile mode never takes the effect of a
// change it does not make. A bar whose parent is not the bar just before starts a branch of its own:
// a dotted line from the parent's bar at its level and "from <parent>" above it. A row without a steady state
// (failed, never settled) leaves a marked gap; a row whose parent has none stands on the axis as a
// level of its own. Each level carries its process-level 95% CI as a whisker where the ledger has one;
// a change whose interval contains zero says "n.s.". Where the bars stand too close for their labels
// (a long sweep in a report's 760 px), the labels turn upright and the value axis grows to keep them
// inside the plot.
#include "charts/ledger_chart.h"

#include <QString>
#include <QVector>

#include <optional>

class QCPBars;
class QCPItemLine;
class QCPItemText;

namespace stepscope::ui
{

class WaterfallChart : public LedgerChart
{
    Q_OBJECT
  public:
    struct Step {
        int row = 0; // ledger row
        // The axis label: the change from the parent ("+bf16", "native -> python"), else the row's own.
        QString label;
        int parentRow = -1;  // the ledger row it stands on (report::WaterfallStep::parent), -1 for none
        bool branch = false; // the parent is not the row just before
        double fromMs = 0;   // the parent's level; 0 when it has none (the baseline, after a gap)
        double toMs = 0;
        bool hasFrom = false;                    // the parent has a steady state: the bar is a change
        bool significant = true;                 // false: the change's 95% CI contains zero
        std::optional<double> ciLowMs, ciHighMs; // the level's 95% CI over processes
        double deltaMs() const { return toMs - fromMs; }
    };

    explicit WaterfallChart(QWidget *parent = nullptr);

    int barCount() const { return int(steps_.size()); }
    const QVector<Step> &steps() const { return steps_; }
    QCPBars *bar(int index) const { return bars_.value(index); }
    // The CI whisker of bar `index`, nullptr without an interval.
    QCPItemLine *whisker(int index) const { return whiskers_.value(index); }
    // Ledger rows left as gaps (no steady state), in order.
    const QVector<int> &gapRows() const { return gaps_; }
    // The change-and-level label above bar `index`.
    QCPItemText *label(int index) const { return labels_.value(index); }
    // The dotted line from the parent's bar to a branch's bar `index`, nullptr for another bar.
    QCPItemLine *branchStub(int index) const { return stubs_.value(index); }

  protected:
    void rebuild() override;

  private:
    // Once the axis rect has its size: labels upright when a slot is narrower than the widest label.
    void fitLabels();

    QVector<Step> steps_;
    QVector<QCPItemText *> labels_;
    QVector<QCPBars *> bars_;
    QVector<QCPItemLine *> whiskers_;
    QVector<QCPItemLine *> stubs_;
    QVector<int> gaps_;
    double headroomUpper_ = 1.0; // the value axis's top with side-by-side labels
    double fittedUpper_ = 1.0;   // the top fitLabels last set (another one is the user's zoom)
};

} // namespace stepscope::ui
