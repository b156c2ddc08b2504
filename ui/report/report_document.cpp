#include "report/report_document.h"

#include "report/report_text.h"
#include "report/report_html.h"

#include <QAbstractTextDocumentLayout>
#include <QCoreApplication>
#include <QGuiApplication>
#include <QPagedPaintDevice>
#include <QPainter>
#include <QScreen>
#include <QTextBlock>
#include <QTextBoundaryFinder>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextDocumentFragment>
#include <QTextFrame>
#include <QTextTable>
#include <QUrl>

#include <cmath>
#include <limits>
#include <vector>

namespace stepscope::ui
{
namespace
{

constexpr qreal kFooterPixels = 28; // the band under each page's text for "page N of M"
constexpr int kMaxPasses = 400;     // each pass moves one row or heading; a report has far fewer

using report_text::tr;

// The resolution QTextDocument lays out at without a paint device (qt_defaultDpi), so that page
// sizes and the painter's scale agree with its pixels.
qreal layoutDpi()
{
    if (QCoreApplication::testAttribute(Qt::AA_Use96Dpi))
        return 96;
    if (const QScreen *screen = QGuiApplication::primaryScreen())
        return qRound(screen->logicalDotsPerInchY());
    return 100;
}

// A top-level piece of the document: a block with text or an image, or a table.
struct Element {
    QTextBlock block;
    QTextTable *table = nullptr;
    bool isHeading() const { return block.isValid() && block.blockFormat().headingLevel() > 0; }
};

std::vector<Element> topLevel(QTextDocument &document)
{
    std::vector<Element> out;
    for (auto it = document.rootFrame()->begin(); !it.atEnd(); ++it) {
        if (auto *table = qobject_cast<QTextTable *>(it.currentFrame()))
            out.push_back({{}, table});
        else if (const QTextBlock block = it.currentBlock(); block.isValid() && !block.text().trimmed().isEmpty())
            out.push_back({block, nullptr});
    }
    return out;
}

QRectF rectOf(QTextDocument &document, const Element &e)
{
    QAbstractTextDocumentLayout *layout = document.documentLayout();
    return e.table ? layout->frameBoundingRect(e.table) : layout->blockBoundingRect(e.block);
}

// The extent of a table row's text (document pixels); invalid for an empty row.
QRectF rowTextRect(QTextDocument &document, QTextTable *table, int row)
{
    QRectF rect;
    for (int c = 0; c < table->columns(); ++c) {
        const QTextTableCell cell = table->cellAt(row, c);
        if (!cell.isValid() || cell.row() != row || cell.column() != c)
            continue; // spanned from elsewhere
        for (auto it = cell.begin(); !it.atEnd(); ++it)
            if (const QTextBlock block = it.currentBlock(); block.isValid())
                rect = rect.united(document.documentLayout()->blockBoundingRect(block));
    }
    return rect;
}

// The extent of a table row (document pixels): its cells' text with their padding and borders;
// invalid for an empty row.
QRectF rowRect(QTextDocument &document, QTextTable *table, int row)
{
    const QRectF text = rowTextRect(document, table, row);
    // Padding, border and a pixel of rounding: a row whose text ends at the foot of a page has its
    // bottom border on the next.
    const qreal chrome = table->format().cellPadding() + table->format().border() + 1;
    return text.isValid() ? text.adjusted(0, -chrome, 0, chrome) : text;
}

// Where what follows a heading has started enough to keep the heading company: its first line,
// the whole of an image's line, a table's header and first row.
qreal startBottom(QTextDocument &document, const Element &e)
{
    if (e.table) {
        const int rows = std::min(e.table->rows(), e.table->format().headerRowCount() + 1);
        qreal bottom = rectOf(document, e).top();
        for (int r = 0; r < rows; ++r)
            bottom = std::max(bottom, rowRect(document, e.table, r).bottom());
        return bottom;
    }
    const QTextLayout *layout = e.block.layout();
    const QRectF rect = document.documentLayout()->blockBoundingRect(e.block);
    if (layout && layout->lineCount() > 0)
        return rect.top() + layout->lineAt(0).rect().bottom();
    return rect.bottom();
}

int pageOf(qreal y, qreal pageHeight)
{
    return int(std::floor(y / pageHeight));
}

// Starts a page at `cursor`'s block; false when it already does (nothing more to gain there).
bool breakBefore(QTextCursor cursor)
{
    QTextBlockFormat format = cursor.blockFormat();
    if (format.pageBreakPolicy() & QTextFormat::PageBreak_AlwaysBefore)
        return false;
    format.setPageBreakPolicy(format.pageBreakPolicy() | QTextFormat::PageBreak_AlwaysBefore);
    cursor.setBlockFormat(format);
    return true;
}

bool breakBefore(QTextTable *table)
{
    QTextTableFormat format = table->format();
    if (format.pageBreakPolicy() & QTextFormat::PageBreak_AlwaysBefore)
        return false;
    format.setPageBreakPolicy(format.pageBreakPolicy() | QTextFormat::PageBreak_AlwaysBefore);
    table->setFormat(format);
    return true;
}

// Starts a page before elements[k], or before the headings right above it, which belong with it.
bool breakBefore(const std::vector<Element> &elements, std::size_t k)
{
    std::size_t first = k;
    while (first > 0 && elements[first - 1].isHeading())
        --first;
    const Element &e = elements[first];
    return e.table ? breakBefore(e.table) : breakBefore(QTextCursor(e.block));
}

// Splits `table` before `row` into two tables, the second on a new page with the header rows
// again. (A page break inside the row's cells does not do: QTextDocument then drops the row to the
// next page and the cells' break pushes their text one page further.)
void splitBefore(QTextDocument &document, QTextTable *table, int row)
{
    const int rows = table->rows(), header = table->format().headerRowCount();
    QTextCursor all(&document);
    all.setPosition(table->cellAt(0, 0).firstPosition());
    all.setPosition(table->cellAt(rows - 1, table->columns() - 1).lastPosition(), QTextCursor::KeepAnchor);
    const QTextDocumentFragment copy(all);
    const int after = table->lastPosition() + 1;
    QTextCursor insert(&document);
    insert.setPosition(after);
    insert.insertFragment(copy);
    QTextTable *second = nullptr;
    for (QTextFrame *frame : document.rootFrame()->childFrames())
        if (auto *t = qobject_cast<QTextTable *>(frame); t && t != table && t->firstPosition() >= after) {
            second = t;
            break;
        }
    if (!second)
        return;
    second->removeRows(header, row - header);
    table->removeRows(row, rows - row);
    QTextTableFormat format = second->format();
    format.setHeaderRowCount(header);
    format.setPageBreakPolicy(QTextFormat::PageBreak_AlwaysBefore);
    second->setFormat(format);
}

// Lays out the rest of the document now. QTextDocumentLayout lays a document out lazily, a
// thousand characters at a time, the rest left to a timer of the event loop (which the report's
// thread and `stepscope --report` never run). A change made while a part is still waiting (a page
// break, a split table) lays out the changed part and forgets the waiting rest: those blocks keep
// no lines, so they take no height and print nothing. That dropped the charts at the end of a long
// report from its PDF, whose pages had all been counted without them. Every change below is made
// to a document laid out to its end.
void layOutWhole(QTextDocument &document)
{
    document.documentLayout()->documentSize(); // finishes the lazy layout
}

// One fix: the first row that straddles a page boundary, else the first heading parted from what
// it heads. Returns whether it changed anything (the layout then runs again).
bool fixOne(QTextDocument &document)
{
    layOutWhole(document);
    const qreal pageHeight = document.pageSize().height();
    const std::vector<Element> elements = topLevel(document);
    for (std::size_t k = 0; k < elements.size(); ++k) {
        QTextTable *table = elements[k].table;
        if (!table)
            continue;
        const int header = std::min(table->format().headerRowCount(), table->rows());
        for (int r = 0; r < table->rows(); ++r) {
            const QRectF row = rowRect(document, table, r);
            if (!row.isValid() || pageOf(row.top(), pageHeight) == pageOf(row.bottom() - 0.5, pageHeight))
                continue;
            if (r > header) {
                splitBefore(document, table, r);
                return true;
            }
            // The header or the first row: the table (with its heading) starts on the next page.
            if (breakBefore(elements, k))
                return true;
        }
    }
    for (std::size_t k = 0; k + 1 < elements.size(); ++k) {
        if (!elements[k].isHeading() || elements[k + 1].isHeading())
            continue; // the last heading of a run of headings decides for the run
        const qreal top = rectOf(document, elements[k]).top();
        if (pageOf(top, pageHeight) != pageOf(startBottom(document, elements[k + 1]) - 0.5, pageHeight) &&
            breakBefore(elements, k))
            return true;
    }
    return false;
}

QString excerpt(const QString &text, int at)
{
    const int from = std::max(0, at - 12);
    return text.mid(from, 24).replace(QChar(0x200B), QString()).replace(QChar(0x2011), QLatin1Char('-'));
}

} // namespace

QPageLayout reportPageLayout()
{
    return QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(15, 15, 15, 15),
                       QPageLayout::Millimeter);
}

