#pragma once
// The cumulative ledger as a waterfall: the first bar is the baseline's steady step, each next bar
// floats from the previous configuration's steady step to its own (21.4 -> 17.6 -> 11.1 ms ...),
// green when it got faster, red when slower, labelled with the change. A knob's effect is drawn only
// between two neighbouring rows that both have a steady state: a row without one (failed, never
// settled) leaves a marked gap, and the row after it stands on the axis as a level of its own, so
// its bar never takes the skipped knob's effect. Each level carries its process-level 95% CI as a
// whisker where the ledger has one. Where the bars stand too close for their labels (a long sweep in
// a report's 760 px), the labels turn upright and the value axis grows to keep them inside the plot.
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
        QString label;
        double fromMs = 0; // the previous row's level; 0 when there is none (first bar, after a gap)
        double toMs = 0;
        bool hasFrom = false;                    // the previous ledger row has a steady state: the bar is a change
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

  protected:
    void rebuild() override;

  private:
    // Once the axis rect has its size: labels upright when a slot is narrower than the widest label.
    void fitLabels();

    QVector<Step> steps_;
    QVector<QCPItemText *> labels_;
    QVector<QCPBars *> bars_;
    QVector<QCPItemLine *> whiskers_;
    QVector<int> gaps_;
    double headroomUpper_ = 1.0; // the value axis's top with side-by-side labels
    double fittedUpper_ = 1.0;   // the top fitLabels last set (another one is the user's zoom)
};

} // namespace stepscope::ui
