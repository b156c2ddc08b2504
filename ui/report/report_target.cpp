#include "report/report_target.h"

#include "report/report_text.h"
#include "store/database_files.h"

#include <QCoreApplication>
#include <QFileInfo>

namespace stepscope::ui
{
namespace
{

using report_text::tr;

} // namespace

std::optional<ReportFormat> reportFormatOf(const QString &path, QString *error)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == "html" || suffix == "htm")
        return ReportFormat::Html;
    if (suffix == "pdf")
        return ReportFormat::Pdf;
    if (suffix == "md" || suffix == "markdown")
        return ReportFormat::Markdown;
    if (suffix == "csv")
        return ReportFormat::Csv;
    if (error)
        *error = tr("Unknown report format '.%1': use .html, .pdf, .md or .csv.").arg(suffix);
    return std::nullopt;
}

QString refusedReportTarget(const QString &path, const QString &database)
{
    const QString clash = QString::fromStdString(store::databaseFileBehind(path.toStdString(), database.toStdString()));
    if (clash.isEmpty())
        return {};
    return tr("Not writing %1: it is %2, and writing there would destroy the measurements. Choose another file.")
        .arg(path, clash);
}

} // namespace stepscope::ui
