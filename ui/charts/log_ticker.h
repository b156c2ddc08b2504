#pragma once
// The ticker of every logarithmic axis of the dashboard. QCPAxisTickerLog labels powers of its base
// alone, so an axis over less than a few decades shows one or two labels (0.3-30 s: "1" and "10"),
// and under 1.6 decades it falls back to a linear ladder that crowds the right end. This one keeps
// at least three labels: powers where they give three, else 1-2-5 in each decade, else finer
// mantissas, and QCPAxisTicker's linear steps only over a range too narrow for any of those.
// Being a ticker, it follows zoom and drag (a fixed tick list would not).
#include "charts/qcustomplot_compat.h"

namespace stepscope::ui
{

class LogTicker : public QCPAxisTickerLog
{
  public:
    LogTicker() { setLogBase(10); }

  protected:
    QVector<double> createTickVector(double tickStep, const QCPRange &range) override;
    int getSubTickCount(double tickStep) override;

  private:
    bool mantissas_ = false; // the last ticks came from a mantissa ladder: no sub ticks between them
};

// A LogTicker for `axis`, which turns logarithmic.
void useLogTicker(QCPAxis *axis);

} // namespace stepscope::ui
