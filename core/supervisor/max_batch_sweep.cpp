#include "supervisor/max_batch_sweep.h"

#include "config/config_json.h"
#include "report/compile_record.h"
#include "report/number_text.h"
#include "report/peak_memory.h"
#include "supervisor/run_costs.h"
#include "supervisor/sweep_request.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <map>

namespace stepscope::supervisor
{

namespace
{

constexpr double kMiB = 1024.0 * 1024.0;

// The search a run belongs to: its configuration whatever the batch.
std::string searchKey(RunConfig config)
{
    config.batch = 0;
    return canonicalName(config);
}

std::string labelOf(const RunConfig &config)
{
    // The canonical name without " b<batch>": the batch is what the search finds.
    std::string name = canonicalName(config);
    const std::string batch = " b" + std::to_string(config.batch) + " ";
    if (const auto at = name.find(batch); at != std::string::npos)
        name.erase(at, batch.size() - 1);
    return name;
}

// The memory the peaks are held against: the run's limit, else its GPU's own (the worker's hello).
void limitOf(const store::Reader &reader, const store::RunRecord &run, const RunConfig &config, MaxBatchSearch &search)
{
    if (config.memoryLimitMib > 0) {
        search.limitBytes = config.memoryLimitMib * kMiB;
        search.limitText = "memory_limit_mib " + std::to_string(config.memoryLimitMib);
        return;
    }
    if (search.limitBytes || !config.onCuda() || !run.environmentId)
        return;
    const auto env = reader.environment(*run.environmentId);
    if (!env)
        return;
    const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(env->json)).object();
    const double mib = o.value("gpu_memory_mib").toVariant().toDouble();
    if (mib > 0) {
        search.limitBytes = mib * kMiB;
        search.limitText = config.device + "'s " + report::memoryFigureText(mib);
    }
}

} // namespace

report::MaxBatchTry maxBatchTryOf(const store::RunRecord &run, int batch)
{
    report::MaxBatchTry t;
    t.batch = batch;
    // A compiled configuration pays its compile in every try (30 s a try for reduce-overhead on an
    // H100: four tries filled the 2 minutes, and no search narrowed). That is its price of admission,
    // not the search's: the cap on seconds counts the rest, and the tries cap still counts every try.
    const auto compileS = report::parseCompileRecord(run.compileJson).compileS;
    t.seconds = std::max(0.0, wallSeconds(run).value_or(0) - compileS.value_or(0));
    if (run.status == RunStatus::Complete) {
        t.result = report::MaxBatchTry::Result::Fits;
        // Reserved is what a cap on the allocator binds; a worker that reports 0 measured nothing.
        if (run.peakReservedBytes && *run.peakReservedBytes > 0)
            t.peakBytes = static_cast<double>(*run.peakReservedBytes);
        else if (run.peakAllocatedBytes && *run.peakAllocatedBytes > 0)
            t.peakBytes = static_cast<double>(*run.peakAllocatedBytes);
        if (run.peakAllocatedBytes && *run.peakAllocatedBytes > 0)
            t.allocatedBytes = static_cast<double>(*run.peakAllocatedBytes);
    } else if (run.status == RunStatus::Failed && run.category == FailureCategory::OutOfMemory) {
        t.result = report::MaxBatchTry::Result::OutOfMemory;
    } else {
        // Cancelled, interrupted or failed another way: never a fit, never out of memory.
        t.result = report::MaxBatchTry::Result::Failed;
        t.failure = run.category ? std::string(toString(*run.category)) + ": " + run.message
                                 : std::string(toString(run.status)) + (run.message.empty() ? "" : ": " + run.message);
    }
    return t;
}

RunConfig maxBatchTry(RunConfig config, int batch)
{
    config.batch = batch;
    config.warmupSteps = 0;
    config.steps = kMaxBatchTrySteps;
    return config;
}

