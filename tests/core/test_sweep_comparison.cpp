// The sweep comparison of core/report (sweep_comparison.h, comparison_setup.h, comparison_text.h):
// rows matched across two stored sweeps, ratios with intervals over cold processes, the verdicts
// "faster", "no significant difference" and "1 repeat: no interval", per-image figures across
// batches, and the Markdown, JSON and CSV that `stepscope-cli compare` prints.
#include "report/comparison_text.h"
#include "report/environment_pair.h"
#include "report/ledger.h"
#include "report/sweep_comparison.h"
#include "stored_sweep.h"

#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>

#include <algorithm>
#include <sstream>
#include <string>

namespace stepscope::report
{
namespace
{

bool contains(const std::string &haystack, const std::string &needle)
{
    return haystack.find(needle) != std::string::npos;
}

RunConfig shape(int batch)
{
    RunConfig c;
    c.batch = batch;
    c.imageSize = 64;
    return c;
}

RunConfig withKnob(RunConfig c, bool channelsLast, Autocast autocast = Autocast::Off)
{
    c.channelsLast = channelsLast;
    c.autocast = autocast;
    return c;
}

// A (batch 8): baseline 10 ms, channels-last 8 ms and bf16 6 ms, three processes each, and
// bf16+channels-last once. B (batch 8): the same baseline, channels-last at 4 ms, bf16+channels-last
// once, and bf16 missing; a threads-2 row only B ran. C (batch 16): every step twice as long, so
// per image the same as A.
class SweepComparisonTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        ASSERT_TRUE(dir_.isValid());
        path_ = dir_.filePath("s.db").toStdString();
        auto db = store::Database::open(path_);
        int position = 0;
        a_ = test::addSweep(*db, {"A"});
        test::addRepeats(*db, a_, position, test::cpuRun(shape(8), 0.5, 10.0), 3);
        test::addRepeats(*db, a_, position, test::cpuRun(withKnob(shape(8), true), 0.6, 8.0), 3);
        test::addRepeats(*db, a_, position, test::cpuRun(withKnob(shape(8), false, Autocast::BF16), 0.7, 6.0), 3);
        test::addStoredRun(*db, a_, position++, test::cpuRun(withKnob(shape(8), true, Autocast::BF16), 0.7, 5.0));
        b_ = test::addSweep(*db, {"B"});
        test::addRepeats(*db, b_, position, test::cpuRun(shape(8), 0.5, 10.0), 3);
        test::addRepeats(*db, b_, position, test::cpuRun(withKnob(shape(8), true), 0.6, 4.0), 3);
        test::addStoredRun(*db, b_, position++, test::cpuRun(withKnob(shape(8), true, Autocast::BF16), 0.7, 5.1));
        RunConfig threads = shape(8);
        threads.threads = 2;
        test::addRepeats(*db, b_, position, test::cpuRun(threads, 0.5, 9.0), 2);
        c_ = test::addSweep(*db, {"C"});
        test::addRepeats(*db, c_, position, test::cpuRun(shape(16), 1.0, 20.0), 3);
        test::addRepeats(*db, c_, position, test::cpuRun(withKnob(shape(16), true), 1.2, 16.0), 3);
        // D (batch 8): another model, whose step takes twice A's.
        RunConfig vit = shape(8);
        vit.model = "timm:test_vit";
        d_ = test::addSweep(*db, {"D"});
        test::addRepeats(*db, d_, position, test::cpuRun(vit, 0.5, 20.0), 3);
        db->flush();
    }

    QTemporaryDir dir_;
    std::string path_;
    std::int64_t a_ = 0, b_ = 0, c_ = 0, d_ = 0;
};

