#include "charts/first_vs_steady_chart.h"

#include "models/figure_text.h"
#include "charts/chart_palette.h"
#include "charts/label_placement.h"
#include "charts/log_ticker.h"
#include "models/ledger_format.h"
#include "models/ledger_model.h"

#include "charts/qcustomplot_compat.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace stepscope::ui
{
namespace
{

constexpr double kMarker = 9;       // scatter symbol size (pixels)
constexpr int kNoteLineChars = 110; // the footnote wraps here: QCPTextElement does not wrap itself
constexpr double kHoverPixels = 12; // farther than this from every point, the hover shows nothing

bool hasPoint(const report::LedgerRow &row)
{
    return row.firstStepMs && row.steadyMs && *row.firstStepMs > 0 && *row.steadyMs > 0;
}

QString pointLabel(const report::LedgerRow &row)
{
    // The short cumulative label ("+bf16") of the other charts: a scatter has no room for the full one.
    return shortAxisLabel(QString::fromStdString(
        row.axisLabel.empty() ? (row.label.empty() ? row.configName : row.label) : row.axisLabel));
}

QString whyMissing(const report::LedgerRow &row)
{
    if (ledgerRowCancelled(row))
        return QObject::tr("cancelled");
    if (!row.failureCategory.empty() && !row.firstStepMs)
        return QObject::tr("failed: %1").arg(QString::fromStdString(row.failureCategory));
    if (!row.steadyMs)
        return row.firstStepMs ? QObject::tr("no steady state") : QObject::tr("no data");
    return QObject::tr("no first step");
}

QBrush labelBacking(const ChartColors &colors)
{
    QColor backing = colors.background;
    backing.setAlpha(215);
    return QBrush(backing);
}

QString wrapped(const QString &text, int width)
{
    QStringList lines;
    QString line;
    for (const QString &word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (!line.isEmpty() && line.size() + 1 + word.size() > width) {
            lines << line;
            line.clear();
        }
        line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
    }
    if (!line.isEmpty())
        lines << line;
    return lines.join(QLatin1Char('\n'));
}

} // namespace

QVector<int> paretoFrontRows(const std::vector<report::LedgerRow> &rows)
{
    QVector<int> front;
    const auto candidate = [&](std::size_t i) { return hasPoint(rows[i]) && !ledgerRowDiverged(rows[i]); };
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (!candidate(i))
            continue;
        const double f = *rows[i].firstStepMs, s = *rows[i].steadyMs;
        bool beaten = false;
        for (std::size_t j = 0; j < rows.size() && !beaten; ++j) {
            if (j == i || !candidate(j))
                continue;
            const double fj = *rows[j].firstStepMs, sj = *rows[j].steadyMs;
            beaten = fj <= f && sj <= s && (fj < f || sj < s);
        }
        if (!beaten)
            front.append(int(i));
    }
    return front;
}

FirstVsSteadyChart::FirstVsSteadyChart(QWidget *parent) : LedgerChart(parent)
{
    QCustomPlot *p = plot();
    // Labelled ticks however narrow the range (two A/A processes at 2.51 and 2.55 s): QCPAxisTickerLog
    // labels the powers alone, one label for 0.4-3 s, none for 1.6-4 s.
    useLogTicker(p->xAxis);
    p->xAxis->setLabel(tr("first step (s, log scale)"));
    p->yAxis->setLabel(tr("steady-state step (ms)"));
    p->xAxis->grid()->setSubGridVisible(false);

    // The footnote says how to read the chart and which rows could not be drawn; a row of its own
    // below the axis rect, so it never covers a point.
    footnote_ = new QCPTextElement(p);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    footnote_->setFont(small);
    footnote_->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
    p->plotLayout()->addElement(p->plotLayout()->rowCount(), 0, footnote_);
    p->plotLayout()->setRowStretchFactor(p->plotLayout()->rowCount() - 1, 0.001);
    // The start states' legend under the footnote, never over the points (shown with two states).
    moveLegendBelow(3);
    p->legend->setVisible(false);

    connect(p, &QCustomPlot::afterLayout, this, &FirstVsSteadyChart::placeLabels);
    showHoverText([this](const QPointF &pos) { return toolTipAt(pos); });
    rebuild();
}

