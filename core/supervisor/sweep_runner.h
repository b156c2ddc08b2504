#pragma once
// Runs the planned runs of a sweep one after another, one worker process each, never two at once
// on the same device. Reads the worker's JSON lines, writes the store, and reports through typed
// signals. Asynchronous (QProcess): lives in whatever thread it is moved to; the GUI gives it a
// thread of its own, the CLI runs it in the main event loop.
#include "protocol/protocol.h"
#include "supervisor/compile_cache.h"
#include "supervisor/machine_caches.h"
#include "supervisor/run_recorder.h"
#include "supervisor/sweep_plan.h"
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

#include <map>
#include <memory>
#include <optional>
#include <set>

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
    // Where the sweep's machine cache folders go (machine_caches.h); empty: a temporary folder.
    QString machineCacheRoot;
    QString compileCacheRoot = defaultCompileCacheRoot(); // torch.compile caches (compile_cache.h)
    // One discarded one-step process before the sweep's first run: caches that outlive a process
    // (CUDA JIT, cuDNN's compiled engines, the file cache of the libraries) are paid for there,
    // not by whichever configuration happens to run first.
    bool machineWarmup = false;
    // Adaptive repeats: after the planned runs, one more round of cold processes for every
    // configuration whose steady figure's 95% CI (at process level) is wider than +-halfWidth of its
    // median, until maxProcesses per configuration or maxMinutes for the sweep (0: no limit).
    struct Adaptive {
        bool enabled = false;
        double halfWidth = 0.02;
        int maxProcesses = 10;
        int maxMinutes = 0;
    } adaptive;
    // Where the kernel counts its OOM kills (worker_memory.h); a SIGKILL that Stepscope did not send
    // while the count rose is named out-of-memory. Tests point it at a file of their own.
    std::vector<std::string> oomCounterFiles = defaultOomCounterFiles();
    // Steady steps each timed worker profiles after its timed ones (issue 18.1; 0: none). Their
    // traces go beside the database (run_profile.h).
    int profileSteps = 0;
};

// kMaxTimeoutSeconds, the longest --timeout, is worker_process.h's.

// The configuration of the discarded warm-up process: the first run's eager part, one step. It
// compiles nothing, so a cold compile cache stays cold.
RunConfig machineWarmupConfig(const RunConfig &firstRun);

class SweepRunner : public QObject
{
    Q_OBJECT
  public:
    SweepRunner(store::Database &db, RunnerOptions options, QObject *parent = nullptr);
    ~SweepRunner() override;

    // Starts the sweep; returns at once. finished() follows.
    Q_INVOKABLE void start(const stepscope::supervisor::SweepPlan &plan);
    // Kills the running worker (its run becomes cancelled) and cancels the queued ones. Thread-safe.
    Q_INVOKABLE void cancel();
    bool isRunning() const { return running_; }

  Q_SIGNALS:
    void runStarted(qint64 runId, int index, int total, const QString &configName);
    void environment(qint64 runId, const QString &json);
    void firstStep(qint64 runId, double seconds);
    void stepsArrived(qint64 runId, int firstIndex, const QVector<double> &gpuMs, const QVector<double> &wallMs);
    void runFinished(qint64 runId, stepscope::RunStatus status, const std::optional<stepscope::Failure> &failure);
    void progress(int finishedRuns, int totalRuns, int stepInRun, int stepsInRun);
    void logLine(const QString &line);
    // A long stretch without steps: the worker's word for it ("compiling", "capturing") and the
    // seconds it has spent in it so far; `priming` while the unstored priming process runs.
    void phase(qint64 runId, const QString &phase, double elapsedSeconds, bool priming);
    // What torch.compile reported (the worker's `compile` info object, compact JSON).
    void compileInfo(qint64 runId, const QString &json);
    // The stages that are no timed run, as data (logLine says the same in words, for the log):
    // the discarded machine warm-up process before `beforeConfig`, and its failure (the sweep goes on);
    void warmupStarted(const QString &warmupConfig, const QString &beforeConfig);
    void warmupFailed(const stepscope::Failure &failure);
    // the unstored process that fills run `runId`'s warm compile cache first;
    void primingStarted(qint64 runId, const QString &configName);
    // one more process of `configName` (adaptive repeats): `processes` had a steady state, and their
    // CI's half width was `halfWidth` of the median (< 0: fewer than two, no interval yet);
    void adaptiveRunAdded(const QString &configName, int processes, double halfWidth, double target);
    // the adaptive time cap: no more processes after `minutes`.
    void adaptiveTimeSpent(int minutes);
    void finished(bool cancelled);
    // The database refused a write (disk full, file gone): the sweep stops; finished(true) follows.
    void storageFailed(const QString &message);

  private:
    void startNext();
    bool prepareCaches(const PlannedRun &run);
    void startWorker(const RunConfig &config);
    void onMessage(const protocol::Message &m);
    void onWorkerExited(RunStatus status, std::optional<Failure> failure);
    void onWorkerFailedToStart(Failure failure);
    void primingExited(RunStatus status, std::optional<Failure> failure);
    void warmupExited(RunStatus status, const std::optional<Failure> &failure);
    bool planAnotherRound();
    void startPrimingOrRun(const RunConfig &config);
    void finishCurrent(RunStatus status, const std::optional<Failure> &failure);
    // Whether the store took every write so far, after waiting for their commit (flush) or from what
    // it has committed by now (check); when not, the sweep stops (storeFailed).
    bool flushed(bool wait = true);
    bool storeHealthy();
    void removeRunDirs();
    void storeFailed(const QString &message);

    store::Database &db_;
    RunnerOptions options_;
    SweepPlan plan_;
    std::size_t next_ = 0;
    bool running_ = false;
    bool cancelRequested_ = false;

    // The current run.
    QPointer<WorkerProcess> worker_;        // the worker process now running, of any stage
    std::unique_ptr<RunRecorder> recorder_; // the run's figures into the store
    QTimer heartbeat_;
    std::int64_t runId_ = 0;
    CompileCacheDirs compileCaches_; // a compile run's inductor and Triton caches
    // The sweep's machine cache folders, the timed run's and the priming process's.
    std::unique_ptr<MachineCacheDirs> machineDirs_;
    RunCaches runCaches_, primingCaches_;
    std::string primingWhat_; // "the warm compile cache", "the warm machine caches", ...: its failure says which
    // What the worker now running is: the sweep's discarded warm-up, the unstored process that fills
    // the run's warm compile cache, or the timed run itself.
    enum class Stage { Timed, WarmingUp, Priming };
    Stage stage_ = Stage::Timed;
    // The sweep's warm-up process: not run (yet), running (or could not start), completed
    // (machine-wide caches warm), failed.
    enum class Warmup { NotRun, Running, Completed, Failed };
    Warmup warmup_ = Warmup::NotRun;
    int workersStarted_ = 0; // processes of any kind started in this sweep
    // Per configuration (canonical name): the steady steps of each completed process, and whether
    // one of its runs failed (adaptive repeats add no process to a failing configuration).
    std::map<std::string, std::vector<std::vector<double>>> steadyRuns_;
    std::set<std::string> failedConfigs_;
    QElapsedTimer sweepClock_;
    StoredEnvironment storedEnvironment_; // shared by the runs' recorders
};

} // namespace stepscope::supervisor

Q_DECLARE_METATYPE(stepscope::supervisor::SweepPlan)
