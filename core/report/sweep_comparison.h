#pragma once
// Two sweeps side by side (before and after a driver update, one GPU against another): one row per
// configuration, matched between the two, with each side's steady median and its process-level
// 95% CI, the ratio of steady medians B/A with its interval over cold processes, and whether that
// interval leaves 1 out. A configuration only one side measured keeps a row that says so. When the
// sides ran other batches, every figure is per image (comparison_setup.h). The dashboard's Compare
// page and `stepscope-cli compare` read this; comparison_text.h words it.
#include "report/comparison_setup.h"
#include "report/ledger.h"

#include <optional>
#include <vector>

namespace stepscope::report
{

// Of B against A. OnlyInA/OnlyInB: the configuration has no match on the other side.
enum class ComparisonOutcome { Faster, Slower, NoSignificantDifference, NotComparable, OnlyInA, OnlyInB };
// Why a matched row has no ratio.
enum class NotComparableReason { None, NoSteadyStateInA, NoSteadyStateInB, BatchNotRecorded };

// One side's steady figure: ms per step, or per image in per-image mode.
struct ComparisonFigure {
    double ms = 0;
    std::optional<double> lowMs, highMs; // 95% CI over processes; none with one process
};

struct ComparisonRow {
    std::optional<std::size_t> a, b; // indices into the ledgers' rows
    std::optional<stats::RatioCI> ratio;
    ComparisonOutcome outcome = ComparisonOutcome::NotComparable;
    NotComparableReason notComparable = NotComparableReason::None;
    int batchA = 0, batchB = 0;                       // the rows' batches; per image, figures are divided by them
    std::optional<ComparisonFigure> figureA, figureB; // none without a steady state (or its batch, per image)
};

struct SweepComparison {
    std::vector<ComparisonRow> rows;
    ComparisonSetup setup;
};

// B/A per image from B/A per step, where A ran batchA and B batchB: the same interval scaled by
// the batches' ratio, its significance read again (the batch scan's verdict compares batches so too).
stats::RatioCI perImageRatio(stats::RatioCI ci, int batchA, int batchB);

// Rows follow A's order, then B's configurations A lacks; a configuration matches by canonical
// name, else by its knob label (the same knobs measured with another batch or image size). Runs
// the ratio's bootstrap: thread-safe, and the dashboard calls it on a worker.
SweepComparison compareSweeps(const Ledger &a, const Ledger &b);

// The row's knob label, from whichever side has it.
const std::string &comparisonLabel(const Ledger &a, const Ledger &b, const ComparisonRow &row);

} // namespace stepscope::report
