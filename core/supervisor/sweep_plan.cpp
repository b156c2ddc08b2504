#include "supervisor/sweep_plan.h"

#include "config/config_json.h"
#include "config/sweep_baseline.h"

#include <QJsonDocument>

#include <stdexcept>

namespace stepscope::supervisor
{
namespace
{

store::RunRecord queuedRun(const RunConfig &config, std::int64_t position, int repeatIndex, store::StartState caches)
{
    store::RunRecord run;
    run.position = position;
    run.repeatIndex = repeatIndex;
    run.configName = canonicalName(config);
    run.configJson = QJsonDocument(toJson(config)).toJson(QJsonDocument::Compact).toStdString();
    run.status = RunStatus::Queued;
    run.caches = caches;
    return run;
}

} // namespace

std::vector<PlannedRun> orderRuns(const std::vector<RunConfig> &configs, int repeats, const StartStates &starts)
{
    std::vector<PlannedRun> runs;
    for (int r = 0; r < repeats; ++r)
        for (const store::StartState state : store::kStartStates)
            for (const auto &config : configs)
                if (starts.runs(config, state))
                    runs.push_back({0, config, state, r});
    return runs;
}

SweepPlan planSweep(store::Database &db, const std::string &name, const std::string &preset,
                    const std::vector<RunConfig> &configs, int repeats, std::int64_t plannedSteps,
                    std::optional<std::size_t> baseline, const StartStates &starts, const QJsonObject &extraSettings)
{
    SweepPlan plan;
    store::SweepRecord sweep;
    sweep.name = name;
    sweep.preset = preset;
    sweep.plannedSteps = plannedSteps;
    sweep.status = store::SweepStatus::Running;
    if (!configs.empty()) {
        QJsonObject settings = toJson(configs.front());
        settings.insert("repeats", repeats);
        settings.insert("configurations", static_cast<int>(configs.size()));
        settings.insert("starts", QString::fromStdString(toString(starts)));
        for (auto it = extraSettings.begin(); it != extraSettings.end(); ++it)
            settings.insert(it.key(), it.value());
        sweep.settingsJson = QJsonDocument(settings).toJson(QJsonDocument::Compact).toStdString();
        // Callers check a user's choice against the list (findBaseline); one past it is a bug.
        if (baseline && *baseline >= configs.size())
            throw std::out_of_range("planSweep: baseline index past the configurations");
        sweep.baselineConfig = canonicalName(configs[baseline ? *baseline : defaultBaseline(configs)]);
    }
    // One transaction: a kill while planning leaves either the whole sweep or nothing.
    std::vector<PlannedRun> planned = orderRuns(configs, repeats, starts);
    std::vector<store::RunRecord> runs;
    for (const PlannedRun &run : planned)
        runs.push_back(queuedRun(run.config, static_cast<std::int64_t>(runs.size()), run.repeatIndex, run.caches));
    std::vector<std::int64_t> runIds;
    plan.sweepId = db.createSweepWithRuns(sweep, runs, runIds);
    for (std::size_t i = 0; i < runs.size(); ++i) {
        planned[i].runId = runIds[i];
        plan.runs.push_back(planned[i]);
    }
    return plan;
}

void appendRun(store::Database &db, SweepPlan &plan, const RunConfig &config, int repeatIndex, store::StartState caches)
{
    store::RunRecord run = queuedRun(config, static_cast<std::int64_t>(plan.runs.size()), repeatIndex, caches);
    run.sweepId = plan.sweepId;
    plan.runs.push_back({db.createRun(run), config, caches, repeatIndex});
}

} // namespace stepscope::supervisor
