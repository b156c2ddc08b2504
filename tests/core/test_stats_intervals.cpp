// Tests of the process-level intervals over process summaries (core/stats/process_summary.h): the
// pooled median a resample takes, the within-process term from blocks of steps, coverage on
// synthetic sweeps whose true level is known, small process counts, and Welch's degrees of freedom in
// the break-even interval. Expected values are worked out in the comments; seeds are fixed.
#include "stats/stats.h"
#include "test_stats_synthetic.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

using namespace stepscope::stats;
using stepscope::stats::synthetic::Simulation;
using stepscope::stats::synthetic::UnitNoise;

namespace
{

constexpr double kPi = 3.141592653589793;

// ---- Process summaries -------------------------------------------------------------------------

TEST(StatsProcessSummary, PooledMedianIsTheMedianOfThePool)
{
    // Processes of 1-40 steps with many ties, negatives and zeros, drawn 0-3 times each: the pooled
    // median is what median() gives for the pool written out, to the last bit.
    UnitNoise noise(11);
    int compared = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const std::size_t n = 1 + static_cast<std::size_t>(trial % 5);
        std::vector<ProcessSummary> processes;
        std::vector<std::uint32_t> copies;
        std::vector<double> pool;
        for (std::size_t i = 0; i < n; ++i) {
            std::vector<double> steps;
            const int length = 1 + (trial * 7 + static_cast<int>(i) * 13) % 40;
            for (int k = 0; k < length; ++k)
                steps.push_back(std::round(noise.next() * 20) / 4 + (trial % 3 == 0 ? 10 : 0));
            processes.push_back(summarizeProcess(steps));
            copies.push_back(static_cast<std::uint32_t>(std::floor((noise.next() + 1) * 2))); // 0-3
            for (std::uint32_t c = 0; c < copies.back(); ++c)
                pool.insert(pool.end(), steps.begin(), steps.end());
        }
        if (pool.empty()) {
            EXPECT_TRUE(std::isnan(pooledMedian(processes, copies)));
            continue;
        }
        EXPECT_EQ(pooledMedian(processes, copies), median(pool)) << "trial " << trial;
        ++compared;
    }
    EXPECT_GT(compared, 250);
}

TEST(StatsProcessSummary, BlocksGrowWithTheStepsThenLengthen)
{
    EXPECT_EQ(blockCount(1), 1u);       // one step: no blocks to compare, no within term
    EXPECT_EQ(blockCount(3), 2u);       // floor(sqrt(3)) = 1, at least 2
    EXPECT_EQ(blockCount(10), 3u);      // the shortest steady window: 3 blocks of 3-4 steps
    EXPECT_EQ(blockCount(100), 10u);    // the ledger preset: 10 blocks of 10
    EXPECT_EQ(blockCount(1024), 32u);   // 32 blocks of 32
    EXPECT_EQ(blockCount(100000), 32u); // 32 blocks of 3,125: longer, not more
    EXPECT_EQ(summarizeProcess({5.0}).withinLogVariance, 0.0);
    EXPECT_EQ(summarizeProcess(std::vector<double>(500, 5.0)).withinLogVariance, 0.0);
}

TEST(StatsProcessSummary, WithinTermSeesCorrelatedSteps)
{
    // 10,000 steps at 10 ms with 3% noise. Independent steps: the median of m normal steps has a
    // variance of pi/2 * sd^2 / m, on the log scale pi/2 * 0.03^2 / 10000 = 1.41e-7. 32 blocks
    // estimate it to about +-25% (sqrt(2/31)). AR(1) steps with phi 0.7 (the same 3% marginal noise)
    // carry less information per step: the variance grows by (1 + phi) / (1 - phi) = 5.67, which
    // blocks of 312 steps see and resampling single steps would not.
    const double independent = kPi / 2 * 0.03 * 0.03 / 10000;
    Simulation sim(5);
    const double iid = summarizeProcess(sim.process(10.0, 0.0, 10000, 0.0)).withinLogVariance;
    const double ar = summarizeProcess(sim.process(10.0, 0.0, 10000, 0.7)).withinLogVariance;
    std::printf("within-process variance of the log median, 10,000 steps: independent %.3g (theory %.3g), "
                "AR(1) 0.7 %.3g (theory %.3g)\n",
                iid, independent, ar, independent * 1.7 / 0.3);
    EXPECT_GT(iid, independent / 2);
    EXPECT_LT(iid, independent * 2);
    EXPECT_GT(ar, independent * 5.67 / 2);
    EXPECT_LT(ar, independent * 5.67 * 2);

    // A process that ran 100 times longer knows its own level about 100 times better.
    const double shortRun = summarizeProcess(sim.process(10.0, 0.0, 1000, 0.0)).withinLogVariance;
    const double longRun = summarizeProcess(sim.process(10.0, 0.0, 100000, 0.0)).withinLogVariance;
    EXPECT_LT(longRun, shortRun / 25);
}

