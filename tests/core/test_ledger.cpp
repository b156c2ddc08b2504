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

class LedgerCompileTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        ASSERT_TRUE(dir_.isValid());
        path_ = dir_.filePath("l.db").toStdString();
        auto db = store::Database::open(path_);
        store::SweepRecord sweep;
        sweep.name = "compile ledger";
        sweep.preset = "ledger";
        sweep.plannedSteps = 1000;
        sweep.status = "complete";
        sweepId_ = db->createSweep(sweep);
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

} // namespace
} // namespace stepscope::report
