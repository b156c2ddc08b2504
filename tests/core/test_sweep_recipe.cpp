// One definition of what a sweep runs (issue 29.1-2): the recipe both front-ends fill expands to the
// presets' configurations, round-trips through JSON whole, and a recipe of a newer version is refused.
#include "supervisor_fixture.h"

#include "config/config_json.h"
#include <QJsonDocument>
#include "config/presets.h"
#include "supervisor/sweep_recipe.h"

namespace stepscope::supervisor
{
using namespace test;

namespace
{

std::vector<std::string> names(const std::vector<RunConfig> &configs)
{
    std::vector<std::string> out;
    for (const RunConfig &c : configs)
        out.push_back(canonicalName(c));
    return out;
}

} // namespace

TEST(SweepRecipe, TheDefaultRecipeIsTheLedgerPresetOnEachMachine)
{
    for (const bool cuda : {true, false}) {
        const RunConfig shape = defaultShape(cuda);
        const Sweep expanded = expand(defaultRecipe(shape));
        EXPECT_EQ(names(expanded.configs), names(ledgerSweep(shape).configs)) << (cuda ? "cuda" : "cpu");
        // The same ledger with its knobs named (the panel names what is ticked) is the same sweep.
        SweepRecipe named = defaultRecipe(shape);
        named.knobs = ledgerKnobNames(shape);
        EXPECT_EQ(names(expand(named).configs), names(expanded.configs));
    }
    const Sweep gpu = expand(defaultRecipe(defaultShape(true)));
    ASSERT_EQ(gpu.configs.size(), 12u) << "8 native rows and the preset's 4 Python rows";
    EXPECT_EQ(gpu.configs[8].runtime, Runtime::Python);
    EXPECT_EQ(gpu.configs[8].compile, CompileMode::None);
    EXPECT_EQ(gpu.configs[11].compile, CompileMode::Default);
    EXPECT_TRUE(gpu.configs[11].cudaGraph);
    const RunConfig cpu = defaultShape(false);
    EXPECT_EQ(cpu.batch, 8);
    EXPECT_EQ(cpu.imageSize, 64);
    EXPECT_EQ(cpu.steps, 30);
    EXPECT_EQ(expand(defaultRecipe(cpu)).configs.back().runtime, Runtime::Native) << "no Python rows on a CPU";

    // A chosen compile mode replaces the preset's rows with Python eager and that mode; "none" none.
    SweepRecipe chosen = defaultRecipe(defaultShape(true));
    chosen.compile = CompileChoice{CompileMode::ReduceOverhead};
    const Sweep withMode = expand(chosen);
    ASSERT_EQ(withMode.configs.size(), 10u);
    EXPECT_EQ(withMode.configs[9].compile, CompileMode::ReduceOverhead);
    chosen.compile = CompileChoice{};
    EXPECT_EQ(expand(chosen).configs.size(), 8u);
}

TEST(SweepRecipe, RoundTripsThroughJsonWithEverySetting)
{
    SweepRecipe r;
    r.kind = SweepKind::Each;
    r.base = smallConfig(4);
    r.knobs = std::vector<std::string>{"bf16", "channels-last"};
    r.compile = CompileChoice{CompileMode::Default, CompileBackend::Inductor, CompileTarget::Step};
    r.devices = "cpu:0,cpu:1";
    r.settings.repeats = 3;
    r.settings.plannedSteps = 123456;
    r.settings.timeoutSeconds = 77;
    r.settings.starts = startStatesFromString("fresh,again");
    r.settings.machineWarmup = true;
    r.settings.adaptive = true;
    r.settings.adaptiveHalfWidth = 0.03;
    r.settings.adaptiveMaxProcesses = 7;
    r.settings.adaptiveMaxMinutes = 11;
    r.settings.profileSteps = 5;
    r.settings.batches = {2, 4};
    r.settings.worldSizes = {1};
    r.baseline = QString::fromStdString(canonicalName(baselineOf(r.base)));

    std::string error;
    const auto back = recipeFromJson(toJson(r), error);
    ASSERT_TRUE(back) << error;
    EXPECT_EQ(toJson(*back), toJson(r));
    SweepRequest a, b;
    ASSERT_TRUE(requestOf(r, a, error)) << error;
    ASSERT_TRUE(requestOf(*back, b, error)) << error;
    EXPECT_EQ(names(a.configs), names(b.configs));
    EXPECT_EQ(a.preset, QString("each"));
    EXPECT_EQ(b.repeats, 3);
    EXPECT_EQ(b.timeoutSeconds, 77);
    EXPECT_EQ(b.profileSteps, 5);
    EXPECT_EQ(b.machineWarmup, std::optional<bool>(true));
    EXPECT_TRUE(b.adaptive);
    EXPECT_DOUBLE_EQ(b.adaptiveHalfWidth, 0.03);
    EXPECT_EQ(b.adaptiveMaxProcesses, 7);
    EXPECT_EQ(b.adaptiveMaxMinutes, 11);
    EXPECT_EQ(b.batches, (std::vector<int>{2, 4}));
    EXPECT_EQ(b.plannedSteps, 123456);
    ASSERT_TRUE(b.starts);
    EXPECT_EQ(toString(*b.starts), "fresh,again");
    ASSERT_TRUE(b.baseline);
    EXPECT_EQ(*b.baseline, 0u);
    EXPECT_EQ(back->devices, QString("cpu:0,cpu:1"));
    EXPECT_FALSE(b.recipe.isEmpty()) << "the request carries its recipe to the store";
    // bf16 alone, channels-last alone, and compile (whole step) alone against the baseline.
    ASSERT_EQ(a.configs.size(), 4u);
    EXPECT_EQ(a.configs[3].compileTarget, CompileTarget::Step);
}

TEST(SweepRecipe, RefusesWhatThisVersionCannotRunByName)
{
    QJsonObject newer = toJson(defaultRecipe(defaultShape(false)));
    newer.insert("version", SweepRecipe::kVersion + 1);
    std::string error;
    EXPECT_FALSE(recipeFromJson(newer, error));
    EXPECT_NE(error.find("newer Stepscope"), std::string::npos) << error;

    QJsonObject kind = toJson(defaultRecipe(defaultShape(false)));
    kind.insert("kind", "fastest");
    EXPECT_FALSE(recipeFromJson(kind, error));
    EXPECT_NE(error.find("fastest"), std::string::npos) << error;

    SweepRecipe gone = defaultRecipe(defaultShape(false));
    gone.baseline = "native cpu b8 64px c1000 tf32";
    SweepRequest out;
    EXPECT_FALSE(requestOf(gone, out, error)) << "a baseline that is no row of the sweep";
    EXPECT_NE(error.find("not a configuration"), std::string::npos) << error;
}

// The preview both front-ends show before a sweep: its runs in every start state and their time.
TEST(SweepRecipe, PreviewCountsTheRunsAndTheirTimeAsTheServiceWillRunThem)
{
    SweepRequest r;
    RunConfig channelsLast = smallConfig(2);
    channelsLast.channelsLast = true;
    r.configs = {smallConfig(2), channelsLast};
    r.starts = startStatesFromString("fresh,again");
    r.repeats = 2;
    TimeLeft history;
    EXPECT_FALSE(preview(r, history).estimate) << "nothing to go by";
    for (const RunConfig &c : r.configs) {
        history.addHistory(runKey(c, store::StartState::Fresh), 10.0);
        history.addHistory(runKey(c, store::StartState::Again), 4.0);
    }
    const SweepPreview p = preview(r, history);
    EXPECT_EQ(p.configurations, 2);
    EXPECT_EQ(p.runs, 8) << "2 configurations x 2 repeats x 2 start states";
    EXPECT_TRUE(p.startsChosen);
    ASSERT_TRUE(p.estimate);
    EXPECT_DOUBLE_EQ(p.estimate->seconds, 2 * 2 * (10.0 + 4.0));
    EXPECT_FALSE(p.estimate->guess);
    r.batches = {2, 8};
    const SweepPreview scan = preview(r, history);
    EXPECT_EQ(scan.batchSizes, 2);
    EXPECT_EQ(scan.configurations, 4) << "each configuration at each batch";
    EXPECT_EQ(scan.runs, 16);
}

// Both front-ends' Run again read a stored sweep the same way: its recipe, else (before recipes)
// its configurations, repeats, start states, planned steps and baseline; an unreadable one refused.
TEST(SweepRecipe, AStoredSweepRunsAgainFromItsRecipeElseFromItsRecords)
{
    const RunConfig a = smallConfig(2), b = smallConfig(4);
    const auto json = [](const RunConfig &c) {
        return QJsonDocument(toJson(c)).toJson(QJsonDocument::Compact).toStdString();
    };
    store::SweepRecord old;
    old.id = 3;
    old.name = "ledger cpu b2 64px";
    old.plannedSteps = 5000;
    old.baselineConfig = canonicalName(b);
    old.settingsJson = R"({"repeats":3,"caches":"both"})";
    bool legacy = false;
    std::string error;
    const auto before = recipeToRunAgain(old, {json(a), json(b), json(a)}, legacy, error);
    ASSERT_TRUE(before) << error;
    EXPECT_TRUE(legacy);
    EXPECT_EQ(before->kind, SweepKind::Custom);
    EXPECT_EQ(names(before->list), names({a, b})) << "one row a configuration, in the sweep's order";
    EXPECT_EQ(before->settings.repeats, 3);
    ASSERT_TRUE(before->settings.starts);
    EXPECT_EQ(toString(*before->settings.starts), "fresh,again") << "the old word both";
    EXPECT_EQ(before->settings.plannedSteps, 5000);
    EXPECT_EQ(before->baseline, QString::fromStdString(canonicalName(b)));
    EXPECT_EQ(before->settings.name, QString("ledger cpu b2 64px (again)"));

    EXPECT_FALSE(recipeToRunAgain(old, {json(a), R"({"batch": 0})"}, legacy, error)) << "nothing dropped in silence";
    EXPECT_NE(error.find("does not read"), std::string::npos) << error;

    store::SweepRecord stored = old;
    stored.name = "ledger cpu b2 64px (again)";
    SweepRecipe recipe = defaultRecipe(defaultShape(false));
    recipe.settings.repeats = 2;
    stored.settingsJson = QJsonDocument(QJsonObject{{"repeats", 9}, {"recipe", toJson(recipe)}})
                              .toJson(QJsonDocument::Compact)
                              .toStdString();
    const auto again = recipeToRunAgain(stored, {}, legacy, error);
    ASSERT_TRUE(again) << error;
    EXPECT_FALSE(legacy);
    EXPECT_EQ(again->kind, SweepKind::Ledger);
    EXPECT_EQ(again->settings.repeats, 2) << "the recipe's, not the flat settings'";
    EXPECT_EQ(again->settings.name, QString("ledger cpu b2 64px (again)")) << "marked once";
}

} // namespace stepscope::supervisor
