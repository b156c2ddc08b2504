#include "report/comparison_report.h"

#include "report/report_text.h"
#include "models/comparison_model.h"
#include "models/status_colors.h"
#include "report/environment_pair.h"
#include "report/report_document.h"

#include <QAbstractItemModel>
#include <QCoreApplication>
#include <QTextDocument>

#include <algorithm>

namespace stepscope::ui
{
namespace
{

using report_text::tr;

using report_text::esc;

QString title(const ComparisonReport &r)
{
    return tr("Stepscope comparison: %1 against %2").arg(r.nameB, r.nameA);
}

QString generatedText(const ComparisonReport &r)
{
    const QDateTime when = r.generated.isValid() ? r.generated : QDateTime::currentDateTime();
    return tr("Report generated %1 by Stepscope.").arg(when.toString(QStringLiteral("yyyy-MM-dd HH:mm t")));
}

QString perImageNote()
{
    return tr("The batches differ: every figure is steady time per image (each side's step time divided by its "
              "batch), not per step.");
}

QString markdownCell(QString s)
{
    return s.replace(QLatin1Char('|'), QLatin1String("\\|")).replace(QLatin1Char('\n'), QLatin1Char(' '));
}

QString csvCell(const QString &s)
{
    if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) && !s.contains(QLatin1Char('\n')))
        return s;
    return QLatin1Char('"') + QString(s).replace(QLatin1Char('"'), QLatin1String("\"\"")) + QLatin1Char('"');
}

} // namespace

ReportTable comparisonTable(const QAbstractItemModel &shown)
{
    ReportTable table;
    const int columns = shown.columnCount();
    for (int c = 0; c < columns; ++c) {
        table.headers << shown.headerData(c, Qt::Horizontal).toString();
        table.numeric << (c == ComparisonModel::SteadyA || c == ComparisonModel::SteadyB ||
                          c == ComparisonModel::Ratio);
    }
    for (int r = 0; r < shown.rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < columns; ++c)
            cells << shown.index(r, c).data().toString();
        table.rows << cells;
        const auto outcome = ComparisonModel::Outcome(shown.index(r, 0).data(ComparisonModel::OutcomeRole).toInt());
        table.rowClasses << (outcome == ComparisonModel::Outcome::Faster   ? QStringLiteral("faster")
                             : outcome == ComparisonModel::Outcome::Slower ? QStringLiteral("slower")
                                                                           : QString());
    }
    return table;
}

ReportTable comparisonEnvironmentTable(const std::string &environmentJsonA, const std::string &environmentJsonB)
{
    ReportTable table;
    table.headers << tr("Fact") << QStringLiteral("A") << QStringLiteral("B");
    table.numeric << false << false << false;
    for (const report::EnvironmentPair &e : report::environmentPairs(environmentJsonA, environmentJsonB)) {
        table.rows << QStringList{QString::fromStdString(e.label),
                                  QString::fromStdString(report::environmentValueText(e.valueA, e.recordedA)),
                                  QString::fromStdString(report::environmentValueText(e.valueB, e.recordedB))};
        table.rowClasses << (e.differs() ? QStringLiteral("differs") : QString());
    }
    return table;
}

