#include "charts/break_even_chart.h"

#include "charts/chart_format.h"
#include "charts/chart_palette.h"
#include "charts/label_placement.h"
#include "models/ledger_model.h"

#include "charts/qcustomplot_compat.h"
#include "stats/stats.h"

#include <QFontMetrics>
#include <QFontMetricsF>
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
// A legend entry names its line as the other charts' axes do (the knob a row adds to the one before,
// "+bf16"), at most this wide: compiled configurations are named by every knob, and a legend of
// full names took a third of the chart. Elided in the middle, so the distinguishing tail (the
// compile mode, the cache state) stays; the full name is the entry's tooltip.
constexpr int kLegendNamePixels = 220;
// The deciding crossing is drawn when it lies within this many planned runs; beyond that the
// x axis would squeeze everything that matters for N into its left edge.
constexpr double kDecidingReach = 50;
constexpr double kDot = 8;
constexpr double kDecidingRing = 18;

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

QString shortName(const report::LedgerRow &row)
{
    return shortAxisLabel(QString::fromStdString(
        row.axisLabel.empty() ? (row.label.empty() ? row.configName : row.label) : row.axisLabel));
}

QCPItemText *absoluteLabel(QCustomPlot *plot, const QString &text, const QColor &color, const QFont &font,
                           const QBrush &backing)
{
    auto *label = new QCPItemText(plot);
    label->position->setType(QCPItemPosition::ptAbsolute);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    const QMargins padding(3, 1, 3, 1);
    label->setPadding(padding);
    label->setFont(font);
    label->setText(text);
    label->setColor(color);
    label->setBrush(backing); // the lines under a label must not garble it
    const QSizeF size = QFontMetricsF(font).size(0, text);
    label->setProperty("boxSize", QSizeF(std::ceil(size.width()) + padding.left() + padding.right(),
                                         std::ceil(size.height()) + padding.top() + padding.bottom()));
    return label;
}

QSizeF boxSize(const QCPItemText *label)
{
    return label->property("boxSize").toSizeF();
}

} // namespace

