// The exported report from the ledger measured on an H200 (docs/results): what a reader of the
// file needs is in it, every format is written whole or not at all.
#include "report/report_writer.h"

#include "report/report_charts.h"
#include "report/report_document.h"
#include "report/report_html.h"
#include "report/sweep_report.h"

#include "models/figure_text.h"
#include "compile_sweep_fixture.h"

#include "common/failure.h"
#include "store/store.h"

#include <QAbstractTextDocumentLayout>
#include <QDir>
#include <QFile>
#include <QPainter>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>

#include <algorithm>
#include <memory>

using namespace stepscope;

namespace
{

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The images a PDF holds: one XObject of subtype Image each (charts are opaque, so QPdfWriter
// gives them no soft mask, which would count as a second).
int pdfImages(const QByteArray &pdf)
{
    return int(pdf.count("/Subtype /Image"));
}

QImage chartImage(const QColor &color)
{
    QImage image(480, 300, QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.fillRect(40, 40, 200, 220, color);
    return image;
}

} // namespace

class TestReport : public QObject
{
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase();
    void htmlHasEverythingAReaderNeeds();
    void htmlListsFailuresWithTheirFix();
    void writesEveryFormat();
    void unwritableFolderFailsCleanly();
    void compileSectionHasColdAndWarmBreakEven();
    void h200ReportsReadAsSent();
    void printTextBreaksOnlyBetweenWords();
    void pdfKeepsRowsAndHeadingsTogether();
    void pdfHoldsEveryChartOfTheHtml();
    void storedSweepReportRefusesWhatItCannotWrite();

  private:
    QTemporaryDir dir_;
    ui::ReportInput input_;
};

void TestReport::initTestCase()
{
    QVERIFY(dir_.isValid());
    // Opening may add -wal/-shm files: work on a copy, never on the file in docs/.
    const QString copy = dir_.filePath(QStringLiteral("h200.sqlite"));
    QVERIFY(QFile::copy(QStringLiteral(STEPSCOPE_SOURCE_DIR "/docs/results/h200-ledger.sqlite"), copy));
    QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);
    const auto reader = store::Reader::open(copy.toStdString());
    const auto sweeps = reader->sweeps();
    QVERIFY(!sweeps.empty());
    // The file holds the batch-32 and the batch-128 sweep; the figures below are batch 32's.
    const auto b32 =
        std::find_if(sweeps.begin(), sweeps.end(), [](const auto &s) { return s.name == "H200 ledger b32"; });
    QVERIFY(b32 != sweeps.end());
    input_.ledger = report::buildLedger(*reader, b32->id);
    QCOMPARE(input_.ledger.rows.size(), std::size_t(7));
    input_.environmentJson = QString::fromStdString(input_.ledger.environmentJson);
    input_.charts = {{QStringLiteral("Steady state per configuration"), chartImage(Qt::darkBlue)},
                     {QStringLiteral("Break-even"), chartImage(Qt::darkGreen)}};
    input_.generated = QDateTime(QDate(2026, 11, 30), QTime(12, 0), Qt::UTC);
}

void TestReport::htmlHasEverythingAReaderNeeds()
{
    const QString html = ui::toHtml(input_);
    QVERIFY(html.startsWith(QStringLiteral("<!DOCTYPE html>")));
    QVERIFY(html.contains(QStringLiteral("H200 ledger b32")));
    QVERIFY(html.contains(QStringLiteral("2026-11-30")));
    QVERIFY(html.contains(QStringLiteral("NVIDIA H200")));
    QVERIFY(html.contains(QStringLiteral("2.11.0")));
    QVERIFY(html.contains(QStringLiteral("9.19.0")));
    QVERIFY(html.contains(QStringLiteral("13.0.0")));
    QVERIFY(html.contains(QStringLiteral("224x224")));
    QVERIFY(html.contains(QStringLiteral("<td>32</td>")));
    for (const auto &row : input_.ledger.rows) {
        QVERIFY2(html.contains(QStringLiteral(">%1<").arg(QString::fromStdString(row.label))), row.label.c_str());
        QVERIFY(row.steadyMs);
        const QString steady = QString::number(*row.steadyMs, 'f', 2) + QStringLiteral(" ms");
        QVERIFY2(html.contains(steady), qPrintable(steady));
    }
    QVERIFY(html.contains(QStringLiteral("7.37 ms"))); // bf16, as in docs/results/h200-ledger.md
    const QString recommendation = QString::fromStdString(input_.ledger.recommendationText);
    QVERIFY(!recommendation.isEmpty());
    QVERIFY2(html.contains(recommendation.toHtmlEscaped()), qPrintable(recommendation));
    QVERIFY(html.contains(QStringLiteral("class=\"recommendation\"")));
    // The shared CUDA cache skews first steps: the report says so, with the fix.
    QVERIFY(html.contains(QStringLiteral("fresh CUDA cache")));

    // One embedded PNG per chart, and it decodes to the chart.
    const QString marker = QStringLiteral("<img src=\"data:image/png;base64,");
    QCOMPARE(html.count(marker), int(input_.charts.size()));
    const qsizetype start = html.indexOf(marker) + marker.size();
    const QByteArray base64 = html.mid(start, html.indexOf(QLatin1Char('"'), start) - start).toLatin1();
    const QImage decoded = QImage::fromData(QByteArray::fromBase64(base64), "PNG");
    QCOMPARE(decoded.size(), input_.charts.front().second.size());
    // Charts stay within the text column whatever their pixel size; the ledger comes as two tables
    // (times, and against the baseline) that fit a page.
    QVERIFY(html.contains(QStringLiteral("img { max-width: 100%; height: auto; }")));
    QVERIFY(html.contains(QStringLiteral("<h3>Time per configuration</h3>")));
    QVERIFY(html.contains(QStringLiteral("<h3>Against the baseline (first row)</h3>")));
    // Self-contained: no external resource of any kind.
    QVERIFY(!html.contains(QStringLiteral("src=\"http")));
    QVERIFY(!html.contains(QStringLiteral("<link")));
}

void TestReport::htmlListsFailuresWithTheirFix()
{
    ui::ReportInput input = input_;
    auto &row = input.ledger.rows.back();
    row.failureCategory = "graph-capture-failed";
    row.failureMessage = "operation not permitted when stream is capturing <cudaStreamCaptureStatus>";
    row.repeats = 3;
    row.completed = 2;
    const QString html = ui::toHtml(input);
    QVERIFY(html.contains(QStringLiteral("graph-capture-failed")));
    QVERIFY(html.contains(QStringLiteral("&lt;cudaStreamCaptureStatus&gt;")));
    const auto fix = fixFor(FailureCategory::GraphCaptureFailed);
    QVERIFY(html.contains(QString::fromUtf8(fix.data(), int(fix.size())).toHtmlEscaped()));

    // The measured ledger has no failed run, but its launch-bound bf16 row moved 7.16-9.54 ms
    // between cold processes: flagged, not hidden.
    const QString measured = ui::toHtml(input_);
    QVERIFY(!measured.contains(QStringLiteral("graph-capture-failed")));
    QVERIFY(measured.contains(QStringLiteral("unreliable")));
}

void TestReport::writesEveryFormat()
{
    QString error;
    const QString html = dir_.filePath(QStringLiteral("report.html"));
    QVERIFY2(ui::writeHtml(input_, html, &error), qPrintable(error));
    QCOMPARE(QString::fromUtf8(readAll(html)), ui::toHtml(input_));

    const QString pdf = dir_.filePath(QStringLiteral("report.pdf"));
    QVERIFY2(ui::writePdf(input_, pdf, &error), qPrintable(error));
    const QByteArray pdfBytes = readAll(pdf);
    QVERIFY(pdfBytes.startsWith("%PDF-"));
    QVERIFY(pdfBytes.trimmed().endsWith("%%EOF"));
    // The charts made it in as images (QTextDocument resources, not data: URIs it cannot load).
    QCOMPARE(pdfImages(pdfBytes), int(input_.charts.size()));

    const QString md = dir_.filePath(QStringLiteral("report.md"));
    QVERIFY2(ui::writeMarkdown(input_, md, &error), qPrintable(error));
    const QString markdown = QString::fromUtf8(readAll(md));
    QVERIFY(markdown.startsWith(QString::fromStdString(report::toMarkdown(input_.ledger))));
    QVERIFY(markdown.contains(QStringLiteral("### Environment")));
    QVERIFY(markdown.contains(QStringLiteral("| GPU | NVIDIA H200 |")));
    QVERIFY(markdown.contains(QStringLiteral("fresh CUDA cache")));
    QCOMPARE(markdown, ui::toMarkdown(input_));

    const QString csv = dir_.filePath(QStringLiteral("report.csv"));
    QVERIFY2(ui::writeCsv(input_, csv, &error), qPrintable(error));
    QCOMPARE(readAll(csv), QByteArray::fromStdString(report::toCsv(input_.ledger)));

    // Writing again replaces the file whole.
    QVERIFY(ui::writeCsv(input_, csv, &error));
    QCOMPARE(readAll(csv), QByteArray::fromStdString(report::toCsv(input_.ledger)));
}

void TestReport::unwritableFolderFailsCleanly()
{
    const QStringList before = QDir(dir_.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden);
    const QString missing = dir_.filePath(QStringLiteral("no-such-folder"));
    using Writer = bool (*)(const ui::ReportInput &, const QString &, QString *);
    const QList<QPair<const char *, Writer>> writers{{"report.html", &ui::writeHtml},
                                                     {"report.pdf", &ui::writePdf},
                                                     {"report.md", &ui::writeMarkdown},
                                                     {"report.csv", &ui::writeCsv}};
    for (const auto &[name, write] : writers) {
        const QString path = missing + QLatin1Char('/') + QLatin1String(name);
        QString error;
        QVERIFY2(!write(input_, path, &error), name);
        QVERIFY2(error.contains(QDir::toNativeSeparators(path)), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("disk may be full")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("not be writable")), qPrintable(error));
        QVERIFY(!write(input_, path, nullptr)); // no error pointer: still fails, no crash
    }
    QVERIFY(!QFileInfo::exists(missing));
    QCOMPARE(QDir(dir_.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden), before);

