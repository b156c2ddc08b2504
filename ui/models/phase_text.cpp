#include "models/phase_text.h"

#include <QCoreApplication>

#include <cmath>

namespace stepscope::ui
{

QString phaseStatusText(const QString &phase, double elapsedSeconds, bool priming)
{
    const qint64 total = std::isfinite(elapsedSeconds) && elapsedSeconds > 0 ? qint64(elapsedSeconds) : 0;
    const qint64 h = total / 3600, m = (total % 3600) / 60, s = total % 60;
    const QString clock =
        h > 0 ? QStringLiteral("%1:%2:%3").arg(h).arg(m, 2, 10, QLatin1Char('0')).arg(s, 2, 10, QLatin1Char('0'))
              : QStringLiteral("%1:%2").arg(m).arg(s, 2, 10, QLatin1Char('0'));
    const QString what = phase.isEmpty() ? QCoreApplication::translate("Phase", "working") : phase;
    return QStringLiteral("%1 %2").arg(priming ? QCoreApplication::translate("Phase", "priming: %1").arg(what) : what,
                                       clock);
}

QString phaseExplanation(const QString &phase, bool priming)
{
    const auto tr = [](const char *text) { return QCoreApplication::translate("Phase", text); };
    if (priming)
        return tr("Filling the warm cache with a one-step run of this configuration; the measured run follows.");
    if (phase == QLatin1String("compiling"))
        return tr("torch.compile is building the first step: tens of seconds, minutes with max-autotune. "
                  "The worker is alive; steps follow.");
    if (phase == QLatin1String("capturing"))
        return tr("Recording the CUDA graph; steps follow.");
    if (phase == QLatin1String("profiling"))
        return tr("Profiling steps after the timed ones for the Why page; every timed figure is in.");
    return tr("The worker is alive; steps follow.");
}

} // namespace stepscope::ui