BreakEvenChart::BreakEvenChart(QWidget *parent) : LedgerChart(parent)
{
    QCustomPlot *p = plot();
    useLogScale(p->xAxis, tr("steps (log scale)"));
    useLogScale(p->yAxis, tr("cumulative time (s, log scale)"));
    // The legend gets a row of its own under the plot: inside the axis rect it covered a quarter of
    // the lines at 1280 px. Its columns follow the width (arrange()).
    moveLegendBelow(2);
    p->legend->setMargins(QMargins(6, 3, 6, 3));
    p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    connect(p, &QCustomPlot::afterLayout, this, &BreakEvenChart::arrange);
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

QVector<QRectF> BreakEvenChart::crossingLabelRects() const
{
    QVector<QRectF> rects;
    for (const QCPItemText *label : labels_)
        rects.append(QRectF(label->position->pixelPosition(), boxSize(label)));
    return rects;
}

void BreakEvenChart::rebuild()
{
    QCustomPlot *p = plot();
    p->clearPlottables();
    p->clearItems();
    rowGraphs_.clear();
    crossings_.clear();
    intervals_.clear();
    deciding_.reset();
    fullNames_.clear();
    labels_.clear();
    anchors_.clear();
    dots_.clear();
    whiskers_.clear();
    leaders_.clear();
    planned_ = nullptr;
    plannedLabel_ = nullptr;
    decidingMarker_ = nullptr;

    const QPalette &pal = palette();
    const ChartColors colors = chartColors(pal);
    const std::vector<report::LedgerRow> empty;
    const auto &rows = model() ? model()->ledger().rows : empty;
    const double planned = model() ? double(model()->plannedSteps()) : 0;
    const auto &recommendation = model() ? model()->ledger().recommendation : std::nullopt;
    rowGraphs_.fill(nullptr, int(rows.size()));

    // The crossing that decides: where the recommended configuration's line meets the runner-up's,
    // as the ledger computed it (with its own interval, whichever rows the two are).
    const auto &crossing = model() ? model()->ledger().decidingCrossing : std::nullopt;
    if (recommendation && recommendation->runnerUp && crossing) {
        const int b = int(recommendation->best), r = int(*recommendation->runnerUp);
        const bool bestOvertakes = int(crossing->faster) == b;
        if (b < int(rows.size()) && r < int(rows.size()) && hasLine(rows[b]) && hasLine(rows[r]) &&
            crossing->steps <= kDecidingReach * std::max(planned, 10.0)) {
            DecidingCrossing d{b, r, crossing->steps, bestOvertakes, std::nullopt, std::nullopt};
            if (crossing->ci.hasInterval && !crossing->ci.lowNever) {
                d.low = crossing->ci.low;
                d.high = crossing->ci.highNever ? std::numeric_limits<double>::infinity() : crossing->ci.high;
            }
            deciding_ = d;
        }
    }

    double largestCrossing = 0;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const auto &n = rows[i].breakEvenSteps;
        if (n && std::isfinite(*n))
            largestCrossing = std::max(largestCrossing, *n);
    }
    double xMax = std::max({2 * planned, largestCrossing * 1.2, 10.0});
    if (deciding_)
        xMax = std::max(xMax, deciding_->steps * 1.5);

    QVector<double> keys(kSamples);
    for (int k = 0; k < kSamples; ++k)
        keys[k] = std::pow(xMax, double(k) / (kSamples - 1)); // 1 .. xMax

    double yLow = std::numeric_limits<double>::infinity(), yHigh = 0;
    const QFontMetrics legendMetrics(p->legend->font());
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
        QStringList tags;
        if (i == 0 && label != QLatin1String("baseline"))
            tags << tr("baseline");
        else if (!row.breakEvenSteps && row.speedup)
            tags << tr("never pays off");
        else if (row.breakEvenSteps && *row.breakEvenSteps <= 1)
            tags << tr("ahead from step 1");
        const bool best = recommendation && recommendation->best == i;
        if (!best && recommendation && recommendation->runnerUp && *recommendation->runnerUp == i)
            tags << tr("runner-up");
        QString suffix = tags.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(tags.join(QStringLiteral(", ")));
        if (best)
            suffix += tr(" \u2605 best for N");
        graph->setName(legendMetrics.elidedText(shortName(row), Qt::ElideMiddle, kLegendNamePixels) + suffix);
        fullNames_.insert(int(i), label + suffix);
        // Row index, not line index, picks the colour: a configuration keeps it across charts and sweeps.
        // Past the palette's ten hues a colour comes round again: the second round is dashed.
        graph->setPen(QPen(chartSeriesColor(int(i), pal), best ? 3.0 : 1.8, i >= 10 ? Qt::DashLine : Qt::SolidLine));
        rowGraphs_[int(i)] = graph;
        yLow = std::min(yLow, *row.firstStepS);
        yHigh = std::max(yHigh, values.last());
    }
    p->xAxis->setRange(1, xMax);

    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    QColor backingColor = colors.background;
    backingColor.setAlpha(215);
    const QBrush backing(backingColor);
    const auto addDot = [&](double n, double t, const QColor &color) {
        auto *dot = new QCPItemTracer(p);
        dot->setGraph(nullptr);
        dot->position->setCoords(n, t);
        dot->setStyle(QCPItemTracer::tsCircle);
        dot->setSize(kDot);
        dot->setPen(QPen(colors.text, 1));
        dot->setBrush(color);
        dots_.append(dot);
    };
    // An interval on the step axis: a whisker through the crossing, open to the right for "never".
    const auto addInterval = [&](int row, double low, double high, double t, const QColor &color) {
        Interval iv{row, std::max(1.0, low), std::min(high, xMax), !std::isfinite(high) || high > xMax};
        // "Immediately to never" spans the whole axis and says nothing a line could show: the label
        // carries it in words.
        if (iv.high <= iv.low || (low <= 1 && iv.openEnded))
            return;
        auto *whisker = new QCPItemLine(p);
        whisker->start->setCoords(iv.low, t);
        whisker->end->setCoords(iv.high, t);
        QColor faint = color;
        faint.setAlpha(170); // several intervals overlap where crossings cluster
        whisker->setPen(QPen(faint, 1.4));
        whisker->setHead(iv.openEnded ? QCPLineEnding(QCPLineEnding::esSpikeArrow, 8, 8)
                                      : QCPLineEnding(QCPLineEnding::esBar, 8));
        whisker->setTail(QCPLineEnding(QCPLineEnding::esBar, 8));
        intervals_.append(iv);
        whiskers_.append(whisker);
    };

    // Crossings with the baseline, at the ledger's own break-even figure (one computation for all views).
    if (!rows.empty() && hasLine(rows[0])) {
        for (std::size_t i = 1; i < rows.size(); ++i) {
            const auto &n = rows[i].breakEvenSteps;
            // At n <= 1 the configuration is ahead from the first step: the lines never cross at n >= 1.
            if (!rowGraphs_[int(i)] || !n || !std::isfinite(*n) || *n <= 1)
                continue;
            const double t = cumulativeSeconds(rows[0], *n);
            const QColor color = chartSeriesColor(int(i), pal);
            const auto &ci = rows[i].breakEvenCI;
            if (ci && ci->hasInterval && !ci->lowNever)
                addInterval(int(i), ci->low, ci->highNever ? std::numeric_limits<double>::infinity() : ci->high, t,
                            color);
            crossings_.append(*n);
            // The crossing that decides, when the baseline is one of its two: its own marker says it.
            if (deciding_ && ((deciding_->best == int(i) && deciding_->runnerUp == 0) ||
                              (deciding_->runnerUp == int(i) && deciding_->best == 0)))
                continue;
            addDot(*n, t, color);
            // With its process-level interval where there is one; a single run has none to show.
            QString text = tr("%1 steps").arg(formatStepCount(*n));
            if (ci && ci->hasInterval)
                text += QStringLiteral(" [%1]").arg(QString::fromStdString(rows[i].breakEvenRange));
            labels_.append(
                absoluteLabel(p, text, chartSeriesColor(int(i), pal).darker(colors.dark ? 100 : 115), small, backing));
            anchors_.append(QPointF(*n, t));
        }
    }

    if (deciding_) {
        const DecidingCrossing &d = *deciding_;
        const double t = cumulativeSeconds(rows[d.best], d.steps);
        // A crossing with the baseline has its whisker from the loop above (the same interval: the
        // ledger computes both alike); between two other rows it is drawn here, in the faster's colour.
        const int faster = d.bestOvertakes ? d.best : d.runnerUp;
        if (d.low && d.best != 0 && d.runnerUp != 0)
            addInterval(faster, *d.low, *d.high, t, chartSeriesColor(faster, pal));
        decidingMarker_ = new QCPItemTracer(p);
        decidingMarker_->setGraph(nullptr);
        decidingMarker_->position->setCoords(d.steps, t);
        decidingMarker_->setStyle(QCPItemTracer::tsCircle);
        decidingMarker_->setSize(kDecidingRing);
        decidingMarker_->setPen(QPen(colors.text, 2.2));
        decidingMarker_->setBrush(Qt::NoBrush);
        const QString best = shortName(rows[d.best]), second = shortName(rows[d.runnerUp]);
        QString text =
            d.bestOvertakes
                ? tr("decides: %1 overtakes %2 at %3 steps").arg(best, second, formatStepCount(d.steps))
                : tr("decides: %1 would overtake %2 only after %3 steps").arg(second, best, formatStepCount(d.steps));
        if (d.low)
            text += QStringLiteral(" [%1\u2013%2]")
                        .arg(*d.low <= 1 ? tr("immediately") : formatStepCount(*d.low),
                             std::isfinite(*d.high) ? formatStepCount(*d.high) : tr("never"));
        // The margin at N may be within the noise: the marker must not read as more certain than the ledger.
        if (model()->ledger().recommendationTied)
            text += QLatin1Char('\n') + tr("(at N the two cannot be told apart)");
        QFont bold = font();
        bold.setBold(true);
        labels_.append(absoluteLabel(p, text, colors.text, bold, backing));
        anchors_.append(QPointF(d.steps, t));
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
        plannedLabel_ =
            absoluteLabel(p, tr("planned N = %1").arg(formatStepCount(planned)), colors.text, font(), backing);
    }

    for (int k = 0; k < labels_.size(); ++k) {
        auto *leader = new QCPItemLine(p);
        leader->start->setType(QCPItemPosition::ptAbsolute);
        leader->end->setType(QCPItemPosition::ptAbsolute);
        leader->setPen(QPen(labels_[k]->color(), 0.8));
        leader->setVisible(false);
        leaders_.append(leader);
    }

    if (yHigh > 0)
        p->yAxis->setRange(yLow * 0.7, yHigh * 1.5);
    else
        p->yAxis->setRange(0.1, 1000);
}

