#pragma once
// The comparison report of two stored sweeps, written without a window: `stepscope --compare A,B
// --report FILE`. The report is made of what the Compare page shows (its table in its order, its
// chart), so a Compare page that is never shown compares the two and exports, as File › Export
// comparison report does; this waits for both in a local event loop.
#include "controller/comparison_job.h"

#include <QString>

namespace stepscope::ui
{

// Writes the comparison of side A with side B (a side's empty path: `database`) to `path`, whose
// suffix picks the format. False, with *error saying what to do, for a target that is one of the
// databases' own files, an unknown suffix, a database that cannot be read, a sweep without runs
// or not there, or a file that cannot be written. Call it on the GUI thread of a QApplication
// (the offscreen platform will do), outside any other event loop's handler that must not wait.
bool writeStoredComparisonReport(const QString &database, const ComparisonSide &a, const ComparisonSide &b,
                                 const QString &path, QString *error = nullptr);

} // namespace stepscope::ui
