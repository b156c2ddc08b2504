// Cancelling a bootstrap through its CancelToken: a raised token gives a result marked cancelled
// (the point estimate, no interval) at once, one raised from another thread stops a bootstrap under
// way within a resample, and a token never raised changes no figure.
#include "stats/stats.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

using namespace stepscope::stats;

namespace
{

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Three processes settled at 9, 10 and 11 ms with a little spread of their own.
Runs threeProcesses()
{
    Runs runs;
    for (double level : {9.0, 10.0, 11.0}) {
        std::vector<double> steps;
        for (int i = 0; i < 200; ++i)
            steps.push_back(level * (1.0 + 0.01 * std::sin(i * 0.7)));
        runs.push_back(steps);
    }
    return runs;
}

std::vector<Process> asProcesses(const Runs &runs, double first)
{
    std::vector<Process> out;
    for (const auto &steps : runs)
        out.push_back({first, steps});
    return out;
}

TEST(StatsCancel, ARaisedTokenGivesThePointEstimateWithoutAnInterval)
{
    const Runs runs = threeProcesses();
    std::vector<Runs> scaled{runs, runs};
    for (auto &steps : scaled[1])
        for (double &s : steps)
            s *= 0.8; // a candidate 20% faster per step
    const auto baseline = asProcesses(scaled[0], 0.5), candidate = asProcesses(scaled[1], 2.0);
    std::atomic<bool> raised{true};
    const CancelToken cancel(raised);

    const MedianCI plain = medianOfRuns(runs);
    ASSERT_TRUE(plain.hasInterval);
    const MedianCI median = medianOfRuns(runs, kResamples, kSeed, cancel);
    EXPECT_TRUE(median.cancelled);
    EXPECT_FALSE(median.hasInterval);
    EXPECT_TRUE(std::isnan(median.low));
    EXPECT_DOUBLE_EQ(median.median, plain.median);

    const RatioCI ratio = ratioOfMedians(scaled[1], scaled[0], kResamples, kSeed, cancel);
    EXPECT_TRUE(ratio.cancelled);
    EXPECT_FALSE(ratio.hasInterval);
    EXPECT_FALSE(ratio.significant); // a cancelled interval never calls a difference
    EXPECT_NEAR(ratio.ratio, 0.8, 1e-9);

    const BreakEvenCI breakEven = breakEvenInterval(candidate, baseline, kResamples, kSeed, cancel);
    EXPECT_TRUE(breakEven.cancelled);
    EXPECT_FALSE(breakEven.hasInterval);

    const DifferenceCI difference = totalTimeDifference(candidate, baseline, 1000, kResamples, kSeed, cancel);
    EXPECT_TRUE(difference.cancelled);
    EXPECT_FALSE(difference.hasInterval);
    EXPECT_FALSE(difference.significant);
    EXPECT_FALSE(std::isnan(difference.difference));

    // Uncancelled, the same calls have their intervals: what was missing above was the token's doing.
    EXPECT_TRUE(breakEvenInterval(candidate, baseline).hasInterval);
    EXPECT_TRUE(totalTimeDifference(candidate, baseline, 1000).hasInterval);
}

TEST(StatsCancel, ATokenNeverRaisedChangesNoFigure)
{
    const Runs runs = threeProcesses();
    std::atomic<bool> lowered{false};
    const MedianCI plain = medianOfRuns(runs);
    const MedianCI watched = medianOfRuns(runs, kResamples, kSeed, CancelToken(lowered));
    EXPECT_FALSE(watched.cancelled);
    EXPECT_TRUE(watched.hasInterval);
    EXPECT_DOUBLE_EQ(watched.low, plain.low);
    EXPECT_DOUBLE_EQ(watched.high, plain.high);
}

TEST(StatsCancel, ATokenRaisedFromAnotherThreadStopsABootstrapUnderWay)
{
    // Sixty processes at sixty levels: almost every resample draws a combination of its own, so
    // resamples cost alike and none is looked up.
    Runs runs;
    for (int p = 0; p < 60; ++p)
        runs.push_back(std::vector<double>(500, 10.0 + 0.05 * p));
    const auto processes = summarizeProcesses(runs);

    // What 2,000 resamples cost here (sanitizers and load change it: no fixed figure).
    auto start = Clock::now();
    ASSERT_TRUE(medianOfRuns(processes, 2000).hasInterval);
    const double per2000 = secondsSince(start);

    // 100 times as many would take 100 * per2000 uncancelled; the token is raised after 20 ms.
    std::atomic<bool> flag{false};
    start = Clock::now();
    std::thread raiser([&flag] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        flag = true;
    });
    const MedianCI ci = medianOfRuns(processes, 200000, kSeed, CancelToken(flag));
    const double cancelledAfter = secondsSince(start);
    raiser.join();
    EXPECT_TRUE(ci.cancelled);
    EXPECT_FALSE(ci.hasInterval);
    EXPECT_DOUBLE_EQ(ci.median, medianOfRuns(processes, 2).median);
    EXPECT_LT(cancelledAfter, 0.2 + 10 * per2000) << "2,000 resamples took " << per2000 << " s";
}

} // namespace
