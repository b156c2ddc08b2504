#pragma once
// What torch.compile alone buys: each compiled row of a ledger, under the ledger's start state, against the
// row with the same knobs run eager in the same (Python) runtime, as a break-even step count with
// its process-level interval (the one the ledger gives each row against its baseline). The ledger's
// own break-even is against the sweep's baseline, which may be native eager: that one adds the
// Python runtime's cost to the compile's. The dashboard's compile report and the CLI's show and
// export read this.
#include "report/ledger.h"

#include <QJsonArray>

#include <optional>
#include <string>
#include <vector>

namespace stepscope::report
{

struct CompileBreakEven {
    std::size_t row = 0; // the compiled row (index into Ledger::rows)
    store::StartState start = store::StartState::Unrecorded; // of the compiled row's first step
    std::optional<std::size_t> eagerRow; // the same knobs without compile; none when the sweep lacks it
    // Both rows have a first step and a steady time: `steps` and `ci` mean something.
    bool measured = false;
    std::optional<double> steps; // with measured: nullopt is "never" (the compiled steps are not faster)
    stats::BreakEvenCI ci;       // no interval with fewer than 2 processes a side
};

// One per compiled row (a configuration whose stored config asks for torch.compile), in the
// ledger's order.
std::vector<CompileBreakEven> compileBreakEvens(const Ledger &ledger);

// "11761 [9800-14000]", "never", "961 (n=1, no CI)"; "-" without a measured eager row.
std::string compileBreakEvenText(const CompileBreakEven &breakEven);

// For people: the compiled rows as a Markdown table (configuration, start, first step, steady,
// break-even vs eager [95% CI], vs the baseline); empty without compiled rows.
std::string compileBreakEvenMarkdown(const Ledger &ledger, const std::vector<CompileBreakEven> &breakEvens);
// For tools: one object per compiled row, the bounds null without an interval and for "never".
QJsonArray compileBreakEvenJson(const Ledger &ledger, const std::vector<CompileBreakEven> &breakEvens);

} // namespace stepscope::report
