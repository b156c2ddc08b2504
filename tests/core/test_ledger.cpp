// The ledger and its exports for a sweep with torch.compile rows: compile cache state and compile
// time per configuration, and Python rows told apart from native ones with the same knobs.
#include "config/config_json.h"
#include "config/model_name.h"
#include "ledger_rows.h"
#include "report/ledger.h"
#include "report/run_summary.h"
#include "report/sweep_status.h"
#include "store/store.h"
#include "stored_sweep.h"

#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace stepscope::report
{
namespace
{

bool contains(const std::string &haystack, const std::string &needle)
{
    return haystack.find(needle) != std::string::npos;
}

// The JSON export parsed back: a broken document fails the test here.
QJsonObject jsonOf(const std::string &text)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(text), &error);
    EXPECT_EQ(error.error, QJsonParseError::NoError) << error.errorString().toStdString() << "\n" << text;
    return doc.object();
}

class LedgerCompileTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        ASSERT_TRUE(dir_.isValid());
        path_ = dir_.filePath("l.db").toStdString();
        auto db = store::Database::open(path_);
        sweepId_ = test::addSweep(*db, {"compile ledger", "ledger", 1000});
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
        test::RunSpec run = test::runNamed(name, position);
        run.steps = test::stepsAt(10.0 - position);
        run.firstS = 1.0 + position;
        if (!cache.empty()) {
            run.compileCache = cache;
            run.cacheDirs = R"({"TORCHINDUCTOR_CACHE_DIR":"/x"})";
        }
        run.compileJson = info;
        test::addRun(db, sweepId_, run);
    }

    QTemporaryDir dir_;
    std::string path_;
    std::int64_t sweepId_ = 0;
};

// An older file (before start states) kept the compile cache as a knob: its "+warm-cache" row is one
// row with its cold twin now, the cold runs its fresh start, the warm one its again start
// (docs/decisions.md "Start states").
TEST_F(LedgerCompileTest, AnOlderFilesWarmCacheRowFoldsIntoItsColdTwinAsItsAgainStart)
{
    auto reader = store::Reader::open(path_);
    const Ledger l = buildLedger(*reader, sweepId_);
    ASSERT_EQ(l.rows.size(), 3u);
    EXPECT_EQ(l.rows[0].label, "tf32");
    EXPECT_EQ(l.rows[1].label, "python tf32") << "the same knobs under another runtime";
    EXPECT_EQ(l.rows[2].label, "python tf32+compile-default");
    EXPECT_EQ(l.rows[2].axisLabel, "+compile-default");
    EXPECT_EQ(l.rows[2].repeats, 4) << "the warm-cache run is a run of this configuration";
    EXPECT_EQ(l.rows[2].warmMissed, 0);
    EXPECT_EQ(l.rows[2].fresh.processes, 3);
    EXPECT_EQ(l.rows[2].again.processes, 1);
    ASSERT_TRUE(l.rows[2].again.firstStepMs);
    EXPECT_DOUBLE_EQ(*l.rows[2].again.firstStepMs, 6000.0);

    EXPECT_FALSE(l.rows[0].compileMs);
    ASSERT_TRUE(l.rows[2].compileMs);
    EXPECT_DOUBLE_EQ(*l.rows[2].compileMs, 35250.0) << "median of the fresh repeats that reported it";
    // First steps 3, 4, 5 s: the warm run's 6 s is not among them.
    ASSERT_TRUE(l.rows[2].firstStepMs);
    EXPECT_DOUBLE_EQ(*l.rows[2].firstStepMs, 4000.0);
    EXPECT_DOUBLE_EQ(*l.rows[2].firstStepMaxMs, 5000.0);

    const std::string csv = toCsv(l);
    EXPECT_TRUE(contains(csv, ",wall_per_step_ms,compile_s,baseline,processes,machine_cold_first_steps,")) << csv;
    EXPECT_TRUE(contains(csv, ",35.25,,4,,")) << csv;
    const QJsonArray rows = jsonOf(toJson(l)).value("rows").toArray();
    ASSERT_EQ(rows.size(), 3);
    EXPECT_FALSE(rows[2].toObject().contains("compile_cache"));
    EXPECT_DOUBLE_EQ(rows[2].toObject().value("compile_s").toDouble(), 35.25);
    EXPECT_TRUE(rows[0].toObject().value("compile_s").isNull());
    const std::string md = toMarkdown(l);
    EXPECT_TRUE(contains(md, "compile time |")) << md;
    EXPECT_TRUE(contains(md, "| python tf32+compile-default | complete")) << md;
    EXPECT_TRUE(contains(md, " 35.25 s |")) << md;
}

// The waterfall's parents come with the ledger: the Python row stands on the native row with its
// knobs (a runtime switch), each compile row on the row it adds a knob to; the exports carry them.
TEST_F(LedgerCompileTest, EachRowStandsOnTheRowItChangesByOneKnob)
{
    auto reader = store::Reader::open(path_);
    const Ledger l = buildLedger(*reader, sweepId_);
    ASSERT_EQ(l.waterfall.size(), 3u); // the older file's +warm-cache row is its cold twin's now
    EXPECT_FALSE(l.waterfall[0].parent);
    const std::vector<std::string> changes{"native -> python", "+compile-default"};
    for (std::size_t i = 1; i < 3; ++i) {
        const WaterfallStep &w = l.waterfall[i];
        EXPECT_EQ(w.row, i);
        ASSERT_TRUE(w.parent && w.change) << i;
        EXPECT_EQ(*w.parent, i - 1);
        EXPECT_FALSE(w.branch);
        EXPECT_EQ(changeText(*w.change), changes[i - 1]);
        ASSERT_TRUE(w.deltaMs && l.rows[i].steadyMs && l.rows[i - 1].steadyMs);
        EXPECT_NEAR(*w.deltaMs, *l.rows[i].steadyMs - *l.rows[i - 1].steadyMs, 1e-12);
    }
    EXPECT_EQ(l.waterfall[1].change->kind, KnobChange::Kind::Runtime);
    EXPECT_NEAR(*l.waterfall[2].deltaMs, -2.5, 0.1) << "9 ms -> four runs at 8, 7, 6 and 5 ms";
    EXPECT_FALSE(l.waterfall[1].deltaLowMs) << "one process a side: no interval";

    const QJsonArray rows = jsonOf(toJson(l)).value("rows").toArray();
    const QJsonObject python = rows[1].toObject().value("waterfall").toObject();
    EXPECT_EQ(python.value("parent").toString(), "native cuda b32 224px c1000 tf32");
    EXPECT_EQ(python.value("change").toString(), "native -> python");
    EXPECT_FALSE(python.value("branch").toBool());
    EXPECT_TRUE(python.value("delta_ci_ms").isNull());
    EXPECT_TRUE(rows[0].toObject().value("waterfall").toObject().value("parent").isNull());
    const std::string md = toMarkdown(l);
    EXPECT_TRUE(contains(md, "What each change did")) << md;
    EXPECT_TRUE(contains(md, "- +compile-default: -2.50 ms (n=1, no CI)\n")) << md;
}

TEST(Waterfall, OneChangeBetweenTwoConfigurations)
{
    const std::string shape = "python cuda b32 224px c1000 ";
    const auto change = [&](const std::string &from, const std::string &to) {
        const auto c = knobChangeBetween(shape + from, shape + to);
        return c ? changeText(*c) : std::string("none");
    };
    EXPECT_EQ(change("baseline", "tf32"), "+tf32");
    EXPECT_EQ(change("tf32+bf16", "tf32"), "-bf16");
    EXPECT_EQ(change("bf16", "fp16"), "bf16 -> fp16");
    EXPECT_EQ(change("tf32+compile-default", "tf32+compile-reduce-overhead"), "compile-default -> reduce-overhead");
    EXPECT_EQ(change("sgd-per-parameter", "sgd-fused"), "sgd-per-parameter -> fused");
    EXPECT_EQ(change("tf32", "tf32+bf16+channels-last"), "none") << "two knobs";
    EXPECT_EQ(change("compile-default", "compile-reduce-overhead+warm-cache"), "none");
    EXPECT_EQ(change("tf32", "tf32"), "none");
    EXPECT_EQ(changeText(*knobChangeBetween("native cuda b32 224px c1000 tf32", shape + "tf32")), "native -> python");
    EXPECT_FALSE(knobChangeBetween("native cuda b64 224px c1000 tf32", "native cuda b32 224px c1000 tf32+bf16"))
        << "another shape";
    EXPECT_FALSE(knobChangeBetween("resnet18 tf32", "resnet18 tf32+bf16")) << "not a canonical name";
}

