// The recommendation: what finishes the planned run first, under the assumed start state and under
// each, whether it can be told from the runner-up, and the headline and text every view shows of it.
// Apart from the rows because it is taken again, alone, for another run length (recommendFor).
#include "report/recommendation.h"

#include "report/ledger_internal.h"
#include "report/number_text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <utility>

namespace stepscope::report
{

void pickByStart(Ledger &ledger)
{
    ledger.byStart.clear();
    for (const store::StartState s : store::kStartStates) {
        Ledger::StartPick pick;
        pick.state = s;
        std::vector<stats::Candidate> candidates;
        std::vector<std::size_t> rows;
        for (std::size_t i = 0; i < ledger.rows.size(); ++i) {
            const LedgerRow &row = ledger.rows[i];
            const auto first = firstStepFor(row, s);
            if (!row.steadyMs || !first || !leftOutReason(row).empty())
                continue;
            candidates.push_back({row.label, *first / 1000.0, *row.steadyMs / 1000.0});
            rows.push_back(i);
        }
        if (const auto rec = stats::recommend(candidates, ledger.plannedSteps)) {
            pick.row = rows[rec->best];
            pick.totalSeconds = rec->bestTotal;
            firstStepFor(ledger.rows[*pick.row], s, &pick.measured);
        }
        ledger.byStart.push_back(pick);
    }
}

std::string provisionalText(const Ledger &ledger)
{
    if (!ledger.provisional())
        return {};
    std::string states;
    for (std::size_t i = 0; i < ledger.statesPending.size(); ++i)
        states += (i == 0 ? "" : i + 1 == ledger.statesPending.size() ? " and " : ", ") +
                  std::string(store::toString(ledger.statesPending[i]));
    return "provisional: " + std::to_string(ledger.runsTotal - ledger.runsPending) + " of " +
           std::to_string(ledger.runsTotal) + " runs done" + (states.empty() ? "" : ", " + states + " runs to come");
}

std::optional<double> firstStepFor(const LedgerRow &row, store::StartState state, bool *measured)
{
    for (const store::StartState s : store::stateAndFewerCaches(state))
        if (const auto &f = row.figuresOf(s).firstStepMs) {
            if (measured)
                *measured = s == state;
            return f;
        }
    return std::nullopt;
}

std::string recommendationHeadline(const Ledger &ledger)
{
    if (!ledger.recommended || *ledger.recommended >= ledger.rows.size())
        return {};
    const LedgerRow &row = ledger.rows[*ledger.recommended];
    if (ledger.byJoules) {
        // The verdict in joules: the planned run's total, the first step's share in it said by the
        // Energy section; ties and speed-ups are time's words, not said here.
        const auto total = runJoules(row.energy, ledger.plannedSteps);
        const std::string_view start = store::toString(row.firstStepStart);
        return std::string(ledger.provisional() ? "Provisional: use " : "Use ") + row.label +
               (start.empty() ? std::string() : " (" + std::string(start) + ")") + ": the fewest joules" +
               (total ? ", " + formatNumber("%.1f kJ", *total / 1000.0) + " for " + groupThousands(ledger.plannedSteps) +
                            " steps"
                      : std::string());
    }
    // The row by its name, not the knob it adds to the row before (a "+warm-cache" read as a switch
    // a user could flip), and the start state its first step had (issue 28).
    const std::string_view start = store::toString(row.firstStepStart);
    // A sweep still under way says so first: the verdict may change as its other runs land.
    std::string line = std::string(ledger.provisional() ? "Provisional: use " : "Use ") + row.label +
                       (start.empty() ? std::string() : " (" + std::string(start) + ")");
    if (row.speedup && &row != &ledger.rows.front()) {
        line += ": " + formatNumber("%.2fx", *row.speedup);
        line += row.breakEvenSteps ? (*row.breakEvenSteps <= 1
                                          ? ", pays off at once"
                                          : ", pays off after " + breakEvenStepsText(row.breakEvenSteps) + " steps")
                                   : std::string(", never pays off");
    }
    if (ledger.recommendationTied && ledger.recommendation && ledger.recommendation->runnerUp) {
        const std::size_t otherIndex = *ledger.recommended == ledger.recommendation->best
                                           ? *ledger.recommendation->runnerUp
                                           : ledger.recommendation->best;
        const LedgerRow &other = ledger.rows[otherIndex];
        // The other against the recommended, in the planned run's total time: what choosing it would
        // change, which the interval cannot tell from nothing.
        const auto total = [&](const LedgerRow &r) {
            return *r.firstStepMs + static_cast<double>(ledger.plannedSteps - 1) * *r.steadyMs;
        };
        line += "; " + shortLabel(other, row);
        // One process a side has no interval: nothing measured says the two are within noise, only
        // that they cannot be told apart (a 33% gap of one process each is not "noise").
        const bool measuredNoise = !ledger.recommendationCI || ledger.recommendationCI->hasInterval;
        if (other.firstStepMs && other.steadyMs && row.firstStepMs && row.steadyMs && total(row) > 0) {
            const double change = total(other) / total(row) - 1;
            line += " " + formatNumber("%.1f%%", 100 * std::abs(change)) + (change < 0 ? " faster" : " slower") +
                    (measuredNoise ? ", within noise" : ", one process each: no interval");
        } else {
            line += measuredNoise ? " is within noise of it" : " cannot be told from it (one process each)";
        }
    }
    return line;
}

namespace
{

// The processes a row's first-step figures rest on (its start state's), for intervals of total time.
std::vector<stats::ProcessSummary> startSummariesOf(const LedgerRow &row)
{
    return row.startSummaries.empty() ? processSummariesOf(row, row.firstStepStart) : row.startSummaries;
}

// formatSeconds for a bound of a margin, which may be negative.
std::string signedSeconds(double s)
{
    return s < 0 ? "-" + formatSeconds(-s) : formatSeconds(s);
}

// The changes a configuration asks of a user against the baseline: each knob it turns on, a switch
// of runtime (another worker, another language), and for torch.compile one more than its knob (a
// compiler, its caches and its first-step wait, on top of the mode chosen). The simpler of two
// configurations that cannot be told apart is the one to keep.
int changeCount(const LedgerRow &row, const LedgerRow &baseline)
{
    const std::string knobs = knobsOf(row.configName);
    int changes = 0;
    if (!knobs.empty() && knobs != "baseline")
        changes = 1 + static_cast<int>(std::count(knobs.begin(), knobs.end(), '+'));
    if (knobs.find("compile-") != std::string::npos)
        ++changes;
    if (runtimeOf(row.configName) != runtimeOf(baseline.configName))
        ++changes;
    return changes;
}

// Rows the recommendation must name: runs that did not all complete, or figures that are noisy
// enough to be unreliable or have no steady state.
std::string caveatsOf(const Ledger &ledger)
{
    std::string incomplete, unreliable;
    const auto append = [](std::string &list, const std::string &item) { list += (list.empty() ? "" : ", ") + item; };
    for (const LedgerRow &row : ledger.rows) {
        if (!row.complete())
            append(incomplete, row.label + " (" + statusText(row) + ")");
        else if (row.steadyProblem)
            append(unreliable, row.label + " (no steady state)");
        else if (row.steadyMs && row.noise == stats::Noise::Unreliable)
            append(unreliable, row.label + " (noise)");
        else if (row.firstStepNoise == stats::Noise::Unreliable)
            append(unreliable, row.label + " (first step)");
    }
    std::string text;
    if (ledger.sweep.status != store::SweepStatus::Complete && ledger.sweep.status != store::SweepStatus::Running)
        text += " The sweep was " + std::string(store::toString(ledger.sweep.status)) + ".";
    if (!incomplete.empty())
        text += " Not complete: " + incomplete + ".";
    if (!unreliable.empty())
        text += " Unreliable: " + unreliable + ".";
    return text;
}

// Rows that ran out of memory at the ledger's batch, and that the recommended row completed there
// (issue 31): "+cuda-graph ran out of memory at batch 256; tf32+bf16 fits it (peak 9,120 MiB)."
// A recommended row that ran out itself in some run fits it in none of the others' terms: said so.
std::string outOfMemoryText(const Ledger &ledger)
{
    const LedgerRow &pick = ledger.rows[*ledger.recommended];
    const auto runsText = [](const LedgerRow &row) {
        return row.memory.outOfMemoryRuns == row.repeats ? std::string()
                                                         : " (" + std::to_string(row.memory.outOfMemoryRuns) + " of " +
                                                               std::to_string(row.repeats) + " runs)";
    };
    std::vector<std::string> out;
    for (const LedgerRow &row : ledger.rows)
        if (row.memory.outOfMemoryRuns > 0 && &row != &pick)
            out.push_back(row.label + runsText(row));
    if (out.empty())
        return {};
    std::string text = " " + out.front();
    for (std::size_t i = 1; i < out.size(); ++i)
        text += (i + 1 == out.size() ? " and " : ", ") + out[i];
    text += " ran out of memory at batch " + std::to_string(ledger.batch) + "; " + pick.label;
    if (pick.memory.outOfMemoryRuns > 0)
        return text + " ran out too" + runsText(pick) + ".";
    return text + " fits it" +
           (pick.memory.allocated ? " (peak " + memoryFigureText(pick.memory.allocated->medianMiB) + ")" : "") + ".";
}

// Why nothing is compared with a baseline that has no steady figure, in its own terms.
std::string withoutBaselineReason(const LedgerRow &base)
{
    const std::string who = "the baseline (" + base.label + ")";
    if (base.completed == 0)
        return who + " has no completed run (" + statusText(base) + ")";
    if (base.steadyProblem)
        return who + " has no steady state: " + describe(*base.steadyProblem);
    return who + " has no steady step time";
}

// Why no row is a candidate though the baseline has figures (recommendFor takes a row with a first
// step and a steady state whose losses stayed with the baseline's).
std::string withoutCandidatesReason(const Ledger &ledger)
{
    const bool anySteady =
        std::any_of(ledger.rows.begin(), ledger.rows.end(), [](const LedgerRow &r) { return r.steadyMs.has_value(); });
    if (!anySteady)
        return "no configuration has a steady state";
    return "no configuration has both a first step and a steady state whose losses kept with the baseline's";
}

// The crossing of two candidates' total-time lines, from the faster-per-step one's side, with the
// same interval a row gets against the baseline (so the two agree when one of them is the baseline).
std::optional<Ledger::Crossing> decidingCrossingOf(const std::vector<LedgerRow> &rows, std::size_t best,
                                                   std::size_t runnerUp, stats::CancelToken cancel)
{
    const LedgerRow &a = rows[best], &b = rows[runnerUp];
    const double stepA = *a.steadyMs, stepB = *b.steadyMs; // a ratio of differences: ms as good as s
    Ledger::Crossing crossing;
    std::optional<double> steps = stats::breakEvenSteps(*a.firstStepMs, stepA, *b.firstStepMs, stepB);
    crossing.faster = best;
    crossing.slower = runnerUp;
    if (!steps) {
        steps = stats::breakEvenSteps(*b.firstStepMs, stepB, *a.firstStepMs, stepA);
        std::swap(crossing.faster, crossing.slower);
    }
    // Equal steady steps never cross; at one step or less the faster leads from the start: no crossing.
    if (!steps || !std::isfinite(*steps) || *steps <= 1)
        return std::nullopt;
    crossing.steps = *steps;
    crossing.ci =
        stats::breakEvenInterval(startSummariesOf(rows[crossing.faster]), startSummariesOf(rows[crossing.slower]),
                                 stats::kResamples, stats::kSeed, cancel);
    crossing.range = breakEvenRangeText(crossing.ci);
    return crossing;
}

} // namespace

namespace
{

// The recommendation for the ledger's assumed start state.
void recommendAssumedStart(Ledger &ledger, std::int64_t plannedSteps, stats::CancelToken cancel)
{
    ledger.plannedSteps = plannedSteps;
    ledger.recommendation.reset();
    ledger.recommendationCI.reset();
    ledger.recommendationTied = false;
    ledger.recommended.reset();
    ledger.recommendedReason.clear();
    ledger.decidingCrossing.reset();
    ledger.recommendationText.clear();
    ledger.leftOut.clear();
    ledger.noRecommendationReason.clear();
    // Every comparison is against the baseline: without its steady figure none is made.
    if (!ledger.rows.empty() && !ledger.rows.front().steadyMs) {
        ledger.noRecommendationReason = withoutBaselineReason(ledger.rows.front());
        return;
    }
    // A configuration that broke training is no candidate, however fast; the text says so (a row
    // that merely differs from the baseline stays one, and is named when it is the one to use).
    std::vector<stats::Candidate> candidates;
    std::vector<std::size_t> candidateRows;
    std::string leftOutText;
    for (std::size_t i = 0; i < ledger.rows.size(); ++i) {
        const LedgerRow &row = ledger.rows[i];
        if (!row.steadyMs || !row.firstStepMs)
            continue; // no figures: caveatsOf names the row when it failed or never settled
        if (const std::string reason = leftOutReason(row); !reason.empty()) {
            ledger.leftOut.push_back(i);
            leftOutText +=
                (leftOutText.empty() ? " Left out of the recommendation: " : "; ") + row.label + " (" + reason + ")";
            continue;
        }
        candidates.push_back({row.label, *row.firstStepMs / 1000.0, *row.steadyMs / 1000.0});
        candidateRows.push_back(i);
    }
    if (!leftOutText.empty())
        leftOutText += ".";
    auto rec = stats::recommend(candidates, ledger.plannedSteps);
    if (!rec) {
        ledger.noRecommendationReason = withoutCandidatesReason(ledger);
        return;
    }
    rec->best = candidateRows[rec->best];
    if (rec->runnerUp)
        rec->runnerUp = candidateRows[*rec->runnerUp];
    ledger.recommendation = rec;
    ledger.recommended = rec->best;
    ledger.recommendedReason = "finishes " + std::to_string(ledger.plannedSteps) + " steps first";
    const LedgerRow &best = ledger.rows[rec->best];
    // The start state is named where the runs recorded theirs: a first step is cold or warm.
    const bool started = best.firstStepStart != store::StartState::Unrecorded;
    std::string text = "For " + std::to_string(ledger.plannedSteps) + " steps" +
                       (started ? " on " + startText(best.firstStepStart) : std::string()) + ": " + best.label +
                       " finishes first (" + formatSeconds(rec->bestTotal) + ")";
    if (rec->runnerUp) {
        const LedgerRow &second = ledger.rows[*rec->runnerUp];
        text += ", " + formatSeconds(rec->margin) + " ahead of " + second.label + " (" +
                formatNumber("%.1f%%", 100.0 * rec->margin / rec->runnerUpTotal) + ")";
        const auto ci = stats::totalTimeDifference(startSummariesOf(best), startSummariesOf(second),
                                                   ledger.plannedSteps, stats::kResamples, stats::kSeed, cancel);
        ledger.recommendationCI = ci;
        ledger.recommendationTied = !ci.significant;
        if (!ci.hasInterval)
            text += "; " + std::string(kNoInterval) + ", so it cannot be told apart from " + second.label;
        else if (!ci.significant)
            text += ", but the margin's 95% CI (" + signedSeconds(ci.low) + " to " + signedSeconds(ci.high) +
                    ") contains 0: it cannot be told apart from " + second.label;
        else
            text += ", margin 95% CI " + signedSeconds(ci.low) + " to " + signedSeconds(ci.high);
        if (ledger.recommendationTied) {
            // Ties go to the row listed first (the baseline side of the ledger) at equal knob counts.
            const LedgerRow &base = ledger.rows.front();
            const int secondChanges = changeCount(second, base), bestChanges = changeCount(best, base);
            const bool secondSimpler =
                secondChanges < bestChanges || (secondChanges == bestChanges && *rec->runnerUp < rec->best);
            text += "; the simpler is " + (secondSimpler ? second.label : best.label);
            ledger.recommended = secondSimpler ? *rec->runnerUp : rec->best;
            ledger.recommendedReason =
                "the simpler of two that cannot be told apart (" + best.label + ", " + second.label + ")";
        }
        ledger.decidingCrossing = decidingCrossingOf(ledger.rows, rec->best, *rec->runnerUp, cancel);
        if (const auto &crossing = ledger.decidingCrossing) {
            const std::string &faster = ledger.rows[crossing->faster].label;
            const std::string &slower = ledger.rows[crossing->slower].label;
            text += crossing->faster == rec->best ? "; " + faster + " overtakes " + slower + " after "
                                                  : "; " + faster + " would overtake " + slower + " only after ";
            text += std::to_string(std::llround(crossing->steps)) + " steps (" +
                    (crossing->ci.hasInterval ? "95% CI " + crossing->range : std::string(kNoInterval)) + ")";
        }
    }
    // What the other start state gives the recommended row, when it ran both.
    if (ledger.hasSeveralStarts && best.speedup && best.fresh.firstStepMs && best.again.firstStepMs)
        text += "; " + best.label + " pays off after " + breakEvenByStartText(best, ledger.start);
    // The recommended row's losses took another path than the baseline's beyond its tolerance: it
    // still trains, but that is worth a look before a long run relies on it.
    if (ledger.recommended && ledger.rows[*ledger.recommended].accuracy.differs()) {
        const LedgerRow &chosen = ledger.rows[*ledger.recommended];
        leftOutText += " " + chosen.label + "'s losses differ from the baseline's beyond its tolerance (" +
                       differenceTextOf(chosen.accuracy) + "): it trains, but check its accuracy before a long run.";
    }
    ledger.recommendationText = text + "." + leftOutText + caveatsOf(ledger);
    if (ledger.provisional()) {
        std::string note = provisionalText(ledger);
        note[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(note[0])));
        ledger.recommendationText = note + ": this verdict may change. " + ledger.recommendationText;
    }
}

} // namespace

