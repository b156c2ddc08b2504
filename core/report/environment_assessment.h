#pragma once
// What a sweep's environment and timing mean for its figures: each fact of the worker's environment
// record that can skew a figure gets a finding, and the sweep's runs say whether its steps were
// launch-bound and what pinning the worker did. Typed results only: the words are
// assessment_text.h's, which both front-ends (the dashboard's environment view and report, the
// CLI's show and export) print.
#include "config/run_config.h"
#include "store/store.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stepscope::report
{

enum class Severity { None, Info, Warning, Problem };

// What a fact means for the numbers; one per rule, so a view can word, colour or count it.
enum class Finding {
    None,
    CudaUnavailable,        // gpu: every figure is a CPU figure
    SharedCudaCache,        // cuda_cache_path unset on a GPU: later first steps find a warm JIT cache
    EagerModuleLoading,     // CUDA_MODULE_LOADING=EAGER
    LazyModuleLoading,      // any other CUDA_MODULE_LOADING: kernel loading falls in the first step
    FewCpuThreads,          // cpu_threads 1-3
    PinnedWorker,           // cpu_affinity other than none
    GpuThrottled,           // a slowdown among the throttle reasons after the timed steps
    SmClockBelowMaximum,    // the SM clock after the timed steps under 90% of its maximum
    ClocksNotRecorded,      // a GPU without any clock in the record (no NVML)
    LaunchBound,            // TimingAssessment::launchBound
    PinningChangedTheSteps, // TimingAssessment::pinning
};

// One fact of the environment record, or one the record lacks that matters (recorded == false).
struct EnvironmentFact {
    std::string key;   // the record's key, or the missing fact's name ("gpu_clocks")
    std::string value; // as recorded (numbers and booleans as text); empty when not recorded
    bool recorded = true;
    Finding finding = Finding::None;
    Severity severity = Severity::None;
};

// The record's facts in a stable order (GPU and versions first, then the rest by key, then the
// missing facts). Empty or unreadable JSON gives none.
std::vector<EnvironmentFact> assessEnvironment(const std::string &environmentJson);

// One completed run as the timing rules see it.
struct RunTiming {
    std::string configJson;    // RunRecord::configJson
    double steadyMedianMs = 0; // its summary's median (GPU time on CUDA); 0 when unknown
    double blockWallMs = 0;    // RunRecord::blockWallMs, mean wall time per step; 0 when unknown
};
// The completed runs of a sweep, each with its summary (read now where none is stored).
std::vector<RunTiming> sweepTimings(const store::Reader &reader, std::int64_t sweepId);

// A step whose wall time is at least kLaunchBoundRatio x its GPU time: the CPU (kernel launches,
// Python) limits it. Only CUDA has a GPU time to compare with.
constexpr double kLaunchBoundRatio = 1.3;
struct LaunchBound {
    int bound = 0;    // configurations at or above the ratio
    int measured = 0; // CUDA configurations with a wall time
    RunConfig worst;  // the configuration with the highest ratio
    double wallMs = 0, gpuMs = 0, ratio = 0;
};

// A pinned configuration against its twin without the pin: their steady medians. Within 3% of
// each other is no change.
enum class PinningOutcome { Faster, Slower, NoChange };
struct PinningPair {
    RunConfig pinned;
    double pinnedMs = 0, unpinnedMs = 0;
    PinningOutcome outcome = PinningOutcome::NoChange;
};

struct TimingAssessment {
    std::optional<LaunchBound> launchBound; // none when no configuration is launch-bound
    std::vector<PinningPair> pinning;       // in the order of the configurations' canonical names
};
// Repeats of a configuration are pooled by the median of their figures; runs without a steady
// median or with a configuration that does not parse are left out.
TimingAssessment assessTiming(const std::vector<RunTiming> &runs);

// Everything the environment view and the CLI show about one sweep.
struct SweepAssessment {
    std::vector<EnvironmentFact> environment;
    TimingAssessment timing;
};
SweepAssessment assessSweep(const std::string &environmentJson, const std::vector<RunTiming> &runs);

} // namespace stepscope::report