std::unique_ptr<QTextDocument> paginatedDocument(const std::function<QString(int column)> &html,
                                                 const QList<QImage> &images, const QPageLayout &layout,
                                                 const std::function<void(QTextDocument &)> &prepare)
{
    auto document = std::make_unique<QTextDocument>();
    const qreal dpi = layoutDpi();
    const QRectF text = layout.paintRect(QPageLayout::Inch);
    document->setPageSize(QSizeF(text.width() * dpi, text.height() * dpi - kFooterPixels));
    for (int i = 0; i < images.size(); ++i)
        document->addResource(QTextDocument::ImageResource, QUrl(chartResourceName(i)), images[i]);
    const int column = int(std::floor(document->pageSize().width() - 2 * document->documentMargin()));
    document->setHtml(html(column));
    if (prepare) {
        layOutWhole(*document);
        prepare(*document);
    }
    for (int pass = 0; pass < kMaxPasses && fixOne(*document); ++pass) {
    }
    return document;
}

std::unique_ptr<QTextDocument> reportDocument(const ReportInput &input, const QPageLayout &layout)
{
    QList<QImage> images;
    for (const auto &chart : input.charts)
        images.append(chart.second);
    return paginatedDocument([&](int column) { return reportHtml(input, ReportMedium::Print, column); }, images,
                             layout);
}