std::string recommendationCaveats(const Ledger &ledger)
{
    if (!ledger.recommended)
        return {};
    // A knob of the pick that only costs (issue 35.1) comes first: it is what a reader can act on,
    // and the line under the headline shows its first lines only.
    std::string text;
    if (const std::string drop = costOnlyKnobsText(ledger, ledger.recommendedWorth); !drop.empty())
        text += " " + drop;
    text += caveatsOf(ledger);
    text += outOfMemoryText(ledger);
    // "Within noise" of one process each is no measured noise: no interval could be taken.
    if (ledger.recommendationCI && !ledger.recommendationCI->hasInterval)
        text += " One process each: no interval, so the two cannot be told apart; more repeats give one.";
    return text.empty() ? text : text.substr(1); // caveatsOf's sentences each start with a space
}

// The fewest joules over the planned run (Ledger::fewestJoules), and where it differs from the time
// pick, what each costs: "For the fewest joules over 10000 steps: X (102 kJ), 60 kJ less than Y, the
// fastest, which finishes 12.3 s sooner". One process's joules carry no interval, and the text says
// the margin has none rather than calling it certain.
static void pickFewestJoules(Ledger &ledger)
{
    ledger.fewestJoules.reset();
    ledger.fewestJoulesText.clear();
    std::vector<stats::Candidate> candidates;
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < ledger.rows.size(); ++i) {
        const LedgerRow &row = ledger.rows[i];
        // As for time: a row that never settled has joules per step that were still moving.
        if (!row.steadyMs || !row.energy.joulesPerStep || !row.energy.firstStepJoules || !leftOutReason(row).empty())
            continue;
        candidates.push_back({row.label, *row.energy.firstStepJoules, *row.energy.joulesPerStep});
        rows.push_back(i);
    }
    const auto pick = stats::recommend(candidates, ledger.plannedSteps);
    if (!pick)
        return;
    const std::size_t best = rows[pick->best];
    ledger.fewestJoules = best;
    const auto kJ = [](double joules) { return formatNumber("%.1f kJ", joules / 1000.0); };
    std::string text = "For the fewest joules over " + groupThousands(ledger.plannedSteps) +
                       " steps: " + ledger.rows[best].label + " (" + kJ(pick->bestTotal) + ")";
    const bool onePerRow = std::any_of(rows.begin(), rows.end(), [&](std::size_t i) {
        return ledger.rows[i].energy.processes < 2;
    });
    if (ledger.recommended && *ledger.recommended != best) {
        const LedgerRow &fastest = ledger.rows[*ledger.recommended];
        if (const auto fastestJoules = runJoules(fastest.energy, ledger.plannedSteps)) {
            text += ", " + kJ(*fastestJoules - pick->bestTotal) + " less than " + fastest.label +
                    ", the recommendation by time";
            const auto secondsOf = [&](const LedgerRow &r) -> std::optional<double> {
                if (!r.firstStepMs || !r.steadyMs)
                    return std::nullopt;
                return stats::totalTime(*r.firstStepMs / 1000.0, *r.steadyMs / 1000.0, ledger.plannedSteps);
            };
            const auto a = secondsOf(fastest), b = secondsOf(ledger.rows[best]);
            if (a && b)
                text += ", which finishes " + formatSeconds(std::abs(*b - *a)) + (*b >= *a ? " sooner" : " later");
        } else
            text += "; the recommendation by time, " + fastest.label + ", has no energy figures";
    } else if (ledger.recommended)
        text += ": the same row as the recommendation by time";
    if (onePerRow)
        text += " (one process a row: no interval on the joules)";
    ledger.fewestJoulesText = text + ".";
}

