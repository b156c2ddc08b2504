#pragma once
// Why a configuration is as fast as it is (issue 18.2): is its step waiting on the CPU that
// launches the work (launch-bound: CUDA graphs, reduce-overhead and pinning help) or on the GPU
// (bf16, channels_last and fusion help)? Read from the run's profile against its timed step.
#include "config/run_config.h"
#include "profile/profile_summary.h"

#include <optional>
#include <string>
#include <vector>

namespace stepscope::profile
{

enum class Bound {
    LaunchBound,  // the GPU waits for most of the step
    Mixed,        // it waits for a fair part
    GpuBound,     // it is busy nearly all the step
    CpuFramework, // CPU run: most of the step is outside ATen ops (Python, dispatch)
    CpuCompute,   // CPU run: ATen ops fill the step
};
const char *toString(Bound b); // "launch-bound", "partly launch-bound", "GPU-bound", ...

// Thresholds on the busy share of the step.
inline constexpr double kLaunchBoundBelow = 0.6; // busy under 60%: the GPU waits 40% or more
inline constexpr double kGpuBoundFrom = 0.85;

// A knob a verdict advises. applyAdvice() is the one place that says which fields of a
// configuration each one sets.
enum class Advice {
    CudaGraph,
    CompileReduceOverhead,
    PinOneCore,
    FusedSgd,
    Bf16Autocast,
    ChannelsLast,
    Tf32,
    CompileFusion, // torch.compile default on a GPU-bound step: its fusion cuts GPU work
    CompileCpu,    // torch.compile default on a CPU step spent outside ATen
    NativeRuntime,
    MoreThreads,
};
const char *toString(Advice a); // "CUDA graph", "fused SGD", ... (the verdict's words)

// `config` with the advised knob on, or why it cannot be run so (`problem`, config unset): the
// knob needs what the configuration lacks (validate()'s rule, e.g. a CUDA device), or its
// configuration is not known.
struct Advised {
    Advice advice = Advice::CudaGraph;
    std::optional<RunConfig> config;
    std::string problem;
};
Advised applyAdvice(const RunConfig &config, Advice advice);

// The timed steady step a verdict is set against, and how far it moved between processes.
struct TimedStep {
    double medianMs = 0;
    // Relative half-width of the median's 95% interval over processes (0.12: ±12%); none with one
    // process or no interval.
    std::optional<double> spread;
};

// A timed step is set aside for the profiled one when its interval is wider than this. The busy
// share is GPU work (fixed for a configuration) over the step, and the GPU-bound line sits at 85%:
// a step that moves ±10% moves an 85% share between 77% and 94%, across the line, so beyond this
// spread the timed median says more about the process it ran in than about the step. It is also
// where DESIGN.md's noise rule starts to warn (IQR/median 0.10), and launch-bound eager steps
// (10-40% between processes) pass it while graph-replayed ones (< 1%) stay well under it.
inline constexpr double kNoisyTimedStep = 0.10;

struct Verdict {
    Bound bound = Bound::Mixed;
    double busyShare = 0;      // busy time over the step it is set against (0..1)
    double stepMs = 0;         // that step: the timed steady step when known and steady, else the profiled one
    bool againstTimed = false; // stepMs is the timed steady step (the profile's own step is longer)
    // Why a timed step there was is not the one judged against ("" when it is, or when there is
    // none): "it moved ±18% between processes"; the text ends its figure with it.
    std::string timedSetAside;
    std::vector<Advice> advice; // what addresses it and is not on yet, in the order to try
    std::string text;           // "launch-bound: the GPU waits 79% of the step: try CUDA graph, ..."
};

// What "busy" measures on the profile's device, for labels: "GPU busy" (the union of kernels and
// copies) on a GPU, "inside ATen" (time in ATen ops) on the CPU, which has no GPU to be busy.
const char *busyName(const ProfileSummary &summary);

// A busy share as shown: never above 100%. A busy time longer than the step it is set against is
// clamped, and the text says why it can be: on the CPU ATen ops of several threads overlap, on a
// GPU the profiled steps ran slower than the timed one. "97%", "100% (measured 134%: ...)".
std::string busyShareText(double busyMs, double stepMs, bool cpu);

// `timed`: the run's (or its ledger row's) timed steady median, when it has one. The verdict is set
// against it unless it is noisy (spread above kNoisyTimedStep) or slower than the profiled step
// (which ran under the profiler and should be the slower one): then against the profiled step,
// and the text says so.
Verdict verdict(const ProfileSummary &summary, std::optional<TimedStep> timed, const RunConfig &config);

} // namespace stepscope::profile
