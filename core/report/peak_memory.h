#pragma once
// Peak GPU memory of a ledger row (issue 31): the peaks each completed process's worker reported
// (PyTorch's caching allocator: allocated by tensors, reserved from the driver), taken over processes
// as time is, and worded once here for every view. A CPU worker reports none, and a worker that
// reports 0 measured nothing: either is "not measured", never 0 MiB.
#include "store/store.h"

#include <optional>
#include <string>
#include <vector>

namespace stepscope::report
{

// One peak over a row's processes, in MiB: the median and the lowest and highest process.
struct MemorySpread {
    double medianMiB = 0, minMiB = 0, maxMiB = 0;
};

struct PeakMemory {
    std::optional<MemorySpread> allocated, reserved; // none: no completed process reported a figure
    int processes = 0;                               // completed processes with an allocated figure
    bool cpu = false;                                // the row ran on the CPU, whose workers report no memory
    int outOfMemoryRuns = 0;                         // runs of the row that failed out-of-memory
};

// The row's peaks from its runs; `cpu` as the row's configuration says.
PeakMemory peakMemoryOf(const std::vector<const store::RunRecord *> &runs, bool cpu);
// A row's peak allocated over the baseline's (LedgerRow::memoryRatio); none without both figures.
std::optional<double> memoryRatioOf(const PeakMemory &row, const PeakMemory &baseline);

// A figure: "9,120 MiB".
std::string memoryFigureText(double mib);
// The ratio in full, "0.62x the baseline's memory", and short for a table cell, "0.62x".
std::string memoryRatioText(double ratio);
std::string memoryRatioShortText(double ratio);
// The peak allocated for a table cell, with the short ratio where there is one: "9,120 MiB (0.62x)",
// "-" without a figure.
std::string memoryCellText(const PeakMemory &memory, const std::optional<double> &ratio);
// Why a row has no figure: "not measured: no GPU memory figures on the CPU", or "not measured".
std::string memoryMissingText(const PeakMemory &memory);
// Everything for a tooltip or a note, one clause each: "peak allocated 9,120 MiB (processes 9,050-9,200
// MiB), reserved 10,240 MiB (10,200-10,300 MiB), n=3; 0.62x the baseline's memory", or
// "peak memory not measured: ...".
std::string memoryDetailText(const PeakMemory &memory, const std::optional<double> &ratio);

} // namespace stepscope::report
