#pragma once
// The one HTML body behind both the HTML file and the PDF. They differ in how a chart image is
// referenced (QTextDocument does not load data: URIs), in how wide a chart may be, and in where
// table text may break: QTextDocument breaks a long word anywhere ("baseli/ne") once a table is
// wider than the page, so for print every break opportunity inside a cell is a space or a
// knob boundary ("tf32+|bf16"), never the inside of a word.
#include "report/report_writer.h"

#include <QHash>
#include <QList>
#include <QPair>
#include <QStringList>

namespace stepscope::ui
{

enum class ReportMedium {
    Browser, // self-contained HTML: charts as data:image/png;base64 URIs, sized by CSS to the column
    Print,   // the QTextDocument behind the PDF: charts as resources (chartResourceName) at most the
             // page's text width, table text that wraps only between words
};

// printTextWidth: the page's text width in QTextDocument pixels (1/96 in); only for Print.
QString reportHtml(const ReportInput &input, ReportMedium medium, int printTextWidth = 0);
QString chartResourceName(int index);
// A chart for the browser's data: URI.
QString pngBase64(const QImage &image);
// The environment record to report: the input's, else the ledger's own.
QString reportEnvironmentJson(const ReportInput &input);

// Table text as the medium needs it (not escaped): for print, a hyphen inside a word becomes a
// non-breaking hyphen and a "+" joining two knobs is followed by a zero-width space.
QString tableText(const QString &text, ReportMedium medium);
// A table of the report: `numeric` columns are right-aligned; `classes` (optional, per row) adds
// a CSS class to every cell of the row ("failed"); `cellClasses` (optional) to single cells.
struct ReportTable {
    QStringList headers;
    QList<bool> numeric;
    QList<QStringList> rows;
    QStringList rowClasses;
    QHash<QPair<int, int>, QString> cellClasses; // (row, column) -> class
};
// For print, `textWidth` (the page's, in QTextDocument pixels) sets the columns' widths as the
// text needs them: QTextDocument alone squeezed a column of long knob names below its longest knob
// next to wrapped bold headers, and broke the knob in two.
QString tableHtml(const ReportTable &table, ReportMedium medium, int textWidth = 0);

} // namespace stepscope::ui
