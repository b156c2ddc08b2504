#include "report/environment_assessment.h"

#include "config/config_json.h"
#include "report/assessment_text.h"
#include "report/run_summary.h"
#include "stats/stats.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QVariant>

#include <algorithm>
#include <map>

namespace stepscope::report
{
namespace
{

bool startsWith(const std::string &text, const char *prefix)
{
    return text.rfind(prefix, 0) == 0;
}

bool has(const std::string &text, const char *part)
{
    return text.find(part) != std::string::npos;
}

std::string textOf(const QJsonValue &value)
{
    return value.toVariant().toString().toStdString();
}

double numberOf(const std::string &text)
{
    bool ok = false;
    const double v = QString::fromStdString(text).toDouble(&ok);
    return ok ? v : 0.0;
}

// The record as the rules read it. The worker writes "none (...)" as the GPU of a machine without
// CUDA and "unset (...)" for an unset CUDA_CACHE_PATH: those values are the record's data.
struct Facts {
    QJsonObject env;
    std::string value(const char *key) const { return textOf(env.value(QLatin1String(key))); }
    bool hasGpu() const
    {
        const std::string gpu = value("gpu");
        return !gpu.empty() && !startsWith(gpu, "none");
    }
    bool hasKeyContaining(const char *part) const
    {
        const auto keys = env.keys();
        return std::any_of(keys.begin(), keys.end(),
                           [part](const QString &k) { return k.contains(QLatin1String(part)); });
    }
};

struct Rule {
    const char *key;
    // Whether the rule speaks; `value` is empty when the record lacks the key.
    bool (*applies)(const std::string &value, const Facts &facts);
    Finding finding;
    Severity severity;
};

// First matching rule per key wins.
const Rule kRules[] = {
    {"gpu", [](const std::string &v, const Facts &) { return startsWith(v, "none"); }, Finding::CudaUnavailable,
     Severity::Problem},
    {"cuda_cache_path", [](const std::string &v, const Facts &f) { return f.hasGpu() && startsWith(v, "unset"); },
     Finding::SharedCudaCache, Severity::Warning},
    {"cuda_module_loading", [](const std::string &v, const Facts &f) { return f.hasGpu() && has(v, "EAGER"); },
     Finding::EagerModuleLoading, Severity::Warning},
    {"cuda_module_loading", [](const std::string &v, const Facts &f) { return f.hasGpu() && !v.empty(); },
     Finding::LazyModuleLoading, Severity::Info},
    {"cpu_threads",
     [](const std::string &v, const Facts &) {
         bool ok = false;
         const int n = QString::fromStdString(v).toInt(&ok);
         return ok && n > 0 && n < 4;
     },
     Finding::FewCpuThreads, Severity::Warning},
    {"cpu_affinity", [](const std::string &v, const Facts &) { return !v.empty() && v != "none"; },
     Finding::PinnedWorker, Severity::Info},
    {"after_throttle_reasons",
     [](const std::string &v, const Facts &) {
         // Idle is not a slowdown (the card waits for work), and neither is an application-clock setting.
         for (const char *slow : {"power", "thermal", "hw-slowdown", "sync-boost"})
             if (has(v, slow))
                 return true;
         return false;
     },
     Finding::GpuThrottled, Severity::Problem},
    {"after_sm_clock_mhz",
     [](const std::string &v, const Facts &f) {
         const double max = numberOf(f.value("before_sm_clock_max_mhz"));
         return max > 0 && numberOf(v) > 0 && numberOf(v) < 0.9 * max;
     },
     Finding::SmClockBelowMaximum, Severity::Warning},
    {"gpu_clocks",
     [](const std::string &v, const Facts &f) { return v.empty() && f.hasGpu() && !f.hasKeyContaining("clock"); },
     Finding::ClocksNotRecorded, Severity::Warning},
};

void assess(EnvironmentFact &fact, const Facts &facts)
{
    for (const Rule &rule : kRules) {
        if (fact.key != rule.key || !rule.applies(fact.value, facts))
            continue;
        fact.finding = rule.finding;
        fact.severity = rule.severity;
        return;
    }
}

// Per configuration (repeats pooled by their medians): the figures, and the configuration itself,
// which pairs a pinned run with its unpinned twin.
struct Pooled {
    RunConfig config;
    std::vector<double> medians, walls;
};

std::map<std::string, Pooled> pooledByName(const std::vector<RunTiming> &runs)
{
    std::map<std::string, Pooled> byName;
    for (const RunTiming &run : runs) {
        RunConfig c;
        std::vector<ConfigError> errors;
        if (run.steadyMedianMs <= 0 || !parseStoredConfig(QByteArray::fromStdString(run.configJson), c, errors))
            continue;
        Pooled &entry = byName[canonicalName(c)];
        entry.config = c;
        entry.medians.push_back(run.steadyMedianMs);
        if (run.blockWallMs > 0)
            entry.walls.push_back(run.blockWallMs);
    }
    return byName;
}

std::optional<LaunchBound> launchBoundOf(const std::map<std::string, Pooled> &byName)
{
    LaunchBound out;
    const Pooled *worst = nullptr;
    for (const auto &[name, entry] : byName) {
        if (!entry.config.onCuda() || entry.walls.empty())
            continue;
        ++out.measured;
        const double ratio = stats::median(entry.walls) / stats::median(entry.medians);
        if (ratio < kLaunchBoundRatio)
            continue;
        ++out.bound;
        if (ratio > out.ratio) {
            out.ratio = ratio;
            worst = &entry;
        }
    }
    if (!worst)
        return std::nullopt;
    out.worst = worst->config;
    out.wallMs = stats::median(worst->walls);
    out.gpuMs = stats::median(worst->medians);
    return out;
}

std::vector<PinningPair> pinningOf(const std::map<std::string, Pooled> &byName)
{
    std::vector<PinningPair> out;
    for (const auto &[name, pinned] : byName) {
        if (pinned.config.cpuAffinity == "none")
            continue;
        RunConfig twin = pinned.config;
        twin.cpuAffinity = "none";
        const auto it = byName.find(canonicalName(twin));
        if (it == byName.end())
            continue;
        PinningPair pair;
        pair.pinned = pinned.config;
        pair.pinnedMs = stats::median(pinned.medians);
        pair.unpinnedMs = stats::median(it->second.medians);
        const double ratio = pair.pinnedMs / pair.unpinnedMs;
        pair.outcome = ratio < 0.97   ? PinningOutcome::Faster
                       : ratio > 1.03 ? PinningOutcome::Slower
                                      : PinningOutcome::NoChange;
        out.push_back(pair);
    }
    return out;
}

} // namespace

std::vector<EnvironmentFact> assessEnvironment(const std::string &environmentJson)
{
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(environmentJson));
    if (!doc.isObject())
        return {};
    const Facts facts{doc.object()};

