#include "engine/cpu_affinity.h"

#include "platform/platform.h"

#include <ATen/Parallel.h>

#include <algorithm>

namespace stepscope::engine
{

std::vector<int> allowedCores()
{
    return platform::allowedCores();
}

std::string applyCpuAffinity(const RunConfig &config)
{
    if (config.cpuAffinity == "none")
        return {};
    if (!platform::canPinCores())
        return config.cpuAffinity + ": pinning is implemented on Linux and Windows only; use none";
    const std::vector<int> allowed = allowedCores();
    const std::string may =
        "this process may use " + (allowed.empty() ? "no core it can read" : formatCoreList(allowed));
    std::vector<int> wanted;
    if (config.cpuAffinity == "one") {
        const int core = pickOneCore(allowed);
        if (core < 0)
            return "one: the cores this process may use cannot be read";
        wanted.push_back(core);
    } else {
        std::string error;
        if (!parseCoreList(config.cpuAffinity, wanted, error))
            return error;
        for (int core : wanted)
            if (std::find(allowed.begin(), allowed.end(), core) == allowed.end())
                return "core " + std::to_string(core) + " is not available; " + may;
    }
    if (const std::string error = platform::pinToCores(wanted); !error.empty())
        return config.cpuAffinity + ": " + error + "; " + may;
    return {};
}

void applyThreads(const RunConfig &config)
{
    if (config.threads > 0) {
        at::set_num_threads(config.threads);
        return;
    }
    // Pinned, the default is one thread per pinned core, as under `taskset`. The OpenMP runtime
    // sized its pool when the library loaded, before this process pinned itself, so it would keep
    // one thread per machine core, all time-sliced on the pinned ones. On the H200 the GPU step did
    // not measurably care (docs/results/h200-aa.md), but a CPU op in the step would.
    if (config.cpuAffinity != "none") {
        const auto cores = allowedCores();
        if (!cores.empty())
            at::set_num_threads(static_cast<int>(cores.size()));
    }
}

} // namespace stepscope::engine