    QString error;
    QVERIFY(!ui::writeHtml(input_, QString(), &error));
    QVERIFY(!error.isEmpty());
}

void TestReport::compileSectionHasColdAndWarmBreakEven()
{
    const std::string path = dir_.filePath(QStringLiteral("compile.sqlite")).toStdString();
    std::int64_t sweepId = 0;
    {
        auto db = store::Database::open(path);
        sweepId = test::writeCompileSweep(*db);
    }
    // STEPSCOPE_KEEP_COMPILE_DB=FILE keeps a copy, to look at it in the dashboard
    // (stepscope --db FILE --sweep 1 --screenshots DIR).
    if (const QString keep = qEnvironmentVariable("STEPSCOPE_KEEP_COMPILE_DB"); !keep.isEmpty()) {
        QFile::remove(keep);
        QFile::copy(QString::fromStdString(path), keep);
    }
    const auto reader = store::Reader::open(path);
    ui::ReportInput input;
    input.ledger = report::buildLedger(*reader, sweepId);
    // The fresh and again runs of compile default are one row.
    QCOMPARE(input.ledger.rows.size(), std::size_t(4));
    input.compile = report::compileReportRows(*reader, input.ledger);
    QCOMPARE(input.compile.size(), std::size_t(2)); // compile default, and the one that fell back to eager
    const auto &cold = input.compile[0];
    QCOMPARE(cold.cache, QString("fresh"));
    QCOMPARE(cold.runs, 2);
    QVERIFY(cold.record.compileS && *cold.record.compileS == 28.5);
    QCOMPARE(input.compile[1].notCompiled, 1);
    // The again ledger of the same sweep: the again first step leads.
    const report::Ledger againLedger = report::buildLedger(*reader, sweepId, 0, {}, store::StartState::Again);
    const auto againRows = report::compileReportRows(*reader, againLedger);
    QCOMPARE(againRows.size(), std::size_t(2));
    const auto &warm = againRows[0];
    QCOMPARE(warm.cache, QString("again"));

    // Break-even against the baseline (row 0): 1 + (30 - 0.5) / (0.010 - 0.008) and 1 + 2.5 / 0.002.
    const auto &coldRow = input.ledger.rows[cold.ledgerRow];
    QVERIFY(coldRow.breakEvenSteps && std::abs(*coldRow.breakEvenSteps - 14751) < 1);
    QVERIFY(coldRow.again.breakEvenSteps && std::abs(*coldRow.again.breakEvenSteps - 1251) < 1);
    const auto &warmRow = againLedger.rows[warm.ledgerRow];
    QVERIFY(warmRow.breakEvenSteps && std::abs(*warmRow.breakEvenSteps - 1251) < 1);
    // Against Python eager (first 0.6 s, 10.5 ms): 1 + 29.4 / 0.0025 and 1 + 2.4 / 0.0025.
    QVERIFY(cold.vsEager.measured && cold.vsEager.steps && std::abs(*cold.vsEager.steps - 11761) < 1);
    QVERIFY(warm.vsEager.measured && warm.vsEager.steps && std::abs(*warm.vsEager.steps - 961) < 1);

    const QString html = ui::toHtml(input);
    QVERIFY(html.contains(QStringLiteral("<h2>torch.compile</h2>")));
    const QStringList headlines = report::compileHeadlines(input.compile, input.ledger);
    QCOMPARE(headlines.size(), 2); // compile-default (fresh and again), max-autotune-no-cudagraphs
    const QString coldText = QStringLiteral("fresh pays off after %1 steps, beyond the planned %2")
                                 .arg(ui::formatStepCount(*coldRow.breakEvenSteps), ui::formatStepCount(10000));
    const QString warmText =
        QStringLiteral("again pays off after %1 steps").arg(ui::formatStepCount(*warmRow.breakEvenSteps));
    QVERIFY2(headlines[0].contains(coldText), qPrintable(headlines[0]));
    QVERIFY2(headlines[0].contains(warmText), qPrintable(headlines[0]));
    QVERIFY2(headlines[0].startsWith(QStringLiteral("python compile-default against baseline")),
             qPrintable(headlines[0]));
    for (const QString &line : headlines)
        QVERIFY2(html.contains(line.toHtmlEscaped()), qPrintable(line));
    QVERIFY(headlines[1].contains(QStringLiteral("NOT compiled: ") + test::kNotCompiledReason));
    // The table: compile time, phases, graphs and breaks, and the reason of the break.
    for (const char *want : {"28.50 s", "dynamo tracing 2.25 s", "inductor backward 12.75 s", "1 graph, 1 graph break",
                             "Unsupported: call_function print"})
        QVERIFY2(html.contains(QLatin1String(want)), want);
    // One process a state: the figure, and that it has no interval.
    QVERIFY(html.contains(QStringLiteral(">%1 (n=1, no CI)<").arg(ui::formatStepCount(*cold.vsEager.steps))));

    // Markdown carries the same findings; a ledger without compile has no section at all.
    QVERIFY(ui::toMarkdown(input).contains(QStringLiteral("### torch.compile")));
    QVERIFY(ui::toMarkdown(input).contains(warmText));
    QVERIFY(!ui::toHtml(input_).contains(QStringLiteral("<h2>torch.compile</h2>")));
}

