#include "report/peak_memory.h"

#include "report/number_text.h"
#include "stats/stats.h"

#include <algorithm>
#include <cmath>

namespace stepscope::report
{
namespace
{

constexpr double kMiB = 1048576.0;

std::optional<MemorySpread> spreadOf(const std::vector<double> &mib)
{
    if (mib.empty())
        return std::nullopt;
    const auto [low, high] = std::minmax_element(mib.begin(), mib.end());
    return MemorySpread{stats::median(mib), *low, *high};
}

// " (processes 9,050-9,200 MiB)" where the processes differ, else nothing.
std::string processRangeText(const MemorySpread &s)
{
    if (memoryFigureText(s.minMiB) == memoryFigureText(s.maxMiB))
        return {};
    return " (processes " + groupThousands(std::llround(s.minMiB)) + "-" + memoryFigureText(s.maxMiB) + ")";
}

} // namespace

PeakMemory peakMemoryOf(const std::vector<const store::RunRecord *> &runs, bool cpu)
{
    PeakMemory memory;
    memory.cpu = cpu;
    std::vector<double> allocated, reserved;
    for (const store::RunRecord *run : runs) {
        if (run->category == FailureCategory::OutOfMemory)
            ++memory.outOfMemoryRuns;
        // A peak of 0 is a worker that measured nothing, not a step that needed no memory.
        if (run->status != RunStatus::Complete || !run->peakAllocatedBytes || *run->peakAllocatedBytes <= 0)
            continue;
        allocated.push_back(static_cast<double>(*run->peakAllocatedBytes) / kMiB);
        if (run->peakReservedBytes && *run->peakReservedBytes > 0)
            reserved.push_back(static_cast<double>(*run->peakReservedBytes) / kMiB);
    }
    memory.processes = static_cast<int>(allocated.size());
    memory.allocated = spreadOf(allocated);
    memory.reserved = spreadOf(reserved);
    return memory;
}

std::optional<double> memoryRatioOf(const PeakMemory &row, const PeakMemory &baseline)
{
    if (!row.allocated || !baseline.allocated)
        return std::nullopt;
    return row.allocated->medianMiB / baseline.allocated->medianMiB;
}

std::string memoryFigureText(double mib)
{
    return groupThousands(std::llround(mib)) + " MiB";
}

std::string memoryRatioShortText(double ratio)
{
    return formatNumber("%.2fx", ratio);
}

std::string memoryRatioText(double ratio)
{
    return memoryRatioShortText(ratio) + " the baseline's memory";
}

std::string memoryCellText(const PeakMemory &memory, const std::optional<double> &ratio)
{
    if (!memory.allocated)
        return "-";
    return memoryFigureText(memory.allocated->medianMiB) + (ratio ? " (" + memoryRatioShortText(*ratio) + ")" : "");
}

std::string memoryMissingText(const PeakMemory &memory)
{
    return memory.cpu ? "not measured: no GPU memory figures on the CPU" : "not measured";
}

std::string memoryDetailText(const PeakMemory &memory, const std::optional<double> &ratio)
{
    if (!memory.allocated)
        return "peak memory " + memoryMissingText(memory);
    std::string text =
        "peak allocated " + memoryFigureText(memory.allocated->medianMiB) + processRangeText(*memory.allocated);
    if (memory.reserved)
        text += ", reserved " + memoryFigureText(memory.reserved->medianMiB) + processRangeText(*memory.reserved);
    text += ", n=" + std::to_string(memory.processes);
    if (ratio)
        text += "; " + memoryRatioText(*ratio);
    return text;
}

} // namespace stepscope::report