// A replacement is a parent only when no row adds the knob: reduce-overhead after compile-default
// stands on the eager row both compile, with an interval from three processes a side.
TEST(Waterfall, AnAddedKnobIsPreferredToAReplacementAndTheChangeHasItsInterval)
{
    const std::string shape = "python cuda b32 224px c1000 ";
    std::vector<LedgerRow> rows;
    for (const auto &[knobs, ms] :
         std::vector<std::pair<std::string, double>>{{"baseline", 14.0},
                                                     {"bf16", 6.75},
                                                     {"bf16+compile-default", 7.99},
                                                     {"bf16+compile-reduce-overhead", 2.83}}) {
        rows.push_back(test::rowOfProcesses(knobs, 1.0, ms, 3));
        rows.back().configName = shape + knobs;
    }
    auto steps = waterfallOf(rows);
    ASSERT_EQ(steps.size(), 4u);
    ASSERT_TRUE(steps[3].parent);
    EXPECT_EQ(*steps[3].parent, 1u);
    EXPECT_TRUE(steps[3].branch);
    EXPECT_EQ(changeText(*steps[3].change), "+compile-reduce-overhead");
    ASSERT_TRUE(steps[3].deltaMs && steps[3].deltaLowMs && steps[3].deltaHighMs);
    EXPECT_NEAR(*steps[3].deltaMs, 2.83 - 6.75, 1e-9);
    EXPECT_LT(*steps[3].deltaLowMs, *steps[3].deltaMs);
    EXPECT_GT(*steps[3].deltaHighMs, *steps[3].deltaMs);
    EXPECT_LT(*steps[3].deltaHighMs, 0) << "clearly faster";
    EXPECT_TRUE(steps[3].ratio->significant);

    // In words, a change that rounds to zero has no sign; an interval that contains zero says so.
    Ledger l;
    l.rows = {rows[0], rows[1]};
    l.rows.push_back(test::rowOfProcesses("bf16+channels-last", 1.0, 6.749, 3));
    l.rows.back().configName = shape + "bf16+channels-last";
    l.waterfall = waterfallOf(l.rows);
    const std::string md = toMarkdown(l);
    EXPECT_TRUE(contains(md, "- +channels-last: +0.00 ms (95% CI ")) << md;
    EXPECT_TRUE(contains(md, ", n.s.)\n")) << md;

    // Without the eager row, the replacement is the one change left.
    rows.erase(rows.begin() + 1);
    steps = waterfallOf(rows);
    ASSERT_TRUE(steps[2].parent);
    EXPECT_EQ(*steps[2].parent, 1u);
    EXPECT_FALSE(steps[2].branch);
    EXPECT_EQ(steps[2].change->kind, KnobChange::Kind::Replaced);
    EXPECT_FALSE(steps[1].parent) << "two knobs from the baseline";
}

