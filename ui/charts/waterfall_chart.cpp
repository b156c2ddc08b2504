#include "charts/waterfall_chart.h"

#include "charts/chart_format.h"
#include "charts/chart_palette.h"
#include "models/ledger_model.h"

#include "charts/qcustomplot_compat.h"

#include <algorithm>

namespace stepscope::ui
{
namespace
{

constexpr double kBarWidth = 0.6;

} // namespace

WaterfallChart::WaterfallChart(QWidget *parent) : LedgerChart(parent)
{
    QCustomPlot *p = plot();
    p->yAxis->setLabel(tr("steady-state step (ms)"));
    p->xAxis->grid()->setVisible(false);
    p->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    rebuild();
}

void WaterfallChart::rebuild()
{
    QCustomPlot *p = plot();
    p->clearPlottables();
    p->clearItems();
    steps_.clear();
    bars_.clear();

    const std::vector<report::LedgerRow> empty;
    const auto &rows = model() ? model()->ledger().rows : empty;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (!rows[i].steadyMs)
            continue;
        Step step;
        step.row = int(i);
        step.label = shortAxisLabel(QString::fromStdString(
            rows[i].axisLabel.empty() ? (rows[i].label.empty() ? rows[i].configName : rows[i].label)
                                      : rows[i].axisLabel));
        step.fromMs = steps_.isEmpty() ? 0.0 : steps_.last().toMs;
        step.toMs = *rows[i].steadyMs;
        steps_.append(step);
    }

    const ChartColors colors = chartColors(palette());
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    double top = 0;
    for (int i = 0; i < steps_.size(); ++i) {
        const Step &step = steps_[i];
        const double low = std::min(step.fromMs, step.toMs);
        const double high = std::max(step.fromMs, step.toMs);
        const QColor color = i == 0 ? colors.neutral : (step.toMs <= step.fromMs ? colors.faster : colors.slower);

        // One QCPBars per bar: a bar floats on its own base value, which QCPBars holds per plottable.
        auto *bars = new QCPBars(p->xAxis, p->yAxis);
        bars->removeFromLegend();
        bars->setWidth(kBarWidth);
        bars->setBaseValue(low);
        bars->addData(i, high - low);
        bars->setPen(QPen(color.darker(125), 1));
        bars->setBrush(color);
        bars_.append(bars);
        ticker->addTick(i, step.label);
        top = std::max(top, high);

        auto *label = new QCPItemText(p);
        label->position->setCoords(i, high);
        label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        label->setPadding(QMargins(0, 0, 0, 3));
        label->setText(i == 0 ? formatStepMs(step.toMs)
                              : formatDeltaMs(step.deltaMs()) + QStringLiteral("\n") + formatStepMs(step.toMs));
        label->setColor(i == 0 ? colors.text : color);

        // The connector carries the eye from one bar's end to where the next one starts.
        if (i + 1 < steps_.size()) {
            auto *connector = new QCPItemLine(p);
            connector->start->setCoords(i + kBarWidth / 2, step.toMs);
            connector->end->setCoords(i + 1 - kBarWidth / 2, step.toMs);
            connector->setPen(QPen(colors.grid, 1, Qt::DashLine));
        }
    }
    p->xAxis->setTicker(ticker);
    p->xAxis->setTickLabelRotation(steps_.size() > 5 ? 30 : 0);
    QStringList labels;
    for (const Step &step : steps_)
        labels << step.label;
    reserveRoomForTickLabels(labels, p->xAxis->tickLabelRotation());
    p->xAxis->setRange(-0.6, std::max(1, int(steps_.size())) - 0.4);
    p->yAxis->setRange(0, top > 0 ? top * 1.2 : 1.0);
}

} // namespace stepscope::ui