QString comparisonHtml(const ComparisonReport &r, ReportMedium medium, int printTextWidth)
{
    QString html;
    html += QStringLiteral("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>%1</title>\n<style>\n"
                           "%2\n"
                           "h1 { font-size: 16pt; } h2 { font-size: 13pt; margin-top: 1.2em; }\n"
                           "img { max-width: 100%; height: auto; }\n"
                           "table.ledger { border-collapse: collapse; font-size: 8pt; max-width: 100%; }\n"
                           "table.ledger th, table.ledger td { border: 1px solid #bbb; padding: 2px 4px; }\n"
                           "table.ledger th { background-color: #eee; }\n"
                           "table.ledger tr { page-break-inside: avoid; }\n"
                           "td.num { text-align: right; }\n"
                           ".faster { color: %3; } .slower { color: %4; }\n"
                           ".differences { background-color: #fff4e0; border: 1px solid %5; }\n"
                           "tr.differs td { font-weight: bold; }\n"
                           ".verdict { font-size: 11pt; font-weight: bold; }\n"
                           ".note { color: #555; font-size: 9pt; }\n"
                           "</style></head><body>\n<h1>%1</h1>\n")
                .arg(esc(title(r)),
                     medium == ReportMedium::Browser
                         ? QStringLiteral("body { font-family: sans-serif; font-size: 10pt; max-width: 60em; "
                                          "margin: 1em auto; }")
                         : QStringLiteral("body { font-family: sans-serif; font-size: 9.5pt; }"),
                     successColor().name(), failureColor().name(), warningColor().name());
    html += QStringLiteral("<p><b>A</b>: %1<br><b>B</b>: %2</p>\n").arg(esc(r.nameA), esc(r.nameB));
    if (!r.verdict.isEmpty())
        html += QStringLiteral("<p class=\"verdict\">%1</p>\n").arg(esc(r.verdict));
    if (!r.caption.isEmpty())
        html += QStringLiteral("<p>%1</p>\n").arg(esc(r.caption));
    if (!r.differences.isEmpty()) {
        // A table of one cell: QTextDocument draws a border and a background only around a table.
        html += QStringLiteral("<table class=\"differences\" cellpadding=\"6\" cellspacing=\"0\" width=\"100%\">"
                               "<tr><td><b>%1</b><ul>\n")
                    .arg(esc(tr("A and B did not run alike:")));
        for (const QString &d : r.differences)
            html += QStringLiteral("<li>%1</li>\n").arg(esc(d));
        html += QStringLiteral("</ul>");
        if (r.perImage)
            html += QStringLiteral("<p>%1</p>").arg(esc(perImageNote()));
        html += QStringLiteral("</td></tr></table>\n");
    }
    html += QStringLiteral("<h2>%1</h2>\n").arg(esc(tr("Configurations")));
    html += tableHtml(r.table, medium, printTextWidth);
    html += QStringLiteral("<p class=\"note\">%1</p>\n")
                .arg(esc(tr("Ratios are of steady medians, B over A, with a 95% confidence interval from a bootstrap "
                            "over cold processes; an interval that spans 1 is no significant difference, and one "
                            "process on a side gives no interval.")));
    if (!r.chart.isNull()) {
        const qreal dpr = r.chart.devicePixelRatio() > 0 ? r.chart.devicePixelRatio() : 1.0;
        const int natural = qRound(r.chart.width() / dpr);
        const int width = std::min(natural, medium == ReportMedium::Print && printTextWidth > 0 ? printTextWidth : 900);
        // The browser gets the vector drawing itself; print lays out the image's place, which the
        // PDF then fills with the same vectors (drawChartsAsVectors).
        const QString svg = medium == ReportMedium::Browser ? svgDataUri(r.vectorChart, tr("Chart")) : QString();
        const QString src = medium != ReportMedium::Browser ? chartResourceName(0)
                            : svg.isEmpty() ? QStringLiteral("data:image/png;base64,") + pngBase64(r.chart)
                                            : svg;
        html += QStringLiteral("<div class=\"chart\">\n<h2>%1</h2>\n<p><img src=\"%2\" width=\"%3\" alt=\"%1\"></p>\n"
                               "</div>\n")
                    .arg(esc(tr("Chart")), src, QString::number(width));
    }
    if (!r.environment.rows.isEmpty()) {
        html +=
            QStringLiteral("<h2>%1</h2>\n<p class=\"note\">%2</p>\n")
                .arg(esc(tr("Environments")), esc(tr("What each side ran with; the facts that differ are in bold.")));
        html += tableHtml(r.environment, medium, printTextWidth);
    }
    html += QStringLiteral("<p class=\"note\">%1</p>\n</body></html>\n").arg(esc(generatedText(r)));
    return html;
}

