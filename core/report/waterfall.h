#pragma once
// What each knob of a ledger does, as the waterfall draws it: every row stands on the earlier row it
// differs from by exactly one change (a knob added or removed, one value of a knob replaced by
// another, or the runtime), and its bar is the step difference between the two, with its interval.
// A cumulative ledger chains each row onto the one before; a Python row after the native ones branches
// from the native row with its knobs, and each compile mode from the eager row it compiles, so that
// no bar takes another change's effect (a runtime switch, or one compile mode replacing another).
#include "stats/stats.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace stepscope::report
{

struct LedgerRow;

// One change between two configurations, in the names knobNames() gives ("bf16", "compile-default").
struct KnobChange {
    enum class Kind {
        Added,    // to: the knob the later row turns on
        Removed,  // from: the knob it turns off
        Replaced, // from, to: two values of one knob ("compile-default", "compile-reduce-overhead")
        Runtime,  // from, to: "native", "python"; the knobs are the same
    };
    Kind kind = Kind::Added;
    std::string from, to;
};

// "+bf16", "-channels-last", "compile-default -> reduce-overhead", "native -> python".
std::string changeText(const KnobChange &change);

// The one change that turns configuration `from` into `to`, by their canonical names
// ("native cuda b32 224px c1000 tf32+bf16"); none when they differ in more than one knob, in their
// shape or device, or not at all.
std::optional<KnobChange> knobChangeBetween(const std::string &fromConfigName, const std::string &toConfigName);

struct WaterfallStep {
    std::size_t row = 0;
    // The earlier row one change away: the nearest that has a steady state, preferring a knob added
    // to a replacement, a replacement to a runtime switch and that to a knob removed. None for the
    // baseline and for a row no earlier row is one change from.
    std::optional<std::size_t> parent;
    std::optional<KnobChange> change; // with a parent
    bool branch = false;              // the parent is not the row just before: a branch of its own
    // With both steady states: this row's minus the parent's, and its 95% interval over processes
    // (the ratio of the two medians' interval at the parent's level; none with one process a side).
    std::optional<double> deltaMs;
    std::optional<stats::RatioCI> ratio; // steady / parent's steady
    std::optional<double> deltaLowMs, deltaHighMs;
};

// One step per row, in row order. `cancel` as buildLedger's: intervals left out once it is raised.
std::vector<WaterfallStep> waterfallOf(const std::vector<LedgerRow> &rows, stats::CancelToken cancel = {});

} // namespace stepscope::report
