#include "charts/run_overlay_chart.h"

#include "models/figure_text.h"
#include "charts/chart_palette.h"

#include "charts/qcustomplot_compat.h"
#include "report/run_summary.h"
#include "store/store.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stepscope::ui
{
namespace
{

double median(std::vector<double> values)
{
    values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }),
                 values.end());
    if (values.empty())
        return std::numeric_limits<double>::quiet_NaN();
    const auto mid = values.begin() + std::ptrdiff_t(values.size() / 2);
    std::nth_element(values.begin(), mid, values.end());
    if (values.size() % 2)
        return *mid;
    return (*mid + *std::max_element(values.begin(), mid)) / 2;
}

} // namespace

RunSeries runSeriesOf(const store::Reader &reader, std::int64_t runId, const QString &name, int colorIndex)
{
    RunSeries series;
    series.colorIndex = colorIndex;
    const auto run = reader.run(runId);
    if (!run)
        return series;
    series.name =
        name.isEmpty() ? QStringLiteral("%1 (run %2)").arg(QString::fromStdString(run->configName)).arg(runId) : name;
    const auto steps = reader.steps(runId);
    std::int64_t last = 0;
    for (const auto &step : steps)
        last = std::max(last, step.index);
    series.ms.fill(std::numeric_limits<double>::quiet_NaN(), int(last)); // a missing step is a gap, not a zero
    for (const auto &step : steps)
        if (step.index >= 1)
            series.ms[int(step.index - 1)] = step.gpuMs ? *step.gpuMs : step.wallMs;
    const store::RunSummary summary = report::summaryOf(reader, *run);
    if (report::hasSteadyState(summary)) {
        series.steadyFirst = int(summary.steadyBegin);
        series.steadyLast = int(summary.steadyBegin + summary.steadyCount - 1);
    }
    return series;
}

OverlayRuns prepareOverlay(QVector<RunSeries> runs)
{
    OverlayRuns out;
    // The y range from the steady steps of every run (99th percentile of steps 2..n where no window
    // is known): step 1 is often a hundred times the rest and would flatten every line.
    std::vector<double> pooled;
    for (const RunSeries &run : runs) {
        out.lastStep = std::max(out.lastStep, double(run.ms.size()));
        const int from = run.steadyFirst > 0 ? run.steadyFirst : 2;
        const int to = run.steadyLast > 0 ? run.steadyLast : int(run.ms.size());
        for (int step = std::max(from, 2); step <= std::min(to, int(run.ms.size())); ++step)
            if (std::isfinite(run.ms[step - 1]))
                pooled.push_back(run.ms[step - 1]);
    }
    if (!pooled.empty()) {
        const auto at = pooled.begin() + std::ptrdiff_t(std::floor(0.99 * double(pooled.size() - 1)));
        std::nth_element(pooled.begin(), at, pooled.end());
        out.top = *at * 1.35;
    }
    for (const RunSeries &run : runs) {
        auto steps = QSharedPointer<QCPGraphDataContainer>::create();
        QVector<QCPGraphData> points;
        points.reserve(run.ms.size());
        for (int i = 1; i < run.ms.size(); ++i)
            points.append(QCPGraphData(i + 1, run.ms[i]));
        steps->set(points, true);
        out.steps.append(steps);
        double level = std::numeric_limits<double>::quiet_NaN();
        if (run.steadyFirst > 0 && run.steadyLast >= run.steadyFirst && run.steadyLast <= run.ms.size())
            level =
                median(std::vector<double>(run.ms.begin() + (run.steadyFirst - 1), run.ms.begin() + run.steadyLast));
        out.medians.append(level);
    }
    out.runs = std::move(runs);
    return out;
}

RunOverlayChart::RunOverlayChart(QWidget *parent) : ChartWidget(parent)
{
    useStepAxes();
    moveLegendBelow(3); // a legend inside would cover the lines
    rebuild();
}

void RunOverlayChart::setRuns(OverlayRuns prepared)
{
    assertUiThread();
    Q_ASSERT(prepared.steps.size() == prepared.runs.size() && prepared.medians.size() == prepared.runs.size());
    shown_ = std::move(prepared);
    rebuild();
    requestReplot();
}

void RunOverlayChart::paletteChanged()
{
    rebuild();
}

void RunOverlayChart::rebuild()
{
    QCustomPlot *p = plot();
    p->clearPlottables();
    p->clearItems();
    steps_.clear();
    firsts_.clear();
    bars_.clear();

    const QPalette &pal = palette();
    const ChartColors colors = chartColors(pal);
    const double top = shown_.top;

    for (int k = 0; k < shown_.runs.size(); ++k) {
        const RunSeries &run = shown_.runs[k];
        const QColor color = chartSeriesColor(run.colorIndex >= 0 ? run.colorIndex : k, pal);

        QCPGraph *line = p->addGraph();
        line->setName(run.name);
        line->setData(shown_.steps[k]); // shared, not copied
        line->setAdaptiveSampling(true);
        QColor thin = color;
        thin.setAlpha(170); // overlapping runs stay visible through each other
        line->setPen(QPen(thin, 1));
        steps_.append(line);

        // Step 1 at its time when it fits, else pinned under the top edge with its time as a label.
        QCPGraph *first = p->addGraph();
        first->removeFromLegend();
        first->setLineStyle(QCPGraph::lsNone);
        first->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, colors.text, color, 9));
        if (!run.ms.isEmpty() && std::isfinite(run.ms[0])) {
            const bool offScale = run.ms[0] > top;
            first->setData({1.0}, {offScale ? top * 0.97 : run.ms[0]}, true);
            if (offScale) {
                auto *note = new QCPItemText(p);
                note->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
                note->setPadding(QMargins(8, 0, 0, 0));
                note->position->setCoords(1, top * (0.97 - 0.05 * k)); // one under the other
                note->setText(tr("step 1: %1").arg(formatStepMs(run.ms[0])));
                note->setColor(color.darker(colors.dark ? 100 : 115));
            }
        }
        firsts_.append(first);

        // The steady window: a thick bar at its median, from its first to its last step.
        QCPItemLine *bar = nullptr;
        const double level = shown_.medians[k];
        if (std::isfinite(level)) {
            bar = new QCPItemLine(p);
            bar->start->setCoords(run.steadyFirst, level);
            bar->end->setCoords(run.steadyLast, level);
            bar->setPen(QPen(color.darker(colors.dark ? 90 : 125), 4, Qt::SolidLine, Qt::FlatCap));
            bar->setHead(QCPLineEnding(QCPLineEnding::esBar, 12));
            bar->setTail(QCPLineEnding(QCPLineEnding::esBar, 12));
        }
        bars_.append(bar);
    }

    p->xAxis->setRange(0, std::max(10.0, shown_.lastStep * 1.02 + 1));
    p->yAxis->setRange(0, top);
}

} // namespace stepscope::ui
