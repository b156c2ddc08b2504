#pragma once
// A stretch of time as the dashboard says it ("45 s", "3 min", "1 h 20 min"): the time a sweep has
// left while it runs (the status bar, beside Start/Stop) and the time one would take (the preview
// above Start). Rounded as a person reads an estimate: seconds under 90 s, minutes under 90 min.
#include <QString>

namespace stepscope::ui
{

QString durationText(qint64 seconds);
// The time a running sweep has left ("about 3 min left"; "estimating time left" while < 0). An
// estimate that is a guess (some run predicted from runs of another kind, supervisor/time_left.h)
// says "about"; one from runs of the same configurations does not.
QString timeLeftText(qint64 seconds, bool guess);

} // namespace stepscope::ui
