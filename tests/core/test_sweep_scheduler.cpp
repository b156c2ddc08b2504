// The sweep's scheduling decisions alone (supervisor/sweep_scheduler.h): which lane takes which run,
// what the end of a run changes, and what an adaptive round adds, asked directly with no worker
// process and no database. test_sweep_lanes.cpp runs the same rules through real processes.
#include "supervisor/sweep_scheduler.h"

#include <gtest/gtest.h>

#include <chrono>

namespace stepscope::supervisor::test
{
namespace
{

using Lane = SweepScheduler::Lane;

// Configurations told apart by their batch: each has a canonical name of its own.
RunConfig config(int batch, int worldSize = 1)
{
    RunConfig c;
    c.device = "cuda";
    c.batch = batch;
    c.worldSize = worldSize;
    return c;
}

Failure deviceGone()
{
    return Failure{FailureCategory::CudaUnavailable, "CUDA error: no CUDA-capable device is detected", {}};
}

// A lane's run ended well, with a steady state of `steps`.
void complete(SweepScheduler &s, int lane, std::vector<double> steps = {})
{
    const auto ended = s.finish(lane, RunStatus::Complete, std::nullopt, std::move(steps));
    EXPECT_FALSE(ended.retired);
}

// What next() starts, as (lane, run) for assertions; {-1, 0} when it starts nothing.
std::pair<int, std::size_t> next(SweepScheduler &s)
{
    const auto start = s.next();
    return start ? std::pair<int, std::size_t>{start->lane, start->run} : std::pair<int, std::size_t>{-1, 0};
}

const std::pair<int, std::size_t> kNothing{-1, 0};

// One completed process for each of `ms`, every steady step of it that long.
void steadyProcesses(SweepScheduler &s, int lane, const std::vector<double> &ms)
{
    for (double m : ms) {
        ASSERT_TRUE(s.next()) << "a run to give the steady steps to";
        complete(s, lane, std::vector<double>(30, m));
    }
}

AdaptiveRepeats adaptiveOn(int maxProcesses = 10, int maxMinutes = 0)
{
    AdaptiveRepeats adaptive;
    adaptive.enabled = true;
    adaptive.maxProcesses = maxProcesses;
    adaptive.maxMinutes = maxMinutes;
    return adaptive;
}

// Two processes of `c`, at 10 and 20 ms a step: an interval far wider than +-2% of the median.
void twoWideProcesses(SweepScheduler &s, const RunConfig &c)
{
    s.addRun(c);
    s.addRun(c);
    steadyProcesses(s, 0, {10.0, 20.0});
}

} // namespace

TEST(SweepScheduler, LanesTakeRunsInOrderAsTheyComeFree)
{
    SweepScheduler s({Lane{"Model A", true}, Lane{"Model A", true}});
    for (int batch : {2, 4, 6, 8})
        s.addRun(config(batch));
    EXPECT_EQ(next(s), std::make_pair(0, std::size_t{0}));
    EXPECT_EQ(next(s), std::make_pair(1, std::size_t{1}));
    EXPECT_EQ(next(s), kNothing) << "both lanes are busy";
    EXPECT_TRUE(s.busy(0) && s.busy(1));

    complete(s, 1);
    EXPECT_FALSE(s.busy(1));
    EXPECT_EQ(next(s), std::make_pair(1, std::size_t{2})) << "the lane that came free first takes the next run";
    complete(s, 0);
    EXPECT_EQ(next(s), std::make_pair(0, std::size_t{3}));
    EXPECT_EQ(next(s), kNothing);
    EXPECT_FALSE(s.firstQueued());
}

TEST(SweepScheduler, RunsThatEndAtOnceAreDealtToTheLanesInTurn)
{
    // Runs that fail before a worker starts free their lane at once; they still go lane by lane,
    // as the runner's passes over the lanes dealt them.
    SweepScheduler s({Lane{"cpu", false}, Lane{"cpu", false}});
    for (int batch : {2, 4, 6})
        s.addRun(config(batch));
    for (const auto &[lane, run] : {std::pair<int, std::size_t>{0, 0}, {1, 1}, {0, 2}}) {
        const auto start = s.next();
        ASSERT_TRUE(start);
        EXPECT_EQ(start->lane, lane);
        EXPECT_EQ(start->run, run);
        s.finish(start->lane, RunStatus::Failed, Failure{FailureCategory::PythonNotFound, "no python", {}}, {});
    }
    EXPECT_EQ(next(s), kNothing);
}

TEST(SweepScheduler, AConfigurationRunsInOneProcessAtATime)
{
    SweepScheduler s({Lane{"Model A", true}, Lane{"Model A", true}});
    s.addRun(config(2)); // 0: A
    s.addRun(config(2)); // 1: A's repeat
    s.addRun(config(4)); // 2: B
    EXPECT_EQ(next(s), std::make_pair(0, std::size_t{0}));
    EXPECT_EQ(next(s), std::make_pair(1, std::size_t{2})) << "A's repeat waits while A runs; B goes first";
    EXPECT_EQ(s.firstQueued(), std::size_t{1});
    complete(s, 1);
    EXPECT_EQ(next(s), kNothing) << "a free lane, and still A runs";
    complete(s, 0);
    EXPECT_EQ(next(s), std::make_pair(0, std::size_t{1}));
}

TEST(SweepScheduler, RepeatsStayOnTheModelOfTheFirstRun)
{
    SweepScheduler s({Lane{"Model B", true}, Lane{"Model A", true}});
    s.addRun(config(2)); // 0: A, first on Model B
    s.addRun(config(4)); // 1: X
    s.addRun(config(6)); // 2: Y
    s.addRun(config(2)); // 3: A's repeat
    EXPECT_EQ(next(s), std::make_pair(0, std::size_t{0}));
    EXPECT_EQ(next(s), std::make_pair(1, std::size_t{1}));
    complete(s, 0);
    EXPECT_EQ(next(s), std::make_pair(0, std::size_t{2}));
    complete(s, 1);
    EXPECT_EQ(next(s), kNothing) << "the Model A lane is free, and A's repeat keeps to Model B";
    complete(s, 0);
    EXPECT_EQ(next(s), std::make_pair(0, std::size_t{3}));

    // Without lanes (one device, the configuration's own) there is no model to keep to.
    SweepScheduler one({});
    one.addRun(config(2));
    one.addRun(config(2));
    EXPECT_EQ(next(one), std::make_pair(0, std::size_t{0}));
    complete(one, 0);
    EXPECT_EQ(next(one), std::make_pair(0, std::size_t{1}));
}

TEST(SweepScheduler, ADataParallelRunHoldsIdleLanesOfOneModelAndWaitsForThem)
{
    SweepScheduler s({Lane{"Model A", true}, Lane{"Model B", true}, Lane{"Model A", true}});
    s.addRun(config(2));    // 0: plain
    s.addRun(config(4, 2)); // 1: world size 2
    s.addRun(config(6));    // 2: plain, behind it
    EXPECT_EQ(next(s), std::make_pair(0, std::size_t{0}));
    EXPECT_EQ(next(s), kNothing) << "one idle Model A lane cannot hold two ranks, and nothing overtakes them";
    EXPECT_FALSE(s.busy(1));
    EXPECT_FALSE(s.busy(2));

    complete(s, 0);
    const auto ddp = s.next();
    ASSERT_TRUE(ddp);
    EXPECT_EQ(ddp->lane, 0);
    EXPECT_EQ(ddp->run, 1u);
    EXPECT_EQ(ddp->holding, std::vector<int>{2}) << "the other Model A lane, not the Model B one";
    EXPECT_EQ(s.holding(0), std::vector<int>{2});
    EXPECT_EQ(next(s), std::make_pair(1, std::size_t{2})) << "the Model B lane was never held";
    s.addRun(config(8)); // 3
    EXPECT_EQ(next(s), kNothing) << "lane 2 is held by the data-parallel run, the others run";

    complete(s, 0);
    EXPECT_TRUE(s.holding(0).empty());
    EXPECT_EQ(next(s), std::make_pair(0, std::size_t{3}));
    s.addRun(config(10)); // 4
    EXPECT_EQ(next(s), std::make_pair(2, std::size_t{4})) << "the lane the data-parallel run held is free again";
}

TEST(SweepScheduler, ADataParallelRunNoGroupOfLanesCanHoldIsSaidAtOnce)
{
    SweepScheduler s({Lane{"Model A", true}, Lane{"Model A", true}, Lane{"Model B", true}});
    s.addRun(config(2, 2));
    s.addRun(config(4, 3));
    EXPECT_EQ(s.firstUnholdable(), std::size_t{1}) << "three ranks, two lanes of any one model";
    s.failRun(1);
    EXPECT_FALSE(s.firstUnholdable());

    // Without lanes a run's ranks are the worker's business: it holds nothing and waits for nothing.
    SweepScheduler one({});
    one.addRun(config(2, 4));
    EXPECT_FALSE(one.firstUnholdable());
    const auto start = one.next();
    ASSERT_TRUE(start);
    EXPECT_TRUE(start->holding.empty());
}

TEST(SweepScheduler, ARetiredLaneTakesNothingMoreAndItsRunIsQueuedAgain)
{
    SweepScheduler s({Lane{"Model A", true}, Lane{"Model A", true}});
    s.addRun(config(2)); // 0
    s.addRun(config(4)); // 1
    s.addRun(config(6)); // 2
    EXPECT_EQ(next(s), std::make_pair(0, std::size_t{0}));
    EXPECT_EQ(next(s), std::make_pair(1, std::size_t{1}));

    const auto ended = s.finish(1, RunStatus::Failed, deviceGone(), {});
    EXPECT_EQ(ended.run, 1u);
    EXPECT_TRUE(ended.retired);
    EXPECT_TRUE(s.retired(1));
    ASSERT_TRUE(ended.requeue) << "lane 0 is of the same model";
    EXPECT_EQ(*ended.requeue, 1u);
    EXPECT_EQ(next(s), kNothing) << "the retired lane takes nothing, lane 0 is busy";
    EXPECT_EQ(s.addRun(config(4)), 3u); // the runner queues it again

    complete(s, 0);
    EXPECT_EQ(next(s), std::make_pair(0, std::size_t{2}));
    complete(s, 0);
    EXPECT_EQ(next(s), std::make_pair(0, std::size_t{3})) << "the run the lane lost, on the lane left";
    complete(s, 0);
    EXPECT_EQ(next(s), kNothing);

    // A run of that configuration that ended on a device that had gone does not count against it:
    // its repeats may still be added.
    SweepScheduler again({Lane{"Model A", true}, Lane{"Model A", true}}, adaptiveOn());
    again.addRun(config(2));
    ASSERT_TRUE(again.next());
    EXPECT_TRUE(again.finish(0, RunStatus::Failed, deviceGone(), {}).retired);
    EXPECT_EQ(again.anotherRound(std::chrono::milliseconds(0)).runs.size(), 1u);
}

TEST(SweepScheduler, OnlyAGpuLanesRunRetiresItAndOnlyForADeviceThatWent)
{
    SweepScheduler s({Lane{"Model A", true}, Lane{"Model A", true}, Lane{"cpu", false}});
    for (int batch : {2, 4, 6})
        s.addRun(config(batch));
    ASSERT_EQ(next(s), std::make_pair(0, std::size_t{0}));
    ASSERT_EQ(next(s), std::make_pair(1, std::size_t{1}));
    ASSERT_EQ(next(s), std::make_pair(2, std::size_t{2}));
    const auto oom = s.finish(0, RunStatus::Failed, Failure{FailureCategory::OutOfMemory, "out of memory", {}}, {});
    EXPECT_FALSE(oom.retired) << "out of memory is the configuration's failure, not the device's";
    EXPECT_FALSE(s.retired(0));
    const auto cpu = s.finish(2, RunStatus::Failed, deviceGone(), {});
    EXPECT_FALSE(cpu.retired) << "a CPU slot has no GPU to lose";
    EXPECT_FALSE(s.retired(2));
}

TEST(SweepScheduler, WithNoLaneOfItsModelLeftARunIsNotQueuedAgainAndTheRestNeverRun)
{
    SweepScheduler s({Lane{"Model A", true}, Lane{"Model B", true}});
    s.addRun(config(2)); // 0: A, on Model A
    s.addRun(config(4)); // 1: B, on Model B
    s.addRun(config(2)); // 2: A's repeat
    s.addRun(config(4)); // 3: B's repeat
    EXPECT_EQ(next(s), std::make_pair(0, std::size_t{0}));
    EXPECT_EQ(next(s), std::make_pair(1, std::size_t{1}));

    const auto ended = s.finish(0, RunStatus::Failed, deviceGone(), {});
    EXPECT_TRUE(ended.retired);
    EXPECT_FALSE(ended.requeue) << "no other Model A lane is left to take it";
    EXPECT_FALSE(s.firstStranded()) << "lane 1 still runs";

    complete(s, 1);
    EXPECT_EQ(next(s), std::make_pair(1, std::size_t{3})) << "B's repeat runs; A's has no lane";
    EXPECT_FALSE(s.firstStranded());
    complete(s, 1);
    EXPECT_EQ(next(s), kNothing);
    EXPECT_EQ(s.firstQueued(), std::size_t{2});
    ASSERT_EQ(s.firstStranded(), std::size_t{2}) << "every lane idle, and A's repeat has none of its model";
    s.failRun(2); // the runner fails it: no lane left
    EXPECT_FALSE(s.firstStranded());
    EXPECT_FALSE(s.firstQueued());
}

TEST(SweepScheduler, AdaptiveRoundsAddARunOnlyWhereTheIntervalIsTooWide)
{
    AdaptiveRepeats adaptive = adaptiveOn(4);
    adaptive.halfWidth = 0.02;
    SweepScheduler s({}, adaptive);
    const RunConfig narrow = config(2), wide = config(4), single = config(6);
    for (const RunConfig &c : {narrow, wide, single, narrow, wide})
        s.addRun(c);
    // In plan order: narrow, wide, single, narrow, wide; a lone process of `single` has no interval.
    for (double ms : {10.0, 10.0, 30.0, 10.01, 15.0}) {
        ASSERT_TRUE(s.next());
        complete(s, 0, std::vector<double>(30, ms));
    }
    const SweepScheduler::Round round = s.anotherRound(std::chrono::minutes(1));
    EXPECT_FALSE(round.timeSpent);
    ASSERT_EQ(round.runs.size(), 2u);
    EXPECT_EQ(round.runs[0].config, wide) << "narrow is within +-2%";
    EXPECT_EQ(round.runs[0].repeatIndex, 2);
    EXPECT_EQ(round.runs[0].processes, 2);
    EXPECT_GT(round.runs[0].halfWidth, 0.02);
    EXPECT_EQ(round.runs[1].config, single);
    EXPECT_EQ(round.runs[1].repeatIndex, 1);
    EXPECT_LT(round.runs[1].halfWidth, 0) << "one process: no interval yet";

    SweepScheduler off({});
    off.addRun(wide);
    EXPECT_TRUE(off.anotherRound(std::chrono::minutes(0)).runs.empty()) << "adaptive repeats are off";
}

TEST(SweepScheduler, AdaptiveRoundsStopAtMaxProcesses)
{
    SweepScheduler s({}, adaptiveOn(3));
    twoWideProcesses(s, config(4));
    auto round = s.anotherRound(std::chrono::milliseconds(0));
    ASSERT_EQ(round.runs.size(), 1u) << "two processes planned, three allowed";
    s.addRun(round.runs[0].config);
    steadyProcesses(s, 0, {30.0});
    EXPECT_TRUE(s.anotherRound(std::chrono::milliseconds(0)).runs.empty()) << "three processes planned: the cap";
}

TEST(SweepScheduler, AdaptiveRoundsStopAtTheTimeCap)
{
    SweepScheduler s({}, adaptiveOn(10, 5));
    twoWideProcesses(s, config(4));
    const auto before = s.anotherRound(std::chrono::minutes(5) - std::chrono::milliseconds(1));
    EXPECT_FALSE(before.timeSpent);
    EXPECT_EQ(before.runs.size(), 1u);
    const auto after = s.anotherRound(std::chrono::minutes(5));
    EXPECT_TRUE(after.timeSpent);
    EXPECT_TRUE(after.runs.empty());

    SweepScheduler uncapped({}, adaptiveOn(10, 0)); // no cap
    uncapped.addRun(config(4));
    EXPECT_FALSE(uncapped.anotherRound(std::chrono::hours(1000)).timeSpent);
}

TEST(SweepScheduler, AdaptiveRoundsNeverAddToAFailedConfiguration)
{
    SweepScheduler s({}, adaptiveOn());
    const RunConfig flaky = config(2), unstarted = config(4);
    twoWideProcesses(s, flaky);
    s.addRun(flaky);
    s.addRun(unstarted);
    ASSERT_TRUE(s.next());
    s.finish(0, RunStatus::Failed, Failure{FailureCategory::WorkerCrashed, "crashed", {}}, {});
    s.failRun(3); // failed before it started
    EXPECT_TRUE(s.anotherRound(std::chrono::milliseconds(0)).runs.empty());
}

} // namespace stepscope::supervisor::test
