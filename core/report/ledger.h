#pragma once
// The ledger of a sweep: one row per configuration (repeats pooled), compared with the baseline.
// Plain C++ over the store and stats; the CLI's export, the dashboard's table and the report all
// read this one computation. This header holds its types; the functions are in the job headers
// included at its end (rows, accuracy gate, labels, recommendation, text, export).
#include "config/run_config.h"
#include "profile/profile_summary.h"
#include "report/compute.h"
#include "report/energy.h"
#include "report/knob_worth.h"
#include "report/peak_memory.h"
#include "report/sweep_models.h"
#include "report/waterfall.h"
#include "stats/stats.h"
#include "store/store.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace stepscope::report
{

// Every time in a row is in milliseconds (first steps and compiles too), so no figure mixes units;
// the stats library takes seconds and processesOf converts once. Exports keep their *_s columns.
struct LedgerRow {
    std::string configName; // canonical name
    std::string label; // knobs: "baseline", "tf32+bf16", ...; "python tf32+..." when its runtime is not the baseline's
    std::string axisLabel; // short label for chart axes: "+bf16" when it adds one knob to the row before
    std::string configJson;
    int repeats = 0, completed = 0;
    // How the row's last run ended (statusText words the row: "complete", "2/3 complete", "failed").
    RunStatus lastStatus = RunStatus::Complete;
    bool complete() const { return completed == repeats; }
    std::string failureCategory, failureMessage;
    // Runs a Stop cancelled, and the steps they recorded: kept in the file, not in the figures.
    int cancelled = 0;
    std::int64_t cancelledSteps = 0;

    // The first step of the ledger's start state (Ledger::start) when the row ran it, else of the
    // state it ran (firstStepStart says which; Unrecorded: files of before cache states, all runs).
    std::optional<double> firstStepMs; // median over completed repeats
    std::optional<double> firstStepMinMs, firstStepMaxMs;
    std::optional<stats::Noise> firstStepNoise; // spread across processes; none with one process
    store::StartState firstStepStart = store::StartState::Unrecorded;
    // First steps by the start state they had (store::StartState: every cache they read), each
    // against the baseline's of the same state: "pays off after 474 steps on a fresh machine, 167 on
    // this one".
    struct StartFigures {
        std::optional<double> firstStepMs, minMs, maxMs; // median, lowest and highest process
        int processes = 0;                               // completed processes that started so
        std::optional<double> breakEvenSteps;            // nullopt with a speed-up: never
        std::optional<stats::BreakEvenCI> breakEvenCI;
        std::string breakEvenRange;
    };
    StartFigures fresh, shipped, again;
    // Shipped or again processes whose caches missed (store::CacheRecord::missed), and processes of
    // an older file whose compile and machine caches were in different states: in no state.
    int warmMissed = 0;
    // A row whose shipped start cannot differ from its fresh one (nothing portable to ship: a CPU
    // row without torch.compile): its shipped figures are its fresh ones, said so, not run.
    bool shippedIsFresh = false;
    const StartFigures &figuresOf(store::StartState s) const
    {
        return s == store::StartState::Again ? again : s == store::StartState::Shipped ? shipped : fresh;
    }
    StartFigures &figuresOf(store::StartState s)
    {
        return s == store::StartState::Again ? again : s == store::StartState::Shipped ? shipped : fresh;
    }
    // What the caches cost the first step: fresh minus again, when the row ran both.
    std::optional<double> machineCacheShareMs() const
    {
        return fresh.firstStepMs && again.firstStepMs ? std::optional<double>(*fresh.firstStepMs - *again.firstStepMs)
                                                      : std::nullopt;
    }
    // Completed processes whose first step paid for the machine's caches (CUDA JIT, cuDNN engines,
    // library files): the sweep's first process when no warm-up process ran (store::MachineWarmup).
    // -1: not recorded.
    int machineColdFirsts = 0;
    std::optional<double> steadyMs;                 // median of the pooled steady windows (each run's stored one)
    std::optional<double> steadyMinMs, steadyMaxMs; // spread of per-repeat medians
    std::optional<stats::MedianCI> steadyCI;        // steady median with its process-level CI
    int processes = 0;                              // completed runs with a steady window
    stats::Summary steady;                          // pooled steady samples
    store::Timing timing = store::Timing::Wall;     // CUDA events or wall time
    std::optional<double> blockWallMs;              // the worker\'s mean wall time per step over the timed block
    stats::Noise noise = stats::Noise::Ok;
    std::optional<SteadyProblem> steadyProblem; // a repeat that never settled, and why (describe() words it)
    // Peak GPU memory over the row's completed processes (report/peak_memory.h words it).
    PeakMemory memory;
    // The GPU's energy over the row's completed processes (report/energy.h words it), and the step
    // after which it has spent fewer joules than the baseline (energyBreakEven; not for the baseline).
    EnergyFigures energy;
    EnergyBreakEven energyBreakEven;
    std::vector<EnergyReading> energyReadings; // of its completed runs, as stored (energy is made from them)
    // The row's model as its runs' worker reported it (schema 10; unrecorded in older files).
    ModelFacts model;
    // FLOPs of one training step at the row's shape (the count its worker reported, else ResNet18's
    // layers), the TFLOP/s its steady step achieves and the share of the GPU's dense peak for its
    // precision (report/compute.h).
    ComputeFigures compute;
    // The profile of the row's steps (issue 18): the one of its completed runs whose steady median
    // is nearest the row's (the first profiled one without steady figures); why there is none when
    // no run of the row has one ("" for a row never profiled, such as files of before profiles).
    std::optional<profile::ProfileSummary> profile;
    std::int64_t profileRunId = 0;
    std::string profileTrace; // the kept trace's stored name (run_profile.h), "" when not kept
    std::string profileProblem;
    // The memory snapshot of the profiled run (issue 31.2; the first run that has one when none is
    // profiled): its step's timeline, or why there is none. Empty for a row never asked for one.
    std::optional<profile::StoredMemory> memorySnapshot;
    // Data-parallel rows (issue 21). The row's steps are each step's slowest rank; against the same
    // configuration at world size 1 in this sweep, the scaling efficiency is that row's steady step
    // over this one's (weak scaling: the batch is per GPU, so 1.0 is perfect, 0.5 half the work per
    // second it could do). rankSpreadMs: the median over steady steps of slowest minus fastest rank,
    // median over processes (a straggler or a slow link shows here).
    int worldSize = 1;
    std::optional<double> scalingEfficiency;
    std::string scalingReference; // the world-size-1 row's label, "" without one
    std::optional<double> rankSpreadMs;
    std::optional<double> compileMs; // median compile_s the worker reported, over completed repeats

    // Against the baseline (rows[0], the sweep's stored baseline). None on any row when the baseline
    // has no steady figure: a speed-up against nothing is no 1.00x.
    bool baseline = false;                   // this row is rows[0], the one the others compare with
    std::optional<stats::RatioCI> timeRatio; // steady / baseline steady
    std::optional<double> speedup;           // baseline / steady
    std::optional<double> breakEvenSteps;    // nullopt with speedup: "never" (breakEvenText words it)
    // Peak allocated / the baseline's: 0.62 uses 0.62x the baseline's memory. Taken whatever the
    // steady figures: a row that never settled still held its memory.
    std::optional<double> memoryRatio;
    std::optional<stats::BreakEvenCI> breakEvenCI;
    std::string breakEvenRange; // "80-150", "immediately to never", "n=1, no CI"; "" without a break-even
    // The accuracy gate: this row's losses over the first steps against the baseline's. A step's
    // difference is allowed tolerance x (the baseline's loss at that step + its first loss): relative
    // while the loss is large, absolute once a small batch has memorised its data and both losses
    // are near zero, where a relative difference says nothing about training (lossAllowance).
    struct Accuracy {
        enum class Verdict {
            NotChecked, // no losses on one side
            Reference,  // the baseline itself
            Ok,         // within the allowance at every step
            Differs,    // beyond it at some step while still training: flagged, still a candidate
            Diverged,   // a loss that is not finite, or losses that end no lower than they started
                        // while the baseline's fell: left out of the recommendation
        };
        Verdict verdict = Verdict::NotChecked;
        double tolerance = 0; // lossTolerance of the row's configuration
        // The step (1-based) where the difference used most of its allowance, and the figures there;
        // worstShare > 1 is beyond the allowance.
        int worstStep = 0;
        double worstShare = 0, loss = 0, baselineLoss = 0, allowed = 0;
        double firstLoss = 0, lastLoss = 0, baselineLastLoss = 0; // where the row's and the baseline's losses ended
        bool finite = true;                                       // every loss finite
        bool stalled = false; // the row's losses ended no lower than they started while the baseline's fell
        bool diverged() const { return verdict == Verdict::Diverged; }
        bool differs() const { return verdict == Verdict::Differs; }
    } accuracy;

    std::vector<double> samplesMs;                 // pooled steady samples (for charts)
    std::vector<std::vector<double>> runSamplesMs; // steady samples per process (for CIs)
    std::vector<double> runFirstMs;                // first step per process, aligned with runSamplesMs (NaN: none)
    std::vector<store::StartState> runStarts;      // each process's start, aligned (Unrecorded: missed or unknown)
    // processesOf(this) read once for the intervals against other rows (speed-up, break-even, margin),
    // filled by buildLedger; a row built otherwise leaves it empty and is read when asked.
    std::vector<stats::ProcessSummary> processSummaries;
    // The same, of the processes whose start is firstStepStart: what the break-even's interval rests on.
    std::vector<stats::ProcessSummary> startSummaries;
};

struct Ledger {
    store::SweepRecord sweep;
    // First is the sweep's baseline (SweepRecord::baselineConfig, else its first configuration);
    // the others follow in the sweep's order. Speed-ups, break-even, the accuracy gate and the
    // recommendation's ties are against it.
    std::vector<LedgerRow> rows;
    // The start state the planned run is assumed to have, which rows' first steps, break-evens and
    // the recommendation take (store::StartState): a fresh machine, one built from an image that
    // ships the configuration's caches, or one that has run the configuration before.
    store::StartState start = store::StartState::Fresh;
    bool hasSeveralStarts = false; // some row ran two start states or more: the others' figures are there too
    std::optional<store::EnvironmentRecord> environment;
    std::string environmentJson;
    // The models the sweep's runs trained, in order (one for most sweeps): with several, row labels
    // start with their model.
    std::vector<SweepModel> models;
    // The database the ledger was read from, for the files kept beside it (rows' kept traces); empty
    // for a ledger built by hand.
    std::string databasePath;
    std::int64_t plannedSteps = 0;
    // The batch sizes the sweep ran, ascending (one for most sweeps), and the one these rows are of.
    std::vector<int> batches;
    int batch = 0;
    // Each row against the earlier row it differs from by one change (report/waterfall.h), in row order.
    std::vector<WaterfallStep> waterfall;
    std::optional<stats::Recommendation> recommendation; // indices into rows
    // What finishes the planned run first under each start state (store::kStartStates order), from
    // point figures (the intervals and ties are the main recommendation's, for `start`). A row's first
    // step for a state it did not run is that of a state with fewer caches (firstStepFor), never more.
    struct StartPick {
        store::StartState state = store::StartState::Fresh;
        std::optional<std::size_t> row; // none: no row has figures for it
        double totalSeconds = 0;
        bool measured = false; // the picked row's first step is of this very state
    };
    std::vector<StartPick> byStart;
    // A sweep still under way (issue 28.3): runs still queued or running, and the start states they
    // have. Its recommendation is provisional: refined as those runs land.
    int runsPending = 0, runsTotal = 0;
    std::vector<store::StartState> statesPending; // kStartStates order
    bool provisional() const { return runsPending > 0; }
    // Some row has a peak memory figure: tables show the column only then (a CPU sweep has none).
    bool measuredMemory() const
    {
        return std::any_of(rows.begin(), rows.end(), [](const LedgerRow &r) { return r.memory.allocated.has_value(); });
    }
    // Some row has joules per step: the energy column and section show only then.
    bool measuredEnergy() const
    {
        return std::any_of(rows.begin(), rows.end(), [](const LedgerRow &r) { return r.energy.joulesPerStep.has_value(); });
    }
    // Rows with figures that the recommendation left out, in row order (leftOutReason says why;
    // recommendationText names them).
    std::vector<std::size_t> leftOut;
    std::string recommendationText;
    std::optional<stats::DifferenceCI> recommendationCI; // runner-up's minus best's total time for N steps (s)
    bool recommendationTied = false;                     // best and runner-up cannot be told apart
    // The one configuration every view recommends (issue 19.1): the best, or the simpler of the two
    // when the best cannot be told apart from the runner-up. Why, in a few words.
    std::optional<std::size_t> recommended;
    std::string recommendedReason;
    // The row that spends the fewest joules over the planned run, first step included (issue 31.4:
    // the same rule as the time pick, in joules), among the rows with both energy figures that the
    // time pick could take; none where fewer than one has them. `fewestJoulesText` says it and,
    // where it is not the recommended row, what each costs of the other's measure.
    std::optional<std::size_t> fewestJoules;
    std::string fewestJoulesText;
    // The idle power taken out of every energy figure (subtractIdlePower), watts; none: the figures
    // are what the counter read, idle included, as they are unless a user asks.
    std::optional<double> idleWatts;
    bool idleAboveDraw = false; // some window drew less than idleWatts: that idle figure is too high
    bool byJoules = false; // the verdict is the fewest joules (recommendByJoules), not the least time
    // What each knob of the recommended row is worth (knob_worth.h), recomputed with it.
    std::vector<KnobWorth> recommendedWorth;
    // Why there is no recommendation, when there is none: "the baseline (baseline) has no steady
    // state: step times went from ...". Empty when there is one.
    std::string noRecommendationReason;
    // Where the recommended row's line of total time meets the runner-up's: the one of the two that is
    // faster per step overtakes the other after `steps` steps (past the planned run when the faster is
    // the runner-up). The crossing that decides the recommendation, so it carries its own
    // process-level interval, whichever rows the two are. Recomputed with the recommendation.
    struct Crossing {
        std::size_t faster = 0, slower = 0; // rows
        double steps = 0;                   // > 1: at 1 or below the faster is ahead from the first step
        stats::BreakEvenCI ci;              // no interval when either side ran one process
        std::string range;                  // breakEvenRangeText(ci)
    };
    std::optional<Crossing> decidingCrossing;
    // Which caches the first steps found (firstStepCachesText words it): the machine warm-up, a
    // fresh CUDA JIT cache per run. `recorded` is false for files of before the warm-up process.
    struct FirstStepCaches {
        bool recorded = false;  // some completed run recorded its machine warm-up state
        bool warmedUp = false;  // a discarded warm-up process ran first
        bool ownCaches = false; // runs had machine caches of their own, cold or warm (schema 7)
        std::string coldRow;    // the row whose first process paid for the machine's caches
    } firstStepCaches;
};

} // namespace stepscope::report

// What is computed and said of these types, a header a job. Included here so that a file that
// includes the ledger has all of it; each of them includes this header first for the types.
#include "report/accuracy_gate.h"
#include "report/export.h"
#include "report/ledger_labels.h"
#include "report/ledger_rows.h"
#include "report/ledger_text.h"
#include "report/recommendation.h"
