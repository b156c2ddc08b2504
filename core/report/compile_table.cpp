#include "report/compile_table.h"

#include "report/number_text.h"

#include <QCoreApplication>

#include <cmath>

namespace stepscope::report
{
namespace
{

QString tr(const char *text)
{
    return QCoreApplication::translate("Report", text);
}

QString stepCount(double n)
{
    return std::isfinite(n) ? QString::fromStdString(groupThousands(std::llround(n))) : QStringLiteral("never");
}

// The configuration's name in a finding (older files named a warm-compile row "+warm-cache").
QString pairName(const QString &label)
{
    QString name = label;
    name.remove(QStringLiteral("+warm-cache"));
    return name;
}

// What a ledger row's break-even against the baseline says, as the end of a sentence.
QString payoff(const LedgerRow &row, qint64 planned)
{
    if (!row.steadyMs || !row.firstStepMs) {
        if (!row.failureCategory.empty())
            return tr("has no figure (%1)").arg(QString::fromStdString(statusText(row)));
        return tr("has no figure (no steady state)");
    }
    if (!row.speedup)
        return tr("has no figure (the baseline has none)");
    if (!row.breakEvenSteps)
        return tr("never pays off (its steps are not faster)");
    if (*row.breakEvenSteps <= 1)
        return tr("is ahead from the first step");
    QString text = tr("pays off after %1 steps").arg(stepCount(*row.breakEvenSteps));
    if (planned > 0 && *row.breakEvenSteps > double(planned))
        text += tr(", beyond the planned %1").arg(stepCount(double(planned)));
    return text;
}

} // namespace

QString compileSecondsCell(const std::optional<double> &s)
{
    return s ? QString::fromStdString(formatSeconds(*s)) : QStringLiteral("-");
}

QString compileCountsCell(const CompileRecord &r)
{
    const QString counts = compileCountsText(r);
    return counts.isEmpty() ? QStringLiteral("-") : counts;
}

QString compileVsEagerCell(const CompileReportRow &r)
{
    return QString::fromStdString(compileBreakEvenText(r.vsEager));
}

QString compileTableNote()
{
    return tr("Start: the start state of the first step shown (fresh: every cache empty, so the first step pays the "
              "whole compile; shipped: the configuration's saved mega-cache bundle loaded; again: the caches a run "
              "of it left on this machine). Break-even: steps after which the slower first step is paid back. vs "
              "Python eager: against the same knobs without compile, when the sweep has that row, with its 95% "
              "interval over cold processes.");
}

std::vector<CompileReportRow> compileReportRows(const store::Reader &reader, const Ledger &ledger)
{
    std::vector<CompileReportRow> out;
    const auto runs = reader.runs(ledger.sweep.id);
    // The compiled rows, each with its break-even against eager: the figures core/report computes.
    for (const CompileBreakEven &vsEager : compileBreakEvens(ledger)) {
        const LedgerRow &row = ledger.rows[vsEager.row];
        const RunConfig c = storedConfig(row.configJson);
        CompileReportRow r;
        r.ledgerRow = vsEager.row;
        r.vsEager = vsEager;
        r.label = QString::fromStdString(row.label);
        r.cache = QString::fromUtf8(store::toString(row.firstStepStart).data());
        r.pairKey = QString::fromStdString(canonicalName(c));
        bool fromComplete = false;
        for (const auto &run : runs) {
            if (rowNameOf(run.configName) != row.configName)
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

QStringList compileHeadlines(const std::vector<CompileReportRow> &rows, const Ledger &ledger)
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
        const LedgerRow &row = ledger.rows[r.ledgerRow];
        QStringList parts;
        if (r.notCompiled == r.runs && r.runs > 0) {
            parts << r.notCompiledText;
        } else if (r.ledgerRow == 0) {
            parts << tr("is the reference");
        } else {
            for (const store::StartState s : store::kStartStates) {
                const LedgerRow::StartFigures &f = row.figuresOf(s);
                if (!f.firstStepMs)
                    continue;
                LedgerRow asStarted = row;
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

QString compileReportMarkdown(const std::vector<CompileReportRow> &rows, const Ledger &ledger)
{
    if (rows.empty())
        return {};
    const auto cell = [](QString s) { return s.replace(QLatin1Char('|'), QLatin1String("\\|")); };
    QString md = QStringLiteral("\n### torch.compile\n\n");
    for (const QString &line : compileHeadlines(rows, ledger))
        md += QStringLiteral("- **%1**\n").arg(line);
    md += QStringLiteral("\n| configuration | start | first step | compile | phases | graphs | break-even vs "
                         "baseline | vs Python eager [95% CI] |\n|---|---|---|---|---|---|---|---|\n");
    for (const auto &r : rows) {
        const LedgerRow &row = ledger.rows[r.ledgerRow];
        const std::optional<double> compileS = row.compileMs ? msToSeconds(row.compileMs) : r.record.compileS;
        md += QStringLiteral("| %1 | %2 | %3 | %4 | %5 | %6 | %7 | %8 |\n")
                  .arg(cell(r.label), r.cache, compileSecondsCell(msToSeconds(row.firstStepMs)), compileSecondsCell(compileS),
                       cell(compilePhasesText(r.record)), compileCountsCell(r.record),
                       QString::fromStdString(breakEvenText(row)), compileVsEagerCell(r));
    }
    for (const auto &r : rows)
        if (r.notCompiled > 0)
            md += QStringLiteral("\n- %1: %2\n").arg(cell(r.label), cell(r.notCompiledText));
    return md;
}

} // namespace stepscope::report