TEST(StatsProcessSummary, SummariesGiveTheSameIntervalsAsSteps)
{
    Simulation sim(8);
    const Runs a = sim.processes(3, 10.0), b = sim.processes(4, 9.0);
    const MedianCI fromSteps = medianOfRuns(a, 500, 3), fromSummaries = medianOfRuns(summarizeProcesses(a), 500, 3);
    EXPECT_EQ(fromSteps.low, fromSummaries.low);
    EXPECT_EQ(fromSteps.high, fromSummaries.high);
    const RatioCI r1 = ratioOfMedians(b, a, 500, 4),
                  r2 = ratioOfMedians(summarizeProcesses(b), summarizeProcesses(a), 500, 4);
    EXPECT_EQ(r1.low, r2.low);
    EXPECT_EQ(r1.high, r2.high);
    // The point estimate is still the median of the pooled steps.
    std::vector<double> pooled;
    for (const auto &r : a)
        pooled.insert(pooled.end(), r.begin(), r.end());
    EXPECT_DOUBLE_EQ(fromSteps.median, median(pooled)); // through exp(log(.)): the last bit may move
}

// ---- What the interval claims ----------------------------------------------------------------------

std::vector<ProcessSummary> withoutWithinTerm(std::vector<ProcessSummary> processes)
{
    for (auto &p : processes)
        p.withinLogVariance = 0;
    return processes;
}

TEST(StatsIntervals, WithinTermNeverNarrowsTheProcessOnlyInterval)
{
    // The same processes with their within-process term set to 0 give the interval of resampling
    // processes alone (same seed, same resamples). The term is a floor under that variance: the
    // interval is never narrower, and on launch-bound data (15% between processes) it is the same.
    Simulation sim(21);
    int same = 0;
    for (int trial = 0; trial < 40; ++trial) {
        const std::size_t n = 2 + static_cast<std::size_t>(trial % 4);
        const auto a = summarizeProcesses(sim.processes(n, 10.0)), b = summarizeProcesses(sim.processes(n, 10.0));
        const MedianCI with = medianOfRuns(a), processOnly = medianOfRuns(withoutWithinTerm(a));
        ASSERT_TRUE(with.hasInterval && processOnly.hasInterval);
        EXPECT_EQ(with.median, processOnly.median);
        EXPECT_LE(with.low, processOnly.low) << "trial " << trial;
        EXPECT_GE(with.high, processOnly.high) << "trial " << trial;
        same += with.low == processOnly.low && with.high == processOnly.high ? 1 : 0;
        const RatioCI ratio = ratioOfMedians(a, b);
        const RatioCI ratioProcessOnly = ratioOfMedians(withoutWithinTerm(a), withoutWithinTerm(b));
        EXPECT_LE(ratio.low, ratioProcessOnly.low) << "trial " << trial;
        EXPECT_GE(ratio.high, ratioProcessOnly.high) << "trial " << trial;
    }
    EXPECT_GE(same, 30) << "the floor should rarely bind where processes differ by 15%";

    // Two processes whose medians agree exactly (the same wandering steps, the second run backwards):
    // resampling processes sees no spread at all, a zero-width interval; their own steps say the
    // level is known to a few percent at best.
    const std::vector<double> wander = Simulation(5).process(10.0, 0.0, 200, 0.95, 0.05);
    const std::vector<double> backwards(wander.rbegin(), wander.rend());
    const auto twins = summarizeProcesses(Runs{wander, backwards});
    const MedianCI processOnly = medianOfRuns(withoutWithinTerm(twins)), with = medianOfRuns(twins);
    EXPECT_NEAR(processOnly.high - processOnly.low, 0, 1e-9);
    EXPECT_LT(with.low, 0.98 * with.median);
    EXPECT_GT(with.high, 1.02 * with.median);
}

// Share of trials in which the steady median's interval holds the configuration's true level.
double coverage(std::size_t processes, double spread, std::size_t steps, double phi, int trials, std::uint64_t seed)
{
    Simulation sim(seed);
    int covered = 0;
    for (int t = 0; t < trials; ++t) {
        const MedianCI ci =
            medianOfRuns(sim.processes(processes, 10.0, spread, steps, phi), 500, 1000 + static_cast<std::uint64_t>(t));
        covered += ci.hasInterval && ci.low <= 10.0 && ci.high >= 10.0 ? 1 : 0;
    }
    return static_cast<double>(covered) / trials;
}

