#pragma once
// The Why page's chart (issue 18.2): one horizontal bar per configuration, its timed steady step
// split into GPU busy and GPU waiting (from the run's profile, report/why_table.h), so that a
// launch-bound row is a short dark part in a long bar. Rows without a profile keep their slot.
#include "charts/ledger_chart.h"

#include <QVector>

class QCPBars;

namespace stepscope::ui
{

class WhyChart : public LedgerChart
{
    Q_OBJECT
  public:
    explicit WhyChart(QWidget *parent = nullptr);

    // For tests: the bars' values by row (ms), NaN where the row has no profile.
    QVector<double> busyMs() const { return busy_; }
    QVector<double> waitingMs() const { return waiting_; }

  protected:
    void rebuild() override;

  private:
    void colorBars();

    QCPBars *busyBars_ = nullptr;
    QCPBars *waitingBars_ = nullptr;
    QVector<double> busy_, waiting_;
};

} // namespace stepscope::ui
