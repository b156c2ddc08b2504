// A max-batch sweep (issue 31.3) through the sweep service and runner, against the fake worker's
// out-of-memory boundary: each configuration's answer within 5% in at most 8 tries, every try a stored
// run, another failure stopping its search in its own words, and the request's refusals.
#include "supervisor/max_batch_export.h"
#include "supervisor/max_batch_sweep.h"
#include "supervisor/sweep_recipe.h"
#include "supervisor/sweep_service.h"
#include "supervisor_fixture.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

#include <cmath>

namespace stepscope::supervisor
{
namespace
{
using namespace test;
using Stop = report::MaxBatchState::Stop;

class MaxBatchSweepTest : public SupervisorTest
{
  protected:
    static RunConfig gpuConfig(int batch, bool tf32 = false)
    {
        RunConfig c = smallConfig(batch);
        c.device = "cuda"; // the fake worker runs it anywhere; a CPU search would need a memory limit
        c.tf32 = tf32;
        return c;
    }

    std::optional<PreparedSweep> prepared(const SweepRequest &r, const WorkerCommand &worker)
    {
        std::vector<ConfigError> errors;
        auto p = SweepService::prepare(*db_, r, errors, options(worker));
        EXPECT_TRUE(p) << describe(errors);
        return p;
    }
};

TEST_F(MaxBatchSweepTest, FindsEachConfigurationsFakeBoundaryWithin5PercentInAtMost8Tries)
{
    // A step of 1500 + 30 * batch MiB on a GPU of 80,000 MiB: 2616 fits, 2617 does not.
    const int answer = (80000 - 1500) / 30;
    SweepRequest r;
    r.configs = {gpuConfig(32), gpuConfig(3000, true)}; // one starts far below, one above
    r.preset = "custom";
    r.maxBatch = true;
    const auto sweep = prepared(r, fakeWorker({"--memory-boundary", "1500", "30", "80000"}));
    ASSERT_TRUE(sweep);
    ASSERT_EQ(sweep->plan.runs.size(), 2u);
    EXPECT_EQ(sweep->plan.runs[0].config.steps, kMaxBatchTrySteps);
    EXPECT_EQ(sweep->plan.runs[0].config.warmupSteps, 0);
    EXPECT_EQ(sweep->options.profileSteps, 0);

    const Outcome out = run(sweep->plan, sweep->options, {}, 30000);
    ASSERT_EQ(out.finishedCount, 1);
    EXPECT_FALSE(out.cancelled);
    EXPECT_FALSE(out.log.filter("largest batch of ").isEmpty()) << out.log.join("\n").toStdString();

    const auto r2 = reader();
    const auto searches = maxBatchSearches(*r2, sweep->plan.sweepId);
    ASSERT_EQ(searches.size(), 2u);
    std::size_t tries = 0;
    for (const MaxBatchSearch &s : searches) {
        const report::MaxBatchState &st = s.state;
        ASSERT_EQ(st.stop, Stop::Narrowed) << s.label << ": " << report::maxBatchSentence(st);
        EXPECT_LE(st.tries, 8) << s.label;
        EXPECT_LE(*st.fits, answer);
        EXPECT_GE(*st.fits * 1.05, answer);
        EXPECT_GT(*st.fails, answer);
        EXPECT_LE(*st.fails, std::ceil(*st.fits * 1.05));
        ASSERT_TRUE(st.peakAtAnswer);
        EXPECT_DOUBLE_EQ(*st.peakAtAnswer / (1024.0 * 1024.0), 1500 + 30.0 * *st.fits);
        EXPECT_EQ(s.limitText, "cuda's 80,000 MiB");
        EXPECT_FALSE(s.pending);
        tries += s.tries.size();
    }
    EXPECT_EQ(searches[0].startBatch, 32);
    EXPECT_EQ(searches[1].startBatch, 3000);
    EXPECT_EQ(searches[1].tries.front().result, report::MaxBatchTry::Result::OutOfMemory);

    // Every try is a run of the sweep, kept: a fit complete, an out-of-memory failed as such.
    const auto runs = r2->runs(sweep->plan.sweepId);
    EXPECT_EQ(runs.size(), tries);
    for (const store::RunRecord &run : runs)
        EXPECT_TRUE(run.status == RunStatus::Complete ||
                    (run.status == RunStatus::Failed && run.category == FailureCategory::OutOfMemory))
            << run.configName << ": " << run.message;
    const auto stored = r2->sweep(sweep->plan.sweepId);
    ASSERT_TRUE(stored);
    EXPECT_TRUE(isMaxBatchSweep(*stored));

    const std::string md = maxBatchMarkdown(searches);
    EXPECT_TRUE(contains(md, "## Largest batch that fits")) << md;
    EXPECT_TRUE(contains(md, "| " + searches[0].label + " | " + std::to_string(*searches[0].state.fits) + " | " +
                                 std::to_string(*searches[0].state.fails) + " (+"))
        << md;

    // The export of the same searches (max_batch_export.h): one CSV row and one JSON object each, with
    // the answer, its check and the peak the Markdown gives.
    const std::string csv = maxBatchCsv(searches);
    const QStringList lines = QString::fromStdString(csv).trimmed().split('\n');
    ASSERT_EQ(lines.size(), 3) << csv;
    EXPECT_TRUE(lines[0].startsWith("configuration,start_batch,largest_fits,smallest_out_of_memory,")) << csv;
    const QStringList first = lines[1].split(',');
    ASSERT_GE(first.size(), 13) << csv;
    EXPECT_EQ(first[2].toInt(), *searches[0].state.fits);
    EXPECT_EQ(first[3].toInt(), *searches[0].state.fails);
    EXPECT_EQ(first[5], "1");
    EXPECT_EQ(first[6], "narrowed");
    EXPECT_NEAR(first[7].toDouble(), 1500 + 30.0 * *searches[0].state.fits, 0.05);
    EXPECT_NEAR(first[4].toDouble(), (double(*searches[0].state.fails) / *searches[0].state.fits - 1) * 100, 0.01);

    const QJsonObject json = QJsonDocument::fromJson(QByteArray::fromStdString(maxBatchJson(searches))).object();
    const QJsonArray rows = json.value("searches").toArray();
    ASSERT_EQ(rows.size(), 2);
    EXPECT_EQ(json.value("max_batch").toObject().value("tries_cap").toInt(), 8);
    const QJsonObject second = rows[1].toObject();
    EXPECT_EQ(second.value("start_batch").toInt(), 3000);
    EXPECT_EQ(second.value("largest_fits").toInt(), *searches[1].state.fits);
    EXPECT_EQ(second.value("stop").toString(), "narrowed");
    const QJsonArray triesMade = second.value("tries").toArray();
    ASSERT_EQ(triesMade.size(), static_cast<qsizetype>(searches[1].tries.size()));
    EXPECT_EQ(triesMade[0].toObject().value("result").toString(), "out-of-memory");
    EXPECT_TRUE(triesMade[0].toObject().value("peak_reserved_mib").isNull());
    EXPECT_EQ(triesMade[0].toObject().value("run_id").toInteger(), searches[1].runIds[0]);
}

TEST_F(MaxBatchSweepTest, AnotherFailureStopsTheSearchInItsOwnWords)
{
    SweepRequest r;
    r.configs = {gpuConfig(16)};
    r.preset = "custom";
    r.maxBatch = true;
    const auto sweep = prepared(r, recorded("worker-compile-failed.jsonl", 1));
    ASSERT_TRUE(sweep);
    const Outcome out = run(sweep->plan, sweep->options);
    ASSERT_EQ(out.finishedCount, 1);
    const auto searches = maxBatchSearches(*reader(), sweep->plan.sweepId);
    ASSERT_EQ(searches.size(), 1u);
    const report::MaxBatchState &st = searches[0].state;
    EXPECT_EQ(st.stop, Stop::Failed);
    EXPECT_EQ(st.tries, 1); // no try after it
    EXPECT_FALSE(st.fits);
    EXPECT_FALSE(st.fails); // never called out of memory
    EXPECT_TRUE(contains(report::maxBatchSentence(st), "stopped: batch 16 failed, not out of memory (compile-failed: "))
        << report::maxBatchSentence(st);
    EXPECT_TRUE(contains(maxBatchMarkdown(searches), "stopped: batch 16 failed"));
}

// The search feeds a batch scan (--fits-from): a configuration leaves out the batches at or above the
// smallest its search saw run out of memory, one the search did not cover runs at every batch, and a
// scan whose first batch would lose a configuration is refused with what to do.
TEST_F(MaxBatchSweepTest, ASearchBoundsABatchScan)
{
    SweepRequest search;
    search.configs = {gpuConfig(32)};
    search.preset = "custom";
    search.maxBatch = true;
    const auto worker = fakeWorker({"--memory-boundary", "1500", "30", "80000"});
    const auto searched = prepared(search, worker);
    ASSERT_TRUE(searched);
    ASSERT_EQ(run(searched->plan, searched->options, {}, 30000).finishedCount, 1);
    const auto states = maxBatchSearches(*reader(), searched->plan.sweepId);
    ASSERT_EQ(states.size(), 1u);
    ASSERT_TRUE(states[0].state.fails);
    const int fails = *states[0].state.fails;

    SweepRequest scan;
    scan.configs = {gpuConfig(32), gpuConfig(32, true)}; // the tf32 row was not searched
    scan.preset = "custom";
    scan.batches = {32, 2000, 4000};
    scan.starts = StartStates{}; // fresh alone: one run a configuration and batch
    scan.fitsFrom = searched->plan.sweepId;
    const auto bounded = prepared(scan, worker);
    ASSERT_TRUE(bounded);
    std::vector<std::pair<bool, int>> planned; // (tf32, batch)
    for (const auto &r : bounded->plan.runs)
        planned.emplace_back(r.config.tf32, r.config.batch);
    const std::vector<std::pair<bool, int>> expected{{false, 32}, {true, 32}, {false, 2000}, {true, 2000}, {true, 4000}};
    EXPECT_EQ(planned, expected) << "4000 is above " << fails << ", where the search ran out of memory";
    const std::string note = bounded->fitsNote.toStdString();
    EXPECT_TRUE(contains(note, "at batch 4000")) << note;
    EXPECT_TRUE(contains(note, "no search of")) << note;
    const auto stored = reader()->sweep(bounded->plan.sweepId);
    ASSERT_TRUE(stored);
    EXPECT_TRUE(contains(stored->settingsJson, "\"fits_from\"")) << stored->settingsJson;

    std::vector<ConfigError> errors;
    scan.batches = {4000, 8};
    EXPECT_FALSE(SweepService::prepare(*db_, scan, errors, options(worker)));
    ASSERT_FALSE(errors.empty());
    EXPECT_TRUE(contains(errors.front().message, "start the scan at a batch every configuration fits"))
        << errors.front().message;
    scan.batches = {32, 64};
    scan.fitsFrom = bounded->plan.sweepId; // a batch scan, not a search
    errors.clear();
    EXPECT_FALSE(SweepService::prepare(*db_, scan, errors, options(worker)));
    ASSERT_FALSE(errors.empty());
    EXPECT_TRUE(contains(errors.front().message, "is not a largest-batch search")) << errors.front().message;
    scan.batches.clear();
    scan.fitsFrom = searched->plan.sweepId;
    errors.clear();
    EXPECT_FALSE(SweepService::prepare(*db_, scan, errors, options(worker)));
    ASSERT_FALSE(errors.empty());
    EXPECT_TRUE(contains(errors.front().message, "give a list of batches too")) << errors.front().message;
}

// A compiled try's compile is left out of the seconds the cap counts (30 s a try for reduce-overhead
// on an H100 filled 2 minutes in four tries); a try without a compile counts its whole wall time.
TEST(MaxBatchTryOf, ACompilesOwnSecondsStandAsideFromTheCap)
{
    store::RunRecord run;
    run.status = RunStatus::Complete;
    run.started = "2026-12-06T09:00:00.000Z";
    run.finished = "2026-12-06T09:00:32.500Z";
    run.peakAllocatedBytes = 3083LL << 20;
    run.peakReservedBytes = 4628LL << 20;
    run.compileJson = R"({"mode": "reduce-overhead", "compile_s": 29.0})";
    const report::MaxBatchTry compiled = maxBatchTryOf(run, 275);
    EXPECT_EQ(compiled.batch, 275);
    EXPECT_EQ(compiled.result, report::MaxBatchTry::Result::Fits);
    EXPECT_NEAR(compiled.seconds, 3.5, 1e-6);
    EXPECT_NEAR(*compiled.allocatedBytes, 3083.0 * 1048576, 1);
    EXPECT_NEAR(*compiled.peakBytes, 4628.0 * 1048576, 1);

    run.compileJson.clear();
    EXPECT_NEAR(maxBatchTryOf(run, 275).seconds, 32.5, 1e-6);
}

TEST_F(MaxBatchSweepTest, RequestsItCannotRunAreRefusedWithWhatToDo)
{
    SweepRequest r;
    r.configs = {smallConfig(8)}; // the CPU, no memory limit
    r.maxBatch = true;
    r.batches = {8, 16};
    r.repeats = 2;
    std::string all;
    for (const ConfigError &e : validate(r))
        all += e.field + ": " + e.message + "\n";
    EXPECT_TRUE(contains(all, "max-batch: the search starts at each configuration's own batch")) << all;
    EXPECT_TRUE(contains(all, "runs on the CPU: give --memory-limit-mib")) << all;

    SweepRequest fine;
    RunConfig limited = smallConfig(8);
    limited.memoryLimitMib = 2048;
    fine.configs = {limited};
    fine.maxBatch = true;
    EXPECT_TRUE(validate(fine).empty());
    const SweepRequest defaults = withDefaults(fine);
    EXPECT_EQ(defaults.configs[0].steps, kMaxBatchTrySteps);
    EXPECT_TRUE(defaults.name.startsWith("max batch: ")) << defaults.name.toStdString();
    EXPECT_TRUE(*defaults.starts == StartStates{});
    // Stored with the sweep, the recipe runs it again as a search.
    SweepRecipe recipe;
    recipe.kind = SweepKind::Single;
    recipe.base = limited;
    recipe.settings.maxBatch = true;
    std::string why;
    const auto back = recipeFromJson(toJson(recipe), why);
    ASSERT_TRUE(back) << why;
    EXPECT_TRUE(back->settings.maxBatch);
    EXPECT_EQ(back->base.memoryLimitMib, 2048);
    // The panel's repeats and start states are the search's to set: one fresh process a try.
    fine.repeats = 3;
    fine.starts = startStatesFromString("fresh,again");
    EXPECT_TRUE(validate(fine).empty());
    EXPECT_EQ(withDefaults(fine).repeats, 1);
    EXPECT_TRUE(*withDefaults(fine).starts == StartStates{});
}

} // namespace
} // namespace stepscope::supervisor
