// The ledger's figures in words for people and exports: times, break-evens, a row's status, the start
// states and the caches the first steps found. Words only; every figure comes from the rows.
#include "report/ledger_text.h"

#include "report/number_text.h"

#include <algorithm>

#include <cmath>

namespace stepscope::report
{

std::string formatSeconds(double s)
{
    if (!std::isfinite(s))
        return "-";
    if (s < 1)
        return formatNumber("%.0f ms", s * 1000);
    if (s < 120)
        return formatNumber("%.2f s", s);
    const long total = std::lround(s);
    return std::to_string(total / 60) + " min " + std::to_string(total % 60) + " s";
}

std::string formatSecondsDelta(double s)
{
    return std::isfinite(s) ? (s < 0 ? "-" : "+") + formatSeconds(std::fabs(s)) : "-";
}

std::string formatMs(double ms)
{
    return std::isfinite(ms) ? formatNumber("%.2f ms", ms) : "-";
}

std::string factorWords(const stats::RatioCI &ratio)
{
    const bool faster = ratio.ratio < 1;
    const double factor = faster ? 1 / ratio.ratio : ratio.ratio;
    // A factor that rounds to 1.00x is neither: "1.00x slower" would read as a finding.
    const bool even = formatNumber("%.2f", factor) == "1.00";
    return formatNumber("%.2fx", factor) + (even ? "" : faster ? " faster" : " slower");
}

std::string factorIntervalText(const stats::RatioCI &ratio)
{
    if (!ratio.hasInterval)
        return {};
    const bool faster = ratio.ratio < 1;
    const double lo = faster ? 1 / ratio.high : ratio.low, hi = faster ? 1 / ratio.low : ratio.high;
    return "95% CI " + formatNumber("%.2f", lo) + "-" + formatNumber("%.2fx", hi);
}

std::string factorText(const stats::RatioCI &ratio)
{
    const std::string interval = factorIntervalText(ratio);
    return factorWords(ratio) + (interval.empty() ? "" : ", " + interval);
}

std::string breakEvenStepsText(const std::optional<double> &steps)
{
    if (!steps)
        return "never";
    if (*steps <= 1)
        return "immediately";
    return std::to_string(std::llround(*steps));
}

std::string breakEvenText(const LedgerRow &row)
{
    if (!row.speedup)
        return "-"; // the baseline, or a side without figures
    return breakEvenStepsText(row.breakEvenSteps);
}

std::string firstStepCachesText(const Ledger &ledger)
{
    const Ledger::FirstStepCaches &caches = ledger.firstStepCaches;
    if (!caches.recorded)
        return {};
    std::string text =
        caches.warmedUp ? "a discarded warm-up process ran first: every first step found the machine's caches warm"
        : caches.coldRow.empty()
            ? "no warm-up process; no completed run was the sweep's first process"
            : "no warm-up process: " + caches.coldRow +
                  "'s first process paid for the machine's caches (CUDA JIT, cuDNN engines, library files), "
                  "marked \"machine cold\"";
    if (caches.ownCaches)
        text = std::string(caches.warmedUp ? "a discarded warm-up process ran first; " : "") +
               "every run had caches of its own (CUDA JIT, torch's kernels, Triton, torch.compile's): fresh ones "
               "empty, shipped ones empty but for the configuration's saved bundle, again ones as a run of the "
               "same configuration left them; figures assume " +
               startText(ledger.start);
    return text;
}

std::string startText(store::StartState start)
{
    switch (start) {
    case store::StartState::Fresh:
        return "a fresh machine";
    case store::StartState::Shipped:
        return "a fresh machine with shipped caches";
    case store::StartState::Again:
        return "this machine again";
    case store::StartState::Unrecorded:
        break;
    }
    return "";
}

std::string breakEvenByStartText(const LedgerRow &row, store::StartState assumed)
{
    // The assumed state first, then the others the row ran, fewest caches first.
    std::vector<store::StartState> order{assumed};
    for (const store::StartState s : store::kStartStates)
        if (s != assumed)
            order.push_back(s);
    std::string text;
    int shown = 0;
    for (const store::StartState s : order) {
        const LedgerRow::StartFigures &f = row.figuresOf(s);
        if (!f.firstStepMs)
            continue;
        text += (text.empty() ? "" : ", ") + breakEvenStepsText(f.breakEvenSteps) + " on " + startText(s);
        ++shown;
    }
    if (!row.speedup || shown < 2 || !row.figuresOf(assumed).firstStepMs)
        return breakEvenText(row);
    return text;
}

const char *const kNoInterval = "1 repeat: no interval";
const char *const kNoIntervalShort = "n=1, no CI";

std::string breakEvenRangeText(const stats::BreakEvenCI &ci)
{
    if (!ci.hasInterval)
        return kNoIntervalShort;
    if (ci.lowNever)
        return "never";
    const auto bound = [](double n) { return n <= 1 ? std::string("immediately") : std::to_string(std::llround(n)); };
    if (ci.highNever)
        return bound(ci.low) + " to never";
    if (ci.high <= 1)
        return "immediately";
    return ci.low <= 1 ? "immediately to " + bound(ci.high) : bound(ci.low) + "-" + bound(ci.high);
}

std::string completionText(const LedgerRow &row)
{
    if (row.complete())
        return "complete";
    if (row.completed == 0)
        return std::string(toString(row.lastStatus));
    return std::to_string(row.completed) + "/" + std::to_string(row.repeats) + " complete";
}

ComputeLines computeLines(const Ledger &l)
{
    ComputeLines out;
    std::vector<FlopsSource> sources;
    for (const LedgerRow &r : l.rows)
        if (r.compute.tflops && std::find(sources.begin(), sources.end(), r.compute.source) == sources.end())
            sources.push_back(r.compute.source);
    if (sources.empty())
        return out;
    out.heading = sources.size() == 1 ? flopsBasisText(sources.front()) : std::string("training FLOPs of one step");
    for (const LedgerRow &r : l.rows) {
        if (!r.compute.tflops)
            continue;
        std::string line = r.label + ": " + flopFigureText(r.compute.gflopPerStep.value_or(0)) + " GFLOP, " +
                           flopFigureText(*r.compute.tflops) + " TFLOP/s";
        if (r.compute.peakShare)
            line += ", " + peakShareText(r.compute);
        else if (storedConfig(r.configJson).onCuda()) // a CPU has no peak in the table, and that is no news
            line += " (no peak known for this GPU)";
        if (sources.size() > 1)
            line += " (" + flopsSourceText(r.compute.source) + ")";
        out.lines.push_back(std::move(line));
    }
    return out;
}

std::string peakMemoryNote(const Ledger &ledger)
{
    if (ledger.measuredMemory())
        return "Peak memory: median over completed processes of the peak PyTorch allocated (reserved memory and the "
               "spread: CSV and JSON exports); in brackets, against the baseline's (1.40x: 40% more); - = " +
               memoryMissingText(PeakMemory{}) + ".";
    if (ledger.rows.empty())
        return {};
    std::string none = memoryDetailText(ledger.rows.front().memory, std::nullopt); // "peak memory not measured..."
    none[0] = 'P';
    return none + ".";
}

EnergyLines energyLines(const Ledger &ledger)
{
    EnergyLines out;
    if (ledger.rows.empty())
        return out;
    if (!ledger.measuredEnergy()) {
        out.note = "Energy not measured: " + ledger.rows.front().energy.problem + ".";
        return out;
    }
    out.heading = "the GPU's energy counter over the timed steps, mean over processes with a 95% interval; "
                  "the first step's joules; the planned " +
                  groupThousands(ledger.plannedSteps) + "-step run including its first step";
    if (ledger.idleWatts) {
        // Said wherever the figures are: they are no longer what the counter read.
        out.heading += "; net of " + formatNumber("%.0f", *ledger.idleWatts) +
                       " W of idle power over each window (--idle-watts), so what the work itself spent";
        if (ledger.idleAboveDraw)
            out.heading += " (some windows drew less than that: they count 0 J, and the idle figure is too high)";
    }
    for (const LedgerRow &row : ledger.rows) {
        std::string line = row.label + ": " + energyText(row.energy);
        if (row.energy.firstStepJoules)
            line += "; first step " + groupThousands(static_cast<long long>(std::lround(*row.energy.firstStepJoules))) +
                    " J" + (row.energy.shortFirstStep ? " (under a second: rough)" : "");
        if (const auto total = runJoules(row.energy, ledger.plannedSteps))
            line += "; the run " + groupThousands(static_cast<long long>(std::lround(*total / 1000.0))) + " kJ";
        if (!row.baseline && row.energyBreakEven.hasBoth)
            line += "; " + energyBreakEvenText(row.energyBreakEven) + " (in time: " + breakEvenText(row) + ")";
        out.lines.push_back(std::move(line));
    }
    if (!ledger.fewestJoulesText.empty())
        out.lines.push_back(ledger.fewestJoulesText);
    return out;
}

std::string statusText(const LedgerRow &row)
{
    const bool stopped = row.failureCategory == toString(FailureCategory::Cancelled);
    std::string text = completionText(row);
    if (!row.failureCategory.empty() && !stopped)
        text += ": " + row.failureCategory;
    if (row.cancelled == 0)
        return text;
    const std::string recorded = row.cancelledSteps == 0   ? "no step recorded"
                                 : row.cancelledSteps == 1 ? "1 recorded step"
                                                           : std::to_string(row.cancelledSteps) + " recorded steps";
    if (row.completed == 0 && row.cancelled == row.repeats)
        return row.cancelledSteps == 0 ? "cancelled, " + recorded : "cancelled after " + recorded;
    return text + ", " + std::to_string(row.cancelled) + " cancelled (" + recorded + ")";
}

} // namespace stepscope::report