TEST(LedgerWithoutCompile, MarkdownKeepsItsColumns)
{
    Ledger l;
    LedgerRow row;
    row.label = "baseline";
    row.repeats = row.completed = 1;
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
        sweepId_ = test::addSweep(*db, {"processes", "ledger", 10000});
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
        test::RunSpec run = test::runNamed(name, position);
        if (levelMs <= 0) {
            run.status = RunStatus::Failed;
            run.failure = Failure{FailureCategory::OutOfMemory, "out of memory", ""};
        } else {
            run.steps = test::stepsAt(levelMs);
            run.firstS = 1.0 + 0.01 * position;
        }
        test::addRun(db, sweepId_, run);
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

// Which caches each first step found: a sweep without a warm-up process charges the machine's
// caches to its first process, and the ledger says so on that row and in a note; with a warm-up
// process no row is marked. Exports say how many processes each spread rests on.
TEST(LedgerFirstStepCaches, TheMachineColdFirstProcessIsMarked)
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("c.db").toStdString();
    std::int64_t cold = 0, warm = 0;
    {
        auto db = store::Database::open(path);
        // The state is the run's typed field: no sentence anywhere says it (rewording one changes nothing).
        store::EnvironmentRecord record;
        record.json = R"({"cuda_cache_path": "unset"})";
        const auto env = db->addEnvironment(record);
        const auto first = store::MachineWarmup::FirstProcess, later = store::MachineWarmup::AfterOthers,
                   warmed = store::MachineWarmup::WarmedUp;
        auto addRun = [&](std::int64_t sweep, const std::string &name, int position, store::MachineWarmup warmup) {
            test::RunSpec run = test::runNamed(name, position);
            run.steps = test::stepsAt(10.0 + position * 0.1);
            run.firstS = 1.0;
            run.environmentId = env;
            run.warmup = warmup;
            test::addRun(*db, sweep, run);
        };
        cold = test::addSweep(*db, {"no warm-up", "ledger", 1000});
        addRun(cold, "native cpu b2 32px c10 baseline", 0, first);
        addRun(cold, "native cpu b2 32px c10 bf16", 1, later);
        addRun(cold, "native cpu b2 32px c10 baseline", 2, later);
        addRun(cold, "native cpu b2 32px c10 bf16", 3, later);
        warm = test::addSweep(*db, {"warm-up", "ledger", 1000});
        addRun(warm, "native cpu b2 32px c10 baseline", 0, warmed);
        addRun(warm, "native cpu b2 32px c10 bf16", 1, warmed);
        db->flush();
    }
    auto reader = store::Reader::open(path);
    const Ledger c = buildLedger(*reader, cold);
    ASSERT_EQ(c.rows.size(), 2u);
    EXPECT_EQ(c.rows[0].machineColdFirsts, 1);
    EXPECT_EQ(c.rows[1].machineColdFirsts, 0);
    EXPECT_TRUE(c.firstStepCaches.recorded);
    EXPECT_FALSE(c.firstStepCaches.warmedUp);
    EXPECT_EQ(c.firstStepCaches.coldRow, "baseline");
    EXPECT_TRUE(contains(firstStepCachesText(c), "no warm-up process: baseline's first process"));
    const std::string md = toMarkdown(c);
    EXPECT_TRUE(contains(md, "machine cold 1/2 |")) << md;
    EXPECT_TRUE(contains(md, "(n=2) |")) << md;
    EXPECT_TRUE(contains(md, "First steps: no warm-up process")) << md;
    EXPECT_EQ(jsonOf(toJson(c)).value("rows").toArray()[0].toObject().value("machine_cold_first_steps").toInt(-1), 1);

    const Ledger w = buildLedger(*reader, warm);
    ASSERT_EQ(w.rows.size(), 2u);
    EXPECT_EQ(w.rows[0].machineColdFirsts, 0);
    EXPECT_TRUE(w.firstStepCaches.warmedUp);
    EXPECT_TRUE(contains(firstStepCachesText(w), "warm-up process ran first")) << firstStepCachesText(w);
    const std::string wmd = toMarkdown(w);
    EXPECT_FALSE(contains(wmd, "machine cold |")) << wmd;
    EXPECT_TRUE(contains(wmd, "| n=1 |")) << wmd;
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

// A sweep whose stored baseline is not its first configuration: tf32, listed second.
class LedgerBaselineTest : public ::testing::Test
{
  protected:
    static constexpr const char *kFp32 = "native cuda b32 224px c1000 baseline";
    static constexpr const char *kTf32 = "native cuda b32 224px c1000 tf32";
    static constexpr const char *kBf16 = "native cuda b32 224px c1000 tf32+bf16";

    void SetUp() override
    {
        ASSERT_TRUE(dir_.isValid());
        path_ = dir_.filePath("b.db").toStdString();
        auto db = store::Database::open(path_);
        sweepId_ = test::addSweep(*db, {"baseline second", "ledger", 10000, kTf32});
        // Losses: tf32's are 10% above fp32's, bf16's 1% above tf32's. Against tf32, bf16 is
        // within its tolerance (0.10) and fp32 is not within its own (0.005); against fp32, bf16
        // (11.1%) would be the one that differs.
        int position = 0;
        for (int repeat = 0; repeat < 2; ++repeat) {
            addRun(*db, kFp32, R"({"tf32":false})", 10.0 + repeat * 0.1, 1.0, 1.0, position++);
            addRun(*db, kTf32, R"({"tf32":true})", 8.0 + repeat * 0.1, 1.2, 1.1, position++);
            addRun(*db, kBf16, R"({"tf32":true,"autocast":"bf16"})", 5.0 + repeat * 0.1, 3.0, 1.1 * 1.01, position++);
        }
        db->flush();
    }

    void addRun(store::Database &db, const std::string &name, const std::string &json, double levelMs, double firstS,
                double lossScale, int position)
    {
        test::RunSpec run = test::runNamed(name, position, json);
        for (int i = 1; i <= 60; ++i)
            run.steps.push_back({i, levelMs + (i % 3) * 0.01, levelMs + 1});
        run.firstS = firstS;
        run.checkLosses = test::checkLossesScaled(lossScale);
        test::addRun(db, sweepId_, run);
    }

    QTemporaryDir dir_;
    std::string path_;
    std::int64_t sweepId_ = 0;
};

TEST_F(LedgerBaselineTest, EveryFigureIsAgainstTheStoredBaseline)
{
    auto reader = store::Reader::open(path_);
    ASSERT_EQ(reader->sweep(sweepId_)->baselineConfig, kTf32);
    const Ledger l = buildLedger(*reader, sweepId_);
    ASSERT_EQ(l.rows.size(), 3u);
    EXPECT_EQ(l.rows[0].configName, kTf32) << "the baseline is rows[0]";
    EXPECT_EQ(l.rows[1].configName, kFp32) << "the others keep the sweep's order";
    EXPECT_EQ(l.rows[2].configName, kBf16);

    const LedgerRow &tf32 = l.rows[0], &fp32 = l.rows[1], &bf16 = l.rows[2];
    EXPECT_FALSE(tf32.speedup);
    EXPECT_EQ(breakEvenText(tf32), "-");
    EXPECT_EQ(tf32.accuracy.verdict, LedgerRow::Accuracy::Verdict::Reference);
    ASSERT_TRUE(fp32.speedup && bf16.speedup && tf32.steadyMs);
    EXPECT_NEAR(*fp32.speedup, *tf32.steadyMs / *fp32.steadyMs, 1e-12);
    EXPECT_NEAR(*fp32.speedup, 8.06 / 10.06, 0.01) << "fp32 is slower than the baseline";
    EXPECT_NEAR(*bf16.speedup, 8.06 / 5.06, 0.01);
    EXPECT_EQ(breakEvenText(fp32), "never");
    // bf16 against tf32: 1 + (3.0 - 1.2) / (8.06e-3 - 5.06e-3), about 601.
    ASSERT_TRUE(bf16.breakEvenSteps && bf16.steadyMs);
    EXPECT_NEAR(*bf16.breakEvenSteps, 1 + 1.8 / ((*tf32.steadyMs - *bf16.steadyMs) / 1000), 1e-6);
    EXPECT_NEAR(*bf16.breakEvenSteps, 601, 60);
    EXPECT_EQ(bf16.accuracy.verdict, LedgerRow::Accuracy::Verdict::Ok) << "within bf16's tolerance";
    // 10% apart at every step, but both fall: a difference, flagged, not a divergence.
    EXPECT_TRUE(fp32.accuracy.differs()) << accuracyText(fp32.accuracy);
    EXPECT_GT(fp32.accuracy.worstShare, 1.0);
    EXPECT_EQ(accuracyText(fp32.accuracy).rfind("differs (step 1: 6.9 vs 7.59, ", 0), 0u)
        << accuracyText(fp32.accuracy);
    EXPECT_TRUE(l.leftOut.empty()) << l.recommendationText;

    ASSERT_TRUE(l.recommendation);
    EXPECT_EQ(l.rows[l.recommendation->best].configName, kBf16);

    EXPECT_EQ(jsonOf(toJson(l)).value("baseline").toString(), "native cuda b32 224px c1000 tf32");
    const std::string md = toMarkdown(l);
    EXPECT_TRUE(contains(md, "Baseline: tf32 ")) << md;
    const std::string csv = toCsv(l);
    EXPECT_TRUE(contains(csv, "\nnative cuda b32 224px c1000 tf32,tf32,")) << csv;
    // The baseline column names exactly one row, the stored baseline (no field here holds a comma).
    std::vector<std::vector<std::string>> table;
    std::string line;
    for (std::istringstream lines(csv); std::getline(lines, line);) {
        table.emplace_back();
        std::string field;
        for (std::istringstream fields(line); std::getline(fields, field, ',');)
            table.back().push_back(field);
        if (!line.empty() && line.back() == ',')
            table.back().emplace_back();
    }
    const auto column = std::find(table[0].begin(), table[0].end(), "baseline") - table[0].begin();
    std::vector<std::string> baselines;
    for (std::size_t r = 1; r < table.size(); ++r)
        if (table[r].size() > std::size_t(column) && table[r][column] == "yes")
            baselines.push_back(table[r][0]);
    EXPECT_EQ(baselines, std::vector<std::string>{kTf32}) << csv;
}

TEST_F(LedgerBaselineTest, WithoutAStoredBaselineTheFirstConfigurationIsIt)
{
    // The same runs under a sweep that names no baseline (a file older than schema 5 reads so).
    auto db = store::Database::open(path_);
    const auto other = test::addSweep(*db, {"no baseline", "ledger", 10000});
    for (const auto &[name, position] : {std::pair{kTf32, 0}, std::pair{kFp32, 1}}) {
        test::RunSpec run = test::runNamed(name, position);
        run.started = run.finished = false; // queued
        test::addRun(*db, other, run);
    }
    db->flush();
    auto reader = store::Reader::open(path_);
    const Ledger l = buildLedger(*reader, other);
    ASSERT_EQ(l.rows.size(), 2u);
    EXPECT_EQ(l.rows[0].configName, kTf32);
}

TEST(LedgerBaselineRuntime, LabelsNameTheRuntimeThatDiffersFromTheBaselines)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const std::string path = dir.filePath("r.db").toStdString();
    std::int64_t sweepId = 0;
    {
        auto db = store::Database::open(path);
        sweepId = test::addSweep(*db, {"python baseline", "ledger", 1000, "python cuda b32 224px c1000 baseline"});
        int position = 0;
        for (const char *name : {"native cuda b32 224px c1000 baseline", "python cuda b32 224px c1000 baseline",
                                 "python cuda b32 224px c1000 compile-default"}) {
            test::RunSpec run = test::runNamed(name, position++);
            run.started = run.finished = false; // queued
            test::addRun(*db, sweepId, run);
        }
        db->flush();
    }
    auto reader = store::Reader::open(path);
    const Ledger l = buildLedger(*reader, sweepId);
    ASSERT_EQ(l.rows.size(), 3u);
    EXPECT_EQ(l.rows[0].label, "baseline");
    EXPECT_EQ(l.rows[1].label, "native baseline");
    EXPECT_EQ(l.rows[2].label, "compile-default");
}

// Issue 30.4: a sweep of two models. Each row's label starts with its model (the knobs alone would
// make two rows "baseline"), the ledger names both models with the worker's descriptions, and each
// row's compute comes from its own stored count; a sweep of one model keeps its plain labels.
TEST(LedgerModels, RowsOfTwoModelsAreToldApartAndComputeFromTheirOwnCounts)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const std::string path = dir.filePath("m.db").toStdString();
    RunConfig resnet;
    resnet.runtime = Runtime::Python;
    resnet.device = "cpu";
    RunConfig vit = resnet;
    vit.model = "timm:test_vit";
    RunConfig vitFused = vit;
    vitFused.optimizer = Optimizer::Fused;
    ModelFacts vitFacts;
    vitFacts.description = "timm:test_vit (0.3 M parameters, images 3x160x160, 10 classes)";
    vitFacts.parameters = 300000;
    vitFacts.forwardFlops = 1e9;
    vitFacts.trainingFlops = 3e9;
    vitFacts.flopsSource = FlopsSource::FlopCounter;
    std::int64_t twoModels = 0, oneModel = 0;
    {
        auto db = store::Database::open(path);
        twoModels = test::addSweep(*db, {"two models"});
        int position = 0;
        for (const RunConfig &c : {resnet, vit, vitFused}) {
            test::RunSpec run = test::runOf(c, position++);
            run.firstS = 1.0;
            run.steps = test::stepsAt(10.0);
            if (c.model != kDefaultModel)
                run.model = vitFacts;
            test::addRun(*db, twoModels, run);
        }
        oneModel = test::addSweep(*db, {"one model"});
        position = 0;
        for (const RunConfig &c : {vit, vitFused}) {
            test::RunSpec run = test::runOf(c, position++);
            run.steps = test::stepsAt(10.0);
            run.model = vitFacts;
            test::addRun(*db, oneModel, run);
        }
        db->flush();
    }
    auto reader = store::Reader::open(path);
    const Ledger l = buildLedger(*reader, twoModels);
    ASSERT_EQ(l.rows.size(), 3u);
    EXPECT_EQ(l.rows[0].label, "resnet18 baseline");
    EXPECT_EQ(l.rows[1].label, "timm:test_vit baseline");
    EXPECT_EQ(l.rows[2].label, "timm:test_vit sgd-fused");
    EXPECT_EQ(l.rows[2].axisLabel, "+sgd-fused") << "one knob apart within a model";
    EXPECT_EQ(l.rows[1].axisLabel, "timm:test_vit baseline") << "another model is no knob apart";
    ASSERT_EQ(l.models.size(), 2u);
    EXPECT_EQ(modelsLine(l.models), "Models: resnet18; timm:test_vit (300,000 parameters)");
    // ResNet18 without a stored count: its layers; the ViT: its counted 3 GFLOP in about 10 ms.
    EXPECT_EQ(l.rows[0].compute.source, FlopsSource::ResNet18Layers);
    ASSERT_TRUE(l.rows[1].compute.tflops);
    EXPECT_EQ(l.rows[1].compute.source, FlopsSource::FlopCounter);
    EXPECT_NEAR(*l.rows[1].compute.tflops, 0.3, 0.01);
    EXPECT_EQ(l.rows[1].model.parameters, std::optional<std::int64_t>(300000));
    const std::string text = toMarkdown(l);
    EXPECT_NE(text.find("Models: resnet18; timm:test_vit (300,000 parameters)"), std::string::npos) << text;
    EXPECT_NE(text.find("(counted by torch.utils.flop_counter)"), std::string::npos)
        << "two sources: each row says its own\n"
        << text;

    const Ledger one = buildLedger(*reader, oneModel);
    ASSERT_EQ(one.rows.size(), 2u);
    EXPECT_EQ(one.rows[0].label, "baseline");
    EXPECT_EQ(one.rows[1].label, "sgd-fused");
    const std::string oneText = toMarkdown(one);
    EXPECT_NE(oneText.find("Model: timm:test_vit (300,000 parameters)"), std::string::npos) << oneText;
    EXPECT_NE(oneText.find("Compute per steady step (training FLOPs counted by torch.utils.flop_counter"),
              std::string::npos)
        << oneText;
}