    std::vector<EnvironmentFact> out;
    for (auto it = facts.env.begin(); it != facts.env.end(); ++it) {
        EnvironmentFact fact;
        fact.key = it.key().toStdString();
        fact.value = textOf(it.value());
        assess(fact, facts);
        out.push_back(fact);
    }
    std::stable_sort(out.begin(), out.end(), [](const EnvironmentFact &a, const EnvironmentFact &b) {
        return factOrder(a.key) < factOrder(b.key);
    });

    // Facts the record lacks can skew numbers too: a rule that speaks on an empty value adds a row.
    for (const Rule &rule : kRules) {
        if (facts.env.contains(QLatin1String(rule.key)) || !rule.applies(std::string(), facts))
            continue;
        if (std::any_of(out.begin(), out.end(), [&](const EnvironmentFact &f) { return f.key == rule.key; }))
            continue;
        EnvironmentFact fact;
        fact.key = rule.key;
        fact.recorded = false;
        assess(fact, facts);
        out.push_back(fact);
    }
    return out;
}

std::vector<RunTiming> sweepTimings(const store::Reader &reader, std::int64_t sweepId)
{
    std::vector<RunTiming> out;
    for (const auto &run : reader.runs(sweepId)) {
        if (run.status != RunStatus::Complete)
            continue;
        const auto summary = summaryOf(reader, run);
        out.push_back({run.configJson, summary.medianMs.value_or(0.0), run.blockWallMs.value_or(0.0)});
    }
    return out;
}

TimingAssessment assessTiming(const std::vector<RunTiming> &runs)
{
    const auto byName = pooledByName(runs);
    return {launchBoundOf(byName), pinningOf(byName)};
}

SweepAssessment assessSweep(const std::string &environmentJson, const std::vector<RunTiming> &runs)
{
    return {assessEnvironment(environmentJson), assessTiming(runs)};
}

} // namespace stepscope::report
