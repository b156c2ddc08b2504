#pragma once
// A max-batch sweep's answers as files (issue 31.3): `export` of such a sweep writes these instead of
// a ledger of its tries, which time nothing. One row per configuration: the answer, its failing check,
// the peaks at the answer, the tries and what stopped the search, with the same reading of the tries
// as the Markdown (max_batch_sweep.h), so the three formats cannot disagree.
#include "supervisor/max_batch_sweep.h"

#include <string>
#include <vector>

namespace stepscope::supervisor
{

// Columns: configuration, start_batch, largest_fits, smallest_out_of_memory, check_above_pct,
// narrowed, stop, peak_reserved_mib, peak_allocated_mib, tries, seconds, memory_limit, pending.
// An empty cell is a figure the search does not have (no fit, no failing try, no peak).
std::string maxBatchCsv(const std::vector<MaxBatchSearch> &searches);
// {"max_batch": {"tries_cap", "seconds_cap", "tolerance"}, "searches": [{...the CSV's fields...,
// "tries": [{"batch", "result", "peak_reserved_mib", "peak_allocated_mib", "seconds", "run_id"}]}]}.
std::string maxBatchJson(const std::vector<MaxBatchSearch> &searches, const report::MaxBatchLimits &limits = {});

} // namespace stepscope::supervisor
