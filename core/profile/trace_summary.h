#pragma once
// A Chrome trace of a run's profiled steps, as Kineto writes it (LibTorch's ProfilerResult::save
// and torch.profiler's export_chrome_trace write the same format), read into a ProfileSummary.
//
// The workers wrap the profiled steps, and a synchronize after them, in one user annotation,
// kProfiledStepsAnnotation: the window every figure is taken over. GPU activity (kernels, memcpy,
// memset) inside it gives busy time and kernels; launch calls (cuda_runtime/cuda_driver events
// named *Launch*) give the CPU's launch cost. A trace without GPU activity is a CPU run: its leaf
// ATen ops stand for kernels and the time inside top-level ATen ops for busy time.
#include "profile/profile_summary.h"

#include <QByteArray>

#include <optional>
#include <string>

namespace stepscope::profile
{

inline constexpr char kProfiledStepsAnnotation[] = "stepscope::profiled_steps";

struct TraceFacts {
    int steps = 0;                       // profiled steps inside the annotation
    std::optional<double> profilerGflop; // the worker's sum of the profiler's FLOP counters, per step
};

// The summary, or nullopt with `problem` set (not JSON, no trace events, no annotation).
std::optional<ProfileSummary> summarizeTrace(const QByteArray &traceJson, const TraceFacts &facts,
                                             std::string &problem);

} // namespace stepscope::profile
