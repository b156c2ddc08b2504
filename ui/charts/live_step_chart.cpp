#include "charts/live_step_chart.h"

#include "models/figure_text.h"
#include "charts/chart_palette.h"

#include "charts/qcustomplot_compat.h"

#include <QMouseEvent>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace stepscope::ui
{
namespace
{

constexpr double kHoverPixels = 24; // farther than this from any step, the hover shows nothing

void placeOnSteps(QCPItemPosition *position, double step, double axisRectRatioY)
{
    // x follows the step axis, y is a fraction of the axis rect so that shading spans any y zoom.
    position->setTypeX(QCPItemPosition::ptPlotCoords);
    position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    position->setCoords(step, axisRectRatioY);
}

} // namespace

LiveStepChart::LiveStepChart(QWidget *parent) : ChartWidget(parent)
{
    QCustomPlot *p = plot();
    useStepAxes();

    window_ = new QCPItemRect(p);
    window_->setLayer(QStringLiteral("grid")); // under the line, over the background
    window_->setPen(Qt::NoPen);
    placeOnSteps(window_->topLeft, 0, 0);
    placeOnSteps(window_->bottomRight, 0, 1);
    window_->setVisible(false);

    windowLabel_ = new QCPItemText(p);
    windowLabel_->setText(tr("steady window"));
    windowLabel_->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    windowLabel_->setPadding(QMargins(4, 2, 4, 2));
    placeOnSteps(windowLabel_->position, 0, 0);
    windowLabel_->setVisible(false);

    firstArrow_ = new QCPItemLine(p);
    placeOnSteps(firstArrow_->start, 1, 0.13);
    placeOnSteps(firstArrow_->end, 1, 0.01);
    firstArrow_->setHead(QCPLineEnding::esSpikeArrow);
    firstArrow_->setVisible(false);

    firstNote_ = new QCPItemText(p);
    firstNote_->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    firstNote_->setTextAlignment(Qt::AlignLeft);
    firstNote_->setPadding(QMargins(4, 1, 4, 1));
    placeOnSteps(firstNote_->position, 1, 0.17); // just below the arrow
    firstNote_->setVisible(false);

    phase_ = new QCPItemText(p);
    phase_->position->setType(QCPItemPosition::ptAxisRectRatio);
    phase_->position->setCoords(0.5, 0.45);
    phase_->setPositionAlignment(Qt::AlignCenter);
    phase_->setTextAlignment(Qt::AlignCenter);
    phase_->setPadding(QMargins(12, 8, 12, 8));
    phase_->setVisible(false);

    traceOf(kNoLane);

    showHoverText([this](const QPointF &pos) { return toolTipAt(pos); });
    connect(p, &QCustomPlot::mousePress, this, [this](QMouseEvent *event) {
        if (event->button() == Qt::LeftButton)
            following_ = false;
    });
    connect(p, &QCustomPlot::mouseWheel, this, [this] { following_ = false; });
    connect(p, &QCustomPlot::mouseDoubleClick, this, [this] { setFollowLatest(true); });
    connect(p, &QCustomPlot::legendClick, this, [this](QCPLegend *, QCPAbstractLegendItem *item, QMouseEvent *) {
        auto *entry = qobject_cast<QCPPlottableLegendItem *>(item);
        for (const Trace &t : traces_)
            if (entry && entry->plottable() == t.steps)
                setFocusLane(focus_ == t.lane ? kNoLane : t.lane); // a second click lets go
    });
    // Zooming can bring step 1 into view or push it out: the note follows the y range. The marks
    // of clipped steps follow both ranges, counted once a replot, just before it draws.
    connect(p->yAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this] {
        updateFirstStepNote();
        marksStale_ = true;
    });
    connect(p->xAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this] { marksStale_ = true; });
    connect(p, &QCustomPlot::beforeReplot, this, &LiveStepChart::updateClippedMarks);

    restyleSeries();
    fitRanges(true);
}

