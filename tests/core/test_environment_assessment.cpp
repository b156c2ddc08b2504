// The environment assessment of core/report: each rule of the environment record, and the timing
// rules (launch-bound steps, what pinning did) over a stored CUDA sweep, with the words and the
// exports both front-ends print.
#include "report/assessment_text.h"
#include "report/environment_assessment.h"
#include "report/ledger.h"
#include "report/sweep_export.h"
#include "stored_sweep.h"

#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <algorithm>
#include <string>

namespace stepscope::report
{
namespace
{

const EnvironmentFact *factOf(const std::vector<EnvironmentFact> &facts, const std::string &key)
{
    const auto it = std::find_if(facts.begin(), facts.end(), [&](const EnvironmentFact &f) { return f.key == key; });
    return it == facts.end() ? nullptr : &*it;
}

bool contains(const std::string &haystack, const std::string &needle)
{
    return haystack.find(needle) != std::string::npos;
}

TEST(EnvironmentAssessment, EachRuleOfTheRecordGivesItsFinding)
{
    const auto facts = assessEnvironment(
        R"j({"torch":"2.11.0","gpu":"NVIDIA H200","cuda_cache_path":"unset (default ~/.nv/ComputeCache)",)j"
        R"j("cuda_module_loading":"EAGER","cpu_threads":2,"cpu_affinity":"one",)j"
        R"j("after_throttle_reasons":"sw-power-cap","host":"h1"})j");
    ASSERT_FALSE(facts.empty());
    // GPU first, versions next, whatever the record's order.
    EXPECT_EQ(facts[0].key, "gpu");
    EXPECT_EQ(facts[1].key, "torch");
    const auto expect = [&](const char *key, Finding finding, Severity severity) {
        const EnvironmentFact *f = factOf(facts, key);
        ASSERT_NE(f, nullptr) << key;
        EXPECT_EQ(f->finding, finding) << key;
        EXPECT_EQ(f->severity, severity) << key;
    };
    expect("cuda_cache_path", Finding::SharedCudaCache, Severity::Warning);
    expect("cuda_module_loading", Finding::EagerModuleLoading, Severity::Warning);
    expect("cpu_threads", Finding::FewCpuThreads, Severity::Warning);
    expect("cpu_affinity", Finding::PinnedWorker, Severity::Info);
    expect("after_throttle_reasons", Finding::GpuThrottled, Severity::Problem);
    expect("host", Finding::None, Severity::None);
    EXPECT_EQ(factOf(facts, "cpu_threads")->value, "2"); // numbers as text
    // A GPU without any clock in the record: a fact it lacks, listed last.
    EXPECT_EQ(facts.back().key, "gpu_clocks");
    EXPECT_FALSE(facts.back().recorded);
    EXPECT_EQ(facts.back().finding, Finding::ClocksNotRecorded);
    EXPECT_EQ(lineOf(facts.back()).value, "not recorded");

    // Idle is no slowdown; LAZY loading is only information; a clock under 90% of its maximum is.
    const auto calm = assessEnvironment(R"j({"gpu":"NVIDIA H200","after_throttle_reasons":"gpu-idle",)j"
                                        R"j("cuda_module_loading":"LAZY","cuda_cache_path":"/tmp/fresh",)j"
                                        R"j("after_sm_clock_mhz":1500,"before_sm_clock_max_mhz":1980})j");
    EXPECT_EQ(factOf(calm, "after_throttle_reasons")->finding, Finding::None);
    EXPECT_EQ(factOf(calm, "cuda_module_loading")->finding, Finding::LazyModuleLoading);
    EXPECT_EQ(factOf(calm, "cuda_cache_path")->finding, Finding::None);
    EXPECT_EQ(factOf(calm, "after_sm_clock_mhz")->finding, Finding::SmClockBelowMaximum);
    EXPECT_EQ(factOf(calm, "gpu_clocks"), nullptr);

    // Without CUDA every figure is a CPU figure, and CUDA's caches and clocks do not matter.
    const auto cpu = assessEnvironment(R"j({"gpu":"none (CUDA not available)","cuda_cache_path":"unset"})j");
    EXPECT_EQ(factOf(cpu, "gpu")->finding, Finding::CudaUnavailable);
    EXPECT_EQ(factOf(cpu, "gpu")->severity, Severity::Problem);
    EXPECT_EQ(factOf(cpu, "cuda_cache_path")->finding, Finding::None);
    EXPECT_EQ(factOf(cpu, "gpu_clocks"), nullptr);

    EXPECT_TRUE(assessEnvironment("not json").empty());
    EXPECT_TRUE(assessEnvironment("").empty());
}

// A CUDA sweep as an H200 measured it: unpinned eager steps wait for launches (wall far above GPU
// time), the pinned twin runs 1.55x faster, the CUDA graph is GPU-bound.
class TimingAssessmentTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        ASSERT_TRUE(dir_.isValid());
        path_ = dir_.filePath("t.db").toStdString();
        auto db = store::Database::open(path_);
        sweepId_ = test::addSweep(*db, {"pinning"});
        store::EnvironmentRecord env;
        env.gpu = "NVIDIA H200";
        env.json = R"j({"gpu":"NVIDIA H200","cuda_cache_path":"unset (default)"})j";
        const auto envId = db->addEnvironment(env);
        RunConfig eager;
        eager.device = "cuda";
        eager.autocast = Autocast::BF16;
        eager.channelsLast = true;
        pinned_ = eager;
        pinned_.cpuAffinity = "one";
        RunConfig graph = pinned_;
        graph.cudaGraph = true;
        int position = 0;
        test::addStoredRun(*db, sweepId_, position++, {eager, 1.0, 8.0, 12.0, true}, envId);
        test::addStoredRun(*db, sweepId_, position++, {pinned_, 1.0, 5.3, 5.5, true});
        test::addStoredRun(*db, sweepId_, position++, {graph, 1.0, 4.0, 4.1, true});
        test::addStoredRun(*db, sweepId_, position++, {eager, 1.0, 8.4, 12.6, true});
        // Neither a failed run nor its missing figures count.
        test::StoredRun failed{graph, 1.0, 1.0, 50.0, true, RunStatus::Failed};
        test::addStoredRun(*db, sweepId_, position++, failed);
        db->finishSweep(sweepId_, store::SweepStatus::Complete);
        db->flush();
    }

