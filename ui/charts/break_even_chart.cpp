#include "charts/break_even_chart.h"

#include "charts/chart_format.h"
#include "charts/chart_palette.h"
#include "models/ledger_model.h"

#include "charts/qcustomplot_compat.h"

#include <QFontMetrics>
#include <QMouseEvent>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>

namespace stepscope::ui
{
namespace
{

constexpr int kSamples = 256; // per line, spaced evenly on the log axis
// A legend entry's configuration part at most this wide: compiled configurations are named by
// every knob ("tf32+cudnn-bench+bf16+channels-last+compile-reduce-overhead+warm-cache"), and a
// legend that wide would cover the lines. Elided in the middle, so the distinguishing tail (the
// compile mode, the cache state) stays; the full name is the entry's tooltip.
constexpr int kLegendNamePixels = 300;

double cumulativeSeconds(const report::LedgerRow &row, double steps)
{
    return *row.firstStepS + (steps - 1) * *row.steadyMs / 1000.0;
}

bool hasLine(const report::LedgerRow &row)
{
    return row.firstStepS && row.steadyMs && *row.firstStepS > 0 && *row.steadyMs > 0;
}

void useLogScale(QCPAxis *axis, const QString &label)
{
    axis->setScaleType(QCPAxis::stLogarithmic);
    auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
    ticker->setLogBase(10);
    ticker->setSubTickCount(8);
    axis->setTicker(ticker);
    axis->setNumberFormat(QStringLiteral("g"));
    axis->setNumberPrecision(6);
    axis->setLabel(label);
}

} // namespace

BreakEvenChart::BreakEvenChart(QWidget *parent) : LedgerChart(parent)
{
    QCustomPlot *p = plot();
    useLogScale(p->xAxis, tr("steps (log scale)"));
    useLogScale(p->yAxis, tr("cumulative time (s, log scale)"));
    p->legend->setVisible(true);
    // Lines start flat at the left and climb to the right: the top left corner stays empty.
    p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    connect(p, &QCustomPlot::mouseMove, this, [this](QMouseEvent *event) {
        const QString text = legendToolTipAt(event->position());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(event->globalPosition().toPoint(), text, plot());
    });
    rebuild();
}

QString BreakEvenChart::legendToolTipAt(const QPointF &pos) const
{
    const QCustomPlot *p = plot();
    if (!p->legend->visible())
        return {};
    for (int i = 0; i < rowGraphs_.size(); ++i) {
        QCPGraph *graph = rowGraphs_[i];
        if (!graph)
            continue;
        if (auto *item = p->legend->itemWithPlottable(graph); item && item->rect().contains(pos.toPoint()))
            return fullNames_.value(i);
    }
    return {};
}

QString BreakEvenChart::fullName(int row) const
{
    return fullNames_.value(row);
}

QCPGraph *BreakEvenChart::graphForRow(int row) const
{
    return row >= 0 && row < rowGraphs_.size() ? rowGraphs_[row] : nullptr;
}

double BreakEvenChart::plannedSteps() const
{
    return planned_ ? planned_->point1->key() : 0;
}

void BreakEvenChart::rebuild()
{
    QCustomPlot *p = plot();
    p->clearPlottables();
    p->clearItems();
    rowGraphs_.clear();
    crossings_.clear();
    fullNames_.clear();
    planned_ = nullptr;

    const QPalette &pal = palette();
    const ChartColors colors = chartColors(pal);
    const std::vector<report::LedgerRow> empty;
    const auto &rows = model() ? model()->ledger().rows : empty;
    const double planned = model() ? double(model()->plannedSteps()) : 0;
    const auto &recommendation = model() ? model()->ledger().recommendation : std::nullopt;
    rowGraphs_.fill(nullptr, int(rows.size()));

    double largestCrossing = 0;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const auto &n = rows[i].breakEvenSteps;
        if (n && std::isfinite(*n))
            largestCrossing = std::max(largestCrossing, *n);
    }
    const double xMax = std::max({2 * planned, largestCrossing * 1.2, 10.0});

    QVector<double> keys(kSamples);
    for (int k = 0; k < kSamples; ++k)
        keys[k] = std::pow(xMax, double(k) / (kSamples - 1)); // 1 .. xMax

    double yLow = std::numeric_limits<double>::infinity(), yHigh = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const report::LedgerRow &row = rows[i];
        if (!hasLine(row))
            continue;
        QVector<double> values(kSamples);
        for (int k = 0; k < kSamples; ++k)
            values[k] = cumulativeSeconds(row, keys[k]);
        QCPGraph *graph = p->addGraph();
        graph->setData(keys, values, true);

