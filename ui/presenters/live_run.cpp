#include "presenters/live_run.h"

#include "common/failure.h"
#include "controller/query_job.h"
#include "controller/run_controller.h"
#include "models/phase_text.h"
#include "models/run_detail.h"
#include "models/time_left_text.h"
#include "report/ledger.h"
#include "report/run_summary.h"
#include "report/sweep_status.h"
#include "supervisor/event_text.h"

#include <QCoreApplication>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <utility>

namespace stepscope::ui
{
namespace
{

// The controller's signals arrive on the UI thread; one reached from elsewhere is a wiring bug.
void assertUiThread()
{
    Q_ASSERT(QThread::currentThread() == qApp->thread());
}

} // namespace

std::optional<ShadedSteps> steadyShading(const QVector<double> &stepsFromOne, std::optional<RunStatus> ended)
{
    if (ended && *ended != RunStatus::Complete)
        return std::nullopt; // only a completed run is summarized (supervisor/run_recorder.h)
    if (stepsFromOne.size() < 2)
        return std::nullopt;
    // Step 1 is the first-step figure, never part of the steady state.
    const auto window = report::steadyWindowOf({std::vector<double>(stepsFromOne.begin() + 1, stepsFromOne.end())});
    if (!window.found)
        return std::nullopt;
    return ShadedSteps{static_cast<int>(window.first), static_cast<int>(window.first + window.count - 1)};
}

LiveRun::LiveRun(RunController *controller, QueryJob *query, QObject *parent)
    : QObject(parent), controller_(controller), query_(query), drain_(new QTimer(this))
{
    drain_->setInterval(33); // ~30 Hz: smooth to the eye, cheap for the UI thread
    connect(drain_, &QTimer::timeout, this, &LiveRun::drain);
    connect(controller_, &RunController::sweepStarted, this, [this](qint64 sweepId, int runs) {
        assertUiThread();
        runTotal_ = runs;
        runsComplete_ = 0;
        lanes_.clear();
        Q_EMIT sweepBegan(sweepId);
        Q_EMIT logLine(tr("Sweep %1 started: %n run(s)", nullptr, runs).arg(sweepId));
        drain_->start();
    });
    connect(controller_, &RunController::sweepEvent, this, &LiveRun::onEvent);
    connect(query_, &QueryJob::runStepsReady, this, &LiveRun::showSteps);
}

void LiveRun::onEvent(const supervisor::SweepEvent &e)
{
    using namespace supervisor::event;
    std::visit(supervisor::Overloaded{
                   [this](const RunStarted &x) { onRunStarted(x); },
                   [this](const Progress &x) { onProgress(x); },
                   [this](const RunFinished &x) { onRunFinished(x); },
                   [this](const Phase &x) { onPhase(x); },
                   [this](const CompileInfo &x) { onCompileInfo(x); },
                   [this](const Finished &x) { onFinished(x); },
                   [this](const Log &x) { Q_EMIT logLine(x.line); },
                   // The stages and reports in the words the CLI prints (supervisor/event_text.h); a
                   // provisional verdict is the ledger page's headline too.
                   [this, &e](const auto &) {
                       if (supervisor::isSaidInWords(e))
                           Q_EMIT logLine(supervisor::describe(e));
                   },
               },
               e);
}

void LiveRun::onProgress(const supervisor::event::Progress &e)
{
    if (LaneRun *run = laneOfRun(e.runId)) {
        run->step = e.step;
        run->steps = e.steps;
    }
    Q_EMIT progressed(e.sweepFraction, progressText(e));
}

QString LiveRun::progressText(const supervisor::event::Progress &e) const
{
    const QString sweep = tr("sweep %1% · %2")
                              .arg(static_cast<int>(e.sweepFraction * 100))
                              .arg(timeLeftText(e.left.seconds, e.left.guess));
    // Runs of one sweep share the start of their names ("native cpu b2 32px c1000 "): each lane says
    // what sets its run apart, its end, kept whole where a long name is cut.
    std::vector<QStringList> names;
    for (const LaneRun &run : lanes_)
        if (run.running && run.lane >= 0)
            names.push_back(run.config.split(QLatin1Char(' ')));
    int shared = 0; // words every name starts with, and none ends with
    const auto sharesWord = [&](const QStringList &n) {
        return shared + 1 < n.size() && n[shared] == names.front()[shared];
    };
    while (names.size() > 1 && std::all_of(names.begin(), names.end(), sharesWord))
        ++shared;
    QStringList lanes;
    for (const LaneRun &run : lanes_) {
        if (run.lane < 0)
            return tr("Run %1 of %2: %3% · %4")
                .arg(run.index + 1)
                .arg(runTotal_)
                .arg(static_cast<int>(e.runFraction * 100))
                .arg(sweep);
        if (!run.running)
            continue;
        // Compact, so that four lanes fit a 1280 px window.
        QString config = run.config.split(QLatin1Char(' ')).mid(shared).join(QLatin1Char(' '));
        if (config.size() > 24)
            config = QChar(0x2026) + config.right(23);
        lanes << tr("%1 run %2/%3 %4 step %5/%6")
                     .arg(run.label)
                     .arg(run.index + 1)
                     .arg(runTotal_)
                     .arg(config)
                     .arg(run.step)
                     .arg(run.steps);
    }
    if (lanes.isEmpty())
        return tr("Run %1 of %2 · %3").arg(e.runsDone + 1).arg(runTotal_).arg(sweep);
    const QString each = lanes.join(QStringLiteral(" · "));
    return (lanes.size() == 1 ? tr("1 lane: %1 · %2").arg(each, sweep)
                              : tr("%1 lanes: %2 · %3").arg(lanes.size()).arg(each, sweep));
}

void LiveRun::onRunStarted(const supervisor::event::RunStarted &e)
{
    assertUiThread();
    const int lane = e.lane.index;
    const QString run = tr("%1 (run %2 of %3)").arg(e.config).arg(e.index + 1).arg(e.total);
    const bool firstLane = std::none_of(lanes_.begin(), lanes_.end(), [](const LaneRun &r) { return r.lane >= 0; });
    auto it = std::find_if(lanes_.begin(), lanes_.end(), [lane](const LaneRun &r) { return r.lane == lane; });
    if (it == lanes_.end())
        it = lanes_.insert(lanes_.end(), LaneRun{});
    LaneRun &r = *it;
    // The lane's previous run was drained when it finished; switch first, then drain, so that steps
    // of this run already in the buffer (step 1 among them) are kept.
    clearPhase(r);
    r = LaneRun{};
    r.lane = lane;
    r.label = e.lane.label;
    r.runId = e.runId;
    r.config = e.config;
    r.index = e.index;
    r.running = true;
    runTotal_ = e.total;
    if (lane < 0) {
        Q_EMIT runShown(run);
    } else {
        if (firstLane) // the chart lets go of what an earlier sweep or a stored run left
            Q_EMIT runShown(tr("Steps of each lane's run"));
        Q_EMIT laneRunShown(lane, e.lane.label, run);
    }
    drain();
    Q_EMIT runBegan();
    Q_EMIT logLine(lane < 0 ? tr("[%1/%2] %3").arg(e.index + 1).arg(e.total).arg(e.config)
                            : tr("[%1/%2] %3 on %4").arg(e.index + 1).arg(e.total).arg(e.config, e.lane.label));
}

LiveRun::LaneRun *LiveRun::laneOfRun(qint64 runId)
{
    for (LaneRun &r : lanes_)
        if (r.runId == runId && runId != 0)
            return &r;
    return nullptr;
}

QString LiveRun::laneLabel(int lane) const
{
    for (const LaneRun &r : lanes_)
        if (r.lane == lane)
            return r.label;
    return {};
}

void LiveRun::onRunFinished(const supervisor::event::RunFinished &e)
{
    assertUiThread();
    const qint64 runId = e.runId;
    const RunStatus runStatus = e.status;
    const std::optional<Failure> &failure = e.failure;
    drain();
    if (LaneRun *run = laneOfRun(runId)) {
        clearPhase(*run);
        run->running = false;
        // The run's reading is taken now, from all of its steps: the chart ends on what the ledger
        // will say (drain() may have left a window of an earlier, shorter series), and a run that
        // failed or was stopped ends unshaded.
        shadeSteadyWindow(*run, runStatus);
    }
    const QString message = failure ? QString::fromStdString(failure->message) : QString();
    runsComplete_ += runStatus == RunStatus::Complete ? 1 : 0;
    if (runStatus == RunStatus::Cancelled) {
        // A Stop ends the whole sweep: this run is cancelled, not failed, and what it recorded is
        // kept.
        Q_EMIT logLine(tr("run %1 cancelled: %2").arg(runId).arg(message));
        Q_EMIT this->message(
            tr("Run %1 cancelled (%2): the sweep stops; its recorded steps and finished runs are kept.")
                .arg(runId)
                .arg(message),
            10000);
    } else if (failure) {
        const QString category = QString::fromUtf8(toString(failure->category).data());
        Q_EMIT logLine(tr("run %1 %2 [%3]: %4\n  fix: %5")
                           .arg(runId)
                           .arg(QString::fromUtf8(toString(runStatus).data()))
                           .arg(category, message, QString::fromUtf8(fixFor(*failure).data())));
        Q_EMIT this->message(
            tr("Run %1 failed: %2 (%3). The sweep goes on with the next run.").arg(runId).arg(category, message), 8000);
    }
}

void LiveRun::onFinished(const supervisor::event::Finished &e)
{
    assertUiThread();
    const qint64 sweepId = e.sweepId;
    const bool cancelled = e.cancelled;
    drain_->stop();
    drain();
    for (LaneRun &run : lanes_)
        clearPhase(run);
    // A sweep whose runs failed finished, it did not complete: "finished, 1 of 1 failed".
    const int failed = runTotal_ - runsComplete_;
    const QString summary =
        cancelled ? tr("Sweep %1 cancelled: %2 of %3 runs complete and kept; the rest did not run.")
                        .arg(sweepId)
                        .arg(runsComplete_)
                        .arg(runTotal_)
        : failed > 0 ? tr("Sweep %1 %2.")
                           .arg(sweepId)
                           .arg(QString::fromStdString(report::sweepStatusText(store::SweepStatus::Complete, runTotal_, failed)))
                     : tr("Sweep %1 complete: %2 of %3 runs complete.").arg(sweepId).arg(runsComplete_).arg(runTotal_);
    Q_EMIT logLine(summary);
    Q_EMIT sweepEnded(sweepId, cancelled, summary);
}

void LiveRun::onPhase(const supervisor::event::Phase &e)
{
    assertUiThread();
    LaneRun *run = laneOfRun(e.runId);
    if (!run)
        return; // a phase of a run the chart has already left
    run->phaseShown = true;
    Q_EMIT phaseShown(run->lane, phaseStatusText(e.phase, e.seconds, e.priming), phaseExplanation(e.phase, e.priming));
}

void LiveRun::clearPhase(LaneRun &run)
{
    if (!std::exchange(run.phaseShown, false))
        return;
    Q_EMIT phaseCleared(run.lane);
}

void LiveRun::onCompileInfo(const supervisor::event::CompileInfo &e)
{
    const qint64 runId = e.runId;
    const CompileRecord &record = e.record;
    if (!record.present)
        return;
    QStringList facts{compileSettingsText(record)};
    if (record.compileS)
        facts << tr("compile %1").arg(QString::fromStdString(report::formatSeconds(*record.compileS)));
    if (const QString counts = compileCountsText(record); !counts.isEmpty())
        facts << counts;
    facts.removeAll(QString());
    Q_EMIT logLine(tr("run %1 torch.compile: %2").arg(runId).arg(facts.join(QStringLiteral(", "))));
    if (record.notCompiled()) {
        // The run will be failed (compile-failed); say why now, while the user is watching.
        const QString text = notCompiledText(record);
        Q_EMIT logLine(tr("run %1 %2").arg(runId).arg(text));
        Q_EMIT message(tr("Run %1: %2").arg(runId).arg(text), 10000);
    }
}

void LiveRun::drain()
{
    assertUiThread();
    const auto batches = controller_->takeSamples();
    std::vector<qint64> fresh; // the runs that got steps
    for (const auto &b : batches) {
        LaneRun *run = laneOfRun(b.runId);
        if (!run)
            continue;     // a late batch of a run the chart has already left
        clearPhase(*run); // steps are here: the compile (or capture) is over
        Q_EMIT stepsArrived(run->lane, b.firstIndex, b.ms);
        run->series += b.ms;
        fresh.push_back(b.runId);
    }
    for (LaneRun &run : lanes_) {
        if (run.series.size() < 12 || !run.running || std::find(fresh.begin(), fresh.end(), run.runId) == fresh.end())
            continue;
        // The steady window is re-detected as steps arrive (step 1 is never part of it), at most
        // twice a second a lane: it reads the whole series, and long runs reach 100,000 steps.
        if (run.steadyClock.isValid() && run.steadyClock.elapsed() < 500 && controller_->isRunning())
            continue;
        run.steadyClock.start();
        // The running run has no stored summary yet: the window of the same rule, over what arrived.
        shadeSteadyWindow(run);
    }
}

void LiveRun::shadeSteadyWindow(const LaneRun &run, std::optional<RunStatus> ended)
{
    if (const auto shaded = steadyShading(run.series, ended))
        Q_EMIT steadyWindowFound(run.lane, shaded->first, shaded->last);
    else
        Q_EMIT steadyWindowLost(run.lane);
}

void LiveRun::showStoredRun(qint64 runId)
{
    if (controller_->isRunning() || !controller_->hasDatabase())
        return; // the live chart belongs to the running sweep
    query_->requestRunSteps(runId);
}

void LiveRun::showSteps(const RunSteps &steps)
{
    if (controller_->isRunning())
        return;
    lanes_.clear();
    Q_EMIT runShown(tr("%1 (run %2, %3)")
                        .arg(QString::fromStdString(steps.run.configName))
                        .arg(steps.run.id)
                        .arg(QString::fromUtf8(toString(steps.run.status).data())));
    if (steps.ms.isEmpty())
        return;
    Q_EMIT stepsArrived(-1, 1, steps.ms);
    if (steps.steady)
        Q_EMIT steadyWindowFound(-1, steps.steadyFirst, steps.steadyLast);
}

void LiveRun::leave()
{
    lanes_.clear();
    Q_EMIT runShown(tr("No run shown"));
}

} // namespace stepscope::ui
