#pragma once
// The time a running sweep has left, as the dashboard says it (the status bar, beside Start/Stop):
// core's rounded words (supervisor::roundedTimeLeft, which the CLI prints too) with "left", and
// ", a guess" where runs of another kind stood in for some of it (supervisor/time_left.h).
#include <QString>

namespace stepscope::ui
{

// "about 3 min left", "about 40 s left, a guess"; "estimating time left" while `seconds` < 0.
QString timeLeftText(qint64 seconds, bool guess);

} // namespace stepscope::ui
