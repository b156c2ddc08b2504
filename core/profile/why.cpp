#include "profile/why.h"

#include <algorithm>
#include <cmath>

namespace stepscope::profile
{
namespace
{

std::string percent(double share)
{
    return std::to_string(static_cast<int>(std::lround(share * 100))) + "%";
}

std::string joined(const std::vector<std::string> &words)
{
    std::string out;
    for (const auto &w : words)
        out += (out.empty() ? "" : ", ") + w;
    return out;
}

bool graphs(const RunConfig &c)
{
    return c.cudaGraph || c.compile == CompileMode::ReduceOverhead || c.compile == CompileMode::MaxAutotune;
}

} // namespace

const char *toString(Bound b)
{
    switch (b) {
    case Bound::LaunchBound:
        return "launch-bound";
    case Bound::Mixed:
        return "partly launch-bound";
    case Bound::GpuBound:
        return "GPU-bound";
    case Bound::CpuFramework:
        return "framework-bound";
    case Bound::CpuCompute:
        return "compute-bound";
    }
    return "";
}

const char *busyName(const ProfileSummary &s)
{
    return s.device == "cpu" ? "inside ATen" : "GPU busy";
}

std::string busyShareText(double busyMs, double stepMs, bool cpu)
{
    if (!(stepMs > 0))
        return "-";
    const double share = busyMs / stepMs;
    // Half a percent of slack: a share that rounds to 100% is not worth a sentence.
    if (share <= 1.005)
        return percent(std::clamp(share, 0.0, 1.0));
    return "100% (measured " + percent(share) + ": " +
           (cpu ? "ATen ops on several threads overlap, so their time adds up past the step"
                : "the profiled steps ran slower than the timed one") +
           ")";
}

Verdict verdict(const ProfileSummary &s, std::optional<double> steadyMs, const RunConfig &config)
{
    Verdict v;
    // The timed step, where there is one: the profiler lengthens a launch-bound step, so the
    // profile's own step would overstate the wait.
    v.againstTimed = steadyMs && *steadyMs > 0;
    v.stepMs = v.againstTimed ? *steadyMs : s.profiledStepMs;
    v.busyShare = v.stepMs > 0 ? std::clamp(s.busyMs / v.stepMs, 0.0, 1.0) : 0;
    const bool cpu = s.device == "cpu";
    if (cpu)
        v.bound = v.busyShare < kLaunchBoundBelow ? Bound::CpuFramework : Bound::CpuCompute;
    else
        v.bound = v.busyShare < kLaunchBoundBelow ? Bound::LaunchBound
                  : v.busyShare < kGpuBoundFrom   ? Bound::Mixed
                                                  : Bound::GpuBound;

    auto add = [&](bool off, const char *knob) {
        if (off)
            v.knobs.emplace_back(knob);
    };
    switch (v.bound) {
    case Bound::LaunchBound:
    case Bound::Mixed:
        add(!graphs(config), "CUDA graph");
        add(!graphs(config) && config.compile == CompileMode::None, "compile reduce-overhead");
        add(config.cpuAffinity == "none" && !graphs(config), "pinning to one core");
        add(config.optimizer != Optimizer::Fused, "fused SGD");
        break;
    case Bound::GpuBound:
        add(config.autocast == Autocast::Off, "bf16 autocast");
        add(!config.channelsLast, "channels_last");
        add(config.autocast == Autocast::Off && !config.tf32, "TF32");
        add(config.compile == CompileMode::None, "torch.compile (fusion)");
        break;
    case Bound::CpuFramework:
        add(config.compile == CompileMode::None, "torch.compile");
        add(config.runtime == Runtime::Python, "the native runtime");
        break;
    case Bound::CpuCompute:
        add(!config.channelsLast, "channels_last");
        add(config.threads == 0 && config.cpuAffinity != "none", "more threads");
        break;
    }

    const std::string of = v.againstTimed ? "of the step" : "of the profiled step";
    switch (v.bound) {
    case Bound::LaunchBound:
    case Bound::Mixed:
        v.text = std::string(toString(v.bound)) + ": the GPU waits " + percent(1 - v.busyShare) + " " + of;
        break;
    case Bound::GpuBound:
        v.text = std::string(toString(v.bound)) + ": the GPU is busy " + percent(v.busyShare) + " " + of;
        break;
    case Bound::CpuFramework:
        v.text = std::string(toString(v.bound)) + ": " + percent(1 - v.busyShare) + " " + of +
                 " is outside ATen ops (Python, dispatch)";
        break;
    case Bound::CpuCompute:
        v.text = std::string(toString(v.bound)) + ": ATen ops take " + percent(v.busyShare) + " " + of;
        break;
    }
    if (!v.knobs.empty())
        v.text += ": try " + joined(v.knobs);
    else if (v.bound == Bound::LaunchBound || v.bound == Bound::Mixed)
        v.text += " with its launch knobs on";
    return v;
}

} // namespace stepscope::profile
