#pragma once
// The worker's torch.compile record of one run (store::RunRecord::compileJson), parsed once in core
// so that the run detail, the dashboard's report, the log and the CLI's exports read the same facts
// in the same words. Every field
// is optional: older workers, failed compiles and other backends report less.
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <optional>

#include "store/store.h"

namespace stepscope::report
{

struct CompileRecord {
    bool present = false; // the JSON was an object with at least one key
    QString mode, backend, target, cache;
    std::optional<double> compileS, firstStepS;
    QList<QPair<QString, double>> phases; // (raw key, seconds) in the order a compile runs them
    std::optional<int> graphs, graphBreaks, recompiles;
    QStringList breakReasons, cudagraphSkips;
    QList<QPair<QString, double>> fxGraphCache;     // "hit", "miss", ... as counted by inductor
    QList<QPair<QString, double>> aotAutogradCache; // same for AOT autograd's cache
    std::optional<bool> compiled;                   // false: the run is not what it is named after
    QString fallbackReason;

    bool notCompiled() const { return compiled.has_value() && !*compiled; }
};

CompileRecord parseCompileRecord(const QString &json);
CompileRecord parseCompileRecord(const std::string &json);

// "dynamo_tracing_s" -> "dynamo tracing": the phase keys read as words.
QString compilePhaseName(const QString &key);
// "NOT compiled: <reason>"; the reason falls back to `otherwise` (e.g. the failure message) and
// then to a sentence that says nothing more is known.
QString notCompiledText(const CompileRecord &record, const QString &otherwise = {});
// "reduce-overhead, inductor, model, cold cache": how the run was compiled, as far as reported.
QString compileSettingsText(const CompileRecord &record);
// "1 graph, 0 graph breaks, 0 recompiles"
QString compileCountsText(const CompileRecord &record);
// "hit 12, miss 3"; empty without counts.
QString cacheCountsText(const QList<QPair<QString, double>> &counts);
// "dynamo tracing 2.1 s, inductor 14.0 s": the phases as the worker's torch reported them.
QString compilePhasesText(const CompileRecord &record);

// Whether a run is not what it is named after: its record says it did not compile, or it failed
// compiling; `text` gets notCompiledText's words. One reading for every view and export.
bool runNotCompiled(const store::RunRecord &run, QString *text = nullptr);

} // namespace stepscope::report
