#include "presenters/report_export.h"

#include "controller/report_job.h"
#include "controller/run_controller.h"
#include "models/ledger_model.h"
#include "presenters/open_database.h"
#include "presenters/shown_sweep.h"
#include "report/report_charts.h"

#include <memory>

namespace stepscope::ui
{

ReportExport::ReportExport(ShownSweep *shown, RunController *controller, QObject *parent)
    : QObject(parent), shown_(shown), controller_(controller), job_(new ReportJob(this))
{
    followOpenDatabase(controller_, job_);
    connect(job_, &ReportJob::written, this, &ReportExport::written);
    connect(job_, &ReportJob::refused, this, [this](const QString &, const QString &error) { Q_EMIT failed(error); });
    connect(job_, &ReportJob::busyChanged, this, &ReportExport::busyChanged);
}

QString ReportExport::refusedTarget(const QString &path) const
{
    return refusedReportTarget(path, controller_->databasePath());
}

bool ReportExport::write(const QString &path, QString *error)
{
    if (const QString refused = refusedTarget(path); !refused.isEmpty()) {
        if (error)
            *error = refused;
        return false;
    }
    const LedgerModel *ledger = shown_->ledger();
    if (ledger->rowCount() == 0) {
        if (error)
            *error = shown_->job()->isBusy() ? tr("The ledger is still being computed: export it when it shows.")
                                             : tr("There is no sweep to report: run one or open one from the history.");
        return false;
    }
    const auto format = reportFormatOf(path, error);
    if (!format)
        return false;
    // Shared, not copied: the drawing's steps pass the closure on from timer to timer.
    auto input = std::make_shared<ReportInput>(reportInputOf(ledger->ledger()));
    // Charts paint on the UI thread (drawn from the reported ledger, sized for the page); the rest
    // is the report job's.
    ++drawing_;
    renderReportChartsPaced(this, input->ledger, [this, input, path, format](ReportCharts charts) {
        --drawing_;
        input->charts = std::move(charts);
        job_->request(std::move(*input), path, *format);
        Q_EMIT busyChanged();
    });
    Q_EMIT busyChanged();
    return true;
}

bool ReportExport::isBusy() const
{
    return job_->isBusy() || drawing_ > 0;
}

} // namespace stepscope::ui