TEST_F(SweepComparisonTest, RowsMatchAndSayWhatBIs)
{
    const auto reader = store::Reader::open(path_);
    const Ledger a = buildLedger(*reader, a_), b = buildLedger(*reader, b_);
    const SweepComparison comparison = compareSweeps(a, b);
    EXPECT_TRUE(comparison.setup.differences.empty()); // same shape, device and (no) environment
    EXPECT_FALSE(comparison.setup.perImage);
    ASSERT_EQ(comparison.rows.size(), 5u); // A's four in A's order, then B's threads-2
    const auto &same = comparison.rows[0], &faster = comparison.rows[1], &onlyA = comparison.rows[2],
               &once = comparison.rows[3], &onlyB = comparison.rows[4];
    EXPECT_EQ(comparisonLabel(a, b, same), "baseline");

    // The same level on both sides: the interval spans 1.
    ASSERT_TRUE(same.ratio && same.ratio->hasInterval);
    EXPECT_NEAR(same.ratio->ratio, 1.0, 0.01);
    EXPECT_LT(same.ratio->low, 1.0);
    EXPECT_GT(same.ratio->high, 1.0);
    EXPECT_EQ(same.outcome, ComparisonOutcome::NoSignificantDifference);
    EXPECT_EQ(comparisonOutcomeText(same), "no significant difference (interval spans 1)");

    // Half the time in B: faster, with the interval of the ledger rows' processes.
    ASSERT_TRUE(faster.ratio && faster.ratio->hasInterval);
    EXPECT_NEAR(faster.ratio->ratio, 0.5, 0.01);
    EXPECT_EQ(faster.outcome, ComparisonOutcome::Faster);
    EXPECT_EQ(faster.ratio->processes, 3u);
    ASSERT_TRUE(faster.figureA && faster.figureB);
    EXPECT_NEAR(faster.figureA->ms, 8.0, 0.1);
    EXPECT_TRUE(faster.figureA->lowMs && faster.figureA->highMs);
    EXPECT_LT(*faster.figureA->lowMs, faster.figureA->ms);
    EXPECT_EQ(comparisonRatioText(faster.ratio).rfind("0.50x [", 0), 0u) << comparisonRatioText(faster.ratio);

    EXPECT_EQ(onlyA.outcome, ComparisonOutcome::OnlyInA);
    EXPECT_FALSE(onlyA.b);
    EXPECT_FALSE(onlyA.figureB);
    EXPECT_EQ(comparisonOutcomeText(onlyA), "only in A");
    EXPECT_EQ(comparisonFigureText(onlyA.figureB), "-");

    // One process a side: a ratio, but no interval, and that is said.
    ASSERT_TRUE(once.ratio);
    EXPECT_FALSE(once.ratio->hasInterval);
    EXPECT_EQ(once.outcome, ComparisonOutcome::NoSignificantDifference);
    EXPECT_EQ(comparisonOutcomeText(once), "1 repeat: no interval");
    EXPECT_NE(comparisonRatioText(once.ratio).find("(n=1, no CI)"), std::string::npos);
    EXPECT_NE(comparisonFigureText(once.figureA).find("(n=1, no CI)"), std::string::npos);

    EXPECT_EQ(onlyB.outcome, ComparisonOutcome::OnlyInB);
    EXPECT_EQ(comparisonLabel(a, b, onlyB), b.rows[*onlyB.b].label);

    // The one-line verdict counts what the rows say, the one-repeat row among the undecided.
    EXPECT_EQ(comparisonVerdict(comparison),
              "Of 3 configurations measured on both sides, B is faster on 1 (0.50x) and not significantly different "
              "on 2 (1 with one repeat: no interval); 1 only in A, 1 only in B.");
    // B against itself: nothing faster or slower, every configuration undecided.
    EXPECT_EQ(comparisonVerdict(compareSweeps(b, b))
                  .rfind("Of 4 configurations measured on both sides, B is not "
                         "significantly different on all 4",
                         0),
              0u)
        << comparisonVerdict(compareSweeps(b, b));
    // Swapped: A is the faster one, so B is slower.
    EXPECT_NE(comparisonVerdict(compareSweeps(b, a)).find("slower on 1 (2.00x)"), std::string::npos)
        << comparisonVerdict(compareSweeps(b, a));
}

TEST_F(SweepComparisonTest, OtherBatchesCompareStepsPerImage)
{
    const auto reader = store::Reader::open(path_);
    const Ledger a = buildLedger(*reader, a_), c = buildLedger(*reader, c_);
    const SweepComparison comparison = compareSweeps(a, c);
    EXPECT_TRUE(comparison.setup.perImage);
    ASSERT_FALSE(comparison.setup.differences.empty());
    EXPECT_EQ(comparison.setup.differences[0].fact, SetupFact::Batch);
    EXPECT_EQ(differenceText(comparison.setup.differences[0]), "Batch: A 8, B 16");
    EXPECT_EQ(comparisonUnit(comparison), "ms per image");
    const auto &baseline = comparison.rows[0];
    EXPECT_EQ(baseline.batchA, 8);
    EXPECT_EQ(baseline.batchB, 16);
    ASSERT_TRUE(baseline.figureA && baseline.figureB && baseline.ratio);
    // 10 ms for 8 images against 20 ms for 16: the same per image.
    EXPECT_NEAR(baseline.figureA->ms, 10.0 / 8, 0.01);
    EXPECT_NEAR(baseline.figureB->ms, 20.0 / 16, 0.01);
    EXPECT_NEAR(baseline.ratio->ratio, 1.0, 0.01);
    EXPECT_EQ(baseline.outcome, ComparisonOutcome::NoSignificantDifference);
}

