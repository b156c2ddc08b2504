#pragma once
// What a configuration's steps cost in energy (issue 31.4), from each run's reading of the GPU's
// total-energy counter (common/energy.h): joules per timed step and the average power over the
// processes of a row, with a 95% interval over processes; the first step's joules; the joules of a
// planned run of N steps including the first step; and a break-even in joules beside the one in
// steps (a compile's extra first step is spent at another power than its steady steps, so the two
// need not agree). Every figure is said with its limits: a window shorter than the counter's update
// period (kMinEnergyWindowSeconds) is "too short", a run without a counter has no figure ("no energy
// counter"), and older runs were "not measured". Qt-free.
#include "common/energy.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stepscope::report
{

struct EnergyFigures {
    // Over the processes whose timed block had a reading: the mean and, from 2 processes, a 95%
    // t-interval (the process is the unit, as for every interval here).
    std::optional<double> joulesPerStep, low, high;
    std::optional<double> watts; // the mean power over those blocks
    std::optional<double> firstStepJoules; // median over processes with a first-step reading
    int processes = 0;
    bool shortWindow = false;    // some timed block shorter than kMinEnergyWindowSeconds
    bool shortFirstStep = false; // some first step shorter than that: its joules are rough
    std::string problem; // why there is no figure: the runs' own problem, or "not measured"
    bool hasInterval() const { return low && high; }
};

// A reading as the store holds it, with a window in which the counter did not move (0 J, or under
// 5 W: a window shorter than the counter's 20-100 ms updates, such as a max-batch try's few steps)
// turned into no figure and why: a step never costs 0 J.
EnergyReading checkedReading(EnergyReading reading);
// The figures of one row's completed runs' readings (the order does not matter).
EnergyFigures energyOf(const std::vector<EnergyReading> &readings);
// A reading less what an idle GPU would have spent over its windows (idle watts x each window's
// seconds): what the work itself cost. Only where the user gives the idle power (issue 31.4: never
// by default, and every view says it was done). A window whose joules would go below zero keeps 0
// and `*belowIdle` is set: the idle figure given is above what the GPU drew.
EnergyReading withoutIdle(EnergyReading reading, double idleWatts, bool *belowIdle = nullptr);

// Joules for a planned run of N steps: the first step's, then N - 1 steady steps; none without both.
std::optional<double> runJoules(const EnergyFigures &e, std::int64_t plannedSteps);
// After how many steps `candidate` has spent fewer joules than `baseline` (as breakEvenSteps does for
// time); none ("never") when it spends more per step; none as well without the figures (hasBoth false).
struct EnergyBreakEven {
    bool hasBoth = false;
    std::optional<double> steps;
};
EnergyBreakEven energyBreakEven(const EnergyFigures &candidate, const EnergyFigures &baseline);

// "3.63 J/step [3.58-3.70] at 397 W (n=3)", "3.63 J/step at 397 W (n=1, no CI)", with "; window under
// 1 s: the counter moves every 20-100 ms" when short; else the problem ("no energy counter: a CPU
// run", "not measured"). Never "0 J".
std::string energyText(const EnergyFigures &e);
// "fewer joules than the baseline after 431 steps", "never fewer joules than the baseline"; "" without
// the figures (hasBoth false). Every view words the break-even in joules with this.
std::string energyBreakEvenText(const EnergyBreakEven &b);
// The short form for a table cell: "3.63 J", "3.63 J*" (short window), "-" without a figure.
std::string energyCell(const EnergyFigures &e);

} // namespace stepscope::report
