#pragma once
// Number formats of figures in every view: the charts' labels, the run detail, the ledger table and the
// report write a time or a step count the same way. Text only, so the models floor holds it.
#include <QString>

namespace stepscope::ui
{

QString formatStepMs(double ms);      // "8.21 ms", "21.4 ms", "516 ms", "2.31 s" (from 1,000 ms)
QString formatDeltaMs(double ms);     // "−3.8 ms", "+1.2 ms" (a true minus sign)
QString formatSecondsLabel(double s); // the report's format: "516 ms", "2.34 s", "3 min 45 s"
QString formatStepCount(double n);    // "1,234" in the user's locale

// A configuration label short enough for a category axis: rotated tick labels longer than that
// run off the chart (a Python row of a GPU ledger is "python tf32+cudnn-bench+bf16+channels-last").
// Keeps the first knob (and the runtime before it) and the last, which is what the row adds:
// "python tf32+…+channels-last". Short labels are returned as they are.
QString shortAxisLabel(const QString &label);

} // namespace stepscope::ui