// Issue 30.4: two models at one batch. The setup names the models, the figures are per sample (a
// step of another model does other work), and the Markdown says why.
TEST_F(SweepComparisonTest, OtherModelsCompareTimePerSample)
{
    const auto reader = store::Reader::open(path_);
    const Ledger a = buildLedger(*reader, a_), d = buildLedger(*reader, d_);
    const SweepComparison comparison = compareSweeps(a, d);
    EXPECT_TRUE(comparison.setup.modelsDiffer);
    EXPECT_TRUE(comparison.setup.perImage);
    const auto model = std::find_if(comparison.setup.differences.begin(), comparison.setup.differences.end(),
                                    [](const SetupDifference &x) { return x.fact == SetupFact::Model; });
    ASSERT_NE(model, comparison.setup.differences.end());
    EXPECT_EQ(differenceText(*model), "Model: A resnet18, B timm:test_vit");
    const auto &baseline = comparison.rows[0];
    ASSERT_TRUE(baseline.a && baseline.b && baseline.ratio) << "matched by their knobs";
    EXPECT_NEAR(baseline.figureA->ms, 10.0 / 8, 0.01);
    EXPECT_NEAR(baseline.figureB->ms, 20.0 / 8, 0.01);
    EXPECT_NEAR(baseline.ratio->ratio, 2.0, 0.02);
    const std::string text = comparisonMarkdown({a, d, "A", "D"}, comparison);
    EXPECT_TRUE(contains(text, "The models differ")) << text;
    // The same model on both sides: no model difference.
    EXPECT_FALSE(compareSweeps(a, buildLedger(*reader, c_)).setup.modelsDiffer);
}

TEST_F(SweepComparisonTest, MarkdownJsonAndCsvCarryEveryRow)
{
    const auto reader = store::Reader::open(path_);
    const Ledger a = buildLedger(*reader, a_), b = buildLedger(*reader, b_);
    const SweepComparison comparison = compareSweeps(a, b);
    const ComparisonSides sides{a, b, "", "other.sqlite, #2 B"};

    const std::string md = comparisonMarkdown(sides, comparison);
    EXPECT_TRUE(contains(md, "## Comparison: B other.sqlite, #2 B against A #1 A")) << md;
    EXPECT_TRUE(contains(md, comparisonVerdict(comparison))) << md;
    EXPECT_TRUE(contains(md, "| configuration | steady A [95% CI] | steady B [95% CI] | B/A [95% CI] | B is |")) << md;
    for (const char *verdict : {"| faster |", "| no significant difference (interval spans 1) |",
                                "| 1 repeat: no interval |", "| only in A |", "| only in B |"})
        EXPECT_TRUE(contains(md, verdict)) << verdict << "\n" << md;
    EXPECT_TRUE(contains(md, "| channels-last | " + comparisonFigureText(comparison.rows[1].figureA))) << md;

    const QJsonObject json = comparisonJson(sides, comparison);
    EXPECT_EQ(json["b"].toObject()["name"].toString(), "other.sqlite, #2 B");
    EXPECT_EQ(json["a"].toObject()["sweep"].toInt(), a_);
    EXPECT_EQ(json["summary"].toString().toStdString(), comparisonVerdict(comparison));
    const QJsonArray rows = json["rows"].toArray();
    ASSERT_EQ(rows.size(), 5);
    EXPECT_EQ(rows[1].toObject()["outcome"].toString(), "faster");
    EXPECT_DOUBLE_EQ(rows[1].toObject()["ratio_ci_low"].toDouble(), comparison.rows[1].ratio->low);
    EXPECT_TRUE(rows[3].toObject()["ratio_ci_low"].isNull()); // one process: no interval
    EXPECT_TRUE(rows[2].toObject()["b"].isNull());

    std::istringstream csv(comparisonCsv(sides, comparison));
    std::string header, line;
    std::getline(csv, header);
    EXPECT_EQ(header.rfind("configuration,knobs,unit,a_ms,", 0), 0u) << header;
    int lines = 0;
    while (std::getline(csv, line)) {
        ++lines;
        EXPECT_EQ(std::count(line.begin(), line.end(), ','), std::count(header.begin(), header.end(), ',')) << line;
    }
    EXPECT_EQ(lines, 5);
}

