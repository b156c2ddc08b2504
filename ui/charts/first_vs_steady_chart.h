#pragma once
// What each configuration costs up front against what it costs per step: the first step (seconds,
// logarithmic left axis, because compile and autotuning put it anywhere from 0.3 s to minutes) and
// the steady-state step (ms, linear right axis) as a pair of bars per configuration. Configurations
// without a figure leave a gap and say why in their label.
#include "charts/ledger_chart.h"

#include <QStringList>

class QCPAxis;
class QCPBars;

namespace stepscope::ui
{

class FirstVsSteadyChart : public LedgerChart
{
    Q_OBJECT
  public:
    explicit FirstVsSteadyChart(QWidget *parent = nullptr);

    QCPAxis *firstStepAxis() const; // left, logarithmic, seconds
    QCPAxis *steadyAxis() const;    // right, linear, ms
    QCPBars *firstStepBars() const { return firstBars_; }
    QCPBars *steadyBars() const { return steadyBars_; }
    // The x axis' labels in row order, with suffixes such as "(failed: out-of-memory)".
    QStringList configurationLabels() const { return labels_; }

  protected:
    void rebuild() override;

  private:
    QCPBars *firstBars_ = nullptr;
    QCPBars *steadyBars_ = nullptr;
    QStringList labels_;
};

} // namespace stepscope::ui