    QTemporaryDir dir_;
    std::string path_;
    std::int64_t sweepId_ = 0;
    RunConfig pinned_;
};

TEST_F(TimingAssessmentTest, LaunchBoundAndPinningFromTheStoredRuns)
{
    const auto reader = store::Reader::open(path_);
    const auto timings = sweepTimings(*reader, sweepId_);
    ASSERT_EQ(timings.size(), 4u); // the completed runs
    const TimingAssessment timing = assessTiming(timings);

    ASSERT_TRUE(timing.launchBound);
    EXPECT_EQ(timing.launchBound->bound, 1);
    EXPECT_EQ(timing.launchBound->measured, 3);
    EXPECT_EQ(timing.launchBound->worst.cpuAffinity, "none");
    // Repeats pooled by their medians: wall (12 + 12.6) / 2 over GPU about (8 + 8.4) / 2.
    EXPECT_NEAR(timing.launchBound->wallMs, 12.3, 1e-9);
    EXPECT_NEAR(timing.launchBound->gpuMs, 8.2, 0.02);
    EXPECT_NEAR(timing.launchBound->ratio, 12.3 / timing.launchBound->gpuMs, 1e-9);
    EXPECT_GE(timing.launchBound->ratio, kLaunchBoundRatio);

    ASSERT_EQ(timing.pinning.size(), 1u);
    EXPECT_EQ(timing.pinning[0].pinned, pinned_);
    EXPECT_NEAR(timing.pinning[0].pinnedMs, 5.3, 0.01);
    EXPECT_NEAR(timing.pinning[0].unpinnedMs, 8.2, 0.02);
    EXPECT_EQ(timing.pinning[0].outcome, PinningOutcome::Faster);

    // The words both front-ends print: which configuration, the figures, and the fix.
    const auto lines = timingLines(timing);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0].key, "launch_bound");
    EXPECT_EQ(lines[0].severity, Severity::Warning);
    EXPECT_TRUE(contains(lines[0].value, "1 of 3 configurations; worst bf16+channels-last: wall 12.30 ms per step"))
        << lines[0].value;
    EXPECT_TRUE(contains(lines[0].fix, "cpu_affinity one")) << lines[0].fix;
    EXPECT_EQ(lines[1].key, "cpu_pinning");
    EXPECT_TRUE(contains(lines[1].value, "bf16+channels-last+pin-one-core: 5.3")) << lines[1].value;
    EXPECT_TRUE(contains(lines[1].value, "unpinned (1.5")) << lines[1].value;
    EXPECT_TRUE(contains(lines[1].value, "x faster)")) << lines[1].value;
}

