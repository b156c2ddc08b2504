#pragma once
// Runs the planned runs of a sweep, one worker process each, never two at once on the same device.
// Reads the worker's JSON lines, writes the store, and reports through typed signals. Asynchronous
// (QProcess): lives in whatever thread it is moved to; the GUI gives it a thread of its own, the CLI
// runs it in the main event loop.
//
// Lanes (issue 21): with several devices, one lane per device runs its own worker, and the lanes
// take the plan's runs in order as they come free (a queue, not a fixed share: the lanes finish
// together however long each configuration takes). A configuration runs in one process at a time,
// its repeats only on lanes of the GPU model its first run had, and a data-parallel run of
// world_size W holds W idle lanes of one model at once. Those decisions are SweepScheduler's
// (sweep_scheduler.h); the runner asks it and does what it says.
#include "protocol/protocol.h"
#include "supervisor/model_exports.h"
#include "supervisor/start_caches.h"
#include "supervisor/run_recorder.h"
#include "supervisor/sweep_lanes.h"
#include "supervisor/sweep_plan.h"
#include "supervisor/sweep_scheduler.h"
#include "supervisor/torch_location.h"
#include "supervisor/worker_command.h"
#include "supervisor/worker_memory.h"
#include "supervisor/worker_process.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QStringList>
#include <QTimer>
#include <QVector>

#include <memory>
#include <optional>

namespace stepscope::supervisor
{

struct RunnerOptions {
    WorkerCommand native;
    WorkerCommand python; // empty program: python runs fail with python-not-found (its origin says why)
    // The torch the native worker loads its LibTorch from (torch_location.h). Not usable: native runs
    // fail with its problem and fix before a process starts. Default: none located, nothing added
    // to the worker's environment (a stand-in worker needs no LibTorch).
    TorchLocation torch;
    int timeoutSeconds = 900; // a worker silent this long (no protocol line) is killed; at most kMaxTimeoutSeconds
    // Below which each sweep makes its folder for every cache its runs start with (start_caches.h);
    // empty: the system's temporary folder.
    QString cacheRoot = defaultCacheRoot();
    // One discarded one-step process before the sweep's first run: caches that outlive a process
    // (CUDA JIT, cuDNN's compiled engines, the file cache of the libraries) are paid for there,
    // not by whichever configuration happens to run first.
    bool machineWarmup = false;
    // Adaptive repeats (sweep_scheduler.h says when a round adds a process).
    using Adaptive = AdaptiveRepeats;
    Adaptive adaptive;
    // Where the kernel counts its OOM kills (worker_memory.h); a SIGKILL that Stepscope did not send
    // while the count rose is named out-of-memory. Tests point it at a file of their own.
    std::vector<std::string> oomCounterFiles = defaultOomCounterFiles();
    // Steady steps each timed worker profiles after its timed ones (issue 18.1; 0: none). Their
    // traces go beside the database (run_profile.h).
    int profileSteps = 0;
    // The devices the sweep runs on at once, one lane each (issue 21). Empty: one lane, each run on
    // its configuration's own device.
    std::vector<LaneDevice> lanes;
    // A max-batch sweep (max_batch_sweep.h): once every run is taken, each configuration's next try.
    bool maxBatch = false;
};

// kMaxTimeoutSeconds, the longest --timeout, is worker_process.h's.

// The configuration of the discarded warm-up process: the first run's eager part, one step. It
// compiles nothing, and no run's cache folders are its (start_caches.h).
RunConfig machineWarmupConfig(const RunConfig &firstRun);

class SweepRunner : public QObject
{
    Q_OBJECT
  public:
    SweepRunner(store::Database &db, RunnerOptions options, QObject *parent = nullptr);
    ~SweepRunner() override;

    // Starts the sweep; returns at once. event::Finished follows.
    Q_INVOKABLE void start(const stepscope::supervisor::SweepPlan &plan);
    // Kills the running worker (its run becomes cancelled) and cancels the queued ones. Thread-safe.
    Q_INVOKABLE void cancel();
    bool isRunning() const { return running_; }

  Q_SIGNALS:
    // Everything that happens, one typed event per fact (sweep_event.h): runs starting and ending,
    // their environment, first step, phases and compile record, the stages that are no timed run
    // (warm-up, priming, adaptive repeats, a retired lane, a requeued run), worker log lines, a
    // refused write (StorageFailed, then Finished(cancelled)) and the end (Finished). The service
    // adds what it knows (time left) and hands them on.
    void sweepEvent(const stepscope::supervisor::SweepEvent &event);
    // The data streams, apart: a run's step samples, and its steps so far for progress.
    void stepsArrived(qint64 runId, int firstIndex, const QVector<double> &gpuMs, const QVector<double> &wallMs);
    void progress(int finishedRuns, int totalRuns, int stepInRun, int stepsInRun);

