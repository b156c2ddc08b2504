// Time left from what each run costs (issue 16.4): the same configuration in this sweep, else in
// this database on this host, else the same kind (a guess), with a priming process where one runs.
#include "supervisor_fixture.h"

#include "platform/platform.h"
#include "supervisor/time_left.h"

namespace stepscope::supervisor
{
using namespace test;

namespace
{

RunConfig benchConfig()
{
    RunConfig c = smallConfig(8);
    c.device = "cuda";
    c.cudnnBenchmark = true;
    return c;
}

} // namespace

TEST(TimeLeft, PredictsFromTheSameConfigurationThenItsKindAndSaysWhenItGuesses)
{
    TimeLeft model;
    const RunKey fp32 = runKey(smallConfig(8), store::StartState::Fresh);
    const RunKey bench = runKey(benchConfig(), store::StartState::Fresh);
    EXPECT_FALSE(model.predict(fp32)) << "nothing to go on yet";

    model.addFinished(fp32, 4.0);
    const auto same = model.predict(fp32);
    ASSERT_TRUE(same);
    EXPECT_DOUBLE_EQ(same->seconds, 4.0);
    EXPECT_FALSE(same->guess);
    // Another kind (cudnn autotuning) has only the sweep's mean to go on: a guess.
    const auto other = model.predict(bench);
    ASSERT_TRUE(other);
    EXPECT_TRUE(other->guess);

    // A run of the same kind in this sweep beats the mean, still a guess; history of the same
    // configuration is a measurement.
    RunConfig bench16 = benchConfig();
    bench16.batch = 16;
    model.addFinished(runKey(bench16, store::StartState::Fresh), 20.0);
    const auto kind = model.predict(bench);
    ASSERT_TRUE(kind);
    EXPECT_DOUBLE_EQ(kind->seconds, 20.0);
    EXPECT_TRUE(kind->guess);
    model.addHistory(bench, 9.0);
    const auto stored = model.predict(bench);
    ASSERT_TRUE(stored);
    EXPECT_DOUBLE_EQ(stored->seconds, 9.0);
    EXPECT_FALSE(stored->guess);

    // A warm run that primes first costs its own time and the cold run's.
    RunKey warm = runKey(benchConfig(), store::StartState::Again);
    model.addHistory(warm, 3.0);
    warm.primes = true;
    const auto primed = model.predict(warm);
    ASSERT_TRUE(primed);
    EXPECT_DOUBLE_EQ(primed->seconds, 3.0 + 9.0);

    // The rest of a sweep: what is left of the current run, then every queued one.
    const auto left = model.left({fp32, bench, fp32}, 0, 1.5);
    ASSERT_TRUE(left);
    EXPECT_DOUBLE_EQ(left->seconds, 2.5 + 9.0 + 4.0);
    EXPECT_FALSE(left->guess);
    const auto overrun = model.left({fp32}, 0, 10.0);
    ASSERT_TRUE(overrun);
    EXPECT_DOUBLE_EQ(overrun->seconds, 0.0) << "an overrun is not added to the rest";
}

TEST_F(SupervisorTest, TimeLeftReadsCompleteRunsOfThisHostFromTheDatabase)
{
    const RunConfig c = smallConfig(8);
    // Two earlier sweeps of the same configuration: one recorded on this host, one elsewhere.
    for (const std::string &host : {platform::hostName(), std::string("another-host")}) {
        const SweepPlan p = plan({c});
        store::EnvironmentRecord env;
        env.host = host;
        const std::int64_t envId = db_->addEnvironment(env);
        db_->markRunning(p.runs[0].runId);
        db_->setEnvironment(p.runs[0].runId, envId);
        db_->finishRun(p.runs[0].runId, RunStatus::Complete);
        db_->flush();
    }
    TimeLeft model;
    addDatabaseHistory(model, *reader(), platform::hostName());
    const auto predicted = model.predict(runKey(c, store::StartState::Fresh));
    ASSERT_TRUE(predicted) << "the run of this host is history";
    EXPECT_FALSE(predicted->guess);
    EXPECT_GE(predicted->seconds, 0.0);
    EXPECT_LT(predicted->seconds, 60.0);

    TimeLeft elsewhere;
    addDatabaseHistory(elsewhere, *reader(), "a-third-host");
    EXPECT_FALSE(elsewhere.predict(runKey(c, store::StartState::Fresh))) << "another host's runs say nothing here";
    EXPECT_FALSE(model.predict(runKey(c, store::StartState::Again))) << "a warm run is not a cold one";
}

// The dashboard estimates a sweep before it is stored (issue 19.5): the runs in planSweep's order,
// and the warm run of each configuration that primes its caches first.
TEST(TimeLeft, EstimatesASweepBeforeItIsPlannedInTheOrderItRuns)
{
    const RunConfig a = smallConfig(8), b = smallConfig(16);
    const std::vector<PlannedRun> runs = orderRuns({a, b}, 2, *startStatesFromString("fresh,again"));
    ASSERT_EQ(runs.size(), 8u);
    // Each repeat is a round of cold runs, then a round of warm ones.
    const store::StartState cold = store::StartState::Fresh, warm = store::StartState::Again;
    const std::vector<store::StartState> starts = {cold, cold, warm, warm, cold, cold, warm, warm};
    for (std::size_t i = 0; i < runs.size(); ++i) {
        EXPECT_EQ(runs[i].caches, starts[i]) << i;
        EXPECT_EQ(runs[i].repeatIndex, int(i / 4)) << i;
        EXPECT_EQ(runs[i].config.batch, i % 2 == 0 ? 8 : 16) << i;
    }
    EXPECT_EQ(orderRuns({a, b}, 3, StartStates{}).size(), 6u);

    // Under Both a configuration's cold run comes first and leaves its caches: no warm run primes.
    const std::vector<RunKey> keys = runKeys(runs);
    ASSERT_EQ(keys.size(), runs.size());
    for (const RunKey &key : keys)
        EXPECT_FALSE(key.primes);
    // Warm alone: the first warm run of each configuration pays for a priming process.
    const std::vector<RunKey> warmKeys = runKeys(orderRuns({a, b}, 2, *startStatesFromString("again")));
    ASSERT_EQ(warmKeys.size(), 4u);
    for (std::size_t i = 0; i < warmKeys.size(); ++i)
        EXPECT_EQ(warmKeys[i].primes, i < 2) << i;

    TimeLeft model;
    EXPECT_FALSE(model.left(keys, 0, 0)) << "nothing ran: no estimate";
    model.addHistory(runKey(a, cold), 2.0);
    model.addHistory(runKey(b, cold), 3.0);
    model.addHistory(runKey(a, warm), 1.0);
    model.addHistory(runKey(b, warm), 1.5);
    const auto total = model.left(keys, 0, 0);
    ASSERT_TRUE(total);
    EXPECT_FALSE(total->guess);
    EXPECT_DOUBLE_EQ(total->seconds, 2 * (2.0 + 3.0 + 1.0 + 1.5)); // two rounds of cold and warm runs
    const auto warmOnly = model.left(warmKeys, 0, 0);
    ASSERT_TRUE(warmOnly);
    EXPECT_DOUBLE_EQ(warmOnly->seconds, 2 * (1.0 + 1.5) + 2.0 + 3.0); // and a priming process (a cold run) each
}

} // namespace stepscope::supervisor

