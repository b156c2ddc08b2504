#include "report/compile_report.h"

#include "charts/chart_format.h"
#include "models/run_detail.h"
#include "report/report_html.h"

#include <QCoreApplication>

namespace stepscope::ui
{
namespace
{

QString tr(const char *text)
{
    return QCoreApplication::translate("Report", text);
}

QString esc(const QString &s)
{
    return s.toHtmlEscaped();
}

QString seconds(const std::optional<double> &s)
{
    return s ? formatSecondsLabel(*s) : QStringLiteral("-");
}

QString phasesText(const CompileRecord &r)
{
    QStringList parts;
    for (const auto &[key, s] : r.phases)
        parts << QStringLiteral("%1 %2").arg(compilePhaseName(key), formatSecondsLabel(s));
    return parts.join(QStringLiteral(", "));
}

// The configuration a cold/warm pair is named by: its label without the cache modifier.
QString pairName(const QString &label)
{
    QString name = label;
    name.remove(QStringLiteral("+warm-cache"));
    return name;
}

// What a ledger row's break-even against the baseline says, as the end of a sentence.
QString payoff(const report::LedgerRow &row, qint64 planned)
{
    if (!row.steadyMs || !row.firstStepMs) {
        if (!row.failureCategory.empty())
            return tr("has no figure (%1)").arg(QString::fromStdString(report::statusText(row)));
        return tr("has no figure (no steady state)");
    }
    if (!row.speedup)
        return tr("has no figure (the baseline has none)");
    if (!row.breakEvenSteps)
        return tr("never pays off (its steps are not faster)");
    if (*row.breakEvenSteps <= 1)
        return tr("is ahead from the first step");
    QString text = tr("pays off after %1 steps").arg(formatStepCount(*row.breakEvenSteps));
    if (planned > 0 && *row.breakEvenSteps > double(planned))
        text += tr(", beyond the planned %1").arg(formatStepCount(double(planned)));
    return text;
}

QString vsEager(const CompileReportRow &r)
{
    return QString::fromStdString(report::compileBreakEvenText(r.vsEager));
}

QString countsOrDash(const CompileRecord &r)
{
    const QString counts = compileCountsText(r);
    return counts.isEmpty() ? QStringLiteral("-") : counts;
}

} // namespace

std::vector<CompileReportRow> compileReportRows(const store::Reader &reader, const report::Ledger &ledger)
{
    std::vector<CompileReportRow> out;
    const auto runs = reader.runs(ledger.sweep.id);
    // The compiled rows, each with its break-even against eager: the figures core/report computes.
    for (const report::CompileBreakEven &vsEager : report::compileBreakEvens(ledger)) {
        const report::LedgerRow &row = ledger.rows[vsEager.row];
        const RunConfig c = report::storedConfig(row.configJson);
        CompileReportRow r;
        r.ledgerRow = vsEager.row;
        r.vsEager = vsEager;
        r.label = QString::fromStdString(row.label);
        r.cache = QString::fromUtf8(store::toString(row.firstStepStart).data());
        r.pairKey = QString::fromStdString(canonicalName(c));
        bool fromComplete = false;
        for (const auto &run : runs) {
            if (report::rowNameOf(run.configName) != row.configName)
                continue;
            ++r.runs;
            QString text;
            if (runNotCompiled(run, &text)) {
                if (r.notCompiled++ == 0)
                    r.notCompiledText = text;
            }
            const CompileRecord record = parseCompileRecord(run.compileJson);
            const bool complete = run.status == RunStatus::Complete;
            if (record.present && (!r.record.present || (complete && !fromComplete))) {
                r.record = record;
                fromComplete = complete;
            }
        }
        out.push_back(r);
    }
    return out;
}

QStringList compileHeadlines(const std::vector<CompileReportRow> &rows, const report::Ledger &ledger)
{
    QStringList out;
    if (ledger.rows.empty())
        return out;
    const QString baseline = QString::fromStdString(ledger.rows.front().label);
    if (!rows.empty() && rows.front().ledgerRow == 0)
        out << tr("The sweep's first row, %1, is compiled itself: the break-even figures are against it, not "
                  "against eager PyTorch. A Ledger or Each sweep has an eager baseline.")
                   .arg(baseline);
    for (const auto &r : rows) {
        // One row, a finding per start state it ran (the ledger's state first): a compile that pays
        // off only on a machine that ran it before says so here.
        const report::LedgerRow &row = ledger.rows[r.ledgerRow];
        QStringList parts;
        if (r.notCompiled == r.runs && r.runs > 0) {
            parts << r.notCompiledText;
        } else if (r.ledgerRow == 0) {
            parts << tr("is the reference");
        } else {
            for (const store::StartState s : store::kStartStates) {
                const report::LedgerRow::StartFigures &f = row.figuresOf(s);
                if (!f.firstStepMs)
                    continue;
                report::LedgerRow asStarted = row;
                asStarted.firstStepMs = f.firstStepMs;
                asStarted.breakEvenSteps = f.breakEvenSteps;
                parts << QStringLiteral("%1 %2").arg(QString::fromUtf8(store::toString(s).data()),
                                                     payoff(asStarted, ledger.plannedSteps));
            }
            if (parts.isEmpty())
                parts << payoff(row, ledger.plannedSteps);
        }
        out << tr("%1 against %2: %3.").arg(pairName(r.label), baseline, parts.join(QStringLiteral("; ")));
    }
    return out;
}

QString compileReportHtml(const std::vector<CompileReportRow> &rows, const report::Ledger &ledger, ReportMedium medium,
                          int printTextWidth)
{
    if (rows.empty())
        return {};
    QString html = QStringLiteral("<h2>torch.compile</h2>\n");
    // The findings first, as the recommendation is shown: a one-cell table (the PDF draws only
    // table backgrounds).
    QString findings;
    for (const QString &line : compileHeadlines(rows, ledger))
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
        figures.rows << QStringList{r.label,           r.cache, seconds(report::msToSeconds(row.firstStepMs)),
                                    seconds(compileS), steady,  QString::fromStdString(report::breakEvenText(row)),
                                    vsEager(r)};
        account.rows << QStringList{r.label, r.cache, phasesText(r.record), countsOrDash(r.record)};
        if (failed)
            for (ReportTable *t : {&figures, &account})
                for (int c : {0, 1})
                    t->cellClasses.insert({int(t->rows.size()) - 1, c}, QStringLiteral("failed"));
    }
    html += tableHtml(figures, medium, printTextWidth);
    html += QStringLiteral("<p class=\"note\">%1</p>\n")
                .arg(esc(tr("Cold: fresh inductor and Triton caches, so the first step pays the whole compile. Warm: "
                            "caches kept from a priming run, as a second training run on this machine finds them. "
                            "Break-even: steps after which the slower first step is paid back. vs Python eager: "
                            "against the same knobs without compile, when the sweep has that row, with its 95% "
                            "interval over cold processes.")));
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

QString compileReportMarkdown(const std::vector<CompileReportRow> &rows, const report::Ledger &ledger)
{
    if (rows.empty())
        return {};
    const auto cell = [](QString s) { return s.replace(QLatin1Char('|'), QLatin1String("\\|")); };
    QString md = QStringLiteral("\n### torch.compile\n\n");
    for (const QString &line : compileHeadlines(rows, ledger))
        md += QStringLiteral("- **%1**\n").arg(line);
    md += QStringLiteral("\n| configuration | cache | first step | compile | phases | graphs | break-even vs "
                         "baseline | vs Python eager [95% CI] |\n|---|---|---|---|---|---|---|---|\n");
    for (const auto &r : rows) {
        const report::LedgerRow &row = ledger.rows[r.ledgerRow];
        const std::optional<double> compileS = row.compileMs ? report::msToSeconds(row.compileMs) : r.record.compileS;
        md += QStringLiteral("| %1 | %2 | %3 | %4 | %5 | %6 | %7 | %8 |\n")
                  .arg(cell(r.label), r.cache, seconds(report::msToSeconds(row.firstStepMs)), seconds(compileS),
                       cell(phasesText(r.record)), countsOrDash(r.record),
                       QString::fromStdString(report::breakEvenText(row)), vsEager(r));
    }
    for (const auto &r : rows)
        if (r.notCompiled > 0)
            md += QStringLiteral("\n- %1: %2\n").arg(cell(r.label), cell(r.notCompiledText));
    return md;
}

} // namespace stepscope::ui