// The ledger pools the steps inside each run's stored window and takes its median from there: with
// one process, the row's steady figure is the stored summary's median, even where detecting the
// window anew would find another one.
TEST(LedgerStoredSummary, OneProcessRowShowsTheStoredMedian)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const std::string path = dir.filePath("s.db").toStdString();
    std::vector<store::StepRow> steps;
    for (int i = 1; i <= 61; ++i)
        steps.push_back({i, std::nullopt, i <= 31 ? 10.0 + (i % 2) * 0.01 : 12.0 + (i % 2) * 0.01});
    store::RunSummary stored; // the first level's window: steps 2-31
    stored.medianMs = 10.005;
    stored.steadyBegin = 2;
    stored.steadyCount = 30;
    stored.noise = "ok";
    stored.timing = store::Timing::Wall;
    stored.methodVersion = kSummaryMethodVersion;
    const auto detected = summarizeSteps(steps);
    ASSERT_NE(detected.steadyBegin, stored.steadyBegin) << "the test needs a window the rule would not pick";

    std::int64_t sweepId = 0;
    {
        auto db = store::Database::open(path);
        sweepId = test::addSweep(*db, {"stored", "ledger", 1000});
        test::RunSpec run = test::runNamed("native cpu b8 64px c1000 baseline");
        run.steps = steps;
        run.firstS = 1.0;
        run.summary = stored;
        test::addRun(*db, sweepId, run);
    }
    auto reader = store::Reader::open(path);
    const Ledger l = buildLedger(*reader, sweepId);
    ASSERT_EQ(l.rows.size(), 1u);
    ASSERT_TRUE(l.rows[0].steadyMs);
    EXPECT_DOUBLE_EQ(*l.rows[0].steadyMs, *stored.medianMs);
    EXPECT_EQ(l.rows[0].samplesMs.size(), 30u);
    EXPECT_EQ(l.rows[0].timing, store::Timing::Wall);
}

// A stopped sweep: the recommendation and the Markdown say what each cancelled row recorded, and
// never call the Stop a failure ("bf16 (cancelled: cancelled)" before).
TEST(LedgerStoppedSweep, CancelledRowsSayWhatTheyRecorded)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const std::string path = dir.filePath("x.db").toStdString();
    std::int64_t sweepId = 0;
    {
        auto db = store::Database::open(path);
        sweepId = test::addSweep(*db, {"stopped", "ledger", 1000});
        const auto addRun = [&](const std::string &knobs, int position, int steps, RunStatus status) {
            test::RunSpec run = test::runNamed("native cpu b2 32px c10 " + knobs, position);
            run.steps = test::stepsAt(10.0, steps);
            run.status = status;
            if (status == RunStatus::Complete)
                run.firstS = 1.0;
            else
                run.failure = Failure{FailureCategory::Cancelled, "stopped by the user", ""};
            test::addRun(*db, sweepId, run);
        };
        addRun("baseline", 0, 60, RunStatus::Complete);
        addRun("tf32", 1, 60, RunStatus::Complete);
        addRun("bf16", 2, 40, RunStatus::Cancelled);
        addRun("tf32", 3, 7, RunStatus::Cancelled);
        addRun("tf32+bf16", 4, 0, RunStatus::Cancelled);
        db->finishSweep(sweepId, store::SweepStatus::Cancelled);
        db->flush();
    }
    auto reader = store::Reader::open(path);
    const Ledger l = buildLedger(*reader, sweepId);
    ASSERT_EQ(l.rows.size(), 4u);
    EXPECT_EQ(l.rows[2].cancelled, 1);
    EXPECT_EQ(l.rows[2].cancelledSteps, 40);
    EXPECT_EQ(statusText(l.rows[0]), "complete");
    EXPECT_EQ(statusText(l.rows[1]), "1/2 complete, 1 cancelled (7 recorded steps)");

    const std::string &text = l.recommendationText;
    EXPECT_TRUE(contains(text, "The sweep was cancelled.")) << text;
    EXPECT_TRUE(contains(text, "bf16 (cancelled after 40 recorded steps)")) << text;
    EXPECT_TRUE(contains(text, "tf32+bf16 (cancelled, no step recorded)")) << text;
    EXPECT_FALSE(contains(text, "cancelled: cancelled")) << text;
    const std::string md = toMarkdown(l);
    EXPECT_TRUE(contains(md, "| bf16 | cancelled after 40 recorded steps |")) << md;
    EXPECT_FALSE(contains(md, "(cancelled)")) << md;
}

// The ledger of a sweep of native CPU rows written to a fresh file, in this order (the first is the
// baseline): each with its first step and its steps from step 1 on.
struct StoredRow {
    std::string knobs;
    double firstS = 1.0;
    std::vector<store::StepRow> steps;
};
Ledger ledgerOfRows(const std::vector<StoredRow> &rows)
{
    QTemporaryDir dir;
    EXPECT_TRUE(dir.isValid());
    const std::string path = dir.filePath("r.db").toStdString();
    std::int64_t sweepId = 0;
    {
        auto db = store::Database::open(path);
        sweepId = test::addSweep(*db, {"rows", "ledger", 1000});
        for (std::size_t i = 0; i < rows.size(); ++i) {
            test::RunSpec run = test::runNamed("native cpu b8 64px c10 " + rows[i].knobs, static_cast<int>(i));
            run.firstS = rows[i].firstS;
            run.steps = rows[i].steps;
            test::addRun(*db, sweepId, run);
        }
        db->flush();
    }
    return buildLedger(*store::Reader::open(path), sweepId);
}

