#pragma once
// A ledger row built by hand with its processes, for tests that need intervals without a database:
// `processes` cold processes around (firstS, steadyMs), each a little off the centre, so the
// bootstrap has something to resample.
#include "report/ledger.h"
#include "stats/stats.h"

#include <string>
#include <vector>

namespace stepscope::test
{

inline report::LedgerRow rowOfProcesses(const std::string &label, double firstS, double steadyMs, int processes)
{
    report::LedgerRow row;
    row.label = label;
    row.configName = "resnet18 " + label;
    row.firstStepMs = firstS * 1000.0;
    row.steadyMs = steadyMs;
    row.steadyMinMs = steadyMs * 0.99;
    row.steadyMaxMs = steadyMs * 1.01;
    row.accuracy.verdict = report::LedgerRow::Accuracy::Verdict::Ok;
    row.repeats = row.completed = row.processes = processes;
    for (int p = 0; p < processes; ++p) {
        const double off = 1.0 + 0.01 * (p - (processes - 1) / 2.0);
        row.runFirstMs.push_back(firstS * 1000.0 * off);
        std::vector<double> steps;
        for (int i = 0; i < 50; ++i)
            steps.push_back(steadyMs * off * (1.0 + 0.002 * (i % 5)));
        row.samplesMs.insert(row.samplesMs.end(), steps.begin(), steps.end());
        row.runSamplesMs.push_back(steps);
    }
    row.steadyCI = stats::medianOfRuns(row.runSamplesMs); // as buildLedger does
    return row;
}

} // namespace stepscope::test
