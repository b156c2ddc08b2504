#pragma once
// The report of a comparison, made of exactly what the Compare page shows: which two sweeps (and
// files) it compares, the warning naming every difference in shape, device, GPU or runtime, the
// table as the page orders it, and the chart as drawn. Written as HTML, PDF, Markdown or CSV,
// whole or not at all (report_writer.h); the writing needs no widgets and runs off the UI thread.
#include "controller/report_job.h"
#include "report/report_html.h"

#include <QDateTime>
#include <QImage>
#include <QString>
#include <QStringList>

class QAbstractItemModel;

namespace stepscope::ui
{

struct ComparisonReport {
    QString nameA, nameB; // "h200-ledger.sqlite, #1 H200 ledger b32"
    QString caption;      // what is compared and how, as the page says it
    QStringList differences;
    bool perImage = false;
    ReportTable table; // the page's table: headers and cells as displayed, in its order
    QImage chart;
    QDateTime generated; // invalid: now
};

// The table of `shown` (the model the page's view shows, sorted or not) as text, with the
// verdict's colour as a row class ("faster", "slower"); rows with OutcomeRole tell which.
ReportTable comparisonTable(const QAbstractItemModel &shown);

QString comparisonHtml(const ComparisonReport &report, ReportMedium medium, int printTextWidth = 0);
QString comparisonMarkdown(const ComparisonReport &report);
QString comparisonCsv(const ComparisonReport &report);

// `format` as ReportJob::formatOf() reads it from the file name.
bool writeComparisonReport(const ComparisonReport &report, const QString &path, ReportJob::Format format,
                           QString *error = nullptr);

} // namespace stepscope::ui