// A baseline that never settled (scripts/run.sh on a busy CPU): nothing is compared with it, so
// no row shows a speed-up (it printed "1.00x" on every row before), a ratio or a break-even, and
// the recommendation is replaced by why there is none, with the baseline's own levels.
TEST(LedgerUnsettledBaseline, NoRowIsComparedAndTheReasonIsGiven)
{
    std::vector<store::StepRow> falling{{1, std::nullopt, 1000.0}};
    for (int i = 2; i <= 61; ++i) // 39 ms falling to 9.5 ms: still falling at the end
        falling.push_back({i, std::nullopt, 40.0 - 0.5 * i});
    const Ledger l = ledgerOfRows(
        {{"baseline", 1.0, falling}, {"tf32", 2.0, test::stepsAt(9.0)}, {"bf16", 2.0, test::stepsAt(6.0)}});
    ASSERT_EQ(l.rows.size(), 3u);
    ASSERT_FALSE(l.rows[0].steadyMs);
    ASSERT_TRUE(l.rows[0].steadyProblem);
    EXPECT_TRUE(l.rows[0].baseline);
    for (const LedgerRow &row : l.rows) {
        EXPECT_FALSE(row.speedup) << row.label;
        EXPECT_FALSE(row.timeRatio) << row.label;
        EXPECT_FALSE(row.breakEvenSteps) << row.label;
        EXPECT_EQ(breakEvenText(row), "-") << row.label;
    }
    EXPECT_TRUE(l.rows[1].steadyMs) << "the other rows keep their own figures";
    EXPECT_FALSE(l.recommendation);
    EXPECT_FALSE(l.recommended);
    EXPECT_EQ(recommendationHeadline(l), "");
    const std::string &why = l.noRecommendationReason;
    EXPECT_TRUE(contains(why, "the baseline (baseline) has no steady state: step times went from ")) << why;
    EXPECT_TRUE(contains(why, "were still falling; try --steps ")) << why;
    const std::string md = toMarkdown(l);
    EXPECT_FALSE(contains(md, "1.00x")) << md;
    EXPECT_FALSE(contains(md, "Recommendation")) << md;
    EXPECT_TRUE(contains(md, "| tf32 | complete | 2.00 s | 9.01 ms | n=1 |  | - |")) << md;
}

// A baseline with a steady figure is its own reference (1.00x); the others are against it.
TEST(LedgerUnsettledBaseline, ASettledBaselineIsTheReference)
{
    const Ledger l = ledgerOfRows({{"baseline", 1.0, test::stepsAt(12.0)}, {"tf32", 1.0, test::stepsAt(6.0)}});
    ASSERT_EQ(l.rows.size(), 2u);
    EXPECT_TRUE(l.noRecommendationReason.empty()) << l.noRecommendationReason;
    ASSERT_TRUE(l.rows[1].speedup);
    const std::string md = toMarkdown(l);
    EXPECT_TRUE(contains(md, "| baseline | complete | 1.00 s | 12.01 ms | n=1 | 1.00x |")) << md;
}

// A sweep that ran to its end with a failed run "finished", it did not "complete": the words every
// view (header, History, Live, CLI list and show) takes.
TEST(SweepStatus, AFailedRunMakesTheSweepFinishedNotComplete)
{
    EXPECT_EQ(sweepStatusText(store::SweepStatus::Complete, 1, 1), "finished, 1 of 1 failed");
    EXPECT_EQ(sweepStatusText(store::SweepStatus::Complete, 7, 2), "finished, 2 of 7 failed");
    EXPECT_EQ(sweepStatusText(store::SweepStatus::Complete, 7, 0), "complete");
    EXPECT_EQ(sweepStatusText(store::SweepStatus::Cancelled, 7, 0), "cancelled");
    EXPECT_EQ(sweepStatusText(store::SweepStatus::Running, 3, 1), "running") << "not finished yet";
    EXPECT_TRUE(sweepHadFailures(store::SweepStatus::Complete, 1));
    EXPECT_FALSE(sweepHadFailures(store::SweepStatus::Interrupted, 1));

    store::SweepRecord sweep;
    sweep.status = store::SweepStatus::Complete;
    store::RunRecord failed;
    failed.status = RunStatus::Failed;
    failed.category = FailureCategory::CompileFailed;
    EXPECT_EQ(sweepStatusText(sweep, {failed}), "finished, 1 of 1 failed");
    store::RunRecord done;
    done.status = RunStatus::Complete;
    EXPECT_EQ(sweepStatusText(sweep, {done, done}), "complete");

    // From a ledger's rows, as the HTML report has them: a Stop's run is no failure.
    Ledger ledger;
    ledger.sweep.status = store::SweepStatus::Complete;
    LedgerRow ok, broken;
    ok.repeats = ok.completed = 2;
    broken.repeats = 1;
    ledger.rows = {ok, broken};
    EXPECT_EQ(sweepStatusText(ledger), "finished, 1 of 3 failed");
    ledger.rows[1].cancelled = 1;
    EXPECT_EQ(sweepStatusText(ledger), "complete");
}

// A failed row's status names its category, as the dashboard's status cell shows it.
TEST(SweepStatus, AFailedRowNamesItsCategory)
{
    LedgerRow row;
    row.repeats = 1;
    row.completed = 0;
    row.lastStatus = RunStatus::Failed;
    row.failureCategory = "compile-failed";
    EXPECT_EQ(statusText(row), "failed: compile-failed");
}

// Known errors get their own fix rather than their category's: the cudagraph-trees error of a
// compiled whole step (docs/results/h200-compile.md) names both ways out.
TEST(FailureFix, KnownErrorsMapToTheirOwnFix)
{
    const Failure overwritten{FailureCategory::CompileFailed,
                              "torch.compile (reduce-overhead, inductor, step) failed during the measured steps: "
                              "Error: accessing tensor output of CUDAGraphs that has been overwritten by a subsequent "
                              "run. Stack trace: File \"torch/optim/sgd.py\", line 127",
                              ""};
    const std::string fix(fixFor(overwritten));
    EXPECT_NE(fix, fixFor(FailureCategory::CompileFailed));
    EXPECT_TRUE(contains(fix, "torch.compiler.cudagraph_mark_step_begin()")) << fix;
    EXPECT_TRUE(contains(fix, "a mode without CUDA graphs")) << fix;
    // Found in the detail too, where the message is only the first line.
    const Failure inDetail{FailureCategory::CompileFailed, "torch.compile failed during the measured steps",
                           "Traceback ...\nRuntimeError: Error: accessing tensor output of CUDAGraphs that has been "
                           "overwritten by a subsequent run."};
    EXPECT_EQ(fixFor(inDetail), fixFor(overwritten));
    // Anything else keeps its category's fix.
    const Failure oom{FailureCategory::OutOfMemory, "CUDA out of memory. Tried to allocate 2.00 GiB", ""};
    EXPECT_EQ(fixFor(oom), fixFor(FailureCategory::OutOfMemory));
}

TEST(LossTolerance, ComesFromTheConfigurationsFields)
{
    RunConfig c;
    EXPECT_DOUBLE_EQ(lossTolerance(c), 0.005);
    c.tf32 = true;
    EXPECT_DOUBLE_EQ(lossTolerance(c), 0.02);
    c.autocast = Autocast::BF16;
    EXPECT_DOUBLE_EQ(lossTolerance(c), 0.10);
    c.autocast = Autocast::FP16;
    EXPECT_DOUBLE_EQ(lossTolerance(c), 0.05);

    RunConfig compiled;
    compiled.runtime = Runtime::Python;
    compiled.compile = CompileMode::Default;
    EXPECT_DOUBLE_EQ(lossTolerance(compiled), 0.02) << "a compile reorders float sums: at least TF32's";
    compiled.autocast = Autocast::BF16;
    EXPECT_DOUBLE_EQ(lossTolerance(compiled), 0.10) << "a looser precision keeps its own";

    // Parsed, not searched for: spacing, key order and other members do not matter.
    EXPECT_DOUBLE_EQ(lossTolerance(storedConfig(R"({"autocast": "fp16", "tf32": true})")), 0.05);
    EXPECT_DOUBLE_EQ(lossTolerance(storedConfig(R"({"tf32" : true})")), 0.02);
    EXPECT_DOUBLE_EQ(lossTolerance(storedConfig(R"({"autocast":"off","device":"cpu"})")), 0.005);
    EXPECT_DOUBLE_EQ(lossTolerance(storedConfig(R"({"compile":"max-autotune","runtime":"python"})")), 0.02);
    EXPECT_DOUBLE_EQ(lossTolerance(storedConfig("not json")), 0.005) << "unreadable: the strictest";
    EXPECT_DOUBLE_EQ(lossTolerance(storedConfig(R"({"autocast":"fp16","from_the_future":1})")), 0.05);
    EXPECT_DOUBLE_EQ(lossTolerance(storedConfig(QJsonDocument(toJson(c)).toJson().toStdString())), 0.05);
}