bool printReportDocument(QTextDocument &document, QPagedPaintDevice *device, const QString &title)
{
    QPainter painter;
    if (!device || !painter.begin(device))
        return false;
    const qreal dpi = layoutDpi();
    const qreal sx = device->logicalDpiX() / dpi, sy = device->logicalDpiY() / dpi;
    const QSizeF page = document.pageSize();
    const int pages = document.pageCount();
    QFont footerFont = document.defaultFont();
    footerFont.setPixelSize(10);
    for (int i = 0; i < pages; ++i) {
        if (i > 0 && !device->newPage())
            return false;
        painter.save();
        painter.scale(sx, sy);
        const QRectF view(0, i * page.height(), page.width(), page.height());
        painter.setClipRect(QRectF(QPointF(0, 0), page));
        painter.translate(0, -view.top());
        QAbstractTextDocumentLayout::PaintContext context;
        context.clip = view;
        context.palette.setColor(QPalette::Text, Qt::black);
        document.documentLayout()->draw(&painter, context);
        painter.restore();

        painter.save();
        painter.scale(sx, sy);
        painter.setFont(footerFont);
        painter.setPen(QColor(0x66, 0x66, 0x66));
        const QRectF footer(document.documentMargin(), page.height(), page.width() - 2 * document.documentMargin(),
                            kFooterPixels);
        painter.drawText(footer, Qt::AlignLeft | Qt::AlignBottom, title);
        painter.drawText(footer, Qt::AlignRight | Qt::AlignBottom, tr("page %1 of %2").arg(i + 1).arg(pages));
        painter.restore();
    }
    return painter.end();
}

