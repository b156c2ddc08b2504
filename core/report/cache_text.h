#pragma once
// The machine caches of a run and of a ledger, for people (issue 16): which state a first step
// started in, what each cache held before and after, which warm caches missed, and what the
// machine's caches cost a configuration's first step (cold minus warm).
#include "report/ledger.h"
#include "store/store.h"

#include <string>
#include <vector>

namespace stepscope::report
{

// "1.2 MiB", "512 B".
std::string formatBytes(std::int64_t bytes);
// One line per cache a run had ("CUDA_CACHE_PATH: fresh, 0 B -> 41.2 MiB"), after a first line
// saying its start ("cold: fresh, empty folders of its own"); empty for runs of before cache states.
std::vector<std::string> runCacheLines(const store::RunRecord &run);
// "+bf16: 5.2 s of a 7.5 s cold first step (2.3 s warm)" for every row that ran cold and warm.
std::vector<std::string> machineCacheShareLines(const Ledger &ledger);

} // namespace stepscope::report
