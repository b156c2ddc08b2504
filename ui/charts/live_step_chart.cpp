#include "charts/live_step_chart.h"

#include "charts/chart_format.h"
#include "charts/chart_palette.h"

#include "charts/qcustomplot_compat.h"

#include <QMouseEvent>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>

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

    steps_ = p->addGraph();
    steps_->setName(tr("steps"));
    steps_->setLineStyle(QCPGraph::lsLine);
    steps_->setAdaptiveSampling(true);

    firstStep_ = p->addGraph();
    firstStep_->setName(tr("first step"));
    firstStep_->setLineStyle(QCPGraph::lsNone);

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

    connect(p, &QCustomPlot::mouseMove, this, &LiveStepChart::showToolTip);
    connect(p, &QCustomPlot::mousePress, this, [this](QMouseEvent *event) {
        if (event->button() == Qt::LeftButton)
            following_ = false;
    });
    connect(p, &QCustomPlot::mouseWheel, this, [this] { following_ = false; });
    connect(p, &QCustomPlot::mouseDoubleClick, this, [this] { setFollowLatest(true); });
    // Zooming can bring step 1 into view or push it out: the note follows the y range.
    connect(p->yAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, &LiveStepChart::updateFirstStepNote);

    restyleSeries();
    fitRanges(true);
}

void LiveStepChart::beginRun(const QString &title)
{
    assertUiThread();
    steps_->data()->clear();
    firstStep_->data()->clear();
    lastKey_ = 0;
    fittedCount_ = 0;
    following_ = true;
    clearSteadyWindow();
    clearPhase();
    setTitle(title);
    fitRanges(true);
    requestReplot();
}

void LiveStepChart::appendSteps(int firstIndex, const QVector<double> &ms)
{
    assertUiThread();
    if (ms.isEmpty())
        return;
    if (phase_->visible())
        phase_->setVisible(false); // steps are here: whatever the worker was doing is over
    QVector<double> keys, values;
    keys.reserve(ms.size());
    values.reserve(ms.size());
    for (int i = 0; i < ms.size(); ++i) {
        const int step = firstIndex + i;
        if (step < 1)
            continue; // steps are 1-based; anything below is a caller's bug, not a point
        if (step == 1) {
            firstStep_->data()->clear();
            firstStep_->addData(1, ms[i]);
        } else {
            keys.append(step);
            values.append(ms[i]);
        }
        lastKey_ = std::max(lastKey_, double(step));
    }
    // Batches arrive in step order, so each batch is sorted; the container merges if one is late.
    if (!keys.isEmpty())
        steps_->addData(keys, values, true);
    fitRanges(false);
    updateFirstStepNote();
    requestReplot();
}

void LiveStepChart::setSteadyWindow(int firstStep, int lastStep)
{
    assertUiThread();
    if (lastStep < firstStep)
        std::swap(firstStep, lastStep);
    window_->topLeft->setCoords(firstStep, 0);
    window_->bottomRight->setCoords(lastStep, 1);
    windowLabel_->position->setCoords(firstStep, 0);
    window_->setVisible(true);
    windowLabel_->setVisible(true);
    requestReplot();
}

void LiveStepChart::clearSteadyWindow()
{
    assertUiThread();
    window_->setVisible(false);
    windowLabel_->setVisible(false);
    requestReplot();
}

void LiveStepChart::setPhase(const QString &status, const QString &explanation)
{
    assertUiThread();
    // QCPItemText does not wrap: break the explanation into lines that fit a narrow chart.
    QStringList lines{status};
    QString line;
    for (const QString &word : explanation.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (!line.isEmpty() && line.size() + 1 + word.size() > 56) {
            lines << line;
            line.clear();
        }
        line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
    }
    if (!line.isEmpty())
        lines << line;
    phase_->setText(lines.join(QLatin1Char('\n')));
    phase_->setVisible(true);
    requestReplot();
}

void LiveStepChart::clearPhase()
{
    assertUiThread();
    if (!phase_->visible())
        return;
    phase_->setVisible(false);
    requestReplot();
}

