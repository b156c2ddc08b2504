#include "charts/break_even_chart.h"

#include "models/figure_text.h"
#include "charts/chart_palette.h"
#include "charts/label_placement.h"
#include "charts/log_ticker.h"
#include "models/ledger_format.h"
#include "models/ledger_model.h"

#include "charts/qcustomplot_compat.h"

#include <QFontMetrics>
#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

namespace stepscope::ui
{
namespace
{

// A legend entry names its line as the other charts' axes do (the knob a row adds to the one before,
// "+bf16"), at most this wide: compiled configurations are named by every knob, and a legend of
// full names took a third of the chart. Elided at the front, so the distinguishing tail (the knob
// added last, the compile mode, the cache state) stays; the full name is the entry's tooltip.
constexpr int kLegendNamePixels = 220;
constexpr double kDot = 8;
constexpr double kDecidingRing = 18;

void useLogScale(QCPAxis *axis, const QString &label)
{
    axis->setScaleType(QCPAxis::stLogarithmic);
    auto ticker = QSharedPointer<LogTicker>::create();
    ticker->setLogBase(10);
    ticker->setSubTickCount(8);
    axis->setTicker(ticker);
    axis->setNumberFormat(QStringLiteral("g"));
    axis->setNumberPrecision(6);
    axis->setLabel(label);
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
    showHoverText([this](const QPointF &pos) { return legendToolTipAt(pos); });
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
            return fullName(i) + QLatin1Char('\n') + ledgerMemoryTip(model()->ledger().rows[std::size_t(i)]);
    }
    return {};
}

QString BreakEvenChart::fullName(int row) const
{
    const BreakEvenGeometry::Line *line = geometry_.lineForRow(row);
    return line ? line->fullName : QString();
}

QCPGraph *BreakEvenChart::graphForRow(int row) const
{
    return row >= 0 && row < rowGraphs_.size() ? rowGraphs_[row] : nullptr;
}

double BreakEvenChart::plannedSteps() const
{
    return planned_ ? planned_->point1->key() : 0;
}

QVector<double> BreakEvenChart::crossings() const
{
    QVector<double> steps;
    for (const BreakEvenGeometry::Crossing &crossing : geometry_.crossings)
        steps.append(crossing.at.x());
    return steps;
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
    const report::Ledger empty;
    geometry_ = breakEvenGeometry(model() ? model()->ledger() : empty, model() ? double(model()->plannedSteps()) : 0);
    draw();
}

void BreakEvenChart::draw()
{
    QCustomPlot *p = plot();
    p->clearPlottables();
    p->clearItems();
    rowGraphs_.clear();
    labels_.clear();
    anchors_.clear();
    dots_.clear();
    whiskers_.clear();
    leaders_.clear();
    planned_ = nullptr;
    plannedLabel_ = nullptr;
    decidingMarker_ = nullptr;

    const BreakEvenGeometry &g = geometry_;
    const QPalette &pal = palette();
    const ChartColors colors = chartColors(pal);
    rowGraphs_.fill(nullptr, g.lines.isEmpty() ? 0 : g.lines.last().row + 1);

    const QFontMetrics legendMetrics(p->legend->font());
    for (const BreakEvenGeometry::Line &line : g.lines) {
        QCPGraph *graph = p->addGraph();
        graph->setData(g.keys, line.values, true);
        graph->setName(legendMetrics.elidedText(line.shortName, Qt::ElideLeft, kLegendNamePixels) + line.suffix);
        // Row index, not line index, picks the colour: a configuration keeps it across charts and sweeps.
        // Past the palette's ten hues a colour comes round again: the second round is dashed.
        graph->setPen(QPen(chartSeriesColor(line.row, pal), line.recommended ? 3.0 : 1.8,
                           line.row >= 10 ? Qt::DashLine : Qt::SolidLine));
        rowGraphs_[line.row] = graph;
    }
    p->xAxis->setRange(1, g.xMax);

    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    QColor backingColor = colors.background;
    backingColor.setAlpha(215);
    const QBrush backing(backingColor);
    const auto addDot = [&](const QPointF &at, const QColor &color) {
        auto *dot = new QCPItemTracer(p);
        dot->setGraph(nullptr);
        dot->position->setCoords(at);
        dot->setStyle(QCPItemTracer::tsCircle);
        dot->setSize(kDot);
        dot->setPen(QPen(colors.text, 1));
        dot->setBrush(color);
        dots_.append(dot);
    };
    // An interval on the step axis: a whisker through the crossing, open to the right for "never".
    const auto addWhisker = [&](const BreakEvenGeometry::Interval &iv) {
        auto *whisker = new QCPItemLine(p);
        whisker->start->setCoords(iv.low, iv.seconds);
        whisker->end->setCoords(iv.high, iv.seconds);
        QColor faint = chartSeriesColor(iv.row, pal);
        faint.setAlpha(170); // several intervals overlap where crossings cluster
        whisker->setPen(QPen(faint, 1.4));
        whisker->setHead(iv.openEnded ? QCPLineEnding(QCPLineEnding::esSpikeArrow, 8, 8)
                                      : QCPLineEnding(QCPLineEnding::esBar, 8));
        whisker->setTail(QCPLineEnding(QCPLineEnding::esBar, 8));
        whiskers_.append(whisker);
    };

    // Each crossing's whisker, dot and label in turn, as they stack on the plot.
    for (const BreakEvenGeometry::Crossing &crossing : g.crossings) {
        const QColor color = chartSeriesColor(crossing.row, pal);
        if (crossing.interval >= 0)
            addWhisker(g.intervals[crossing.interval]);
        if (crossing.decides) // the deciding marker below stands for it
            continue;
        addDot(crossing.at, color);
        labels_.append(absoluteLabel(p, crossing.text, color.darker(colors.dark ? 100 : 115), small, backing));
        anchors_.append(crossing.at);
    }

    if (g.deciding) {
        if (g.decidingInterval >= 0)
            addWhisker(g.intervals[g.decidingInterval]);
        decidingMarker_ = new QCPItemTracer(p);
        decidingMarker_->setGraph(nullptr);
        decidingMarker_->position->setCoords(g.decidingAt);
        decidingMarker_->setStyle(QCPItemTracer::tsCircle);
        decidingMarker_->setSize(kDecidingRing);
        decidingMarker_->setPen(QPen(colors.text, 2.2));
        decidingMarker_->setBrush(Qt::NoBrush);
        QFont bold = font();
        bold.setBold(true);
        labels_.append(absoluteLabel(p, g.decidingText, colors.text, bold, backing));
        anchors_.append(g.decidingAt);
    }

    if (g.plannedShown) {
        planned_ = new QCPItemStraightLine(p);
        for (QCPItemPosition *point : {planned_->point1, planned_->point2}) {
            point->setTypeX(QCPItemPosition::ptPlotCoords);
            point->setTypeY(QCPItemPosition::ptAxisRectRatio);
        }
        planned_->point1->setCoords(g.planned, 0);
        planned_->point2->setCoords(g.planned, 1);
        planned_->setPen(QPen(colors.text, 1, Qt::DashLine));
        plannedLabel_ = absoluteLabel(p, g.plannedText, colors.text, font(), backing);
    }

    for (int k = 0; k < labels_.size(); ++k) {
        auto *leader = new QCPItemLine(p);
        leader->start->setType(QCPItemPosition::ptAbsolute);
        leader->end->setType(QCPItemPosition::ptAbsolute);
        leader->setPen(QPen(labels_[k]->color(), 0.8));
        leader->setVisible(false);
        leaders_.append(leader);
    }

    p->yAxis->setRange(g.yMin, g.yMax);
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
