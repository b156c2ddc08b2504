// The ledger's rows: a sweep's runs grouped by configuration, each row's figures and intervals taken
// from its runs, and each row against the baseline. The one computation the other ledger files word.
#include "report/ledger_rows.h"

#include "common/measurement_defaults.h"
#include "config/config_json.h"
#include "report/compile_record.h"
#include "report/ledger_internal.h"
#include "report/run_summary.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

namespace stepscope::report
{
namespace
{

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

} // namespace

RunConfig storedConfig(const std::string &configJson)
{
    RunConfig config;
    const auto doc = QJsonDocument::fromJson(QByteArray::fromStdString(configJson));
    std::vector<ConfigError> ignored; // a member a newer build wrote keeps its default here
    if (doc.isObject())
        fromJson(doc.object(), config, ignored);
    return config;
}

namespace
{

// A sweep's runs grouped by configuration, in order of first appearance, the baseline first: the
// stored one when the sweep has runs of it; a sweep of an older file or one without a stored name
// compares with its first configuration, as it always did.
struct Groups {
    std::vector<std::string> order;
    std::map<std::string, std::vector<const store::RunRecord *>> runs;
};

} // namespace

namespace
{

Groups groupRuns(const std::vector<store::RunRecord> &runs, const std::string &baselineConfig)
{
    Groups g;
    for (const auto &r : runs) {
        const std::string name = rowNameOf(r.configName);
        if (!g.runs.count(name))
            g.order.push_back(name);
        g.runs[name].push_back(&r);
    }
    const auto baseline = std::find(g.order.begin(), g.order.end(), baselineConfig);
    if (baseline != g.order.end())
        std::rotate(g.order.begin(), baseline, baseline + 1);
    return g;
}

// What a row's completed runs add up to, gathered run by run before the row's figures are taken.
struct RowRuns {
    std::vector<double> firsts, medians, blockWalls, compiles, losses;
    std::vector<double> freshFirsts, shippedFirsts, againFirsts; // by the start state the first step had
    bool cachesRecorded = false, gpu = false;
    bool startsRecorded = false; // some run was planned with a start state (schema 7 on)
    const std::vector<double> &firstsOf(store::StartState s) const
    {
        return s == store::StartState::Again ? againFirsts : s == store::StartState::Shipped ? shippedFirsts : freshFirsts;
    }
    std::vector<double> &firstsOf(store::StartState s)
    {
        return s == store::StartState::Again ? againFirsts : s == store::StartState::Shipped ? shippedFirsts : freshFirsts;
    }
    struct Profiled {
        std::int64_t runId = 0;
        std::optional<double> medianMs;
        profile::StoredProfile stored;
    };
    std::vector<Profiled> profiles; // completed runs' stored profiles
};

// The row's profile: the run nearest the row's steady median speaks for it.
void takeProfile(LedgerRow &row, const RowRuns &acc)
{
    const RowRuns::Profiled *best = nullptr;
    for (const auto &p : acc.profiles) {
        if (p.stored.memory && !row.memorySnapshot)
            row.memorySnapshot = p.stored.memory;
        if (!p.stored.summary) {
            if (row.profileProblem.empty())
                row.profileProblem = p.stored.problem;
            continue;
        }
        const auto distance = [&](const RowRuns::Profiled &q) {
            return q.medianMs && row.steadyMs ? std::fabs(*q.medianMs - *row.steadyMs) : 1e300;
        };
        if (!best || distance(p) < distance(*best))
            best = &p;
    }
    if (!best)
        return;
    row.profile = best->stored.summary;
    row.profileRunId = best->runId;
    row.profileTrace = best->stored.traceFile;
    if (best->stored.memory)
        row.memorySnapshot = best->stored.memory;
    row.profileProblem.clear();
}

// One run into its row: failures and Stops counted, a completed run's figures gathered, its machine
// warm-up state into the row and the sweep's first-step caches.
void addRun(const store::Reader &reader, const store::RunRecord &run, LedgerRow &row, RowRuns &acc,
            Ledger::FirstStepCaches &caches)
{
    if (run.status == RunStatus::Cancelled) {
        ++row.cancelled;
        row.cancelledSteps += run.stepCount;
    }
    if (run.status != RunStatus::Complete) {
        if (row.failureCategory.empty() && run.category) {
            row.failureCategory = std::string(toString(*run.category));
            row.failureMessage = run.message;
        }
        return;
    }
    ++row.completed;
    // A run whose start did not hold (its caches missed, or an older file's compile and machine
    // caches disagreed) is no figure of any state: flagged, left out of all (store::startOf).
    const store::StartState start = store::startOf(run);
    row.warmMissed += start == store::StartState::Unrecorded && run.caches != store::StartState::Unrecorded ? 1 : 0;
    acc.startsRecorded = acc.startsRecorded || run.caches != store::StartState::Unrecorded ||
                         start != store::StartState::Unrecorded;
    // A schema 7-9 file's warm-compile run on fresh machine caches is no start at all: its first
    // step is no figure of the row (counted in warmMissed above).
    const bool legacyWarm = run.compileCache == "warm" && start == store::StartState::Unrecorded;
    if (run.firstStepSeconds && !legacyWarm) {
        acc.firsts.push_back(*run.firstStepSeconds * 1000.0);
        if (start != store::StartState::Unrecorded)
            acc.firstsOf(start).push_back(*run.firstStepSeconds * 1000.0);
    }
    caches.ownCaches = caches.ownCaches || run.caches != store::StartState::Unrecorded;
    if (run.machineWarmup != store::MachineWarmup::Unrecorded) {
        const bool machineCold = run.machineWarmup == store::MachineWarmup::FirstProcess;
        acc.cachesRecorded = true;
        row.machineColdFirsts += machineCold ? 1 : 0;
        caches.recorded = true;
        caches.warmedUp = caches.warmedUp || run.machineWarmup == store::MachineWarmup::WarmedUp;
        if (machineCold && caches.coldRow.empty())
            caches.coldRow = row.label;
    }
    if (run.blockWallMs)
        acc.blockWalls.push_back(*run.blockWallMs);
    // The compile time is what compiling costs from nothing: a fresh start's (a shipped or again one
    // mostly reads caches).
    if (const auto compile = parseCompileRecord(run.compileJson).compileS;
        compile && (start == store::StartState::Fresh || (start == store::StartState::Unrecorded && !legacyWarm)))
        acc.compiles.push_back(*compile * 1000.0);
    if (acc.losses.empty())
        acc.losses = run.checkLosses;
    // The run's one reading: its stored summary's window and median (readRun).
    RunReading reading = readRun(reader, run);
    if (auto stored = profile::profileFromJson(run.profileJson))
        acc.profiles.push_back({run.id, reading.summary.medianMs, std::move(*stored)});
    acc.gpu = acc.gpu || reading.summary.timing == store::Timing::Gpu;
    if (!hasSteadyState(reading.summary) || reading.steady.empty()) {
        row.steadyProblem = reading.summary.problem.value_or(SteadyProblem{SteadyProblem::Kind::WindowMismatch});
        return;
    }
    acc.medians.push_back(*reading.summary.medianMs);
    row.samplesMs.insert(row.samplesMs.end(), reading.steady.begin(), reading.steady.end());
    row.runSamplesMs.push_back(std::move(reading.steady));
    row.runFirstMs.push_back(run.firstStepSeconds && !legacyWarm ? *run.firstStepSeconds * 1000.0 : kNaN);
    row.runStarts.push_back(start);
}

LedgerRow::StartFigures startFiguresOf(const std::vector<double> &firsts)
{
    LedgerRow::StartFigures f;
    f.processes = static_cast<int>(firsts.size());
    if (firsts.empty())
        return f;
    f.firstStepMs = stats::median(firsts);
    f.minMs = *std::min_element(firsts.begin(), firsts.end());
    f.maxMs = *std::max_element(firsts.begin(), firsts.end());
    return f;
}

// The first steps the row's main figures take: the assumed start's when the row ran it, else those
// of a start with fewer caches (again: shipped, then fresh; shipped: fresh), which a start with more
// can only shorten: never those of a start with caches the assumed one lacks (a fresh machine has no
// warm compile cache). Every completed run's only in files of before start states.
const std::vector<double> &mainFirsts(LedgerRow &row, const RowRuns &acc, store::StartState assumed)
{
    static const std::vector<double> none;
    for (const store::StartState s : store::stateAndFewerCaches(assumed))
        if (!acc.firstsOf(s).empty()) {
            row.firstStepStart = s;
            return acc.firstsOf(s);
        }
    row.firstStepStart = store::StartState::Unrecorded;
    return acc.startsRecorded ? none : acc.firsts;
}

// The row's figures from what its runs gave: medians, spreads, noise, intervals over processes.
void takeFigures(LedgerRow &row, const RowRuns &acc, store::StartState assumed, stats::CancelToken cancel)
{
    if (!acc.cachesRecorded)
        row.machineColdFirsts = -1;
    row.timing = acc.gpu ? store::Timing::Gpu : store::Timing::Wall;
    if (!acc.blockWalls.empty())
        row.blockWallMs = stats::median(acc.blockWalls);
    if (!acc.compiles.empty())
        row.compileMs = stats::median(acc.compiles);
    for (const store::StartState s : store::kStartStates)
        row.figuresOf(s) = startFiguresOf(acc.firstsOf(s));
    const std::vector<double> &firsts = mainFirsts(row, acc, assumed);
    if (!firsts.empty()) {
        row.firstStepMs = stats::median(firsts);
        row.firstStepMinMs = *std::min_element(firsts.begin(), firsts.end());
        row.firstStepMaxMs = *std::max_element(firsts.begin(), firsts.end());
        row.firstStepNoise = stats::firstStepNoise(firsts);
    }
    row.processes = static_cast<int>(row.runSamplesMs.size());
    // The steady state pools every process, cold and warm (its window starts after the first step);
    // a break-even rests on the processes of the start it is for.
    row.processSummaries = stats::summarizeProcesses(processesOf(row));
    row.startSummaries = processSummariesOf(row, row.firstStepStart);
    if (row.samplesMs.empty())
        return;
    row.steady = stats::summarize(row.samplesMs);
    row.steadyMs = row.steady.median;
    row.steadyMinMs = *std::min_element(acc.medians.begin(), acc.medians.end());
    row.steadyMaxMs = *std::max_element(acc.medians.begin(), acc.medians.end());
    row.steadyCI = stats::medianOfRuns(row.runSamplesMs, stats::kResamples, stats::kSeed, cancel);
    row.noise = stats::noiseOf(row.steady);
    // Spread between cold processes counts as noise too: it is what a user meets.
    if (acc.medians.size() > 1)
        row.noise = std::max(row.noise, stats::noiseOfSpread((*row.steadyMaxMs - *row.steadyMinMs) / *row.steadyMs));
}

// Speed-up, break-even and their intervals of every row against the baseline (rows[0]).
void compareWithBaseline(Ledger &ledger, stats::CancelToken cancel)
{
    if (ledger.rows.empty())
        return;
    const LedgerRow &base = ledger.rows.front();
    // The baseline's processes of each start state, summarised once for every row's intervals. A
    // baseline never run shipped (the default plans shipped runs for compiled rows alone) starts
    // shipped as it starts fresh: its fresh processes stand in, a first step no shorter than it is.
    const bool baseShippedIsFresh = base.shipped.processes == 0;
    // A baseline whose runs recorded no start (an older file, a hand-made row) has one first step
    // for every state: its own.
    const bool baseUnstated = base.firstStepStart == store::StartState::Unrecorded;
    LedgerRow::StartFigures baseAll;
    baseAll.firstStepMs = base.firstStepMs;
    baseAll.minMs = base.firstStepMinMs;
    baseAll.maxMs = base.firstStepMaxMs;
    baseAll.processes = base.completed;
    const std::vector<stats::ProcessSummary> baseFresh = processSummariesOf(base, store::StartState::Fresh),
                                             baseShipped = baseShippedIsFresh
                                                               ? baseFresh
                                                               : processSummariesOf(base, store::StartState::Shipped),
                                             baseAgain = processSummariesOf(base, store::StartState::Again);
    const auto baseOf = [&](store::StartState s) -> std::vector<stats::ProcessSummary> {
        if (baseUnstated)
            return processSummariesOf(base);
        return s == store::StartState::Fresh     ? baseFresh
               : s == store::StartState::Shipped ? baseShipped
               : s == store::StartState::Again   ? baseAgain
                                                 : processSummariesOf(base);
    };
    const auto baseFiguresOf = [&](store::StartState s) -> const LedgerRow::StartFigures & {
        if (baseUnstated)
            return baseAll;
        return s == store::StartState::Shipped && baseShippedIsFresh ? base.fresh : base.figuresOf(s);
    };
    for (std::size_t i = 1; i < ledger.rows.size(); ++i) {
        LedgerRow &row = ledger.rows[i];
        if (!row.steadyMs || !row.firstStepMs || !base.steadyMs || !base.firstStepMs)
            continue; // no break-even: breakEvenText says "-"
        row.speedup = *base.steadyMs / *row.steadyMs;
        row.timeRatio =
            stats::ratioOfMedians(row.processSummaries, base.processSummaries, stats::kResamples, stats::kSeed, cancel);
        // Each start state against the baseline's own.
        for (const store::StartState s : store::kStartStates) {
            LedgerRow::StartFigures &f = row.figuresOf(s);
            const LedgerRow::StartFigures &b = baseFiguresOf(s);
            if (!f.firstStepMs || !b.firstStepMs)
                continue;
            f.breakEvenSteps = stats::breakEvenSteps(*f.firstStepMs, *row.steadyMs, *b.firstStepMs, *base.steadyMs);
            f.breakEvenCI =
                stats::breakEvenInterval(s == row.firstStepStart ? row.startSummaries : processSummariesOf(row, s),
                                         baseOf(s), stats::kResamples, stats::kSeed, cancel);
            f.breakEvenRange = breakEvenRangeText(*f.breakEvenCI);
        }
        // The row's own figures are its start state's; where the baseline has that state too they
        // are the figures just taken (one bootstrap, not two).
        const LedgerRow::StartFigures *same = row.firstStepStart == store::StartState::Unrecorded ||
                                                      !baseFiguresOf(row.firstStepStart).firstStepMs
                                                  ? nullptr
                                                  : &row.figuresOf(row.firstStepStart);
        if (same && same->breakEvenCI) {
            row.breakEvenSteps = same->breakEvenSteps;
            row.breakEvenCI = same->breakEvenCI;
        } else {
            row.breakEvenSteps =
                stats::breakEvenSteps(*row.firstStepMs, *row.steadyMs, *base.firstStepMs, *base.steadyMs);
            row.breakEvenCI = stats::breakEvenInterval(row.startSummaries, baseOf(row.firstStepStart),
                                                       stats::kResamples, stats::kSeed, cancel);
        }
        row.breakEvenRange = breakEvenRangeText(*row.breakEvenCI);
    }
}

} // namespace

namespace
{

// Issue 21: each data-parallel row against the same configuration at world size 1 (its DDP knobs
// mean nothing there), and how far its ranks were apart in the steady window.
void dataParallelFigures(const store::Reader &reader, Ledger &ledger, const Groups &groups)
{
    for (LedgerRow &row : ledger.rows) {
        const RunConfig config = storedConfig(row.configJson);
        row.worldSize = config.worldSize;
        if (config.worldSize <= 1)
            continue;
        RunConfig single = config;
        const RunConfig plain;
        single.worldSize = 1;
        single.ddpBucketCapMb = plain.ddpBucketCapMb;
        single.ddpGradientAsBucketView = plain.ddpGradientAsBucketView;
        single.ddpStaticGraph = plain.ddpStaticGraph;
        for (const LedgerRow &other : ledger.rows) {
            if (&other == &row || !(storedConfig(other.configJson) == single))
                continue;
            row.scalingReference = other.label;
            if (other.steadyMs && row.steadyMs && *row.steadyMs > 0)
                row.scalingEfficiency = *other.steadyMs / *row.steadyMs;
        }
        std::vector<double> spreads;
        const auto it = groups.runs.find(row.configName);
        for (const store::RunRecord *run :
             it == groups.runs.end() ? std::vector<const store::RunRecord *>{} : it->second) {
            const auto summary = reader.summary(run->id);
            if (run->status != RunStatus::Complete || !summary || summary->steadyCount <= 0)
                continue;
            const std::int64_t begin = summary->steadyBegin, end = begin + summary->steadyCount;
            std::map<std::int64_t, std::pair<double, double>> range; // step -> lowest, highest rank
            for (const store::RankStepRow &step : reader.rankSteps(run->id)) {
                if (step.index < begin || step.index >= end)
                    continue;
                const double ms = summary->timing == store::Timing::Gpu && step.gpuMs ? *step.gpuMs : step.wallMs;
                auto [at, fresh] = range.try_emplace(step.index, ms, ms);
                if (!fresh)
                    at->second = {std::min(at->second.first, ms), std::max(at->second.second, ms)};
            }
            std::vector<double> steps;
            for (const auto &[index, lowHigh] : range)
                steps.push_back(lowHigh.second - lowHigh.first);
            if (!steps.empty())
                spreads.push_back(stats::median(steps));
        }
        if (!spreads.empty())
            row.rankSpreadMs = stats::median(spreads);
    }
}

} // namespace

Ledger buildLedger(const store::Reader &reader, std::int64_t sweepId, std::int64_t plannedSteps,
                   stats::CancelToken cancel, store::StartState start, int batch)
{
    Ledger ledger;
    ledger.start = start == store::StartState::Unrecorded ? store::StartState::Fresh : start;
    const auto sweep = reader.sweep(sweepId);
    if (!sweep)
        return ledger;
    ledger.sweep = *sweep;
    ledger.databasePath = reader.path();
    ledger.plannedSteps =
        plannedSteps > 0 ? plannedSteps : (sweep->plannedSteps > 0 ? sweep->plannedSteps : kDefaultPlannedSteps);

    auto runs = reader.runs(sweepId);
    ledger.models = sweepModels(runs);
    for (const auto &r : runs)
        if (r.environmentId && (ledger.environment = reader.environment(*r.environmentId)))
            break;
    ledger.runsTotal = static_cast<int>(runs.size());
    for (const store::StartState s : store::kStartStates)
        if (std::any_of(runs.begin(), runs.end(), [s](const store::RunRecord &r) {
                return r.caches == s && (r.status == RunStatus::Queued || r.status == RunStatus::Running);
            }))
            ledger.statesPending.push_back(s);
    ledger.runsPending = static_cast<int>(std::count_if(runs.begin(), runs.end(), [](const store::RunRecord &r) {
        return r.status == RunStatus::Queued || r.status == RunStatus::Running;
    }));
    if (ledger.environment)
        ledger.environmentJson = ledger.environment->json;

    // The batch sizes, and the rows of the one asked for (the baseline's by default). Each run's
    // configuration is parsed once here.
    std::vector<RunConfig> configs;
    configs.reserve(runs.size());
    for (const auto &r : runs)
        configs.push_back(storedConfig(r.configJson));
    std::string baselineName = sweep->baselineConfig;
    const RunConfig *baselineConfig = nullptr;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const int b = configs[i].batch;
        if (std::find(ledger.batches.begin(), ledger.batches.end(), b) == ledger.batches.end())
            ledger.batches.push_back(b);
        if (runs[i].configName == baselineName && !baselineConfig)
            baselineConfig = &configs[i];
    }
    std::sort(ledger.batches.begin(), ledger.batches.end());
    ledger.batch = batch > 0                ? batch
                   : baselineConfig         ? baselineConfig->batch
                   : ledger.batches.empty() ? 0
                                            : ledger.batches[0];
    if (ledger.batches.size() > 1) {
        if (baselineConfig) {
            RunConfig base = *baselineConfig;
            base.batch = ledger.batch;
            baselineName = canonicalName(base);
        }
        std::vector<store::RunRecord> ofBatch;
        for (std::size_t i = 0; i < runs.size(); ++i)
            if (configs[i].batch == ledger.batch)
                ofBatch.push_back(std::move(runs[i]));
        runs = std::move(ofBatch);
    }

