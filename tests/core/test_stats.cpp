// Tests of the measurement rules in core/stats. Expected values are worked out by hand in the
// comments, never taken from a run of the code under test. Plain C++: the Windows cross build runs
// them too; the break-even and recommendation against the published seed ledger, which reads JSON
// with QtCore, are test_stats_seed.cpp.
#include "stats/stats.h"
#include "test_stats_synthetic.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace stepscope::stats;
using stepscope::SteadyProblem;
using stepscope::stats::synthetic::Simulation;
using stepscope::stats::synthetic::UnitNoise;

namespace
{

std::string whyNot(const SteadyWindow &w)
{
    return w.problem ? stepscope::describe(*w.problem) : std::string();
}

// ---- Summary, quantiles ------------------------------------------------------------------------

TEST(StatsSummary, OddSizeWithOutlier)
{
    // Sorted {1, 2, 3, 4, 100}; positions q * 4.
    const Summary s = summarize({4, 100, 1, 3, 2});
    EXPECT_EQ(s.count, 5u);
    EXPECT_DOUBLE_EQ(s.median, 3.0);
    EXPECT_DOUBLE_EQ(s.q1, 2.0); // position 1
    EXPECT_DOUBLE_EQ(s.q3, 4.0); // position 3
    EXPECT_DOUBLE_EQ(s.iqr, 2.0);
    EXPECT_DOUBLE_EQ(s.p10, 1.4);  // position 0.4: 1 + 0.4 * (2 - 1)
    EXPECT_DOUBLE_EQ(s.p90, 61.6); // position 3.6: 4 + 0.6 * (100 - 4)
    EXPECT_DOUBLE_EQ(s.mean, 22.0);
    EXPECT_DOUBLE_EQ(s.mad, 1.0); // |x - 3| = {2, 1, 0, 1, 97} -> median 1
    // Deviations from 22: -21 -20 -19 -18 78; squares sum to 7610; / (5 - 1) = 1902.5.
    EXPECT_NEAR(s.cv, std::sqrt(1902.5) / 22.0, 1e-12);
    EXPECT_DOUBLE_EQ(s.min, 1.0);
    EXPECT_DOUBLE_EQ(s.max, 100.0);
}

TEST(StatsSummary, EvenSizeInterpolates)
{
    // Sorted {1, 2, 3, 4}; positions q * 3.
    const Summary s = summarize({4, 1, 3, 2});
    EXPECT_EQ(s.count, 4u);
    EXPECT_DOUBLE_EQ(s.median, 2.5);
    EXPECT_DOUBLE_EQ(s.q1, 1.75); // position 0.75
    EXPECT_DOUBLE_EQ(s.q3, 3.25); // position 2.25
    EXPECT_DOUBLE_EQ(s.iqr, 1.5);
    EXPECT_DOUBLE_EQ(s.p10, 1.3); // position 0.3
    EXPECT_DOUBLE_EQ(s.p90, 3.7); // position 2.7
    EXPECT_DOUBLE_EQ(s.mean, 2.5);
    EXPECT_DOUBLE_EQ(s.mad, 1.0); // |x - 2.5| = {1.5, 0.5, 0.5, 1.5} -> median 1
    // Squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5; / 3.
    EXPECT_NEAR(s.cv, std::sqrt(5.0 / 3.0) / 2.5, 1e-12);
}

TEST(StatsSummary, SingleValueHasNoSpread)
{
    const Summary s = summarize({7});
    EXPECT_EQ(s.count, 1u);
    EXPECT_DOUBLE_EQ(s.median, 7.0);
    EXPECT_DOUBLE_EQ(s.p10, 7.0);
    EXPECT_DOUBLE_EQ(s.p90, 7.0);
    EXPECT_DOUBLE_EQ(s.iqr, 0.0);
    EXPECT_DOUBLE_EQ(s.mad, 0.0);
    EXPECT_TRUE(std::isnan(s.cv)); // a sample stddev needs two values
}

TEST(StatsSummary, EmptyGivesNaN)
{
    const Summary s = summarize({});
    EXPECT_EQ(s.count, 0u);
    for (double v : {s.median, s.mean, s.p10, s.p90, s.q1, s.q3, s.iqr, s.mad, s.cv, s.min, s.max})
        EXPECT_TRUE(std::isnan(v));
    EXPECT_TRUE(std::isnan(quantile({}, 0.5)));
    EXPECT_TRUE(std::isnan(median({})));
}

TEST(StatsQuantile, MatchesNumpyLinear)
{
    const std::vector<double> v{10, 40, 20, 30}; // sorted 10 20 30 40, positions q * 3
    EXPECT_DOUBLE_EQ(quantile(v, 0.0), 10.0);
    EXPECT_DOUBLE_EQ(quantile(v, 1.0), 40.0);
    EXPECT_DOUBLE_EQ(quantile(v, 0.5), 25.0);
    EXPECT_DOUBLE_EQ(quantile(v, 0.9), 37.0); // position 2.7: 30 + 0.7 * 10
    EXPECT_DOUBLE_EQ(median({5, 1, 3}), 3.0);
    EXPECT_DOUBLE_EQ(median({5, 1, 3, 2}), 2.5);
}

// ---- Noise flag --------------------------------------------------------------------------------

Summary withSpread(double iqr, double median)
{
    Summary s;
    s.count = 10;
    s.iqr = iqr;
    s.median = median;
    return s;
}

TEST(StatsNoise, Thresholds)
{
    EXPECT_EQ(noiseOf(withSpread(9.99, 100)), Noise::Ok);
    EXPECT_EQ(noiseOf(withSpread(10, 100)), Noise::Warn); // exactly 0.10 warns
    EXPECT_EQ(noiseOf(withSpread(24.99, 100)), Noise::Warn);
    EXPECT_EQ(noiseOf(withSpread(25, 100)), Noise::Unreliable); // exactly 0.25
    EXPECT_EQ(noiseOf(summarize({})), Noise::Unreliable);       // nothing measured, nothing to trust
}

TEST(StatsNoise, Names)
{
    EXPECT_STREQ(toString(Noise::Ok), "ok");
    EXPECT_STREQ(toString(Noise::Warn), "noisy");
    EXPECT_STREQ(toString(Noise::Unreliable), "unreliable");
}

// ---- Steady state ------------------------------------------------------------------------------

std::vector<double> warmupThenFlat(std::size_t slow, std::size_t total)
{
    std::vector<double> v;
    for (std::size_t i = 0; i < total; ++i)
        v.push_back(i < slow ? 50.0 : (i % 2 ? 10.1 : 9.9));
    return v;
}

TEST(StatsSteadyState, FlatSeriesStartsAtZero)
{
    const SteadyWindow w = detectSteadyState(std::vector<double>(100, 10.0));
    EXPECT_TRUE(w.found);
    EXPECT_EQ(w.begin, 0u);
    EXPECT_EQ(w.end, 100u);
    EXPECT_FALSE(w.problem);
}

TEST(StatsSteadyState, ConstantSeriesWithZeroMad)
{
    // MAD 0: the tolerance falls back to 5% of the reference, so the window still covers it all.
    const SteadyWindow w = detectSteadyState(std::vector<double>(50, 5.0));
    EXPECT_TRUE(w.found);
    EXPECT_EQ(w.begin, 0u);
    EXPECT_EQ(w.end, 50u);
    EXPECT_TRUE(detectSteadyState(std::vector<double>(20, 0.0)).found);
}

TEST(StatsSteadyState, WarmupOfTwentySteps)
{
    // n = 200 -> blocks of 10; blocks 0 and 1 are the 50 ms warm-up, so the window starts at 20.
    const SteadyWindow w = detectSteadyState(warmupThenFlat(20, 200));
    ASSERT_TRUE(w.found) << whyNot(w);
    EXPECT_GE(w.begin, 20u);
    EXPECT_LE(w.begin, 30u); // within one block
    EXPECT_EQ(w.end, 200u);
}

TEST(StatsSteadyState, WarmupEndingMidBlockIsTrimmed)
{
    // Block 2 (steps 20-29) holds 3 slow and 7 fast steps: its median is fast, so it is the first
    // steady block, and its 3 leading slow steps are dropped: the window starts at 23.
    const SteadyWindow w = detectSteadyState(warmupThenFlat(23, 200));
    ASSERT_TRUE(w.found) << whyNot(w);
    EXPECT_EQ(w.begin, 23u);
}

TEST(StatsSteadyState, RampNeverSettles)
{
    // 10 + 0.1 i for 200 steps: the last half runs 20 -> 29.9; its first and last quarters
    // (25 steps each) have medians 21.2 and 28.7: 7.5 apart, 30% of the 24.95 reference.
    std::vector<double> v;
    for (int i = 0; i < 200; ++i)
        v.push_back(10.0 + 0.1 * i);
    const SteadyWindow w = detectSteadyState(v);
    EXPECT_FALSE(w.found);
    ASSERT_TRUE(w.problem);
    EXPECT_EQ(w.problem->kind, SteadyProblem::Kind::StillDrifting);
    // The two levels are the quarters' medians, so a view can say "from 21.2 ms to 28.7 ms".
    EXPECT_NEAR(w.problem->earlyMs, 21.2, 0.1);
    EXPECT_NEAR(w.problem->lateMs, 28.7, 0.1);
    EXPECT_NE(stepscope::describe(*w.problem).find("went from 21.2 ms to 28.7 ms"), std::string::npos) << whyNot(w);
    EXPECT_EQ(w.problem->runSteps, 200);
}

TEST(StatsSteadyState, ExcursionInsideARunIsNoiseNotWarmup)
{
    // Shaped like an H200 fp16 run at batch 32 (launch-bound, a host sync per step): 6.5 ms with a
    // deterministic +-0.2 ms wobble, and a 16-step excursion to 7.6 ms early in the last half. The
    // first quarter of the last half sits on the excursion (17% above the last quarter), but
    // nothing trends and the steps settled at once: the window is the whole run, excursion included
    // (it is part of what the configuration costs, and shows in the noise flag).
    std::vector<double> v;
    for (int i = 0; i < 110; ++i) {
        const double wobble = 0.2 * ((i * 7) % 5 - 2) / 2.0;
        v.push_back((i >= 55 && i < 71 ? 7.6 : 6.5) + wobble);
    }
    const SteadyWindow w = detectSteadyState(v);
    ASSERT_TRUE(w.found) << whyNot(w);
    EXPECT_LT(w.begin, 5u);
    EXPECT_EQ(w.end, v.size());
}

TEST(StatsSteadyState, LateSettlingUsesTheFinalQuarter)
{
    // 9 ms for 60 steps, a staircase down through the last half, flat at 6.5 ms for the final 30
    // steps: the last half falls, the final quarter does not; the window is the flat end.
    std::vector<double> v;
    for (int i = 0; i < 120; ++i) {
        const double wobble = 0.1 * ((i * 7) % 5 - 2) / 2.0;
        const double level = i < 60 ? 9.0 : i < 75 ? 8.0 : i < 90 ? 7.2 : 6.5;
        v.push_back(level + wobble);
    }
    const SteadyWindow w = detectSteadyState(v);
    ASSERT_TRUE(w.found) << whyNot(w);
    EXPECT_GE(w.begin, 88u);
    EXPECT_LE(w.begin, 92u);
}

TEST(StatsSteadyState, NoisyRampStillDrifts)
{
    // A 30% rise over the run under +-5% wobble: a trend, whatever the noise.
    std::vector<double> v;
    for (int i = 0; i < 200; ++i)
        v.push_back((10.0 + 0.02 * i) * (1.0 + 0.05 * ((i * 7) % 5 - 2) / 2.0));
    const SteadyWindow w = detectSteadyState(v);
    EXPECT_FALSE(w.found);
    ASSERT_TRUE(w.problem);
    EXPECT_EQ(w.problem->kind, SteadyProblem::Kind::StillDrifting);
    EXPECT_GT(w.problem->lateMs, w.problem->earlyMs);
}

TEST(StatsSteadyState, NoisyButStationaryIsFound)
{
    // +-10% uniform noise plus a 3x spike every 37 steps (a GC pause, say).
    UnitNoise noise(7);
    std::vector<double> v;
    for (int i = 0; i < 300; ++i)
        v.push_back((i % 37 == 36 ? 30.0 : 10.0) * (1.0 + 0.1 * noise.next()));
    const SteadyWindow w = detectSteadyState(v);
    ASSERT_TRUE(w.found) << whyNot(w);
    EXPECT_EQ(w.begin, 0u);
    EXPECT_EQ(w.end, 300u);
}

TEST(StatsSteadyState, TooFewSteps)
{
    const SteadyWindow w = detectSteadyState(std::vector<double>(9, 10.0));
    EXPECT_FALSE(w.found);
    ASSERT_TRUE(w.problem);
    EXPECT_EQ(w.problem->kind, SteadyProblem::Kind::TooFewSteps);
    EXPECT_EQ(w.problem->steps, 9);
    EXPECT_EQ(w.problem->needed, 10);
    EXPECT_TRUE(detectSteadyState(std::vector<double>(10, 10.0)).found); // 10 is enough
    EXPECT_FALSE(detectSteadyState({}).found);
}

TEST(StatsSteadyState, WindowLeftTooShort)
{
    // n = 12 -> blocks [0, 5) and [5, 12). Block 0 is warm-up, so 7 steady steps remain (< 10).
    const SteadyWindow w = detectSteadyState({50, 50, 50, 50, 50, 10, 10, 10, 10, 10, 10, 10});
    EXPECT_FALSE(w.found);
    ASSERT_TRUE(w.problem);
    EXPECT_EQ(w.problem->kind, SteadyProblem::Kind::TooFewAfterWarmup);
    EXPECT_EQ(w.problem->steps, 7);
    EXPECT_NE(stepscope::describe(*w.problem).find("only 7 steps remained after warm-up"), std::string::npos)
        << whyNot(w);
    // The warm-up took 5 of the 12 steps; 5 + 10 needed, twice over.
    EXPECT_EQ(stepscope::suggestedSteps(*w.problem), std::optional<std::int64_t>(30)) << whyNot(w);
}

// A run that never settled says it in levels and with a run length to try, never as a percentage
// ("step times fall by 1676%" before): a falling 100-step run had its levels and "try --steps 400".
TEST(StatsSteadyState, TheProblemSaysTheLevelsAndAStepCount)
{
    std::vector<double> v;
    for (int i = 0; i < 100; ++i) // 12.3 ms falling to about 0.7 ms, still falling at the end
        v.push_back(12.3 * std::pow(0.97, i) + 0.1);
    const SteadyWindow w = detectSteadyState(v);
    ASSERT_FALSE(w.found);
    ASSERT_TRUE(w.problem);
    ASSERT_EQ(w.problem->kind, SteadyProblem::Kind::StillDrifting);
    const std::string text = stepscope::describe(*w.problem);
    char early[32], late[32];
    std::snprintf(early, sizeof early, "%.3g ms", w.problem->earlyMs);
    std::snprintf(late, sizeof late, "%.3g ms", w.problem->lateMs);
    EXPECT_NE(text.find(std::string("step times went from ") + early + " to " + late), std::string::npos) << text;
    EXPECT_NE(text.find("were still falling; try --steps 400"), std::string::npos) << text;
    EXPECT_EQ(text.find('%'), std::string::npos) << text;
    EXPECT_EQ(text.find("busy"), std::string::npos) << "no load recorded: nothing said of it: " << text;

    // Too few steps: three times the minimum; a rising drift names its usual causes.
    SteadyProblem few{SteadyProblem::Kind::TooFewSteps, 7, 10};
    few.runSteps = 7;
    EXPECT_NE(stepscope::describe(few).find("only 7 steps after the first one were timed"), std::string::npos);
    EXPECT_NE(stepscope::describe(few).find("try --steps 30"), std::string::npos) << stepscope::describe(few);
    SteadyProblem rising{SteadyProblem::Kind::StillDrifting};
    rising.earlyMs = 7.25;
    rising.lateMs = 9.5;
    rising.runSteps = 1234; // 4936, up to two significant digits
    EXPECT_NE(stepscope::describe(rising).find("went from 7.25 ms to 9.5 ms"), std::string::npos);
    EXPECT_NE(stepscope::describe(rising).find("still rising (throttling"), std::string::npos);
    EXPECT_NE(stepscope::describe(rising).find("try --steps 5000"), std::string::npos) << stepscope::describe(rising);
    // A stored problem of before the run's length was kept: no number invented.
    SteadyProblem old{SteadyProblem::Kind::NeverSettles};
    EXPECT_FALSE(stepscope::suggestedSteps(old));
    EXPECT_NE(stepscope::describe(old).find("run more steps"), std::string::npos) << stepscope::describe(old);
    EXPECT_FALSE(stepscope::suggestedSteps(SteadyProblem{SteadyProblem::Kind::WindowMismatch}));
}

// The machine's load, where the supervisor recorded it, is named when other work competed for the
// cores (more runnable tasks than cores), and left out on a quiet machine.
TEST(StatsSteadyState, TheProblemNamesABusyMachine)
{
    SteadyProblem p{SteadyProblem::Kind::NeverSettles};
    p.runSteps = 35;
    p.loadAverage = 7.94;
    p.cores = 2;
    EXPECT_TRUE(p.machineBusy());
    const std::string busy = stepscope::describe(p);
    EXPECT_NE(busy.find("try --steps 140"), std::string::npos) << busy;
    EXPECT_NE(busy.find("the machine was busy (load average 7.9 on 2 cores)"), std::string::npos) << busy;
    // A run too short to settle is too short whatever the load: that is all it says.
    SteadyProblem few{SteadyProblem::Kind::TooFewSteps, 3, 10};
    few.loadAverage = p.loadAverage;
    few.cores = p.cores;
    EXPECT_EQ(stepscope::describe(few).find("busy"), std::string::npos) << stepscope::describe(few);
    p.loadAverage = 1.5;
    EXPECT_FALSE(p.machineBusy());
    EXPECT_EQ(stepscope::describe(p).find("busy"), std::string::npos) << stepscope::describe(p);
}

// ---- Bootstrap ratio of medians ----------------------------------------------------------------

TEST(StatsRatio, IdenticalRunsAreNotSignificant)
{
    const std::vector<double> v{10.0, 10.4, 9.7, 10.2, 9.9, 10.1, 10.3, 9.8, 10.0, 10.2};
    const RatioCI ci = ratioOfMedians({v, v, v}, {v, v, v});
    EXPECT_DOUBLE_EQ(ci.ratio, 1.0);
    EXPECT_TRUE(ci.hasInterval);
    EXPECT_EQ(ci.processes, 3u);
    EXPECT_LE(ci.low, 1.0);
    EXPECT_GE(ci.high, 1.0);
    EXPECT_FALSE(ci.significant);
}

TEST(StatsRatio, TwiceAsFastIsSignificant)
{
    // Baseline processes at 9.9, 10 and 10.1 ms (steps +-0.1 around each); candidate: half of each.
    Runs base, cand;
    for (double level : {9.9, 10.0, 10.1}) {
        std::vector<double> b, c;
        for (double d : {-0.1, 0.0, 0.1}) {
            b.push_back(level + d);
            c.push_back((level + d) / 2);
        }
        base.push_back(b);
        cand.push_back(c);
    }
    const RatioCI ci = ratioOfMedians(cand, base);
    EXPECT_DOUBLE_EQ(ci.ratio, 0.5);
    EXPECT_LE(ci.low, 0.5);
    EXPECT_GE(ci.high, 0.5);
    // Process medians move by 1%; even a t with few degrees of freedom keeps the interval within 10%.
    EXPECT_GE(ci.low, 0.45);
    EXPECT_LE(ci.high, 0.55);
    EXPECT_TRUE(ci.significant);

    const RatioCI slower = ratioOfMedians(base, cand);
    EXPECT_DOUBLE_EQ(slower.ratio, 2.0);
    EXPECT_GT(slower.low, 1.0);
    EXPECT_TRUE(slower.significant);
}

TEST(StatsRatio, OneProcessGivesNoInterval)
{
    // However many steps: the spread between processes is unknown with one of them.
    std::vector<double> a(500, 5.0), b(500, 10.0);
    const RatioCI ci = ratioOfMedians({a}, {b, b, b});
    EXPECT_DOUBLE_EQ(ci.ratio, 0.5);
    EXPECT_FALSE(ci.hasInterval);
    EXPECT_FALSE(ci.significant);
    EXPECT_EQ(ci.processes, 1u);
    EXPECT_TRUE(std::isnan(ci.low));
    EXPECT_TRUE(std::isnan(ci.high));
}

TEST(StatsRatio, BetweenProcessSpreadWidensTheInterval)
{
    // Steps within a process are identical, so only the processes can say how uncertain this is:
    // levels 9, 10, 11 against 9.5, 10.5, 11.5 are no significant difference.
    const auto runs = [](std::initializer_list<double> levels) {
        Runs r;
        for (double l : levels)
            r.push_back(std::vector<double>(100, l));
        return r;
    };
    const RatioCI ci = ratioOfMedians(runs({9, 10, 11}), runs({9.5, 10.5, 11.5}));
    EXPECT_TRUE(ci.hasInterval);
    EXPECT_FALSE(ci.significant);
    EXPECT_LT(ci.low, 0.9);
    EXPECT_GT(ci.high, 1.0);
}

TEST(StatsRatio, SameSeedSameInterval)
{
    UnitNoise noise(3);
    Runs a(3), b(3);
    for (int i = 0; i < 40; ++i) {
        a[static_cast<std::size_t>(i % 3)].push_back(9.0 + noise.next());
        b[static_cast<std::size_t>(i % 3)].push_back(10.0 + noise.next());
    }
    const RatioCI first = ratioOfMedians(a, b, 500, 42);
    const RatioCI second = ratioOfMedians(a, b, 500, 42);
    EXPECT_EQ(first.low, second.low);
    EXPECT_EQ(first.high, second.high);
    EXPECT_EQ(first.ratio, second.ratio);
    EXPECT_EQ(first.significant, second.significant);
}

TEST(StatsRatio, EmptyInputIsNaN)
{
    const RatioCI ci = ratioOfMedians({}, {{1.0, 2.0}, {1.0}});
    EXPECT_TRUE(std::isnan(ci.ratio));
    EXPECT_FALSE(ci.significant);
    EXPECT_TRUE(std::isnan(ratioOfMedians({{1.0}, {1.0}}, {}).ratio));
    EXPECT_TRUE(std::isnan(ratioOfMedians({{}, {}}, {{1.0}, {1.0}}).ratio)); // processes without steps
}

TEST(StatsMedianCI, ProcessLevelInterval)
{
    const MedianCI one = medianOfRuns({std::vector<double>(100, 7.0)});
    EXPECT_DOUBLE_EQ(one.median, 7.0);
    EXPECT_FALSE(one.hasInterval);
    // Levels 9, 10, 11: the log medians have sd ~0.1, so with t(2) = 4.3 the interval spans ~+-25%.
    const MedianCI three =
        medianOfRuns({std::vector<double>(50, 9.0), std::vector<double>(50, 10.0), std::vector<double>(50, 11.0)});
    EXPECT_DOUBLE_EQ(three.median, 10.0);
    ASSERT_TRUE(three.hasInterval);
    EXPECT_LT(three.low, 8.5);
    EXPECT_GT(three.high, 11.5);
}

TEST(StatsT, QuantilesOfStudentsT)
{
    EXPECT_DOUBLE_EQ(studentT975(1), 12.706);
    EXPECT_DOUBLE_EQ(studentT975(4.7), 2.776); // rounded down: never narrower
    EXPECT_NEAR(studentT975(60), 2.000, 0.002);
    EXPECT_NEAR(studentT975(1e6), 1.960, 0.001);
}

// ---- A/A and power: intervals at the level that varies ---------------------------------------
//
// Synthetic sweeps shaped like a launch-bound step on an H200: test_stats_synthetic.h.

// Share of trials a candidate `ratio` times the baseline comes out "significant".
double significantShare(std::size_t processes, double ratio, int trials, std::uint64_t seed)
{
    Simulation sim(seed);
    int significant = 0;
    for (int t = 0; t < trials; ++t) {
        const auto base = sim.processes(processes, 10.0);
        const auto cand = sim.processes(processes, 10.0 * ratio);
        const RatioCI ci = ratioOfMedians(cand, base, 500, 1000 + static_cast<std::uint64_t>(t));
        significant += ci.significant ? 1 : 0;
    }
    return static_cast<double>(significant) / trials;
}

TEST(StatsRatioAA, IdenticalConfigurationsRarelySignificantWithThreeProcesses)
{
    const double rate = significantShare(3, 1.0, 200, 2024);
    std::printf("A/A false-positive rate, 3 processes x 100 steps, 200 trials: %.3f\n", rate);
    ::testing::Test::RecordProperty("aa_false_positive_rate", std::to_string(rate));
    EXPECT_LE(rate, 0.05);
}

TEST(StatsRatioAA, RealTenPercentDifferenceDetectedWithFiveProcesses)
{
    const double power = significantShare(5, 0.9, 200, 7);
    std::printf("Power for a 10%% difference, 5 processes x 100 steps, 200 trials: %.3f\n", power);
    ::testing::Test::RecordProperty("power_10pct_5_processes", std::to_string(power));
    EXPECT_GE(power, 0.5);
}

TEST(StatsRatioAA, IdenticalTotalTimesRarelySignificant)
{
    // The recommendation's test: total time for 10000 steps of two identical configurations.
    Simulation sim(99);
    int significant = 0;
    const int trials = 200;
    for (int t = 0; t < trials; ++t) {
        std::vector<Process> a, b;
        for (int p = 0; p < 3; ++p) {
            a.push_back({2.0 * (1.0 + 0.1 * sim.process(1.0, 0.0, 1)[0]), sim.process(0.010, 0.15, 100)});
            b.push_back({2.0 * (1.0 + 0.1 * sim.process(1.0, 0.0, 1)[0]), sim.process(0.010, 0.15, 100)});
        }
        significant += totalTimeDifference(a, b, 10000, 500, static_cast<std::uint64_t>(t)).significant ? 1 : 0;
    }
    const double rate = static_cast<double>(significant) / trials;
    std::printf("A/A false-positive rate of total time, 3 processes, 200 trials: %.3f\n", rate);
    EXPECT_LE(rate, 0.05);
}

TEST(StatsBreakEvenCI, SpansFromImmediatelyToNever)
{
    // Processes at 9, 10 and 11 ms on both sides: C may be faster or slower, so "never" is inside.
    const auto side = [](double first, std::initializer_list<double> levels) {
        std::vector<Process> out;
        for (double l : levels)
            out.push_back({first, std::vector<double>(50, l)});
        return out;
    };
    const BreakEvenCI ci = breakEvenInterval(side(0.5, {0.009, 0.010, 0.011}), side(1.0, {0.009, 0.010, 0.011}));
    ASSERT_TRUE(ci.hasInterval);
    EXPECT_LE(ci.low, 1.0); // cheaper first step: pays off immediately where it is faster
    EXPECT_TRUE(ci.highNever);

    // Clearly faster (5 vs 10 ms, within 1%) and 10 s dearer up front: n* = 1 + 10 / 0.005 = 2001.
    const BreakEvenCI clear =
        breakEvenInterval(side(11.0, {0.00495, 0.005, 0.00505}), side(1.0, {0.0099, 0.010, 0.0101}));
    ASSERT_TRUE(clear.hasInterval);
    EXPECT_FALSE(clear.highNever);
    EXPECT_LT(clear.low, 2001);
    EXPECT_GT(clear.high, 2001);
    EXPECT_GT(clear.low, 1500);
    EXPECT_LT(clear.high, 2500);

    EXPECT_FALSE(breakEvenInterval(side(1, {0.01}), side(1, {0.01, 0.01})).hasInterval);
}

TEST(StatsFirstStep, NoiseAcrossProcesses)
{
    EXPECT_FALSE(firstStepNoise({12.0}).has_value());
    EXPECT_EQ(firstStepNoise({2.0, 2.1}), Noise::Ok);        // range 0.1 / 2.05 = 4.9%
    EXPECT_EQ(firstStepNoise({2.0, 2.3, 2.1}), Noise::Warn); // range 0.3 / 2.1 = 14%
    EXPECT_EQ(firstStepNoise({2.0, 12.0, 2.1}), Noise::Unreliable);
    // From 4 on, IQR / median: one cold outlier among five does not mark the figure.
    EXPECT_EQ(firstStepNoise({2.0, 2.02, 2.04, 2.06, 12.0}), Noise::Ok); // IQR 0.04 / 2.04
}

} // namespace
