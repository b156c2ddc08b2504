#pragma once
// Process settings the worker applies before the engine runs: the CPU cores it may use and the
// intra-op thread count. No torch header, like engine.h.
#include "config/run_config.h"

#include <string>
#include <vector>

namespace stepscope::engine
{

// The cores this process may run on now (platform::allowedCores); empty where that cannot be read.
std::vector<int> allowedCores();

// Pins every thread of this process to the cores `config.cpuAffinity` names ("none" leaves the
// mask alone; "one" takes pickOneCore of the allowed cores). Call it before CUDA or torch's thread
// pools start, so that every thread they create inherits the mask. Returns an empty string, or
// what is wrong for people ("core 99 is not available; this process may use 0-15"), to be
// reported as field cpu_affinity.
std::string applyCpuAffinity(const RunConfig &config);

// at::set_num_threads(config.threads) when it is not 0; at 0, one thread per pinned core when the
// process is pinned (as `taskset` gives), else the library default. Call it after applyCpuAffinity.
void applyThreads(const RunConfig &config);

} // namespace stepscope::engine
