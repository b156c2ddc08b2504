#include "controller/ledger_job.h"

#include "models/ledger_model.h"
#include "report/run_summary.h"

#include <algorithm>

namespace stepscope::ui
{

struct LedgerJob::Copy {
    std::optional<report::Ledger> ledger;
    QString path;
};

LedgerJob::LedgerJob(LedgerModel *model, QObject *parent)
    : ReaderJob(KindCount, parent), model_(model), copy_(std::make_shared<Copy>())
{
}

LedgerJob::~LedgerJob() = default;

void LedgerJob::request(qint64 sweepId, qint64 plannedSteps)
{
    const Ticket ticket = supersede(Ledger);
    drop(Recommendation); // the new ledger carries the planned length
    sweepId_ = sweepId;
    const QString path = database();
    post(ticket,
         [this, sweepId, plannedSteps, path, copy = copy_](const store::Reader &reader,
                                                           const Deliver &early) -> std::function<void()> {
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
                 if (std::find(info.configJsons.begin(), info.configJsons.end(), run.configJson) ==
                     info.configJsons.end())
                     info.configJsons.push_back(run.configJson);
             }
             early([this, info] { Q_EMIT sweepRead(info); });

             auto data = std::make_shared<LedgerData>(LedgerModel::read(reader, sweepId, plannedSteps));
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
             copy->ledger = data->ledger;
             copy->path = path;
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
    const Ticket ticket = supersede(Recommendation);
    const qint64 sweepId = sweepId_;
    const QString path = database();
    post(ticket,
         [this, sweepId, plannedSteps, path, copy = copy_](const store::Reader &,
                                                           const Deliver &) -> std::function<void()> {
             // Queued after any ledger requested before it: the copy is of the latest ledger.
             if (!copy->ledger || copy->path != path || copy->ledger->sweep.id != sweepId)
                 return {};
             report::recommendFor(*copy->ledger, plannedSteps);
             return [this, sweepId, plannedSteps, result = LedgerRecommendation::of(*copy->ledger)] {
                 model_->setRecommendation(result);
                 Q_EMIT recommended(sweepId, plannedSteps);
             };
         });
}

} // namespace stepscope::ui
