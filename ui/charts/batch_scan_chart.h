#pragma once
// The verdict across batch sizes (issue 18.5), on the Batch scan page: step time per image
// against the batch (log2 axis), one line per configuration, each point labelled with the GPU's
// busy share, so a user sees where launch-bound ends (report/why_table.h, BatchScan).
#include "charts/ledger_chart.h"

namespace stepscope::ui
{

class BatchScanChart : public LedgerChart
{
    Q_OBJECT
  public:
    explicit BatchScanChart(QWidget *parent = nullptr);
    int lineCount() const { return lines_; }

  protected:
    void rebuild() override;

  private:
    int lines_ = 0;
};

} // namespace stepscope::ui