void BreakEvenChart::arrange()
{
    if (arranging_)
        return;
    arranging_ = true;
    QCustomPlot *p = plot();

    // As many legend columns as the width takes; a change needs the layout again, at once, since
    // an export lays out and draws in one go.
    QCPLegend *legend = p->legend;
    int widest = 1, entries = 0;
    for (int i = 0; i < legend->itemCount(); ++i) // counts the grid's cells, empty ones too
        if (const QCPAbstractLegendItem *item = legend->item(i)) {
            widest = std::max(widest, item->minimumOuterSizeHint().width());
            ++entries;
        }
    const int available = p->viewport().width() - legend->margins().left() - legend->margins().right() - 12;
    const int columns =
        std::clamp((available + legend->columnSpacing()) / (widest + legend->columnSpacing()), 1, std::max(1, entries));
    if (columns != legend->wrap()) {
        legend->setWrap(columns);
        legend->setFillOrder(QCPLegend::foColumnsFirst, true);
        for (auto phase : {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins, QCPLayoutElement::upLayout})
            p->plotLayout()->update(phase);
    }

    // Labels: the deciding one first, then the planned N, then the crossings in row order.
    const QRectF bounds = p->axisRect()->rect();
    QVector<QRectF> obstacles;
    const auto pixel = [&](const QPointF &coords) {
        return QPointF(p->xAxis->coordToPixel(coords.x()), p->yAxis->coordToPixel(coords.y()));
    };
    for (const QCPItemTracer *dot : dots_) {
        const QPointF at = dot->position->pixelPosition();
        obstacles.append(QRectF(at.x() - kDot / 2, at.y() - kDot / 2, kDot, kDot));
    }
    for (const QCPItemLine *whisker : whiskers_)
        obstacles.append(
            QRectF(whisker->start->pixelPosition(), whisker->end->pixelPosition()).normalized().adjusted(-2, -4, 2, 4));
    if (decidingMarker_) {
        const QPointF at = decidingMarker_->position->pixelPosition();
        obstacles.append(QRectF(at.x() - kDecidingRing / 2, at.y() - kDecidingRing / 2, kDecidingRing, kDecidingRing));
    }
    QVector<QCPItemText *> items;
    QVector<QCPItemLine *> leaders;
    QVector<LabelRequest> requests;
    if (decidingMarker_) {
        items.append(labels_.last());
        leaders.append(leaders_.last());
        requests.append({pixel(anchors_.last()), boxSize(labels_.last())});
    }
    if (plannedLabel_) {
        items.append(plannedLabel_);
        leaders.append(nullptr);
        requests.append(
            {QPointF(p->xAxis->coordToPixel(planned_->point1->key()), bounds.top() + 2), boxSize(plannedLabel_)});
    }
    for (int k = 0; k < labels_.size() - (decidingMarker_ ? 1 : 0); ++k) {
        items.append(labels_[k]);
        leaders.append(leaders_[k]);
        requests.append({pixel(anchors_[k]), boxSize(labels_[k])});
    }
    const QVector<LabelPlacement> placed = placeLabels(requests, obstacles, bounds);
    for (int k = 0; k < items.size(); ++k) {
        const QRectF rect = placed[k].rect;
        items[k]->position->setCoords(rect.topLeft());
        if (QCPItemLine *leader = leaders[k]) {
            // A label away from its point gets a thin line to it: colour alone matches badly in a crowd.
            leader->setVisible(placed[k].far);
            const QPointF a = requests[k].anchor;
            leader->start->setCoords(a);
            leader->end->setCoords(std::clamp(a.x(), rect.left(), rect.right()),
                                   std::clamp(a.y(), rect.top(), rect.bottom()));
        }
    }
    arranging_ = false;
}

} // namespace stepscope::ui
