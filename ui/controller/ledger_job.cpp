#include "controller/ledger_job.h"

#include "models/ledger_model.h"
#include "report/run_summary.h"

#include <algorithm>
#include <mutex>

namespace stepscope::ui
{

// A job that moves to another file reads it on that file's thread, while work for the old one may
// still run on its own: two threads can reach the copy then.
struct LedgerJob::Copy {
    std::mutex mutex;
    std::optional<report::Ledger> ledger; // of the last ledger built in full
    QString path;
};

LedgerJob::LedgerJob(LedgerModel *model, QObject *parent)
    : ReaderJob(KindCount, parent), model_(model), copy_(std::make_shared<Copy>())
{
}

LedgerJob::~LedgerJob() = default;

void LedgerJob::request(qint64 sweepId, qint64 plannedSteps, store::StartState start, int batch)
{
    drop(Recommendation); // the new ledger carries the planned length
    sweepId_ = sweepId;
    const QString path = database();
    post(Ledger, [this, sweepId, plannedSteps, start, batch, path, copy = copy_](const Context &context) -> Deliver {
        const store::Reader &reader = context.reader;
        // What the sweep is, first: one sweep row and its runs, no steps.
        SweepInfo info;
        if (const auto sweep = reader.sweep(sweepId))
            info.sweep = *sweep;
        const auto runs = reader.runs(sweepId);
        info.runs = static_cast<int>(runs.size());
        for (const auto &run : runs) {
            info.complete += run.status == RunStatus::Complete ? 1 : 0;
            if (run.stepCount > 0)
                info.lastRun = run.id;
            if (!info.environment && run.environmentId)
                info.environment = reader.environment(*run.environmentId);
            if (std::find(info.configJsons.begin(), info.configJsons.end(), run.configJson) == info.configJsons.end())
                info.configJsons.push_back(run.configJson);
        }
        info.models = report::sweepModels(runs);
        context.early([this, info] { Q_EMIT sweepRead(info); });

        auto data = std::make_shared<LedgerData>(LedgerModel::read(reader, sweepId, plannedSteps, context.cancel, start, batch));
        // Raised while it was built: some intervals are missing, and nobody wants it.
        if (context.cancel.cancelled())
            return {};
        // Launch-bound steps and what pinning did, from the sweep's completed runs.
        QList<RunTiming> timing;
        for (const auto &run : runs) {
            if (run.status != RunStatus::Complete)
                continue;
            const auto summary = report::summaryOf(reader, run);
            timing.append({QString::fromStdString(run.configJson), summary.medianMs.value_or(0.0),
                           run.blockWallMs.value_or(0.0)});
        }
        QList<EnvironmentEntry> assessed = assessTiming(timing);
        {
            std::lock_guard lock(copy->mutex);
            copy->ledger = data->ledger;
            copy->path = path;
        }
        return [this, sweepId, data, assessed, builtOn = std::this_thread::get_id()] {
            lastBuildThread_ = builtOn;
            model_->setData(std::move(*data));
            Q_EMIT ready(sweepId, assessed);
        };
    });
}

void LedgerJob::requestPlannedSteps(qint64 plannedSteps)
{
    if (plannedSteps <= 0)
        return;
    const qint64 sweepId = sweepId_;
    const QString path = database();
    post(Recommendation, [this, sweepId, plannedSteps, path, copy = copy_](const Context &context) -> Deliver {
        // Queued after any ledger requested before it, on the same thread: the copy is of the latest.
        std::lock_guard lock(copy->mutex);
        if (!copy->ledger || copy->path != path || copy->ledger->sweep.id != sweepId)
            return {};
        report::recommendFor(*copy->ledger, plannedSteps, context.cancel);
        if (context.cancel.cancelled())
            return {}; // a newer length was asked for; the next request recomputes all of it
        return [this, sweepId, plannedSteps, result = LedgerRecommendation::of(*copy->ledger)] {
            model_->setRecommendation(result);
            Q_EMIT recommended(sweepId, plannedSteps);
        };
    });
}

} // namespace stepscope::ui