QString LiveStepChart::phaseText() const
{
    return phase_->visible() ? phase_->text() : QString();
}

int LiveStepChart::pointCount() const
{
    return steps_->dataCount() + firstStep_->dataCount();
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
    const double key = p->xAxis->pixelToCoord(pos.x());

    double bestKey = 0, bestValue = 0, bestDistance = std::numeric_limits<double>::infinity();
    auto consider = [&](double k, double v) {
        const double d = std::abs(k - key);
        if (d < bestDistance) {
            bestDistance = d;
            bestKey = k;
            bestValue = v;
        }
    };
    if (!firstStep_->data()->isEmpty())
        consider(firstStep_->data()->constBegin()->key, firstStep_->data()->constBegin()->value);
    const auto &series = *steps_->data();
    if (!series.isEmpty()) {
        const auto it = std::lower_bound(series.constBegin(), series.constEnd(), key,
                                         [](const QCPGraphData &d, double k) { return d.key < k; });
        if (it != series.constEnd())
            consider(it->key, it->value);
        if (it != series.constBegin())
            consider((it - 1)->key, (it - 1)->value);
    }
    if (!std::isfinite(bestDistance) || std::abs(p->xAxis->coordToPixel(bestKey) - pos.x()) > kHoverPixels)
        return {};
    const QString value = formatStepMs(bestValue);
    if (bestKey == 1)
        return tr("step 1 (first step): %1").arg(value);
    return tr("step %1: %2").arg(formatStepCount(bestKey), value);
}

void LiveStepChart::paletteChanged()
{
    restyleSeries();
}

void LiveStepChart::restyleSeries()
{
    const QPalette &pal = palette();
    const ChartColors c = chartColors(pal);
    steps_->setPen(QPen(chartSeriesColor(0, pal), 1));
    const QColor first = chartSeriesColor(1, pal);
    firstStep_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, first, first, 10));
    QColor shade = c.highlight;
    shade.setAlpha(c.dark ? 60 : 40);
    window_->setBrush(QBrush(shade));
    windowLabel_->setColor(c.text);
    firstNote_->setColor(first);
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
}

void LiveStepChart::fitRanges(bool force)
{
    if (!following_ && !force)
        return;
    QCustomPlot *p = plot();
    p->xAxis->setRange(0, std::max(10.0, lastKey_ * 1.02 + 1));

    // The percentile costs a copy of the series: refit while the series is short, then only after it
    // grew by an eighth, which keeps 100,000 appends at a few dozen fits in all.
    const int n = steps_->dataCount();
    if (!force && n >= 4096 && n < fittedCount_ + fittedCount_ / 8)
        return;
    fittedCount_ = n;
    double top = 0;
    if (n > 0) {
        scratch_.clear();
        scratch_.reserve(std::size_t(n));
        for (auto it = steps_->data()->constBegin(); it != steps_->data()->constEnd(); ++it)
            scratch_.push_back(it->value);
        const auto at = scratch_.begin() + std::ptrdiff_t(std::floor(0.99 * (n - 1)));
        std::nth_element(scratch_.begin(), at, scratch_.end());
        top = *at * 1.2;
    } else if (!firstStep_->data()->isEmpty()) {
        top = firstStep_->data()->constBegin()->value * 1.2;
    }
    p->yAxis->setRange(0, top > 0 ? top : 1.0);
}

void LiveStepChart::updateFirstStepNote()
{
    const bool has = !firstStep_->data()->isEmpty();
    const double value = has ? firstStep_->data()->constBegin()->value : 0;
    const bool offScale = has && value > plot()->yAxis->range().upper;
    if (offScale)
        firstNote_->setText(tr("step 1: %1 (off scale)").arg(formatStepMs(value)));
    firstNote_->setVisible(offScale);
    firstArrow_->setVisible(offScale);
}

void LiveStepChart::showToolTip(QMouseEvent *event)
{
    const QString text = toolTipAt(event->position());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, plot());
}

} // namespace stepscope::ui