std::vector<ConfigError> maxBatchProblems(const SweepRequest &r)
{
    std::vector<ConfigError> errors;
    if (!r.maxBatch)
        return errors;
    const auto refuse = [&](const std::string &why) { errors.push_back({"max-batch", why}); };
    if (!r.batches.empty())
        refuse("the search starts at each configuration's own batch, so a batch scan does not go with it: give "
               "one --batch, or run the scan apart");
    if (r.adaptive)
        refuse("adaptive repeats time configurations and the search times none: drop --until-ci");
    for (const RunConfig &c : r.configs)
        if (!c.onCuda() && c.memoryLimitMib <= 0) {
            refuse(canonicalName(c) + " runs on the CPU: give --memory-limit-mib (the worker's peak resident memory "
                                      "is held to it), or the search would find the machine's memory by swapping");
            break;
        }
    return errors;
}

bool isMaxBatchSweep(const store::SweepRecord &sweep)
{
    const QJsonObject settings = QJsonDocument::fromJson(QByteArray::fromStdString(sweep.settingsJson)).object();
    return settings.contains("max_batch");
}

std::vector<MaxBatchSearch> maxBatchSearches(const store::Reader &reader, std::int64_t sweepId,
                                             const report::MaxBatchLimits &limits)
{
    std::vector<MaxBatchSearch> searches;
    std::map<std::string, std::size_t> byKey;
    for (const store::RunRecord &run : reader.runs(sweepId)) {
        // Read without the table's rules: a try the worker refused as invalid-config is still a try of
        // its search (it stops the search in its own words), never a run that is not there.
        RunConfig config;
        std::vector<ConfigError> errors;
        if (!fromJson(QJsonDocument::fromJson(QByteArray::fromStdString(run.configJson)).object(), config, errors))
            continue; // a configuration this version cannot read at all is no try of a search it can say
        const std::string key = searchKey(config);
        auto [at, added] = byKey.emplace(key, searches.size());
        if (added) {
            MaxBatchSearch s;
            s.config = config;
            s.label = labelOf(config);
            s.startBatch = config.batch;
            s.limitText = "unknown";
            searches.push_back(std::move(s));
        }
        MaxBatchSearch &search = searches[at->second];
        limitOf(reader, run, config, search);
        if (run.status == RunStatus::Queued || run.status == RunStatus::Running) {
            search.pending = true;
            continue;
        }
        search.tries.push_back(maxBatchTryOf(run, config.batch));
        search.runIds.push_back(run.id);
    }
    for (MaxBatchSearch &s : searches) {
        report::MaxBatchLimits own = limits;
        while (own.smallestBatch < s.startBatch && !stepscope::validate(maxBatchTry(s.config, own.smallestBatch)).empty())
            ++own.smallestBatch;
        s.state = report::maxBatchState(s.startBatch, s.tries, s.limitBytes, own);
    }
    return searches;
}

std::optional<FitBound> boundByMaxBatch(const store::Reader &reader, std::int64_t maxBatchSweep,
                                        const std::vector<RunConfig> &scan, std::vector<ConfigError> &errors)
{
    const std::string field = "fits_from";
    const std::string which = "sweep " + std::to_string(maxBatchSweep);
    const auto sweep = reader.sweep(maxBatchSweep);
    if (!sweep || !isMaxBatchSweep(*sweep)) {
        errors.push_back({field, which + (sweep ? " is not a largest-batch search" : " is not in this database") +
                                     ": give the number of a sweep run with --max-batch (list shows them)"});
        return std::nullopt;
    }
    std::map<std::string, const MaxBatchSearch *> byKey;
    const auto searches = maxBatchSearches(reader, maxBatchSweep);
    for (const MaxBatchSearch &s : searches)
        byKey.emplace(searchKey(s.config), &s);
    FitBound out;
    std::vector<std::string> leftOut, uncovered;
    const int firstBatch = scan.empty() ? 0 : scan.front().batch;
    for (const RunConfig &c : scan) {
        const auto found = byKey.find(searchKey(c));
        if (found == byKey.end()) {
            if (std::find(uncovered.begin(), uncovered.end(), labelOf(c)) == uncovered.end())
                uncovered.push_back(labelOf(c));
            out.kept.push_back(c);
            continue;
        }
        const report::MaxBatchState &st = found->second->state;
        if (!st.fails || c.batch < *st.fails) {
            out.kept.push_back(c);
            continue;
        }
        if (c.batch == firstBatch) {
            errors.push_back({field, labelOf(c) + " ran out of memory at batch " + std::to_string(*st.fails) + " in " +
                                         which + ", at or below the scan's first batch " + std::to_string(c.batch) +
                                         ": start the scan at a batch every configuration fits"});
            return std::nullopt;
        }
        leftOut.push_back(labelOf(c) + " at batch " + std::to_string(c.batch));
    }
    if (out.kept.empty()) {
        errors.push_back({field, "no configuration fits any batch of the scan (" + which + ")"});
        return std::nullopt;
    }
    if (!leftOut.empty()) {
        out.note = "Left out, as " + which + " saw them run out of memory at or below their batch: ";
        for (std::size_t i = 0; i < leftOut.size(); ++i)
            out.note += (i ? "; " : "") + leftOut[i];
        out.note += ".";
    }
    if (!uncovered.empty()) {
        std::string list;
        for (std::size_t i = 0; i < uncovered.size(); ++i)
            list += (i ? "; " : "") + uncovered[i];
        out.note += std::string(out.note.empty() ? "" : " ") + which + " has no search of " + list +
                    ": it runs at every batch.";
    }
    return out;
}

