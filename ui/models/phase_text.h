#pragma once
// The words for a worker's long stretch without steps (torch.compile, CUDA graph capture), as the
// status bar and the live chart show it: a 3-minute max-autotune first step must never look like
// a hang, so the elapsed time is always part of it.
#include <QString>

namespace stepscope::ui
{

// `phase` is the worker's word for it (the protocol's "compiling", "capturing"); `priming` while the
// unstored process that fills a warm compile cache runs.
// "compiling 0:42", "priming: compiling 3:05", "capturing 1:02:03" (elapsed rounded down).
QString phaseStatusText(const QString &phase, double elapsedSeconds, bool priming = false);
// A sentence under it in the live chart: what the phase is and that the wait is expected.
QString phaseExplanation(const QString &phase, bool priming = false);

} // namespace stepscope::ui
