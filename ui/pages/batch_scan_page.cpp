#include "pages/batch_scan_page.h"

#include "charts/batch_scan_chart.h"
#include "models/ledger_model.h"

#include <QLabel>
#include <QVBoxLayout>

namespace stepscope::ui
{

BatchScanPage::BatchScanPage(LedgerModel *ledger, QWidget *parent)
    : Page(parent), ledger_(ledger), verdict_(new QLabel), chart_(new BatchScanChart)
{
    chart_->setModel(ledger);
    verdict_->setObjectName(QStringLiteral("batchScanVerdict"));
    verdict_->setWordWrap(true);
    verdict_->setTextFormat(Qt::RichText);
    verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    verdict_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    verdict_->setStyleSheet(QStringLiteral("QLabel { padding: 6px; }"));
    // The words take the height they need (two lines a configuration) and the chart the rest: in a
    // splitter or a scroll area they were cut to a line at 1280x720.
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(verdict_, 0);
    layout->addWidget(chart_, 1);
    connect(ledger_, &QAbstractItemModel::modelReset, this, &BatchScanPage::showVerdict);
    showVerdict();
}

QCustomPlot *BatchScanPage::chart() const
{
    return chart_->plot();
}

bool BatchScanPage::hasScan() const
{
    return ledger_->batchScan().batches.size() > 1;
}

QString BatchScanPage::verdictText() const
{
    return verdict_->text();
}

void BatchScanPage::showVerdict()
{
    const report::BatchScan &scan = ledger_->batchScan();
    chart_->setVisible(hasScan());
    if (!hasScan()) {
        verdict_->setText(ledger_->ledger().rows.empty()
                              ? tr("No sweep shown.")
                              : tr("This sweep measured one batch: there is nothing to compare across batches. "
                                   "A sweep of several (Batch scan in the panel, or <tt>--batch 16,32,64</tt>) "
                                   "is read here."));
        Q_EMIT scanChanged(false);
        return;
    }
    QStringList batches;
    for (const int b : scan.batches)
        batches << QStringLiteral("b%1").arg(b);
    QString html = tr("<p>Each configuration at batches %1: the steady step per sample with its 95% CI over cold "
                      "processes, which batch is fastest per sample and the first step at each batch.</p>")
                       .arg(batches.join(QStringLiteral(", ")));
    html += QStringLiteral("<ul style=\"margin-left: 0px; -qt-list-indent: 1;\">");
    for (const report::BatchVerdict &v : scan.verdicts)
        html += QStringLiteral("<li><b>%1</b>: %2.<br/>%3.</li>")
                    .arg(QString::fromStdString(v.label).toHtmlEscaped(),
                         QString::fromStdString(report::batchVerdictHeadline(v)).toHtmlEscaped(),
                         QString::fromStdString(report::batchVerdictFigures(v)).toHtmlEscaped());
    html += QStringLiteral("</ul>");
    verdict_->setText(html);
    Q_EMIT scanChanged(true);
}

} // namespace stepscope::ui
