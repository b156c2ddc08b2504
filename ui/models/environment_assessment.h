#pragma once
// The environment view's rows: report::assessSweep's findings (core/report/environment_assessment.h),
// worded by report/assessment_text.h as the CLI words them, as Qt strings for the environment
// table and the exported report.
#include "report/environment_assessment.h"

#include <QList>
#include <QString>

namespace stepscope::ui
{

using Severity = report::Severity;

struct EnvironmentEntry {
    QString key;   // the record's key, or the name of a fact it lacks ("gpu_clocks")
    QString label; // for people: "CUDA cache path"
    QString value;
    QString assessment; // what it does to the numbers; empty when nothing
    QString fix;
    Severity severity = Severity::None;
    report::Finding finding = report::Finding::None;
};

// Entries in a stable order (GPU and versions first, then the rest by key, then missing facts).
// Empty or unreadable JSON gives no entries.
QList<EnvironmentEntry> assessEnvironment(const QString &environmentJson);

// One completed run as the timing facts see it (report::RunTiming).
struct RunTiming {
    QString configJson;        // RunRecord::configJson
    double steadyMedianMs = 0; // RunSummary::medianMs (GPU time on CUDA); 0 when unknown
    double blockWallMs = 0;    // RunRecord::blockWallMs: mean wall time per step; 0 when unknown
};
// Facts a sweep's runs show about the CPU (report::assessTiming), as rows of the environment view:
// "launch_bound" and "cpu_pinning". Empty when the runs show neither.
QList<EnvironmentEntry> assessTiming(const QList<RunTiming> &runs);

} // namespace stepscope::ui
