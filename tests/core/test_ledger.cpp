// The ledger and its exports for a sweep with torch.compile rows: compile cache state and compile
// time per configuration, and Python rows told apart from native ones with the same knobs.
#include "report/ledger.h"
#include "store/store.h"

#include <gtest/gtest.h>

#include <QTemporaryDir>

#include <string>

namespace stepscope::report
{
namespace
{

bool contains(const std::string &haystack, const std::string &needle)
{
    return haystack.find(needle) != std::string::npos;
}

// A finished sweep row for a fixture to hang its runs on.
std::int64_t addSweep(store::Database &db, const std::string &name, std::int64_t plannedSteps)
{
    store::SweepRecord sweep;
    sweep.name = name;
    sweep.preset = "ledger";
    sweep.plannedSteps = plannedSteps;
    sweep.status = "complete";
    return db.createSweep(sweep);
}

class LedgerCompileTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        ASSERT_TRUE(dir_.isValid());
        path_ = dir_.filePath("l.db").toStdString();
        auto db = store::Database::open(path_);
        sweepId_ = addSweep(*db, "compile ledger", 1000);
        addRun(*db, "native cuda b32 224px c1000 tf32", "", "", 0);
        addRun(*db, "python cuda b32 224px c1000 tf32", "", "", 1);
        addRun(*db, "python cuda b32 224px c1000 tf32+compile-default", "cold", R"({"compile_s":40,"graphs":1})", 2);
        addRun(*db, "python cuda b32 224px c1000 tf32+compile-default", "cold", R"({"graphs":1,"compile_s": 30.5})", 3);
        addRun(*db, "python cuda b32 224px c1000 tf32+compile-default", "cold", R"({"graphs":1})", 4);
        addRun(*db, "python cuda b32 224px c1000 tf32+compile-default+warm-cache", "warm", R"({"compile_s":2.5})", 5);
        db->flush();
    }

    void addRun(store::Database &db, const std::string &name, const std::string &cache, const std::string &info,
                int position)
    {
        store::RunRecord run;
        run.sweepId = sweepId_;
        run.position = position;
        run.configName = name;
        run.configJson = "{}";
        const auto id = db.createRun(run);
        std::vector<store::StepRow> steps;
        for (int i = 1; i <= 60; ++i)
            steps.push_back({i, std::nullopt, 10.0 - position + (i % 3) * 0.01});
        db.appendSteps(id, steps);
        db.setFirstStep(id, 1.0 + position);
        if (!cache.empty())
            db.setCompileCache(id, cache, R"({"TORCHINDUCTOR_CACHE_DIR":"/x"})");
        if (!info.empty())
            db.setCompileInfo(id, info);
        db.finishRun(id, RunStatus::Complete);
    }

    QTemporaryDir dir_;
    std::string path_;
    std::int64_t sweepId_ = 0;
};

TEST_F(LedgerCompileTest, RowsCarryCompileCacheAndMedianCompileTime)
{
    auto reader = store::Reader::open(path_);
    const Ledger l = buildLedger(*reader, sweepId_);
    ASSERT_EQ(l.rows.size(), 4u);
    EXPECT_EQ(l.rows[0].label, "tf32");
    EXPECT_EQ(l.rows[1].label, "python tf32") << "the same knobs under another runtime";
    EXPECT_EQ(l.rows[2].label, "python tf32+compile-default");
    EXPECT_EQ(l.rows[2].axisLabel, "+compile-default");
    EXPECT_EQ(l.rows[3].label, "python tf32+compile-default+warm-cache");

    EXPECT_EQ(l.rows[0].compileCache, "");
    EXPECT_FALSE(l.rows[0].compileS);
    EXPECT_EQ(l.rows[1].compileCache, "");
    EXPECT_EQ(l.rows[2].compileCache, "cold");
    ASSERT_TRUE(l.rows[2].compileS);
    EXPECT_DOUBLE_EQ(*l.rows[2].compileS, 35.25) << "median of the repeats that reported it";
    EXPECT_EQ(l.rows[3].compileCache, "warm");
    EXPECT_EQ(l.rows[3].compileS, std::optional<double>(2.5));

    const std::string csv = toCsv(l);
    EXPECT_TRUE(contains(csv, ",wall_per_step_ms,compile_cache,compile_s\n")) << csv;
    EXPECT_TRUE(contains(csv, ",cold,35.25\n")) << csv;
    EXPECT_TRUE(contains(csv, ",warm,2.5\n")) << csv;
    const std::string json = toJson(l);
    EXPECT_TRUE(contains(json, "\"compile_cache\": \"cold\", \"compile_s\": 35.25")) << json;
    EXPECT_TRUE(contains(json, "\"compile_cache\": \"\", \"compile_s\": null")) << json;
    const std::string md = toMarkdown(l);
    EXPECT_TRUE(contains(md, "compile (cache, time) |")) << md;
    EXPECT_TRUE(contains(md, "| python tf32+compile-default | complete")) << md;
    EXPECT_TRUE(contains(md, " cold, 35.25 s |")) << md;
    EXPECT_TRUE(contains(md, " warm, 2.50 s |")) << md;
}

