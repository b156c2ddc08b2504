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
    Q_EMIT progressed(e.sweepFraction, tr("Run %1 of %2: %3% · sweep %4% · %5")
                                           .arg(runIndex_ + 1)
                                           .arg(runTotal_)
                                           .arg(static_cast<int>(e.runFraction * 100))
                                           .arg(static_cast<int>(e.sweepFraction * 100))
                                           .arg(timeLeftText(e.left.seconds, e.left.guess)));
}

void LiveRun::onRunStarted(const supervisor::event::RunStarted &e)
{
    assertUiThread();
    const qint64 runId = e.runId;
    const int index = e.index, total = e.total;
    const QString &name = e.config;
    // The previous run was drained when it finished; switch first, then drain, so that steps of
    // this run already in the buffer (step 1 among them) are kept.
    runId_ = runId;
    series_.clear();
    steadyClock_.invalidate();
    runIndex_ = index;
    runTotal_ = total;
    clearPhase();
    Q_EMIT runShown(tr("%1 (run %2 of %3)").arg(name).arg(index + 1).arg(total));
    drain();
    Q_EMIT runBegan();
    Q_EMIT logLine(tr("[%1/%2] %3").arg(index + 1).arg(total).arg(name));
}

void LiveRun::onRunFinished(const supervisor::event::RunFinished &e)
{
    assertUiThread();
    const qint64 runId = e.runId;
    const RunStatus runStatus = e.status;
    const std::optional<Failure> &failure = e.failure;
    drain();
    if (runId == runId_) {
        clearPhase();
        // The run's reading is taken now, from all of its steps: the chart ends on what the ledger
        // will say (drain() may have left a window of an earlier, shorter series), and a run that
        // failed or was stopped ends unshaded.
        shadeSteadyWindow(runStatus);
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
    clearPhase();
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
    if (e.runId != runId_)
        return; // a phase of a run the chart has already left
    phaseShown_ = true;
    Q_EMIT phaseShown(phaseStatusText(e.phase, e.seconds, e.priming), phaseExplanation(e.phase, e.priming));
}

void LiveRun::clearPhase()
{
    if (!std::exchange(phaseShown_, false))
        return;
    Q_EMIT phaseCleared();
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
    for (const auto &b : batches) {
        if (b.runId != runId_)
            continue; // a late batch of a run the chart has already left
        clearPhase(); // steps are here: the compile (or capture) is over
        Q_EMIT stepsArrived(b.firstIndex, b.ms);
        series_ += b.ms;
    }
    if (batches.empty() || series_.size() < 12)
        return;
    // The steady window is re-detected as steps arrive (step 1 is never part of it), at most twice
    // a second: it reads the whole series, and long runs reach 100,000 steps.
    if (steadyClock_.isValid() && steadyClock_.elapsed() < 500 && controller_->isRunning())
        return;
    steadyClock_.start();
    // The running run has no stored summary yet: the window of the same rule, over what arrived.
    shadeSteadyWindow();
}

void LiveRun::shadeSteadyWindow(std::optional<RunStatus> ended)
{
    if (const auto shaded = steadyShading(series_, ended))
        Q_EMIT steadyWindowFound(shaded->first, shaded->last);
    else
        Q_EMIT steadyWindowLost();
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
    runId_ = 0;
    Q_EMIT runShown(tr("%1 (run %2, %3)")
                        .arg(QString::fromStdString(steps.run.configName))
                        .arg(steps.run.id)
                        .arg(QString::fromUtf8(toString(steps.run.status).data())));
    if (steps.ms.isEmpty())
        return;
    Q_EMIT stepsArrived(1, steps.ms);
    if (steps.steady)
        Q_EMIT steadyWindowFound(steps.steadyFirst, steps.steadyLast);
}

void LiveRun::leave()
{
    runId_ = 0;
    Q_EMIT runShown(tr("No run shown"));
}

} // namespace stepscope::ui
