#include "charts/batch_scan_chart.h"

#include "models/figure_text.h"
#include "charts/chart_palette.h"
#include "models/ledger_model.h"

#include "charts/qcustomplot_compat.h"

#include <cmath>

namespace stepscope::ui
{

BatchScanChart::BatchScanChart(QWidget *parent) : LedgerChart(parent)
{
    QCustomPlot *p = plot();
    // Short axis titles (issue 35.4): the long one was cut at the Why page's height; what the point
    // labels are goes with the x axis, which has the width.
    p->xAxis->setLabel(tr("batch size (point labels: GPU busy share)"));
    p->yAxis->setLabel(tr("µs per image (steady)"));
    p->xAxis->setScaleType(QCPAxis::stLogarithmic);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    p->xAxis->setTicker(ticker);
    moveLegendBelow(3); // under the axis rect: inside, it covered the points
    rebuild();
}

void BatchScanChart::rebuild()
{
    QCustomPlot *p = plot();
    p->clearGraphs();
    p->clearItems();
    lines_ = 0;
    static const report::BatchScan empty;
    const report::BatchScan &scan = model() ? model()->batchScan() : empty;
    auto ticker = qSharedPointerCast<QCPAxisTickerText>(p->xAxis->ticker());
    ticker->clear();
    for (const int b : scan.batches)
        ticker->addTick(b, QString::number(b));
    double top = 0;
    for (std::size_t i = 0; i < scan.rows.size(); ++i) {
        const auto &row = scan.rows[i];
        QCPGraph *g = p->addGraph();
        g->setName(shortAxisLabel(QString::fromStdString(row.label)));
        const QColor color = chartSeriesColor(int(i), palette());
        g->setPen(QPen(color, 2));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, 7));
        for (const auto &cell : row.cells) {
            if (!cell.perImageMs)
                continue;
            const double us = *cell.perImageMs * 1000.0;
            g->addData(cell.batch, us);
            top = std::max(top, us);
            if (cell.busyShare) {
                auto *text = new QCPItemText(p);
                text->position->setCoords(cell.batch, us);
                text->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
                text->setText(QStringLiteral(" %1%").arg(std::lround(*cell.busyShare * 100)));
                text->setColor(color);
            }
        }
        ++lines_;
    }
    if (!scan.batches.empty())
        p->xAxis->setRange(scan.batches.front() / 1.3, scan.batches.back() * 1.5);
    p->yAxis->setRange(0, top > 0 ? top * 1.15 : 1);
    p->legend->setVisible(lines_ > 0);
    requestReplot();
}

} // namespace stepscope::ui
