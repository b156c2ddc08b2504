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

const char *toString(Advice a)
{
    switch (a) {
    case Advice::CudaGraph:
        return "CUDA graph";
    case Advice::CompileReduceOverhead:
        return "compile reduce-overhead";
    case Advice::PinOneCore:
        return "pinning to one core";
    case Advice::FusedSgd:
        return "fused SGD";
    case Advice::Bf16Autocast:
        return "bf16 autocast";
    case Advice::ChannelsLast:
        return "channels_last";
    case Advice::Tf32:
        return "TF32";
    case Advice::CompileFusion:
        return "torch.compile (fusion)";
    case Advice::CompileCpu:
        return "torch.compile";
    case Advice::NativeRuntime:
        return "the native runtime";
    case Advice::MoreThreads:
        return "more threads";
    }
    return "";
}

Advised applyAdvice(const RunConfig &config, Advice advice)
{
    Advised out;
    out.advice = advice;
    RunConfig c = config;
    switch (advice) {
    case Advice::CudaGraph:
        c.cudaGraph = true;
        break;
    case Advice::CompileReduceOverhead:
        c.compile = CompileMode::ReduceOverhead;
        c.runtime = Runtime::Python; // torch.compile has no C++ training path
        break;
    case Advice::PinOneCore:
        c.cpuAffinity = "one";
        break;
    case Advice::FusedSgd:
        c.optimizer = Optimizer::Fused;
        break;
    case Advice::Bf16Autocast:
        c.autocast = Autocast::BF16;
        break;
    case Advice::ChannelsLast:
        c.channelsLast = true;
        break;
    case Advice::Tf32:
        c.tf32 = true;
        break;
    case Advice::CompileFusion:
    case Advice::CompileCpu:
        c.compile = CompileMode::Default;
        c.runtime = Runtime::Python;
        break;
    case Advice::NativeRuntime:
        c.runtime = Runtime::Native;
        break;
    case Advice::MoreThreads:
        // Advised when pinning left the default of one thread per pinned core: unpinned, the
        // library's default uses every core.
        c.cpuAffinity = "none";
        break;
    }
    if (const auto errors = validate(c); !errors.empty())
        out.problem = describe(errors);
    else
        out.config = std::move(c);
    return out;
}

Verdict verdict(const ProfileSummary &s, std::optional<TimedStep> timed, const RunConfig &config)
{
    Verdict v;
    // The timed step, where there is one: the profiler lengthens a launch-bound step, so the
    // profile's own step would overstate the wait. Unless the timed median is no figure of the
    // step: it moved more between processes than the thresholds can bear (kNoisyTimedStep), or
    // it is slower than the step the profiler slowed down, so its processes ran slower than the
    // profiled one. The GPU work is the profile's either way; the profiled step is then the step
    // measured beside it.
    if (timed && timed->medianMs > 0) {
        std::string aside;
        if (timed->spread && *timed->spread > kNoisyTimedStep)
            aside = "it moved ±" + percent(*timed->spread) + " between processes";
        else if (s.profiledStepMs > 0 && timed->medianMs > s.profiledStepMs * (1 + kNoisyTimedStep))
            aside = "it was " + percent(timed->medianMs / s.profiledStepMs - 1) +
                    " slower than the profiled one";
        // Without a profiled step there is nothing else to set the GPU work against.
        if (aside.empty() || !(s.profiledStepMs > 0))
            v.againstTimed = true;
        else
            v.timedSetAside = std::move(aside);
    }
    v.stepMs = v.againstTimed ? timed->medianMs : s.profiledStepMs;
    v.busyShare = v.stepMs > 0 ? std::clamp(s.busyMs / v.stepMs, 0.0, 1.0) : 0;
    const bool cpu = s.device == "cpu";
    if (cpu)
        v.bound = v.busyShare < kLaunchBoundBelow ? Bound::CpuFramework : Bound::CpuCompute;
    else
        v.bound = v.busyShare < kLaunchBoundBelow ? Bound::LaunchBound
                  : v.busyShare < kGpuBoundFrom   ? Bound::Mixed
                                                  : Bound::GpuBound;

    auto add = [&](bool off, Advice advice) {
        if (off)
            v.advice.push_back(advice);
    };
    switch (v.bound) {
    case Bound::LaunchBound:
    case Bound::Mixed:
        add(!graphs(config), Advice::CudaGraph);
        add(!graphs(config) && config.compile == CompileMode::None, Advice::CompileReduceOverhead);
        add(config.cpuAffinity == "none" && !graphs(config), Advice::PinOneCore);
        add(config.optimizer != Optimizer::Fused, Advice::FusedSgd);
        break;
    case Bound::GpuBound:
        add(config.autocast == Autocast::Off, Advice::Bf16Autocast);
        add(!config.channelsLast, Advice::ChannelsLast);
        add(config.autocast == Autocast::Off && !config.tf32, Advice::Tf32);
        add(config.compile == CompileMode::None, Advice::CompileFusion);
        break;
    case Bound::CpuFramework:
        add(config.compile == CompileMode::None, Advice::CompileCpu);
        add(config.runtime == Runtime::Python, Advice::NativeRuntime);
        break;
    case Bound::CpuCompute:
        add(!config.channelsLast, Advice::ChannelsLast);
        add(config.threads == 0 && config.cpuAffinity != "none", Advice::MoreThreads);
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
    if (!v.timedSetAside.empty())
        v.text += " (not the timed step: " + v.timedSetAside + ")";
    if (!v.advice.empty()) {
        std::vector<std::string> words;
        for (const Advice a : v.advice)
            words.emplace_back(toString(a));
        v.text += ": try " + joined(words);
    }
    else if (v.bound == Bound::LaunchBound || v.bound == Bound::Mixed)
        v.text += " with its launch knobs on";
    return v;
}

} // namespace stepscope::profile