void subtractIdlePower(Ledger &ledger, double idleWatts, stats::CancelToken cancel)
{
    ledger.idleWatts = idleWatts;
    ledger.idleAboveDraw = false;
    for (LedgerRow &row : ledger.rows) {
        std::vector<EnergyReading> net;
        for (const EnergyReading &r : row.energyReadings)
            net.push_back(withoutIdle(r, idleWatts, &ledger.idleAboveDraw));
        row.energy = energyOf(net);
    }
    for (std::size_t i = 1; i < ledger.rows.size(); ++i)
        ledger.rows[i].energyBreakEven = energyBreakEven(ledger.rows[i].energy, ledger.rows.front().energy);
    if (!ledger.rows.empty())
        recommendFor(ledger, ledger.plannedSteps, cancel);
}

bool recommendByJoules(Ledger &ledger)
{
    if (!ledger.fewestJoules)
        return false;
    // The time verdict, without the fewest-joules sentence recommendFor appended to it.
    std::string byTime = ledger.recommendationText;
    if (const std::string said = " " + ledger.fewestJoulesText; byTime.size() >= said.size() &&
                                                                 byTime.compare(byTime.size() - said.size(), said.size(), said) == 0)
        byTime.erase(byTime.size() - said.size());
    ledger.byJoules = true;
    ledger.recommended = ledger.fewestJoules;
    ledger.recommendedReason = "spends the fewest joules over " + std::to_string(ledger.plannedSteps) + " steps";
    ledger.recommendationText =
        ledger.fewestJoulesText + (byTime.empty() ? std::string() : " By time: " + byTime);
    return true;
}