ReportLayoutFaults reportLayoutFaults(QTextDocument &document)
{
    ReportLayoutFaults faults;
    layOutWhole(document);
    QAbstractTextDocumentLayout *layout = document.documentLayout();
    const qreal pageHeight = document.pageSize().height();
    const qreal pageWidth = document.pageSize().width();
    const auto page = [&](qreal y) { return pageOf(y, pageHeight) + 1; };

    for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
        const QTextLayout *lines = block.layout();
        // After layOutWhole (above): what is left without lines was forgotten, not waiting.
        if (!block.text().isEmpty() && (!lines || lines->lineCount() == 0)) {
            faults.dropped
                << tr("\"%1\" is not laid out: it takes no room and prints nothing").arg(excerpt(block.text(), 12));
            continue;
        }
        if (!lines)
            continue;
        // A line holding more than its width: a word or an image that could not be fitted.
        for (int i = 0; i < lines->lineCount(); ++i)
            if (const QTextLine line = lines->lineAt(i); line.naturalTextWidth() > line.width() + 0.5)
                faults.overflows << tr("page %1: \"%2\" is %3 px on a %4 px line")
                                        .arg(page(layout->blockBoundingRect(block).top()))
                                        .arg(excerpt(block.text(), line.textStart() + 12))
                                        .arg(line.naturalTextWidth(), 0, 'f', 0)
                                        .arg(line.width(), 0, 'f', 0);
        if (lines->lineCount() < 2)
            continue;
        const QString text = block.text();
        const bool inTable = QTextCursor(block).currentTable() != nullptr;
        QTextBoundaryFinder breaks(QTextBoundaryFinder::Line, text);
        for (int i = 0; i + 1 < lines->lineCount(); ++i) {
            const QTextLine line = lines->lineAt(i);
            const int end = line.textStart() + line.textLength();
            if (end <= 0 || end >= text.size())
                continue;
            const QChar before = text[end - 1];
            // In a table only spaces and knob boundaries; in prose any line-break opportunity
            // (after a hyphen too), never a break inside a word.
            bool fine = before.isSpace() || before == QChar(0x200B);
            if (!fine && !inTable) {
                breaks.setPosition(end);
                fine = breaks.isAtBoundary();
            }
            if (!fine)
                faults.brokenWords << tr("page %1: \"%2\" breaks after \"%3\"")
                                          .arg(page(layout->blockBoundingRect(block).top()))
                                          .arg(excerpt(text, end), text.mid(end - 1, 1));
        }
    }

    int tableIndex = 0;
    const std::vector<Element> elements = topLevel(document);
    for (std::size_t k = 0; k < elements.size(); ++k) {
        const Element &e = elements[k];
        const QRectF rect = rectOf(document, e);
        // By width: frameBoundingRect() of a table adds its first cell's offset to the position.
        if (e.table && rect.width() > pageWidth - 2 * document.documentMargin() + 0.5)
            faults.overflows << tr("page %1: a table %2 px wide on a %3 px page")
                                    .arg(page(rect.top()))
                                    .arg(rect.width(), 0, 'f', 0)
                                    .arg(pageWidth, 0, 'f', 0);
        if (e.table) {
            ++tableIndex;
            for (int r = 0; r < e.table->rows(); ++r) {
                const QRectF row = rowRect(document, e.table, r);
                if (row.isValid() && pageOf(row.top(), pageHeight) != pageOf(row.bottom() - 0.5, pageHeight))
                    faults.splitRows << tr("page %1: row %2 of table %3 (\"%4\") straddles two pages")
                                            .arg(page(row.top()))
                                            .arg(r + 1)
                                            .arg(tableIndex)
                                            .arg(excerpt(e.table->cellAt(r, 0).firstCursorPosition().block().text(),
                                                         12));
            }
        }
        if (e.isHeading() && k + 1 < elements.size() && !elements[k + 1].isHeading() &&
            pageOf(rect.top(), pageHeight) != pageOf(startBottom(document, elements[k + 1]) - 0.5, pageHeight))
            faults.strandedHeadings
                << tr("page %1: \"%2\" is parted from what it heads").arg(page(rect.top())).arg(e.block.text());
    }
    return faults;
}

} // namespace stepscope::ui