namespace stepscope::supervisor
{
using namespace test;

// Issue 19.9: the running run's rest is its steps left at the pace it keeps, which replaces what
// other runs predicted, and gives a figure where nothing else could (the sweep's first run).
TEST(TimeLeft, ReestimatesTheRunningRunFromItsObservedStepRate)
{
    PaceMeter meter;
    meter.observe(0, 100, 0.1); // the run's start: no step yet
    EXPECT_FALSE(meter.pace());
    meter.observe(10, 100, 5.0); // the first batch, after the first step (a compile, say)
    meter.observe(12, 100, 5.2);
    EXPECT_FALSE(meter.pace()) << "two steps are too few to time";
    meter.observe(20, 100, 6.0);
    const auto pace = meter.pace();
    ASSERT_TRUE(pace);
    EXPECT_EQ(pace->step, 20);
    EXPECT_EQ(pace->steps, 100);
    EXPECT_DOUBLE_EQ(pace->secondsPerStep, 0.1) << "the first step is not in the pace";
    meter.restart();
    EXPECT_FALSE(meter.pace());

    TimeLeft model;
    const RunKey fp32 = runKey(smallConfig(8), store::StartState::Fresh);
    const RunKey bench = runKey(benchConfig(), store::StartState::Fresh);
    model.addHistory(fp32, 10.0);
    const std::vector<RunKey> plan{fp32, fp32};
    const auto predicted = model.left(plan, 0, 2.0);
    ASSERT_TRUE(predicted);
    EXPECT_DOUBLE_EQ(predicted->seconds, 8.0 + 10.0);
    // Half-way at 0.5 s a step: 25 s more of this run, whatever the other runs took.
    const auto paced = model.left(plan, 0, 30.0, RunPace{50, 100, 0.5});
    ASSERT_TRUE(paced);
    EXPECT_DOUBLE_EQ(paced->seconds, 25.0 + 10.0);
    EXPECT_FALSE(paced->guess);

    // Nothing known of a run after it: the running run's projected length stands in, a guess.
    TimeLeft fresh;
    const std::vector<RunKey> first{fp32, bench};
    EXPECT_FALSE(fresh.left(first, 0, 6.0));
    const auto guessed = fresh.left(first, 0, 6.0, RunPace{20, 100, 0.1});
    ASSERT_TRUE(guessed);
    EXPECT_DOUBLE_EQ(guessed->seconds, 8.0 + (6.0 + 8.0));
    EXPECT_TRUE(guessed->guess);
}

TEST(TimeLeft, IsRoundedAsFarAsAnEstimateDeserves)
{
    EXPECT_EQ(roundedTimeLeft(0.4), "about 5 s");
    EXPECT_EQ(roundedTimeLeft(13), "about 15 s");
    EXPECT_EQ(roundedTimeLeft(42), "about 40 s");
    EXPECT_EQ(roundedTimeLeft(47), "about 50 s");
    EXPECT_EQ(roundedTimeLeft(58), "about 1 min");
    EXPECT_EQ(roundedTimeLeft(170), "about 3 min");
    EXPECT_EQ(roundedTimeLeft(19 * 60 + 10), "about 19 min");
    EXPECT_EQ(roundedTimeLeft(27 * 60), "about 25 min");
    EXPECT_EQ(roundedTimeLeft(80 * 60 + 50), "about 80 min");
    EXPECT_EQ(roundedTimeLeft(88 * 60), "about 90 min");
    EXPECT_EQ(roundedTimeLeft(97 * 60), "about 1 h 40 min");
    EXPECT_EQ(roundedTimeLeft(121 * 60), "about 2 h");
}

// Issue 28.4: a start state not yet run for a configuration is its other state's time scaled by
// the ratio this sweep measured on configurations that ran both, and that is no guess.
TEST(TimeLeft, AnUnseenStateIsTheOtherStateScaledByTheRatioMeasuredHere)
{
    const RunConfig a = smallConfig(8), b = smallConfig(16), c = smallConfig(32);
    const store::StartState fresh = store::StartState::Fresh, again = store::StartState::Again;
    TimeLeft model;
    // a and b ran fresh and again: again takes 0.25 and 0.35 of fresh (median ratio 0.3).
    model.addFinished(runKey(a, fresh), 40.0);
    model.addFinished(runKey(a, again), 10.0);
    model.addFinished(runKey(b, fresh), 20.0);
    model.addFinished(runKey(b, again), 7.0);
    // c ran fresh only.
    model.addFinished(runKey(c, fresh), 100.0);
    const auto predicted = model.predict(runKey(c, again));
    ASSERT_TRUE(predicted);
    EXPECT_NEAR(predicted->seconds, 30.0, 1e-9) << "100 s fresh x 0.30";
    EXPECT_FALSE(predicted->guess) << "both factors were measured in this sweep";

    // With no configuration that ran both, the other state's own time, said to be a guess.
    TimeLeft alone;
    alone.addFinished(runKey(c, fresh), 100.0);
    const auto guessed = alone.predict(runKey(c, again));
    ASSERT_TRUE(guessed);
    EXPECT_DOUBLE_EQ(guessed->seconds, 100.0);
    EXPECT_TRUE(guessed->guess);
}

} // namespace stepscope::supervisor
