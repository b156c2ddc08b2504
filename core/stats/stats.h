#pragma once
// Statistics of step times: plain C++17, no Qt, no torch. Every figure the CLI, the report and the
// dashboard show comes from here, so the rules of DESIGN.md ("Measurement rules") live in one place.
#include "common/steady_problem.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stats/process_summary.h"

namespace stepscope::stats
{

// Robust summary of a sample (e.g. steady-state step times in ms). Empty input gives count == 0
// and NaN figures. Quantiles use linear interpolation between order statistics (numpy's default).
struct Summary {
    std::size_t count = 0;
    double median = 0, mean = 0, p10 = 0, p90 = 0, q1 = 0, q3 = 0;
    double iqr = 0; // q3 - q1
    double mad = 0; // median absolute deviation (raw, not scaled by 1.4826)
    double cv = 0;  // stddev / mean (sample stddev, n - 1)
    double min = 0, max = 0;
};
Summary summarize(const std::vector<double> &values);
double quantile(std::vector<double> values, double q); // q in [0, 1]
double median(std::vector<double> values);

// Noise flag from IQR / median: >= kNoiseWarn (0.10) warns, >= kNoiseUnreliable (0.25) is
// unreliable (common/measurement_defaults.h).
enum class Noise { Ok, Warn, Unreliable };
Noise noiseOf(const Summary &s);
// The same thresholds for any relative spread (e.g. of per-process medians); NaN is unreliable.
Noise noiseOfSpread(double relativeSpread);
const char *toString(Noise n); // "ok", "noisy", "unreliable"

// Warm-up detection over the series of steps after the first one (index 0 = step 2).
// `found` is false ("no steady state") when the tail of the series still drifts or is too short.
struct SteadyWindow {
    bool found = false;
    std::size_t begin = 0;                // first index of the steady window in the input
    std::size_t end = 0;                  // one past the last index (== input size when found)
    std::optional<SteadyProblem> problem; // why none was found (describe() words it)
};
SteadyWindow detectSteadyState(const std::vector<double> &stepsAfterFirst);

// ---- Stopping a computation nobody waits for -----------------------------------------------------
//
// A bootstrap over many processes takes a while, and a dashboard whose user moved on to another
// sweep no longer wants it. Its caller passes a token over a flag it owns and raises the flag from
// any thread; the bootstraps read it between resamples and, once it is up, stop and return their
// result marked `cancelled` (the point estimate, no interval). Nothing is thrown: a caller that does
// not know about tokens passes none (the default, never raised) and gets the figures as ever.
class CancelToken
{
  public:
    CancelToken() = default;
    // `flag` must outlive every call that is given the token.
    explicit CancelToken(const std::atomic<bool> &flag) : flag_(&flag) {}
    bool cancelled() const { return flag_ && flag_->load(std::memory_order_relaxed); }