QString comparisonMarkdown(const ComparisonReport &r)
{
    QString md = QStringLiteral("# %1\n\n- **A**: %2\n- **B**: %3\n\n").arg(title(r), r.nameA, r.nameB);
    if (!r.verdict.isEmpty())
        md += QStringLiteral("**%1**\n\n").arg(r.verdict);
    if (!r.caption.isEmpty())
        md += r.caption + QStringLiteral("\n\n");
    if (!r.differences.isEmpty()) {
        md += QStringLiteral("> **%1**\n>\n").arg(tr("A and B did not run alike:"));
        for (const QString &d : r.differences)
            md += QStringLiteral("> - %1\n").arg(d);
        if (r.perImage)
            md += QStringLiteral(">\n> %1\n").arg(perImageNote());
        md += QLatin1Char('\n');
    }
    QStringList header, rule;
    for (int c = 0; c < r.table.headers.size(); ++c) {
        header << markdownCell(r.table.headers[c]);
        rule << (r.table.numeric.value(c) ? QStringLiteral("---:") : QStringLiteral("---"));
    }
    md += QStringLiteral("| %1 |\n|%2|\n").arg(header.join(QStringLiteral(" | ")), rule.join(QLatin1Char('|')));
    for (const QStringList &row : r.table.rows) {
        QStringList cells;
        for (const QString &cell : row)
            cells << markdownCell(cell);
        md += QStringLiteral("| %1 |\n").arg(cells.join(QStringLiteral(" | ")));
    }
    if (!r.environment.rows.isEmpty()) {
        md +=
            QStringLiteral("\n## %1\n\n%2\n\n| %3 | A | B |\n|---|---|---|\n")
                .arg(tr("Environments"), tr("What each side ran with; the facts that differ are in bold."), tr("Fact"));
        for (int i = 0; i < r.environment.rows.size(); ++i) {
            const QStringList &row = r.environment.rows[i];
            const QString mark = r.environment.rowClasses.value(i).isEmpty() ? QString() : QStringLiteral("**");
            md += QStringLiteral("| %1%2%1 | %3 | %4 |\n")
                      .arg(mark, markdownCell(row.value(0)), markdownCell(row.value(1)), markdownCell(row.value(2)));
        }
    }
    md += QStringLiteral("\n%1\n").arg(generatedText(r));
    return md;
}

QString comparisonCsv(const ComparisonReport &r)
{
    // What is compared, and how A and B differ, ahead of the table as comment lines (read_csv's
    // comment='#'), so that a figure never travels without what it is a figure of.
    QString csv = QStringLiteral("# A: %1\n# B: %2\n").arg(r.nameA, r.nameB);
    if (!r.verdict.isEmpty())
        csv += QStringLiteral("# %1\n").arg(r.verdict);
    for (int i = 0; i < r.environment.rows.size(); ++i)
        if (!r.environment.rowClasses.value(i).isEmpty())
            csv += QStringLiteral("# environment differs: %1: A %2, B %3\n")
                       .arg(r.environment.rows[i].value(0), r.environment.rows[i].value(1),
                            r.environment.rows[i].value(2));
    for (const QString &d : r.differences)
        csv += QStringLiteral("# differs: %1\n").arg(d);
    if (r.perImage)
        csv += QStringLiteral("# %1\n").arg(perImageNote());
    QStringList header;
    for (const QString &h : r.table.headers)
        header << csvCell(h);
    csv += header.join(QLatin1Char(',')) + QLatin1Char('\n');
    for (const QStringList &row : r.table.rows) {
        QStringList cells;
        for (const QString &cell : row)
            cells << csvCell(cell);
        csv += cells.join(QLatin1Char(',')) + QLatin1Char('\n');
    }
    return csv;
}

bool writeComparisonReport(const ComparisonReport &report, const QString &path, ReportFormat format, QString *error)
{
    switch (format) {
    case ReportFormat::Html:
        return writeReportText(path, comparisonHtml(report, ReportMedium::Browser), error);
    case ReportFormat::Pdf: {
        const auto document = paginatedDocument(
            [&](int column) { return comparisonHtml(report, ReportMedium::Print, column); }, {report.chart},
            reportPageLayout(), [&](QTextDocument &d) { drawChartsAsVectors(d, {report.vectorChart}); });
        return writePdfDocument(*document, title(report), title(report), path, error);
    }
    case ReportFormat::Markdown:
        return writeReportText(path, comparisonMarkdown(report), error);
    case ReportFormat::Csv:
        return writeReportText(path, comparisonCsv(report), error);
    }
    return false;
}

} // namespace stepscope::ui