LiveStepChart::Trace &LiveStepChart::traceOf(int lane)
{
    auto at = std::find_if(traces_.begin(), traces_.end(), [lane](const Trace &t) { return t.lane >= lane; });
    if (at != traces_.end() && at->lane == lane)
        return *at;
    QCustomPlot *p = plot();
    Trace t;
    t.lane = lane;
    t.steps = p->addGraph();
    t.steps->setName(tr("steps"));
    t.steps->setLineStyle(QCPGraph::lsLine);
    t.steps->setAdaptiveSampling(true);
    t.first = p->addGraph();
    t.first->setName(tr("first step"));
    t.first->setLineStyle(QCPGraph::lsNone);
    t.first->removeFromLegend(); // the legend names lanes; the first step has its note
    Trace &made = *traces_.insert(at, t);
    restyleSeries();
    return made;
}

const LiveStepChart::Trace *LiveStepChart::findTrace(int lane) const
{
    for (const Trace &t : traces_)
        if (t.lane == lane)
            return &t;
    return nullptr;
}

void LiveStepChart::clearTrace(Trace &t)
{
    t.steps->data()->clear();
    t.first->data()->clear();
    t.lastKey = 0;
    t.windowFirst = t.windowLast = 0;
    t.phaseStatus.clear();
    t.phaseExplanation.clear();
}

void LiveStepChart::beginRun(const QString &title)
{
    assertUiThread();
    for (const Trace &t : traces_) {
        plot()->removeGraph(t.steps);
        plot()->removeGraph(t.first);
    }
    traces_.clear();
    traceOf(kNoLane);
    focus_ = kNoLane;
    following_ = true;
    fittedCount_ = 0;
    // One trace needs no legend: the title names its run. The legend goes back inside, hidden, so
    // that its row below the plot takes no room.
    QCPLegend *legend = plot()->legend;
    if (legend->layout() == plot()->plotLayout()) {
        plot()->plotLayout()->take(legend);
        plot()->plotLayout()->simplify();
        plot()->axisRect()->insetLayout()->addElement(legend, Qt::AlignRight | Qt::AlignTop);
    }
    legend->setVisible(false);
    showLaneItems();
    setTitle(title);
    fitRanges(true);
    updateFirstStepNote();
    requestReplot();
}

void LiveStepChart::beginLaneRun(int lane, const QString &label, const QString &run)
{
    assertUiThread();
    if (const Trace *only = findTrace(kNoLane)) {
        // The chart now shows lanes: the one trace of an earlier sweep or stored run goes.
        plot()->removeGraph(only->steps);
        plot()->removeGraph(only->first);
        traces_.erase(traces_.begin() + (only - traces_.data()));
        following_ = true;
        setTitle(tr("Steps of each lane's run"));
    }
    Trace &t = traceOf(std::max(0, lane));
    clearTrace(t);
    t.label = label;
    t.steps->setName(tr("%1 — %2").arg(label, run));
    if (!plot()->legend->visible())
        moveLegendBelow(2);
    fitRanges(false);
    updateFirstStepNote();
    showLaneItems();
    requestReplot();
}

void LiveStepChart::appendSteps(int lane, int firstIndex, const QVector<double> &ms)
{
    assertUiThread();
    if (ms.isEmpty())
        return;
    Trace &t = traceOf(lane);
    if (!t.phaseStatus.isEmpty()) {
        t.phaseStatus.clear(); // steps are here: whatever the worker was doing is over
        showLaneItems();
    }
    QVector<double> keys, values;
    keys.reserve(ms.size());
    values.reserve(ms.size());
    for (int i = 0; i < ms.size(); ++i) {
        const int step = firstIndex + i;
        if (step < 1)
            continue; // steps are 1-based; anything below is a caller's bug, not a point
        if (step == 1) {
            t.first->data()->clear();
            t.first->addData(1, ms[i]);
        } else {
            keys.append(step);
            values.append(ms[i]);
        }
        t.lastKey = std::max(t.lastKey, double(step));
    }
    // Batches arrive in step order, so each batch is sorted; the container merges if one is late.
    if (!keys.isEmpty())
        t.steps->addData(keys, values, true);
    marksStale_ = true;
    fitRanges(false);
    updateFirstStepNote();
    requestReplot();
}

void LiveStepChart::setSteadyWindow(int lane, int firstStep, int lastStep)
{
    assertUiThread();
    if (lastStep < firstStep)
        std::swap(firstStep, lastStep);
    Trace &t = traceOf(lane);
    t.windowFirst = firstStep;
    t.windowLast = lastStep;
    showLaneItems();
}