TEST(LedgerWithoutCompile, MarkdownKeepsItsColumns)
{
    Ledger l;
    LedgerRow row;
    row.label = "baseline";
    row.status = "complete";
    l.rows.push_back(row);
    const std::string md = toMarkdown(l);
    EXPECT_FALSE(contains(md, "compile")) << md;
    EXPECT_TRUE(contains(md, "| accuracy |\n")) << md;
}

// Cold processes at their own levels: intervals come from the spread between them, and one
// process gives none.
class LedgerProcessesTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        ASSERT_TRUE(dir_.isValid());
        path_ = dir_.filePath("p.db").toStdString();
        auto db = store::Database::open(path_);
        sweepId_ = addSweep(*db, "processes", 10000);
        int position = 0;
        for (double level : {10.0, 10.4, 9.6})
            addRun(*db, "native cuda b32 224px c1000 baseline", level, position++);
        for (double level : {10.1, 9.7, 10.3})
            addRun(*db, "native cuda b32 224px c1000 tf32", level, position++);
        addRun(*db, "native cuda b32 224px c1000 tf32+bf16", 5.0, position++);
        addRun(*db, "native cuda b32 224px c1000 tf32+bf16", 0, position++); // failed
        db->flush();
    }

    void addRun(store::Database &db, const std::string &name, double levelMs, int position)
    {
        store::RunRecord run;
        run.sweepId = sweepId_;
        run.position = position;
        run.configName = name;
        run.configJson = "{}";
        const auto id = db.createRun(run);
        if (levelMs <= 0) {
            db.finishRun(id, RunStatus::Failed, Failure{FailureCategory::OutOfMemory, "out of memory", ""});
            return;
        }
        std::vector<store::StepRow> steps;
        for (int i = 1; i <= 60; ++i)
            steps.push_back({i, std::nullopt, levelMs + (i % 3) * 0.01});
        db.appendSteps(id, steps);
        db.setFirstStep(id, 1.0 + 0.01 * position);
        db.finishRun(id, RunStatus::Complete);
    }

    QTemporaryDir dir_;
    std::string path_;
    std::int64_t sweepId_ = 0;
};

TEST_F(LedgerProcessesTest, IntervalsAtProcessLevel)
{
    auto reader = store::Reader::open(path_);
    const Ledger l = buildLedger(*reader, sweepId_);
    ASSERT_EQ(l.rows.size(), 3u);
    const LedgerRow &base = l.rows[0], &tf32 = l.rows[1], &bf16 = l.rows[2];
    EXPECT_EQ(base.processes, 3);
    ASSERT_EQ(base.runSamplesMs.size(), 3u);
    ASSERT_TRUE(base.steadyCI && base.steadyCI->hasInterval);
    // Process medians 9.6, 10.0, 10.4 (+0.01): the interval holds them all, not the steps' +-0.01.
    EXPECT_LT(base.steadyCI->low, 9.7);
    EXPECT_GT(base.steadyCI->high, 10.3);
    ASSERT_TRUE(base.firstStepNoise);
    EXPECT_EQ(*base.firstStepNoise, stats::Noise::Ok); // 1.00-1.02 s

    ASSERT_TRUE(tf32.timeRatio && tf32.timeRatio->hasInterval);
    EXPECT_FALSE(tf32.timeRatio->significant) << "identical levels in other processes";
    ASSERT_TRUE(tf32.breakEvenCI);
    EXPECT_TRUE(tf32.breakEvenCI->highNever);

    EXPECT_EQ(bf16.processes, 1);
    ASSERT_TRUE(bf16.timeRatio);
    EXPECT_FALSE(bf16.timeRatio->hasInterval);
    EXPECT_FALSE(bf16.timeRatio->significant);
    EXPECT_FALSE(bf16.firstStepNoise);
    EXPECT_EQ(bf16.breakEvenRange, "n=1, no CI");

    // bf16 is fastest but ran once: say it cannot be told apart, name the simpler, and the failure.
    ASSERT_TRUE(l.recommendation);
    EXPECT_EQ(l.recommendation->best, 2u);
    EXPECT_TRUE(l.recommendationTied);
    const std::string &text = l.recommendationText;
    EXPECT_TRUE(contains(text, "1 repeat: no interval")) << text;
    EXPECT_TRUE(contains(text, "cannot be told apart from")) << text;
    EXPECT_TRUE(contains(text, "the simpler is ")) << text;
    EXPECT_TRUE(contains(text, "Not complete: tf32+bf16 (1/2 complete: out-of-memory)")) << text;
}

TEST_F(LedgerProcessesTest, TiedConfigurationsNameTheSimplerOne)
{
    auto reader = store::Reader::open(path_);
    Ledger l = buildLedger(*reader, sweepId_);
    // Without the fast single run, baseline and tf32 are the same machine time.
    l.rows.pop_back();
    recommendFor(l, 10000);
    ASSERT_TRUE(l.recommendationCI);
    EXPECT_TRUE(l.recommendationCI->hasInterval);
    EXPECT_TRUE(l.recommendationTied);
    EXPECT_TRUE(contains(l.recommendationText, "contains 0")) << l.recommendationText;
    EXPECT_TRUE(contains(l.recommendationText, "the simpler is baseline")) << l.recommendationText;
    EXPECT_FALSE(contains(l.recommendationText, "Not complete")) << l.recommendationText;
}

} // namespace
} // namespace stepscope::report
