#include "report/compile_report.h"

#include "report/report_text.h"
#include "report/report_html.h"

#include <QCoreApplication>

namespace stepscope::ui
{
namespace
{

using report_text::tr;

using report_text::esc;

} // namespace

QString compileReportHtml(const std::vector<CompileReportRow> &rows, const report::Ledger &ledger, ReportMedium medium,
                          int printTextWidth)
{
    if (rows.empty())
        return {};
    QString html = QStringLiteral("<h2>torch.compile</h2>\n");
    // The findings first, as the recommendation is shown: a one-cell table (the PDF draws only
    // table backgrounds).
    QString findings;
    for (const QString &line : report::compileHeadlines(rows, ledger))
        findings += QStringLiteral("<li>%1</li>\n").arg(esc(tableText(line, medium)));
    html += QStringLiteral("<table class=\"recommendation\" width=\"100%\" cellpadding=\"8\" cellspacing=\"0\" "
                           "border=\"1\" bgcolor=\"#e6f4ea\"><tr><td><b>%1</b><ul>\n%2</ul></td></tr></table>\n")
                .arg(esc(tr("Break-even against the baseline, by start state")), findings);

    // Two tables, figures and the compile's own account: as one they did not fit a portrait page.
    ReportTable figures;
    figures.headers = QStringList{tr("Configuration"),
                                  tr("Start"),
                                  tr("First step"),
                                  tr("Compile"),
                                  tr("Steady state"),
                                  tr("Break-even vs baseline"),
                                  tr("vs Python eager [95% CI]")};
    figures.numeric = {false, false, true, true, true, true, true};
    ReportTable account;
    account.headers = QStringList{tr("Configuration"), tr("Start"), tr("Phases"), tr("Graphs")};
    account.numeric = {false, false, false, false};
    for (const auto &r : rows) {
        const report::LedgerRow &row = ledger.rows[r.ledgerRow];
        const bool failed = r.runs > 0 && r.notCompiled == r.runs;
        const QString steady = row.steadyMs ? QString::number(*row.steadyMs, 'f', 2) + QStringLiteral(" ms") : "-";
        const std::optional<double> compileS = row.compileMs ? report::msToSeconds(row.compileMs) : r.record.compileS;
        figures.rows << QStringList{r.label,           r.cache, report::compileSecondsCell(report::msToSeconds(row.firstStepMs)),
                                    report::compileSecondsCell(compileS), steady,  QString::fromStdString(report::breakEvenText(row)),
                                    report::compileVsEagerCell(r)};
        account.rows << QStringList{r.label, r.cache, report::compilePhasesText(r.record), report::compileCountsCell(r.record)};
        if (failed)
            for (ReportTable *t : {&figures, &account})
                for (int c : {0, 1})
                    t->cellClasses.insert({int(t->rows.size()) - 1, c}, QStringLiteral("failed"));
    }
    html += tableHtml(figures, medium, printTextWidth);
    html += QStringLiteral("<p class=\"note\">%1</p>\n")
                .arg(esc(report::compileTableNote()));
    html += QStringLiteral("<h3>%1</h3>\n").arg(esc(tr("What the compile did")));
    html += tableHtml(account, medium, printTextWidth);
    html += QStringLiteral("<p class=\"note\">%1</p>\n")
                .arg(esc(tr("Compile time and phases as the worker's torch reported them (phases may nest).")));

    QString notes;
    for (const auto &r : rows) {
        if (r.notCompiled > 0)
            notes += QStringLiteral("<li><b>%1</b>: <span class=\"failed\">%2</span> (%3)</li>\n")
                         .arg(esc(r.label), esc(r.notCompiledText),
                              esc(tr("%1 of %2 run(s); left out of the figures").arg(r.notCompiled).arg(r.runs)));
        for (const QString &reason : r.record.breakReasons)
            notes +=
                QStringLiteral("<li><b>%1</b>: %2 %3</li>\n").arg(esc(r.label), esc(tr("graph break:")), esc(reason));
        for (const QString &skip : r.record.cudagraphSkips)
            notes += QStringLiteral("<li><b>%1</b>: <span class=\"warn\">%2 %3</span></li>\n")
                         .arg(esc(r.label), esc(tr("CUDA graphs skipped:")), esc(skip));
    }
    if (!notes.isEmpty())
        html += QStringLiteral("<ul>\n%1</ul>\n").arg(notes);
    return html;
}

} // namespace stepscope::ui
