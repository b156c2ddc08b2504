#include "controller/report_job.h"

#include "report/sweep_report.h"

#include <memory>

namespace stepscope::ui
{

ReportJob::ReportJob(QObject *parent) : ReaderJob(0, parent) {}

void ReportJob::request(ReportInput input, const QString &path, ReportFormat format)
{
    // Every report is wanted: one request never makes another stale.
    auto shared = std::make_shared<ReportInput>(std::move(input));
    postStandalone([this, shared, path, format](const Context &context) -> Deliver {
        QString error;
        const bool ok = writeSweepReport(context.reader, std::move(*shared), path, format, &error);
        return [this, ok, path, error] {
            if (ok)
                Q_EMIT written(path);
            else
                Q_EMIT refused(path, error);
        };
    });
}

} // namespace stepscope::ui
