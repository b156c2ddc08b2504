#include "report/sweep_comparison.h"

namespace stepscope::report
{
namespace
{

std::optional<ComparisonFigure> figureOf(const LedgerRow &row, double divisor)
{
    if (!row.steadyMs)
        return std::nullopt;
    ComparisonFigure f;
    f.ms = *row.steadyMs / divisor;
    if (row.steadyCI && row.steadyCI->hasInterval) {
        f.lowMs = row.steadyCI->low / divisor;
        f.highMs = row.steadyCI->high / divisor;
    }
    return f;
}

// A's rows matched to B's (by canonical name, else by knob label), then B's unmatched rows.
std::vector<ComparisonRow> matchedRows(const Ledger &a, const Ledger &b)
{
    std::vector<ComparisonRow> rows;
    std::vector<bool> taken(b.rows.size(), false);
    const auto find = [&](auto matches) -> std::optional<std::size_t> {
        for (std::size_t j = 0; j < b.rows.size(); ++j)
            if (!taken[j] && matches(b.rows[j]))
                return j;
        return std::nullopt;
    };
    for (std::size_t i = 0; i < a.rows.size(); ++i) {
        const auto &ra = a.rows[i];
        auto j = find([&](const LedgerRow &rb) { return rb.configName == ra.configName; });
        if (!j)
            j = find([&](const LedgerRow &rb) { return rb.label == ra.label; });
        ComparisonRow row;
        row.a = i;
        row.batchA = rowBatch(a, ra);
        if (j) {
            taken[*j] = true;
            row.b = *j;
            row.batchB = rowBatch(b, b.rows[*j]);
        } else {
            row.outcome = ComparisonOutcome::OnlyInA;
        }
        rows.push_back(row);
    }
    for (std::size_t j = 0; j < b.rows.size(); ++j)
        if (!taken[j]) {
            ComparisonRow row;
            row.b = j;
            row.batchB = rowBatch(b, b.rows[j]);
            row.outcome = ComparisonOutcome::OnlyInB;
            rows.push_back(row);
        }
    return rows;
}

void compareRow(const Ledger &a, const Ledger &b, bool perImage, ComparisonRow &row)
{
    const auto sideFigure = [&](const Ledger &l, const std::optional<std::size_t> &index, int batch) {
        return !index || (perImage && batch <= 0) ? std::nullopt
                                                  : figureOf(l.rows[*index], perImage ? double(batch) : 1.0);
    };
    row.figureA = sideFigure(a, row.a, row.batchA);
    row.figureB = sideFigure(b, row.b, row.batchB);
    if (!row.a || !row.b)
        return;
    const auto &ra = a.rows[*row.a];
    const auto &rb = b.rows[*row.b];
    if (ra.samplesMs.empty() || rb.samplesMs.empty()) {
        row.notComparable =
            ra.samplesMs.empty() ? NotComparableReason::NoSteadyStateInA : NotComparableReason::NoSteadyStateInB;
        return;
    }
    if (perImage && (row.batchA <= 0 || row.batchB <= 0)) {
        row.notComparable = NotComparableReason::BatchNotRecorded;
        return;
    }
    // Cold processes of each sweep are the repeats: the CI comes from their spread.
    row.ratio = stats::ratioOfMedians(rb.runSamplesMs, ra.runSamplesMs);
    if (perImage)
        row.ratio = perImageRatio(*row.ratio, row.batchA, row.batchB);
    row.outcome = !row.ratio->significant ? ComparisonOutcome::NoSignificantDifference
                  : row.ratio->ratio < 1  ? ComparisonOutcome::Faster
                                          : ComparisonOutcome::Slower;
}

} // namespace

stats::RatioCI perImageRatio(stats::RatioCI ci, int batchA, int batchB)
{
    const double k = double(batchA) / double(batchB);
    ci.ratio *= k;
    ci.low *= k;
    ci.high *= k;
    ci.significant = ci.hasInterval && (ci.high < 1.0 || ci.low > 1.0);
    return ci;
}

SweepComparison compareSweeps(const Ledger &a, const Ledger &b)
{
    SweepComparison result;
    result.setup = compareSetup(a, b);
    result.rows = matchedRows(a, b);
    // Rows matched by their knobs across batches compare per image even where the sweeps' batch
    // sets agree as a whole.
    const bool batchNoted = result.setup.perImage;
    for (const ComparisonRow &row : result.rows)
        if (row.a && row.b && row.batchA > 0 && row.batchB > 0 && row.batchA != row.batchB)
            result.setup.perImage = true;
    if (result.setup.perImage && !batchNoted)
        result.setup.differences.insert(result.setup.differences.begin(),
                                        SetupDifference{SetupFact::MatchedAcrossBatches, {}, {}});
    for (ComparisonRow &row : result.rows)
        compareRow(a, b, result.setup.perImage, row);
    return result;
}

const std::string &comparisonLabel(const Ledger &a, const Ledger &b, const ComparisonRow &row)
{
    return row.a ? a.rows[*row.a].label : b.rows[*row.b].label;
}

} // namespace stepscope::report
