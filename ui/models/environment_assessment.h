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

} // namespace stepscope::ui
