#include "stats/process_summary.h"

#include "stats/stats.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace stepscope::stats
{
namespace
{

constexpr std::size_t kMaxBlocks = 32;
constexpr std::uint64_t kSignBit = std::uint64_t{1} << 63;

// Doubles mapped onto unsigned integers in the same order (negatives reversed below the positives),
// so that a bisection over the integers walks the doubles in order and ends on one of them.
std::uint64_t orderKey(double x)
{
    std::uint64_t bits = 0;
    std::memcpy(&bits, &x, sizeof bits);
    return (bits & kSignBit) ? ~bits : bits | kSignBit;
}

double fromOrderKey(std::uint64_t key)
{
    const std::uint64_t bits = (key & kSignBit) ? key & ~kSignBit : ~key;
    double x = 0;
    std::memcpy(&x, &bits, sizeof x);
    return x;
}

// Steps of the pool at or below v.
std::uint64_t countAtOrBelow(const std::vector<ProcessSummary> &processes, const std::vector<std::uint32_t> &copies,
                             double v)
{
    std::uint64_t count = 0;
    for (std::size_t i = 0; i < processes.size(); ++i) {
        if (copies[i] == 0)
            continue;
        const auto &s = processes[i].sorted;
        count += copies[i] * static_cast<std::uint64_t>(std::upper_bound(s.begin(), s.end(), v) - s.begin());
    }
    return count;
}

} // namespace

std::size_t blockCount(std::size_t steps)
{
    const auto root = static_cast<std::size_t>(std::floor(std::sqrt(static_cast<double>(steps))));
    return std::min({steps, std::clamp<std::size_t>(root, 2, kMaxBlocks)});
}

ProcessSummary summarizeProcess(const std::vector<double> &stepsInOrder, double first)
{
    ProcessSummary p;
    p.first = first;
    p.sorted = stepsInOrder;
    std::sort(p.sorted.begin(), p.sorted.end());
    const std::size_t m = stepsInOrder.size();
    p.blocks = blockCount(m);
    if (p.blocks < 2)
        return p;
    std::vector<double> logMedians;
    for (std::size_t b = 0; b < p.blocks; ++b) {
        // Block b holds steps [b * m / B, (b + 1) * m / B): lengths differ by at most one step.
        const auto begin = stepsInOrder.begin() + static_cast<std::ptrdiff_t>(b * m / p.blocks);
        const auto end = stepsInOrder.begin() + static_cast<std::ptrdiff_t>((b + 1) * m / p.blocks);
        logMedians.push_back(std::log(median(std::vector<double>(begin, end))));
    }
    double mean = 0;
    for (double v : logMedians)
        mean += v;
    mean /= static_cast<double>(logMedians.size());
    double sum = 0;
    for (double v : logMedians)
        sum += (v - mean) * (v - mean);
    const auto blocks = static_cast<double>(p.blocks);
    p.withinLogVariance = sum / (blocks - 1) / blocks;
    return p;
}

double pooledMedian(const std::vector<ProcessSummary> &processes, const std::vector<std::uint32_t> &copies)
{
    std::uint64_t total = 0;
    std::uint64_t lo = ~std::uint64_t{0}, hi = 0;
    for (std::size_t i = 0; i < processes.size(); ++i) {
        const auto &s = processes[i].sorted;
        if (copies[i] == 0 || s.empty())
            continue;
        total += copies[i] * static_cast<std::uint64_t>(s.size());
        lo = std::min(lo, orderKey(s.front()));
        hi = std::max(hi, orderKey(s.back()));
    }
    if (total == 0)
        return std::numeric_limits<double>::quiet_NaN();
    // The smallest step with more than `rank` steps of the pool at or below it is the step of that
    // rank (0-based) in the sorted pool.
    const auto atRank = [&](std::uint64_t rank, std::uint64_t from, std::uint64_t to) {
        while (from < to) {
            const std::uint64_t mid = from + (to - from) / 2;
            if (countAtOrBelow(processes, copies, fromOrderKey(mid)) > rank)
                to = mid;
            else
                from = mid + 1;
        }
        return fromOrderKey(from);
    };
    const double upper = atRank(total / 2, lo, hi);
    if (total % 2 == 1)
        return upper;
    const double lower = atRank(total / 2 - 1, lo, orderKey(upper));
    // The same arithmetic as median(): the lower middle plus half the gap.
    return lower + (upper - lower) / 2;
}

} // namespace stepscope::stats
