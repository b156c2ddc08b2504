#pragma once
// Turns configurations into queued run rows: repeats are cold processes interleaved across
// configurations (A B C A B C), so drift over the sweep hits every configuration alike.
#include "config/run_config.h"
#include "store/store.h"

#include <string>
#include <vector>

namespace stepscope::supervisor
{

struct PlannedRun {
    std::int64_t runId = 0;
    RunConfig config;
};

struct SweepPlan {
    std::int64_t sweepId = 0;
    std::vector<PlannedRun> runs; // in execution order
};

SweepPlan planSweep(store::Database &db, const std::string &name, const std::string &preset,
                    const std::vector<RunConfig> &configs, int repeats, std::int64_t plannedSteps);

// Queues one more cold process of `config` at the end of the plan (adaptive repeats).
void appendRun(store::Database &db, SweepPlan &plan, const RunConfig &config, int repeatIndex);

} // namespace stepscope::supervisor
