// Energy through the ledger (issue 31.4): what the store holds for each run reaches the row (mean
// over completed processes, interval, the break-even in joules against the baseline), the Markdown
// section, the CSV and JSON columns; a CPU sweep says "no energy counter", never 0 J.
#include "report/ledger.h"
#include "report/ledger_text.h"
#include "report/recommendation.h"
#include "store/store.h"
#include "stored_sweep.h"

#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <string>
#include <vector>

namespace stepscope::report
{
namespace
{

EnergyReading gpuReading(double joulesPerStep, double firstJ)
{
    EnergyReading e;
    e.blockJoules = joulesPerStep * 200;
    e.blockSeconds = 2.0;
    e.blockSteps = 200;
    e.firstStepJoules = firstJ;
    e.firstStepSeconds = 1.5;
    return e;
}

class EnergyLedgerTest : public ::testing::Test
{
  protected:
    void SetUp() override { ASSERT_TRUE(dir_.isValid()); }

    // Runs of `configs` in turn, each with its reading (one per run).
    Ledger ledgerOf(const std::vector<std::pair<RunConfig, EnergyReading>> &runs)
    {
        const std::string path = dir_.filePath("e.db").toStdString();
        {
            auto db = store::Database::open(path);
            const auto sweepId = test::addSweep(*db, {"energy", "ledger", 10000});
            int position = 0;
            for (const auto &[config, reading] : runs) {
                test::RunSpec run = test::runOf(config, position++);
                run.firstS = 1.5;
                run.steps = test::stepsAt(config.cudaGraph ? 6.0 : 10.0);
                db->setEnergy(test::addRun(*db, sweepId, run), reading);
            }
            db->flush();
        }
        auto reader = store::Reader::open(path);
        return buildLedger(*reader, reader->sweeps().front().id);
    }

