#include "charts/why_chart.h"

#include "models/figure_text.h"
#include "charts/chart_palette.h"
#include "models/ledger_model.h"
#include "report/why_table.h"

#include "charts/qcustomplot_compat.h"

#include <cmath>
#include <limits>

namespace stepscope::ui
{

WhyChart::WhyChart(QWidget *parent) : LedgerChart(parent)
{
    QCustomPlot *p = plot();
    p->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    p->yAxis->grid()->setVisible(false);
    p->yAxis->setRangeReversed(true); // the ledger's first row on top
    moveLegendBelow(2); // inside, at the top right, it covered the verdicts of the upper rows
    rebuild();
}

void WhyChart::rebuild()
{
    QCustomPlot *p = plot();
    p->clearPlottables();
    p->clearItems();
    busy_.clear();
    waiting_.clear();
    busyBars_ = new QCPBars(p->yAxis, p->xAxis);
    waitingBars_ = new QCPBars(p->yAxis, p->xAxis);
    waitingBars_->moveAbove(busyBars_);
    auto ticker = qSharedPointerCast<QCPAxisTickerText>(p->yAxis->ticker());
    ticker->clear();

    const report::Ledger empty;
    const report::Ledger &ledger = model() ? model()->ledger() : empty;
    const auto rows = report::whyRows(ledger);
    // A CPU run has no GPU to be busy: its bars are time inside and outside ATen ops.
    bool cpu = false, gpu = false;
    for (const auto &w : rows)
        if (w.profile)
            (w.profile->device == "cpu" ? cpu : gpu) = true;
    const QString busyName = cpu && !gpu   ? tr("inside ATen")
                             : gpu && !cpu ? tr("GPU busy")
                                           : tr("busy (CPU: inside ATen)");
    const QString waitingName = cpu && !gpu ? tr("outside ATen") : gpu && !cpu ? tr("GPU waiting") : tr("waiting");
    busyBars_->setName(busyName);
    waitingBars_->setName(waitingName);
    p->xAxis->setLabel(tr("timed steady step (ms): %1, then %2").arg(busyName, waitingName));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    double widest = 0;
    for (const auto &w : rows) {
        const auto &r = ledger.rows[w.row];
        ticker->addTick(double(w.row),
                        shortAxisLabel(QString::fromStdString(r.axisLabel.empty() ? r.label : r.axisLabel)));
        if (!w.verdict) {
            busy_ << nan;
            waiting_ << nan;
            continue;
        }
        const double busy = std::min(w.profile->busyMs, w.verdict->stepMs);
        const double waiting = std::max(0.0, w.verdict->stepMs - busy);
        busy_ << busy;
        waiting_ << waiting;
        busyBars_->addData(double(w.row), busy);
        waitingBars_->addData(double(w.row), waiting);
        widest = std::max(widest, busy + waiting);
        auto *text = new QCPItemText(p);
        text->setClipToAxisRect(false);
        text->position->setType(QCPItemPosition::ptPlotCoords);
        text->position->setAxes(p->xAxis, p->yAxis);
        text->position->setCoords(busy + waiting, double(w.row));
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        text->setText(QStringLiteral("  ") + QString::fromUtf8(profile::toString(w.verdict->bound)) +
                      QStringLiteral(", %1% busy").arg(std::lround(w.verdict->busyShare * 100)));
        text->setColor(palette().color(QPalette::WindowText));
    }
    p->yAxis->setRange(-0.6, std::max<double>(0.6, double(rows.size()) - 0.4));
    p->xAxis->setRange(0, widest > 0 ? widest * 1.45 : 1); // room for the verdicts after the bars
    p->legend->setVisible(!rows.empty());
    colorBars();
    requestReplot();
}

// Recoloured on a theme change too: LedgerChart rebuilds then.
void WhyChart::colorBars()
{
    {
        const QColor busy = chartSeriesColor(0, palette());
        QColor waiting = chartSeriesColor(1, palette());
        waiting.setAlpha(150);
        busyBars_->setBrush(busy);
        busyBars_->setPen(busy.darker(120));
        waitingBars_->setBrush(waiting);
        waitingBars_->setPen(waiting.darker(120));
    }
}

} // namespace stepscope::ui
