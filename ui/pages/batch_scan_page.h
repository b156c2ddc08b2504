#pragma once
// The Batch scan tab (issue 35.4): a sweep that ran several batch sizes read across them. Above, the
// verdict in words for each configuration (report/batch_scan_verdict.h: which batch is fastest per
// sample, with its interval, and the first step at each batch); below, the chart of the time per
// image against the batch at full size. It reads the ledger model's BatchScan, computed with the
// ledger on its worker; a sweep of one batch has nothing to show here, and SweepPages hides the tab.
#include "pages/page.h"

class QLabel;

namespace stepscope::ui
{

class BatchScanChart;
class LedgerModel;

class BatchScanPage : public Page
{
    Q_OBJECT
  public:
    // `ledger` is not owned and outlives the page.
    explicit BatchScanPage(LedgerModel *ledger, QWidget *parent = nullptr);

    QString title() const override { return tr("Batch sca&n"); }
    QString key() const override { return QStringLiteral("batch-scan"); }
    QCustomPlot *chart() const override;

    // The shown sweep scanned more than one batch.
    bool hasScan() const;
    // The verdict as the page shows it (rich text), or the line that says there is no scan.
    QString verdictText() const;
    BatchScanChart *scanChart() const { return chart_; }

  Q_SIGNALS:
    // The model's sweep changed whether it is a scan (the tab is shown for a scan only).
    void scanChanged(bool hasScan);

  private:
    void showVerdict();

    LedgerModel *ledger_;
    QLabel *verdict_;
    BatchScanChart *chart_;
};

} // namespace stepscope::ui