void LiveStepChart::clearSteadyWindow(int lane)
{
    assertUiThread();
    for (Trace &t : traces_)
        if (t.lane == lane)
            t.windowFirst = t.windowLast = 0;
    showLaneItems();
}

void LiveStepChart::setPhase(int lane, const QString &status, const QString &explanation)
{
    assertUiThread();
    Trace &t = traceOf(lane);
    t.phaseStatus = status;
    t.phaseExplanation = explanation;
    showLaneItems();
}

void LiveStepChart::clearPhase(int lane)
{
    assertUiThread();
    for (Trace &t : traces_)
        if (t.lane == lane && !t.phaseStatus.isEmpty()) {
            t.phaseStatus.clear();
            showLaneItems();
        }
}

QString LiveStepChart::phaseText() const
{
    return phase_->visible() ? phase_->text() : QString();
}

void LiveStepChart::setFocusLane(int lane)
{
    focus_ = lane;
    restyleSeries(); // the focused lane's line stands out
    showLaneItems();
}

void LiveStepChart::showLaneItems()
{
    // One lane's shading and one lane's phase, never a mix: the focused lane's, else the first
    // lane that has one.
    const Trace *focused = findTrace(focus_);
    auto pick = [&](auto has) -> const Trace * {
        if (focused && focus_ != kNoLane)
            return has(*focused) ? focused : nullptr;
        for (const Trace &t : traces_)
            if (has(t))
                return &t;
        return nullptr;
    };
    const bool lanes = showsLanes();
    const Trace *shaded = pick([](const Trace &t) { return t.windowLast > 0; });
    if (shaded) {
        window_->topLeft->setCoords(shaded->windowFirst, 0);
        window_->bottomRight->setCoords(shaded->windowLast, 1);
        windowLabel_->position->setCoords(shaded->windowFirst, 0);
        windowLabel_->setText(lanes ? tr("steady window, %1").arg(shaded->label) : tr("steady window"));
        // A lane's window in its lane's colour, so that it cannot be read as another lane's.
        QColor shade = lanes ? chartSeriesColor(shaded->lane, palette()) : chartColors(palette()).highlight;
        shade.setAlpha(chartColors(palette()).dark ? 60 : 40);
        window_->setBrush(QBrush(shade));
    }
    window_->setVisible(shaded != nullptr);
    windowLabel_->setVisible(shaded != nullptr);

    const Trace *waiting = pick([](const Trace &t) { return !t.phaseStatus.isEmpty(); });
    if (waiting) {
        // QCPItemText does not wrap: break the explanation into lines that fit a narrow chart.
        const QString status = lanes ? tr("%1: %2").arg(waiting->label, waiting->phaseStatus) : waiting->phaseStatus;
        QStringList lines{status};
        QString line;
        for (const QString &word : waiting->phaseExplanation.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
            if (!line.isEmpty() && line.size() + 1 + word.size() > 56) {
                lines << line;
                line.clear();
            }
            line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
        }
        if (!line.isEmpty())
            lines << line;
        phase_->setText(lines.join(QLatin1Char('\n')));
    }
    phase_->setVisible(waiting != nullptr);
    requestReplot();
}

int LiveStepChart::pointCount() const
{
    int n = 0;
    for (const Trace &t : traces_)
        n += t.steps->dataCount() + t.first->dataCount();
    return n;
}

QCPGraph *LiveStepChart::stepGraph(int lane) const
{
    const Trace *t = findTrace(lane);
    return t ? t->steps : nullptr;
}

QCPGraph *LiveStepChart::firstStepGraph(int lane) const
{
    const Trace *t = findTrace(lane);
    return t ? t->first : nullptr;
}

int LiveStepChart::clippedMarkCount() const
{
    return int(std::count_if(marks_.begin(), marks_.end(), [](const Mark &m) { return m.item->visible(); }));
}

void LiveStepChart::setFollowLatest(bool follow)
{
    following_ = follow;
    if (following_) {
        fitRanges(true);
        requestReplot();
    }
}