QString FirstVsSteadyChart::toolTipAt(const QPointF &pos) const
{
    const Point *nearest = nullptr;
    double best = kHoverPixels;
    for (const Point &pt : points_) {
        const QPointF at(plot()->xAxis->coordToPixel(pt.firstS), plot()->yAxis->coordToPixel(pt.steadyMs));
        if (const double d = std::hypot(at.x() - pos.x(), at.y() - pos.y()); d <= best) {
            best = d;
            nearest = &pt;
        }
    }
    if (!nearest)
        return {};
    const report::LedgerRow &row = model()->ledger().rows[std::size_t(nearest->row)];
    return tr("%1\nfirst step %2, steady step %3\n%4")
        .arg(QString::fromStdString(row.label), QString::fromStdString(report::formatSeconds(nearest->firstS)),
             QString::fromStdString(report::formatMs(nearest->steadyMs)), ledgerMemoryTip(row));
}

QCPAxis *FirstVsSteadyChart::firstStepAxis() const
{
    return plot()->xAxis;
}

QCPAxis *FirstVsSteadyChart::steadyAxis() const
{
    return plot()->yAxis;
}

QCPGraph *FirstVsSteadyChart::graphForRow(int row) const
{
    return graphs_.value(row, nullptr);
}

QCPErrorBars *FirstVsSteadyChart::firstStepWhiskers(int row) const
{
    return xErrors_.value(row, nullptr);
}

QCPErrorBars *FirstVsSteadyChart::steadyWhiskers(int row) const
{
    return yErrors_.value(row, nullptr);
}

QCPItemText *FirstVsSteadyChart::labelForRow(int row) const
{
    for (int k = 0; k < points_.size(); ++k)
        if (points_[k].row == row)
            return labels_.value(k, nullptr);
    return nullptr;
}

QVector<QRectF> FirstVsSteadyChart::labelRects() const
{
    QVector<QRectF> rects;
    for (QCPItemText *label : labels_) {
        const QPointF topLeft = label->position->pixelPosition();
        rects.append(QRectF(topLeft, label->property("boxSize").toSizeF()));
    }
    return rects;
}

QCPGraph *FirstVsSteadyChart::stateGraph(store::StartState state) const
{
    for (const auto &[s, graph] : stateGraphs_)
        if (s == state)
            return graph;
    return nullptr;
}

