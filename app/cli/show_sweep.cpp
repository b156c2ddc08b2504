// `show --sweep ID`: what core/report makes of a sweep beside its ledger, as the dashboard shows it
// (its compile report and environment view): the compile break-even against eager, and every
// finding about what may skew the numbers, each with its fix.
#include "cli.h"

#include "report/assessment_text.h"
#include "report/ledger.h"
#include "report/sweep_export.h"
#include "report/sweep_status.h"
#include "store/store.h"
#include "supervisor/max_batch_sweep.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

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
        const std::string_view start = store::toString(b.start);
        std::printf("  %s (%s start) ", row.label.c_str(), start.empty() ? "unrecorded" : std::string(start).c_str());
        if (!b.eagerRow)
            std::printf("has no eager row with the same knobs in this sweep\n");
        else if (!b.measured)
            std::printf("vs %s: no figure (%s)\n", ledger.rows[*b.eagerRow].label.c_str(), missingFigure(row).c_str());
        else
            std::printf("vs %s: %s\n", ledger.rows[*b.eagerRow].label.c_str(), report::compileBreakEvenText(b).c_str());
    }
}

// Issue 21: each data-parallel row's step is its slowest rank's; how it scales against world size 1.
void printDataParallel(const report::Ledger &ledger)
{
    bool header = false;
    for (const auto &row : ledger.rows) {
        if (row.worldSize <= 1)
            continue;
        if (!header) {
            std::printf("\ndata-parallel rows (a step is its slowest rank's; efficiency: the world-size-1 steady step "
                        "over this one, per GPU):\n");
            header = true;
        }
        std::printf("  %s: %d ranks", row.label.c_str(), row.worldSize);
        if (row.steadyMs)
            std::printf(", steady %s", report::formatMs(*row.steadyMs).c_str());
        if (row.scalingEfficiency)
            std::printf(", scaling efficiency %.0f%% against %s", *row.scalingEfficiency * 100,
                        row.scalingReference.c_str());
        else
            std::printf(", no scaling efficiency (%s)", row.scalingReference.empty()
                                                            ? "no world-size-1 row of this configuration in the sweep"
                                                            : "a row without a steady figure");
        if (row.rankSpreadMs)
            std::printf(", slowest minus fastest rank %s", report::formatMs(*row.rankSpreadMs).c_str());
        std::printf("\n");
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

// `path` as a POSIX shell word: as it is when it is plain, else in single quotes.
QString shellQuoted(const QString &path)
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_./:+-]+$"));
    if (plain.match(path).hasMatch())
        return path;
    return QLatin1Char('\'') + QString(path).replace(QLatin1String("'"), QLatin1String("'\\''")) + QLatin1Char('\'');
}

} // namespace

void printSweepFigures(const store::Reader &reader, std::int64_t sweepId, const QString &dbPath)
{
    const report::Ledger ledger = report::buildLedger(reader, sweepId);
    const report::SweepFigures figures = report::sweepFigures(reader, ledger);
    std::printf("sweep %lld: %s [%s] %s, %zu configurations\n", static_cast<long long>(sweepId),
                shown(ledger.sweep.name).c_str(), shown(ledger.sweep.preset).c_str(),
                report::sweepStatusText(ledger.sweep, reader.runs(sweepId)).c_str(), ledger.rows.size());
    if (const std::string models = report::modelsText(ledger.models); !models.empty())
        std::printf("%s: %s\n", ledger.models.size() > 1 ? "models" : "model", shown(models).c_str());
    if (!ledger.recommendationText.empty())
        std::printf("recommendation: %s\n", ledger.recommendationText.c_str());
    // The stored recipe replays the sweep whole (supervisor/sweep_recipe.h); a sweep of before
    // recipes replays its configurations, repeats and start states only, and `run --again` says so.
    const bool recipe = QJsonDocument::fromJson(QByteArray::fromStdString(ledger.sweep.settingsJson))
                            .object()
                            .contains(QLatin1String("recipe"));
    std::printf("run it again: stepscope-cli --db %s run --again %lld%s\n", shellQuoted(dbPath).toUtf8().constData(),
                static_cast<long long>(sweepId), recipe ? "" : "  (recorded before recipes: configurations, repeats and start states only)");
    if (const report::ComputeLines compute = report::computeLines(ledger); !compute.lines.empty()) {
        std::printf("\ncompute per steady step (%s):\n", compute.heading.c_str());
        for (const std::string &line : compute.lines)
            std::printf("  %s\n", shown(line).c_str());
    }
    if (supervisor::isMaxBatchSweep(ledger.sweep))
        std::printf("\n%s", supervisor::maxBatchMarkdown(supervisor::maxBatchSearches(reader, sweepId)).c_str());
    printCompile(ledger, figures.compile);
    printDataParallel(ledger);
    printAssessment(figures.assessment);
}

} // namespace stepscope::cli
