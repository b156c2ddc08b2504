#pragma once
// What a worker's environment record means for the numbers: each fact that can skew a figure
// gets an assessment and a fix. The environment table and the exported report both read it.
#include <QList>
#include <QString>

namespace stepscope::ui
{

enum class Severity { None, Info, Warning, Problem };

struct EnvironmentEntry {
    QString key;   // the record's key, or the name of a fact it lacks ("gpu_clocks")
    QString label; // for people: "CUDA cache path"
    QString value;
    QString assessment; // what it does to the numbers; empty when nothing
    QString fix;
    Severity severity = Severity::None;
};

// Entries in a stable order (GPU and versions first, then the rest by key, then missing facts).
// Empty or unreadable JSON gives no entries.
QList<EnvironmentEntry> assessEnvironment(const QString &environmentJson);

// One completed run as the timing facts see it.
struct RunTiming {
    QString configJson;        // RunRecord::configJson
    double steadyMedianMs = 0; // RunSummary::medianMs (GPU time on CUDA); 0 when unknown
    double blockWallMs = 0;    // RunRecord::blockWallMs: mean wall time per step; 0 when unknown
};
// Facts a sweep's runs show about the CPU, as rows of the environment view:
//   "launch_bound"  a step whose wall time is at least kLaunchBoundRatio x its GPU time: the CPU
//                   (kernel launches, Python) limits it; the fix is to pin the worker to one core.
//   "cpu_pinning"   per configuration run both pinned and unpinned (otherwise the same): what
//                   pinning did, as the ratio of their steady medians.
// Empty when the runs show neither.
constexpr double kLaunchBoundRatio = 1.3;
QList<EnvironmentEntry> assessTiming(const QList<RunTiming> &runs);

} // namespace stepscope::ui
