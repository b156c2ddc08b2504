#pragma once
// The ledger of a sweep: one row per configuration (repeats pooled), compared with the baseline.
// Plain C++ over the store and stats; the CLI's export, the dashboard's table and the report all
// read this one computation.
#include "stats/stats.h"
#include "store/store.h"

#include <optional>
#include <string>
#include <vector>

namespace stepscope::report
{

struct LedgerRow {
    std::string configName; // canonical name
    std::string label;      // knobs: "baseline", "tf32+bf16", ...; "python tf32+..." when its runtime is not row 0's
    std::string axisLabel;  // short label for chart axes: "+bf16" when it adds one knob to the row before
    std::string configJson;
    int repeats = 0, completed = 0;
    std::string status; // "complete", "failed", "2/3 complete", ...
    std::string failureCategory, failureMessage;

    std::optional<double> firstStepS; // median over completed repeats
    std::optional<double> firstStepMinS, firstStepMaxS;
    std::optional<stats::Noise> firstStepNoise;     // spread across processes; none with one process
    std::optional<double> steadyMs;                 // median of the pooled steady windows
    std::optional<double> steadyMinMs, steadyMaxMs; // spread of per-repeat medians
    std::optional<stats::MedianCI> steadyCI;        // steady median with its process-level CI
    int processes = 0;                              // completed runs with a steady window
    stats::Summary steady;                          // pooled steady samples
    std::string timing;                             // "gpu" (CUDA events) or "wall"
    std::optional<double> blockWallMs;              // the worker\'s mean wall time per step over the timed block
    stats::Noise noise = stats::Noise::Ok;
    std::string steadyProblem; // "no steady state: ..." when a repeat never settled
    std::optional<double> peakAllocatedMiB;
    std::string compileCache;       // "cold", "warm" or "" (no torch.compile)
    std::optional<double> compileS; // median compile_s the worker reported, over completed repeats

    // Against the baseline (row 0).
    std::optional<stats::RatioCI> timeRatio; // steady / baseline steady
    std::optional<double> speedup;           // baseline / steady
    std::optional<double> breakEvenSteps;    // nullopt with speedup: "never"
    std::string breakEven;                   // "-", "never", "immediately", "1234"
    std::optional<stats::BreakEvenCI> breakEvenCI;
    std::string breakEvenRange; // "80-150", "immediately to never", "n=1, no CI"; "" without a break-even
    std::string accuracy;       // "ok", "diverged (max rel. diff 0.3)", "n/a"

    std::vector<double> samplesMs;                 // pooled steady samples (for charts)
    std::vector<std::vector<double>> runSamplesMs; // steady samples per process (for CIs)
    std::vector<double> runFirstS;                 // first step per process, aligned with runSamplesMs (NaN: none)
};

struct Ledger {
    store::SweepRecord sweep;
    std::vector<LedgerRow> rows; // first is the baseline
    std::optional<store::EnvironmentRecord> environment;
    std::string environmentJson;
    std::int64_t plannedSteps = 0;
    std::optional<stats::Recommendation> recommendation; // indices into rows
    std::string recommendationText;
    std::optional<stats::DifferenceCI> recommendationCI; // runner-up's minus best's total time for N steps (s)
    bool recommendationTied = false;                     // best and runner-up cannot be told apart
};

// Builds the ledger of one sweep; plannedSteps <= 0 uses the sweep's own planned length.
Ledger buildLedger(const store::Reader &reader, std::int64_t sweepId, std::int64_t plannedSteps = 0);

// A run's step times from step 2 on (step 1 is the first-step figure) and their steady window:
// the one reading of stored steps that the ledger, `show` and the history share.
struct RunSteady {
    std::vector<double> series; // CUDA-event time where the worker had it, else wall time
    stats::SteadyWindow window;
    std::vector<double> steady; // series[window.begin, window.end); empty without a window
    bool gpu = false;           // whether any step had a CUDA-event time
};
RunSteady steadyOf(const std::vector<store::StepRow> &steps);

// Recomputes the recommendation (and its text) for another planned run length.
void recommendFor(Ledger &ledger, std::int64_t plannedSteps);

// Tolerance of the accuracy gate for a configuration's precision ("fp32", "tf32", "bf16", "fp16").
double lossTolerance(const std::string &configJson);

std::string toCsv(const Ledger &ledger);
std::string toJson(const Ledger &ledger);
std::string toMarkdown(const Ledger &ledger);

std::string formatSeconds(double s); // "0.41 s", "43.8 s", "3 min 45 s"
std::string formatMs(double ms);     // "7.16 ms"

// The spread of a process-level interval in tables; "n=1, no CI" when only one process ran.
extern const char *const kNoInterval;                         // "1 repeat: no interval"
extern const char *const kNoIntervalShort;                    // "n=1, no CI"
std::string breakEvenRangeText(const stats::BreakEvenCI &ci); // "80-150", "immediately to never"
// The processes of a row as the bootstrap takes them: first step and steady steps, both in seconds.
std::vector<stats::Process> processesOf(const LedgerRow &row);

} // namespace stepscope::report