// The reports of the H200 sweeps as a reader gets them, with the charts the export draws.
// STEPSCOPE_KEEP_REPORTS=DIR keeps them there (render the pages with `pdftoppm -png -r 60`).
void TestReport::h200ReportsReadAsSent()
{
    struct Source {
        const char *file;
        std::int64_t sweep;
        const char *name;
    };
    const Source sources[] = {{"h200-ledger.sqlite", 1, "h200-ledger-b32"},
                              {"h200-ledger.sqlite", 2, "h200-ledger-b128"},
                              {"h200-compile-b32.sqlite", 1, "h200-compile-b32"},
                              {"h200-aa.sqlite", 1, "h200-aa"}};
    const QString keep = qEnvironmentVariable("STEPSCOPE_KEEP_REPORTS");
    for (const Source &source : sources) {
        const QString copy = dir_.filePath(QStringLiteral("src-%1").arg(QLatin1String(source.file)));
        if (!QFileInfo::exists(copy)) {
            QVERIFY(
                QFile::copy(QStringLiteral(STEPSCOPE_SOURCE_DIR "/docs/results/") + QLatin1String(source.file), copy));
            QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);
        }
        const auto reader = store::Reader::open(copy.toStdString());
        ui::ReportInput input;
        input.ledger = report::buildLedger(*reader, source.sweep);
        QVERIFY(!input.ledger.rows.empty());
        input.compile = report::compileReportRows(*reader, input.ledger);
        input.charts = ui::renderReportCharts(input.ledger);
        input.generated = QDateTime(QDate(2026, 12, 1), QTime(12, 0), Qt::UTC);
        QCOMPARE(input.charts.size(), 3);

        const auto document = ui::reportDocument(input);
        const QString base = (keep.isEmpty() ? dir_.path() : keep) + QLatin1Char('/') + QLatin1String(source.name);
        QString error;
        QVERIFY2(ui::writePdf(input, base + QStringLiteral(".pdf"), &error), qPrintable(error));
        QVERIFY2(ui::writeHtml(input, base + QStringLiteral(".html"), &error), qPrintable(error));
        if (!keep.isEmpty())
            for (int i = 0; i < input.charts.size(); ++i)
                input.charts[i].second.save(base + QStringLiteral("-chart%1.png").arg(i));
        const QByteArray pdf = readAll(base + QStringLiteral(".pdf"));
        // Every page A4 portrait (595 x 842 pt), as many as the layout has.
        const QRegularExpression mediaBox(QStringLiteral("/MediaBox \\[0 0 ([0-9.]+) ([0-9.]+)\\]"));
        int pages = 0;
        for (auto it = mediaBox.globalMatch(QString::fromLatin1(pdf)); it.hasNext(); ++pages) {
            const auto m = it.next();
            QVERIFY2(std::abs(m.captured(1).toDouble() - 595.3) < 1 && std::abs(m.captured(2).toDouble() - 841.9) < 1,
                     qPrintable(m.captured(0)));
        }
        QCOMPARE(pages, document->pageCount());

        // Laid out as the PDF is: no word broken, no row on two pages, no heading apart from
        // what it heads, nothing wider than the page.
        const ui::ReportLayoutFaults faults = ui::reportLayoutFaults(*document);
        const QString where = QLatin1String(source.name) + QStringLiteral(": ");
        QVERIFY2(faults.brokenWords.isEmpty(), qPrintable(where + faults.brokenWords.join(QLatin1Char('\n'))));
        QVERIFY2(faults.splitRows.isEmpty(), qPrintable(where + faults.splitRows.join(QLatin1Char('\n'))));
        QVERIFY2(faults.strandedHeadings.isEmpty(),
                 qPrintable(where + faults.strandedHeadings.join(QLatin1Char('\n'))));
        QVERIFY2(faults.overflows.isEmpty(), qPrintable(where + faults.overflows.join(QLatin1Char('\n'))));
        QVERIFY2(faults.dropped.isEmpty(), qPrintable(where + faults.dropped.join(QLatin1Char('\n'))));
        QCOMPARE(pdfImages(pdf), 3);
        // Portrait, and the text column is the page's: no content squeezed into part of it.
        QVERIFY(document->pageSize().height() > document->pageSize().width());
        QVERIFY(document->pageCount() >= 2);
    }
}

