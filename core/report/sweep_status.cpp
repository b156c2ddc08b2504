#include "report/sweep_status.h"

#include <algorithm>

namespace stepscope::report
{

bool sweepHadFailures(std::string_view storedStatus, int failed)
{
    return storedStatus == "complete" && failed > 0;
}

std::string sweepStatusText(std::string_view storedStatus, int runs, int failed)
{
    if (sweepHadFailures(storedStatus, failed))
        return "finished, " + std::to_string(failed) + " of " + std::to_string(runs) + " failed";
    return std::string(storedStatus);
}

std::string sweepStatusText(const store::SweepRecord &sweep, const std::vector<store::RunRecord> &runs)
{
    // In a sweep that ran to its end, every run that did not complete failed (a Stop cancels the
    // sweep, so "complete" holds no cancelled run).
    const auto failed = std::count_if(runs.begin(), runs.end(),
                                      [](const store::RunRecord &r) { return r.status != RunStatus::Complete; });
    return sweepStatusText(sweep.status, static_cast<int>(runs.size()), static_cast<int>(failed));
}

std::string sweepStatusText(const Ledger &ledger)
{
    int runs = 0, failed = 0;
    for (const LedgerRow &row : ledger.rows) {
        runs += row.repeats;
        failed += row.repeats - row.completed - row.cancelled;
    }
    return sweepStatusText(ledger.sweep.status, runs, failed);
}

} // namespace stepscope::report