std::string maxBatchLine(const MaxBatchSearch &s, const report::MaxBatchLimits &limits)
{
    return s.label + ": " + (s.pending ? "still searching; " : "") + report::maxBatchSentence(s.state, limits) + "; " +
           std::to_string(s.state.tries) + (s.state.tries == 1 ? " try, " : " tries, ") +
           report::formatNumber("%.0f", s.state.seconds) + " s";
}

std::string maxBatchMarkdown(const std::vector<MaxBatchSearch> &searches, const report::MaxBatchLimits &limits)
{
    using Stop = report::MaxBatchState::Stop;
    std::string out = "## Largest batch that fits\n\n";
    out += "Each try is one process of " + std::to_string(1 + kMaxBatchTrySteps) + " steps; a search doubles from the "
           "configuration's batch, then narrows until a try at most " +
           report::formatNumber("%.0f", limits.tolerance * 100) + "% above the answer runs out of memory (at most " +
           std::to_string(limits.maxTries) + " tries and " + report::formatNumber("%.0f", limits.maxSeconds) +
           " s a configuration, a compile's own time aside).\n\n";
    if (searches.empty())
        return out + "No configuration was searched.\n";
    out += "| configuration | largest batch that fits | smallest larger that ran out of memory | peak at the answer | "
           "tries | time | memory held to |\n";
    out += "|---|---:|---:|---:|---:|---:|---|\n";
    std::string notes;
    for (const MaxBatchSearch &s : searches) {
        const report::MaxBatchState &st = s.state;
        const bool narrowed = st.stop == Stop::Narrowed;
        std::string answer = st.fits ? std::to_string(*st.fits) : "none";
        if (!narrowed && st.fits)
            answer = ">= " + answer; // a bracket, not an answer within 5%
        // The failing try above a narrowed answer is its check: said with how far above it is.
        std::string fails = st.fails ? std::to_string(*st.fails) : "-";
        if (narrowed)
            fails += " (+" + report::formatNumber("%.1f", (double(*st.fails) / *st.fits - 1) * 100) + "%)";
        const std::string peak = st.peakAtAnswer ? report::memoryFigureText(*st.peakAtAnswer / kMiB) : "-";
        out += "| " + report::markdownCell(s.label) + " | " + answer + " | " + fails + " | " + peak + " | " +
               std::to_string(st.tries) + " | " + report::formatNumber("%.0f", st.seconds) + " s | " +
               report::markdownCell(s.limitText) + " |\n";
        if (!narrowed || s.pending)
            notes += "- " + maxBatchLine(s, limits) + "\n";
    }
    if (!notes.empty())
        out += "\n" + notes;
    return out;
}

} // namespace stepscope::supervisor