    QTemporaryDir dir_;
};

TEST_F(EnergyLedgerTest, RowsCarryJoulesWithIntervalsAndTheBreakEvenInJoules)
{
    RunConfig base;
    base.device = "cuda";
    RunConfig graph = base;
    graph.cudaGraph = true;
    // Baseline 3.6-3.8 J a step, 40 J first step; the graph 1.6 J a step but a 400 J first step.
    const Ledger l = ledgerOf({{base, gpuReading(3.6, 40)},
                               {graph, gpuReading(1.6, 400)},
                               {base, gpuReading(3.8, 40)},
                               {graph, gpuReading(1.6, 400)}});
    ASSERT_EQ(l.rows.size(), 2u);
    const LedgerRow &b = l.rows[0], &g = l.rows[1];
    ASSERT_TRUE(b.energy.joulesPerStep);
    EXPECT_NEAR(*b.energy.joulesPerStep, 3.7, 1e-9);
    EXPECT_EQ(b.energy.processes, 2);
    EXPECT_TRUE(b.energy.hasInterval());
    ASSERT_TRUE(g.energyBreakEven.hasBoth && g.energyBreakEven.steps);
    EXPECT_NEAR(*g.energyBreakEven.steps, 1 + (400.0 - 40.0) / (3.7 - 1.6), 1e-6);
    EXPECT_FALSE(b.energyBreakEven.hasBoth) << "the baseline has no break-even against itself";
    ASSERT_TRUE(l.measuredEnergy());

    // 10,000 steps: the baseline 40 J + 9,999 x 3.7 J = 37.0 kJ, the graph 400 J + 9,999 x 1.6 J = 16.4 kJ.
    ASSERT_TRUE(l.fewestJoules);
    EXPECT_EQ(*l.fewestJoules, 1u);
    EXPECT_NE(l.fewestJoulesText.find("For the fewest joules over 10,000 steps: cuda-graph (16.4 kJ)"), std::string::npos)
        << l.fewestJoulesText;
    const EnergyLines lines = energyLines(l);
    ASSERT_EQ(lines.lines.size(), 3u) << "a line per row, then the fewest joules";
    EXPECT_NE(lines.lines[1].find("fewer joules than the baseline after 173 steps"), std::string::npos)
        << lines.lines[1];
    const std::string md = toMarkdown(l);
    EXPECT_NE(md.find("\nEnergy (the GPU's energy counter"), std::string::npos) << md;
    EXPECT_NE(md.find("- baseline: 3.70 J/step ["), std::string::npos) << md;

    const std::string csv = toCsv(l);
    const std::string header = csv.substr(0, csv.find('\n'));
    EXPECT_NE(header.find(",joules_per_step,joules_per_step_ci_low,joules_per_step_ci_high,watts,first_step_joules,"
                          "energy_processes,energy_break_even_steps,energy_problem,"),
              std::string::npos)
        << header;
    const QJsonArray rows = QJsonDocument::fromJson(QByteArray::fromStdString(toJson(l))).object().value("rows").toArray();
    ASSERT_EQ(rows.size(), 2);
    EXPECT_NEAR(rows[0].toObject().value("joules_per_step").toDouble(), 3.7, 1e-9);
    EXPECT_EQ(rows[0].toObject().value("joules_per_step_ci").toArray().size(), 2);
    EXPECT_NEAR(rows[1].toObject().value("energy_break_even_steps").toDouble(), 172.43, 0.01);
    EXPECT_EQ(QJsonDocument::fromJson(QByteArray::fromStdString(toJson(l))).object().value("fewest_joules").toObject().value("label").toString(),
              "cuda-graph");
}

TEST_F(EnergyLedgerTest, TheVerdictNamesTheFewestJoulesWhereTheyDisagreeWithTime)
{
    // The graph is faster per step (6 ms against 10) but draws so much power that it spends more
    // joules a step (5 J against 3.7): time picks the graph, joules the baseline, and the verdict
    // says both.
    RunConfig base;
    base.device = "cuda";
    RunConfig graph = base;
    graph.cudaGraph = true;
    const Ledger l = ledgerOf({{base, gpuReading(3.6, 40)},
                               {graph, gpuReading(5.0, 60)},
                               {base, gpuReading(3.8, 40)},
                               {graph, gpuReading(5.0, 60)}});
    ASSERT_TRUE(l.recommended && l.fewestJoules);
    EXPECT_EQ(l.rows[*l.recommended].label, "cuda-graph");
    EXPECT_EQ(*l.fewestJoules, 0u);
    EXPECT_NE(l.recommendationText.find("For the fewest joules over 10,000 steps: baseline ("), std::string::npos)
        << l.recommendationText;
    EXPECT_NE(l.recommendationText.find("less than cuda-graph, the recommendation by time, which finishes"), std::string::npos)
        << l.recommendationText;

    // Asked for the fewest joules (--objective energy): the verdict turns, time is said after it, once.
    Ledger byJoules = l;
    ASSERT_TRUE(recommendByJoules(byJoules));
    EXPECT_EQ(*byJoules.recommended, 0u);
    EXPECT_EQ(recommendationHeadline(byJoules).rfind("Use baseline", 0), 0u) << recommendationHeadline(byJoules);
    EXPECT_NE(recommendationHeadline(byJoules).find(": the fewest joules, "), std::string::npos);
    const std::string &text = byJoules.recommendationText;
    EXPECT_EQ(text.rfind("For the fewest joules over 10,000 steps: baseline", 0), 0u) << text;
    EXPECT_NE(text.find(" By time: "), std::string::npos) << text;
    EXPECT_EQ(text.find("For the fewest joules", 1), std::string::npos) << "said once: " << text;
}

// Idle power comes out only when asked (--idle-watts): each window less idle watts x its seconds,
// the break-evens and the verdict recomputed, and the Energy section says it was done; an idle
// figure above what a window drew is said too, never a negative joule.
TEST_F(EnergyLedgerTest, IdlePowerComesOutOnlyWhenAskedAndIsSaid)
{
    RunConfig base;
    base.device = "cuda";
    RunConfig graph = base;
    graph.cudaGraph = true;
    Ledger l = ledgerOf({{base, gpuReading(3.6, 40)},
                         {graph, gpuReading(5.0, 60)},
                         {base, gpuReading(3.8, 40)},
                         {graph, gpuReading(5.0, 60)}});
    ASSERT_FALSE(l.idleWatts);
    EXPECT_NEAR(*l.rows[0].energy.joulesPerStep, 3.7, 1e-9);
    EXPECT_EQ(energyLines(l).heading.find("idle"), std::string::npos) << "never by default";

    subtractIdlePower(l, 100.0); // 100 W over 2 s windows of 200 steps: 1 J a step; 150 J of a 1.5 s first step
    ASSERT_TRUE(l.idleWatts);
    EXPECT_NEAR(*l.rows[0].energy.joulesPerStep, 2.7, 1e-9);
    EXPECT_NEAR(*l.rows[1].energy.joulesPerStep, 4.0, 1e-9);
    EXPECT_NEAR(*l.rows[0].energy.firstStepJoules, 0.0, 1e-9) << "40 J less 150 J keeps 0";
    EXPECT_TRUE(l.idleAboveDraw);
    EXPECT_NE(energyLines(l).heading.find("net of 100 W of idle power"), std::string::npos) << energyLines(l).heading;
    EXPECT_NE(energyLines(l).heading.find("the idle figure is too high"), std::string::npos);
    ASSERT_TRUE(l.fewestJoules);
    EXPECT_EQ(*l.fewestJoules, 0u);

    Ledger modest = ledgerOf({{base, gpuReading(3.6, 400)}, {base, gpuReading(3.8, 400)}});
    subtractIdlePower(modest, 20.0);
    EXPECT_NEAR(*modest.rows[0].energy.joulesPerStep, 3.5, 1e-9);
    EXPECT_NEAR(*modest.rows[0].energy.firstStepJoules, 370.0, 1e-9);
    EXPECT_FALSE(modest.idleAboveDraw);
    EXPECT_EQ(energyLines(modest).heading.find("too high"), std::string::npos);
}

// A window shorter than the counter's updates reads 0 J (a max-batch try's 4 steps on an H100 showed
// "0.0000 J"): no figure and why, never 0 J; a row with another process's good reading keeps that one.
TEST_F(EnergyLedgerTest, ACounterThatDidNotMoveIsNoFigureNotZeroJoules)
{
    RunConfig base;
    base.device = "cuda";
    EnergyReading still;
    still.blockJoules = 0.0;
    still.blockSeconds = 0.03;
    still.blockSteps = 3;
    still.firstStepJoules = 0.01;
    still.firstStepSeconds = 0.5;
    const Ledger one = ledgerOf({{base, still}});
    EXPECT_FALSE(one.rows[0].energy.joulesPerStep);
    EXPECT_FALSE(one.rows[0].energy.firstStepJoules) << "0.01 J over 0.5 s is no GPU at work";
    EXPECT_NE(energyText(one.rows[0].energy).find("the energy counter did not move over the timed steps (0.03 s"),
              std::string::npos)
        << energyText(one.rows[0].energy);
    EXPECT_EQ(energyCell(one.rows[0].energy), "-");
    const Ledger two = ledgerOf({{base, still}, {base, gpuReading(3.6, 40)}});
    ASSERT_TRUE(two.rows[0].energy.joulesPerStep);
    EXPECT_NEAR(*two.rows[0].energy.joulesPerStep, 3.6, 1e-9);
    EXPECT_EQ(two.rows[0].energy.processes, 1);
}

TEST_F(EnergyLedgerTest, ACpuSweepSaysNoEnergyCounterNeverZeroJoules)
{
    RunConfig cpu;
    cpu.device = "cpu";
    EnergyReading none;
    none.problem = "no energy counter: a CPU run";
    const Ledger l = ledgerOf({{cpu, none}, {cpu, none}});
    ASSERT_FALSE(l.measuredEnergy());
    EXPECT_EQ(energyLines(l).note, "Energy not measured: no energy counter: a CPU run.");
    const std::string md = toMarkdown(l);
    EXPECT_NE(md.find("Energy not measured: no energy counter: a CPU run."), std::string::npos) << md;
    EXPECT_EQ(md.find(" J/step"), std::string::npos) << md;
    const QJsonArray rows = QJsonDocument::fromJson(QByteArray::fromStdString(toJson(l))).object().value("rows").toArray();
    EXPECT_TRUE(rows[0].toObject().value("joules_per_step").isNull());
    EXPECT_EQ(rows[0].toObject().value("energy").toString(), "no energy counter: a CPU run");
}

} // namespace
} // namespace stepscope::report
