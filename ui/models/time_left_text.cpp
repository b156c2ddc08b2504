#include "models/time_left_text.h"

#include "supervisor/time_left.h"

#include <QCoreApplication>

namespace stepscope::ui
{

QString timeLeftText(qint64 seconds, bool guess)
{
    const auto tr = [](const char *text) { return QCoreApplication::translate("TimeLeftText", text); };
    if (seconds < 0)
        return tr("estimating time left");
    const QString left = QString::fromStdString(supervisor::roundedTimeLeft(static_cast<double>(seconds)));
    return (guess ? tr("%1 left, a guess") : tr("%1 left")).arg(left);
}

} // namespace stepscope::ui
