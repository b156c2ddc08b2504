// The sweep service both front-ends adapt: one validation, one set of defaults, one plan, one typed
// event stream, whichever thread runs it.
#include "supervisor/event_text.h"
#include "supervisor/sweep_service.h"
#include "supervisor_fixture.h"

#include <QThread>

#include <set>
#include <utility>
#include <variant>

namespace stepscope::supervisor
{
namespace
{
using namespace test;

class SweepServiceTest : public SupervisorTest
{
  protected:
    SweepRequest request(int repeats = 1)
    {
        SweepRequest r;
        r.configs = {smallConfig(), smallConfig(4)};
        r.preset = "custom";
        r.repeats = repeats;
        r.plannedSteps = 6;
        return r;
    }

    // What an adapter sees of a sweep: the kind of every event but the progress ticks (whose count
    // depends on how the worker's lines were batched), with the run's config where it has one.
    static QString shape(const SweepEvent &e)
    {
        QString s = kindName(e);
        if (const auto *x = std::get_if<event::RunStarted>(&e))
            s += ' ' + x->config + QString(" %1/%2").arg(x->index + 1).arg(x->total);
        if (const auto *x = std::get_if<event::RunFinished>(&e))
            s += QString(" ") + QString::fromUtf8(toString(x->status).data());
        if (const auto *x = std::get_if<event::Provisional>(&e))
            s += ' ' + QString::fromUtf8(store::toString(x->start).data()) + ": " + describe(e);
        return s;
    }

