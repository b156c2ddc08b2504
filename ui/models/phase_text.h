#pragma once
// The words for a worker's long stretch without steps (torch.compile, CUDA graph capture), as the
// status bar and the live chart show it: a 3-minute max-autotune first step must never look like
// a hang, so the elapsed time is always part of it.
#include <QString>

namespace stepscope::ui
{

// "compiling 0:42", "priming: compiling 3:05", "capturing 1:02:03" (elapsed rounded down).
QString phaseStatusText(const QString &phase, double elapsedSeconds);
// A sentence under it in the live chart: what the phase is and that the wait is expected.
QString phaseExplanation(const QString &phase);

} // namespace stepscope::ui
