#pragma once
// The ledger's rows taken from a sweep's runs (ledger_rows.cpp): building the ledger, the stored
// configuration of a run, and the processes a row's intervals rest on.
#include "report/ledger.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stepscope::report
{

// Builds the ledger of one sweep; plannedSteps <= 0 uses the sweep's own planned length. Once
// `cancel` is raised the intervals are left out (stats::CancelToken): the caller drops that ledger.
//
// A sweep that scanned batch sizes (issue 18.5: --batch 16,32,64,128) is one ledger per batch: step
// times, break-evens and the recommendation only make sense between steps of the same size. `batch`
// picks one (0: the baseline's); its baseline is the sweep's baseline configuration at that batch.
Ledger buildLedger(const store::Reader &reader, std::int64_t sweepId, std::int64_t plannedSteps = 0,
                   stats::CancelToken cancel = {}, store::StartState start = store::StartState::Fresh, int batch = 0);
// The configuration a run row stored (RunRecord::configJson) as RunConfig fields; members it cannot
// read keep their defaults, so an unreadable precision gets fp32's tolerance, the strictest.
RunConfig storedConfig(const std::string &configJson);

// The processes of a row as the bootstrap takes them: first step and steady steps, both in seconds.
std::vector<stats::Process> processesOf(const LedgerRow &row);
// The same, summarised for the intervals: the row's processSummaries, or computed now when it has none.
std::vector<stats::ProcessSummary> processSummariesOf(const LedgerRow &row);
// Of the processes that started `start` only (all of them for Unrecorded).
std::vector<stats::ProcessSummary> processSummariesOf(const LedgerRow &row, store::StartState start);

} // namespace stepscope::report
