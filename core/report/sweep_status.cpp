#include "report/sweep_status.h"

#include <algorithm>

namespace stepscope::report
{
namespace
{

// In a sweep that ran to its end, every run that did not complete failed (a Stop cancels the
// sweep, so a complete sweep holds no cancelled run).
int failedOf(const std::vector<store::RunRecord> &runs)
{
    return static_cast<int>(std::count_if(runs.begin(), runs.end(),
                                          [](const store::RunRecord &r) { return r.status != RunStatus::Complete; }));
}

} // namespace

bool sweepHadFailures(store::SweepStatus status, int failed)
{
    return status == store::SweepStatus::Complete && failed > 0;
}

bool sweepHadFailures(const store::SweepRecord &sweep, const std::vector<store::RunRecord> &runs)
{
    return sweepHadFailures(sweep.status, failedOf(runs));
}

std::string sweepStatusText(store::SweepStatus status, int runs, int failed)
{
    if (sweepHadFailures(status, failed))
        return "finished, " + std::to_string(failed) + " of " + std::to_string(runs) + " failed";
    return std::string(store::toString(status));
}

std::string sweepStatusText(const store::SweepRecord &sweep, const std::vector<store::RunRecord> &runs)
{
    return sweepStatusText(sweep.status, static_cast<int>(runs.size()), failedOf(runs));
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
