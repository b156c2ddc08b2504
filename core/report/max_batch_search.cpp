#include "report/max_batch_search.h"

#include "report/number_text.h"
#include "report/peak_memory.h"

#include <algorithm>
#include <cmath>

namespace stepscope::report
{

namespace
{

// The two figures a line can run through. Allocated grows with the batch in a straight line but
// misses what the allocator holds besides (a CUDA graph's private pools: reduce-overhead reserved
// 1.5x what it allocated on an H100, and ran out of memory where the allocated line said it fits).
// Reserved sees that, but comes in segments and, near a set limit, sits at the limit whatever the
// batch (the allocator frees its cache and retries before it fails): a fit reserved within 5% of the
// limit is left out of its line where its allocated peak is known. The search aims by the lower of the lines that have held.
enum class Peak { Allocated, Reserved };
constexpr double kSaturated = 0.95;

std::optional<double> figure(const MaxBatchTry &t, Peak peak, double limit)
{
    if (t.result != MaxBatchTry::Result::Fits)
        return std::nullopt;
    if (peak == Peak::Allocated)
        return t.allocatedBytes;
    // Left out only where allocated can stand in: a worker that reports one peak is all there is.
    if (t.peakBytes && (!t.allocatedBytes || *t.peakBytes < kSaturated * limit))
        return t.peakBytes;
    return std::nullopt;
}

// The batch where the line of `peak` through the two largest fitting tries that have it (among the
// first `count`) meets the limit; none without such a line or limit, or when the peak does not grow.
std::optional<double> predictedLargest(const std::vector<MaxBatchTry> &tries, std::size_t count,
                                       const std::optional<double> &limit, Peak peak)
{
    if (!limit)
        return std::nullopt;
    const MaxBatchTry *second = nullptr, *largest = nullptr;
    for (std::size_t i = 0; i < count; ++i) {
        const MaxBatchTry &t = tries[i];
        if (!figure(t, peak, *limit))
            continue;
        if (!largest || t.batch > largest->batch) {
            if (!largest || largest->batch != t.batch)
                second = largest;
            largest = &t;
        } else if (t.batch < largest->batch && (!second || t.batch > second->batch)) {
            second = &t;
        }
    }
    if (!second)
        return std::nullopt;
    const double high = *figure(*largest, peak, *limit), low = *figure(*second, peak, *limit);
    const double slope = (high - low) / (largest->batch - second->batch);
    if (!(slope > 0))
        return std::nullopt;
    return largest->batch + (*limit - high) / slope;
}

// Whether every try made while the line of `peak` existed went as it said (fits at or below it, out
// of memory above): a memory that is not linear in the batch (a workspace chosen by size,
// fragmentation) makes a line lead the search astray, and bisection is sure where a wrong line is not.
bool lineHeld(const std::vector<MaxBatchTry> &tries, const std::optional<double> &limit, Peak peak)
{
    for (std::size_t i = 0; i < tries.size(); ++i) {
        const auto line = predictedLargest(tries, i, limit, peak);
        if (!line || tries[i].result == MaxBatchTry::Result::Failed)
            continue;
        if ((tries[i].batch <= *line) != (tries[i].result == MaxBatchTry::Result::Fits))
            return false;
    }
    return true;
}

// The lower of the lines that have held; none when neither has.
std::optional<double> heldLine(const std::vector<MaxBatchTry> &tries, const std::optional<double> &limit)
{
    std::optional<double> lowest;
    for (const Peak peak : {Peak::Allocated, Peak::Reserved})
        if (lineHeld(tries, limit, peak))
            if (const auto line = predictedLargest(tries, tries.size(), limit, peak); line && (!lowest || *line < *lowest))
                lowest = line;
    return lowest;
}

int nextTry(const MaxBatchState &s, const std::vector<MaxBatchTry> &tries, const std::optional<double> &limit,
            const MaxBatchLimits &limits)
{
    // Nothing fitted yet: an eighth of the smallest that ran out of memory. A start far above the
    // answer costs few tries so, and the bisection (with a line once two tries fit) comes back up.
    if (!s.fits)
        return std::max(limits.smallestBatch, *s.fails / 8);
    const int lo = *s.fits;
    const int upper = s.fails ? *s.fails - 1 : limits.largestBatch;
    double next = 0;
    const auto line = heldLine(tries, limit);
    if (line) {
        // Just under the line, so that a fit there leaves its +5% check above the limit; where the line
        // says `lo` is the answer already, that check itself.
        // An aim under the check would creep (1464 then 1472 on a lumpy line): the check instead,
        // which either ends the search or proves the line low.
        const double aim = std::floor(*line * (1 - limits.tolerance / 2));
        const int check = checkBatch(lo, limits.tolerance);
        next = aim > check ? aim : check;
    } else {
        next = s.fails ? std::round(std::sqrt(double(lo) * *s.fails)) : 2.0 * lo;
        // One fit with a peak and a known limit: a quarter up gives the line its second point, which
        // finds the answer in two tries more wherever it is.
        const auto peaked = std::count_if(tries.begin(), tries.end(), [](const MaxBatchTry &t) {
            return t.result == MaxBatchTry::Result::Fits && t.peakBytes;
        });
        if (limit && peaked == 1 && s.peakAtAnswer)
            next = std::min(next, std::ceil(lo * 1.25));
        // No line (or one a fit above it proved wrong) and nothing out of memory yet: step by what is
        // left of the limit at the largest fit, not by doubling. Reserved peaks come in segments, so
        // the line can fall below a batch that fits; 1560 fitted at 97% of an H100 limit and doubling
        // spent a try at 3120 (docs/results/h100-memory-energy.md). A little over the proportion,
        // so that the step brackets the answer rather than creeping up to it.
        // Where the reported peaks already touch the limit the proportion says nothing, so each fit
        // that near it doubles the step (6%, 12%, 24%, ...): a few tries bracket the answer.
        else if (limit && !s.fails && s.peakAtAnswer && *s.peakAtAnswer > 0) {
            const auto nearLimit = std::count_if(tries.begin(), tries.end(), [&](const MaxBatchTry &t) {
                return t.result == MaxBatchTry::Result::Fits && t.peakBytes && *t.peakBytes >= 0.9 * *limit;
            });
            const double least = 1.0 + 1.2 * limits.tolerance * std::pow(2.0, double(std::max<long>(0, nearLimit - 1)));
            next = std::min(next, std::ceil(lo * std::clamp(*limit / *s.peakAtAnswer * 1.03, least, 2.0)));
        }
    }
    return static_cast<int>(std::clamp(next, double(lo + 1), double(upper)));
}

std::string mib(double bytes)
{
    return memoryFigureText(bytes / (1024.0 * 1024.0));
}

// "fits 512 (9,120 MiB at peak); 1024 runs out of memory", the bracket as far as it goes.
std::string bracketText(const MaxBatchState &s)
{
    std::string out;
    if (s.fits)
        out = "fits " + std::to_string(*s.fits) + (s.peakAtAnswer ? " (" + mib(*s.peakAtAnswer) + " at peak)" : "");
    else
        out = "nothing fitted";
    if (s.fails)
        out += "; " + std::to_string(*s.fails) + " runs out of memory";
    else if (s.fits)
        out += "; nothing larger ran out of memory";
    return out;
}

} // namespace

int checkBatch(int batch, double tolerance)
{
    return std::max(batch + 1, static_cast<int>(std::ceil(batch * (1 + tolerance) - 1e-9)));
}

MaxBatchState maxBatchState(int startBatch, const std::vector<MaxBatchTry> &tries,
                            std::optional<double> limitBytes, const MaxBatchLimits &limits)
{
    MaxBatchState s;
    s.tries = static_cast<int>(tries.size());
    const MaxBatchTry *failed = nullptr;
    for (const MaxBatchTry &t : tries) {
        s.seconds += t.seconds;
        if (t.result == MaxBatchTry::Result::Fits && (!s.fits || t.batch > *s.fits)) {
            s.fits = t.batch;
            s.peakAtAnswer = t.peakBytes;
        }
        if (t.result == MaxBatchTry::Result::Failed && !failed)
            failed = &t;
    }
    for (const MaxBatchTry &t : tries)
        if (t.result == MaxBatchTry::Result::OutOfMemory && (!s.fits || t.batch > *s.fits) &&
            (!s.fails || t.batch < *s.fails))
            s.fails = t.batch;
    if (failed) {
        s.stop = MaxBatchState::Stop::Failed;
        s.failure = failed->failure;
        s.failedBatch = failed->batch;
        return s;
    }
    if (tries.empty()) {
        s.nextBatch = std::clamp(startBatch, limits.smallestBatch, limits.largestBatch);
        return s;
    }
    if (s.fits && s.fails && *s.fails <= checkBatch(*s.fits, limits.tolerance))
        s.stop = MaxBatchState::Stop::Narrowed;
    else if (!s.fits && s.fails && *s.fails <= limits.smallestBatch)
        s.stop = MaxBatchState::Stop::NothingFits;
    else if (s.fits && *s.fits >= limits.largestBatch)
        s.stop = MaxBatchState::Stop::Ceiling;
    else if (s.tries >= limits.maxTries)
        s.stop = MaxBatchState::Stop::TriesUsed;
    else if (s.seconds >= limits.maxSeconds)
        s.stop = MaxBatchState::Stop::TimeUsed;
    else
        s.nextBatch = nextTry(s, tries, limitBytes, limits);
    return s;
}

std::string maxBatchSentence(const MaxBatchState &s, const MaxBatchLimits &limits)
{
    using Stop = MaxBatchState::Stop;
    const std::string within = formatNumber("%.0f", limits.tolerance * 100) + "%";
    switch (s.stop) {
    case Stop::Searching:
        return (s.tries ? bracketText(s) + "; " : std::string()) + "next try: batch " + std::to_string(s.nextBatch);
    case Stop::Narrowed:
        return bracketText(s) + " (the +" + within + " check)";
    case Stop::NothingFits:
        return "nothing fits: batch " + std::to_string(*s.fails) + " runs out of memory" +
               (*s.fails > 1 ? " (the smallest batch this configuration runs)" : "");
    case Stop::Ceiling:
        return bracketText(s) + "; " + std::to_string(*s.fits) +
               " is the largest batch Stepscope runs, so no larger batch was tried";
    case Stop::TriesUsed:
        return bracketText(s) + "; not narrowed to " + within + ": " + std::to_string(s.tries) + " tries used";
    case Stop::TimeUsed:
        return bracketText(s) + "; not narrowed to " + within + ": " + formatNumber("%.0f", s.seconds) +
               " s used (the cap is " + formatNumber("%.0f", limits.maxSeconds) + " s)";
    case Stop::Failed:
        return "stopped: batch " + std::to_string(s.failedBatch) + " failed, not out of memory (" + s.failure +
               "); " + bracketText(s) + " before it";
    }
    return {};
}

} // namespace stepscope::report
