#pragma once
// The report of a comparison, made of exactly what the Compare page shows: which two sweeps (and
// files) it compares, the warning naming every difference in shape, device, GPU or runtime, the
// table as the page orders it, and the chart as drawn. Written as HTML, PDF, Markdown or CSV,
// whole or not at all (report_writer.h); the writing needs no widgets and runs off the UI thread.
#include "report/report_html.h"
#include "report/report_target.h"
#include "report/vector_chart.h"

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
    QString verdict;      // the comparison in one line (report::comparisonVerdict)
    QStringList differences;
    bool perImage = false;
    ReportTable table;       // the page's table: headers and cells as displayed, in its order
    ReportTable environment; // fact, A, B; a row whose sides differ has the class "differs"
    QImage chart;            // the chart as pixels: the PDF's layout placeholder
    VectorChart vectorChart; // the same chart as vectors: what the HTML and the PDF show
    QDateTime generated;     // invalid: now
};

// The table of `shown` (the model the page's view shows, sorted or not) as text, with the
// verdict's colour as a row class ("faster", "slower"); rows with OutcomeRole tell which.
ReportTable comparisonTable(const QAbstractItemModel &shown);

// Both sides' environment records as a table (report::environmentPairs).
ReportTable comparisonEnvironmentTable(const std::string &environmentJsonA, const std::string &environmentJsonB);

QString comparisonHtml(const ComparisonReport &report, ReportMedium medium, int printTextWidth = 0);
QString comparisonMarkdown(const ComparisonReport &report);
QString comparisonCsv(const ComparisonReport &report);

// `format` as reportFormatOf() reads it from the file name.
bool writeComparisonReport(const ComparisonReport &report, const QString &path, ReportFormat format,
                           QString *error = nullptr);

} // namespace stepscope::ui
