#pragma once
// Stored sweeps for tests that read what the supervisor writes: a sweep row and its runs written
// through store::Database in the supervisor's order (created, running, environment, setup, compile
// cache, first step, steps, finished), so that readers, the ledger and the views see what they would
// see after a real sweep. Tests of the store's own API write their rows by hand instead.
//
//     const auto sweepId = addSweep(db, {"name", "ledger", 10000});
//     RunSpec run = runOf(config, position);
//     run.steps = stepsAt(10.0);
//     addRun(db, sweepId, run);
#include "config/config_json.h"
#include "store/store.h"

#include <QJsonDocument>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stepscope::test
{

inline std::string configJsonOf(const RunConfig &config)
{
    return QJsonDocument(toJson(config)).toJson(QJsonDocument::Compact).toStdString();
}

// A sweep row; by default a finished custom sweep of 1000 planned steps.
struct SweepSpec {
    SweepSpec(std::string sweepName, std::string sweepPreset = "custom", std::int64_t planned = 1000,
              std::string baselineName = "")
        : name(std::move(sweepName)), preset(std::move(sweepPreset)), plannedSteps(planned),
          baseline(std::move(baselineName))
    {
    }
    std::string name;
    std::string preset;
    std::int64_t plannedSteps;
    std::string baseline; // the stored baseline's canonical name; empty: readers take the first
    std::string settingsJson;
    store::SweepStatus status = store::SweepStatus::Complete;
};

inline std::int64_t addSweep(store::Database &db, const SweepSpec &spec)
{
    store::SweepRecord sweep;
    sweep.name = spec.name;
    sweep.preset = spec.preset;
    sweep.plannedSteps = spec.plannedSteps;
    sweep.settingsJson = spec.settingsJson;
    sweep.status = spec.status;
    sweep.baselineConfig = spec.baseline;
    return db.createSweep(sweep);
}

// One run and what its worker reported. What is left unset is not written.
struct RunSpec {
    std::string configName;
    std::string configJson = "{}";
    std::int64_t position = 0;
    std::int64_t repeatIndex = 0;
    std::vector<store::StepRow> steps; // appended whatever the status (a cancelled run keeps its own)
    std::optional<double> firstS;
    RunStatus status = RunStatus::Complete;
    std::optional<Failure> failure;
    std::optional<std::int64_t> environmentId;
    store::MachineWarmup warmup = store::MachineWarmup::Unrecorded;
    store::StartState caches = store::StartState::Unrecorded; // planned with the run
    std::optional<store::CacheRecord> cacheRecord;            // written when it ends
    std::optional<double> setupS;
    std::string compileCache, cacheDirs, compileJson;
    std::vector<double> checkLosses;
    std::optional<std::pair<std::int64_t, std::int64_t>> memory; // peak allocated, peak reserved
    std::optional<EnergyReading> energy;                         // the worker's `energy` message
    std::optional<double> blockWallMs;
    std::optional<ModelFacts> model;          // what the worker's `model` message said
    std::optional<store::RunSummary> summary; // stored as the supervisor stores it after the steps
    // Marked running first, as the supervisor does; false for a run the sweep never reached (and
    // finished false) or a file whose schema predates the run's owner.
    bool started = true;
    bool finished = true; // false: left as it is, for the caller to finish or leave so
};

// A run of `config` at `position`: its canonical name and stored JSON.
inline RunSpec runOf(const RunConfig &config, std::int64_t position = 0)
{
    RunSpec run;
    run.configName = canonicalName(config);
    run.configJson = configJsonOf(config);
    run.position = position;
    return run;
}

// A run of the configuration named `name` at `position`, stored with `configJson`.
inline RunSpec runNamed(const std::string &name, std::int64_t position = 0, const std::string &configJson = "{}")
{
    RunSpec run;
    run.configName = name;
    run.configJson = configJson;
    run.position = position;
    return run;
}

// `count` wall-time steps from step 1 on, about `levelMs`: level + (i % 3) * jitterMs.
inline std::vector<store::StepRow> stepsAt(double levelMs, int count = 60, double jitterMs = 0.01)
{
    std::vector<store::StepRow> steps;
    for (int i = 1; i <= count; ++i)
        steps.push_back({i, std::nullopt, levelMs + (i % 3) * jitterMs});
    return steps;
}

// The losses of the first ten steps, from 6.9 down by 0.1, times `scale`.
inline std::vector<double> checkLossesScaled(double scale)
{
    std::vector<double> losses;
    for (int i = 0; i < 10; ++i)
        losses.push_back((6.9 - 0.1 * i) * scale);
    return losses;
}

// Writes `spec` under `sweepId`; returns the run's id.
inline std::int64_t addRun(store::Database &db, std::int64_t sweepId, const RunSpec &spec)
{
    store::RunRecord run;
    run.sweepId = sweepId;
    run.position = spec.position;
    run.repeatIndex = spec.repeatIndex;
    run.configName = spec.configName;
    run.configJson = spec.configJson;
    run.caches = spec.caches;
    const auto id = db.createRun(run);
    if (spec.started)
        db.markRunning(id);
    if (spec.environmentId)
        db.setEnvironment(id, *spec.environmentId);
    if (spec.warmup != store::MachineWarmup::Unrecorded)
        db.setMachineWarmup(id, spec.warmup);
    if (spec.model)
        db.setModelFacts(id, *spec.model);
    if (spec.setupS)
        db.setSetup(id, *spec.setupS);
    if (!spec.compileCache.empty() || !spec.cacheDirs.empty())
        db.setCompileCache(id, spec.compileCache, spec.cacheDirs);
    if (!spec.compileJson.empty())
        db.setCompileInfo(id, spec.compileJson);
    if (spec.firstS)
        db.setFirstStep(id, *spec.firstS);
    if (!spec.steps.empty())
        db.appendSteps(id, spec.steps);
    if (!spec.checkLosses.empty())
        db.setCheckLosses(id, spec.checkLosses);
    if (spec.memory)
        db.setMemory(id, spec.memory->first, spec.memory->second);
    if (spec.energy)
        db.setEnergy(id, *spec.energy);
    if (spec.blockWallMs)
        db.setBlockWall(id, *spec.blockWallMs);
    if (spec.summary)
        db.setSummary(id, *spec.summary);
    if (spec.cacheRecord)
        db.setCacheRecord(id, *spec.cacheRecord);
    if (spec.finished)
        db.finishRun(id, spec.status, spec.failure);
    return id;
}

// What one run of the figures' fixtures measured: its first step (s), its steady level (ms; GPU
// time when `gpu`, else wall time) and, for a CUDA run, the worker's mean wall time per step.
struct StoredRun {
    RunConfig config;
    double firstS = 1.0;
    double levelMs = 10.0;
    std::optional<double> blockWallMs;
    bool gpu = false;
    RunStatus status = RunStatus::Complete;
    store::StartState start = store::StartState::Unrecorded; // the run's planned start state
};

// A completed CPU run: wall time only.
inline StoredRun cpuRun(const RunConfig &config, double firstS, double levelMs)
{
    return {config, firstS, levelMs, std::nullopt, false, RunStatus::Complete};
}

// A run at `position` with its first step and 60 steps within 0.2% of its level (a failed run has
// none, and an out-of-memory failure). No summary is stored: readers take it by the same rule on the
// fly. Returns the run's id.
inline std::int64_t addStoredRun(store::Database &db, std::int64_t sweepId, int position, const StoredRun &spec,
                                 std::optional<std::int64_t> environmentId = std::nullopt)
{
    RunSpec run = runOf(spec.config, position);
    run.environmentId = environmentId;
    run.caches = spec.start;
    run.status = spec.status;
    if (spec.status == RunStatus::Failed)
        run.failure = Failure{FailureCategory::OutOfMemory, "out of memory", ""};
    if (spec.status == RunStatus::Complete) {
        run.firstS = spec.firstS;
        run.blockWallMs = spec.blockWallMs;
        run.steps.push_back({1, std::nullopt, spec.firstS * 1000});
        for (int i = 2; i <= 61; ++i) {
            const double ms = spec.levelMs * (1.0 + 0.001 * (i % 3));
            run.steps.push_back(
                {i, spec.gpu ? std::optional<double>(ms) : std::nullopt, spec.blockWallMs.value_or(ms)});
        }
    }
    return addRun(db, sweepId, run);
}

// `repeats` cold processes of one configuration, each a little off the level (+-1% around it), at
// positions from `position` on.
inline void addRepeats(store::Database &db, std::int64_t sweepId, int &position, StoredRun spec, int repeats)
{
    const double level = spec.levelMs, first = spec.firstS;
    for (int r = 0; r < repeats; ++r) {
        const double off = 1.0 + 0.01 * (r - (repeats - 1) / 2.0);
        spec.levelMs = level * off;
        spec.firstS = first * off;
        addStoredRun(db, sweepId, position++, spec);
    }
}

} // namespace stepscope::test
