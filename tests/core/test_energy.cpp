// Energy figures of a row (issue 31.4, report/energy.h): joules per step with an interval over
// processes, no figure (and never 0 J) without a counter, short windows said, and the run's joules
// and break-even in joules from the first step's and the steady steps' energy.
#include "report/energy.h"

#include <gtest/gtest.h>

#include <cmath>

namespace stepscope::report
{
namespace
{

EnergyReading reading(double blockJ, double blockS, int steps, std::optional<double> firstJ = std::nullopt,
                      double firstS = 2.0)
{
    EnergyReading r;
    r.blockJoules = blockJ;
    r.blockSeconds = blockS;
    r.blockSteps = steps;
    if (firstJ) {
        r.firstStepJoules = firstJ;
        r.firstStepSeconds = firstS;
    }
    return r;
}

TEST(Energy, JoulesPerStepIsTheMeanOverProcessesWithATInterval)
{
    // 3.6, 3.7 and 3.8 J a step over 100 steps: mean 3.7, sd 0.1, t(2) = 4.303: +-0.2484.
    const EnergyFigures e = energyOf({reading(360, 2.0, 100), reading(370, 2.0, 100), reading(380, 2.0, 100)});
    ASSERT_TRUE(e.joulesPerStep);
    EXPECT_NEAR(*e.joulesPerStep, 3.7, 1e-12);
    ASSERT_TRUE(e.hasInterval());
    EXPECT_NEAR(*e.low, 3.7 - 4.302653 * 0.1 / std::sqrt(3.0), 1e-4);
    EXPECT_NEAR(*e.high, 3.7 + 4.302653 * 0.1 / std::sqrt(3.0), 1e-4);
    EXPECT_NEAR(*e.watts, 185.0, 1e-9);
    EXPECT_EQ(e.processes, 3);
    EXPECT_FALSE(e.shortWindow);
    EXPECT_FALSE(e.shortFirstStep);
    EXPECT_EQ(energyText(e), "3.70 J/step [3.45-3.95] at 185 W (n=3)");
    EXPECT_EQ(energyCell(e), "3.70 J");
}

// The H100 ledger's compile-default row (docs/results): 0.8 and 4.0 J a step in two processes gave
// "[-1.34-6.15]". A step never costs 0 J or less: the interval keeps its upper end and says so.
TEST(Energy, AnIntervalNeverReachesBelowZeroJoules)
{
    const EnergyFigures e = energyOf({reading(80, 2.0, 100), reading(400, 2.0, 100)});
    ASSERT_TRUE(e.hasInterval());
    EXPECT_EQ(*e.low, 0.0);
    EXPECT_NEAR(*e.high, 2.4 + 12.7062 * std::sqrt(2 * 1.6 * 1.6) / std::sqrt(2.0), 1e-3);
    EXPECT_EQ(energyText(e).find('-'), std::string::npos) << energyText(e);
    EXPECT_NE(energyText(e).find("[up to 22.7]"), std::string::npos) << energyText(e);
}

TEST(Energy, OneProcessHasNoIntervalAndAShortWindowIsSaid)
{
    const EnergyFigures e = energyOf({reading(36.3, 0.4, 10)});
    ASSERT_TRUE(e.joulesPerStep);
    EXPECT_FALSE(e.hasInterval());
    EXPECT_TRUE(e.shortWindow);
    EXPECT_NE(energyText(e).find("(n=1, no CI)"), std::string::npos) << energyText(e);
    EXPECT_NE(energyText(e).find("timed steps under 1 s"), std::string::npos) << energyText(e);
    EXPECT_EQ(energyCell(e), "3.63 J*");
}

TEST(Energy, NoCounterIsNoFigureAndSaysSoNeverZero)
{
    EnergyReading cpu;
    cpu.problem = "no energy counter: a CPU run";
    const EnergyFigures e = energyOf({cpu, cpu});
    EXPECT_FALSE(e.joulesPerStep);
    EXPECT_EQ(energyText(e), "no energy counter: a CPU run");
    EXPECT_EQ(energyCell(e), "-");
    EXPECT_EQ(energyOf({EnergyReading{}}).problem, "not measured") << "a run of before schema 11";
    // One process with a counter and one without: the figure, of one process.
    const EnergyFigures mixed = energyOf({cpu, reading(200, 2, 50)});
    ASSERT_TRUE(mixed.joulesPerStep);
    EXPECT_EQ(mixed.processes, 1);
    EXPECT_TRUE(mixed.problem.empty());
}

TEST(Energy, RunJoulesAndBreakEvenInJoulesUseTheFirstStepsEnergy)
{
    // Baseline: 40 J first step, 3.6 J a step. Candidate: 900 J first step (a compile), 1.6 J a step.
    const EnergyFigures baseline = energyOf({reading(360, 2, 100, 40.0)});
    const EnergyFigures candidate = energyOf({reading(160, 1, 100, 900.0)});
    EXPECT_NEAR(*runJoules(baseline, 1000), 40 + 999 * 3.6, 1e-9);
    EXPECT_NEAR(*runJoules(candidate, 1000), 900 + 999 * 1.6, 1e-9);
    const EnergyBreakEven b = energyBreakEven(candidate, baseline);
    ASSERT_TRUE(b.hasBoth);
    ASSERT_TRUE(b.steps);
    EXPECT_NEAR(*b.steps, 1 + (900.0 - 40.0) / (3.6 - 1.6), 1e-9); // 431 steps
    // The other way round it never pays in joules.
    EXPECT_FALSE(energyBreakEven(baseline, candidate).steps);
    EXPECT_TRUE(energyBreakEven(baseline, candidate).hasBoth);
    // Without a first-step reading there is no run total and no break-even, rather than a guess.
    EXPECT_TRUE(energyOf({reading(360, 2, 100, 40.0, 0.3)}).shortFirstStep);
    EXPECT_FALSE(energyOf({reading(360, 2, 100, 40.0, 0.3)}).shortWindow) << "a short first step is not a short block";
    const EnergyFigures noFirst = energyOf({reading(360, 2, 100)});
    EXPECT_FALSE(runJoules(noFirst, 1000));
    EXPECT_FALSE(energyBreakEven(candidate, noFirst).hasBoth);
}

} // namespace
} // namespace stepscope::report
