// `show RUN`: the torch.compile part of a run, from the worker's `compile` info and the caches
// the supervisor gave it. Prints whatever subset of the info is there: older workers, failed
// compiles and other backends report less.
#include "cli.h"

#include "store/store.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

namespace stepscope::cli
{
namespace
{

QJsonObject objectOf(const std::string &json)
{
    return QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
}

QString text(const QJsonValue &v)
{
    if (v.isDouble())
        return QString::number(v.toDouble(), 'g', 6);
    if (v.isBool())
        return v.toBool() ? "yes" : "no";
    if (v.isString())
        return v.toString();
    if (!v.isArray() && !v.isObject())
        return "-";
    const QJsonDocument doc = v.isArray() ? QJsonDocument(v.toArray()) : QJsonDocument(v.toObject());
    return QString::fromUtf8(doc.toJson(QJsonDocument::Compact));
}

QString secondsText(double s)
{
    return s < 10 ? QString::number(s, 'f', 2) + " s" : QString::number(s, 'f', 1) + " s";
}

void printList(const char *title, const QJsonArray &items)
{
    if (items.isEmpty())
        return;
    std::printf("  %s:\n", title);
    for (const auto &item : items)
        std::printf("    - %s\n", qPrintable(text(item)));
}

void printCaches(const store::RunRecord &run)
{
    const QJsonObject dirs = objectOf(run.cacheDirs);
    if (run.compileCache.empty() && dirs.isEmpty())
        return;
    // An older file's compile_cache knob, where it has one; else the run's start state holds it all.
    if (!run.compileCache.empty())
        std::printf("compile cache (older file): %s\n", run.compileCache.c_str());
    std::printf("cache folders:\n");
    for (auto it = dirs.begin(); it != dirs.end(); ++it) {
        const QString dir = it.value().toString();
        // A sweep's cache folders go with it; say so, not "missing".
        std::printf("  %-24s %s%s\n", qPrintable(it.key()), qPrintable(dir),
                    QFileInfo::exists(dir) ? "" : "  (removed after the run)");
    }
}

} // namespace

void printCompileSection(const store::RunRecord &run)
{
    printCaches(run);
    QJsonObject info = objectOf(run.compileJson);
    if (info.isEmpty())
        return;
    QStringList how;
    for (const char *key : {"mode", "backend", "target", "cache"})
        if (info.contains(key))
            how << QString(key) + " " + text(info.take(key));
    std::printf("compile: %s\n", how.isEmpty() ? "(settings not reported)" : qPrintable(how.join(", ")));
    if (info.contains("compiled")) {
        const bool compiled = info.take("compiled").toBool();
        const QString reason = info.take("fallback_reason").toString();
        std::printf("  compiled: %s%s\n", compiled ? "yes" : "no",
                    reason.isEmpty() ? "" : qPrintable(" (" + reason + ")"));
    } else if (info.contains("fallback_reason")) {
        std::printf("  fallback: %s\n", qPrintable(info.take("fallback_reason").toString()));
    }
    QStringList times;
    if (info.contains("compile_s"))
        times << "compile " + secondsText(info.take("compile_s").toDouble());
    if (info.contains("first_step_s"))
        times << "first step " + secondsText(info.take("first_step_s").toDouble());
    if (!times.isEmpty())
        std::printf("  time: %s\n", qPrintable(times.join(", ")));
    const QJsonObject phases = info.take("phases").toObject();
    if (!phases.isEmpty()) {
        std::printf("  phases:\n");
        for (auto it = phases.begin(); it != phases.end(); ++it)
            std::printf("    %-26s %s\n", qPrintable(it.key()),
                        it.value().isDouble() ? qPrintable(secondsText(it.value().toDouble()))
                                              : qPrintable(text(it.value())));
    }
    QStringList counts;
    for (const char *key : {"graphs", "graph_breaks", "recompiles"})
        if (info.contains(key))
            counts << QString(key).replace('_', ' ') + " " + text(info.take(key));
    if (!counts.isEmpty())
        std::printf("  %s\n", qPrintable(counts.join(", ")));
    printList("graph break reasons", info.take("break_reasons").toArray());
    printList("CUDA graph skips", info.take("cudagraph_skips").toArray());
    // Whatever else a newer worker reports, so that nothing it said is hidden.
    for (auto it = info.begin(); it != info.end(); ++it)
        std::printf("  %s: %s\n", qPrintable(it.key()), qPrintable(text(it.value())));
}

} // namespace stepscope::cli
