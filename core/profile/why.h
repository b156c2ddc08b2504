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

struct Verdict {
    Bound bound = Bound::Mixed;
    double busyShare = 0;           // busy time over the step it is set against (0..1)
    double stepMs = 0;              // that step: the timed steady step when known, else the profiled one
    bool againstTimed = false;      // stepMs is the timed steady step (the profile's own step is longer)
    std::vector<std::string> knobs; // what addresses it and is not on yet ("CUDA graph", ...)
    std::string text;               // "launch-bound: the GPU waits 79% of the step: CUDA graph, ..."
};

// What "busy" measures on the profile's device, for labels: "GPU busy" (the union of kernels and
// copies) on a GPU, "inside ATen" (time in ATen ops) on the CPU, which has no GPU to be busy.
const char *busyName(const ProfileSummary &summary);

// A busy share as shown: never above 100%. A busy time longer than the step it is set against is
// clamped, and the text says why it can be: on the CPU ATen ops of several threads overlap, on a
// GPU the profiled steps ran slower than the timed one. "97%", "100% (measured 134%: ...)".
std::string busyShareText(double busyMs, double stepMs, bool cpu);

// `steadyMs`: the run's (or its ledger row's) timed steady median, when it has one.
Verdict verdict(const ProfileSummary &summary, std::optional<double> steadyMs, const RunConfig &config);

} // namespace stepscope::profile
