#pragma once
// The cumulative ledger as a waterfall: the first bar is the baseline's steady step, each next bar
// floats from the previous configuration's steady step to its own (21.4 -> 17.6 -> 11.1 ms ...),
// green when it got faster, red when slower, labelled with the change. Configurations without a
// steady state are left out: there is nothing to step from or to.
#include "charts/ledger_chart.h"

#include <QString>
#include <QVector>

class QCPBars;

namespace stepscope::ui
{

class WaterfallChart : public LedgerChart
{
    Q_OBJECT
  public:
    struct Step {
        int row = 0; // ledger row
        QString label;
        double fromMs = 0; // 0 for the first bar
        double toMs = 0;
        double deltaMs() const { return toMs - fromMs; }
    };

    explicit WaterfallChart(QWidget *parent = nullptr);

    int barCount() const { return steps_.size(); }
    const QVector<Step> &steps() const { return steps_; }
    QCPBars *bar(int index) const { return bars_.value(index); }

  protected:
    void rebuild() override;

  private:
    QVector<Step> steps_;
    QVector<QCPBars *> bars_;
};

} // namespace stepscope::ui
