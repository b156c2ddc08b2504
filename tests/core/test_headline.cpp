// The verdict line every view puts on top (issue 19.1): short "+knob" labels, the runner-up said as
// what it changes, the caveats on a line of their own; and rows told apart by a seed (issue 19.9).
#include "config/run_config.h"
#include "report/ledger.h"
#include "store/store.h"
#include "stored_sweep.h"

#include <gtest/gtest.h>

#include <QTemporaryDir>

#include <cmath>
#include <string>
#include <vector>

namespace stepscope::report
{
namespace
{

bool contains(const std::string &haystack, const std::string &needle)
{
    return haystack.find(needle) != std::string::npos;
}

RunConfig cuda(bool tf32, bool graph, bool fused, std::uint64_t seed = 0)
{
    RunConfig c;
    c.device = "cuda";
    c.tf32 = tf32;
    c.cudaGraph = graph;
    c.optimizer = fused ? Optimizer::Fused : Optimizer::Foreach;
    c.seed = seed;
    return c;
}

class HeadlineTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        ASSERT_TRUE(dir_.isValid());
        path_ = dir_.filePath("h.db").toStdString();
    }

    // One process of `config` with a first step of `firstS` and steady steps about `steadyMs`.
    struct Process {
        RunConfig config;
        int position;
        double firstS, steadyMs;
    };
    std::int64_t storeSweep(const test::SweepSpec &spec, const std::vector<Process> &processes)
    {
        auto db = store::Database::open(path_);
        const std::int64_t sweepId = test::addSweep(*db, spec);
        for (const Process &p : processes) {
            test::RunSpec run = test::runOf(p.config, p.position);
            run.firstS = p.firstS;
            run.steps = test::stepsAt(p.steadyMs);
            test::addRun(*db, sweepId, run);
        }
        db->flush();
        return sweepId;
    }

    QTemporaryDir dir_;
    std::string path_;
};

// The H200 ledger's end: the CUDA graph, and fused SGD on top of it 0.04 ms a step faster but 0.14 s
// later to start. One process each: no interval, so the two cannot be told apart and the simpler,
// the graph, is the one to use.
TEST_F(HeadlineTest, ShortLabelsTheRunnerUpsChangeAndCaveatsApart)
{
    const std::int64_t sweepId = storeSweep({"h200", "ledger", 10000}, {{cuda(false, false, false), 0, 0.50, 14.0},
                                                                        {cuda(true, false, false), 1, 0.49, 7.5},
                                                                        {cuda(true, true, false), 2, 2.27, 3.75},
                                                                        {cuda(true, true, true), 3, 2.41, 3.71}});
    auto reader = store::Reader::open(path_);
    const Ledger l = buildLedger(*reader, sweepId);
    ASSERT_EQ(l.rows.size(), 4u);
    EXPECT_EQ(l.rows[2].label, "tf32+cuda-graph");
    EXPECT_EQ(l.rows[2].axisLabel, "+cuda-graph");
    EXPECT_EQ(l.rows[3].axisLabel, "+sgd-fused");
    ASSERT_TRUE(l.recommendationTied);
    ASSERT_EQ(l.recommended, std::optional<std::size_t>(2));

    const std::string headline = recommendationHeadline(l);
    // The row by its name, never the knob it adds (issue 28: "+warm-cache" read as a switch); these
    // runs recorded no start state, so none is named.
    EXPECT_EQ(headline.rfind("Use tf32+cuda-graph: ", 0), 0u) << headline;
    // Steady medians are the level plus the middle jitter (stepsAt): 14.01 and 3.76 ms.
    const double breakEven = 1 + (2270.0 - 500.0) / (14.01 - 3.76);
    EXPECT_TRUE(contains(headline, ", pays off after " + std::to_string(std::llround(breakEven)) + " steps"))
        << headline;
    // Fused SGD's 10000 steps against the graph's: (2410 + 9999 * 3.72) / (2270 + 9999 * 3.76) - 1 = -0.65%.
    // One process each: no interval says they are "within noise", only that they cannot be told apart.
    EXPECT_TRUE(contains(headline, "; +sgd-fused 0.7% faster, one process each: no interval")) << headline;
    EXPECT_FALSE(contains(headline, "within noise")) << headline;
    EXPECT_FALSE(contains(headline, "\n")) << headline;

    // The caveats are not in the headline but on their own line.
    const std::string caveats = recommendationCaveats(l);
    EXPECT_TRUE(contains(caveats, "One process each: no interval")) << caveats;
    EXPECT_FALSE(contains(headline, "One process")) << headline;
    EXPECT_NE(caveats.front(), ' ');

    // A row against a bigger one is what it leaves out.
    EXPECT_EQ(shortLabel(l.rows[2], l.rows[3]), "without sgd-fused");
    EXPECT_EQ(shortLabel(l.rows[3], l.rows[1]), "+cuda-graph+sgd-fused");
    EXPECT_EQ(shortLabel(l.rows[1], l.rows[1]), "tf32");
}

TEST_F(HeadlineTest, NoCaveatsWithoutARecommendationOrAnythingToSay)
{
    Ledger empty;
    EXPECT_EQ(recommendationHeadline(empty), "");
    EXPECT_EQ(recommendationCaveats(empty), "");
}

// An A/A check in one sweep: the same configuration at seeds 0 and 1 is two rows, labelled by what
// tells them apart, not one row of two processes.
TEST_F(HeadlineTest, TwoSeedsAreTwoRowsLabelledBySeed)
{
    const std::int64_t sweepId = storeSweep({"a/a", "custom", 1000}, {{cuda(true, false, false, 0), 0, 0.5, 7.5},
                                                                      {cuda(true, false, false, 1), 1, 0.5, 7.5},
                                                                      {cuda(true, false, false, 0), 0, 0.5, 7.6},
                                                                      {cuda(true, false, false, 1), 1, 0.5, 7.6}});
    auto reader = store::Reader::open(path_);
    const Ledger l = buildLedger(*reader, sweepId);
    ASSERT_EQ(l.rows.size(), 2u);
    EXPECT_EQ(l.rows[0].label, "tf32");
    EXPECT_EQ(l.rows[1].label, "tf32+seed-1");
    EXPECT_EQ(l.rows[1].axisLabel, "+seed-1");
    EXPECT_EQ(l.rows[0].repeats, 2);
    EXPECT_EQ(l.rows[1].repeats, 2);
}

} // namespace
} // namespace stepscope::report
