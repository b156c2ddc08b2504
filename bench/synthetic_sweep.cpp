#include "synthetic_sweep.h"

#include "config/presets.h"
#include "report/run_summary.h"
#include "supervisor/sweep_plan.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace stepscope::bench
{
namespace
{

// Per configuration, in ledger order: first step (s) and steady step (ms), roughly an H200 at
// batch 32 (launch-bound eager, graph replay fastest).
struct Level {
    double firstS, steadyMs;
};
constexpr Level kLevels[] = {{1.9, 31.0}, {1.9, 24.0}, {13.0, 22.5}, {2.1, 17.0}, {2.2, 14.8}, {2.6, 9.1}, {2.6, 8.9}};

} // namespace

std::int64_t writeSyntheticSweep(store::Database &db, const SyntheticSweep &spec)
{
    RunConfig base;
    base.device = "cuda";
    base.batch = 32;
    base.imageSize = 224;
    base.warmupSteps = 10;
    base.steps = spec.stepsPerRun - 1 - base.warmupSteps;
    const Sweep sweep =
        cumulativeSweep(base, {"tf32", "cudnn-bench", "bf16", "channels-last", "cuda-graph", "sgd-fused"});

    store::EnvironmentRecord env;
    env.gpu = "NVIDIA H200 (synthetic)";
    env.driver = "580.159.04";
    env.cuda = "13.0.0";
    env.cudnn = "9.19.0";
    env.torch = "2.11.0+cu130";
    env.host = "bench";
    env.json = R"j({"gpu":"NVIDIA H200 (synthetic)","device":"cuda","cuda_runtime":"13.0.0","cudnn":"9.19.0",)j"
               R"j("torch":"2.11.0+cu130","host":"bench","cpu_threads":"16"})j";
    const std::int64_t environmentId = db.addEnvironment(env);

    const auto plan = supervisor::planSweep(db, "synthetic 7x3 ledger", "ledger", sweep.configs, spec.repeats, 10000);
    std::mt19937_64 rng(20261130);
    std::normal_distribution<double> noise(0.0, 0.02);
    const int total = static_cast<int>(plan.runs.size());
    if (spec.planned)
        spec.planned(plan.sweepId, total);
    std::vector<store::StepRow> rows;
    for (int i = 0; i < total; ++i) {
        const auto &run = plan.runs[static_cast<std::size_t>(i)];
        const Level level = kLevels[static_cast<std::size_t>(i) % sweep.configs.size()];
        // Cold processes differ by a few percent: the spread the intervals are about.
        const double processFactor = 1.0 + 0.03 * std::sin(1.7 * i);
        if (spec.runStarting)
            spec.runStarting(run.runId, i, total);
        db.markRunning(run.runId);
        db.setEnvironment(run.runId, environmentId);
        db.setSetup(run.runId, 3.1);
        db.setFirstStep(run.runId, level.firstS * processFactor);
        rows.clear();
        rows.push_back({1, level.firstS * processFactor * 1000, level.firstS * processFactor * 1000 + 0.4});
        for (std::int64_t step = 2; step <= spec.stepsPerRun; ++step) {
            const double warm = 1.0 + 1.5 * std::exp(-static_cast<double>(step) / 8.0);
            const double ms = level.steadyMs * processFactor * warm * (1.0 + noise(rng));
            rows.push_back({step, ms, ms + 0.3});
        }
        // In the batches a worker's stream gives the writer.
        for (std::size_t from = 0; from < rows.size(); from += 4096)
            db.appendSteps(run.runId, std::vector<store::StepRow>(rows.begin() + static_cast<std::ptrdiff_t>(from),
                                                                  rows.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                                                     from + 4096, rows.size()))));
        db.setBlockWall(run.runId, level.steadyMs * processFactor + 0.3);
        db.setSummary(run.runId, report::summarizeSteps(rows)); // as the supervisor stores it
        db.finishRun(run.runId, RunStatus::Complete);
        db.flush();
        if (spec.runWritten)
            spec.runWritten(run.runId, i, total);
    }
    db.finishSweep(plan.sweepId, store::SweepStatus::Complete);
    db.flush();
    return plan.sweepId;
}

} // namespace stepscope::bench
