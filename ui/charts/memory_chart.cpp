#include "charts/memory_chart.h"

#include "charts/chart_palette.h"

#include "charts/qcustomplot_compat.h"

#include <algorithm>

namespace stepscope::ui
{
namespace
{
constexpr double kMiB = 1024.0 * 1024.0;
} // namespace

MemoryChart::MemoryChart(QWidget *parent) : ChartWidget(parent)
{
    setTitle(tr("Memory over one step"));
    plot()->yAxis->setLabel(tr("MiB"));
    moveLegendBelow(2);
    rebuild();
}

void MemoryChart::setTimeline(const std::optional<profile::MemoryTimeline> &timeline)
{
    assertUiThread();
    timeline_ = timeline;
    rebuild();
}

void MemoryChart::rebuild()
{
    QCustomPlot *p = plot();
    p->clearPlottables();
    p->clearItems();
    allocated_.clear();
    reserved_.clear();
    allocatedGraph_ = p->addGraph();
    reservedGraph_ = p->addGraph();
    // Each level holds until the next event: steps, not lines between events.
    allocatedGraph_->setLineStyle(QCPGraph::lsStepLeft);
    reservedGraph_->setLineStyle(QCPGraph::lsStepLeft);
    allocatedGraph_->setName(tr("allocated"));
    reservedGraph_->setName(tr("reserved"));
    QVector<double> x;
    double top = 0, right = 0;
    if (timeline_) {
        for (const profile::MemoryPoint &point : timeline_->points) {
            x << point.x;
            allocated_ << double(point.allocated) / kMiB;
            reserved_ << double(point.reserved) / kMiB;
            top = std::max({top, allocated_.back(), reserved_.back()});
            right = std::max(right, point.x);
        }
        allocatedGraph_->setData(x, allocated_, true);
        reservedGraph_->setData(x, reserved_, true);
        p->xAxis->setLabel(timeline_->timeAxis ? tr("ms into the step") : tr("allocator event"));
        // The peak the block list below is taken at.
        const auto peak = std::max_element(allocated_.cbegin(), allocated_.cend());
        if (peak != allocated_.cend()) {
            auto *text = new QCPItemText(p);
            text->position->setType(QCPItemPosition::ptPlotCoords);
            text->position->setAxes(p->xAxis, p->yAxis);
            text->position->setCoords(x[int(peak - allocated_.cbegin())], *peak);
            text->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
            text->setText(tr("peak %1 MiB").arg(*peak, 0, 'f', 1));
            text->setColor(palette().color(QPalette::WindowText));
        }
    }
    p->xAxis->setRange(0, right > 0 ? right : 1);
    p->yAxis->setRange(0, top > 0 ? top * 1.15 : 1);
    p->legend->setVisible(timeline_.has_value());
    paletteChanged();
    requestReplot();
}

void MemoryChart::paletteChanged()
{
    if (!allocatedGraph_)
        return;
    allocatedGraph_->setPen(QPen(chartSeriesColor(0, palette()), 2));
    reservedGraph_->setPen(QPen(chartSeriesColor(1, palette()), 1.5, Qt::DashLine));
    for (int i = 0; i < plot()->itemCount(); ++i)
        if (auto *text = qobject_cast<QCPItemText *>(plot()->item(i)))
            text->setColor(palette().color(QPalette::WindowText));
}

} // namespace stepscope::ui
