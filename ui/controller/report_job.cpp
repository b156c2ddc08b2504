#include "controller/report_job.h"

#include <QFileInfo>

#include <memory>

namespace stepscope::ui
{

std::optional<ReportJob::Format> ReportJob::formatOf(const QString &path, QString *error)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == "html" || suffix == "htm")
        return Format::Html;
    if (suffix == "pdf")
        return Format::Pdf;
    if (suffix == "md" || suffix == "markdown")
        return Format::Markdown;
    if (suffix == "csv")
        return Format::Csv;
    if (error)
        *error = tr("Unknown report format '.%1': use .html, .pdf, .md or .csv.").arg(suffix);
    return std::nullopt;
}

ReportJob::ReportJob(QObject *parent) : ReaderJob(0, parent) {}

void ReportJob::request(ReportInput input, const QString &path, Format format)
{
    // Every report is wanted: one request never makes another stale.
    auto shared = std::make_shared<ReportInput>(std::move(input));
    postStandalone([this, shared, path, format](const Context &context) -> Deliver {
        try {
            shared->compile = report::compileReportRows(context.reader, shared->ledger);
        } catch (const store::StoreError &) {
            // The report still has the ledger; only the torch.compile section needs the runs.
        }
        QString error;
        bool ok = false;
        switch (format) {
        case Format::Html:
            ok = writeHtml(*shared, path, &error);
            break;
        case Format::Pdf:
            ok = writePdf(*shared, path, &error);
            break;
        case Format::Markdown:
            ok = writeMarkdown(*shared, path, &error);
            break;
        case Format::Csv:
            ok = writeCsv(*shared, path, &error);
            break;
        }
        return [this, ok, path, error] {
            if (ok)
                Q_EMIT written(path);
            else
                Q_EMIT refused(path, error);
        };
    });
}

} // namespace stepscope::ui
