#pragma once
// The memory_limit_mib setting in the native worker (issue 31.3; the Python worker's is
// resources/python/stepscope_py/memory_limit.py): the memory a run may use, so that a run asks "will it
// fit on a 40 GB card" on a larger one, and the max-batch search can be tested on the CPU.
//
// On CUDA the caching allocator is capped at that share of the card (setMemoryFraction): an
// allocation past it raises LibTorch's own out-of-memory error. LibTorch's CPU allocator keeps no
// figures, so on the CPU the limit holds the worker's peak resident memory, read after the first
// step and after the timed block: a high-water mark, so two reads see every step's peak, and no read
// costs a timed step anything.
#include "common/failure.h"
#include "config/run_config.h"

#include <optional>

namespace stepscope::engine
{

// Caps the CUDA allocator of the run's device; a limit above the card is invalid-config (a smaller
// card can be asked for, a larger one cannot). Nothing without a limit or on the CPU.
std::optional<Failure> applyMemoryLimit(const RunConfig &config);
// On the CPU with a limit: out-of-memory, naming the limit and the peak, once the worker's peak
// resident memory has passed it; `when` says at which read ("after the first step").
std::optional<Failure> memoryLimitPassed(const RunConfig &config, const char *when);

} // namespace stepscope::engine