  private:
    enum class Stage { Timed, WarmingUp, Priming, Exporting };
    enum class Warmup { NotRun, Running, Completed, Failed };
    // One device's worker and the run it is running (which run, and what the lane may take: the
    // scheduler's). Without RunnerOptions::lanes there is one.
    struct Lane {
        int index = 0;
        LaneDevice device;
        QPointer<WorkerProcess> worker;        // the worker process now running, of any stage
        std::unique_ptr<RunRecorder> recorder; // the run's figures into the store
        std::int64_t runId = 0;
        RunCaches runCaches, primingCaches;
        std::string primingWhat; // "the shipped bundle", ...: its failure says which
        QString exportPath;      // the TorchScript file the lane's export process writes (ModelExports)
        // What the worker now running is: the lane's discarded warm-up, the unstored process that
        // fills what the run's shipped or again start reads, the Python worker tracing another model
        // for a native run (ModelExports), or the timed run itself.
        Stage stage = Stage::Timed;
        Warmup warmup = Warmup::NotRun;
        int workersStarted = 0;
    };

    void dispatch();
    void startRun(const SweepScheduler::Start &start);
    // After the run's export (when it needs one): its caches, the machine warm-up, priming, the run.
    void continueRun(Lane &lane, const PlannedRun &run);
    void exportExited(Lane &lane, RunStatus status, const std::optional<Failure> &failure);
    bool prepareCaches(Lane &lane, const PlannedRun &run);
    void startWorker(Lane &lane, const RunConfig &config);
    void onMessage(Lane &lane, const protocol::Message &m);
    void onWorkerExited(Lane &lane, RunStatus status, std::optional<Failure> failure);
    void onWorkerFailedToStart(Lane &lane, Failure failure);
    void primingExited(Lane &lane, RunStatus status, std::optional<Failure> failure);
    void warmupExited(Lane &lane, RunStatus status, const std::optional<Failure> &failure);
    bool planAnotherRound();
    // A max-batch sweep's next tries, read from the runs stored so far; false when every search has ended.
    bool planMaxBatchRound();
    void startPrimingOrRun(Lane &lane, const RunConfig &config);
    void finishCurrent(Lane &lane, RunStatus status, const std::optional<Failure> &failure);
    void retireAfter(Lane &lane, const SweepScheduler::Ended &ended, const Failure &failure);
    // Queues one more run at the end of plan_ and of the scheduler's runs, which match index for index.
    void queueRun(const RunConfig &config, int repeatIndex, store::StartState start);
    void cancelUntaken(const Failure &why);
    void failBeforeStart(std::size_t planIndex, const Failure &why);
    // Whether the store took every write so far, after waiting for their commit (flush) or from what
    // it has committed by now (check); when not, the sweep stops (storeFailed).
    bool flushed(bool wait = true);
    bool storeHealthy();
    void removeRunDirs(Lane &lane);
    void storeFailed(const QString &message);
    bool anyBusy() const;
    const RunConfig &configOf(const Lane &lane) const;
    bool laned() const { return !options_.lanes.empty(); }
    // The config a lane's worker gets: on a GPU lane, its device (a data-parallel run: "cuda", the
    // lanes it holds made visible), and the lane's record for the store.
    RunConfig workerConfig(const Lane &lane, const RunConfig &config) const;
    QString visibleDevices(const Lane &lane) const;
    std::string laneJson(const Lane &lane) const;
    QString laneLabel(const Lane &lane) const;
    // The lane's label and index for the events of its run; empty on one device.
    LaneOf laneOf(const Lane &lane) const;

    store::Database &db_;
    RunnerOptions options_;
    SweepPlan plan_;
    bool running_ = false;
    bool cancelRequested_ = false;
    std::vector<std::unique_ptr<Lane>> lanes_;
    std::unique_ptr<SweepScheduler> scheduler_; // which lane runs what; made by start()
    ModelExports exports_;
    QTimer heartbeat_;
    // The sweep's cache folders, the timed runs' and the priming processes'.
    std::unique_ptr<StartCacheDirs> cacheDirs_;
    QElapsedTimer sweepClock_;
    StoredEnvironment storedEnvironment_; // shared by the runs' recorders
};

} // namespace stepscope::supervisor

Q_DECLARE_METATYPE(stepscope::supervisor::SweepPlan)