    const Groups groups = groupRuns(runs, baselineName);
    std::vector<double> baselineLosses;
    for (const auto &name : groups.order) {
        const auto &group = groups.runs.at(name);
        LedgerRow row;
        row.configName = name;
        row.configJson = group.front()->configJson;
        const RunConfig config = storedConfig(row.configJson);
        row.label = rowLabelOf(name, groups.order.front(), config.model, ledger.models.size() > 1);
        row.model = firstFacts(group);
        row.repeats = static_cast<int>(group.size());
        row.lastStatus = group.back()->status;
        row.memory = peakMemoryOf(group, !config.onCuda());
        std::vector<EnergyReading> energy;
        for (const auto *run : group)
            if (run->status == RunStatus::Complete)
                energy.push_back(checkedReading(run->energy));
        row.energy = energyOf(energy);
        row.energyReadings = std::move(energy);
        RowRuns acc;
        for (const auto *run : group)
            addRun(reader, *run, row, acc, ledger.firstStepCaches);
        takeFigures(row, acc, ledger.start, cancel);
        takeProfile(row, acc);
        row.compute = computeFigures(config, row.model, row.steadyMs,
                                     ledger.environment ? ledger.environment->gpu : std::string());
        int statesRun = 0;
        for (const store::StartState s : store::kStartStates)
            statesRun += row.figuresOf(s).processes > 0 ? 1 : 0;
        ledger.hasSeveralStarts = ledger.hasSeveralStarts || statesRun > 1;
        const bool isBaseline = ledger.rows.empty();
        row.baseline = isBaseline;
        if (isBaseline)
            baselineLosses = acc.losses;
        row.accuracy = accuracyOf(row, acc.losses, isBaseline ? nullptr : &baselineLosses);
        row.axisLabel = axisLabelOf(row.label, isBaseline ? nullptr : &ledger.rows.back().label);
        ledger.rows.push_back(std::move(row));
    }
    compareWithBaseline(ledger, cancel);
    for (std::size_t i = 1; i < ledger.rows.size(); ++i) {
        ledger.rows[i].memoryRatio = memoryRatioOf(ledger.rows[i].memory, ledger.rows.front().memory);
        ledger.rows[i].energyBreakEven = energyBreakEven(ledger.rows[i].energy, ledger.rows.front().energy);
    }
    dataParallelFigures(reader, ledger, groups);
    ledger.waterfall = waterfallOf(ledger.rows, cancel);
    if (!ledger.rows.empty())
        recommendFor(ledger, ledger.plannedSteps, cancel);
    else
        pickByStart(ledger);
    return ledger;
}

