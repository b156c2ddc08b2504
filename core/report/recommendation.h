#pragma once
// The recommendation (recommendation.cpp): what finishes the planned run first, recomputed for
// another run length, and its headline, caveats and provisional note.
#include "report/ledger.h"

#include <cstdint>
#include <optional>
#include <string>

namespace stepscope::report
{

// Recomputes the recommendation (and its text) for another planned run length; `cancel` as there.
void recommendFor(Ledger &ledger, std::int64_t plannedSteps, stats::CancelToken cancel = {});
// Makes the fewest joules the verdict (issue 31.4: `--objective energy`): the headline and
// Ledger::recommended become Ledger::fewestJoules's, and the text says the time pick after it. False,
// with the ledger as it was, where no row has the energy figures to pick by.
bool recommendByJoules(Ledger &ledger);
// Takes `idleWatts` of idle power out of every row's energy (report/energy.h withoutIdle), then
// recomputes the break-evens in joules and the recommendation (by time: call recommendByJoules
// after it for joules). Only on a user's word (`--idle-watts`); Ledger::idleWatts says it was done.
void subtractIdlePower(Ledger &ledger, double idleWatts, stats::CancelToken cancel = {});
// A row's first step (ms) for a start state: the state's own when the row ran it, else that of a state
// with fewer caches (again: shipped, then fresh; shipped: fresh); `measured` says which.
std::optional<double> firstStepFor(const LedgerRow &row, store::StartState state, bool *measured = nullptr);
// "" for a finished sweep; else "provisional: 12 of 27 runs done, shipped and again runs to come".
std::string provisionalText(const Ledger &ledger);

// The verdict in one line for the top of every view, in the short labels of the ledger's axis:
// "Use +cuda-graph: 3.77x, pays off after 170 steps", and when the runner-up cannot be told apart,
// its difference and the planned run's total time it changes: "; +sgd-fused 0.7% faster, within
// noise". "" without a recommendation.
std::string recommendationHeadline(const Ledger &ledger);
// What the headline rests on that a reader should know, for a smaller line under it: the sweep's
// state, rows not complete or unreliable, a tie without an interval. "" when there is nothing to say.
std::string recommendationCaveats(const Ledger &ledger);

} // namespace stepscope::report