TEST(StatsIntervals, SteadyIntervalCoversTheTrueLevelAtAboutTheNominalRate)
{
    // Process levels uniform within +-7.5% of 10 ms (the spread of a launch-bound eager step), steps
    // wandering around each as AR(1) noise: the configuration's level, the median of its processes'
    // levels, is 10 ms. A 95% interval should hold it in about 95% of sweeps: not much less (dishonest),
    // and not all the time (too wide to tell configurations apart). With 3 processes the pooled median
    // is nearly the middle process's, whose bootstrap is a little short: 92.5% here, as method 1's
    // step-level bootstrap gave on the same sweeps; 400 sweeps measure a rate to +-1.1%.
    for (const std::size_t n : {3u, 5u}) {
        const double rate = coverage(n, 0.15, 100, 0.7, 400, 40 + n);
        std::printf("coverage of the steady interval, %zu processes x 100 steps, 400 sweeps: %.3f\n", n, rate);
        EXPECT_GE(rate, 0.91) << n << " processes";
        EXPECT_LE(rate, 0.995) << n << " processes";
    }
    // Two processes: an interval (t with 1 degree of freedom), conservative rather than short.
    const double two = coverage(2, 0.15, 100, 0.7, 400, 42);
    std::printf("coverage of the steady interval, 2 processes x 100 steps, 400 sweeps: %.3f\n", two);
    EXPECT_GE(two, 0.92);
    // Every process at the same level, its steps wandering slowly (phi 0.95 over 400 steps): the
    // processes' medians differ only by their own noise, which the within term must not lose.
    const double within = coverage(3, 0.0, 400, 0.95, 400, 43);
    std::printf("coverage of the steady interval, 3 processes at one level, slow wander, 400 sweeps: %.3f\n", within);
    EXPECT_GE(within, 0.93);
}

TEST(StatsIntervals, SmallProcessCountsAreExplicit)
{
    // One process: no interval anywhere, however many steps it has.
    const std::vector<double> steps(1000, 10.0);
    EXPECT_FALSE(medianOfRuns({steps}).hasInterval);
    EXPECT_FALSE(ratioOfMedians({steps}, {steps, steps}).hasInterval);
    EXPECT_FALSE(breakEvenInterval({{1.0, steps}}, {{1.0, steps}, {1.0, steps}}).hasInterval);
    EXPECT_FALSE(totalTimeDifference({{1.0, steps}}, {{1.0, steps}, {1.0, steps}}, 100).hasInterval);
    // Two processes at 9.9 and 10.1 ms: an interval, with t(1) = 12.7 it is wider than three
    // processes at 9.9, 10.0 and 10.1 give (t(2) = 4.3).
    const MedianCI two = medianOfRuns({std::vector<double>(50, 9.9), std::vector<double>(50, 10.1)});
    const MedianCI three =
        medianOfRuns({std::vector<double>(50, 9.9), std::vector<double>(50, 10.0), std::vector<double>(50, 10.1)});
    ASSERT_TRUE(two.hasInterval && three.hasInterval);
    EXPECT_DOUBLE_EQ(two.median, 10.0);
    EXPECT_GT(two.high - two.low, 2 * (three.high - three.low));
    EXPECT_LT(two.low, 9.9);
    EXPECT_GT(two.high, 10.1);
}

// ---- Break-even: Welch's degrees of freedom -----------------------------------------------------

std::vector<Process> steadySide(std::size_t n, double first, double stepS, double relativeSpread)
{
    std::vector<Process> side;
    for (std::size_t i = 0; i < n; ++i) {
        const double k = n > 1 ? static_cast<double>(i) / static_cast<double>(n - 1) - 0.5 : 0; // -0.5..0.5
        side.push_back({first * (1 + relativeSpread * k), std::vector<double>(50, stepS * (1 + relativeSpread * k))});
    }
    return side;
}

TEST(StatsBreakEvenCI, UnequalProcessCountsTakeWelchsDegreesOfFreedom)
{
    // C: 2 processes that disagree by 2% (first 10 s, step 5 ms); B: processes that agree to 0.01%
    // (first 1 s, step 10 ms). n* = 1 + 9 / 0.005 = 1801. The uncertainty is C's, and C rests on 2
    // processes: 1 degree of freedom whether B has 2 processes or 10. A pooled df (n_C + n_B - 2)
    // would give t(2) = 4.30 against 2 and t(10) = 2.23 against 10, halving the interval because B
    // ran more often; Welch's keeps both near t(1).
    const auto c = steadySide(2, 10.0, 0.005, 0.02);
    const BreakEvenCI againstTwo = breakEvenInterval(c, steadySide(2, 1.0, 0.010, 0.0001));
    const BreakEvenCI againstTen = breakEvenInterval(c, steadySide(10, 1.0, 0.010, 0.0001));
    ASSERT_TRUE(againstTwo.hasInterval && againstTen.hasInterval);
    ASSERT_FALSE(againstTwo.highNever || againstTen.highNever);
    std::printf("break-even 1801: against 2 processes %.0f-%.0f, against 10 %.0f-%.0f\n", againstTwo.low,
                againstTwo.high, againstTen.low, againstTen.high);
    for (const auto &ci : {againstTwo, againstTen}) {
        EXPECT_LT(ci.low, 1801);
        EXPECT_GT(ci.high, 1801);
    }
    EXPECT_GT(againstTen.high - againstTen.low, 0.8 * (againstTwo.high - againstTwo.low));
}

} // namespace
