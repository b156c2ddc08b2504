#include "controller/query_job.h"

#include "models/history_model.h"
#include "report/run_summary.h"

#include <memory>

namespace stepscope::ui
{

QueryJob::QueryJob(HistoryModel *history, QObject *parent) : ReaderJob(KindCount, parent), history_(history) {}

void QueryJob::requestHistory()
{
    post(History, [this](const Context &context) -> Deliver {
        auto sweeps = std::make_shared<HistoryModel::Sweeps>(HistoryModel::read(context.reader));
        return [this, sweeps] {
            history_->setSweeps(std::move(*sweeps));
            Q_EMIT historyReady();
        };
    });
}

void QueryJob::requestRunSteps(qint64 runId)
{
    post(Steps, [this, runId](const Context &context) -> Deliver {
        const store::Reader &reader = context.reader;
        const auto run = reader.run(runId);
        if (!run)
            return {};
        auto steps = std::make_shared<RunSteps>();
        steps->run = *run;
        for (const auto &step : reader.steps(runId))
            steps->ms << (step.gpuMs ? *step.gpuMs : step.wallMs);
        // The window the run's stored summary names (read by the same rule when it has none).
        if (!steps->ms.isEmpty()) {
            const auto summary = report::summaryOf(reader, *run);
            if (report::hasSteadyState(summary)) {
                steps->steady = true;
                steps->steadyFirst = static_cast<int>(summary.steadyBegin);
                steps->steadyLast = static_cast<int>(summary.steadyBegin + summary.steadyCount - 1);
            }
        }
        return [this, steps] { Q_EMIT runStepsReady(*steps); };
    });
}

void QueryJob::requestRunSeries(const QVector<WantedRun> &runs)
{
    post(Series, [this, runs](const Context &context) -> Deliver {
        QVector<RunSeries> series;
        for (const auto &run : runs) {
            if (context.cancel.cancelled())
                return {}; // a newer choice of runs: the rest is not read
            series.append(runSeriesOf(context.reader, run.runId, run.name, run.colorIndex));
        }
        auto prepared = std::make_shared<OverlayRuns>(prepareOverlay(std::move(series)));
        return [this, prepared] { Q_EMIT runSeriesReady(*prepared); };
    });
}

} // namespace stepscope::ui
