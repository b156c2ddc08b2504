#pragma once
// The PDF report as pages: A4 portrait, the report's HTML laid out by QTextDocument on the page's
// text width, then paginated as a reader expects. QTextDocument knows no page-break-inside and
// no keep-with-next, so after each layout the pass below looks for a table row that straddles two
// pages and a heading left at the foot of a page without what it heads, and starts a page before
// them (a new page for the rest of the table, with its header again, or a page break before the
// heading), until none is left. Each pass works on the document laid out to its end: a change to
// a document half laid out loses the rest from the pages (report_document.cpp, layOutWhole).
// Needs a QGuiApplication (fonts); any thread (QTextDocument draws images, not pixmaps, off the
// GUI thread).
#include "report/report_writer.h"

#include <QImage>
#include <QList>
#include <QPageLayout>
#include <QStringList>

#include <functional>
#include <memory>

class QPagedPaintDevice;
class QTextDocument;

namespace stepscope::ui
{

// A4 portrait, 15 mm margins.
QPageLayout reportPageLayout();

// The report laid out and paginated for `layout`: page size in QTextDocument pixels (1/96 in),
// less a band at the foot of each page for the page number.
std::unique_ptr<QTextDocument> reportDocument(const ReportInput &input, const QPageLayout &layout = reportPageLayout());
// The same for any report's print HTML: `html` is called with the text column's width, and
// images[i] is the resource chartResourceName(i) that its <img> elements name.
// `prepare`, when given, changes the document after its HTML is set and before it is paginated
// (drawChartsAsVectors puts vector charts in the images' places).
std::unique_ptr<QTextDocument> paginatedDocument(const std::function<QString(int column)> &html,
                                                 const QList<QImage> &images,
                                                 const QPageLayout &layout = reportPageLayout(),
                                                 const std::function<void(QTextDocument &)> &prepare = {});

// Draws the document's pages on `device` (a QPdfWriter set to the same page layout), each with a
// footer "title · page N of M". False when the device cannot be painted on.
bool printReportDocument(QTextDocument &document, QPagedPaintDevice *device, const QString &title);

// What a reader would call a layout fault, one line each ("page 3: row 'tf32' of table 2 straddles
// two pages"); empty when there is none. Tests read it; the writer applies the fixes above.
struct ReportLayoutFaults {
    QStringList brokenWords;      // a line ends inside a word (not at a space, a knob's "+" or a hyphen of prose)
    QStringList splitRows;        // a table row on two pages
    QStringList strandedHeadings; // a heading on another page than the start of what it heads
    QStringList overflows;        // content wider than the page's text width
    QStringList dropped;          // text or an image the layout left without lines: missing from the pages
    bool empty() const
    {
        return brokenWords.isEmpty() && splitRows.isEmpty() && strandedHeadings.isEmpty() && overflows.isEmpty() &&
               dropped.isEmpty();
    }
};
ReportLayoutFaults reportLayoutFaults(QTextDocument &document);

} // namespace stepscope::ui