void FirstVsSteadyChart::rebuild()
{
    QCustomPlot *p = plot();
    p->clearPlottables();
    p->clearItems();
    points_.clear();
    front_.clear();
    labels_.clear();
    leaders_.clear();
    frontLine_ = nullptr;
    states_.clear();
    stateGraphs_.clear();
    p->legend->clearItems();

    const QPalette &pal = palette();
    const ChartColors colors = chartColors(pal);
    const std::vector<report::LedgerRow> empty;
    const auto &rows = model() ? model()->ledger().rows : empty;
    graphs_.fill(nullptr, int(rows.size()));
    xErrors_.fill(nullptr, int(rows.size()));
    yErrors_.fill(nullptr, int(rows.size()));

    const QVector<int> front = paretoFrontRows(rows);
    QStringList missing;
    double xLow = std::numeric_limits<double>::infinity(), xHigh = 0, yHigh = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const report::LedgerRow &row = rows[i];
        if (!hasPoint(row)) {
            missing << QStringLiteral("%1 (%2)").arg(pointLabel(row), whyMissing(row));
            continue;
        }
        Point pt;
        pt.row = int(i);
        pt.label = pointLabel(row);
        pt.firstS = *row.firstStepMs / 1000.0; // the axis is in seconds
        pt.steadyMs = *row.steadyMs;
        // Lowest and highest process: the spread a reader would see running it again.
        pt.firstLowS = row.firstStepMinMs ? std::min(*row.firstStepMinMs / 1000.0, pt.firstS) : pt.firstS;
        pt.firstHighS = row.firstStepMaxMs ? std::max(*row.firstStepMaxMs / 1000.0, pt.firstS) : pt.firstS;
        pt.steadyLowMs = row.steadyMinMs ? std::min(*row.steadyMinMs, pt.steadyMs) : pt.steadyMs;
        pt.steadyHighMs = row.steadyMaxMs ? std::max(*row.steadyMaxMs, pt.steadyMs) : pt.steadyMs;
        pt.onFront = front.contains(int(i));
        pt.baseline = i == 0;
        pt.diverged = ledgerRowDiverged(row);
        points_.append(pt);
        xLow = std::min(xLow, pt.firstLowS);
        xHigh = std::max(xHigh, pt.firstHighS);
        yHigh = std::max(yHigh, pt.steadyHighMs);
    }

    // The other start states' first steps (the rows' own steady step), one graph each.
    if (model())
        states_ = firstStepStates(model()->ledger());
    struct StatePoints {
        store::StartState state;
        QVector<double> keys, values;
    };
    std::vector<StatePoints> others;
    for (std::size_t k = 1; k < states_.size(); ++k) {
        StatePoints other{states_[k], {}, {}};
        for (const Point &pt : points_) {
            const report::LedgerRow &row = rows[std::size_t(pt.row)];
            const auto &ms = row.figuresOf(other.state).firstStepMs;
            if (!ms || *ms <= 0 || row.firstStepStart == other.state)
                continue;
            other.keys.append(*ms / 1000.0);
            other.values.append(pt.steadyMs);
            xLow = std::min(xLow, *ms / 1000.0);
            xHigh = std::max(xHigh, *ms / 1000.0);
        }
        others.push_back(std::move(other));
    }

    // Ranges first: the front line runs on to the right edge.
    const QCPRange xRange = xHigh > 0 ? QCPRange(xLow / 1.6, xHigh * 1.6) : QCPRange(0.1, 10);
    p->xAxis->setRange(xRange);
    p->yAxis->setRange(0, yHigh > 0 ? yHigh * 1.15 : 1.0);

    for (const Point &pt : points_) {
        const QColor color = chartSeriesColor(pt.row, pal);
        QCPGraph *graph = p->addGraph(p->xAxis, p->yAxis);
        graph->setData({pt.firstS}, {pt.steadyMs}, true);
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setName(pt.label);
        // Filled in the row's colour with an outline (ssDisc would fill with the pen's colour); a row
        // that broke training is hollow: drawn, but no candidate.
        const QCPScatterStyle::ScatterShape shape =
            pt.baseline ? QCPScatterStyle::ssDiamond : QCPScatterStyle::ssCircle;
        const QPen outline = pt.diverged ? QPen(color, 2) : QPen(colors.text, 1);
        const QBrush fill = pt.diverged ? QBrush(Qt::NoBrush) : QBrush(color);
        graph->setScatterStyle(QCPScatterStyle(shape, outline, fill, pt.baseline ? kMarker + 4 : kMarker));
        graphs_[pt.row] = graph;

        const auto whiskers = [&](QCPErrorBars::ErrorType type, double minus, double plus) -> QCPErrorBars * {
            if (minus <= 0 && plus <= 0)
                return nullptr; // one process, or all alike: no spread to show
            auto *errors = new QCPErrorBars(p->xAxis, p->yAxis);
            errors->removeFromLegend();
            errors->setErrorType(type);
            errors->setDataPlottable(graph);
            errors->setData({minus}, {plus});
            errors->setPen(QPen(color, 1.2));
            errors->setWhiskerWidth(6);
            errors->setSymbolGap(kMarker + 2);
            return errors;
        };
        xErrors_[pt.row] = whiskers(QCPErrorBars::etKeyError, pt.firstS - pt.firstLowS, pt.firstHighS - pt.firstS);
        yErrors_[pt.row] =
            whiskers(QCPErrorBars::etValueError, pt.steadyMs - pt.steadyLowMs, pt.steadyHighMs - pt.steadyMs);
    }

    // Hollow squares in the text colour: the labelled points stay the rows' own, these say how far
    // left the same row's first step moves in the other state.
    for (const StatePoints &other : others) {
        QCPGraph *graph = p->addGraph(p->xAxis, p->yAxis);
        graph->setData(other.keys, other.values, true);
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setName(tr("%1 first step (hollow)").arg(QString::fromLatin1(store::toString(other.state).data())));
        const QCPScatterStyle::ScatterShape shape = other.state == store::StartState::Again
                                                        ? QCPScatterStyle::ssSquare
                                                        : QCPScatterStyle::ssTriangle;
        graph->setScatterStyle(QCPScatterStyle(shape, QPen(colors.text, 1.5), QBrush(Qt::NoBrush), kMarker));
        stateGraphs_.emplace_back(other.state, graph);
    }
    // The legend only where two states are drawn: it names the shapes, not the rows (labelled).
    p->legend->clearItems();
    if (!stateGraphs_.empty()) {
        // A key for the ledger's own state, drawn as its points are (filled, the row's colour).
        QCPGraph *own = p->addGraph(p->xAxis, p->yAxis);
        own->setName(tr("%1 first step (filled)").arg(QString::fromLatin1(store::toString(states_.front()).data())));
        own->setLineStyle(QCPGraph::lsNone);
        own->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(colors.text, 1), QBrush(chartSeriesColor(0, pal)), kMarker));
        own->addToLegend(); // after any auto-added entry was removed: once, in this order
        for (const auto &[state, graph] : stateGraphs_)
            graph->addToLegend();
    }
    p->legend->setVisible(!stateGraphs_.empty());

    // The front as a staircase: from each row right at its own steady level to the next row's first
    // step, then down. Everything above and right of it is beaten by a row on it.
    QVector<const Point *> onFront;
    for (const Point &pt : points_)
        if (pt.onFront)
            onFront.append(&pt);
    std::sort(onFront.begin(), onFront.end(), [](const Point *a, const Point *b) {
        return a->firstS < b->firstS || (a->firstS == b->firstS && a->steadyMs > b->steadyMs);
    });
    if (!onFront.isEmpty()) {
        QVector<double> keys, values;
        for (const Point *pt : onFront) {
            keys.append(pt->firstS);
            values.append(pt->steadyMs);
            front_.append(pt->row);
        }
        keys.append(xRange.upper);
        values.append(values.last());
        frontLine_ = p->addGraph(p->xAxis, p->yAxis);
        frontLine_->setName(tr("Pareto front"));
        frontLine_->removeFromLegend(); // the legend names the start states' shapes only
        frontLine_->setData(keys, values, true);
        frontLine_->setLineStyle(QCPGraph::lsStepLeft);
        QColor line = colors.text;
        line.setAlpha(110);
        frontLine_->setPen(QPen(line, 1.5));
        frontLine_->setLayer(QStringLiteral("grid")); // under the points and whiskers
    }

    // The baseline's cross: left of its vertical line starts sooner, below its horizontal line steps faster.
    if (!points_.isEmpty() && points_.front().baseline) {
        const Point &base = points_.front();
        for (bool vertical : {true, false}) {
            auto *line = new QCPItemStraightLine(p);
            line->point1->setCoords(base.firstS, base.steadyMs);
            line->point2->setCoords(vertical ? base.firstS : base.firstS * 2,
                                    vertical ? base.steadyMs + 1 : base.steadyMs);
            line->setPen(QPen(colors.neutral, 1, Qt::DashLine));
            line->setLayer(QStringLiteral("grid"));
            line->setSelectable(false);
        }
    }

    QFont labelFont = font();
    labelFont.setPointSizeF(labelFont.pointSizeF() * 0.9);
    const QFontMetricsF metrics(labelFont);
    const QMargins padding(3, 1, 3, 1);
    for (const Point &pt : points_) {
        auto *label = new QCPItemText(p);
        label->position->setType(QCPItemPosition::ptAbsolute);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setPadding(padding);
        label->setFont(labelFont);
        label->setText(pt.baseline && pt.label != QLatin1String("baseline") ? tr("%1 (baseline)").arg(pt.label)
                                                                            : pt.label);
        label->setColor(chartSeriesColor(pt.row, pal).darker(colors.dark ? 100 : 115));
        label->setBrush(labelBacking(colors)); // lines under a label must not garble it
        label->setClipToAxisRect(false);
        const QSizeF text = metrics.size(0, label->text());
        label->setProperty("boxSize", QSizeF(std::ceil(text.width()) + padding.left() + padding.right(),
                                             std::ceil(text.height()) + padding.top() + padding.bottom()));
        labels_.append(label);

        auto *leader = new QCPItemLine(p);
        leader->start->setType(QCPItemPosition::ptAbsolute);
        leader->end->setType(QCPItemPosition::ptAbsolute);
        leader->setPen(QPen(colors.neutral, 0.8));
        leader->setVisible(false);
        leaders_.append(leader);
    }

    QString note = tr("Lower left is better. Whiskers: lowest to highest cold process. Step line: Pareto front "
                      "(no other configuration is faster on both). Dashed: the baseline.");
    missing_.clear();
    if (!missing.isEmpty()) {
        missing_ = tr("Not drawn: %1.").arg(missing.join(QStringLiteral("; ")));
        note += QLatin1Char(' ') + missing_;
    }
    footnote_->setText(wrapped(note, kNoteLineChars));
    footnote_->setTextColor(colors.text);
}