// Issue 31: what a configuration costs besides time travels with a comparison. Two GPU sweeps,
// B's bf16 row holding less memory and fewer joules; B runs batch 16, so joules are per sample,
// while a process's peak memory is never divided by its batch.
TEST(SweepComparisonCosts, MemoryAndEnergyBesideTime)
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("gpu.db").toStdString();
    std::int64_t a = 0, b = 0;
    {
        auto db = store::Database::open(path);
        int position = 0;
        const auto add = [&](std::int64_t sweep, RunConfig c, double ms, std::int64_t peakMiB, double joules) {
            c.device = "cuda";
            for (int r = 0; r < 2; ++r) {
                test::RunSpec run = test::runOf(c, position++);
                run.firstS = 1.0;
                run.steps = test::stepsAt(ms);
                run.memory = std::make_pair(peakMiB << 20, (peakMiB + 100) << 20);
                EnergyReading e;
                e.blockJoules = joules * 100;
                e.blockSeconds = 2.0;
                e.blockSteps = 100;
                run.energy = e;
                test::addRun(*db, sweep, run);
            }
        };
        a = test::addSweep(*db, {"A"});
        add(a, shape(8), 10.0, 1000, 4.0);
        add(a, withKnob(shape(8), false, Autocast::BF16), 6.0, 800, 2.0);
        b = test::addSweep(*db, {"B"});
        add(b, shape(16), 20.0, 1800, 8.0);
        add(b, withKnob(shape(16), false, Autocast::BF16), 12.0, 1200, 2.0);
        db->flush();
    }
    const auto reader = store::Reader::open(path);
    const Ledger la = buildLedger(*reader, a), lb = buildLedger(*reader, b);
    const SweepComparison comparison = compareSweeps(la, lb);
    ASSERT_TRUE(comparison.setup.perImage);
    const std::string md = comparisonMarkdown({la, lb, "", ""}, comparison);
    EXPECT_TRUE(contains(md, "### Memory and energy")) << md;
    EXPECT_TRUE(contains(md, "| J per sample A | J per sample B |")) << md;
    // bf16: 800 against 1,200 MiB (1.50x), 2 J / 8 against 2 J / 16 per sample (0.50x).
    EXPECT_TRUE(contains(md, "| bf16 | 800 MiB | 1,200 MiB | 1.50x | 0.250 J | 0.125 J | 0.50x |")) << md;

    const QJsonArray rows = comparisonJson({la, lb, "", ""}, comparison)["rows"].toArray();
    ASSERT_EQ(rows.size(), 2);
    EXPECT_DOUBLE_EQ(rows[0].toObject()["a_peak_allocated_mib"].toDouble(), 1000.0);
    EXPECT_DOUBLE_EQ(rows[0].toObject()["b_joules_per_sample"].toDouble(), 0.5);
    std::istringstream csv(comparisonCsv({la, lb, "", ""}, comparison));
    std::string header, first;
    std::getline(csv, header);
    std::getline(csv, first);
    EXPECT_TRUE(contains(header, ",a_peak_allocated_mib,b_peak_allocated_mib,a_joules,b_joules")) << header;
    EXPECT_TRUE(contains(first, ",1000,1800,0.5,0.5")) << first;
}

// CPU sweeps have neither figure: no section that would be all dashes.
TEST_F(SweepComparisonTest, NoMemoryOrEnergySectionWithoutFigures)
{
    const auto reader = store::Reader::open(path_);
    const Ledger a = buildLedger(*reader, a_), b = buildLedger(*reader, b_);
    EXPECT_FALSE(contains(comparisonMarkdown({a, b, "", ""}, compareSweeps(a, b)), "Memory and energy"));
}

} // namespace
} // namespace stepscope::report

namespace stepscope::report
{
namespace
{

// Both sides' environments travel with a comparison: one row per fact either recorded, in the
// order people read them, the ones that differ marked.
TEST(EnvironmentPairs, RowsOfBothRecordsMarkWhatDiffers)
{
    const auto pairs = environmentPairs(R"j({"gpu":"NVIDIA H200","torch":"2.11.0+cu130","driver":"580.159.04"})j",
                                        R"j({"gpu":"NVIDIA H100","torch":"2.11.0+cu130","host":"b"})j");
    const auto find = [&](const std::string &key) {
        const auto it =
            std::find_if(pairs.begin(), pairs.end(), [&](const EnvironmentPair &p) { return p.key == key; });
        EXPECT_NE(it, pairs.end()) << key;
        return it == pairs.end() ? EnvironmentPair{} : *it;
    };
    ASSERT_FALSE(pairs.empty());
    EXPECT_EQ(pairs.front().key, "gpu"); // the GPU first, as the environment view has it
    EXPECT_TRUE(find("gpu").differs());
    EXPECT_EQ(find("gpu").valueB, "NVIDIA H100");
    EXPECT_FALSE(find("torch").differs());
    const EnvironmentPair driver = find("driver");
    EXPECT_TRUE(driver.recordedA);
    EXPECT_FALSE(driver.recordedB);
    EXPECT_TRUE(driver.differs());
    EXPECT_EQ(environmentValueText(driver.valueB, driver.recordedB), "-");
    EXPECT_TRUE(find("host").recordedB);
    EXPECT_TRUE(environmentPairs("", "not json").empty());
}

} // namespace
} // namespace stepscope::report