TEST_F(TimingAssessmentTest, AnAlreadyPinnedWorstRowIsToldAnotherFix)
{
    RunConfig pinned;
    pinned.device = "cuda";
    pinned.cpuAffinity = "one";
    const auto timing = assessTiming({{test::configJsonOf(pinned), 5.0, 9.0}});
    ASSERT_TRUE(timing.launchBound);
    EXPECT_TRUE(timing.pinning.empty()); // no unpinned twin
    EXPECT_TRUE(contains(timingLines(timing)[0].fix, "Already pinned")) << timingLines(timing)[0].fix;
    // A wall time unknown (0) says nothing about launches; CPU runs have no GPU time to compare.
    RunConfig cpu;
    EXPECT_FALSE(assessTiming({{test::configJsonOf(pinned), 5.0, 0}}).launchBound);
    EXPECT_FALSE(assessTiming({{test::configJsonOf(cpu), 5.0, 9.0}}).launchBound);
    EXPECT_FALSE(assessTiming({{"not a configuration", 5.0, 9.0}}).launchBound);
}

TEST_F(TimingAssessmentTest, TheSweepExportsCarryTheAssessment)
{
    const auto reader = store::Reader::open(path_);
    const Ledger ledger = buildLedger(*reader, sweepId_);
    const SweepFigures figures = sweepFigures(*reader, ledger);
    EXPECT_TRUE(figures.compile.empty()); // nothing compiled

    const std::string md = toMarkdown(ledger, figures);
    EXPECT_TRUE(contains(md, toMarkdown(ledger))) << "the ledger's own Markdown comes first";
    EXPECT_TRUE(contains(md, "### What may skew these numbers"));
    EXPECT_TRUE(contains(md, "- **Launch-bound steps** (1 of 3 configurations")) << md;
    EXPECT_TRUE(contains(md, "- **CUDA_CACHE_PATH** (unset (default), warning)")) << md;
    EXPECT_TRUE(contains(md, "**What pinning did**")) << md;

    QJsonParseError error;
    const QJsonObject root =
        QJsonDocument::fromJson(QByteArray::fromStdString(toJson(ledger, figures)), &error).object();
    ASSERT_EQ(error.error, QJsonParseError::NoError);
    EXPECT_EQ(root["rows"].toArray().size(), 3); // the ledger's keys stay
    const QJsonObject assessment = root["environment_assessment"].toObject();
    QStringList ids;
    for (const auto &f : assessment["findings"].toArray())
        ids << f.toObject()["id"].toString();
    EXPECT_TRUE(ids.contains("launch_bound") && ids.contains("cpu_pinning") && ids.contains("shared_cuda_cache") &&
                ids.contains("clocks_not_recorded"))
        << ids.join(',').toStdString();
    EXPECT_EQ(assessment["launch_bound"].toObject()["configurations"].toInt(), 1);
    EXPECT_NEAR(assessment["launch_bound"].toObject()["wall_ms"].toDouble(), 12.3, 1e-9);
    EXPECT_EQ(assessment["cpu_pinning"].toArray()[0].toObject()["outcome"].toString(), "faster");
    EXPECT_TRUE(root["compile_break_even"].toArray().isEmpty());
}

} // namespace
} // namespace stepscope::report
