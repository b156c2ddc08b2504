// What each knob of a row is worth (knob_worth.h).
#include "report/knob_worth.h"

#include "report/ledger.h"
#include "report/ledger_internal.h"
#include "report/ledger_rows.h"
#include "report/ledger_text.h"
#include "report/number_text.h"
#include "report/recommendation.h"
#include "report/waterfall.h"

#include <algorithm>
#include <cmath>

namespace stepscope::report
{
namespace
{

// `configName` without the knob `knob`: what would judge it exactly.
std::string withoutKnob(const std::string &configName, const std::string &knob)
{
    std::vector<std::string> rest = knobListOf(configName);
    rest.erase(std::remove(rest.begin(), rest.end(), knob), rest.end());
    const auto space = configName.rfind(' ');
    return configName.substr(0, space + 1) + (rest.empty() ? "baseline" : joinedKnobs(rest));
}

bool judged(const LedgerRow &row)
{
    return row.steadyMs.has_value() && row.complete();
}

// Whether a first step is longer with the knob than without it beyond what the processes spread:
// the fastest process with it slower than the slowest without, by more than 5%. One process a side
// gives no spread: then a fifth more, and at least 100 ms, is what a reader would not call noise.
// A row's first step at `state`, else (a file of before start states) over all its runs, with the
// spread of its processes.
struct FirstFigure {
    std::optional<double> ms, minMs, maxMs;
    int processes = 0;
};
FirstFigure firstOf(const LedgerRow &row, store::StartState state)
{
    if (const auto ms = firstStepFor(row, state)) {
        const auto &f = row.figuresOf(state);
        return f.firstStepMs ? FirstFigure{ms, f.minMs, f.maxMs, f.processes} : FirstFigure{ms, {}, {}, 1};
    }
    if (row.firstStepStart == store::StartState::Unrecorded && row.firstStepMs)
        return {row.firstStepMs, row.firstStepMinMs, row.firstStepMaxMs, row.completed};
    return {};
}

bool firstCosts(const FirstFigure &a, const FirstFigure &b, double delta)
{
    if (!b.ms || delta <= 0)
        return false;
    if (a.processes >= 2 && b.processes >= 2 && a.minMs && b.maxMs)
        return *a.minMs > *b.maxMs && delta > 0.05 * *b.ms;
    return delta > 0.2 * *b.ms && delta > 100.0;
}

std::string seconds(double ms)
{
    return (ms < 0 ? "-" : "+") + formatSeconds(std::abs(ms) / 1000.0);
}

std::string milliseconds(double ms)
{
    return (ms < 0 ? "-" : "+") + formatMs(std::abs(ms));
}

} // namespace

std::vector<KnobWorth> knobWorthOf(const Ledger &ledger, std::size_t index, stats::CancelToken cancel)
{
    std::vector<KnobWorth> out;
    if (index >= ledger.rows.size())
        return out;
    const LedgerRow &row = ledger.rows[index];
    for (const std::string &knob : knobListOf(row.configName)) {
        KnobWorth worth;
        worth.knob = knob;
        worth.withoutConfig = withoutKnob(row.configName, knob);
        // The pair that isolates the knob: the row itself and the row without it, else two measured
        // rows that differ by the knob alone, the one with the most knobs (nearest the judged row).
        std::optional<std::pair<std::size_t, std::size_t>> pair;
        std::size_t pairKnobs = 0;
        for (std::size_t w = 0; w < ledger.rows.size() && !worth.exact; ++w) {
            if (!judged(ledger.rows[w]))
                continue;
            for (std::size_t o = 0; o < ledger.rows.size(); ++o) {
                if (o == w || !judged(ledger.rows[o]))
                    continue;
                const auto change = knobChangeBetween(ledger.rows[o].configName, ledger.rows[w].configName);
                if (!change || change->kind != KnobChange::Kind::Added || change->to != knob)
                    continue;
                const std::size_t knobs = knobListOf(ledger.rows[w].configName).size();
                if (w == index) {
                    pair = {w, o};
                    worth.exact = true;
                    break;
                }
                if (!pair || knobs > pairKnobs) {
                    pair = {w, o};
                    pairKnobs = knobs;
                }
            }
        }
        if (!pair) {
            out.push_back(worth);
            continue;
        }
        worth.with = pair->first;
        worth.without = pair->second;
        const LedgerRow &with = ledger.rows[worth.with], &without = ledger.rows[worth.without];
        worth.steadyDeltaMs = *with.steadyMs - *without.steadyMs;
        worth.steadyRatio = stats::ratioOfMedians(processSummariesOf(with), processSummariesOf(without),
                                                  stats::kResamples, stats::kSeed, cancel);
        const FirstFigure firstWith = firstOf(with, ledger.start), firstWithout = firstOf(without, ledger.start);
        if (firstWith.ms && firstWithout.ms) {
            worth.firstDeltaMs = *firstWith.ms - *firstWithout.ms;
            worth.firstCosts = firstCosts(firstWith, firstWithout, *worth.firstDeltaMs);
        }
        const stats::RatioCI &r = *worth.steadyRatio;
        if (!r.hasInterval)
            worth.verdict = KnobWorth::Verdict::Unsure;
        else if (r.significant)
            worth.verdict = r.ratio < 1 ? KnobWorth::Verdict::Pays : KnobWorth::Verdict::Hurts;
        else
            worth.verdict = worth.firstCosts ? KnobWorth::Verdict::CostsOnly : KnobWorth::Verdict::NoChange;
        out.push_back(worth);
    }
    return out;
}

std::string knobWorthText(const Ledger &ledger, const KnobWorth &worth)
{
    std::string text = worth.knob;
    if (worth.verdict == KnobWorth::Verdict::NotMeasured)
        return text + ": not measured (no two rows of this sweep differ by it alone; add " + worth.withoutConfig +
               " to a sweep to measure it)";
    if (!worth.exact)
        text += " (measured where it was added, from " + ledger.rows[worth.without].label + " to " +
                ledger.rows[worth.with].label + ")";
    text += ": ";
    const std::string start = startText(ledger.start);
    const std::string first =
        worth.firstDeltaMs ? "first step " + seconds(*worth.firstDeltaMs) + (start.empty() ? "" : " on " + start) : "";
    const std::string steadyDelta = worth.steadyDeltaMs ? "steady " + milliseconds(*worth.steadyDeltaMs) : "";
    switch (worth.verdict) {
    case KnobWorth::Verdict::Pays:
    case KnobWorth::Verdict::Hurts:
        text += "steady " + factorText(*worth.steadyRatio) + (first.empty() ? "" : "; " + first);
        break;
    case KnobWorth::Verdict::CostsOnly:
        text += first + "; " + steadyDelta + " (" + factorText(*worth.steadyRatio) +
                "): no measurable steady change, so drop it";
        break;
    case KnobWorth::Verdict::NoChange:
        text += "no measurable change (" + steadyDelta + ", " + factorText(*worth.steadyRatio) +
                (first.empty() ? "" : "; " + first) + ")";
        break;
    case KnobWorth::Verdict::Unsure:
        text += steadyDelta + (first.empty() ? "" : ", " + first) + " (one process a side: no interval)";
        break;
    case KnobWorth::Verdict::NotMeasured:
        break;
    }
    return text;
}

std::string knobWorthSummary(const Ledger &ledger, const std::vector<KnobWorth> &worth)
{
    std::string text;
    std::vector<std::string> unmeasured;
    for (const KnobWorth &w : worth) {
        if (w.verdict == KnobWorth::Verdict::NotMeasured)
            unmeasured.push_back(w.knob);
        else
            text += (text.empty() ? "" : "; ") + knobWorthText(ledger, w);
    }
    if (unmeasured.size() == 1) // one knob: its own sentence names the row that would measure it
        for (const KnobWorth &w : worth)
            if (w.verdict == KnobWorth::Verdict::NotMeasured)
                text += (text.empty() ? "" : "; ") + knobWorthText(ledger, w);
    if (unmeasured.size() > 1) {
        std::string names;
        for (std::size_t i = 0; i < unmeasured.size(); ++i)
            names += (i == 0 ? "" : i + 1 == unmeasured.size() ? " and " : ", ") + unmeasured[i];
        text += (text.empty() ? "" : "; ") + names +
                ": not measured (no row of this sweep is the configuration without one of them alone; a sweep "
                "with those rows measures them)";
    }
    return text;
}

std::string costOnlyKnobsText(const Ledger &ledger, const std::vector<KnobWorth> &worth)
{
    std::string text;
    const std::string start = startText(ledger.start);
    for (const KnobWorth &w : worth) {
        if (w.verdict != KnobWorth::Verdict::CostsOnly || !w.firstDeltaMs)
            continue;
        text += (text.empty() ? "" : " ") + std::string("Drop ") + w.knob + ": " +
                formatSeconds(*w.firstDeltaMs / 1000.0) + " less first step" + (start.empty() ? "" : " on " + start) +
                ", no measurable steady change" + (w.exact ? "" : " (measured where it was added)") + ".";
    }
    return text;
}

} // namespace stepscope::report