void recommendFor(Ledger &ledger, std::int64_t plannedSteps, stats::CancelToken cancel)
{
    // The verdict by time: a caller that wants joules asks recommendByJoules again for this length.
    ledger.byJoules = false;
    recommendAssumedStart(ledger, plannedSteps, cancel);
    ledger.recommendedWorth.clear();
    if (ledger.recommended) {
        // What each of the pick's knobs is worth, in the verdict's own text.
        ledger.recommendedWorth = knobWorthOf(ledger, *ledger.recommended, cancel);
        const std::string worth = knobWorthSummary(ledger, ledger.recommendedWorth);
        if (!worth.empty())
            ledger.recommendationText +=
                " What each knob of " + ledger.rows[*ledger.recommended].label + " is worth: " + worth + ".";
    }
    // Each start state's pick (Ledger::byStart, the exports' recommended_by_start) is for the same
    // planned run: another length picks them again, or an export would mix two lengths.
    pickByStart(ledger);
    pickFewestJoules(ledger);
    // Named in the verdict where joules and time disagree (issue 31.4).
    if (ledger.fewestJoules && ledger.recommended && *ledger.fewestJoules != *ledger.recommended)
        ledger.recommendationText += " " + ledger.fewestJoulesText;
}

} // namespace stepscope::report