void TestReport::printTextBreaksOnlyBetweenWords()
{
    using ui::ReportMedium;
    QCOMPARE(ui::tableText(QStringLiteral("tf32+cudnn-bench"), ReportMedium::Browser),
             QStringLiteral("tf32+cudnn-bench"));
    QCOMPARE(ui::tableText(QStringLiteral("tf32+cudnn-bench"), ReportMedium::Print),
             QStringLiteral("tf32+\u200Bcudnn\u2011bench"));
    // A minus sign or a dash between words is left alone.
    QCOMPARE(ui::tableText(QStringLiteral("-0.74 s - 1.29 s"), ReportMedium::Print),
             QStringLiteral("-0.74 s - 1.29 s"));

    // The ledger of many long configurations in the page's column: every cell wraps between
    // words or knobs, none inside one (Qt's fallback for a too wide table breaks anywhere).
    ui::ReportInput input = input_;
    input.charts.clear();
    for (auto &row : input.ledger.rows)
        row.label = "python " + row.label + "+channels-last+compile-reduce-overhead+warm-cache";
    const auto document = ui::reportDocument(input);
    const auto faults = ui::reportLayoutFaults(*document);
    QVERIFY2(faults.brokenWords.isEmpty(), qPrintable(faults.brokenWords.join(QLatin1Char('\n'))));
    QVERIFY2(faults.overflows.isEmpty(), qPrintable(faults.overflows.join(QLatin1Char('\n'))));
    // And the check sees a broken word where there is one: a word wider than a narrow page.
    QTextDocument narrow;
    narrow.setPageSize(QSizeF(60, 400));
    narrow.setHtml(
        QStringLiteral("<table border=\"1\"><tr><td>baseline</td><td>tf32+cudnn-benchmark</td></tr></table>"));
    QVERIFY(!ui::reportLayoutFaults(narrow).brokenWords.isEmpty());
}