  private:
    const std::atomic<bool> *flag_ = nullptr;
};

// ---- Intervals at the level that varies ---------------------------------------------------------
//
// The step time of a launch-bound configuration moves more between cold processes than between the
// steps of one process, so every interval here takes runs as groups (one vector of steps per
// process). Each process is summarised once (process_summary.h: its sorted steps, and the
// uncertainty of its own level from medians of blocks of consecutive steps); a bootstrap then
// resamples processes, takes the same statistic as the point estimate over each resample, scales its
// variance by n / (n - 1), adds the within-process term and takes Student's t. A resample costs the
// same at 100 steps a process as at 100,000 (docs/decisions.md, "Intervals from process summaries").
// One process per side says nothing about the spread between processes: no interval then. Two give
// one, wide by design (t with 1 degree of freedom is 12.7).
// Each takes a CancelToken last: once it is raised, the result comes back `cancelled` and without an
// interval.
using Runs = std::vector<std::vector<double>>;
constexpr int kResamples = 2000;       // the default of every bootstrap below
constexpr std::uint64_t kSeed = 12345; // its default seed

// Ratio of medians median(pooled candidate) / median(pooled baseline) with a 95% CI.
// `hasInterval` is false (low/high NaN, not significant) when either side has fewer than 2
// processes with steps. Deterministic: the resampling RNG is seeded with `seed`.
struct RatioCI {
    double ratio = 0, low = 0, high = 0;
    bool significant = false; // false when [low, high] contains 1: "no significant difference"
    bool hasInterval = false;
    std::size_t processes = 0; // the fewer processes of the two sides
    bool cancelled = false;    // the token was raised: the ratio without its interval
};
RatioCI ratioOfMedians(const Runs &candidateRuns, const Runs &baselineRuns, int resamples = kResamples,
                       std::uint64_t seed = kSeed, CancelToken cancel = {});
// The same over processes summarised already (a caller that asks several intervals of one side).
RatioCI ratioOfMedians(const std::vector<ProcessSummary> &candidate, const std::vector<ProcessSummary> &baseline,
                       int resamples = kResamples, std::uint64_t seed = kSeed, CancelToken cancel = {});

// Median of the pooled steps of a configuration's runs with a 95% CI at process level (same method
// as ratioOfMedians, one side). No interval with fewer than 2 processes.
struct MedianCI {
    double median = 0, low = 0, high = 0;
    bool hasInterval = false;
    std::size_t processes = 0;
    bool cancelled = false; // the token was raised: the median without its interval
};
MedianCI medianOfRuns(const Runs &runs, int resamples = kResamples, std::uint64_t seed = kSeed,
                      CancelToken cancel = {});
MedianCI medianOfRuns(const std::vector<ProcessSummary> &processes, int resamples = kResamples,
                      std::uint64_t seed = kSeed, CancelToken cancel = {});

// One cold process: its first-step time and its steady steps, in the unit the caller compares in.
struct Process {
    double first = 0;
    std::vector<double> steps;
};

// Interval of the break-even step count of C against B (see breakEvenSteps). A bound at or below 1
// reads "immediately"; `highNever` says the upper bound is "never" (C not faster in part of the
// resamples). No interval with fewer than 2 processes a side.
struct BreakEvenCI {
    bool hasInterval = false;
    double low = 0, high = 0; // high is +inf when highNever
    bool lowNever = false;    // even the lower bound is "never": C is not faster in most resamples
    bool highNever = false;
    bool cancelled = false; // the token was raised: no interval
};
BreakEvenCI breakEvenInterval(const std::vector<Process> &candidate, const std::vector<Process> &baseline,
                              int resamples = kResamples, std::uint64_t seed = kSeed, CancelToken cancel = {});
BreakEvenCI breakEvenInterval(const std::vector<ProcessSummary> &candidate, const std::vector<ProcessSummary> &baseline,
                              int resamples = kResamples, std::uint64_t seed = kSeed, CancelToken cancel = {});

// Difference of total times for N steps, other - best (first + (N - 1) * steady of each side, the
// first step's median over processes and the median of the pooled steady steps), with a 95% CI.
// `significant` is false when the interval contains 0 or either side has fewer than 2 processes.
struct DifferenceCI {
    double difference = 0, low = 0, high = 0;
    bool significant = false;
    bool hasInterval = false;
    bool cancelled = false; // the token was raised: the difference without its interval
};
DifferenceCI totalTimeDifference(const std::vector<Process> &best, const std::vector<Process> &other,
                                 std::int64_t plannedSteps, int resamples = kResamples, std::uint64_t seed = kSeed,
                                 CancelToken cancel = {});
DifferenceCI totalTimeDifference(const std::vector<ProcessSummary> &best, const std::vector<ProcessSummary> &other,
                                 std::int64_t plannedSteps, int resamples = kResamples, std::uint64_t seed = kSeed,
                                 CancelToken cancel = {});

// Every process of a side summarised (summarizeProcess), in order. Not cancellable: a process is
// sorted and cut into blocks once, milliseconds even at 100,000 steps.
std::vector<ProcessSummary> summarizeProcesses(const Runs &runs);
std::vector<ProcessSummary> summarizeProcesses(const std::vector<Process> &processes);

// Noise of the first step across cold processes: (max - min) / median for 2-3 processes, IQR /
// median from 4 on, with the thresholds of noiseOf. nullopt with fewer than 2 processes.
std::optional<Noise> firstStepNoise(const std::vector<double> &firstSteps);

// Student's t quantile for a two-sided 95% interval with `df` degrees of freedom (df >= 1).
double studentT975(double df);

// Break-even step count of candidate C against baseline B (times in the same unit, e.g. seconds):
// n* = 1 + (T1_C - T1_B) / (t_B - t_C). nullopt ("never") when C is not faster per step.
// When C is faster per step and also cheaper up front, n* <= 1: it pays off from the first step.
std::optional<double> breakEvenSteps(double firstC, double steadyC, double firstB, double steadyB);

// Total time of a planned run of N steps: T1 + (N - 1) * t.
double totalTime(double first, double steady, std::int64_t plannedSteps);

// The configuration with the least total time for N steps, and its margin over the runner-up.
struct Candidate {
    std::string name;
    double first = 0;  // first-step time (s)
    double steady = 0; // steady-state step time (s)
};
struct Recommendation {
    std::size_t best = 0;                // index into the candidates
    std::optional<std::size_t> runnerUp; // none when only one candidate
    double bestTotal = 0, runnerUpTotal = 0;
    double margin = 0; // runnerUpTotal - bestTotal (same unit), 0 without a runner-up
};
std::optional<Recommendation> recommend(const std::vector<Candidate> &candidates, std::int64_t plannedSteps);

} // namespace stepscope::stats