// A row named like an fp16 configuration whose stored configuration has autocast off is judged
// with fp32's tolerance: the gate reads the fields, not the names.
TEST(LossTolerance, TheGateReadsTheStoredFieldsNotTheName)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const std::string path = dir.filePath("g.db").toStdString();
    std::int64_t sweepId = 0;
    {
        auto db = store::Database::open(path);
        sweepId = test::addSweep(*db, {"gate", "ledger", 1000});
        int position = 0;
        for (const auto &[name, json, scale] : std::vector<std::tuple<std::string, std::string, double>>{
                 {"native cuda b32 224px c1000 baseline", R"({"autocast":"off"})", 1.0},
                 {"native cuda b32 224px c1000 fp16", R"({"autocast": "off", "device": "cuda"})", 1.02},
                 {"native cuda b32 224px c1000 fp16-real", R"({"autocast": "fp16"})", 1.02}}) {
            test::RunSpec run = test::runNamed(name, position++, json);
            run.checkLosses = test::checkLossesScaled(scale);
            test::addRun(*db, sweepId, run);
        }
    }
    auto reader = store::Reader::open(path);
    const Ledger l = buildLedger(*reader, sweepId);
    ASSERT_EQ(l.rows.size(), 3u);
    EXPECT_TRUE(l.rows[1].accuracy.differs()) << "2% is beyond fp32's 0.5%: " << accuracyText(l.rows[1].accuracy);
    EXPECT_EQ(l.rows[2].accuracy.verdict, LedgerRow::Accuracy::Verdict::Ok) << "2% is within fp16's 5%";
}

using test::rowOfProcesses;

// The crossing that decides the recommendation (the winner overtaking the runner-up) has its own
// process-level interval even when neither is the baseline; the text names it.
TEST(LedgerDecidingCrossing, HasItsIntervalBetweenTwoNonBaselineRows)
{
    Ledger l;
    l.rows.push_back(rowOfProcesses("baseline", 0.5, 10.0, 3));
    l.rows.push_back(rowOfProcesses("cuda-graph", 1.0, 4.0, 3));
    l.rows.push_back(rowOfProcesses("cuda-graph+sgd-fused", 3.0, 3.0, 3));
    recommendFor(l, 10000);
    ASSERT_TRUE(l.recommendation && l.recommendation->runnerUp);
    EXPECT_EQ(l.recommendation->best, 2u);
    EXPECT_EQ(*l.recommendation->runnerUp, 1u);
    ASSERT_TRUE(l.decidingCrossing);
    const Ledger::Crossing &c = *l.decidingCrossing;
    EXPECT_EQ(c.faster, 2u);
    EXPECT_EQ(c.slower, 1u);
    EXPECT_NEAR(c.steps, 1 + 2.0 / 0.001, 1e-6); // 2 s later start, 1 ms a step faster
    ASSERT_TRUE(c.ci.hasInterval);
    EXPECT_FALSE(c.ci.lowNever);
    EXPECT_FALSE(c.ci.highNever);
    EXPECT_LT(c.ci.low, c.steps);
    EXPECT_GT(c.ci.high, c.steps);
    EXPECT_EQ(c.range, breakEvenRangeText(c.ci));
    EXPECT_TRUE(contains(l.recommendationText,
                         "; cuda-graph+sgd-fused overtakes cuda-graph after 2001 steps (95% CI " + c.range + ")"))
        << l.recommendationText;

    // The JSON export carries it for tools.
    const QJsonObject json = jsonOf(toJson(l)).value("deciding_crossing").toObject();
    EXPECT_EQ(json.value("faster").toString().toStdString(), l.rows[2].configName);
    EXPECT_NEAR(json.value("steps").toDouble(), c.steps, 1e-9);
    EXPECT_DOUBLE_EQ(json.value("ci_low").toDouble(), c.ci.low);
    EXPECT_DOUBLE_EQ(json.value("ci_high").toDouble(), c.ci.high);

    // A shorter run makes the CUDA graph the best; the fused row would overtake it only after the run.
    recommendFor(l, 1000);
    ASSERT_TRUE(l.decidingCrossing);
    EXPECT_EQ(l.recommendation->best, 1u);
    EXPECT_EQ(l.decidingCrossing->faster, 2u);
    EXPECT_TRUE(contains(l.recommendationText, "cuda-graph+sgd-fused would overtake cuda-graph only after 2001 steps"))
        << l.recommendationText;
}

// Against the baseline it is the row's own break-even interval (one computation, one answer), and
// with one process a side there is no interval to give.
TEST(LedgerDecidingCrossing, AgreesWithTheBaselineBreakEvenAndSaysWhenThereIsNone)
{
    Ledger l;
    l.rows.push_back(rowOfProcesses("baseline", 0.5, 10.0, 3));
    l.rows.push_back(rowOfProcesses("fast", 2.0, 5.0, 3));
    recommendFor(l, 10000);
    ASSERT_TRUE(l.decidingCrossing);
    EXPECT_EQ(l.decidingCrossing->faster, 1u);
    const stats::BreakEvenCI againstBaseline =
        stats::breakEvenInterval(processSummariesOf(l.rows[1]), processSummariesOf(l.rows[0]));
    EXPECT_EQ(l.decidingCrossing->range, breakEvenRangeText(againstBaseline));
    EXPECT_DOUBLE_EQ(l.decidingCrossing->ci.low, againstBaseline.low);

    Ledger single;
    single.rows.push_back(rowOfProcesses("baseline", 0.5, 10.0, 1));
    single.rows.push_back(rowOfProcesses("fast", 2.0, 5.0, 1));
    recommendFor(single, 10000);
    ASSERT_TRUE(single.decidingCrossing);
    EXPECT_FALSE(single.decidingCrossing->ci.hasInterval);
    EXPECT_TRUE(contains(single.recommendationText, "after 301 steps (1 repeat: no interval)"))
        << single.recommendationText;

    // Ahead from the first step: no crossing to decide on.
    Ledger ahead;
    ahead.rows.push_back(rowOfProcesses("baseline", 2.0, 10.0, 3));
    ahead.rows.push_back(rowOfProcesses("fast", 0.5, 5.0, 3));
    recommendFor(ahead, 10000);
    EXPECT_FALSE(ahead.decidingCrossing);
    EXPECT_TRUE(jsonOf(toJson(ahead)).value("deciding_crossing").isNull());
    EXPECT_FALSE(contains(ahead.recommendationText, "overtake")) << ahead.recommendationText;
}

} // namespace
} // namespace stepscope::report

namespace stepscope::report
{

// Issue 16: each row's cold and warm first steps and break-evens come from the runs' typed cache
// state, side by side; the ledger's start state picks the main figures; a warm run that missed its
// caches counts in neither.
TEST(LedgerCacheStates, ColdAndWarmFirstStepsSideBySideFromTypedState)
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("l.db").toStdString();
    RunConfig base, bf16;
    base.batch = bf16.batch = 2;
    base.imageSize = bf16.imageSize = 32;
    bf16.autocast = Autocast::BF16;
    std::int64_t sweepId = 0;
    {
        auto db = store::Database::open(path);
        sweepId = test::addSweep(*db, {"caches", "custom", 1000});
        int position = 0;
        const auto add = [&](const RunConfig &c, store::StartState start, double firstS, double levelMs,
                             bool missed = false) {
            test::RunSpec run = test::runOf(c, position);
            run.warmup = position++ == 0 ? store::MachineWarmup::FirstProcess : store::MachineWarmup::AfterOthers;
            run.caches = start;
            run.firstS = firstS;
            run.steps.push_back({1, std::nullopt, firstS * 1000});
            for (int i = 2; i <= 61; ++i)
                run.steps.push_back({i, std::nullopt, levelMs * (1.0 + 0.001 * (i % 3))});
            store::CacheRecord record;
            record.caches.push_back({"CUDA_CACHE_PATH", "/tmp/x", store::CacheUse::State::Primed, 100, 200000});
            if (missed)
                record.missed.push_back("CUDA_CACHE_PATH");
            run.cacheRecord = record;
            test::addRun(*db, sweepId, run);
        };
        add(base, store::StartState::Fresh, 1.00, 10);
        add(bf16, store::StartState::Fresh, 5.00, 5);
        add(base, store::StartState::Again, 0.40, 10);
        add(bf16, store::StartState::Again, 1.00, 5);
        add(base, store::StartState::Fresh, 1.02, 10);
        add(bf16, store::StartState::Fresh, 5.10, 5);
        add(base, store::StartState::Again, 0.41, 10);
        add(bf16, store::StartState::Again, 1.02, 5);
        add(bf16, store::StartState::Again, 4.00, 5, true); // compiled what it lacked: not warm
        db->flush();
    }
    auto reader = store::Reader::open(path);
    const Ledger fresh = buildLedger(*reader, sweepId);
    ASSERT_EQ(fresh.rows.size(), 2u);
    EXPECT_EQ(fresh.start, store::StartState::Fresh);
    EXPECT_TRUE(fresh.hasSeveralStarts);
    const LedgerRow &b = fresh.rows[0], &r = fresh.rows[1];
    EXPECT_EQ(r.firstStepStart, store::StartState::Fresh);
    ASSERT_TRUE(r.fresh.firstStepMs && r.again.firstStepMs && r.firstStepMs);
    EXPECT_DOUBLE_EQ(*r.fresh.firstStepMs, 5050.0);
    EXPECT_DOUBLE_EQ(*r.again.firstStepMs, 1010.0) << "the missed warm run is not a warm figure";
    EXPECT_EQ(r.again.processes, 2);
    EXPECT_EQ(r.warmMissed, 1);
    EXPECT_DOUBLE_EQ(*r.firstStepMs, *r.fresh.firstStepMs);
    EXPECT_EQ(r.processes, 5) << "the steady state pools every process, the missed one too";
    ASSERT_TRUE(r.machineCacheShareMs());
    EXPECT_DOUBLE_EQ(*r.machineCacheShareMs(), 4040.0);
    // Each state's break-even against the baseline's first step of the same state.
    ASSERT_TRUE(r.fresh.breakEvenSteps && r.again.breakEvenSteps && r.breakEvenSteps);
    EXPECT_DOUBLE_EQ(*r.fresh.breakEvenSteps,
                     *stats::breakEvenSteps(*r.fresh.firstStepMs, *r.steadyMs, *b.fresh.firstStepMs, *b.steadyMs));
    EXPECT_DOUBLE_EQ(*r.again.breakEvenSteps,
                     *stats::breakEvenSteps(*r.again.firstStepMs, *r.steadyMs, *b.again.firstStepMs, *b.steadyMs));
    EXPECT_DOUBLE_EQ(*r.breakEvenSteps, *r.fresh.breakEvenSteps);
    EXPECT_GT(*r.fresh.breakEvenSteps, *r.again.breakEvenSteps);
    EXPECT_TRUE(r.fresh.breakEvenCI && r.fresh.breakEvenCI->hasInterval) << "two cold processes on each side";
    EXPECT_TRUE(contains(fresh.recommendationText, "on a fresh machine")) << fresh.recommendationText;

