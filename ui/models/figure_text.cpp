#include "models/figure_text.h"

#include "report/ledger.h"

#include "report/number_text.h"

#include <QLocale>

#include <cmath>

namespace stepscope::ui
{
namespace
{

// Three significant digits: step times differ in the second or third digit, never beyond.
int decimalsFor(double magnitude)
{
    if (magnitude < 10)
        return 2;
    if (magnitude < 100)
        return 1;
    return 0;
}

} // namespace

QString formatStepMs(double ms)
{
    if (!std::isfinite(ms))
        return QStringLiteral("-");
    if (std::abs(ms) >= 1000)
        return formatSecondsLabel(ms / 1000.0);
    return QString::number(ms, 'f', decimalsFor(std::abs(ms))) + QStringLiteral(" ms");
}

QString formatDeltaMs(double ms)
{
    if (!std::isfinite(ms))
        return QStringLiteral("-");
    const double magnitude = std::abs(ms);
    const QString digits = QString::number(magnitude, 'f', magnitude < 0.1 ? 2 : 1);
    return (ms < 0 ? QStringLiteral("\u2212") : QStringLiteral("+")) + digits + QStringLiteral(" ms");
}

QString formatSecondsLabel(double s)
{
    return QString::fromStdString(report::formatSeconds(s));
}

QString shortAxisLabel(const QString &label)
{
    constexpr int kMax = 28;
    if (label.size() <= kMax)
        return label;
    const QStringList knobs = label.split(QLatin1Char('+'));
    if (knobs.size() > 2) {
        const QString kept = knobs.front() + QStringLiteral("+\u2026+") + knobs.back();
        if (kept.size() <= kMax + 8)
            return kept;
    }
    return label.left(12) + QStringLiteral("\u2026") + label.right(kMax - 13);
}

QString formatStepCount(double n)
{
    if (!std::isfinite(n))
        return QStringLiteral("never");
    // Grouped the same way under every locale: "1.779" would read as a decimal in English text.
    return QString::fromStdString(report::groupThousands(std::llround(n)));
}

} // namespace stepscope::ui
