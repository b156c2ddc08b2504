// The written verdict of a batch scan (issue 35.4): which batch is fastest per sample, and only as
// sure as the interval over processes allows.
#include "ledger_rows.h"
#include "report/batch_scan_verdict.h"
#include "report/ledger.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace stepscope::report
{
namespace
{

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

// One configuration's row at `batch`, as that batch's ledger holds it.
BatchPoint pointOf(int batch, double firstS, double steadyMs, int processes)
{
    const LedgerRow row = test::rowOfProcesses("baseline", firstS, steadyMs, processes);
    return {batch, row.steadyMs, row.steadyCI, row.firstStepMs, processSummariesOf(row)};
}

TEST(BatchScanVerdict, NamesTheBatchFasterPerSampleWithItsInterval)
{
    // b2: 10 ms a step, 5 ms a sample; b4: 11 ms a step, 2.75 ms a sample: 1.82x faster per sample.
    const BatchVerdict v = batchVerdictOf("baseline", {pointOf(2, 2.0, 10.0, 3), pointOf(4, 3.0, 11.0, 3)});
    ASSERT_TRUE(v.fastest && v.next && v.ratio);
    EXPECT_EQ(v.at[*v.fastest].batch, 4);
    EXPECT_EQ(v.at[*v.next].batch, 2);
    ASSERT_TRUE(v.ratio->hasInterval);
    EXPECT_TRUE(v.ratio->significant);
    EXPECT_NEAR(v.ratio->ratio, 2.75 / 5.0, 0.01);
    const std::string headline = batchVerdictHeadline(v);
    EXPECT_TRUE(contains(headline, "b4 is 1.82x faster per sample than b2 (95% CI ")) << headline;
    const std::string figures = batchVerdictFigures(v);
    EXPECT_TRUE(contains(figures, "b2: 5.00 ms per sample (95% CI ")) << figures;
    EXPECT_TRUE(contains(figures, "first step 2.00 s")) << figures;
    EXPECT_TRUE(contains(figures, "b4: 2.75 ms per sample")) << figures;
    EXPECT_TRUE(contains(figures, "first step 3.00 s")) << figures;
    EXPECT_TRUE(contains(batchVerdictText(v), "baseline: b4 is")) << batchVerdictText(v);
}

TEST(BatchScanVerdict, OverlappingIntervalsAreNoSignificantDifference)
{
    // 10 ms at b2 and 20.1 ms at b4: the same per sample within the processes' spread (each 1% apart).
    const BatchVerdict v = batchVerdictOf("baseline", {pointOf(2, 2.0, 10.0, 3), pointOf(4, 3.0, 20.1, 3)});
    ASSERT_TRUE(v.ratio && v.ratio->hasInterval);
    EXPECT_FALSE(v.ratio->significant);
    const std::string headline = batchVerdictHeadline(v);
    EXPECT_TRUE(contains(headline, "no significant difference per sample between b2 and b4")) << headline;
    EXPECT_FALSE(contains(headline, " is ")) << headline;
}

TEST(BatchScanVerdict, OneProcessGivesNoVerdict)
{
    const BatchVerdict v = batchVerdictOf("baseline", {pointOf(2, 2.0, 10.0, 1), pointOf(4, 3.0, 11.0, 1)});
    ASSERT_TRUE(v.ratio);
    EXPECT_FALSE(v.ratio->hasInterval);
    const std::string headline = batchVerdictHeadline(v);
    EXPECT_TRUE(contains(headline, "b4 was 1.82x faster per sample than b2")) << headline;
    EXPECT_TRUE(contains(headline, "not a verdict")) << headline;
    EXPECT_TRUE(contains(batchVerdictFigures(v), "n=1, no CI")) << batchVerdictFigures(v);
}

TEST(BatchScanVerdict, OneBatchWithASteadyTimeHasNothingToCompare)
{
    BatchPoint none = pointOf(4, 3.0, 11.0, 3);
    none.steadyMs.reset();
    const BatchVerdict v = batchVerdictOf("baseline", {pointOf(2, 2.0, 10.0, 3), none});
    EXPECT_FALSE(v.ratio);
    EXPECT_TRUE(contains(batchVerdictHeadline(v), "at b2 only")) << batchVerdictHeadline(v);
    EXPECT_TRUE(contains(batchVerdictFigures(v), "b4: no steady time")) << batchVerdictFigures(v);
}

} // namespace
} // namespace stepscope::report
