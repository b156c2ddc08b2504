#pragma once
// The run in progress, as the Live page, the log and the status bar show it: its steps drained from
// the controller's buffer on a ~30 Hz timer (never one queued signal per batch), the steady window
// re-detected as they arrive (at most twice a second), the long stretches without steps (compiling,
// capturing), the sweep's progress and what each run's end means. On a sweep over several devices
// each lane's run is on show at once, each of these facts for its lane. When nothing runs, a stored
// run's steps read off the UI thread take its place. No widgets: the pages subscribe.
#include "common/failure.h"
#include "supervisor/sweep_event.h"

#include <QElapsedTimer>
#include <QObject>
#include <QVector>

#include <optional>
#include <vector>

class QTimer;

namespace stepscope::ui
{

// The steps the live chart shades as steady, inclusive (1-based, as the chart counts them).
struct ShadedSteps {
    int first = 0, last = 0;
};
// What the live chart shades for a run's steps so far (stepsFromOne[0] is step 1): the window the
// run's one reading (report::steadyWindowOf, the rule of its stored summary) finds in these very
// steps, so that the chart never shows a window the ledger will not have. `ended`: how the run
// ended, none while it runs; a run that did not complete gets no reading, so no shading.
std::optional<ShadedSteps> steadyShading(const QVector<double> &stepsFromOne,
                                         std::optional<RunStatus> ended = std::nullopt);

class QueryJob;
class RunController;
struct RunSteps;

class LiveRun : public QObject
{
    Q_OBJECT
  public:
    // `query` reads stored runs' steps; neither is owned.
    LiveRun(RunController *controller, QueryJob *query, QObject *parent = nullptr);

    // A stored run's steps in place of the live ones; ignored while a sweep runs (the live chart
    // belongs to it) or without a database.
    void showStoredRun(qint64 runId);
    // No run on show.
    void leave();
    RunController *controller() const { return controller_; }

    // The label of lane `lane` ("cpu:1"), empty for one device's (-1) or a lane not seen yet.
    QString laneLabel(int lane) const;

    // `lane` below is the lane whose run a signal is about, as supervisor::LaneOf counts them: 0, 1,
    // ... on a sweep over several devices; -1 for the one run of a sweep on one device or a stored run.
  Q_SIGNALS:
    // The chart starts over with one run, `title` ("bf16 (run 2 of 3)"); lanes' runs are gone.
    void runShown(const QString &title);
    // Lane `lane` (`label`: "cpu:0") starts over with its new run, `run` ("bf16 (run 2 of 3)"); the
    // other lanes' runs stay on show.
    void laneRunShown(int lane, const QString &label, const QString &run);
    void stepsArrived(int lane, int firstIndex, const QVector<double> &ms);
    // The steady window found so far, steps inclusive; lost when the series no longer settles.
    void steadyWindowFound(int lane, int first, int last);
    void steadyWindowLost(int lane);
    // "compiling 0:42" and what it means, while the worker reports a phase without steps.
    void phaseShown(int lane, const QString &status, const QString &explanation);
    void phaseCleared(int lane);
    void sweepBegan(qint64 sweepId);
    // A run of the sweep started: its live view should come forward.
    void runBegan();
    // `fraction` of the sweep in [0, 1], and the status bar's words for it (every running lane's).
    void progressed(double fraction, const QString &text);
    // The sweep ended; `summary` says how many runs completed ("Sweep 3 complete: 7 of 7 …").
    void sweepEnded(qint64 sweepId, bool cancelled, const QString &summary);
    void logLine(const QString &line);
    // A passing status-bar message.
    void message(const QString &text, int timeoutMs);

  private:
    // A run on show live: the one of a sweep on one device, or a lane's current run.
    struct LaneRun {
        int lane = -1;
        QString label; // "cpu:0"
        qint64 runId = 0;
        QString config;
        int index = 0, step = 0, steps = 0;
        bool running = false;
        QVector<double> series;    // its step times, for steady detection
        QElapsedTimer steadyClock; // rate-limits that detection
        bool phaseShown = false;
    };
    LaneRun *laneOfRun(qint64 runId);
    QString progressText(const supervisor::event::Progress &e) const;

    void onEvent(const supervisor::SweepEvent &e);
    void onRunStarted(const supervisor::event::RunStarted &e);
    void onProgress(const supervisor::event::Progress &e);
    void onRunFinished(const supervisor::event::RunFinished &e);
    void onFinished(const supervisor::event::Finished &e);
    void onPhase(const supervisor::event::Phase &e);
    void onCompileInfo(const supervisor::event::CompileInfo &e);
    void showSteps(const RunSteps &steps);
    void drain();
    // Shades what steadyShading gives for the lane's steps (steadyWindowFound / steadyWindowLost).
    void shadeSteadyWindow(const LaneRun &run, std::optional<RunStatus> ended = std::nullopt);
    void clearPhase(LaneRun &run);

    RunController *controller_;
    QueryJob *query_;
    QTimer *drain_;
    std::vector<LaneRun> lanes_; // the runs whose steps are on show live; none: a stored run or none
    int runTotal_ = 0, runsComplete_ = 0;
};

} // namespace stepscope::ui
