#pragma once
// Stored sweeps for the tests of core/report's figures beside the ledger (environment assessment,
// compile break-even, sweep comparison): runs written through the store as the supervisor writes
// them, each with 60 steady steps about a known level, so that every figure is known in advance.
#include "config/config_json.h"
#include "store/store.h"

#include <QJsonDocument>

#include <optional>
#include <string>
#include <vector>

namespace stepscope::test
{

inline std::string configJsonOf(const RunConfig &config)
{
    return QJsonDocument(toJson(config)).toJson(QJsonDocument::Compact).toStdString();
}

inline std::int64_t addFinishedSweep(store::Database &db, const std::string &name, const std::string &settingsJson = "")
{
    store::SweepRecord sweep;
    sweep.name = name;
    sweep.preset = "custom";
    sweep.plannedSteps = 1000;
    sweep.settingsJson = settingsJson;
    sweep.status = "complete";
    return db.createSweep(sweep);
}

// What one stored run measured: its first step (s), its steady level (ms; GPU time when `gpu`,
// else wall time) and, for a CUDA run, the worker's mean wall time per step.
struct StoredRun {
    RunConfig config;
    double firstS = 1.0;
    double levelMs = 10.0;
    std::optional<double> blockWallMs;
    bool gpu = false;
    RunStatus status = RunStatus::Complete;
};

// A completed CPU run: wall time only.
inline StoredRun cpuRun(const RunConfig &config, double firstS, double levelMs)
{
    return {config, firstS, levelMs, std::nullopt, false, RunStatus::Complete};
}

// A run at `position` with its first step and 60 steps within 0.2% of its level (a failed run has
// none). No summary is stored: readers take it by the same rule on the fly. Returns the run's id.
inline std::int64_t addStoredRun(store::Database &db, std::int64_t sweepId, int position, const StoredRun &spec,
                                 std::optional<std::int64_t> environmentId = std::nullopt)
{
    store::RunRecord run;
    run.sweepId = sweepId;
    run.position = position;
    run.configName = canonicalName(spec.config);
    run.configJson = configJsonOf(spec.config);
    const auto id = db.createRun(run);
    db.markRunning(id);
    if (environmentId)
        db.setEnvironment(id, *environmentId);
    std::vector<store::StepRow> steps{{1, std::nullopt, spec.firstS * 1000}};
    for (int i = 2; i <= 61; ++i) {
        const double ms = spec.levelMs * (1.0 + 0.001 * (i % 3));
        steps.push_back({i, spec.gpu ? std::optional<double>(ms) : std::nullopt, spec.blockWallMs.value_or(ms)});
    }
    if (spec.status == RunStatus::Complete) {
        db.setFirstStep(id, spec.firstS);
        db.appendSteps(id, steps);
        if (spec.blockWallMs)
            db.setBlockWall(id, *spec.blockWallMs);
    }
    db.finishRun(id, spec.status,
                 spec.status == RunStatus::Failed
                     ? std::optional<Failure>(Failure{FailureCategory::OutOfMemory, "out of memory", ""})
                     : std::nullopt);
    return id;
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