void FirstVsSteadyChart::placeLabels()
{
    QCustomPlot *p = plot();
    if (points_.isEmpty())
        return;
    const QRectF bounds = p->axisRect()->rect();
    // Labels keep clear of the points, the whiskers and the front line.
    QVector<QRectF> obstacles;
    QVector<QPointF> anchors;
    const auto x = [&](double s) { return p->xAxis->coordToPixel(s); };
    const auto y = [&](double ms) { return p->yAxis->coordToPixel(ms); };
    const auto segment = [&](QPointF a, QPointF b) {
        obstacles.append(QRectF(a, b).normalized().adjusted(-2, -2, 2, 2));
    };
    for (const Point &pt : points_) {
        const QPointF at(x(pt.firstS), y(pt.steadyMs));
        anchors.append(at);
        const double r = (pt.baseline ? kMarker + 4 : kMarker) / 2 + 1;
        obstacles.append(QRectF(at.x() - r, at.y() - r, 2 * r, 2 * r));
        if (pt.firstHighS > pt.firstLowS)
            segment(QPointF(x(pt.firstLowS), at.y() - 2), QPointF(x(pt.firstHighS), at.y() + 2));
        if (pt.steadyHighMs > pt.steadyLowMs)
            segment(QPointF(at.x() - 2, y(pt.steadyHighMs)), QPointF(at.x() + 2, y(pt.steadyLowMs)));
    }
    if (frontLine_) {
        const auto *front = frontLine_->data().data();
        for (auto it = front->constBegin(); it != front->constEnd() && it + 1 != front->constEnd(); ++it) {
            const QPointF corner(x((it + 1)->key), y(it->value));
            segment(QPointF(x(it->key), y(it->value)), corner);             // along its level
            segment(corner, QPointF(x((it + 1)->key), y((it + 1)->value))); // down to the next
        }
    }
    // The baseline and the front first: they are what the chart is read for.
    QVector<int> order(points_.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const auto rank = [&](int k) { return points_[k].baseline ? 0 : points_[k].onFront ? 1 : 2; };
        return rank(a) < rank(b);
    });
    QVector<LabelRequest> requests;
    for (int k : order)
        requests.append({anchors[k], labels_[k]->property("boxSize").toSizeF()});
    const QVector<LabelPlacement> placed = ui::placeLabels(requests, obstacles, bounds);
    for (int n = 0; n < order.size(); ++n) {
        const int k = order[n];
        const QRectF rect = placed[n].rect;
        labels_[k]->position->setCoords(rect.topLeft());
        QCPItemLine *leader = leaders_[k];
        leader->setVisible(placed[n].far);
        if (placed[n].far) {
            // From the point to the nearest spot on the label's box.
            const QPointF a = anchors[k];
            const QPointF end(std::clamp(a.x(), rect.left(), rect.right()),
                              std::clamp(a.y(), rect.top(), rect.bottom()));
            leader->start->setCoords(a);
            leader->end->setCoords(end);
        }
    }
}

} // namespace stepscope::ui
