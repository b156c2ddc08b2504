#include "stats/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <utility>

namespace stepscope::stats
{

namespace
{

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Quantile of an already sorted sample, numpy's default ("linear") method: the position
// q * (n - 1) between order statistics, interpolated linearly. Shared by summarize() so the
// sample is sorted once for all its quantiles.
double sortedQuantile(const std::vector<double> &sorted, double q)
{
    if (sorted.empty() || std::isnan(q))
        return kNaN;
    q = std::clamp(q, 0.0, 1.0);
    const double pos = q * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    if (lo + 1 >= sorted.size())
        return sorted.back();
    const double frac = pos - static_cast<double>(lo);
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

// Median that reorders its argument: nth_element is linear, which matters in the bootstrap where
// thousands of medians are taken.
double medianInPlace(std::vector<double> &v)
{
    if (v.empty())
        return kNaN;
    const std::size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
    const double upper = v[mid];
    if (v.size() % 2 == 1)
        return upper;
    // After nth_element everything before `mid` is <= upper, so the lower middle is their maximum.
    const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
    return lower + (upper - lower) / 2;
}

double meanOf(const std::vector<double> &v)
{
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

// Raw median absolute deviation around `center`.
double madAround(const std::vector<double> &v, double center)
{
    std::vector<double> dev;
    dev.reserve(v.size());
    for (double x : v)
        dev.push_back(std::abs(x - center));
    return medianInPlace(dev);
}

// Sample (n - 1) standard deviation; NaN for fewer than two values, since one value says nothing
// about spread and a 0 would read as "perfectly stable".
double sampleStddev(const std::vector<double> &v, double mean)
{
    if (v.size() < 2)
        return kNaN;
    double sum = 0;
    for (double x : v)
        sum += (x - mean) * (x - mean);
    return std::sqrt(sum / static_cast<double>(v.size() - 1));
}

std::vector<double> slice(const std::vector<double> &v, std::size_t begin, std::size_t end)
{
    return {v.begin() + static_cast<std::ptrdiff_t>(begin), v.begin() + static_cast<std::ptrdiff_t>(end)};
}

} // namespace

double quantile(std::vector<double> values, double q)
{
    std::sort(values.begin(), values.end());
    return sortedQuantile(values, q);
}

double median(std::vector<double> values)
{
    return medianInPlace(values);
}

Summary summarize(const std::vector<double> &values)
{
    Summary s;
    s.count = values.size();
    if (values.empty()) {
        s.median = s.mean = s.p10 = s.p90 = s.q1 = s.q3 = kNaN;
        s.iqr = s.mad = s.cv = s.min = s.max = kNaN;
        return s;
    }
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    s.min = sorted.front();
    s.max = sorted.back();
    s.median = sortedQuantile(sorted, 0.5);
    s.p10 = sortedQuantile(sorted, 0.10);
    s.p90 = sortedQuantile(sorted, 0.90);
    s.q1 = sortedQuantile(sorted, 0.25);
    s.q3 = sortedQuantile(sorted, 0.75);
    s.iqr = s.q3 - s.q1;
    s.mad = madAround(sorted, s.median);
    s.mean = meanOf(sorted);
    s.cv = sampleStddev(sorted, s.mean) / s.mean;
    return s;
}

// ---- Noise -------------------------------------------------------------------------------------

Noise noiseOf(const Summary &s)
{
    const double spread = s.iqr / s.median;
    // Written as "not below" so that an undefined spread (no samples, median 0) is Unreliable:
    // a figure we cannot judge must not be shown as trustworthy.
    if (!(spread < 0.25))
        return Noise::Unreliable;
    if (!(spread < 0.10))
        return Noise::Warn;
    return Noise::Ok;
}

const char *toString(Noise n)
{
    switch (n) {
    case Noise::Ok:
        return "ok";
    case Noise::Warn:
        return "noisy";
    case Noise::Unreliable:
        return "unreliable";
    }
    return "unreliable";
}

// ---- Steady state ------------------------------------------------------------------------------
//
// Algorithm (why each piece is there):
//  1. The reference level is the median of the last half of the series, with its MAD as the noise
//     scale. Warm-up happens at the start, so the end of a run is the best guess of "settled";
//     median and MAD ignore the odd spike (GC, a background process).
//  2. Drift check: if the medians of the first and last quarter of that last half differ by more
//     than 10% of the reference AND the last half trends one way (Kendall's |tau| >= 0.6 over its
//     medians of 5-step blocks, so one level change is no trend, a ramp under noise is), the run
//     is still moving (a ramp, thermal throttling, a cache that keeps growing) and no window can be
//     trusted: "no steady state". The trend test matters on launch-bound steps: they wander between
//     levels for a few dozen steps (host jitter, a sync per step), which moves quarter medians by
//     10-15% without any drift; on an H200 that alone marked half of the fp16 runs unsettled.
//  3. The series is cut into blocks of max(5, n/20) steps (the last block takes the remainder, so no
//     tiny block of one noisy step decides anything). A block is settled when its median lies
//     within max(5% of the reference, 3 * 1.4826 * MAD) of the reference; the window begins at the
//     first settled block from which at least 80% of the later blocks are settled too. Block medians rather than single
//     steps, so that one slow step does not cut the window; 1.4826 * MAD estimates a standard deviation, 3 of them
//     tolerate ordinary noise; the 5% floor keeps a noiseless series (MAD 0) from rejecting rounding-level wobble. When
//     the last half drifts but its final quarter no longer trends (a run that settled late), the reference and MAD come
//     from that final quarter instead.
//  4. Within that first block, leading steps that are themselves out of tolerance are dropped, so
//     the window does not start with the last warm-up steps when warm-up ends mid-block.
//  5. Fewer than 10 steps in all, or left in the window, is too little to report a step time from.

namespace
{

constexpr std::size_t kMinSteadySteps = 10;
constexpr double kDriftLimit = 0.10;
constexpr double kTrendTau = 0.6;
constexpr double kSettledShare = 0.8;
constexpr std::size_t kTrendBlocks = 200; // Kendall's tau is O(n^2): at most this many block medians
constexpr double kRelativeTolerance = 0.05;
constexpr double kMadSigmas = 3.0;
constexpr double kMadToSigma = 1.4826;

std::string percentText(double fraction)
{
    return std::to_string(static_cast<long long>(std::llround(fraction * 100))) + "%";
}

// Not found leaves the window empty (begin == end == 0), so no caller can time a slice of it.
SteadyWindow notFound(std::string reason)
{
    SteadyWindow w;
    w.reason = std::move(reason);
    return w;
}

struct Blocks {
    std::size_t size = 0;  // nominal block length
    std::size_t count = 0; // number of blocks; the last one extends to the end of the series
    std::size_t begin(std::size_t k) const { return k * size; }
    std::size_t end(std::size_t k, std::size_t n) const { return k + 1 == count ? n : (k + 1) * size; }
};

Blocks blocksFor(std::size_t n)
{
    Blocks b;
    b.size = std::max<std::size_t>(5, n / 20);
    b.count = std::max<std::size_t>(1, n / b.size);
    return b;
}

// Kendall's tau-a of the tail's block medians against their order: +1 always rising, -1 always
// falling, ~0 no trend. Block medians keep single noisy steps from deciding.
double kendallTau(const std::vector<double> &series)
{
    const std::size_t block = std::max<std::size_t>(5, series.size() / kTrendBlocks);
    std::vector<double> x;
    for (std::size_t i = 0; i + block <= series.size(); i += block)
        x.push_back(median(slice(series, i, i + block)));
    long long concordant = 0, discordant = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
        for (std::size_t j = i + 1; j < x.size(); ++j) {
            if (x[j] > x[i])
                ++concordant;
            else if (x[j] < x[i])
                ++discordant;
        }
    const double pairs = 0.5 * static_cast<double>(x.size()) * static_cast<double>(x.size() - 1);
    return pairs > 0 ? static_cast<double>(concordant - discordant) / pairs : 0.0;
}

// Relative change between the start and the end of the tail, or nullopt when it is within bounds
// or does not follow a trend.
std::optional<double> tailDrift(const std::vector<double> &tail, double reference)
{
    // Quarters of at least two steps, so a single noisy step cannot fake a drift.
    const std::size_t quarter = std::max<std::size_t>(2, tail.size() / 4);
    const double early = median(slice(tail, 0, quarter));
    const double late = median(slice(tail, tail.size() - quarter, tail.size()));
    const double change = late - early;
    if (std::abs(change) > kDriftLimit * std::abs(reference) && std::abs(kendallTau(tail)) >= kTrendTau)
        return change / reference;
    return std::nullopt;
}

} // namespace

SteadyWindow detectSteadyState(const std::vector<double> &stepsAfterFirst)
{
    const auto &x = stepsAfterFirst;
    const std::size_t n = x.size();
    if (n < kMinSteadySteps)
        return notFound("only " + std::to_string(n) + " steps after the first one were timed; at least " +
                        std::to_string(kMinSteadySteps) + " are needed to find a steady state");

    std::vector<double> tail = slice(x, n / 2, n);
    if (const auto drift = tailDrift(tail, median(tail))) {
        // The last half moved. If the final quarter no longer trends, the run settled late: take
        // the level from there. If it still trends, nothing can be trusted yet.
        std::vector<double> lastQuarter = slice(x, n - n / 4, n);
        if (lastQuarter.size() < kMinSteadySteps || std::abs(kendallTau(lastQuarter)) >= kTrendTau)
            return notFound(std::string("step times still ") + (*drift > 0 ? "rise" : "fall") + " by " +
                            percentText(std::abs(*drift)) +
                            " over the last half of the run; run more steps or check for throttling");
        tail = std::move(lastQuarter);
    }
    const double reference = median(tail);
    const double mad = madAround(tail, reference);

    const double tolerance = std::max(kRelativeTolerance * std::abs(reference), kMadSigmas * kMadToSigma * mad);
    const auto settled = [&](double v) { return std::abs(v - reference) <= tolerance; };

    // Warm-up is the prefix: the window starts at the first settled block from which at least 80%
    // of the blocks stay settled. A later excursion (host jitter on a launch-bound step) is part of
    // what the configuration costs and shows in the noise flag; it does not restart the window.
    const Blocks blocks = blocksFor(n);
    std::vector<bool> blockSettled(blocks.count);
    for (std::size_t k = 0; k < blocks.count; ++k)
        blockSettled[k] = settled(median(slice(x, blocks.begin(k), blocks.end(k, n))));
    std::size_t firstSteady = blocks.count;
    for (std::size_t k = 0; k < blocks.count && firstSteady == blocks.count; ++k) {
        if (!blockSettled[k])
            continue;
        const auto settledAfter = std::count(blockSettled.begin() + static_cast<long>(k), blockSettled.end(), true);
        if (static_cast<double>(settledAfter) >= kSettledShare * static_cast<double>(blocks.count - k))
            firstSteady = k;
    }
    if (firstSteady == blocks.count)
        return notFound("the steps of the run do not settle at one step time; run more steps");

    std::size_t begin = blocks.begin(firstSteady);
    const std::size_t blockEnd = blocks.end(firstSteady, n);
    while (begin < blockEnd && !settled(x[begin]))
        ++begin;

    if (n - begin < kMinSteadySteps)
        return notFound("only " + std::to_string(n - begin) + " steps remain after warm-up; at least " +
                        std::to_string(kMinSteadySteps) + " are needed, run more steps");

    SteadyWindow w;
    w.found = true;
    w.begin = begin;
    w.end = n;
    return w;
}

// ---- Comparison --------------------------------------------------------------------------------

namespace
{

// Uniform index in [0, n) by rejection: unbiased, and unlike std::uniform_int_distribution its
// output is the same on every standard library, so a seed reproduces a CI on any platform.
std::size_t uniformIndex(std::mt19937_64 &rng, std::size_t n)
{
    constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
    const std::uint64_t range = n;
    // Draws at or above `limit` would make the low indices more likely than the high ones.
    const std::uint64_t limit = top - top % range;
    std::uint64_t r = rng();
    while (r >= limit)
        r = rng();
    return static_cast<std::size_t>(r % range);
}

void resample(const std::vector<double> &from, std::vector<double> &into, std::mt19937_64 &rng)
{
    into.resize(from.size());
    for (double &v : into)
        v = from[uniformIndex(rng, from.size())];
}

} // namespace

RatioCI ratioOfMedians(const std::vector<double> &candidate, const std::vector<double> &baseline, int resamples,
                       std::uint64_t seed)
{
    RatioCI ci;
    ci.ratio = ci.low = ci.high = kNaN;
    if (candidate.empty() || baseline.empty())
        return ci;
    ci.ratio = median(candidate) / median(baseline);
    if (resamples < 1)
        return ci;

    std::mt19937_64 rng(seed);
    std::vector<double> ratios;
    ratios.reserve(static_cast<std::size_t>(resamples));
    std::vector<double> c, b;
    for (int i = 0; i < resamples; ++i) {
        resample(candidate, c, rng);
        resample(baseline, b, rng);
        ratios.push_back(medianInPlace(c) / medianInPlace(b));
    }
    std::sort(ratios.begin(), ratios.end());
    ci.low = sortedQuantile(ratios, 0.025);
    ci.high = sortedQuantile(ratios, 0.975);
    // Comparisons with NaN are false, so an undefined CI is never "significant".
    ci.significant = ci.high < 1.0 || ci.low > 1.0;
    return ci;
}

// ---- Break-even and recommendation -------------------------------------------------------------

std::optional<double> breakEvenSteps(double firstC, double steadyC, double firstB, double steadyB)
{
    // "Not faster" includes equal and undefined (NaN) step times: C never catches up then.
    if (!(steadyC < steadyB))
        return std::nullopt;
    return 1.0 + (firstC - firstB) / (steadyB - steadyC);
}

double totalTime(double first, double steady, std::int64_t plannedSteps)
{
    return first + static_cast<double>(plannedSteps - 1) * steady;
}

std::optional<Recommendation> recommend(const std::vector<Candidate> &candidates, std::int64_t plannedSteps)
{
    if (candidates.empty() || plannedSteps < 1)
        return std::nullopt;

    // A configuration without a usable figure (NaN: failed or no steady state) is neither best nor
    // runner-up; ties go to the one listed first, which is the baseline by convention.
    std::optional<std::size_t> best, runnerUp;
    std::vector<double> totals;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const double t = totalTime(candidates[i].first, candidates[i].steady, plannedSteps);
        totals.push_back(t);
        if (std::isnan(t))
            continue;
        if (!best || t < totals[*best]) {
            runnerUp = best;
            best = i;
        } else if (!runnerUp || t < totals[*runnerUp]) {
            runnerUp = i;
        }
    }
    if (!best)
        return std::nullopt;

    Recommendation r;
    r.best = *best;
    r.bestTotal = totals[*best];
    r.runnerUp = runnerUp;
    if (runnerUp) {
        r.runnerUpTotal = totals[*runnerUp];
        r.margin = r.runnerUpTotal - r.bestTotal;
    }
    return r;
}

} // namespace stepscope::stats
