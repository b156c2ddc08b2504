#pragma once
// What a run's profile says (issue 18.1): after its timed steps, a worker profiles K more steady
// steps (Kineto in LibTorch, torch.profiler in Python) and writes a Chrome trace; the supervisor
// reads that trace once (trace_summary.h) into this summary, stores it with the run, and keeps the
// trace beside the database. Every view (the Why page, `stepscope-cli why`, exports, the diff)
// reads the summary, never the trace.
//
// Figures are per profiled step. The profiler slows a launch-bound step (it records every launch),
// so the step time under the profiler is longer than the timed step's: GPU busy time and kernel
// counts are the profile's facts, and views set the busy time against the *timed* steady step
// where the ledger has one (why_text.h).
#include "profile/memory_timeline.h"

#include <optional>
#include <string>
#include <vector>

namespace stepscope::profile
{

// Where GPU time goes, by the kind of work; on the CPU, the same families from ATen op names.
enum class Family { ConvGemm, Normalization, Elementwise, Optimizer, Copies, Other };
constexpr int kFamilyCount = 6;
const char *toString(Family f);    // "conv-gemm", "normalization", ... (data)
const char *displayName(Family f); // "convolution/GEMM", "normalization", ... (people)
std::optional<Family> familyFromString(const std::string &s);

struct KernelStat {
    std::string name; // the kernel's (or, on the CPU, the ATen op's) name, as the trace has it
    Family family = Family::Other;
    double countPerStep = 0;
    double msPerStep = 0;
};

struct FamilyStat {
    Family family = Family::Other;
    double countPerStep = 0;
    double msPerStep = 0;
};

struct ProfileSummary {
    int steps = 0;             // profiled steps
    std::string device;        // "cuda" (kernels from CUPTI) or "cpu" (ATen ops)
    double profiledStepMs = 0; // wall time per step under the profiler (longer than the timed step)
    double busyMs = 0;         // GPU: union of kernel, memcpy and memset intervals; CPU: time inside ATen ops
    double spanMs = 0;         // first GPU activity to the last, per step
    double kernelsPerStep = 0; // GPU kernels (CPU: ATen ops, each by its self time) per step
    double launchesPerStep = 0;
    double launchCpuMs = 0; // CPU time in launch calls (cudaLaunchKernel, cudaGraphLaunch, ...) per step
    double memcpyMs = 0, memsetMs = 0;
    std::optional<double> profilerGflop; // the profiler's FLOP counters (forward ops), per step
    std::vector<FamilyStat> families;    // every family, in enum order
    std::vector<KernelStat> kernels;     // by GPU time, largest first (capped: kMaxKernels)
    std::string note;                    // what the summary could not tell (empty: nothing)

    // Busy over the profiled step (0..1).
    double busyShare() const { return profiledStepMs > 0 ? busyMs / profiledStepMs : 0; }
    const FamilyStat &family(Family f) const;
};
constexpr std::size_t kMaxKernels = 200;

// A run's stored profile: its summary, or why there is none.
struct StoredProfile {
    std::optional<ProfileSummary> summary;
    std::string problem;   // why the profile failed or was not taken ("" with a summary)
    std::string traceFile; // the kept trace's file name beside the database ("" when not kept)
    // The run's memory snapshot (issue 31.2), taken in a pass of its own: a step's timeline, or the
    // state when the run failed out of memory (a failed run's profile may hold this alone).
    std::optional<StoredMemory> memory;
};

std::string toJson(const StoredProfile &profile);
// nullopt: empty text (no profile recorded); a text that is not a profile gives a problem.
std::optional<StoredProfile> profileFromJson(const std::string &json);

} // namespace stepscope::profile
