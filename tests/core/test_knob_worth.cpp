// What each knob of the recommended row is worth (issue 35.1), from a stored sweep as a cumulative
// ledger stores it: baseline, +tf32 (pays), +cudnn-bench (a long first step, no steady change), then
// +cuda-graph (pays), which the recommendation picks.
#include "config/run_config.h"
#include "report/knob_worth.h"
#include "report/ledger.h"
#include "store/store.h"
#include "stored_sweep.h"

#include <gtest/gtest.h>

#include <QTemporaryDir>

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

const std::string kShape = "native cuda b32 224px c1000 ";

class KnobWorthTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        ASSERT_TRUE(dir_.isValid());
        path_ = dir_.filePath("k.db").toStdString();
        auto db = store::Database::open(path_);
        sweepId_ = test::addSweep(*db, {"knobs", "ledger", 10000});
        // Three processes a row, so that every comparison has its interval.
        add(*db, "baseline", 10.0, 1.0);
        add(*db, "tf32", 6.0, 1.05);
        add(*db, "tf32+cudnn-bench", 6.0, 12.0);
        add(*db, "tf32+cudnn-bench+cuda-graph", 3.0, 12.4);
        db->flush();
    }

    void add(store::Database &db, const std::string &knobs, double steadyMs, double firstS)
    {
        for (int process = 0; process < 3; ++process) {
            test::RunSpec run = test::runNamed(kShape + knobs, position_++);
            run.steps = test::stepsAt(steadyMs + 0.05 * process);
            run.firstS = firstS + 0.02 * process;
            run.caches = store::StartState::Fresh;
            test::addRun(db, sweepId_, run);
        }
    }

    std::size_t rowOf(const Ledger &l, const std::string &knobs)
    {
        for (std::size_t i = 0; i < l.rows.size(); ++i)
            if (l.rows[i].configName == kShape + knobs)
                return i;
        ADD_FAILURE() << "no row " << knobs;
        return 0;
    }

    QTemporaryDir dir_;
    std::string path_;
    std::int64_t sweepId_ = 0;
    std::int64_t position_ = 0;
};

TEST_F(KnobWorthTest, TheRecommendedRowSaysWhatEachKnobIsWorthAndNamesTheOneThatOnlyCosts)
{
    auto reader = store::Reader::open(path_);
    const Ledger l = buildLedger(*reader, sweepId_);
    ASSERT_TRUE(l.recommended);
    ASSERT_EQ(*l.recommended, rowOf(l, "tf32+cudnn-bench+cuda-graph"));
    const auto &worth = l.recommendedWorth;
    ASSERT_EQ(worth.size(), 3u);

    EXPECT_EQ(worth[0].knob, "tf32");
    EXPECT_EQ(worth[0].verdict, KnobWorth::Verdict::Pays);
    EXPECT_FALSE(worth[0].exact) << "the sweep has no tf32-less twin of the pick: judged where it was added";
    EXPECT_EQ(worth[0].without, rowOf(l, "baseline"));

    EXPECT_EQ(worth[1].knob, "cudnn-bench");
    EXPECT_EQ(worth[1].verdict, KnobWorth::Verdict::CostsOnly);
    ASSERT_TRUE(worth[1].firstDeltaMs);
    EXPECT_NEAR(*worth[1].firstDeltaMs, 10950, 100);
    EXPECT_EQ(worth[1].withoutConfig, kShape + "tf32+cuda-graph");

    EXPECT_EQ(worth[2].knob, "cuda-graph");
    EXPECT_EQ(worth[2].verdict, KnobWorth::Verdict::Pays);
    EXPECT_TRUE(worth[2].exact);
    ASSERT_TRUE(worth[2].steadyRatio && worth[2].steadyRatio->hasInterval);
    EXPECT_LT(worth[2].steadyRatio->high, 1.0);

    // The caveat under the headline names the knob to drop and what it saves; the text has each knob.
    const std::string caveats = recommendationCaveats(l);
    EXPECT_TRUE(contains(caveats, "Drop cudnn-bench: 10.9")) << caveats;
    EXPECT_TRUE(contains(caveats, "less first step on a fresh machine, no measurable steady change")) << caveats;
    EXPECT_FALSE(contains(caveats, "Drop tf32")) << caveats;
    EXPECT_TRUE(contains(l.recommendationText, "What each knob of")) << l.recommendationText;
    EXPECT_TRUE(contains(l.recommendationText, "cudnn-bench (measured where it was added, from tf32 to tf32+cudnn-bench)"))
        << l.recommendationText;
    EXPECT_TRUE(contains(l.recommendationText, "; cuda-graph: steady 1.9")) << l.recommendationText;
    EXPECT_TRUE(contains(l.recommendationText, "steady +0.00 ms (1.00x, 95% CI")) << l.recommendationText;
}

// The exact twin, once measured, is preferred to the row where the knob was added; a knob no two rows
// isolate is not measured, with the configuration that would measure it.
TEST_F(KnobWorthTest, TheExactTwinIsPreferredAndAKnobNoPairIsolatesIsNotMeasured)
{
    {
        auto db = store::Database::open(path_);
        add(*db, "tf32+cuda-graph", 3.0, 1.4);
        add(*db, "bf16+channels-last", 8.0, 1.0);
        db->flush();
    }
    auto reader = store::Reader::open(path_);
    const Ledger l = buildLedger(*reader, sweepId_);
    const auto worth = knobWorthOf(l, rowOf(l, "tf32+cudnn-bench+cuda-graph"));
    ASSERT_EQ(worth.size(), 3u);
    EXPECT_TRUE(worth[1].exact);
    EXPECT_EQ(worth[1].without, rowOf(l, "tf32+cuda-graph"));
    EXPECT_EQ(worth[1].verdict, KnobWorth::Verdict::CostsOnly);

    const auto other = knobWorthOf(l, rowOf(l, "bf16+channels-last"));
    ASSERT_EQ(other.size(), 2u);
    EXPECT_EQ(other[0].verdict, KnobWorth::Verdict::NotMeasured);
    EXPECT_EQ(other[0].withoutConfig, kShape + "channels-last");
    EXPECT_TRUE(contains(knobWorthText(l, other[0]), "not measured")) << knobWorthText(l, other[0]);
    EXPECT_TRUE(contains(knobWorthText(l, other[0]), "add " + kShape + "channels-last to a sweep"));

    // Two knobs not measured: one clause names both, instead of two sentences with the same reason.
    ASSERT_EQ(other[1].verdict, KnobWorth::Verdict::NotMeasured);
    const std::string summary = knobWorthSummary(l, other);
    EXPECT_TRUE(contains(summary, "bf16 and channels-last: not measured")) << summary;
    EXPECT_EQ(summary.find("not measured"), summary.rfind("not measured")) << summary;
    // Measured knobs keep their own sentences beside it.
    EXPECT_TRUE(contains(knobWorthSummary(l, worth), "cudnn-bench")) << knobWorthSummary(l, worth);
}

} // namespace
} // namespace stepscope::report