void TestReport::pdfKeepsRowsAndHeadingsTogether()
{
    // A ledger long enough to run over pages, with charts: rows and headings land at page ends.
    ui::ReportInput input = input_;
    const auto rows = input.ledger.rows;
    for (int copy = 0; copy < 12; ++copy)
        for (auto row : rows) {
            row.label += "+repeat-" + std::to_string(copy);
            input.ledger.rows.push_back(row);
        }
    input.charts = ui::renderReportCharts(input_.ledger);
    const auto document = ui::reportDocument(input);
    QVERIFY(document->pageCount() >= 4);
    const auto faults = ui::reportLayoutFaults(*document);
    QVERIFY2(faults.splitRows.isEmpty(), qPrintable(faults.splitRows.join(QLatin1Char('\n'))));
    QVERIFY2(faults.strandedHeadings.isEmpty(), qPrintable(faults.strandedHeadings.join(QLatin1Char('\n'))));

    // Without the pagination pass the same document has such faults: the check is not idle.
    QTextDocument plain;
    plain.setPageSize(document->pageSize());
    for (int i = 0; i < input.charts.size(); ++i)
        plain.addResource(QTextDocument::ImageResource, QUrl(ui::chartResourceName(i)), input.charts[i].second);
    plain.setHtml(ui::reportHtml(input, ui::ReportMedium::Print, int(document->pageSize().width()) - 8));
    const auto before = ui::reportLayoutFaults(plain);
    QVERIFY(!before.splitRows.isEmpty() || !before.strandedHeadings.isEmpty());
}

