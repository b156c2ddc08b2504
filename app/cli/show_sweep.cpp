// `show --sweep ID`: what core/report makes of a sweep beside its ledger, as the dashboard shows it
// (its compile report and environment view): the compile break-even against eager, and every
// finding about what may skew the numbers, each with its fix.
#include "cli.h"

#include "report/assessment_text.h"
#include "report/sweep_export.h"
#include "report/sweep_status.h"
#include "store/store.h"

#include <cstdio>

namespace stepscope::cli
{
namespace
{

// A sweep's name is the user's text: control characters (a terminal escape) never reach the terminal.
std::string shown(std::string text)
{
    for (char &c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            c = '?';
    return text;
}

// Why a compiled row has no break-even against its eager row.
std::string missingFigure(const report::LedgerRow &row)
{
    if (row.steadyMs && row.firstStepMs)
        return "the eager row has none";
    return row.failureCategory.empty() ? "no steady state" : report::statusText(row);
}

void printCompile(const report::Ledger &ledger, const std::vector<report::CompileBreakEven> &breakEvens)
{
    if (breakEvens.empty())
        return;
    std::printf("\ncompile break-even against eager, in steps (same knobs and runtime, 95%% CI over cold "
                "processes):\n");
    for (const auto &b : breakEvens) {
        const report::LedgerRow &row = ledger.rows[b.row];
        std::printf("  %s (%s cache) ", row.label.c_str(), toString(b.cache).c_str());
        if (!b.eagerRow)
            std::printf("has no eager row with the same knobs in this sweep\n");
        else if (!b.measured)
            std::printf("vs %s: no figure (%s)\n", ledger.rows[*b.eagerRow].label.c_str(), missingFigure(row).c_str());
        else
            std::printf("vs %s: %s\n", ledger.rows[*b.eagerRow].label.c_str(), report::compileBreakEvenText(b).c_str());
    }
}

void printAssessment(const report::SweepAssessment &assessment)
{
    const auto lines = report::assessmentLines(assessment);
    std::printf("\nwhat may skew these numbers:\n");
    bool any = false;
    for (const auto &line : lines) {
        if (line.finding == report::Finding::None)
            continue;
        any = true;
        std::printf("  [%s] %s: %s\n    %s\n", report::severityName(line.severity), line.label.c_str(),
                    line.value.c_str(), line.assessment.c_str());
        if (!line.fix.empty())
            std::printf("    fix: %s\n", line.fix.c_str());
    }
    if (!any)
        std::printf("  nothing the environment record or the runs show\n");
}

} // namespace

void printSweepFigures(const store::Reader &reader, std::int64_t sweepId)
{
    const report::Ledger ledger = report::buildLedger(reader, sweepId);
    const report::SweepFigures figures = report::sweepFigures(reader, ledger);
    std::printf("sweep %lld: %s [%s] %s, %zu configurations\n", static_cast<long long>(sweepId),
                shown(ledger.sweep.name).c_str(), shown(ledger.sweep.preset).c_str(),
                report::sweepStatusText(ledger.sweep, reader.runs(sweepId)).c_str(), ledger.rows.size());
    if (!ledger.recommendationText.empty())
        std::printf("recommendation: %s\n", ledger.recommendationText.c_str());
    printCompile(ledger, figures.compile);
    printAssessment(figures.assessment);
}

} // namespace stepscope::cli
