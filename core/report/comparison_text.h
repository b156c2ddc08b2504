#pragma once
// The words of a sweep comparison (sweep_comparison.h): its cells as the dashboard's Compare table
// and `stepscope-cli compare` print them, and the whole comparison as Markdown, JSON and CSV.
#include "report/sweep_comparison.h"

#include <QJsonObject>

#include <optional>
#include <string>

namespace stepscope::report
{

// A steady time as the comparison writes it: three significant digits, small per-image times too.
std::string comparisonNumber(double ms); // "14.12", "0.367"
std::string comparisonMsText(double ms); // "14.12 ms"
// "14.12 ms [13.90-14.31]", "14.12 ms (n=1, no CI)", "-".
std::string comparisonFigureText(const std::optional<ComparisonFigure> &figure);
// "0.50x [0.45-0.55]", "0.98x (n=1, no CI)", "-".
std::string comparisonRatioText(const std::optional<stats::RatioCI> &ratio);
// What B is: "faster", "slower", "no significant difference (interval spans 1)", "1 repeat: no
// interval", "not comparable: no steady state in A", "only in B", ...
std::string comparisonOutcomeText(const ComparisonRow &row);
const char *comparisonOutcomeId(ComparisonOutcome outcome); // "faster", "no_significant_difference", ...
// The comparison in one line, for the top of the Compare page, the reports and the CLI: of the
// configurations measured on both sides, how many B is faster or slower on (with the range of those
// ratios) and how many cannot be told apart, then what could not be compared: "Of 3 configurations
// measured on both sides, B is faster on 1 (0.50x) and not significantly different on 2 (1 with one
// repeat: no interval); 1 only in A, 1 only in B." Never more certain than the rows: a ratio
// without an interval (one repeat) counts as no difference, whatever its point estimate.
std::string comparisonVerdict(const SweepComparison &comparison);
// "ms per step" or "ms per image".
std::string comparisonUnit(const SweepComparison &comparison);
// "#2 H200 ledger b128": how a side is named when its caller gives no other name.
std::string sweepTitle(const Ledger &ledger);

// The sides and what was made of them, for the text exports.
struct ComparisonSides {
    const Ledger &a;
    const Ledger &b;
    std::string nameA, nameB; // empty: sweepTitle()
};
std::string comparisonMarkdown(const ComparisonSides &sides, const SweepComparison &comparison);
QJsonObject comparisonJson(const ComparisonSides &sides, const SweepComparison &comparison);
std::string comparisonCsv(const ComparisonSides &sides, const SweepComparison &comparison);

} // namespace stepscope::report
