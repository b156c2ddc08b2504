#pragma once
// The ledger's figures in words (ledger_text.cpp): times, break-evens, a row's status, start states
// and the caches the first steps found.
#include "report/ledger.h"

#include <optional>
#include <string>

namespace stepscope::report
{

std::string formatSeconds(double s); // "0.41 s", "43.8 s", "3 min 45 s"
std::string formatMs(double ms);     // "7.16 ms"
// A difference of two times, signed, in formatSeconds's units: "+9.32 s", "-450 ms".
std::string formatSecondsDelta(double s);
// A row's milliseconds in seconds, for the figures people and exports read in seconds.
inline std::optional<double> msToSeconds(std::optional<double> ms)
{
    return ms ? std::optional<double>(*ms / 1000.0) : std::nullopt;
}

// The spread of a process-level interval in tables; "n=1, no CI" when only one process ran.
extern const char *const kNoInterval;                         // "1 repeat: no interval"
extern const char *const kNoIntervalShort;                    // "n=1, no CI"
std::string breakEvenRangeText(const stats::BreakEvenCI &ci); // "80-150", "immediately to never"
// A ratio of steady times (candidate / reference) as a factor: "2.61x faster", "1.20x slower", and
// "1.00x" alone when it rounds to even (that is no finding); its interval in the same direction:
// "95% CI 2.55-2.68x", "" without one. factorText joins them: "2.61x faster, 95% CI 2.55-2.68x".
std::string factorWords(const stats::RatioCI &ratio);
std::string factorIntervalText(const stats::RatioCI &ratio);
std::string factorText(const stats::RatioCI &ratio);
// A row's break-even against the baseline: "-" (none: the baseline, or no figures), "never",
// "immediately", "1234".
std::string breakEvenText(const LedgerRow &row);
// A break-even step count alone: "never" (none), "immediately" (at one step or less), "1234".
std::string breakEvenStepsText(const std::optional<double> &steps);
// "a fresh machine", "a fresh machine with shipped caches", "this machine again", "" (unrecorded).
std::string startText(store::StartState start);
// A row's break-even in both states when it has them, the assumed one first:
// "474 on a fresh machine, 167 on this machine again"; breakEvenText(row) otherwise.
std::string breakEvenByStartText(const LedgerRow &row, store::StartState assumed);

// What each steady step computes (issue 18.4, 30.4): the heading says where the FLOPs came from when
// every row's came from one place ("training FLOPs counted by torch.utils.flop_counter ..."), and
// each row's line ("tf32: 3.41 GFLOP, 46.2 TFLOP/s, 4.7% of the bf16 dense peak") then adds its own
// source only where they differ. No lines where no row has a rate.
struct ComputeLines {
    std::string heading;
    std::vector<std::string> lines;
};
ComputeLines computeLines(const Ledger &ledger);

// A row's status for people: "complete", a failure with its category ("1/2 complete: out-of-memory"),
// or what a Stop left ("cancelled after 120 recorded steps"): a cancelled run is no failure.
std::string statusText(const LedgerRow &row);
// How many of the row's runs completed, alone: "complete", "2/3 complete", or how the last run
// ended when none did ("failed", "cancelled").
std::string completionText(const LedgerRow &row);
// The note under a table's peak memory column (Ledger::measuredMemory): how to read it, or why no
// row has a figure ("Peak memory not measured: no GPU memory figures on the CPU."); "" without rows.
std::string peakMemoryNote(const Ledger &ledger);
// Energy per row (issue 31.4, report/energy.h), for a section under the table: each row's joules per
// step with its interval and power, its first step's joules, the joules of the planned run, and
// against the baseline the step after which it has spent fewer joules (beside the break-even in
// steps of time, which need not agree). Where no row has a figure, `lines` is empty and `note`
// says why ("Energy not measured: no energy counter: a CPU run."); "" without rows.
struct EnergyLines {
    std::string heading, note;
    std::vector<std::string> lines;
};
EnergyLines energyLines(const Ledger &ledger);
// Which caches the first steps found, for people; empty when the runs did not record it.
std::string firstStepCachesText(const Ledger &ledger);

} // namespace stepscope::report
