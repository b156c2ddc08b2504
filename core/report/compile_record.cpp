#include "report/compile_record.h"

#include "report/ledger_text.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace stepscope::report
{
namespace
{

QString tr(const char *text)
{
    return QCoreApplication::translate("CompileRecord", text);
}

std::optional<double> number(const QJsonObject &o, const char *key)
{
    const QJsonValue v = o.value(QLatin1String(key));
    return v.isDouble() ? std::optional<double>(v.toDouble()) : std::nullopt;
}

std::optional<int> count(const QJsonObject &o, const char *key)
{
    const auto v = number(o, key);
    return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}

QStringList strings(const QJsonObject &o, const char *key)
{
    QStringList out;
    for (const QJsonValue &v : o.value(QLatin1String(key)).toArray()) {
        // A reason is normally a string; anything else is shown as its JSON rather than dropped.
        if (v.isString())
            out << v.toString();
        else if (v.isObject())
            out << QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
        else
            out << v.toVariant().toString();
    }
    return out;
}

QList<QPair<QString, double>> numbers(const QJsonObject &o, const char *key)
{
    QList<QPair<QString, double>> out;
    const QJsonObject inner = o.value(QLatin1String(key)).toObject();
    for (auto it = inner.begin(); it != inner.end(); ++it)
        if (it.value().isDouble())
            out.append({it.key(), it.value().toDouble()});
    return out;
}

// The phases in the order a compile goes through them (the worker's JSON object arrives sorted
// by name); unknown ones from a newer worker follow.
void orderPhases(QList<QPair<QString, double>> &phases)
{
    static const QStringList order{
        "dynamo_tracing_s",      "aot_autograd_s", "inductor_forward_s",    "inductor_backward_s",
        "kernel_compile_wait_s", "autotuning_s",   "cudagraph_recording_s", "backend_s"};
    const auto rank = [](const QString &key) {
        const auto i = order.indexOf(key);
        return i < 0 ? order.size() : i;
    };
    std::stable_sort(phases.begin(), phases.end(),
                     [&](const auto &a, const auto &b) { return rank(a.first) < rank(b.first); });
}

QString plural(int n, const char *one, const char *many)
{
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? tr(one) : tr(many));
}

} // namespace

CompileRecord parseCompileRecord(const QString &json)
{
    CompileRecord r;
    const QJsonObject o = QJsonDocument::fromJson(json.toUtf8()).object();
    if (o.isEmpty())
        return r;
    r.present = true;
    r.mode = o.value(QLatin1String("mode")).toString();
    r.backend = o.value(QLatin1String("backend")).toString();
    r.target = o.value(QLatin1String("target")).toString();
    r.cache = o.value(QLatin1String("cache")).toString();
    r.compileS = number(o, "compile_s");
    r.firstStepS = number(o, "first_step_s");
    r.phases = numbers(o, "phases");
    orderPhases(r.phases);
    r.graphs = count(o, "graphs");
    r.graphBreaks = count(o, "graph_breaks");
    r.recompiles = count(o, "recompiles");
    r.breakReasons = strings(o, "break_reasons");
    r.cudagraphSkips = strings(o, "cudagraph_skips");
    r.fxGraphCache = numbers(o, "fx_graph_cache");
    r.aotAutogradCache = numbers(o, "aot_autograd_cache");
    if (const QJsonValue c = o.value(QLatin1String("compiled")); c.isBool())
        r.compiled = c.toBool();
    r.fallbackReason = o.value(QLatin1String("fallback_reason")).toString();
    return r;
}

CompileRecord parseCompileRecord(const std::string &json)
{
    return parseCompileRecord(QString::fromStdString(json));
}

QString compilePhaseName(const QString &key)
{
    QString name = key;
    if (name.endsWith(QLatin1String("_s")))
        name.chop(2);
    return name.replace(QLatin1Char('_'), QLatin1Char(' '));
}

QString notCompiledText(const CompileRecord &record, const QString &otherwise)
{
    QString reason = record.fallbackReason;
    if (reason.isEmpty())
        reason = otherwise;
    if (reason.isEmpty())
        reason = tr("the worker gave no reason");
    return tr("NOT compiled: %1").arg(reason);
}

QString compileSettingsText(const CompileRecord &record)
{
    QStringList parts;
    for (const QString &part : {record.mode, record.backend, record.target})
        if (!part.isEmpty())
            parts << part;
    if (!record.cache.isEmpty())
        parts << tr("%1 cache").arg(record.cache);
    return parts.join(QStringLiteral(", "));
}

QString compileCountsText(const CompileRecord &record)
{
    QStringList parts;
    if (record.graphs)
        parts << plural(*record.graphs, "graph", "graphs");
    if (record.graphBreaks)
        parts << plural(*record.graphBreaks, "graph break", "graph breaks");
    if (record.recompiles)
        parts << plural(*record.recompiles, "recompile", "recompiles");
    return parts.join(QStringLiteral(", "));
}

QString cacheCountsText(const QList<QPair<QString, double>> &counts)
{
    QStringList parts;
    for (const auto &[key, value] : counts)
        parts << QStringLiteral("%1 %2").arg(key).arg(value, 0, 'g', 6);
    return parts.join(QStringLiteral(", "));
}

QString compilePhasesText(const CompileRecord &r)
{
    QStringList parts;
    for (const auto &[key, s] : r.phases)
        parts << QStringLiteral("%1 %2").arg(compilePhaseName(key), QString::fromStdString(formatSeconds(s)));
    return parts.join(QStringLiteral(", "));
}

bool runNotCompiled(const store::RunRecord &run, QString *text)
{
    const CompileRecord c = parseCompileRecord(run.compileJson);
    // A record that says it compiled is believed: a compile-failed run that failed after compiling
    // (cudagraph trees overwriting a step's outputs) was compiled, and its failure says what broke.
    if (c.compiled.value_or(false))
        return false;
    const bool failedCompile = run.category == FailureCategory::CompileFailed;
    if (!c.notCompiled() && !failedCompile)
        return false;
    if (text)
        *text = notCompiledText(c, QString::fromStdString(run.message));
    return true;
}

} // namespace stepscope::report
