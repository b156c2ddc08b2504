#include "stats/stats.h"

#include "common/measurement_defaults.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
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
    return noiseOfSpread(s.iqr / s.median);
}

Noise noiseOfSpread(double spread)
{
    // Written as "not below" so that an undefined spread (no samples, median 0) is Unreliable:
    // a figure we cannot judge must not be shown as trustworthy.
    if (!(spread < kNoiseUnreliable))
        return Noise::Unreliable;
    if (!(spread < kNoiseWarn))
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

// Not found leaves the window empty (begin == end == 0), so no caller can time a slice of it. The
// problem keeps the run's length `runSteps`, from which a view suggests a longer one.
SteadyWindow notFound(SteadyProblem::Kind kind, std::size_t runSteps, std::size_t steps = 0, std::size_t needed = 0)
{
    SteadyWindow w;
    w.problem = SteadyProblem{kind, static_cast<std::int64_t>(steps), static_cast<std::int64_t>(needed)};
    w.problem->runSteps = static_cast<std::int64_t>(runSteps);
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

// The levels at the start and at the end of the tail when they differ beyond bounds along a trend;
// nullopt when the tail is within bounds or follows no trend.
struct Drift {
    double early = 0, late = 0;
};
std::optional<Drift> tailDrift(const std::vector<double> &tail, double reference)
{
    // Quarters of at least two steps, so a single noisy step cannot fake a drift.
    const std::size_t quarter = std::max<std::size_t>(2, tail.size() / 4);
    const double early = median(slice(tail, 0, quarter));
    const double late = median(slice(tail, tail.size() - quarter, tail.size()));
    const double change = late - early;
    if (std::abs(change) > kDriftLimit * std::abs(reference) && std::abs(kendallTau(tail)) >= kTrendTau)
        return Drift{early, late};
    return std::nullopt;
}

} // namespace

SteadyWindow detectSteadyState(const std::vector<double> &stepsAfterFirst)
{
    const auto &x = stepsAfterFirst;
    const std::size_t n = x.size();
    if (n < kMinSteadySteps)
        return notFound(SteadyProblem::Kind::TooFewSteps, n, n, kMinSteadySteps);

    std::vector<double> tail = slice(x, n / 2, n);
    if (const auto drift = tailDrift(tail, median(tail))) {
        // The last half moved. If the final quarter no longer trends, the run settled late: take
        // the level from there. If it still trends, nothing can be trusted yet.
        std::vector<double> lastQuarter = slice(x, n - n / 4, n);
        if (lastQuarter.size() < kMinSteadySteps || std::abs(kendallTau(lastQuarter)) >= kTrendTau) {
            SteadyWindow w = notFound(SteadyProblem::Kind::StillDrifting, n);
            w.problem->earlyMs = drift->early;
            w.problem->lateMs = drift->late;
            return w;
        }
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
        return notFound(SteadyProblem::Kind::NeverSettles, n);

    std::size_t begin = blocks.begin(firstSteady);
    const std::size_t blockEnd = blocks.end(firstSteady, n);
    while (begin < blockEnd && !settled(x[begin]))
        ++begin;

    if (n - begin < kMinSteadySteps)
        return notFound(SteadyProblem::Kind::TooFewAfterWarmup, n, n - begin, kMinSteadySteps);

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

// Student's t quantiles t(0.975, df) for df = 1..30; beyond, the first Cornish-Fisher term.
constexpr double kT975[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                            2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                            2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
constexpr double kZ975 = 1.959964;

// The processes a side has with steps (and, where the caller needs it, a first step).
std::vector<ProcessSummary> usable(const std::vector<ProcessSummary> &side, bool needFirst)
{
    std::vector<ProcessSummary> out;
    for (const auto &p : side)
        if (!p.sorted.empty() && (!needFirst || std::isfinite(p.first)))
            out.push_back(p);
    return out;
}

// One side's point estimate or bootstrap replicate: median first step over its processes and
// median of its pooled steady steps.
struct Level {
    double first = kNaN, steady = kNaN;
};

// NaN first steps (a side read without them) are left out: nth_element needs an ordering.
double medianFirst(const std::vector<ProcessSummary> &side)
{
    std::vector<double> firsts;
    for (const auto &p : side)
        if (!std::isnan(p.first))
            firsts.push_back(p.first);
    return medianInPlace(firsts);
}

Level levelOf(const std::vector<ProcessSummary> &side)
{
    return {medianFirst(side), pooledMedian(side, std::vector<std::uint32_t>(side.size(), 1))};
}

// The within-process term of a side's log steady level: each process's own uncertainty
// (ProcessSummary::withinLogVariance), as it enters a mean of the n process levels, sum / n^2. It is
// a floor under the variance between processes, not an addition to it: the processes' levels already
// carry their own noise, so their spread estimates it too (adding it again is the double count of
// resampling at both stages), but with 2-5 processes that spread is itself uncertain, and processes
// that agree by chance must not claim a level known better than each one's own steps know it.
double withinTerm(const std::vector<ProcessSummary> &side)
{
    double sum = 0;
    for (const auto &p : side)
        sum += p.withinLogVariance;
    const auto n = static_cast<double>(side.size());
    return sum / (n * n);
}

// Bootstrap of one side over its processes: draw as many processes as it has, with replacement;
// the replicate is the median of the drawn first steps and the pooled median of the drawn
// processes' steps (exactly the statistic of the point estimate). The steps within a process are
// not redrawn: their uncertainty enters through withinTerm, computed once from blocks. So a resample
// costs O(processes x log steps) instead of O(steps) as in method 1, and a resample that draws the
// same processes as an earlier one (only 10 different ones exist for 3 processes) is looked up.
// Nothing (no replicates) once `cancel` is raised: the token is read before every resample.
std::optional<std::vector<Level>> bootstrapLevels(const std::vector<ProcessSummary> &side, int resamples,
                                                  std::mt19937_64 &rng, CancelToken cancel)
{
    std::vector<Level> out;
    out.reserve(static_cast<std::size_t>(resamples));
    std::map<std::vector<std::uint32_t>, double> pooled;
    std::vector<std::uint32_t> copies(side.size());
    std::vector<double> firsts;
    for (int r = 0; r < resamples; ++r) {
        if (cancel.cancelled())
            return std::nullopt;
        std::fill(copies.begin(), copies.end(), 0);
        firsts.clear();
        for (std::size_t k = 0; k < side.size(); ++k) {
            const std::size_t i = uniformIndex(rng, side.size());
            ++copies[i];
            if (!std::isnan(side[i].first))
                firsts.push_back(side[i].first);
        }
        auto it = pooled.find(copies);
        if (it == pooled.end())
            it = pooled.emplace(copies, pooledMedian(side, copies)).first;
        out.push_back({medianInPlace(firsts), it->second});
    }
    return out;
}

// Why not the bootstrap's percentiles: with 2-5 processes a side, the percentile interval of a
// cluster bootstrap is too narrow. Resampling n clusters has a variance (n - 1) / n of the true one,
// and its quantiles are those of a normal where Student's t with few degrees of freedom applies: in
// the A/A test of tests/core/test_stats.cpp (3 processes a side) percentiles called identical
// configurations different in 16.5% of trials (the old step-level bootstrap
// over pooled repeats: 79.5%). So each side's bootstrap variance is scaled by
// n / (n - 1), floored by the within-process term, and the interval takes Student's t quantile with
// Welch's degrees of freedom (n - 1 for one side); that A/A rate is <= 5%.
struct SideVariance {
    double between = 0; // bias-corrected bootstrap variance of the side's statistic over its processes
    double within = 0;  // its within-process term, the floor under `between`
    std::size_t n = 0;
    double total() const { return std::max(between, within); }
};

double replicateVariance(const std::vector<double> &values)
{
    const double mean = meanOf(values);
    double sum = 0;
    for (double v : values)
        sum += (v - mean) * (v - mean);
    return sum / static_cast<double>(values.size() - 1);
}

SideVariance sideVariance(const std::vector<double> &replicates, std::size_t n, double within)
{
    const double scale = static_cast<double>(n) / static_cast<double>(n - 1);
    return {replicateVariance(replicates) * scale, within, n};
}

// Welch-Satterthwaite degrees of freedom of a difference of two sides, from the parts that rest on
// n - 1 degrees of freedom each: the spread between processes. A floor raised by a within term rests
// on many blocks; counting that would only raise the df (a smaller t), so leaving it out keeps the
// interval at least as wide as the process-only one. When no process differs from another on either side, the
// fewer processes' n - 1.
double welchDf(const SideVariance &a, const SideVariance &b)
{
    const double v = a.between + b.between;
    if (!(v > 0))
        return static_cast<double>(std::min(a.n, b.n) - 1);
    return v * v /
           (a.between * a.between / static_cast<double>(a.n - 1) +
            b.between * b.between / static_cast<double>(b.n - 1));
}

// Half-width of a 95% interval for a difference of two sides' statistics.
double welchHalfWidth(const SideVariance &a, const SideVariance &b)
{
    const double v = a.total() + b.total();
    if (!std::isfinite(v))
        return std::numeric_limits<double>::quiet_NaN(); // degenerate data: no interval, not a point
    if (!(v > 0))
        return 0; // no spread at all: the interval is the point
    return studentT975(welchDf(a, b)) * std::sqrt(v);
}

std::vector<double> steadyLogs(const std::vector<Level> &levels)
{
    std::vector<double> out;
    for (const auto &l : levels)
        out.push_back(std::log(l.steady));
    return out;
}

std::vector<double> firsts(const std::vector<Level> &levels)
{
    std::vector<double> out;
    for (const auto &l : levels)
        out.push_back(l.first);
    return out;
}

// A quantile of sorted break-even counts where "never" is +inf: interpolating towards inf gives
// inf - inf = NaN, so at the boundary the lower bound keeps its finite neighbour and the upper one
// reads "never", each the wider choice.
double quantileToNever(const std::vector<double> &sorted, double q)
{
    const double pos = q * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    if (std::isinf(sorted[hi]))
        return q < 0.5 ? sorted[lo] : sorted[hi];
    return sortedQuantile(sorted, q);
}

// How far a side's replicates move from its estimate in the break-even interval: the widening of
// welchHalfWidth (n / (n - 1), and Student's t over the normal's 1.96) applied to a statistic whose
// interval must stay a percentile one, since it can run to "never".
double widening(std::size_t n, double df)
{
    return std::sqrt(static_cast<double>(n) / static_cast<double>(n - 1)) * studentT975(df) / kZ975;
}

// A standard normal draw (Box-Muller over the generator's raw bits: std::normal_distribution differs
// between standard libraries, and a seed must reproduce an interval anywhere).
double standardNormal(std::mt19937_64 &rng)
{
    constexpr double kUnit = 1.0 / 9007199254740992.0;                  // 2^-53
    const double u1 = (static_cast<double>(rng() >> 11) + 1.0) * kUnit; // (0, 1]
    const double u2 = static_cast<double>(rng() >> 11) * kUnit;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

std::vector<ProcessSummary> summaries(const Runs &runs)
{
    std::vector<ProcessSummary> out;
    for (const auto &r : runs)
        out.push_back(summarizeProcess(r));
    return out;
}

std::vector<ProcessSummary> summaries(const std::vector<Process> &side)
{
    std::vector<ProcessSummary> out;
    for (const auto &p : side)
        out.push_back(summarizeProcess(p.steps, p.first));
    return out;
}

} // namespace

std::vector<ProcessSummary> summarizeProcesses(const Runs &runs)
{
    return summaries(runs);
}

std::vector<ProcessSummary> summarizeProcesses(const std::vector<Process> &processes)
{
    return summaries(processes);
}

double studentT975(double df)
{
    if (!(df >= 1))
        return kT975[0];
    // Whole degrees of freedom rounded down: a slightly wider interval, never a narrower one.
    const auto whole = static_cast<std::size_t>(std::floor(df));
    if (whole <= std::size(kT975))
        return kT975[whole - 1];
    return kZ975 + (kZ975 * kZ975 * kZ975 + kZ975) / (4.0 * static_cast<double>(whole));
}

RatioCI ratioOfMedians(const Runs &candidateRuns, const Runs &baselineRuns, int resamples, std::uint64_t seed,
                       CancelToken cancel)
{
    return ratioOfMedians(summaries(candidateRuns), summaries(baselineRuns), resamples, seed, cancel);
}

RatioCI ratioOfMedians(const std::vector<ProcessSummary> &candidate, const std::vector<ProcessSummary> &baseline,
                       int resamples, std::uint64_t seed, CancelToken cancel)
{
    RatioCI ci;
    ci.ratio = ci.low = ci.high = kNaN;
    const auto c = usable(candidate, false);
    const auto b = usable(baseline, false);
    ci.processes = std::min(c.size(), b.size());
    if (c.empty() || b.empty())
        return ci;
    const double logRatio = std::log(levelOf(c).steady) - std::log(levelOf(b).steady);
    ci.ratio = std::exp(logRatio);
    if (c.size() < 2 || b.size() < 2 || resamples < 2)
        return ci; // one process: no interval
    std::mt19937_64 rng(seed);
    const auto dc = bootstrapLevels(c, resamples, rng, cancel);
    const auto db = dc ? bootstrapLevels(b, resamples, rng, cancel) : std::nullopt;
    if (!db) {
        ci.cancelled = true;
        return ci;
    }
    const SideVariance vc = sideVariance(steadyLogs(*dc), c.size(), withinTerm(c));
    const SideVariance vb = sideVariance(steadyLogs(*db), b.size(), withinTerm(b));
    // On the log scale, so the interval of a ratio is symmetric in "faster" and "slower".
    const double half = welchHalfWidth(vc, vb);
    ci.low = std::exp(logRatio - half);
    ci.high = std::exp(logRatio + half);
    ci.hasInterval = std::isfinite(ci.low) && std::isfinite(ci.high);
    // Comparisons with NaN are false, so an undefined CI is never "significant".
    ci.significant = ci.hasInterval && (ci.high < 1.0 || ci.low > 1.0);
    return ci;
}

MedianCI medianOfRuns(const Runs &runs, int resamples, std::uint64_t seed, CancelToken cancel)
{
    return medianOfRuns(summaries(runs), resamples, seed, cancel);
}

MedianCI medianOfRuns(const std::vector<ProcessSummary> &processes, int resamples, std::uint64_t seed,
                      CancelToken cancel)
{
    MedianCI ci;
    ci.median = ci.low = ci.high = kNaN;
    const auto side = usable(processes, false);
    ci.processes = side.size();
    if (side.empty())
        return ci;
    const double logMedian = std::log(levelOf(side).steady);
    ci.median = std::exp(logMedian);
    if (side.size() < 2 || resamples < 2)
        return ci;
    std::mt19937_64 rng(seed);
    const auto draws = bootstrapLevels(side, resamples, rng, cancel);
    if (!draws) {
        ci.cancelled = true;
        return ci;
    }
    const SideVariance v = sideVariance(steadyLogs(*draws), side.size(), withinTerm(side));
    const double half = studentT975(static_cast<double>(side.size() - 1)) * std::sqrt(v.total());
    ci.low = std::exp(logMedian - half);
    ci.high = std::exp(logMedian + half);
    ci.hasInterval = std::isfinite(ci.low) && std::isfinite(ci.high);
    return ci;
}

BreakEvenCI breakEvenInterval(const std::vector<Process> &candidate, const std::vector<Process> &baseline,
                              int resamples, std::uint64_t seed, CancelToken cancel)
{
    return breakEvenInterval(summaries(candidate), summaries(baseline), resamples, seed, cancel);
}

BreakEvenCI breakEvenInterval(const std::vector<ProcessSummary> &candidate, const std::vector<ProcessSummary> &baseline,
                              int resamples, std::uint64_t seed, CancelToken cancel)
{
    BreakEvenCI ci;
    const auto c = usable(candidate, true);
    const auto b = usable(baseline, true);
    if (c.size() < 2 || b.size() < 2 || resamples < 2)
        return ci;
    std::mt19937_64 rng(seed);
    const Level ec = levelOf(c), eb = levelOf(b);
    const auto drawsC = bootstrapLevels(c, resamples, rng, cancel);
    const auto drawsB = drawsC ? bootstrapLevels(b, resamples, rng, cancel) : std::nullopt;
    if (!drawsB) {
        ci.cancelled = true;
        return ci;
    }
    const std::vector<Level> &dc = *drawsC, &db = *drawsB;
    const double wc = withinTerm(c), wb = withinTerm(b);
    // Each part's widening takes Student's t with Welch's degrees of freedom for that part, from the
    // two sides' own variances and process counts. (Method 1 took n_C + n_B - 2, the pooled df,
    // which with unequal counts lets the side with many processes lend its degrees of freedom to the
    // one with few and noisy ones: 2 noisy processes against 10 steady ones got t(10) = 2.23 where
    // the interval rests on the 2, t(1) = 12.7.)
    const double dfFirst = welchDf(sideVariance(firsts(dc), c.size(), 0), sideVariance(firsts(db), b.size(), 0));
    const double dfSteady =
        welchDf(sideVariance(steadyLogs(dc), c.size(), wc), sideVariance(steadyLogs(db), b.size(), wb));
    // A replicate of one side: its first step and (on the log scale) its steady level moved away from
    // the estimate by the widening. Where the within term's floor is above the spread between
    // processes, the steady level also takes a normal draw of the difference, scaled by (n - 1) / n
    // so that after the n / (n - 1) of the widening the replicates vary as the floor says.
    const auto raise = [](const std::vector<Level> &draws, std::size_t n, double within) {
        const double between = sideVariance(steadyLogs(draws), n, 0).between;
        return std::max(0.0, within - between) * static_cast<double>(n - 1) / static_cast<double>(n);
    };
    const double raiseC = raise(dc, c.size(), wc), raiseB = raise(db, b.size(), wb);
    const auto widened = [&](const Level &draw, const Level &estimate, std::size_t n, double raised) {
        const double logSteady = std::log(draw.steady) + std::sqrt(raised) * standardNormal(rng);
        const double kFirst = widening(n, dfFirst), kSteady = widening(n, dfSteady);
        return Level{estimate.first + kFirst * (draw.first - estimate.first),
                     estimate.steady * std::exp(kSteady * (logSteady - std::log(estimate.steady)))};
    };
    std::vector<double> steps;
    steps.reserve(dc.size());
    constexpr double kNever = std::numeric_limits<double>::infinity();
    for (std::size_t r = 0; r < dc.size(); ++r) {
        const Level lc = widened(dc[r], ec, c.size(), raiseC), lb = widened(db[r], eb, b.size(), raiseB);
        const auto n = breakEvenSteps(lc.first, lc.steady, lb.first, lb.steady);
        steps.push_back(n ? *n : kNever);
    }
    std::sort(steps.begin(), steps.end());
    ci.low = quantileToNever(steps, 0.025);
    ci.high = quantileToNever(steps, 0.975);
    ci.lowNever = std::isinf(ci.low);
    ci.highNever = std::isinf(ci.high);
    ci.hasInterval = true;
    return ci;
}

DifferenceCI totalTimeDifference(const std::vector<Process> &best, const std::vector<Process> &other,
                                 std::int64_t plannedSteps, int resamples, std::uint64_t seed, CancelToken cancel)
{
    return totalTimeDifference(summaries(best), summaries(other), plannedSteps, resamples, seed, cancel);
}

DifferenceCI totalTimeDifference(const std::vector<ProcessSummary> &best, const std::vector<ProcessSummary> &other,
                                 std::int64_t plannedSteps, int resamples, std::uint64_t seed, CancelToken cancel)
{
    DifferenceCI ci;
    ci.difference = ci.low = ci.high = kNaN;
    const auto a = usable(best, true);
    const auto o = usable(other, true);
    if (a.empty() || o.empty())
        return ci;
    const auto total = [&](const Level &l) { return totalTime(l.first, l.steady, plannedSteps); };
    const Level ea = levelOf(a), eo = levelOf(o);
    ci.difference = total(eo) - total(ea);
    if (a.size() < 2 || o.size() < 2 || resamples < 2)
        return ci;
    std::mt19937_64 rng(seed);
    const auto totals = [&](const std::vector<ProcessSummary> &side,
                            const Level &estimate) -> std::optional<SideVariance> {
        const auto draws = bootstrapLevels(side, resamples, rng, cancel);
        if (!draws)
            return std::nullopt;
        std::vector<double> out;
        for (const auto &l : *draws)
            out.push_back(total(l));
        // The within term is on the log scale of the step time: (N - 1) * t * d(log t) in seconds.
        const double scale = static_cast<double>(plannedSteps - 1) * estimate.steady;
        return sideVariance(out, side.size(), scale * scale * withinTerm(side));
    };
    const auto va = totals(a, ea);
    const auto vo = va ? totals(o, eo) : std::nullopt;
    if (!vo) {
        ci.cancelled = true;
        return ci;
    }
    const double half = welchHalfWidth(*va, *vo);
    ci.low = ci.difference - half;
    ci.high = ci.difference + half;
    ci.hasInterval = std::isfinite(ci.low) && std::isfinite(ci.high);
    ci.significant = ci.hasInterval && (ci.low > 0 || ci.high < 0);
    return ci;
}

std::optional<Noise> firstStepNoise(const std::vector<double> &firstSteps)
{
    if (firstSteps.size() < 2)
        return std::nullopt;
    Summary s = summarize(firstSteps);
    // Quartiles of two or three values are mostly interpolation: use the whole range there.
    if (firstSteps.size() < 4)
        s.iqr = s.max - s.min;
    return noiseOf(s);
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