        const QString label = QString::fromStdString(row.label.empty() ? row.configName : row.label);
        QString suffix;
        if (i == 0 && label != QLatin1String("baseline"))
            suffix += tr(" (baseline)");
        else if (!row.breakEvenSteps && row.speedup)
            suffix += tr(" (never pays off)");
        else if (row.breakEvenSteps && *row.breakEvenSteps <= 1)
            suffix += tr(" (ahead from step 1)");
        const bool best = recommendation && recommendation->best == i;
        if (best)
            suffix += tr(" \u2605 best for N");
        const QFontMetrics metrics(p->legend->font());
        graph->setName(metrics.elidedText(label, Qt::ElideMiddle, kLegendNamePixels) + suffix);
        fullNames_.insert(int(i), label + suffix);
        // Row index, not line index, picks the colour: a configuration keeps it across charts and sweeps.
        graph->setPen(QPen(chartSeriesColor(int(i), pal), best ? 3.0 : 1.8));
        rowGraphs_[int(i)] = graph;
        yLow = std::min(yLow, *row.firstStepS);
        yHigh = std::max(yHigh, values.last());
    }

    // The x range first: where a crossing's label goes depends on where the point lands.
    p->xAxis->setRange(1, xMax);

    // Crossings with the baseline, at the ledger's own break-even figure (one computation for all views).
    struct Crossing {
        std::size_t row;
        double steps;
    };
    std::vector<Crossing> crossings;
    if (!rows.empty() && hasLine(rows[0])) {
        for (std::size_t i = 1; i < rows.size(); ++i) {
            const auto &n = rows[i].breakEvenSteps;
            // At n <= 1 the configuration is ahead from the first step: the lines never cross at n >= 1.
            if (rowGraphs_[int(i)] && n && std::isfinite(*n) && *n > 1)
                crossings.push_back({i, *n});
        }
    }
    // Break-even points cluster (several knobs share an up-front cost): labels close on the log
    // axis stack upwards, above the flat start of the lines, instead of printing over each other.
    std::vector<std::size_t> order(crossings.size());
    for (std::size_t k = 0; k < order.size(); ++k)
        order[k] = k;
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return crossings[a].steps < crossings[b].steps; });
    std::vector<int> tier(crossings.size(), 0);
    for (std::size_t k = 1; k < order.size(); ++k) {
        const bool near = crossings[order[k]].steps < crossings[order[k - 1]].steps * 1.8;
        tier[order[k]] = near ? tier[order[k - 1]] + 1 : 0;
    }
    for (std::size_t k = 0; k < crossings.size(); ++k) {
        const auto [i, n] = crossings[k];
        const double t = cumulativeSeconds(rows[0], n);
        const QColor color = chartSeriesColor(int(i), pal);

        auto *dot = new QCPItemTracer(p);
        dot->setGraph(nullptr);
        dot->position->setCoords(n, t);
        dot->setStyle(QCPItemTracer::tsCircle);
        dot->setSize(8);
        dot->setPen(QPen(colors.text, 1));
        dot->setBrush(color);

        auto *label = new QCPItemText(p);
        label->position->setCoords(n, t);
        // Left of the point reads best, but a crossing in the first few steps would put its label
        // outside the axis rect: those go to the right.
        // Judged on the log axis, not in pixels: the axis rect has no geometry before the first replot.
        const bool nearLeftEdge = std::log(n) / std::log(xMax) < 0.12;
        label->setPositionAlignment((nearLeftEdge ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignBottom);
        label->setPadding(nearLeftEdge ? QMargins(6, 0, 0, 6 + 15 * tier[k]) : QMargins(0, 0, 6, 6 + 15 * tier[k]));
        // With its process-level interval where there is one; a single run has none to show.
        const auto &ci = rows[i].breakEvenCI;
        QString text = tr("%1 steps").arg(formatStepCount(n));
        if (ci && ci->hasInterval)
            text += QStringLiteral(" [%1]").arg(QString::fromStdString(rows[i].breakEvenRange));
        label->setText(text);
        label->setColor(color);
        crossings_.append(n);
    }

    if (planned > 0 && p->graphCount() > 0) {
        planned_ = new QCPItemStraightLine(p);
        for (QCPItemPosition *point : {planned_->point1, planned_->point2}) {
            point->setTypeX(QCPItemPosition::ptPlotCoords);
            point->setTypeY(QCPItemPosition::ptAxisRectRatio);
        }
        planned_->point1->setCoords(planned, 0);
        planned_->point2->setCoords(planned, 1);
        planned_->setPen(QPen(colors.text, 1, Qt::DashLine));

        auto *label = new QCPItemText(p);
        label->position->setTypeX(QCPItemPosition::ptPlotCoords);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(planned, 0.98);
        label->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
        label->setPadding(QMargins(0, 0, 6, 0));
        label->setText(tr("planned N = %1").arg(formatStepCount(planned)));
        label->setColor(colors.text);
    }

    if (yHigh > 0)
        p->yAxis->setRange(yLow * 0.7, yHigh * 1.5);
    else
        p->yAxis->setRange(0.1, 1000);
}

} // namespace stepscope::ui
