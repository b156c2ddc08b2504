#pragma once
// The exported report of one sweep: self-contained HTML, PDF, Markdown and CSV. The figures come
// from report::Ledger and read exactly as in the ledger table (models/ledger_format.h); the charts
// come rendered from the dashboard, since core/ has no painting.
#include "report/compile_report.h"
#include "report/ledger.h"
#include "report/report_target.h"

#include <QDateTime>
#include <QImage>
#include <QList>
#include <QPair>
#include <QString>

class QTextDocument;

namespace stepscope::ui
{

struct ReportInput {
    report::Ledger ledger;                // its plannedSteps and recommendation are the ones reported
    QString environmentJson;              // the worker's environment record; empty: the ledger's own
    QList<QPair<QString, QImage>> charts; // title, rendered chart
    QDateTime generated;                  // invalid: now
    // The torch.compile section (compileReportRows() of the same ledger); empty: no section.
    std::vector<CompileReportRow> compile;
};

// The report of `ledger` as generated now, its environment the ledger's own record; the charts
// (renderReportCharts) and the torch.compile section (writeSweepReport) are added to it.
ReportInput reportInputOf(report::Ledger ledger);

// Self-contained: charts are embedded as data:image/png;base64, no external files or styles.
QString toHtml(const ReportInput &input);
// report::toMarkdown of the ledger, followed by an environment section with its assessments.
QString toMarkdown(const ReportInput &input);

// Each writes the whole file or nothing (QSaveFile): on failure the target is untouched, no
// partial or temporary file remains, and *error (when given) says what to do about it.
bool writeHtml(const ReportInput &input, const QString &path, QString *error = nullptr);
// Portrait A4, paginated so that no table row spans two pages and headings stay with what they
// head (report_document.h). Lays the report out with QTextDocument: needs a QGuiApplication (fonts).
bool writePdf(const ReportInput &input, const QString &path, QString *error = nullptr);
bool writeMarkdown(const ReportInput &input, const QString &path, QString *error = nullptr);
bool writeCsv(const ReportInput &input, const QString &path, QString *error = nullptr);
// One of the four above, as `format` says.
bool writeReport(const ReportInput &input, const QString &path, ReportFormat format, QString *error = nullptr);

// The same all-or-nothing writing for other reports (the comparison's): a laid-out document as a
// portrait A4 PDF with `footer` on each page, and UTF-8 text.
bool writePdfDocument(QTextDocument &document, const QString &title, const QString &footer, const QString &path,
                      QString *error = nullptr);
bool writeReportText(const QString &path, const QString &text, QString *error = nullptr);

} // namespace stepscope::ui
