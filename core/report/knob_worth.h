#pragma once
// What each knob of a row is worth (issue 35.1): a recommended row carries every knob of the rows
// before it in a cumulative ledger, and one of them may do nothing but cost (cuDNN autotuning adds
// seconds to every fresh first step and nothing measurable to the steady step). Each knob is judged
// against the same configuration without it when the sweep measured that row, else where the sweep
// added the knob (two measured rows that differ by that knob alone), and said so; a knob no pair of
// rows isolates is "not measured", with the configuration that would measure it.
#include "stats/stats.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace stepscope::report
{

struct Ledger; // report/ledger.h, which holds the recommended row's worth

struct KnobWorth {
    enum class Verdict {
        Pays,        // the steady step is faster with it, beyond the interval
        Hurts,       // slower with it, beyond the interval
        CostsOnly,   // a longer first step, and no steady change the interval can tell from none
        NoChange,    // neither: nothing measurable either way
        Unsure,      // one process a side: no interval, the figures alone
        NotMeasured, // no two rows of the sweep differ by this knob alone
    };
    std::string knob; // the knob's name in the configuration's name: "cudnn-bench", "bf16"
    Verdict verdict = Verdict::NotMeasured;
    std::size_t with = 0, without = 0; // rows, when measured
    bool exact = false; // `with` is the judged row itself, `without` the same row without the knob
    // With minus without: the first step at the ledger's start state (firstStepFor), and the steady step.
    std::optional<double> firstDeltaMs;
    bool firstCosts = false; // the first step is longer with it beyond the processes' spread
    std::optional<double> steadyDeltaMs;
    std::optional<stats::RatioCI> steadyRatio; // with / without
    // The configuration that would judge the knob exactly: the judged row's without it.
    std::string withoutConfig;
};

// Each knob of rows[row] in its name's order; `cancel` as buildLedger's (intervals left out once raised).
std::vector<KnobWorth> knobWorthOf(const Ledger &ledger, std::size_t row, stats::CancelToken cancel = {});

// One sentence for a knob: "cudnn-bench (measured where it was added, from tf32 to tf32+cudnn-bench): first
// step +10.9 s on a fresh machine, steady +0.08 ms (95% CI ...), no measurable change: drop it".
std::string knobWorthText(const Ledger &ledger, const KnobWorth &worth);
// Every knob's sentence joined with "; ", for the recommendation: knobs no pair of rows isolates are named
// together in one clause ("not measured: tf32, bf16 (no row of this sweep is the configuration without one of
// them alone; ...)") rather than a sentence each that repeats the same reason. "" for no knobs.
std::string knobWorthSummary(const Ledger &ledger, const std::vector<KnobWorth> &worth);
// "Drop cudnn-bench: 10.9 s less first step on a fresh machine, no measurable steady change." for each
// knob that only costs, "" when none does: for the headline's caveats and the reports.
std::string costOnlyKnobsText(const Ledger &ledger, const std::vector<KnobWorth> &worth);

} // namespace stepscope::report