    // The same sweep read for "this machine again": the warm figures lead.
    const Ledger again = buildLedger(*reader, sweepId, 0, {}, store::StartState::Again);
    const LedgerRow &w = again.rows[1];
    EXPECT_EQ(w.firstStepStart, store::StartState::Again);
    EXPECT_DOUBLE_EQ(*w.firstStepMs, 1010.0);
    EXPECT_DOUBLE_EQ(*w.breakEvenSteps, *w.again.breakEvenSteps);
    EXPECT_TRUE(contains(again.recommendationText, "on this machine again")) << again.recommendationText;

    // Every export says which state each first step is.
    const std::string md = toMarkdown(fresh);
    EXPECT_TRUE(contains(md, "5.05 s fresh")) << md;
    EXPECT_TRUE(contains(md, "other starts (first step, break-even) |")) << md;
    EXPECT_TRUE(contains(md, "1.01 s again, " + std::to_string(std::llround(*r.again.breakEvenSteps)))) << md;
    EXPECT_TRUE(contains(md, "(1 run(s) missed their caches: in no state)")) << md;
    EXPECT_TRUE(contains(md, "What the machine's caches cost each first step")) << md;
    // The sweep's first process paid only for what no cache folder holds: not "machine cold".
    EXPECT_TRUE(contains(md, "1.01 s fresh first process 1/4")) << md;
    EXPECT_FALSE(contains(md, "machine cold")) << md;
    const QJsonObject row = jsonOf(toJson(fresh)).value("rows").toArray()[1].toObject();
    EXPECT_EQ(row.value("first_step_start").toString(), "fresh");
    EXPECT_DOUBLE_EQ(row.value("again_start").toObject().value("first_step_s").toDouble(), 1.01);
    EXPECT_EQ(row.value("shipped_start").toObject().value("processes").toInt(), 0);
    EXPECT_EQ(row.value("start_missed").toInt(), 1);
    EXPECT_TRUE(contains(toCsv(fresh), ",fresh,5.05,,1.01,")) << toCsv(fresh);

    // Issue 28: what finishes first under each start state, and the fresh pick rests on fresh
    // first steps only (the again figures are shorter, and a fresh machine has none of them).
    const QJsonObject byStart = jsonOf(toJson(fresh)).value("recommended_by_start").toObject();
    ASSERT_TRUE(byStart.value("fresh").isObject()) << toJson(fresh);
    ASSERT_EQ(fresh.byStart.size(), 3u);
    // Each state's pick totals its own first step and the planned steps at its steady time.
    const auto expectTotals = [](const Ledger &ledger, std::int64_t planned) {
        for (const Ledger::StartPick &pick : ledger.byStart) {
            ASSERT_TRUE(pick.row);
            const LedgerRow &picked = ledger.rows[*pick.row];
            const double first =
                pick.state == store::StartState::Again ? *picked.again.firstStepMs : *picked.fresh.firstStepMs;
            EXPECT_NEAR(pick.totalSeconds, first / 1000.0 + double(planned - 1) * *picked.steadyMs / 1000.0, 1e-6)
                << store::toString(pick.state) << " at " << planned << " steps";
        }
    };
    expectTotals(fresh, 1000);
    for (const Ledger::StartPick &pick : fresh.byStart)
        EXPECT_EQ(pick.measured, pick.state != store::StartState::Shipped) << "no shipped run: fresh stands in";
    // Another planned length (the dashboard's box) picks every state again: the exports never mix
    // the assumed state's verdict for one length with the others' for another.
    Ledger shorter = fresh;
    recommendFor(shorter, 10);
    expectTotals(shorter, 10);
}

namespace
{

// Losses of a batch of 2, which ResNet18 memorises within ten steps: from 6.9 down to 1e-4. bf16
// takes the steep part a little later and ends at other near-zero values.
const std::vector<double> kBatch2Fp32{6.91, 4.12, 0.93, 0.061, 0.0042, 0.00063, 0.00021, 0.00013, 0.00011, 0.0001};
const std::vector<double> kBatch2Bf16{6.92, 4.35, 1.21, 0.094, 0.0071, 0.0013, 0.00041, 0.00024, 0.00019, 0.00016};

RunConfig bf16Config()
{
    RunConfig c;
    c.autocast = Autocast::BF16;
    return c;
}

} // namespace

TEST(AccuracyGate, NearZeroLossesOfABatchOfTwoAreNoDifference)
{
    // What a relative difference alone made of these curves: far beyond bf16's tolerance, both at
    // the steep part and between the near-zero losses at the end.
    double relative = 0;
    for (std::size_t i = 0; i < kBatch2Fp32.size(); ++i)
        relative = std::max(relative, std::abs(kBatch2Bf16[i] - kBatch2Fp32[i]) / kBatch2Fp32[i]);
    const double tolerance = lossTolerance(bf16Config());
    ASSERT_GT(relative, 5 * tolerance);

    const LedgerRow::Accuracy a = compareLosses(kBatch2Bf16, kBatch2Fp32, tolerance);
    EXPECT_EQ(a.verdict, LedgerRow::Accuracy::Verdict::Ok) << accuracyText(a);
    EXPECT_EQ(accuracyText(a), "ok");
    EXPECT_LE(a.worstShare, 1.0);
    EXPECT_EQ(a.worstStep, 3) << "the steep part uses the most of the allowance";
    EXPECT_NEAR(a.allowed, tolerance * (0.93 + 6.91), 1e-12) << "relative to the loss plus the first loss";
}

TEST(AccuracyGate, DivergedIsForLossesThatGrowOrAreNotFinite)
{
    const double tolerance = lossTolerance(bf16Config());
    using Verdict = LedgerRow::Accuracy::Verdict;
    const std::vector<double> growing{6.91, 7.4, 8.9, 12.0, 15.5, 19.0, 22.1, 24.0, 25.2, 26.3};
    const LedgerRow::Accuracy grew = compareLosses(growing, kBatch2Fp32, tolerance);
    EXPECT_EQ(grew.verdict, Verdict::Diverged);
    EXPECT_TRUE(grew.stalled && grew.finite);
    EXPECT_EQ(accuracyText(grew), "diverged (loss rose from 6.91 to 26.3 while the baseline's fell to 0.0001)");

    std::vector<double> nan = kBatch2Bf16;
    nan[4] = std::numeric_limits<double>::quiet_NaN();
    const LedgerRow::Accuracy notFinite = compareLosses(nan, kBatch2Fp32, tolerance);
    EXPECT_EQ(notFinite.verdict, Verdict::Diverged);
    EXPECT_EQ(accuracyText(notFinite), "diverged (a loss is not finite)");

    // Training that works, half as fast as the baseline's: a difference, said as one.
    const std::vector<double> slower{6.91, 6.5, 6.1, 5.7, 5.3, 4.9, 4.5, 4.1, 3.8, 3.5};
    const LedgerRow::Accuracy differs = compareLosses(slower, kBatch2Fp32, tolerance);
    EXPECT_EQ(differs.verdict, Verdict::Differs);
    EXPECT_EQ(differs.worstStep, 4);
    EXPECT_EQ(accuracyText(differs), "differs (step 4: 5.7 vs 0.061, 0.7 allowed)");

    // A baseline that does not fall itself makes no row "diverged" for not falling.
    const std::vector<double> flat(10, 6.9);
    EXPECT_EQ(compareLosses(flat, flat, tolerance).verdict, Verdict::Ok);
}

