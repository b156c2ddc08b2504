#pragma once
// One cold process as the intervals take it (stats.h, "Intervals at the level that varies"): read
// once, so that a bootstrap resample costs the same whether the process ran 100 steps or 100,000.
// docs/decisions.md ("Intervals from process summaries") says why this is all an interval needs.
#include <cstdint>
#include <limits>
#include <vector>

namespace stepscope::stats
{

struct ProcessSummary {
    // Its steady steps in ascending order: the pooled median of any resample of processes is counted
    // off these in O(log steps) a process, and equals median() of the pooled steps to the last bit.
    std::vector<double> sorted;
    double first = std::numeric_limits<double>::quiet_NaN(); // its first step; NaN: none
    // The uncertainty of its own level, from its steps alone: its steps in order are cut into
    // `blocks` consecutive blocks, and the sample variance of the logs of the block medians, divided
    // by the number of blocks, estimates the variance of the log of its median (batch medians).
    // Blocks, not single steps, because neighbouring steps are correlated (a launch-bound step
    // wanders for dozens of steps): treating them as independent understates this term several-fold.
    // 0 for a process of one step (no two blocks to compare): it adds only its level.
    std::size_t blocks = 0;
    double withinLogVariance = 0;
};

// The blocks a process of `steps` steady steps is cut into: floor(sqrt(steps)) between 2 and 32
// (fewer when there are fewer steps). Both the count and the length grow with the steps up to 1,024;
// beyond, the blocks only lengthen, so slow wander stays inside a block, and 32 blocks estimate a
// variance to about +-25%, enough for a term that only adds to the spread between processes.
std::size_t blockCount(std::size_t steps);

// Summarises one process's steady steps, in the order they ran (the blocks need that order).
ProcessSummary summarizeProcess(const std::vector<double> &stepsInOrder,
                                double first = std::numeric_limits<double>::quiet_NaN());

// The median of the pooled steps of processes[i] taken copies[i] times (a bootstrap resample of
// processes): exactly what median() gives for that pool, found by bisection over the ordered bit
// patterns of doubles (at most 64 rounds of one binary search a process), never by pooling. NaN when
// the pool is empty. copies.size() must equal processes.size().
double pooledMedian(const std::vector<ProcessSummary> &processes, const std::vector<std::uint32_t> &copies);

} // namespace stepscope::stats
