#include "engine/step_profile.h"

#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/torch.h>

#include <ATen/record_function.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <set>
#include <vector>

namespace stepscope::engine
{

ProfileOutcome profileSteps(TrainingStep &step, const torch::Device &device, const ProfileRequest &request)
{
    namespace prof = torch::autograd::profiler;
    namespace impl = torch::profiler::impl;
    ProfileOutcome out;
    out.steps = request.steps;
    bool enabled = false;
    try {
        // FLOP counters on: the profile checks the layer count of report/compute.h against them.
        const impl::ProfilerConfig config(impl::ProfilerState::KINETO, /*report_input_shapes=*/true,
                                          /*profile_memory=*/false, /*with_stack=*/false, /*with_flops=*/true);
        std::set<impl::ActivityType> activities{impl::ActivityType::CPU};
        if (device.is_cuda())
            activities.insert(impl::ActivityType::CUDA);
        prof::prepareProfiler(config, activities);
        prof::enableProfiler(config, activities);
        enabled = true;
        const auto t0 = std::chrono::steady_clock::now();
        {
            // The window the supervisor reads (profile/trace_summary.h), the synchronize inside it
            // so that every kernel of the profiled steps ends within.
            RECORD_USER_SCOPE("stepscope::profiled_steps");
            for (int i = 0; i < request.steps; ++i)
                step.step();
            if (device.is_cuda())
                torch::cuda::synchronize(device.index());
        }
        out.wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        auto result = prof::disableProfiler();
        enabled = false;
        // An op with FLOPs inside another on its thread is the same work counted again (autocast
        // dispatches aten::conv2d to aten::conv2d): only the outermost counts.
        struct Counted {
            std::uint64_t thread, start, end, flops;
        };
        std::vector<Counted> counted;
        for (const auto &event : result->events())
            if (event.flops() > 0)
                counted.push_back({event.startThreadId(), event.startNs(), event.endNs(), event.flops()});
        std::sort(counted.begin(), counted.end(), [](const Counted &a, const Counted &b) {
            return a.thread != b.thread ? a.thread < b.thread : a.start != b.start ? a.start < b.start : a.end > b.end;
        });
        double flops = 0;
        std::uint64_t coveredThread = 0, coveredEnd = 0;
        bool covering = false;
        for (const Counted &c : counted) {
            if (covering && c.thread == coveredThread && c.start < coveredEnd)
                continue;
            flops += static_cast<double>(c.flops);
            covering = true;
            coveredThread = c.thread;
            coveredEnd = c.end;
        }
        if (flops > 0 && request.steps > 0)
            out.profilerGflop = flops / request.steps / 1e9;
        result->save(request.tracePath);
        out.tracePath = request.tracePath;
    } catch (const std::exception &e) {
        if (enabled) {
            try {
                prof::disableProfiler();
            } catch (const std::exception &) {
            }
        }
        const std::string what = e.what();
        out.problem = "the profiler failed: " + what.substr(0, what.find('\n'));
        out.tracePath.clear();
    }
    return out;
}

} // namespace stepscope::engine
