#pragma once
// One worker process, from its start to the judgement of its end: it reads the worker's protocol
// lines (stdout) and log (stderr) as ProcessRunner hands them over, has it stopped when it falls
// silent, watches its memory, and judges how it ended (complete, failed with a category, cancelled).
// What its lines mean for the store is for others to say (run_recorder.h); SweepRunner decides which
// process runs when.
#include "common/failure.h"
#include "config/run_config.h"
#include "protocol/protocol.h"
#include "supervisor/process_runner.h"
#include "supervisor/sweep_request.h"
#include "supervisor/worker_command.h"

#include <QByteArray>
#include <QObject>
#include <QProcessEnvironment>
#include <QString>
#include <QTimer>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stepscope::supervisor
{

// The longest --timeout: a week. Qt's timers count milliseconds in an int (24.8 days at most).
constexpr int kMaxTimeoutSeconds = static_cast<int>(kTimeoutLimit.max); // the request table's cap

class WorkerProcess : public QObject
{
    Q_OBJECT
  public:
    // timeoutSeconds: a worker silent this long (no protocol line) is killed (capped at
    // kMaxTimeoutSeconds); oomCounterFiles: where the kernel counts its OOM kills (worker_memory.h).
    WorkerProcess(int timeoutSeconds, std::vector<std::string> oomCounterFiles, QObject *parent = nullptr);
    // A worker still running is killed and reaped, not left behind.
    ~WorkerProcess() override;

    // Starts `worker` with `env` and `--config <config as JSON>`; returns at once. exited() or
    // failedToStart() follows (failedToStart() may come before start() returns).
    void start(const WorkerCommand &worker, const RunConfig &config, const QProcessEnvironment &env);
    // SIGTERM, then SIGKILL after 3 s; the worker is judged cancelled unless it had finished.
    void stop();
    // Kills the worker now and waits for it; nothing more is signalled. Safe from any slot of it.
    void abort();
    // The last step the run stored, named when a crash is judged.
    void setLastStep(int step) { lastStep_ = step; }

  Q_SIGNALS:
    // Each protocol line, in order (a malformed one as Type::Invalid, also said on logLine).
    void message(const stepscope::protocol::Message &message);
    // The lines of one read of stdout have all been signalled: a moment to check the store once
    // rather than at every line.
    void stdoutRead();
    // Non-empty stderr lines, and the protocol's complaints.
    void logLine(const QString &line);
    void exited(stepscope::RunStatus status, const std::optional<stepscope::Failure> &failure);
    // The program could not be started at all (a missing interpreter, a bad path).
    void failedToStart(const stepscope::Failure &failure);

  private:
    void onLine(const QByteArray &line);
    void onEnded(const ProcessEnd &end);
    void take(const protocol::Message &m);
    std::pair<RunStatus, std::optional<Failure>> judgeExit(const ProcessEnd &end) const;
    Failure judgeUnexplainedKill(const std::string &log) const;

    const int timeoutSeconds_;
    const std::vector<std::string> oomCounterFiles_;
    ProcessRunner *const runner_;
    bool live_ = false; // from start() until exited, failedToStart or abort()
    bool python_ = false;
    QTimer memoryWatch_;                // samples the worker's peak resident memory
    std::int64_t workerPeakKiB_ = -1;   // the worker's VmHWM as last seen; -1 unknown
    std::int64_t oomKillsAtStart_ = -1; // the kernel's OOM-kill count when the worker started
    int lastStep_ = 0;
    bool gotDone_ = false;
    std::optional<Failure> reported_; // an `error` line from the worker
    QString protocolProblems_;
};

} // namespace stepscope::supervisor

Q_DECLARE_METATYPE(stepscope::protocol::Message)
