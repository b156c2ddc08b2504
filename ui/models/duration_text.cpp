#include "models/duration_text.h"

#include <QCoreApplication>

#include <algorithm>

namespace stepscope::ui
{

QString durationText(qint64 seconds)
{
    const auto tr = [](const char *text) { return QCoreApplication::translate("DurationText", text); };
    if (seconds < 90)
        return tr("%1 s").arg(std::max<qint64>(seconds, 0));
    if (seconds < 5400)
        return tr("%1 min").arg((seconds + 30) / 60);
    return tr("%1 h %2 min").arg(seconds / 3600).arg((seconds % 3600) / 60);
}

QString timeLeftText(qint64 seconds, bool guess)
{
    const auto tr = [](const char *text) { return QCoreApplication::translate("DurationText", text); };
    if (seconds < 0)
        return tr("estimating time left");
    return (guess ? tr("about %1 left") : tr("%1 left")).arg(durationText(seconds));
}

} // namespace stepscope::ui
