#include "report/ledger.h"

#include "common/measurement_defaults.h"
#include "config/config_json.h"
#include "report/number_text.h"
#include "report/run_summary.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <utility>

namespace stepscope::report
{
namespace
{

std::string knobsOf(const std::string &configName)
{
    // The canonical name ends with the knob label after the last space.
    const auto space = configName.rfind(' ');
    return space == std::string::npos ? configName : configName.substr(space + 1);
}

std::string runtimeOf(const std::string &configName)
{
    // ... and starts with the runtime.
    return configName.substr(0, configName.find(' '));
}

// A number member of a compact JSON object the store holds (the worker's compile info); the report
// stays free of a JSON library for this one figure.
std::optional<double> numberMember(const std::string &json, const std::string &key)
{
    const std::string quoted = "\"" + key + "\"";
    auto at = json.find(quoted);
    if (at == std::string::npos)
        return std::nullopt;
    at = json.find_first_not_of(" \t\r\n", at + quoted.size());
    if (at == std::string::npos || json[at] != ':')
        return std::nullopt;
    const char *begin = json.c_str() + at + 1;
    char *end = nullptr;
    const double v = std::strtod(begin, &end);
    return end != begin && std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string fmt(const char *f, double v)
{
    return formatNumber(f, v);
}

} // namespace

std::string formatSeconds(double s)
{
    if (!std::isfinite(s))
        return "-";
    if (s < 1)
        return fmt("%.0f ms", s * 1000);
    if (s < 120)
        return fmt("%.2f s", s);
    const long total = std::lround(s);
    return std::to_string(total / 60) + " min " + std::to_string(total % 60) + " s";
}

std::string formatMs(double ms)
{
    return std::isfinite(ms) ? fmt("%.2f ms", ms) : "-";
}

double lossTolerance(const RunConfig &config)
{
    // Loose enough for the rounding of each precision over ten SGD steps, tight enough that a
    // broken step (NaN, wrong gradients, skipped updates) stands out.
    constexpr double kFp32 = 0.005, kTf32 = 0.02, kFp16 = 0.05, kBf16 = 0.10;
    double tolerance = kFp32;
    if (config.autocast == Autocast::FP16)
        tolerance = kFp16;
    else if (config.autocast == Autocast::BF16)
        tolerance = kBf16;
    else if (config.tf32)
        tolerance = kTf32;
    // A compiled step is not the same arithmetic as eager even in fp32: inductor fuses kernels and
    // picks its own reduction order and tiling, so float sums are added in another order and round
    // differently, which ten SGD steps amplify. That is a reordering, not a lower precision, so it
    // gets TF32's allowance, the next step up from fp32.
    if (config.compile != CompileMode::None)
        tolerance = std::max(tolerance, kTf32);
    return tolerance;
}

double lossAllowance(double tolerance, double baselineLoss, double baselineFirstLoss)
{
    // Relative to the loss where it is large; once a small batch is memorised (batch 2 reaches 1e-4
    // within ten steps) two near-zero losses differ by any ratio and say nothing about training, so
    // the loss the run started from sets an absolute floor of the same tolerance.
    return tolerance * (std::abs(baselineLoss) + std::abs(baselineFirstLoss));
}

LedgerRow::Accuracy compareLosses(const std::vector<double> &losses, const std::vector<double> &baseline,
                                  double tolerance)
{
    using Verdict = LedgerRow::Accuracy::Verdict;
    LedgerRow::Accuracy a;
    a.tolerance = tolerance;
    if (losses.empty() || baseline.empty())
        return a;
    const auto finite = [](double v) { return std::isfinite(v); };
    a.finite = std::all_of(losses.begin(), losses.end(), finite);
    a.firstLoss = losses.front();
    a.lastLoss = losses.back();
    a.baselineLastLoss = baseline.back();
    for (std::size_t i = 0; i < std::min(losses.size(), baseline.size()); ++i) {
        if (!finite(losses[i]) || !finite(baseline[i]))
            continue;
        const double allowed = lossAllowance(tolerance, baseline[i], baseline.front());
        const double diff = std::abs(losses[i] - baseline[i]);
        const double share = allowed > 0 ? diff / allowed : (diff > 0 ? kInf : 0.0);
        if (a.worstStep == 0 || share > a.worstShare) {
            a.worstStep = static_cast<int>(i) + 1;
            a.worstShare = share;
            a.loss = losses[i];
            a.baselineLoss = baseline[i];
            a.allowed = allowed;
        }
    }
    // A difference is not a divergence: a step that trains at another precision takes another
    // path down. Diverged is for training that broke: a loss that is not finite, or losses that end
    // no lower than they started while the baseline's fell.
    const bool baselineFell =
        std::all_of(baseline.begin(), baseline.end(), finite) && baseline.back() < baseline.front();
    a.stalled = a.finite && baselineFell && losses.back() >= losses.front();
    a.verdict = !a.finite || a.stalled ? Verdict::Diverged : a.worstShare > 1 ? Verdict::Differs : Verdict::Ok;
    return a;
}

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

std::string rowNameOf(const std::string &configName)
{
    std::string name = configName;
    static const std::string retired = "+warm-cache";
    for (auto at = name.find(retired); at != std::string::npos; at = name.find(retired))
        name.erase(at, retired.size());
    return name;
}

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
    if (const auto compile = numberMember(run.compileJson, "compile_s");
        compile && (start == store::StartState::Fresh || (start == store::StartState::Unrecorded && !legacyWarm)))
        acc.compiles.push_back(*compile * 1000.0);
    if (run.peakAllocatedBytes)
        row.peakAllocatedMiB = static_cast<double>(*run.peakAllocatedBytes) / 1048576.0;
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

// The accuracy gate: the row's losses over the first steps against the baseline's (none for the
// baseline itself, which is the reference).
LedgerRow::Accuracy accuracyOf(const LedgerRow &row, const std::vector<double> &losses,
                               const std::vector<double> *baselineLosses)
{
    if (!baselineLosses) {
        LedgerRow::Accuracy a;
        a.verdict = losses.empty() ? LedgerRow::Accuracy::Verdict::NotChecked : LedgerRow::Accuracy::Verdict::Reference;
        return a;
    }
    return compareLosses(losses, *baselineLosses, lossTolerance(storedConfig(row.configJson)));
}

// A row label's runtime ("python " or "") and its knobs ("baseline" has none).
std::pair<std::string, std::vector<std::string>> splitLabel(const std::string &label)
{
    const auto space = label.rfind(' ');
    const std::string runtime = space == std::string::npos ? std::string() : label.substr(0, space + 1);
    const std::string knobs = space == std::string::npos ? label : label.substr(space + 1);
    std::vector<std::string> out;
    if (knobs == "baseline")
        return {runtime, out};
    for (std::size_t at = 0; at <= knobs.size();) {
        const auto plus = std::min(knobs.find('+', at), knobs.size());
        out.push_back(knobs.substr(at, plus - at));
        at = plus + 1;
    }
    return {runtime, out};
}

std::string joinedKnobs(const std::vector<std::string> &knobs)
{
    std::string out;
    for (const auto &k : knobs)
        out += (out.empty() ? "" : "+") + k;
    return out;
}

// The knobs of `label` that `reference` lacks, and those of `reference` that `label` lacks; false
// when their runtimes differ (then no knob says the difference).
bool knobDifference(const std::string &label, const std::string &reference, std::vector<std::string> &added,
                    std::vector<std::string> &removed)
{
    const auto [runtime, knobs] = splitLabel(label);
    const auto [referenceRuntime, referenceKnobs] = splitLabel(reference);
    if (runtime != referenceRuntime)
        return false;
    const auto lacks = [](const std::vector<std::string> &list, const std::string &k) {
        return std::find(list.begin(), list.end(), k) == list.end();
    };
    for (const auto &k : knobs)
        if (lacks(referenceKnobs, k))
            added.push_back(k);
    for (const auto &k : referenceKnobs)
        if (lacks(knobs, k))
            removed.push_back(k);
    return true;
}

// In a cumulative ledger each row adds knobs to the one before: its axis label says just that
// ("+bf16"); any other row keeps its label.
std::string axisLabelOf(const std::string &label, const std::string *previous)
{
    std::vector<std::string> added, removed;
    if (!previous || !knobDifference(label, *previous, added, removed) || added.empty() || !removed.empty())
        return label;
    return "+" + joinedKnobs(added);
}

// What finishes the planned run first under each start state (Ledger::byStart).
void pickByStart(Ledger &ledger)
{
    ledger.byStart.clear();
    for (const store::StartState s : store::kStartStates) {
        Ledger::StartPick pick;
        pick.state = s;
        std::vector<stats::Candidate> candidates;
        std::vector<std::size_t> rows;
        for (std::size_t i = 0; i < ledger.rows.size(); ++i) {
            const LedgerRow &row = ledger.rows[i];
            const auto first = firstStepFor(row, s);
            if (!row.steadyMs || !first || !leftOutReason(row).empty())
                continue;
            candidates.push_back({row.label, *first / 1000.0, *row.steadyMs / 1000.0});
            rows.push_back(i);
        }
        if (const auto rec = stats::recommend(candidates, ledger.plannedSteps)) {
            pick.row = rows[rec->best];
            pick.totalSeconds = rec->bestTotal;
            firstStepFor(ledger.rows[*pick.row], s, &pick.measured);
        }
        ledger.byStart.push_back(pick);
    }
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
    ledger.plannedSteps =
        plannedSteps > 0 ? plannedSteps : (sweep->plannedSteps > 0 ? sweep->plannedSteps : kDefaultPlannedSteps);

    auto runs = reader.runs(sweepId);
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
        row.label = knobsOf(name);
        // Python rows of a native ledger carry the same knobs as native ones: say which is which
        // (relative to the baseline's runtime).
        if (runtimeOf(name) != runtimeOf(groups.order.front()))
            row.label = runtimeOf(name) + " " + row.label;
        row.configJson = group.front()->configJson;
        row.repeats = static_cast<int>(group.size());
        row.lastStatus = group.back()->status;
        RowRuns acc;
        for (const auto *run : group)
            addRun(reader, *run, row, acc, ledger.firstStepCaches);
        takeFigures(row, acc, ledger.start, cancel);
        takeProfile(row, acc);
        row.compute = computeFigures(storedConfig(row.configJson), row.steadyMs,
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
    dataParallelFigures(reader, ledger, groups);
    ledger.waterfall = waterfallOf(ledger.rows, cancel);
    if (!ledger.rows.empty())
        recommendFor(ledger, ledger.plannedSteps, cancel);
    pickByStart(ledger);
    return ledger;
}

std::string provisionalText(const Ledger &ledger)
{
    if (!ledger.provisional())
        return {};
    std::string states;
    for (std::size_t i = 0; i < ledger.statesPending.size(); ++i)
        states += (i == 0 ? "" : i + 1 == ledger.statesPending.size() ? " and " : ", ") +
                  std::string(store::toString(ledger.statesPending[i]));
    return "provisional: " + std::to_string(ledger.runsTotal - ledger.runsPending) + " of " +
           std::to_string(ledger.runsTotal) + " runs done" + (states.empty() ? "" : ", " + states + " runs to come");
}

std::optional<double> firstStepFor(const LedgerRow &row, store::StartState state, bool *measured)
{
    for (const store::StartState s : store::stateAndFewerCaches(state))
        if (const auto &f = row.figuresOf(s).firstStepMs) {
            if (measured)
                *measured = s == state;
            return f;
        }
    return std::nullopt;
}

std::string shortLabel(const LedgerRow &row, const LedgerRow &reference)
{
    std::vector<std::string> added, removed;
    if (&row == &reference || !knobDifference(row.label, reference.label, added, removed) ||
        (added.empty() == removed.empty()))
        return row.label;
    return added.empty() ? "without " + joinedKnobs(removed) : "+" + joinedKnobs(added);
}

std::string recommendationHeadline(const Ledger &ledger)
{
    if (!ledger.recommended || *ledger.recommended >= ledger.rows.size())
        return {};
    const LedgerRow &row = ledger.rows[*ledger.recommended];
    // The row by its name, not the knob it adds to the row before (a "+warm-cache" read as a switch
    // a user could flip), and the start state its first step had (issue 28).
    const std::string_view start = store::toString(row.firstStepStart);
    // A sweep still under way says so first: the verdict may change as its other runs land.
    std::string line = std::string(ledger.provisional() ? "Provisional: use " : "Use ") + row.label +
                       (start.empty() ? std::string() : " (" + std::string(start) + ")");
    if (row.speedup && &row != &ledger.rows.front()) {
        line += ": " + fmt("%.2fx", *row.speedup);
        line += row.breakEvenSteps ? (*row.breakEvenSteps <= 1
                                          ? ", pays off at once"
                                          : ", pays off after " + breakEvenStepsText(row.breakEvenSteps) + " steps")
                                   : std::string(", never pays off");
    }
    if (ledger.recommendationTied && ledger.recommendation && ledger.recommendation->runnerUp) {
        const std::size_t otherIndex = *ledger.recommended == ledger.recommendation->best
                                           ? *ledger.recommendation->runnerUp
                                           : ledger.recommendation->best;
        const LedgerRow &other = ledger.rows[otherIndex];
        // The other against the recommended, in the planned run's total time: what choosing it would
        // change, which the interval cannot tell from nothing.
        const auto total = [&](const LedgerRow &r) {
            return *r.firstStepMs + static_cast<double>(ledger.plannedSteps - 1) * *r.steadyMs;
        };
        line += "; " + shortLabel(other, row);
        if (other.firstStepMs && other.steadyMs && row.firstStepMs && row.steadyMs && total(row) > 0) {
            const double change = total(other) / total(row) - 1;
            line +=
                " " + fmt("%.1f%%", 100 * std::abs(change)) + (change < 0 ? " faster" : " slower") + ", within noise";
        } else {
            line += " is within noise of it";
        }
    }
    return line;
}

std::string breakEvenStepsText(const std::optional<double> &steps)
{
    if (!steps)
        return "never";
    if (*steps <= 1)
        return "immediately";
    return std::to_string(std::llround(*steps));
}

std::string breakEvenText(const LedgerRow &row)
{
    if (!row.speedup)
        return "-"; // the baseline, or a side without figures
    return breakEvenStepsText(row.breakEvenSteps);
}

namespace
{

// What broke a diverged row's training, in words.
std::string leftOutReasonOf(const LedgerRow::Accuracy &accuracy)
{
    if (!accuracy.finite)
        return "a loss is not finite";
    return std::string(accuracy.lastLoss > accuracy.firstLoss ? "loss rose from " : "loss did not fall: ") +
           fmt("%.3g", accuracy.firstLoss) + " to " + fmt("%.3g", accuracy.lastLoss) +
           " while the baseline's fell to " + fmt("%.3g", accuracy.baselineLastLoss);
}

// Where a row's losses left the baseline's most: "step 4: 0.86 vs 0.52, 0.21 allowed".
std::string differenceTextOf(const LedgerRow::Accuracy &accuracy)
{
    return "step " + std::to_string(accuracy.worstStep) + ": " + fmt("%.3g", accuracy.loss) + " vs " +
           fmt("%.3g", accuracy.baselineLoss) + ", " + fmt("%.2g", accuracy.allowed) + " allowed";
}

} // namespace

std::string accuracyText(const LedgerRow::Accuracy &accuracy)
{
    using Verdict = LedgerRow::Accuracy::Verdict;
    switch (accuracy.verdict) {
    case Verdict::NotChecked:
        return "n/a";
    case Verdict::Reference:
        return "reference";
    case Verdict::Ok:
        return "ok";
    case Verdict::Differs:
        return "differs (" + differenceTextOf(accuracy) + ")";
    case Verdict::Diverged:
        return "diverged (" + leftOutReasonOf(accuracy) + ")";
    }
    return "n/a";
}

std::string leftOutReason(const LedgerRow &row)
{
    return row.accuracy.diverged() ? "training diverged: " + leftOutReasonOf(row.accuracy) : std::string();
}

std::string firstStepCachesText(const Ledger &ledger)
{
    const Ledger::FirstStepCaches &caches = ledger.firstStepCaches;
    if (!caches.recorded)
        return {};
    std::string text =
        caches.warmedUp ? "a discarded warm-up process ran first: every first step found the machine's caches warm"
        : caches.coldRow.empty()
            ? "no warm-up process; no completed run was the sweep's first process"
            : "no warm-up process: " + caches.coldRow +
                  "'s first process paid for the machine's caches (CUDA JIT, cuDNN engines, library files), "
                  "marked \"machine cold\"";
    if (caches.ownCaches)
        text = std::string(caches.warmedUp ? "a discarded warm-up process ran first; " : "") +
               "every run had caches of its own (CUDA JIT, torch's kernels, Triton, torch.compile's): fresh ones "
               "empty, shipped ones empty but for the configuration's saved bundle, again ones as a run of the "
               "same configuration left them; figures assume " +
               startText(ledger.start);
    return text;
}

std::string startText(store::StartState start)
{
    switch (start) {
    case store::StartState::Fresh:
        return "a fresh machine";
    case store::StartState::Shipped:
        return "a fresh machine with shipped caches";
    case store::StartState::Again:
        return "this machine again";
    case store::StartState::Unrecorded:
        break;
    }
    return "";
}

std::string breakEvenByStartText(const LedgerRow &row, store::StartState assumed)
{
    // The assumed state first, then the others the row ran, fewest caches first.
    std::vector<store::StartState> order{assumed};
    for (const store::StartState s : store::kStartStates)
        if (s != assumed)
            order.push_back(s);
    std::string text;
    int shown = 0;
    for (const store::StartState s : order) {
        const LedgerRow::StartFigures &f = row.figuresOf(s);
        if (!f.firstStepMs)
            continue;
        text += (text.empty() ? "" : ", ") + breakEvenStepsText(f.breakEvenSteps) + " on " + startText(s);
        ++shown;
    }
    if (!row.speedup || shown < 2 || !row.figuresOf(assumed).firstStepMs)
        return breakEvenText(row);
    return text;
}

const char *const kNoInterval = "1 repeat: no interval";
const char *const kNoIntervalShort = "n=1, no CI";

std::string breakEvenRangeText(const stats::BreakEvenCI &ci)
{
    if (!ci.hasInterval)
        return kNoIntervalShort;
    if (ci.lowNever)
        return "never";
    const auto bound = [](double n) { return n <= 1 ? std::string("immediately") : std::to_string(std::llround(n)); };
    if (ci.highNever)
        return bound(ci.low) + " to never";
    if (ci.high <= 1)
        return "immediately";
    return ci.low <= 1 ? "immediately to " + bound(ci.high) : bound(ci.low) + "-" + bound(ci.high);
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

namespace
{

// The processes a row's first-step figures rest on (its start state's), for intervals of total time.
std::vector<stats::ProcessSummary> startSummariesOf(const LedgerRow &row)
{
    return row.startSummaries.empty() ? processSummariesOf(row, row.firstStepStart) : row.startSummaries;
}

// formatSeconds for a bound of a margin, which may be negative.
std::string signedSeconds(double s)
{
    return s < 0 ? "-" + formatSeconds(-s) : formatSeconds(s);
}

// Knobs a configuration turns on: "baseline" none, "tf32+bf16" two. The simpler of two
// configurations that cannot be told apart is the one to keep.
int knobCount(const LedgerRow &row)
{
    const std::string knobs = knobsOf(row.configName);
    if (knobs.empty() || knobs == "baseline")
        return 0;
    return 1 + static_cast<int>(std::count(knobs.begin(), knobs.end(), '+'));
}

// Rows the recommendation must name: runs that did not all complete, or figures that are noisy
// enough to be unreliable or have no steady state.
std::string caveatsOf(const Ledger &ledger)
{
    std::string incomplete, unreliable;
    const auto append = [](std::string &list, const std::string &item) { list += (list.empty() ? "" : ", ") + item; };
    for (const LedgerRow &row : ledger.rows) {
        if (!row.complete())
            append(incomplete, row.label + " (" + statusText(row) + ")");
        else if (row.steadyProblem)
            append(unreliable, row.label + " (no steady state)");
        else if (row.steadyMs && row.noise == stats::Noise::Unreliable)
            append(unreliable, row.label + " (noise)");
        else if (row.firstStepNoise == stats::Noise::Unreliable)
            append(unreliable, row.label + " (first step)");
    }
    std::string text;
    if (!ledger.sweep.status.empty() && ledger.sweep.status != "complete" && ledger.sweep.status != "running")
        text += " The sweep was " + ledger.sweep.status + ".";
    if (!incomplete.empty())
        text += " Not complete: " + incomplete + ".";
    if (!unreliable.empty())
        text += " Unreliable: " + unreliable + ".";
    return text;
}

} // namespace

std::string completionText(const LedgerRow &row)
{
    if (row.complete())
        return "complete";
    if (row.completed == 0)
        return std::string(toString(row.lastStatus));
    return std::to_string(row.completed) + "/" + std::to_string(row.repeats) + " complete";
}

std::string statusText(const LedgerRow &row)
{
    const bool stopped = row.failureCategory == toString(FailureCategory::Cancelled);
    std::string text = completionText(row);
    if (!row.failureCategory.empty() && !stopped)
        text += ": " + row.failureCategory;
    if (row.cancelled == 0)
        return text;
    const std::string recorded = row.cancelledSteps == 0   ? "no step recorded"
                                 : row.cancelledSteps == 1 ? "1 recorded step"
                                                           : std::to_string(row.cancelledSteps) + " recorded steps";
    if (row.completed == 0 && row.cancelled == row.repeats)
        return row.cancelledSteps == 0 ? "cancelled, " + recorded : "cancelled after " + recorded;
    return text + ", " + std::to_string(row.cancelled) + " cancelled (" + recorded + ")";
}

namespace
{

// Why nothing is compared with a baseline that has no steady figure, in its own terms.
std::string withoutBaselineReason(const LedgerRow &base)
{
    const std::string who = "the baseline (" + base.label + ")";
    if (base.completed == 0)
        return who + " has no completed run (" + statusText(base) + ")";
    if (base.steadyProblem)
        return who + " has no steady state: " + describe(*base.steadyProblem);
    return who + " has no steady step time";
}

// Why no row is a candidate though the baseline has figures (recommendFor takes a row with a first
// step and a steady state whose losses stayed with the baseline's).
std::string withoutCandidatesReason(const Ledger &ledger)
{
    const bool anySteady =
        std::any_of(ledger.rows.begin(), ledger.rows.end(), [](const LedgerRow &r) { return r.steadyMs.has_value(); });
    if (!anySteady)
        return "no configuration has a steady state";
    return "no configuration has both a first step and a steady state whose losses kept with the baseline's";
}

// The crossing of two candidates' total-time lines, from the faster-per-step one's side, with the
// same interval a row gets against the baseline (so the two agree when one of them is the baseline).
std::optional<Ledger::Crossing> decidingCrossingOf(const std::vector<LedgerRow> &rows, std::size_t best,
                                                   std::size_t runnerUp, stats::CancelToken cancel)
{
    const LedgerRow &a = rows[best], &b = rows[runnerUp];
    const double stepA = *a.steadyMs, stepB = *b.steadyMs; // a ratio of differences: ms as good as s
    Ledger::Crossing crossing;
    std::optional<double> steps = stats::breakEvenSteps(*a.firstStepMs, stepA, *b.firstStepMs, stepB);
    crossing.faster = best;
    crossing.slower = runnerUp;
    if (!steps) {
        steps = stats::breakEvenSteps(*b.firstStepMs, stepB, *a.firstStepMs, stepA);
        std::swap(crossing.faster, crossing.slower);
    }
    // Equal steady steps never cross; at one step or less the faster leads from the start: no crossing.
    if (!steps || !std::isfinite(*steps) || *steps <= 1)
        return std::nullopt;
    crossing.steps = *steps;
    crossing.ci =
        stats::breakEvenInterval(startSummariesOf(rows[crossing.faster]), startSummariesOf(rows[crossing.slower]),
                                 stats::kResamples, stats::kSeed, cancel);
    crossing.range = breakEvenRangeText(crossing.ci);
    return crossing;
}

} // namespace

void recommendFor(Ledger &ledger, std::int64_t plannedSteps, stats::CancelToken cancel)
{
    ledger.plannedSteps = plannedSteps;
    ledger.recommendation.reset();
    ledger.recommendationCI.reset();
    ledger.recommendationTied = false;
    ledger.recommended.reset();
    ledger.recommendedReason.clear();
    ledger.decidingCrossing.reset();
    ledger.recommendationText.clear();
    ledger.leftOut.clear();
    ledger.noRecommendationReason.clear();
    // Every comparison is against the baseline: without its steady figure none is made.
    if (!ledger.rows.empty() && !ledger.rows.front().steadyMs) {
        ledger.noRecommendationReason = withoutBaselineReason(ledger.rows.front());
        return;
    }
    // A configuration that broke training is no candidate, however fast; the text says so (a row
    // that merely differs from the baseline stays one, and is named when it is the one to use).
    std::vector<stats::Candidate> candidates;
    std::vector<std::size_t> candidateRows;
    std::string leftOutText;
    for (std::size_t i = 0; i < ledger.rows.size(); ++i) {
        const LedgerRow &row = ledger.rows[i];
        if (!row.steadyMs || !row.firstStepMs)
            continue; // no figures: caveatsOf names the row when it failed or never settled
        if (const std::string reason = leftOutReason(row); !reason.empty()) {
            ledger.leftOut.push_back(i);
            leftOutText +=
                (leftOutText.empty() ? " Left out of the recommendation: " : "; ") + row.label + " (" + reason + ")";
            continue;
        }
        candidates.push_back({row.label, *row.firstStepMs / 1000.0, *row.steadyMs / 1000.0});
        candidateRows.push_back(i);
    }
    if (!leftOutText.empty())
        leftOutText += ".";
    auto rec = stats::recommend(candidates, ledger.plannedSteps);
    if (!rec) {
        ledger.noRecommendationReason = withoutCandidatesReason(ledger);
        return;
    }
    rec->best = candidateRows[rec->best];
    if (rec->runnerUp)
        rec->runnerUp = candidateRows[*rec->runnerUp];
    ledger.recommendation = rec;
    ledger.recommended = rec->best;
    ledger.recommendedReason = "finishes " + std::to_string(ledger.plannedSteps) + " steps first";
    const LedgerRow &best = ledger.rows[rec->best];
    // The start state is named where the runs recorded theirs: a first step is cold or warm.
    const bool started = best.firstStepStart != store::StartState::Unrecorded;
    std::string text = "For " + std::to_string(ledger.plannedSteps) + " steps" +
                       (started ? " on " + startText(best.firstStepStart) : std::string()) + ": " + best.label +
                       " finishes first (" + formatSeconds(rec->bestTotal) + ")";
    if (rec->runnerUp) {
        const LedgerRow &second = ledger.rows[*rec->runnerUp];
        text += ", " + formatSeconds(rec->margin) + " ahead of " + second.label + " (" +
                fmt("%.1f%%", 100.0 * rec->margin / rec->runnerUpTotal) + ")";
        const auto ci = stats::totalTimeDifference(startSummariesOf(best), startSummariesOf(second),
                                                   ledger.plannedSteps, stats::kResamples, stats::kSeed, cancel);
        ledger.recommendationCI = ci;
        ledger.recommendationTied = !ci.significant;
        if (!ci.hasInterval)
            text += "; " + std::string(kNoInterval) + ", so it cannot be told apart from " + second.label;
        else if (!ci.significant)
            text += ", but the margin's 95% CI (" + signedSeconds(ci.low) + " to " + signedSeconds(ci.high) +
                    ") contains 0: it cannot be told apart from " + second.label;
        else
            text += ", margin 95% CI " + signedSeconds(ci.low) + " to " + signedSeconds(ci.high);
        if (ledger.recommendationTied) {
            // Ties go to the row listed first (the baseline side of the ledger) at equal knob counts.
            const bool secondSimpler = knobCount(second) < knobCount(best) ||
                                       (knobCount(second) == knobCount(best) && *rec->runnerUp < rec->best);
            text += "; the simpler is " + (secondSimpler ? second.label : best.label);
            ledger.recommended = secondSimpler ? *rec->runnerUp : rec->best;
            ledger.recommendedReason =
                "the simpler of two that cannot be told apart (" + best.label + ", " + second.label + ")";
        }
        ledger.decidingCrossing = decidingCrossingOf(ledger.rows, rec->best, *rec->runnerUp, cancel);
        if (const auto &crossing = ledger.decidingCrossing) {
            const std::string &faster = ledger.rows[crossing->faster].label;
            const std::string &slower = ledger.rows[crossing->slower].label;
            text += crossing->faster == rec->best ? "; " + faster + " overtakes " + slower + " after "
                                                  : "; " + faster + " would overtake " + slower + " only after ";
            text += std::to_string(std::llround(crossing->steps)) + " steps (" +
                    (crossing->ci.hasInterval ? "95% CI " + crossing->range : std::string(kNoInterval)) + ")";
        }
    }
    // What the other start state gives the recommended row, when it ran both.
    if (ledger.hasSeveralStarts && best.speedup && best.fresh.firstStepMs && best.again.firstStepMs)
        text += "; " + best.label + " pays off after " + breakEvenByStartText(best, ledger.start);
    // The recommended row's losses took another path than the baseline's beyond its tolerance: it
    // still trains, but that is worth a look before a long run relies on it.
    if (ledger.recommended && ledger.rows[*ledger.recommended].accuracy.differs()) {
        const LedgerRow &chosen = ledger.rows[*ledger.recommended];
        leftOutText += " " + chosen.label + "'s losses differ from the baseline's beyond its tolerance (" +
                       differenceTextOf(chosen.accuracy) + "): it trains, but check its accuracy before a long run.";
    }
    ledger.recommendationText = text + "." + leftOutText + caveatsOf(ledger);
    if (ledger.provisional()) {
        std::string note = provisionalText(ledger);
        note[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(note[0])));
        ledger.recommendationText = note + ": this verdict may change. " + ledger.recommendationText;
    }
}

std::string recommendationCaveats(const Ledger &ledger)
{
    if (!ledger.recommended)
        return {};
    std::string text = caveatsOf(ledger);
    // "Within noise" of one process each is no measured noise: no interval could be taken.
    if (ledger.recommendationCI && !ledger.recommendationCI->hasInterval)
        text += " One process each: no interval, so the two cannot be told apart; more repeats give one.";
    return text.empty() ? text : text.substr(1); // caveatsOf's sentences each start with a space
}

} // namespace stepscope::report
