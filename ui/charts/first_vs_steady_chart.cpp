#include "charts/first_vs_steady_chart.h"

#include "charts/chart_format.h"
#include "charts/chart_palette.h"
#include "models/ledger_model.h"

#include "charts/qcustomplot_compat.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stepscope::ui
{
namespace
{

constexpr double kOffset = 0.19; // half the distance between the two bars of a configuration
constexpr double kBarWidth = 0.36;

QString labelOf(const report::LedgerRow &row)
{
    const QString label = shortAxisLabel(QString::fromStdString(
        row.axisLabel.empty() ? (row.label.empty() ? row.configName : row.label) : row.axisLabel));
    if (row.steadyMs && row.firstStepS)
        return label;
    // The suffix says why a bar is missing: a gap alone reads as "zero".
    if (!row.failureCategory.empty() && !row.firstStepS)
        return label + QStringLiteral("\n(failed: %1)").arg(QString::fromStdString(row.failureCategory));
    if (!row.steadyMs)
        return label + (row.firstStepS ? QObject::tr("\n(no steady state)") : QObject::tr("\n(no data)"));
    return label + QObject::tr("\n(no first step)");
}

QCPItemText *valueLabel(QCustomPlot *plot, QCPAxis *valueAxis, double key, double value, const QString &text,
                        const QColor &color)
{
    auto *item = new QCPItemText(plot);
    item->position->setAxes(plot->xAxis, valueAxis);
    item->position->setCoords(key, value);
    item->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    item->setPadding(QMargins(0, 0, 0, 3));
    QFont small = plot->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    item->setFont(small);
    item->setColor(color);
    item->setText(text);
    return item;
}

} // namespace

FirstVsSteadyChart::FirstVsSteadyChart(QWidget *parent) : LedgerChart(parent)
{
    QCustomPlot *p = plot();
    p->yAxis->setScaleType(QCPAxis::stLogarithmic);
    auto logTicker = QSharedPointer<QCPAxisTickerLog>::create();
    logTicker->setLogBase(10);
    logTicker->setSubTickCount(8);
    p->yAxis->setTicker(logTicker);
    p->yAxis->setNumberFormat(QStringLiteral("gb"));
    p->yAxis->setLabel(tr("first step (s, log scale)"));
    p->yAxis2->setVisible(true);
    p->yAxis2->setLabel(tr("steady-state step (ms)"));
    p->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    p->xAxis->grid()->setVisible(false);

    // The legend gets a row of its own above the bars: inside the axis rect it would hide a bar.
    p->legend->setVisible(true);
    p->axisRect()->insetLayout()->take(p->legend);
    p->plotLayout()->insertRow(0);
    p->plotLayout()->addElement(0, 0, p->legend);
    p->plotLayout()->setRowStretchFactor(0, 0.001);
    p->legend->setFillOrder(QCPLegend::foColumnsFirst);
    p->legend->setWrap(0);
    p->legend->setBorderPen(Qt::NoPen);
    rebuild();
}

QCPAxis *FirstVsSteadyChart::firstStepAxis() const
{
    return plot()->yAxis;
}

QCPAxis *FirstVsSteadyChart::steadyAxis() const
{
    return plot()->yAxis2;
}

void FirstVsSteadyChart::rebuild()
{
    QCustomPlot *p = plot();
    p->clearPlottables();
    p->clearItems();
    labels_.clear();

    const QPalette &pal = palette();
    const ChartColors colors = chartColors(pal);
    const QColor firstColor = chartSeriesColor(1, pal);
    const QColor steadyColor = chartSeriesColor(0, pal);

    firstBars_ = new QCPBars(p->xAxis, p->yAxis);
    firstBars_->setName(tr("first step (s, left)"));
    steadyBars_ = new QCPBars(p->xAxis, p->yAxis2);
    steadyBars_->setName(tr("steady-state step (ms, right)"));
    for (auto [bars, color] : {std::pair{firstBars_, firstColor}, std::pair{steadyBars_, steadyColor}}) {
        bars->setWidth(kBarWidth);
        bars->setPen(QPen(color.darker(120), 1));
        QColor fill = color;
        fill.setAlpha(200);
        bars->setBrush(fill);
    }

    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    QVector<double> firstKeys, firstValues, firstMinus, firstPlus;
    QVector<double> steadyKeys, steadyValues, steadyMinus, steadyPlus;
    double firstLow = std::numeric_limits<double>::infinity(), firstHigh = 0, steadyHigh = 0;

    const std::vector<report::LedgerRow> empty;
    const auto &rows = model() ? model()->ledger().rows : empty;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const report::LedgerRow &row = rows[i];
        const double key = double(i);
        labels_.append(labelOf(row));
        ticker->addTick(key, labels_.last());
        if (row.firstStepS && *row.firstStepS > 0) {
            const double s = *row.firstStepS;
            firstKeys.append(key - kOffset);
            firstValues.append(s);
            firstMinus.append(row.firstStepMinS ? std::max(0.0, s - *row.firstStepMinS) : 0.0);
            firstPlus.append(row.firstStepMaxS ? std::max(0.0, *row.firstStepMaxS - s) : 0.0);
            firstLow = std::min(firstLow, row.firstStepMinS ? std::min(s, *row.firstStepMinS) : s);
            firstHigh = std::max(firstHigh, row.firstStepMaxS ? std::max(s, *row.firstStepMaxS) : s);
            valueLabel(p, p->yAxis, key - kOffset, s + firstPlus.last(), formatSecondsLabel(s), colors.text);
        }
        if (row.steadyMs) {
            const double ms = *row.steadyMs;
            steadyKeys.append(key + kOffset);
            steadyValues.append(ms);
            steadyMinus.append(row.steadyMinMs ? std::max(0.0, ms - *row.steadyMinMs) : 0.0);
            steadyPlus.append(row.steadyMaxMs ? std::max(0.0, *row.steadyMaxMs - ms) : 0.0);
            steadyHigh = std::max(steadyHigh, ms + steadyPlus.last());
            valueLabel(p, p->yAxis2, key + kOffset, ms + steadyPlus.last(), formatStepMs(ms), colors.text);
        }
    }
    firstBars_->setData(firstKeys, firstValues, true);
    steadyBars_->setData(steadyKeys, steadyValues, true);

    // Whiskers show the spread between repeats (lowest and highest per-process figure).
    const auto whiskers = [&](QCPBars *bars, QCPAxis *axis, const QVector<double> &minus, const QVector<double> &plus) {
        auto *errors = new QCPErrorBars(p->xAxis, axis);
        errors->removeFromLegend();
        errors->setDataPlottable(bars);
        errors->setData(minus, plus);
        errors->setPen(QPen(colors.text, 1));
        errors->setWhiskerWidth(6);
    };
    whiskers(firstBars_, p->yAxis, firstMinus, firstPlus);
    whiskers(steadyBars_, p->yAxis2, steadyMinus, steadyPlus);

    p->xAxis->setTicker(ticker);
    p->xAxis->setTickLabelRotation(rows.size() > 5 ? 30 : 0);
    reserveRoomForTickLabels(labels_, p->xAxis->tickLabelRotation());
    p->xAxis->setRange(-0.6, std::max<double>(1, double(rows.size())) - 0.4);

    // Whole decades on the log axis, with headroom above for the value labels.
    if (firstHigh > 0) {
        const double low = std::pow(10.0, std::floor(std::log10(firstLow * 0.9)));
        const double high = std::pow(10.0, std::ceil(std::log10(firstHigh * 2.0)));
        p->yAxis->setRange(low, high);
        firstBars_->setBaseValue(low); // a log axis has no zero for bars to stand on
    } else {
        p->yAxis->setRange(0.1, 10);
        firstBars_->setBaseValue(0.1);
    }
    p->yAxis2->setRange(0, steadyHigh > 0 ? steadyHigh * 1.15 : 1.0);
}

} // namespace stepscope::ui
