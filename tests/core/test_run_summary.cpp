// The one reading of a run (report/run_summary.h): what it computes from stored steps, and the
// backfill that gives every completed run of an older file its summary.
#include "report/run_summary.h"
#include "stats/stats.h"
#include "store/store.h"
#include "stored_sweep.h"

#include <gtest/gtest.h>

#include <QTemporaryDir>

#include <cmath>

namespace stepscope::report
{
namespace
{

// Steps 1..n: a slow first step, a short warm-up, then a level with a little wobble.
std::vector<store::StepRow> runSteps(int n, double level, bool gpu)
{
    std::vector<store::StepRow> steps;
    for (int i = 1; i <= n; ++i) {
        const double ms = i == 1 ? 900.0 : (i < 6 ? level * 3 : level + (i % 3) * 0.01);
        store::StepRow row{i, std::nullopt, ms + 1.0};
        if (gpu)
            row.gpuMs = ms;
        steps.push_back(row);
    }
    return steps;
}

TEST(RunSummary, ReadsTheSteadyWindowOfTheStepsAfterTheFirst)
{
    const auto steps = runSteps(80, 10.0, true);
    const store::RunSummary s = summarizeSteps(steps);
    EXPECT_EQ(s.methodVersion, kSummaryMethodVersion);
    EXPECT_EQ(s.timing, store::Timing::Gpu);
    ASSERT_TRUE(hasSteadyState(s)) << s.noise;
    EXPECT_GE(s.steadyBegin, 6) << "the warm-up steps are not steady";
    EXPECT_EQ(s.steadyBegin + s.steadyCount - 1, 80) << "the window runs to the last step";
    EXPECT_EQ(s.noise, "ok");

    // The figures are those of the steps inside the window, CUDA-event time.
    std::vector<double> inside;
    for (const auto &step : steps)
        if (step.index >= s.steadyBegin)
            inside.push_back(*step.gpuMs);
    const auto expected = stats::summarize(inside);
    EXPECT_DOUBLE_EQ(*s.medianMs, expected.median);
    EXPECT_DOUBLE_EQ(*s.p10Ms, expected.p10);
    EXPECT_DOUBLE_EQ(*s.p90Ms, expected.p90);
    EXPECT_DOUBLE_EQ(*s.iqrMs, expected.iqr);
    EXPECT_DOUBLE_EQ(*s.madMs, expected.mad);
    EXPECT_DOUBLE_EQ(*s.cv, expected.cv);
    EXPECT_EQ(steadySamples(stepSeries(steps), s), inside);

    const store::RunSummary wall = summarizeSteps(runSteps(80, 10.0, false));
    EXPECT_EQ(wall.timing, store::Timing::Wall);
    EXPECT_DOUBLE_EQ(*wall.medianMs, *s.medianMs + 1.0);

    const store::RunSummary few = summarizeSteps(runSteps(6, 10.0, true));
    EXPECT_FALSE(hasSteadyState(few));
    ASSERT_TRUE(few.problem) << "the reason is data";
    EXPECT_EQ(few.problem->kind, SteadyProblem::Kind::TooFewSteps);
    EXPECT_EQ(few.noise, "") << "no noise flag without a steady state";
    EXPECT_TRUE(steadySamples(stepSeries(runSteps(6, 10.0, true)), few).empty());

    const StepWindow w = steadyWindowOf(stepSeries(steps));
    EXPECT_TRUE(w.found);
    EXPECT_EQ(w.first, s.steadyBegin);
    EXPECT_EQ(w.count, s.steadyCount);
}

// An older file: completed runs without a summary, one with a summary of no known rule, a failed
// run. Opening it and refreshing fills exactly the completed runs, by the one rule.
TEST(RunSummary, RefreshFillsMissingAndOutdatedSummariesOnce)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const std::string path = dir.filePath("old.sqlite").toStdString();
    std::vector<std::int64_t> complete;
    std::int64_t failed = 0;
    {
        store::OpenOptions options;
        options.migrateUpTo = 4;
        auto db = store::Database::open(path, options);
        test::SweepSpec sweep("old", "ledger", 0);
        sweep.status = store::SweepStatus::Running; // what the store wrote for no status
        const auto sweepId = test::addSweep(*db, sweep);
        for (int i = 0; i < 4; ++i) {
            test::RunSpec run =
                test::runNamed(i == 0 ? "native cpu b8 64px c1000 baseline" : "native cpu b8 64px c1000 bf16", i, "");
            run.started = false; // as the older file's rows were written
            run.steps = runSteps(60, 10.0 + i, i % 2 == 0);
            if (i == 3) {
                run.status = RunStatus::Failed;
                run.failure = Failure{FailureCategory::WorkerCrashed, "crashed", ""};
                failed = test::addRun(*db, sweepId, run);
            } else {
                complete.push_back(test::addRun(*db, sweepId, run));
            }
        }
        store::RunSummary wrong; // what an older rule left: another window, another median
        wrong.medianMs = 99.0;
        wrong.steadyBegin = 2;
        wrong.steadyCount = 5;
        wrong.noise = "ok";
        db->setSummary(complete[1], wrong);
        db->flush();
    }
    auto db = store::Database::open(path);
    auto reader = store::Reader::open(path);
    EXPECT_EQ(refreshSummaries(*db, *reader), 3);
    for (const auto id : complete) {
        const auto stored = reader->summary(id);
        ASSERT_TRUE(stored) << id;
        const auto expected = summarizeSteps(reader->steps(id));
        EXPECT_EQ(stored->methodVersion, kSummaryMethodVersion);
        EXPECT_EQ(stored->timing, expected.timing);
        EXPECT_EQ(stored->medianMs, expected.medianMs) << id;
        EXPECT_EQ(stored->steadyBegin, expected.steadyBegin);
        EXPECT_EQ(stored->steadyCount, expected.steadyCount);
        EXPECT_EQ(stored->noise, expected.noise);
    }
    EXPECT_NE(reader->summary(complete[1])->medianMs, std::optional<double>(99.0));
    EXPECT_FALSE(reader->summary(failed)) << "only completed runs are summarized";
    EXPECT_EQ(refreshSummaries(*db, *reader), 0) << "a second open has nothing to do";
    EXPECT_EQ(refreshSummaries(*db), 0);
}

// A view asks for a run's summary: the stored one when it is of the current rule (even where the
// rule would now find another window), else the rule applied to the steps on the spot.
TEST(RunSummary, SummaryOfPrefersTheStoredOneOfTheCurrentRule)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const std::string path = dir.filePath("s.sqlite").toStdString();
    auto db = store::Database::open(path);
    test::SweepSpec sweep("s", "", 0);
    sweep.status = store::SweepStatus::Running; // what the store wrote for no status
    const auto sweepId = test::addSweep(*db, sweep);
    test::RunSpec run = test::runNamed("native cpu b8 64px c1000 baseline", 0, "");
    run.started = false; // written as the test always wrote it: never marked running
    run.steps = runSteps(60, 10.0, true);
    const auto stored = test::addRun(*db, sweepId, run);
    run.started = true;
    run.finished = false; // still running
    run.steps = runSteps(60, 20.0, true);
    const auto running = test::addRun(*db, sweepId, run);
    store::RunSummary s = summarizeSteps(runSteps(60, 10.0, true));
    s.medianMs = 42.0; // a figure the rule would not give: only the stored summary has it
    db->setSummary(stored, s);
    db->flush();

    auto reader = store::Reader::open(path);
    EXPECT_EQ(summaryOf(*reader, *reader->run(stored)).medianMs, std::optional<double>(42.0));
    const RunReading reading = readRun(*reader, *reader->run(stored));
    EXPECT_TRUE(reading.stored);
    EXPECT_EQ(reading.steady.size(), static_cast<std::size_t>(s.steadyCount));
    // A running run has no summary yet: read by the same rule on the fly.
    const auto live = summaryOf(*reader, *reader->run(running));
    EXPECT_EQ(live.medianMs, summarizeSteps(runSteps(60, 20.0, true)).medianMs);
    EXPECT_FALSE(readRun(*reader, *reader->run(running)).stored);

    // A stored summary of an older rule is not used.
    s.methodVersion = kSummaryMethodVersion - 1;
    db->setSummary(stored, s);
    db->flush();
    EXPECT_EQ(summaryOf(*reader, *reader->run(stored)).medianMs, summarizeSteps(runSteps(60, 10.0, true)).medianMs);
}

} // namespace
} // namespace stepscope::report
