#include "presenters/activity.h"

#include "controller/comparison_job.h"
#include "controller/query_job.h"
#include "controller/report_job.h"
#include "controller/run_controller.h"
#include "presenters/report_export.h"
#include "presenters/shown_sweep.h"

namespace stepscope::ui
{

Activity::Activity(RunController *controller, ShownSweep *shown, ComparisonJob *comparison, ReportExport *report,
                   QueryJob *query, QObject *parent)
    : QObject(parent), controller_(controller)
{
    connect(controller_, &RunController::databaseOpened, this, &Activity::update);
    connect(controller_, &RunController::databaseRefused, this, &Activity::update);
    // The shown sweep says why its ledger job is busy, and again on each new request.
    watch(
        shown, &ShownSweep::activityChanged, [shown] { return shown->job()->isBusy(); },
        [shown] { return shown->activity().isEmpty() ? tr("Computing the ledger…") : shown->activity(); });
    reportFailures(shown->job());
    watchJob(comparison, tr("Comparing…"));
    watch(
        report, &ReportExport::busyChanged, [report] { return report->isBusy(); },
        [] { return tr("Writing the report…"); });
    reportFailures(report->job());
    watchJob(query, tr("Reading…"));
}

template <typename Sender, typename Signal>
void Activity::watch(Sender *sender, Signal changed, std::function<bool()> busy, std::function<QString()> text)
{
    sources_.push_back({std::move(busy), std::move(text)});
    connect(sender, changed, this, &Activity::update);
}

void Activity::watchJob(ReaderJob *job, const QString &text)
{
    watch(
        job, &ReaderJob::busyChanged, [job] { return job->isBusy(); }, [text] { return text; });
    reportFailures(job);
}

void Activity::reportFailures(ReaderJob *job)
{
    connect(job, &ReaderJob::failed, this, [this](const QString &failure) { Q_EMIT message(failure, 10000); });
}

bool Activity::isBusy() const
{
    if (controller_->isOpening())
        return true;
    for (const Source &source : sources_)
        if (source.busy())
            return true;
    return false;
}

QString Activity::text() const
{
    if (controller_->isOpening())
        return tr("Opening the database…");
    for (const Source &source : sources_)
        if (source.busy())
            return source.text();
    return {};
}

void Activity::update()
{
    Q_EMIT textChanged(text());
    const bool busy = isBusy();
    if (busy != busy_) {
        busy_ = busy;
        Q_EMIT busyChanged(busy);
    }
}

} // namespace stepscope::ui