// A batch-2 sweep: bf16 within its allowance is recommended; a faster fp16 row whose loss is NaN and
// a faster still one whose loss grew are left out, and the recommendation says which and why.
TEST(AccuracyGate, TheRecommendationSaysWhichRowsItLeftOutAndWhy)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const std::string path = dir.filePath("b2.db").toStdString();
    std::int64_t sweepId = 0;
    std::vector<double> nan = kBatch2Bf16;
    nan[6] = std::numeric_limits<double>::infinity();
    const std::vector<double> growing{6.91, 7.4, 8.9, 12.0, 15.5, 19.0, 22.1, 24.0, 25.2, 26.3};
    {
        auto db = store::Database::open(path);
        sweepId = test::addSweep(*db, {"batch 2", "ledger", 10000});
        int position = 0;
        for (int repeat = 0; repeat < 2; ++repeat)
            for (const auto &[name, json, levelMs, losses] :
                 std::vector<std::tuple<std::string, std::string, double, std::vector<double>>>{
                     {"native cuda b2 224px c1000 baseline", R"({"batch":2})", 20.0, kBatch2Fp32},
                     {"native cuda b2 224px c1000 bf16", R"({"batch":2,"autocast":"bf16"})", 12.0, kBatch2Bf16},
                     {"native cuda b2 224px c1000 fp16", R"({"batch":2,"autocast":"fp16"})", 10.0, nan},
                     {"native cuda b2 224px c1000 bf16+channels-last",
                      R"({"batch":2,"autocast":"bf16","channels_last":true})", 9.0, growing}}) {
                test::RunSpec run = test::runNamed(name, position++, json);
                run.steps = test::stepsAt(levelMs + repeat * 0.1);
                run.firstS = 1.0 + repeat * 0.01;
                run.checkLosses = losses;
                test::addRun(*db, sweepId, run);
            }
        db->flush();
    }
    auto reader = store::Reader::open(path);
    const Ledger l = buildLedger(*reader, sweepId);
    ASSERT_EQ(l.rows.size(), 4u);
    EXPECT_EQ(l.rows[1].accuracy.verdict, LedgerRow::Accuracy::Verdict::Ok) << accuracyText(l.rows[1].accuracy);
    EXPECT_TRUE(l.rows[2].accuracy.diverged());
    EXPECT_TRUE(l.rows[3].accuracy.diverged());
    ASSERT_TRUE(l.recommended);
    EXPECT_EQ(l.rows[*l.recommended].label, "bf16") << l.recommendationText;
    EXPECT_EQ(l.leftOut, (std::vector<std::size_t>{2, 3}));
    EXPECT_TRUE(contains(l.recommendationText, " Left out of the recommendation: fp16 (training diverged: a loss is "
                                               "not finite); bf16+channels-last (training diverged: loss rose from "
                                               "6.91 to 26.3 while the baseline's fell to 0.0001)."))
        << l.recommendationText;
    EXPECT_EQ(leftOutReason(l.rows[1]), "");
    // Every export carries the verdicts.
    EXPECT_TRUE(contains(toMarkdown(l), "| diverged (a loss is not finite) |")) << toMarkdown(l);
    const QJsonObject json = jsonOf(toJson(l));
    EXPECT_EQ(json.value("rows").toArray()[1].toObject().value("accuracy").toString(), "ok");
    EXPECT_TRUE(contains(json.value("recommendation").toString().toStdString(), "Left out of the recommendation"));
}

// A row whose losses differ stays a candidate; when it is the one to use, the recommendation says
// that its losses differ.
TEST(AccuracyGate, ARecommendedRowThatDiffersIsNamedAsSuch)
{
    Ledger l;
    l.rows.push_back(test::rowOfProcesses("baseline", 1.0, 20.0, 3));
    l.rows.push_back(test::rowOfProcesses("bf16", 1.0, 10.0, 3));
    l.rows[0].accuracy.verdict = LedgerRow::Accuracy::Verdict::Reference;
    const std::vector<double> slower{6.91, 6.5, 6.1, 5.7, 5.3, 4.9, 4.5, 4.1, 3.8, 3.5};
    l.rows[1].accuracy = compareLosses(slower, kBatch2Fp32, 0.10);
    recommendFor(l, 10000);
    ASSERT_TRUE(l.recommended);
    EXPECT_EQ(*l.recommended, 1u) << "a difference does not take a row out";
    EXPECT_TRUE(l.leftOut.empty());
    EXPECT_TRUE(contains(l.recommendationText, " bf16's losses differ from the baseline's beyond its tolerance "
                                               "(step 4: 5.7 vs 0.061, 0.7 allowed): it trains, but check its "
                                               "accuracy before a long run."))
        << l.recommendationText;
}

// Issue 21: a data-parallel row against the same configuration at world size 1, and how far its
// ranks were apart over the steady window (the run's own steps are its slowest rank's).
TEST(LedgerDataParallel, ScalingEfficiencyAndRankSpread)
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("ddp.db").toStdString();
    RunConfig single;
    single.runtime = Runtime::Python;
    single.batch = 2;
    single.imageSize = 32;
    RunConfig ddp = single;
    ddp.worldSize = 2;
    ddp.ddpStaticGraph = true;
    RunConfig alone = single; // a world-size-2 row without its world-size-1 one
    alone.tf32 = false;
    alone.channelsLast = true;
    alone.worldSize = 2;
    std::int64_t sweep = 0;
    {
        auto db = store::Database::open(path);
        sweep = test::addSweep(*db, {"ddp", "custom", 1000});
        auto add = [&](const RunConfig &config, int position, double levelMs) {
            test::RunSpec run = test::runOf(config, position);
            run.steps = test::stepsAt(levelMs);
            run.firstS = 1.0;
            store::RunSummary summary;
            summary.medianMs = levelMs;
            summary.steadyBegin = 11;
            summary.steadyCount = 50;
            summary.noise = "ok";
            summary.timing = store::Timing::Wall;
            summary.methodVersion = report::kSummaryMethodVersion;
            run.summary = summary;
            return test::addRun(*db, sweep, run);
        };
        add(single, 0, 10.0);
        const auto id = add(ddp, 1, 12.5);
        // Rank 0 is 0.5 ms faster than rank 1 (whose times are the run's steps) at every step.
        db->appendRankSteps(id, 0, test::stepsAt(12.0));
        db->appendRankSteps(id, 1, test::stepsAt(12.5));
        add(alone, 2, 11.0);
        db->flush();
    }
    auto reader = store::Reader::open(path);
    ASSERT_EQ(reader->rankSteps(reader->runs(sweep)[1].id).size(), 120u);
    const Ledger ledger = buildLedger(*reader, sweep);
    ASSERT_EQ(ledger.rows.size(), 3u);
    EXPECT_EQ(ledger.rows[0].worldSize, 1);
    EXPECT_FALSE(ledger.rows[0].scalingEfficiency);
    const LedgerRow &row = ledger.rows[1];
    EXPECT_EQ(row.worldSize, 2);
    ASSERT_TRUE(row.scalingEfficiency);
    EXPECT_NEAR(*row.scalingEfficiency, 10.0 / 12.5, 0.01);
    EXPECT_EQ(row.scalingReference, ledger.rows[0].label);
    ASSERT_TRUE(row.rankSpreadMs);
    EXPECT_NEAR(*row.rankSpreadMs, 0.5, 1e-9);
    EXPECT_FALSE(ledger.rows[2].scalingEfficiency) << "no world-size-1 row of its own";
    EXPECT_TRUE(ledger.rows[2].scalingReference.empty());
    const QJsonObject exported = jsonOf(toJson(ledger)).value("rows").toArray()[1].toObject();
    EXPECT_EQ(exported.value("world_size").toInt(), 2);
    EXPECT_NEAR(exported.value("scaling_efficiency").toDouble(), 0.8, 0.01);
    EXPECT_NEAR(exported.value("rank_spread_ms").toDouble(), 0.5, 1e-9);
}

} // namespace stepscope::report