std::vector<stats::Process> processesOf(const LedgerRow &row)
{
    std::vector<stats::Process> out;
    for (std::size_t i = 0; i < row.runSamplesMs.size(); ++i) {
        stats::Process p{i < row.runFirstMs.size() ? row.runFirstMs[i] / 1000.0 : kNaN, row.runSamplesMs[i]};
        for (double &ms : p.steps)
            ms /= 1000.0;
        out.push_back(std::move(p));
    }
    return out;
}

std::vector<stats::ProcessSummary> processSummariesOf(const LedgerRow &row)
{
    if (!row.processSummaries.empty() || row.runSamplesMs.empty())
        return row.processSummaries;
    return stats::summarizeProcesses(processesOf(row));
}

std::vector<stats::ProcessSummary> processSummariesOf(const LedgerRow &row, store::StartState start)
{
    if (start == store::StartState::Unrecorded)
        return processSummariesOf(row);
    LedgerRow only;
    for (std::size_t i = 0; i < row.runSamplesMs.size(); ++i)
        if (i < row.runStarts.size() && row.runStarts[i] == start) {
            only.runSamplesMs.push_back(row.runSamplesMs[i]);
            only.runFirstMs.push_back(i < row.runFirstMs.size() ? row.runFirstMs[i] : kNaN);
        }
    return stats::summarizeProcesses(processesOf(only));
}

} // namespace stepscope::report