QString LiveStepChart::toolTipAt(const QPointF &pos) const
{
    const QCustomPlot *p = plot();
    if (!p->axisRect()->rect().contains(pos.toPoint()))
        return {};
    const bool lanes = showsLanes();
    const auto named = [lanes](const QString &label, const QString &text) {
        return lanes ? tr("%1 %2").arg(label, text) : text;
    };
    // A mark of clipped steps first: it sits on the top edge, above any point drawn.
    for (const Mark &m : marks_) {
        // selectTest: 0.99 of the tolerance inside the mark's box, more outside.
        if (!m.item->visible() || m.item->selectTest(pos, false) > p->selectionTolerance())
            continue;
        const ClippedMark &c = m.spike;
        const QString tallest = tr("step %1: %2").arg(formatStepCount(c.tallestStep), formatStepMs(c.tallestMs));
        if (c.count == 1)
            return named(m.label, tr("%1, above the scale").arg(tallest));
        return named(m.label, tr("%1 steps above the scale, %2 to %3; the tallest, %4")
                                  .arg(c.count)
                                  .arg(formatStepCount(c.firstStep), formatStepCount(c.lastStep), tallest));
    }
    const double key = p->xAxis->pixelToCoord(pos.x());

    // The point nearest the pointer: per trace the nearest step, then the nearest of those on screen.
    const Trace *best = nullptr;
    double bestKey = 0, bestValue = 0, bestDistance = std::numeric_limits<double>::infinity();
    auto consider = [&](const Trace &t, double k, double v) {
        const double d =
            std::hypot(p->xAxis->coordToPixel(k) - pos.x(), std::clamp(p->yAxis->coordToPixel(v), -1e6, 1e6) - pos.y());
        if (d < bestDistance) {
            bestDistance = d;
            bestKey = k;
            bestValue = v;
            best = &t;
        }
    };
    for (const Trace &t : traces_) {
        if (!t.first->data()->isEmpty())
            consider(t, 1, t.first->data()->constBegin()->value);
        const auto &series = *t.steps->data();
        if (series.isEmpty())
            continue;
        const auto it = std::lower_bound(series.constBegin(), series.constEnd(), key,
                                         [](const QCPGraphData &d, double k) { return d.key < k; });
        if (it != series.constEnd())
            consider(t, it->key, it->value);
        if (it != series.constBegin())
            consider(t, (it - 1)->key, (it - 1)->value);
    }
    if (!best || std::abs(p->xAxis->coordToPixel(bestKey) - pos.x()) > kHoverPixels)
        return {};
    const QString value = formatStepMs(bestValue);
    if (bestKey == 1)
        return named(best->label, tr("step 1 (first step): %1").arg(value));
    return named(best->label, tr("step %1: %2").arg(formatStepCount(bestKey), value));
}

void LiveStepChart::paletteChanged()
{
    restyleSeries();
    showLaneItems();
}

void LiveStepChart::restyleSeries()
{
    const QPalette &pal = palette();
    const ChartColors c = chartColors(pal);
    for (const Trace &t : traces_) {
        // One trace keeps the colours it always had; a lane's line and first step share its colour.
        const QColor line = chartSeriesColor(t.lane == kNoLane ? 0 : t.lane, pal);
        const QColor first = t.lane == kNoLane ? chartSeriesColor(1, pal) : line;
        t.steps->setPen(QPen(line, focus_ != kNoLane && t.lane == focus_ ? 2 : 1));
        t.first->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, first, first, 10));
    }
    const QColor first = chartSeriesColor(1, pal);
    windowLabel_->setColor(c.text);
    firstNote_->setColor(showsLanes() ? c.text : first);
    // The note sits where the warm-up line usually is: a backing keeps it legible.
    QColor backing = c.background;
    backing.setAlpha(210);
    firstNote_->setBrush(QBrush(backing));
    firstArrow_->setPen(QPen(first, 1.5));
    QFont big = font();
    big.setPointSizeF(big.pointSizeF() * 1.3);
    phase_->setFont(big);
    phase_->setColor(c.text);
    phase_->setBrush(QBrush(backing));
    phase_->setPen(QPen(c.grid, 1));
    for (const Mark &m : marks_)
        m.item->setBrush(QBrush(backing));
}

