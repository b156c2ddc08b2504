#include "charts/log_ticker.h"

#include <algorithm>
#include <cmath>

namespace stepscope::ui
{
namespace
{

constexpr int kMinTicks = 3;

int inside(const QVector<double> &ticks, const QCPRange &range)
{
    return int(std::count_if(ticks.begin(), ticks.end(), [&](double t) { return range.contains(t); }));
}

} // namespace

QVector<double> LogTicker::createTickVector(double tickStep, const QCPRange &range)
{
    mantissas_ = false;
    QVector<double> ticks = QCPAxisTickerLog::createTickVector(tickStep, range);
    if (range.lower <= 0 || range.upper <= 0) // a negative log range: the base ticker's business
        return ticks;
    const double decades = std::log10(range.upper / range.lower);
    if (decades >= 1.6 && inside(ticks, range) >= kMinTicks)
        return ticks;
    // Each ladder adds mantissas within a decade; the first that puts three ticks inside the range wins.
    // One tick past each end, so that the axis's trimming keeps its usual outer ticks.
    static const QVector<QVector<double>> ladders{{1, 2, 5}, {1, 2, 3, 5, 7}, {1, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9}};
    for (const QVector<double> &ladder : ladders) {
        QVector<double> candidate;
        for (int e = int(std::floor(std::log10(range.lower))) - 1; e <= int(std::ceil(std::log10(range.upper))); ++e)
            for (const double m : ladder)
                candidate.append(m * std::pow(10.0, e));
        if (inside(candidate, range) >= kMinTicks) {
            mantissas_ = true;
            return candidate;
        }
    }
    return QCPAxisTicker::createTickVector(tickStep, range); // narrower than any ladder: linear steps
}

int LogTicker::getSubTickCount(double tickStep)
{
    // Evenly spaced sub ticks between 1, 2 and 5 would read as a scale of their own.
    return mantissas_ ? 0 : QCPAxisTickerLog::getSubTickCount(tickStep);
}

void useLogTicker(QCPAxis *axis)
{
    axis->setScaleType(QCPAxis::stLogarithmic);
    axis->setTicker(QSharedPointer<LogTicker>::create());
}

} // namespace stepscope::ui
