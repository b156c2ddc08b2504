#include "report/energy.h"

#include "report/number_text.h"
#include "stats/stats.h"

#include <algorithm>
#include <cmath>

namespace stepscope::report
{
namespace
{

// Joules to three significant figures at least two decimals: 3.63, 12.4, 0.0512.
std::string joules(double value)
{
    const double magnitude = std::abs(value);
    return formatNumber(magnitude >= 100 ? "%.0f" : magnitude >= 10 ? "%.1f" : magnitude >= 0.1 ? "%.2f" : "%.4f", value);
}

} // namespace

EnergyReading withoutIdle(EnergyReading reading, double idleWatts, bool *belowIdle)
{
    const auto net = [&](std::optional<double> &joules, const std::optional<double> &seconds) {
        if (!joules || !seconds)
            return;
        joules = *joules - idleWatts * *seconds;
        if (*joules < 0) {
            joules = 0.0;
            if (belowIdle)
                *belowIdle = true;
        }
    };
    net(reading.blockJoules, reading.blockSeconds);
    net(reading.firstStepJoules, reading.firstStepSeconds);
    return reading;
}

EnergyReading checkedReading(EnergyReading reading)
{
    // Under 5 W over a window of work: no GPU draws that while it runs; the counter did not update.
    const auto still = [](const std::optional<double> &joules, const std::optional<double> &seconds) {
        return joules && (*joules <= 0 || (seconds && *seconds > 0 && *joules / *seconds < 5.0));
    };
    if (still(reading.blockJoules, reading.blockSeconds)) {
        reading.problem = "the energy counter did not move over the timed steps (" +
                          (reading.blockSeconds ? formatNumber("%.2f s", *reading.blockSeconds) : std::string("a window")) +
                          "; it updates every 20-100 ms): time more steps";
        reading.blockJoules.reset();
    }
    if (still(reading.firstStepJoules, reading.firstStepSeconds))
        reading.firstStepJoules.reset();
    return reading;
}

EnergyFigures energyOf(const std::vector<EnergyReading> &readings)
{
    EnergyFigures e;
    std::vector<double> perStep, watts, first;
    for (const EnergyReading &r : readings) {
        if (const auto j = r.joulesPerStep()) {
            perStep.push_back(*j);
            if (const auto w = r.blockWatts())
                watts.push_back(*w);
            e.shortWindow = e.shortWindow || (r.blockSeconds && *r.blockSeconds < kMinEnergyWindowSeconds);
        }
        if (r.firstStepJoules) {
            first.push_back(*r.firstStepJoules);
            e.shortFirstStep =
                e.shortFirstStep || (r.firstStepSeconds && *r.firstStepSeconds < kMinEnergyWindowSeconds);
        }
        if (e.problem.empty() && !r.problem.empty())
            e.problem = r.problem;
    }
    if (!first.empty())
        e.firstStepJoules = stats::median(first);
    if (perStep.empty()) {
        if (e.problem.empty())
            e.problem = "not measured"; // runs of before schema 11, or workers that sent nothing
        return e;
    }
    e.problem.clear(); // a figure from some process: the others' problem is not the row's
    e.processes = static_cast<int>(perStep.size());
    double sum = 0;
    for (double v : perStep)
        sum += v;
    const double mean = sum / static_cast<double>(perStep.size());
    e.joulesPerStep = mean;
    if (!watts.empty()) {
        double w = 0;
        for (double v : watts)
            w += v;
        e.watts = w / static_cast<double>(watts.size());
    }
    if (perStep.size() >= 2) {
        double ss = 0;
        for (double v : perStep)
            ss += (v - mean) * (v - mean);
        const double n = static_cast<double>(perStep.size());
        const double half = stats::studentT975(n - 1) * std::sqrt(ss / (n - 1)) / std::sqrt(n);
        // A step never costs 0 J or less: two processes far apart (t = 12.7 at n=2) give a symmetric
        // interval whose low end can pass zero, which says only "no lower bound worth naming".
        e.low = std::max(0.0, mean - half);
        e.high = mean + half;
    }
    return e;
}

std::optional<double> runJoules(const EnergyFigures &e, std::int64_t plannedSteps)
{
    if (!e.joulesPerStep || !e.firstStepJoules || plannedSteps < 1)
        return std::nullopt;
    return stats::totalTime(*e.firstStepJoules, *e.joulesPerStep, plannedSteps);
}

EnergyBreakEven energyBreakEven(const EnergyFigures &candidate, const EnergyFigures &baseline)
{
    EnergyBreakEven b;
    b.hasBoth = candidate.joulesPerStep && candidate.firstStepJoules && baseline.joulesPerStep &&
                baseline.firstStepJoules;
    if (b.hasBoth)
        b.steps = stats::breakEvenSteps(*candidate.firstStepJoules, *candidate.joulesPerStep,
                                        *baseline.firstStepJoules, *baseline.joulesPerStep);
    return b;
}

std::string energyText(const EnergyFigures &e)
{
    if (!e.joulesPerStep)
        return e.problem;
    std::string text = joules(*e.joulesPerStep) + " J/step";
    if (e.hasInterval())
        text += *e.low > 0 ? " [" + joules(*e.low) + "-" + joules(*e.high) + "]" : " [up to " + joules(*e.high) + "]";
    if (e.watts)
        text += " at " + formatNumber("%.0f", *e.watts) + " W";
    text += e.processes >= 2 ? " (n=" + std::to_string(e.processes) + ")" : " (n=1, no CI)";
    if (e.shortWindow)
        text += "; timed steps under " + formatNumber("%.0f", kMinEnergyWindowSeconds) +
                " s: the counter moves every 20-100 ms, so read it as rough";
    return text;
}

std::string energyBreakEvenText(const EnergyBreakEven &b)
{
    if (!b.hasBoth)
        return {};
    if (!b.steps)
        return "never fewer joules than the baseline";
    return "fewer joules than the baseline after " +
           groupThousands(static_cast<long long>(std::ceil(std::max(1.0, *b.steps)))) + " steps";
}

std::string energyCell(const EnergyFigures &e)
{
    if (!e.joulesPerStep)
        return "-";
    return joules(*e.joulesPerStep) + " J" + (e.shortWindow ? "*" : "");
}

} // namespace stepscope::report