// The PDF holds what the HTML holds, charts included, for every sweep of the caches file: the
// longest reports, whose charts the PDF lost (the layout forgot what it had not laid out yet when
// the pagination changed the document; report_document.cpp, layOutWhole). Written by the path of
// `stepscope --report`, which draws the charts as File › Export report does.
void TestReport::pdfHoldsEveryChartOfTheHtml()
{
    const QString copy = dir_.filePath(QStringLiteral("caches.sqlite"));
    QVERIFY(QFile::copy(QStringLiteral(STEPSCOPE_SOURCE_DIR "/docs/results/h200-caches.sqlite"), copy));
    QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);
    const auto reader = store::Reader::open(copy.toStdString());
    const auto sweeps = reader->sweeps();
    QCOMPARE(sweeps.size(), std::size_t(4));
    for (const auto &sweep : sweeps) {
        const QString base = dir_.filePath(QStringLiteral("caches-%1").arg(sweep.id));
        QString error;
        qint64 reported = 0;
        QVERIFY2(ui::writeStoredSweepReport(copy, sweep.id, base + QStringLiteral(".pdf"), &error, &reported),
                 qPrintable(error));
        QCOMPARE(reported, sweep.id);
        QVERIFY2(ui::writeStoredSweepReport(copy, sweep.id, base + QStringLiteral(".html"), &error), qPrintable(error));
        const QString html = QString::fromUtf8(readAll(base + QStringLiteral(".html")));
        const int charts = int(html.count(QStringLiteral("<img src=\"data:image/png;base64,")));
        QCOMPARE(charts, 3);
        const QByteArray pdf = readAll(base + QStringLiteral(".pdf"));
        QVERIFY(pdf.startsWith("%PDF-"));
        QVERIFY2(pdfImages(pdf) == charts,
                 qPrintable(QStringLiteral("sweep %1: %2 images in the PDF, %3 charts in the HTML")
                                .arg(sweep.id)
                                .arg(pdfImages(pdf))
                                .arg(charts)));

        // And nothing else of the document is left out of the pages either.
        ui::ReportInput input = ui::reportInputOf(report::buildLedger(*reader, sweep.id));
        input.charts = ui::renderReportCharts(input.ledger);
        const auto faults = ui::reportLayoutFaults(*ui::reportDocument(input));
        QVERIFY2(faults.dropped.isEmpty(), qPrintable(faults.dropped.join(QLatin1Char('\n'))));
    }

    // The check sees what the layout forgot: a page break set after a look at the 30th paragraph
    // (laid out that far) while the rest still waits for its lazy layout, as the pagination did.
    QTextDocument forgetful;
    forgetful.setPageSize(QSizeF(400, 300));
    QString html;
    for (int i = 0; i < 400; ++i)
        html += QStringLiteral("<p>paragraph %1 of a long report</p>").arg(i);
    forgetful.setHtml(html);
    QTextBlock looked = forgetful.begin();
    for (int i = 0; i < 30; ++i)
        looked = looked.next();
    forgetful.documentLayout()->blockBoundingRect(looked);
    QTextCursor second(forgetful.begin().next());
    QTextBlockFormat format = second.blockFormat();
    format.setPageBreakPolicy(QTextFormat::PageBreak_AlwaysBefore);
    second.setBlockFormat(format);
    QVERIFY(!ui::reportLayoutFaults(forgetful).dropped.isEmpty());
}

