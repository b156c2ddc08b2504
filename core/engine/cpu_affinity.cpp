#include "engine/cpu_affinity.h"

#include <ATen/Parallel.h>

#ifdef __linux__
#include <dirent.h>
#include <sched.h>
#include <sys/types.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace stepscope::engine
{

std::vector<int> allowedCores()
{
    std::vector<int> cores;
#ifdef __linux__
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return cores;
    for (int core = 0; core < CPU_SETSIZE; ++core)
        if (CPU_ISSET(core, &set))
            cores.push_back(core);
#endif
    return cores;
}

std::string applyCpuAffinity(const RunConfig &config)
{
    if (config.cpuAffinity == "none")
        return {};
#ifdef __linux__
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
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int core : wanted)
        CPU_SET(core, &set);
    // The mask is per thread: pin the threads that already exist (libraries may have started some
    // before main) as well as this one, whose mask every later thread inherits.
    if (DIR *tasks = opendir("/proc/self/task")) {
        while (const dirent *entry = readdir(tasks)) {
            const pid_t tid = static_cast<pid_t>(std::atoi(entry->d_name));
            if (tid > 0)
                sched_setaffinity(tid, sizeof set, &set); // a thread that just ended is fine to miss
        }
        closedir(tasks);
    }
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return config.cpuAffinity + ": sched_setaffinity failed (" + std::strerror(errno) + "); " + may;
    return {};
#else
    return config.cpuAffinity + ": pinning is implemented on Linux only; use none";
#endif
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