    // Runs `sweep` on the service as the CLI does (this thread's event loop) or as the dashboard's
    // controller does (a thread of its own, events queued to this one); returns what arrived here.
    QStringList runOn(const PreparedSweep &sweep, bool ownThread)
    {
        QStringList seen;
        SweepService service(*db_);
        QThread thread;
        if (ownThread) {
            thread.start();
            service.moveToThread(&thread);
        }
        QEventLoop loop;
        std::set<qint64> started;
        QObject::connect(&service, &SweepService::sweepEvent, &loop, [&](const SweepEvent &e) {
            if (const auto *x = std::get_if<event::RunStarted>(&e))
                started.insert(x->runId);
            // A tick of steps names its run: with lanes, the dashboard's status line is each lane's.
            if (const auto *x = std::get_if<event::Progress>(&e); x && x->step > 0) {
                EXPECT_EQ(started.count(x->runId), 1u) << "step " << x->step << " of run " << x->runId;
            }
            if (!std::holds_alternative<event::Progress>(e) && !std::holds_alternative<event::Log>(e))
                seen << shape(e);
            if (std::holds_alternative<event::Finished>(e))
                loop.quit();
        });
        QTimer guard;
        guard.setSingleShot(true);
        QObject::connect(&guard, &QTimer::timeout, &loop, [&] {
            ADD_FAILURE() << "the sweep did not finish";
            loop.quit();
        });
        guard.start(8000);
        QMetaObject::invokeMethod(
            &service, [&] { service.start(sweep); }, Qt::QueuedConnection);
        loop.exec();
        if (ownThread) {
            QMetaObject::invokeMethod(
                &service, [&] { service.moveToThread(QCoreApplication::instance()->thread()); },
                Qt::BlockingQueuedConnection);
            thread.quit();
            thread.wait();
        }
        return seen;
    }
};

TEST_F(SweepServiceTest, BothAdaptersSeeTheSameEventsForARecordedStream)
{
    const RunnerOptions workers = options(recorded("worker-ok.jsonl"));
    std::vector<ConfigError> errors;
    SweepRequest r = request();
    r.machineWarmup = true; // the warm-up's events are part of the sequence
    const auto inLoop = SweepService::prepare(*db_, r, errors, workers);
    const auto inThread = SweepService::prepare(*db_, r, errors, workers);
    ASSERT_TRUE(inLoop && inThread) << describe(errors);
    ASSERT_NE(inLoop->plan.sweepId, inThread->plan.sweepId);

    const QStringList cli = runOn(*inLoop, false);
    const QStringList dashboard = runOn(*inThread, true);
    EXPECT_EQ(cli, dashboard) << cli.join(" | ").toStdString() << "\n" << dashboard.join(" | ").toStdString();
    // And the sequence is the one a sweep has: the warm-up first, then each run from start to end.
    const QString first = QString::fromStdString(canonicalName(smallConfig()));
    const QString second = QString::fromStdString(canonicalName(smallConfig(4)));
    ASSERT_GE(cli.size(), 6);
    EXPECT_EQ(cli[1], "warmup-started") << "before the first run's worker, after it was announced";
    EXPECT_EQ(cli.filter("run-started"),
              QStringList({"run-started " + first + " 1/2", "run-started " + second + " 2/2"}));
    EXPECT_EQ(cli.filter("run-finished"), QStringList({"run-finished complete", "run-finished complete"}));
    EXPECT_EQ(cli.back(), "finished");
}

// Issue 28.3: once every configuration's fresh run has ended, a verdict for a fresh machine is said,
// as provisional, with what is still to come; none for the last state (the final ledger follows).
TEST_F(SweepServiceTest, AProvisionalVerdictFollowsTheFreshPass)
{
    std::vector<ConfigError> errors;
    SweepRequest r = request();
    r.starts = startStatesFromString("fresh,again");
    const auto sweep = SweepService::prepare(*db_, r, errors, options(recorded("worker-ok.jsonl")));
    ASSERT_TRUE(sweep) << describe(errors);
    ASSERT_EQ(sweep->plan.runs.size(), 4u);
    const QStringList seen = runOn(*sweep, false);
    const QStringList provisional = seen.filter("provisional ");
    ASSERT_EQ(provisional.size(), 1) << seen.join(" | ").toStdString();
    const QString &p = provisional.front();
    EXPECT_TRUE(p.startsWith("provisional fresh: every configuration's fresh run has ended")) << p.toStdString();
    EXPECT_TRUE(p.contains("provisional: 2 of 4 runs done, again runs to come")) << p.toStdString();
    EXPECT_TRUE(p.contains("for a fresh machine: ")) << p.toStdString();
    // Said after the second run ended and before the third started.
    const auto at = seen.indexOf(p);
    EXPECT_EQ(seen.mid(0, at).filter("run-finished").size(), 2);
    EXPECT_EQ(seen.mid(0, at).filter("run-started").size(), 2);
}

// Every limit and default lives in the service's table: a request outside it is refused with the
// option's name and the range, and nothing is written.
TEST_F(SweepServiceTest, ARequestOutsideTheTableIsRefusedBeforeAnythingIsPlanned)
{
    SweepRequest r = request();
    r.repeats = 101;
    r.timeoutSeconds = 0;
    r.adaptive = true;
    r.adaptiveHalfWidth = 0;
    r.configs.push_back(smallConfig());
    r.configs.back().batch = 0;
    std::vector<ConfigError> errors;
    EXPECT_FALSE(SweepService::prepare(*db_, r, errors, options(recorded("worker-ok.jsonl"))));
    const std::string text = describe(errors);
    EXPECT_TRUE(contains(text, "repeat: '101' is not allowed; give a whole number from 1 to 100")) << text;
    EXPECT_TRUE(contains(text, "timeout: '0' is not allowed")) << text;
    EXPECT_TRUE(contains(text, "until-ci: '0' is not allowed; give a number above 0 and up to 50")) << text;
    EXPECT_TRUE(contains(text, "batch")) << text;
    EXPECT_TRUE(reader()->sweeps().empty()) << "a refused request plans nothing";

    SweepRequest none;
    EXPECT_FALSE(SweepService::prepare(*db_, none, errors));
    EXPECT_TRUE(contains(describe(errors), "the sweep has no configuration")) << describe(errors);
}

// The defaults that drifted between the two front-ends are decided once: adaptive sweeps start with
// two processes of each configuration, no sweep gets the warm-up process unless asked, and CUDA
// sweeps run cold and warm.
TEST_F(SweepServiceTest, DefaultsAreTheServicesWhoeverAsks)
{
    SweepRequest r = request();
    r.adaptive = true;
    std::vector<ConfigError> errors;
    auto p = SweepService::prepare(*db_, r, errors, options(recorded("worker-ok.jsonl")));
    ASSERT_TRUE(p) << describe(errors);
    EXPECT_EQ(p->request.repeats, 2);
    EXPECT_EQ(p->plan.runs.size(), 4u);
    EXPECT_FALSE(p->options.machineWarmup) << "a custom list runs as given";
    EXPECT_TRUE(p->options.adaptive.enabled);
    EXPECT_EQ(p->request.name, "custom cpu b8 64px");

    r = request();
    r.preset = "ledger";
    p = SweepService::prepare(*db_, r, errors, options(recorded("worker-ok.jsonl")));
    ASSERT_TRUE(p);
    EXPECT_FALSE(p->options.machineWarmup) << "every run has caches of its own: no warm-up process unless asked";
    EXPECT_EQ(p->options.timeoutSeconds, static_cast<int>(kTimeoutLimit.defaultValue));
    EXPECT_TRUE(p->request.starts == defaultStartStates(false)) << "a CPU sweep runs fresh";
    EXPECT_EQ(toString(*p->request.starts), "fresh");
    for (const PlannedRun &run : p->plan.runs)
        EXPECT_EQ(run.caches, store::StartState::Fresh);

    // A CUDA sweep runs every configuration fresh and again, a round of each per repeat, and shipped
    // only for compiled rows (none here).
    r = request();
    for (RunConfig &c : r.configs)
        c.device = "cuda";
    p = SweepService::prepare(*db_, r, errors, options(recorded("worker-ok.jsonl")));
    ASSERT_TRUE(p) << describe(errors);
    EXPECT_EQ(toString(*p->request.starts), "fresh,again,shipped-compiled");
    ASSERT_EQ(p->plan.runs.size(), 2 * r.configs.size());
    for (std::size_t i = 0; i < p->plan.runs.size(); ++i) {
        EXPECT_EQ(p->plan.runs[i].caches, i < r.configs.size() ? store::StartState::Fresh : store::StartState::Again);
        EXPECT_TRUE(p->plan.runs[i].config == r.configs[i % r.configs.size()]);
    }
    const auto stored = store::Reader::open(db_->path())->runs(p->plan.sweepId);
    ASSERT_EQ(stored.size(), p->plan.runs.size());
    EXPECT_EQ(stored.back().caches, store::StartState::Again) << "the state is planned with the run";
}

TEST(SweepLimits, RangesAndHintsComeFromTheTable)
{
    EXPECT_TRUE(withinLimit(kRepeatLimit, 100));
    EXPECT_FALSE(withinLimit(kRepeatLimit, 100.5));
    EXPECT_FALSE(withinLimit(kUntilCiLimit, 0));
    EXPECT_TRUE(withinLimit(kUntilCiLimit, 0.5));
    EXPECT_FALSE(withinLimit(kTimeoutLimit, 7 * 24 * 3600 + 1));
    EXPECT_EQ(limitRange(kRepeatLimit), "from 1 to 100, default 1");
    EXPECT_EQ(limitRange(kMaxMinutesLimit), "from 0 to 1000, default none");
    // The runner's own cap is the table's.
    EXPECT_EQ(kTimeoutLimit.max, kMaxTimeoutSeconds);
}

} // namespace
// Calls `f` with a default-made event of every kind the variant holds.
template <class F, std::size_t... I> void forEachKindOf(F &&f, std::index_sequence<I...>)
{
    (f(SweepEvent(std::in_place_index<I>)), ...);
}
template <class F> void forEachKind(F &&f)
{
    forEachKindOf(f, std::make_index_sequence<std::variant_size_v<SweepEvent>>{});
}

// Issue 29.4: every stage that is no timed run is an event with its facts, worded once in core for
// the CLI and the Log page; the steps and the run's start and end have their own places instead.
TEST(SweepEventText, EveryStageIsWordedOnceWithItsFacts)
{
    const QString retired = describe(event::LaneRetired{
        "cuda:1", "native cuda b32 224px c1000 tf32", Failure{FailureCategory::CudaUnavailable, "the device has gone", {}}});
    EXPECT_TRUE(retired.startsWith("lane cuda:1 retired: its run of native cuda b32 224px c1000 tf32 failed "
                                   "[cuda-unavailable] the device has gone"))
        << retired.toStdString();
    EXPECT_EQ(describe(event::RunRequeued{"native cuda b32 224px c1000 tf32"}),
              QString("queued again for another lane: native cuda b32 224px c1000 tf32"));
    event::PrimingStarted priming{7, "python cuda b32 224px c1000 compile-default", store::StartState::Shipped, {"cuda:1", 1}};
    EXPECT_EQ(describe(priming),
              QString("priming the shipped bundle for python cuda b32 224px c1000 compile-default on cuda:1 "
                      "(one step of it, not stored)"));
    priming.start = store::StartState::Again;
    EXPECT_TRUE(describe(priming).startsWith("priming the caches of the again start")) << describe(priming).toStdString();
    EXPECT_EQ(describe(event::AdaptiveRunAdded{"x", 3, 0.05, 0.02}),
              QString("adaptive repeats: one more process of x (3 processes, 95% CI +-5.0% of the median, above +-2.0%)"));
    EXPECT_EQ(describe(event::AdaptiveRunAdded{"x", 1, -1, 0.02}),
              QString("adaptive repeats: one more process of x (1 process(es) with a steady state: no interval yet)"));
    event::MaxBatchTryAdded tryAdded;
    tryAdded.search = "native cuda 224px c1000 bf16";
    tryAdded.soFar = "fits 64; nothing larger ran out of memory; next try: batch 128";
    EXPECT_EQ(describe(tryAdded), QString("largest batch of native cuda 224px c1000 bf16: fits 64; nothing larger ran "
                                          "out of memory; next try: batch 128"));
    // The reports are facts first: the words are made from the fields, not carried.
    event::TimeLeftReport report;
    report.predictions = {{100, 80, false}, {60, 50, true}, {33, 30, false}};
    report.medianError = 0.2;
    report.worstError = 0.25;
    EXPECT_EQ(describe(report), QString("time left, predicted at 3 run starts against the time the rest took: median "
                                        "error 20%, worst 25% (100 s for 80 s, 60 s for 50 s (guess), 33 s for 30 s)"));
    event::Provisional provisional{store::StartState::Fresh, "2 of 3 rows", "", "the baseline failed"};
    EXPECT_TRUE(describe(provisional).startsWith("every configuration's fresh run has ended (2 of 3 rows); for "))
        << describe(provisional).toStdString();
    EXPECT_TRUE(describe(provisional).endsWith(": no recommendation yet (the baseline failed)"))
        << describe(provisional).toStdString();
    provisional.headline = "Use tf32 (fresh)";
    EXPECT_TRUE(describe(provisional).endsWith(": Use tf32 (fresh)")) << describe(provisional).toStdString();

    // Every kind has a name, and every kind a front-end shows only in words has words; the others
    // are shown in their own places (steps, progress, a run's start and end).
    int said = 0;
    std::set<std::string> names;
    forEachKind([&](const SweepEvent &any) {
        names.insert(kindName(any));
        if (isSaidInWords(any)) {
            ++said;
            EXPECT_FALSE(describe(any).isEmpty()) << kindName(any);
        } else if (!std::holds_alternative<event::Log>(any) && !std::holds_alternative<event::StorageFailed>(any)) {
            EXPECT_TRUE(describe(any).isEmpty()) << kindName(any) << ": shown in its own place";
        }
    });
    EXPECT_EQ(said, 10);
    EXPECT_EQ(names.size(), std::variant_size_v<SweepEvent>);
}

} // namespace stepscope::supervisor