// What `stepscope --report` refuses, with words that say what to do, leaving no file behind.
void TestReport::storedSweepReportRefusesWhatItCannotWrite()
{
    const QString copy = dir_.filePath(QStringLiteral("refusals.sqlite"));
    QVERIFY(QFile::copy(QStringLiteral(STEPSCOPE_SOURCE_DIR "/docs/results/h200-ledger.sqlite"), copy));
    QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);
    const QByteArray database = readAll(copy);
    QString error;
    QVERIFY(!ui::writeStoredSweepReport(copy, 99, dir_.filePath(QStringLiteral("r.pdf")), &error));
    QVERIFY2(error.contains(QStringLiteral("no sweep 99")) && error.contains(QStringLiteral("list")),
             qPrintable(error));
    QVERIFY(!ui::writeStoredSweepReport(copy, 1, dir_.filePath(QStringLiteral("r.txt")), &error));
    QVERIFY2(error.contains(QStringLiteral("use .html, .pdf, .md or .csv")), qPrintable(error));
    // Onto the database itself, or its side files, under any suffix.
    for (const QString &target : {copy, copy + QStringLiteral("-wal")}) {
        QVERIFY(!ui::writeStoredSweepReport(copy, 1, target, &error));
        QVERIFY2(error.contains(QStringLiteral("would destroy the measurements")), qPrintable(error));
    }
    QVERIFY(!ui::writeStoredSweepReport(copy, 1, dir_.filePath(QStringLiteral("no-such-folder/r.pdf")), &error));
    QVERIFY2(error.contains(QStringLiteral("not be writable")), qPrintable(error));
    QVERIFY(!ui::writeStoredSweepReport(dir_.filePath(QStringLiteral("missing.sqlite")), 0,
                                        dir_.filePath(QStringLiteral("r.pdf")), &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(!QFileInfo::exists(dir_.filePath(QStringLiteral("r.pdf"))));
    QVERIFY(!QFileInfo::exists(dir_.filePath(QStringLiteral("missing.sqlite"))));
    QCOMPARE(readAll(copy), database);
    // Without a sweep number: the latest.
    qint64 reported = 0;
    QVERIFY2(ui::writeStoredSweepReport(copy, 0, dir_.filePath(QStringLiteral("r.csv")), &error, &reported),
             qPrintable(error));
    QCOMPARE(reported, store::Reader::open(copy.toStdString())->sweeps().front().id);
    QCOMPARE(readAll(copy), database);
}

QTEST_MAIN(TestReport)
#include "test_report.moc"