void LiveStepChart::fitRanges(bool force)
{
    if (!following_ && !force)
        return;
    QCustomPlot *p = plot();
    double lastKey = 0;
    int n = 0;
    for (const Trace &t : traces_) {
        lastKey = std::max(lastKey, t.lastKey);
        n += t.steps->dataCount();
    }
    p->xAxis->setRange(0, std::max(10.0, lastKey * 1.02 + 1));

    // The percentile costs a copy of the series: refit while the series is short, then only after it
    // grew by an eighth, which keeps 100,000 appends at a few dozen fits in all. Lanes share one
    // scale: the percentile is over all of their steps.
    if (!force && n >= 4096 && n < fittedCount_ + fittedCount_ / 8 && n >= fittedCount_)
        return;
    fittedCount_ = n;
    double top = 0;
    if (n > 0) {
        scratch_.clear();
        scratch_.reserve(std::size_t(n));
        for (const Trace &t : traces_)
            for (auto it = t.steps->data()->constBegin(); it != t.steps->data()->constEnd(); ++it)
                scratch_.push_back(it->value);
        const auto at = scratch_.begin() + std::ptrdiff_t(std::floor(0.99 * (n - 1)));
        std::nth_element(scratch_.begin(), at, scratch_.end());
        top = *at * 1.2;
    } else {
        for (const Trace &t : traces_)
            if (!t.first->data()->isEmpty())
                top = std::max(top, t.first->data()->constBegin()->value * 1.2);
    }
    p->yAxis->setRange(0, top > 0 ? top : 1.0);
}

void LiveStepChart::updateFirstStepNote()
{
    // Step 1 of each trace that the fit leaves above the top, in one note by the arrow.
    const double top = plot()->yAxis->range().upper;
    QStringList offScale;
    for (const Trace &t : traces_) {
        if (t.first->data()->isEmpty())
            continue;
        const double value = t.first->data()->constBegin()->value;
        if (value > top)
            offScale << (t.lane == kNoLane ? formatStepMs(value) : tr("%1 %2").arg(t.label, formatStepMs(value)));
    }
    if (!offScale.isEmpty())
        firstNote_->setText(showsLanes() ? tr("step 1 (off scale):\n%1").arg(offScale.join(QLatin1Char('\n')))
                                         : tr("step 1: %1 (off scale)").arg(offScale.front()));
    firstNote_->setVisible(!offScale.isEmpty());
    firstArrow_->setVisible(!offScale.isEmpty());
}

void LiveStepChart::updateClippedMarks()
{
    if (!std::exchange(marksStale_, false))
        return;
    QCustomPlot *p = plot();
    const QCPRange x = p->xAxis->range(), y = p->yAxis->range();
    // Marks stand at least 14 px apart, so that a noisy run gets a few dozen at most.
    const double spacing = 14 * x.size() / std::max(1, p->axisRect()->width());
    std::size_t used = 0;
    for (const Trace &t : traces_) {
        const QColor colour = chartSeriesColor(t.lane == kNoLane ? 0 : t.lane, palette());
        for (const ClippedMark &c : clippedMarks(*t.steps->data(), x, y.upper, spacing)) {
            if (used == marks_.size()) {
                Mark m;
                m.item = new QCPItemText(p);
                m.item->setPositionAlignment(Qt::AlignHCenter | Qt::AlignTop);
                m.item->setPadding(QMargins(2, 0, 2, 0));
                QColor backing = chartColors(palette()).background;
                backing.setAlpha(210);
                m.item->setBrush(QBrush(backing));
                marks_.push_back(m);
            }
            Mark &m = marks_[used++];
            m.label = t.label;
            m.spike = c;
            placeOnSteps(m.item->position, c.tallestStep, 0);
            // An arrow up: "more above"; with a count when it stands for several steps.
            m.item->setText(c.count == 1 ? QStringLiteral("\u25B2") : QStringLiteral("\u25B2%1").arg(c.count));
            m.item->setColor(colour);
            m.item->setVisible(true);
        }
    }
    for (std::size_t i = used; i < marks_.size(); ++i)
        marks_[i].item->setVisible(false);
}

} // namespace stepscope::ui
