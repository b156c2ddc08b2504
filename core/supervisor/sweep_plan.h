#pragma once
// Turns configurations into queued run rows: repeats are cold processes interleaved across
// configurations (A B C A B C), so drift over the sweep hits every configuration alike.
#include "config/run_config.h"
#include "store/store.h"
#include "supervisor/sweep_request.h"

#include <QJsonObject>

#include <optional>
#include <string>
#include <vector>

namespace stepscope::supervisor
{

struct PlannedRun {
    std::int64_t runId = 0;
    RunConfig config;
    store::StartState caches = store::StartState::Fresh; // its start state (start_caches.h)
    int repeatIndex = 0;
};

struct SweepPlan {
    std::int64_t sweepId = 0;
    std::vector<PlannedRun> runs; // in execution order
};

// The runs of a sweep in the order they run, before any is stored (planSweep stores them; the
// dashboard's preview estimates them): see below for the order.
std::vector<PlannedRun> orderRuns(const std::vector<RunConfig> &configs, int repeats, const StartStates &starts);

// Each repeat is a round of fresh runs, then of shipped ones, then of again ones (StartStates): the
// first fresh run of a configuration primes what its shipped and again runs read, so no process is
// spent priming when fresh runs are planned.
// `baseline` is the index in `configs` of the configuration the others are compared with; without
// it, defaultBaseline(configs) (config/sweep_baseline.h). The sweep stores it by canonical name.
SweepPlan planSweep(store::Database &db, const std::string &name, const std::string &preset,
                    const std::vector<RunConfig> &configs, int repeats, std::int64_t plannedSteps,
                    std::optional<std::size_t> baseline = std::nullopt, const StartStates &starts = {},
                    const QJsonObject &extraSettings = {});

// Queues one more cold process of `config` at the end of the plan (adaptive repeats).
void appendRun(store::Database &db, SweepPlan &plan, const RunConfig &config, int repeatIndex,
               store::StartState caches = store::StartState::Fresh);

} // namespace stepscope::supervisor
