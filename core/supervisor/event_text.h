#pragma once
// The words of a sweep's events (issue 29.4), said once for both front-ends: the CLI prints them
// after "stepscope-cli: ", the dashboard's Log page shows them as they are. An event is data first
// (sweep_event.h); no fact reaches a user only as a sentence of the runner's.
#include "supervisor/sweep_event.h"

#include <QString>

#include <string>

namespace stepscope::supervisor
{

// The sentence of `e`; empty for the events that have none of their own (steps, progress, a run's
// start and end: each front-end shows those in its own place).
QString describe(const SweepEvent &e);

// The stages that are no timed run (warm-up, priming, adaptive repeats, a retired lane, a run queued
// again) and the reports of the sweep (time left, a provisional verdict): a front-end shows these as
// describe() words them and in no other way.
bool isSaidInWords(const SweepEvent &e);

// What a priming process fills for a run of `start`: "the shipped bundle", "the caches of the again
// start" (its failure message says which, too).
std::string primingText(store::StartState start);

} // namespace stepscope::supervisor
