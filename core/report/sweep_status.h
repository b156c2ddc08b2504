#pragma once
// How a sweep ended, in the same words in every view (the sweep header, History, the Live page's
// last line, `stepscope-cli list` and `show`). The store keeps Complete for a sweep that ran to its
// end, whatever its runs did: a sweep whose only run failed is no "complete" sweep to its reader.
#include "report/ledger.h"
#include "store/store.h"

#include <string>
#include <vector>

namespace stepscope::report
{

// "complete" when every run completed; "finished, 1 of 1 failed" when the sweep ran to its end and
// some runs did not complete; otherwise the stored status's word ("running", "cancelled", "interrupted").
std::string sweepStatusText(store::SweepStatus status, int runs, int failed);
// The same, counting the sweep's runs.
std::string sweepStatusText(const store::SweepRecord &sweep, const std::vector<store::RunRecord> &runs);
// The same from a ledger's rows (the runs of its batch), for views that hold only the ledger.
std::string sweepStatusText(const Ledger &ledger);
// Whether the sweep ran to its end with runs that did not complete (views colour it as a failure).
bool sweepHadFailures(store::SweepStatus status, int failed);
// The same, counting the sweep's runs.
bool sweepHadFailures(const store::SweepRecord &sweep, const std::vector<store::RunRecord> &runs);

} // namespace stepscope::report
