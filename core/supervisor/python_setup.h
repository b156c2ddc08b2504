#pragma once
// Sets up the managed Python environment (managed_python.h) with the pinned torch and torchvision:
// the job behind `stepscope-cli setup` and the dashboard's "Set up PyTorch" dialog. One QObject
// facade, as the other background jobs: start(), typed progress, finished or failed, cancel().
//
// The steps: take the environment's lock (setupLockFile) or refuse, naming the setup that holds it;
// write the incomplete marker (the lookup never takes a half-made environment); unless DIR already
// has a working pip (a retry resumes there), ask the base Python its version (a few seconds at most:
// a program that is no Python is named) and run `python3 -m venv DIR`; `pip install
// torch==PIN torchvision==PIN` with a private TMPDIR; import both and check the pins; only then
// remove the marker. A cancel or a failure leaves the marker, the environment and pip's cache, so
// that a retry downloads again only what pip had not finished (setupRetryText()).
//
// Every process runs in a process group of its own that a watchdog (platform/guards.h) kills if the
// process behind this object dies, kill -9 included: venv's ensurepip and pip's helpers never
// outlive it. The lock ends with the job too, and with its process however that ends.
//
// Threads: every process runs under an asynchronous ProcessRunner (process_runner.h) of the thread
// the object lives in (the CLI's main loop, the dashboard's UI thread): nothing blocks, signals
// arrive from that thread's loop.
#include "supervisor/setup_failure.h"
#include "supervisor/setup_progress.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QObject>
#include <QStringList>
#include <QTimer>

#include <memory>

namespace stepscope::platform
{
class FileLock;
class GroupWatchdog;
} // namespace stepscope::platform

namespace stepscope::supervisor
{

class ProcessRunner;
struct ProcessEnd;

// The lock a setup of `environmentDir` holds while it runs: beside the environment, not in it, so
// that removing the environment (the fix of several failures) leaves the lock of a running setup.
// "~/.local/share/stepscope/venv-torch-2.11.0" -> "~/.local/share/stepscope/.venv-torch-2.11.0.setup-lock"
QString setupLockFile(const QString &environmentDir);

struct SetupOptions {
    QString environmentDir;     // empty: managedEnvironmentDir()
    QString basePython;         // the interpreter that creates it; empty: python3 on PATH
    QString indexUrl;           // pip --index-url (a mirror; the tests' local index)
    QString findLinks;          // pip --find-links
    bool noIndex = false;       // pip --no-index (with --find-links: a folder of wheels)
    QString torchVersion;       // empty: pinnedTorchVersion()
    QString torchvisionVersion; // empty: pinnedTorchvisionVersion()
};

struct SetupResult {
    QString environmentDir;
    QString python;                           // <dir>/bin/python
    QString torchVersion, torchvisionVersion; // as imported ("2.11.0+cu130")
};

class PythonSetup : public QObject
{
    Q_OBJECT
  public:
    explicit PythonSetup(QObject *parent = nullptr);
    ~PythonSetup() override;

    // Returns at once; progress follows, then finished or failed (never both, exactly one).
    void start(const SetupOptions &options);
    // Kills the running step's whole process group and reports failed(Cancelled) at once; the
    // environment keeps its incomplete marker. Nothing when not running.
    void cancel();
    bool isRunning() const { return running_; }
    const SetupOptions &options() const { return options_; }
    // What the failure's words name (paths, the index): filled in by start().
    const SetupContext &context() const { return context_; }

    // pip's settings, said once: a dead index fails within about twice the timeout instead of
    // pip's default five retries of 15 s each.
    static constexpr int kPipRetries = 1;
    static constexpr int kPipTimeoutSeconds = 15;
    // The base Python's answer to its version: a cold start on a loaded machine takes well under 1 s.
    static constexpr int kPythonProbeSeconds = 5;

  Q_SIGNALS:
    void progress(const stepscope::supervisor::SetupProgress &progress);
    // A line of what venv and pip say, for a log or a details view; never read for meaning.
    void outputLine(const QString &line);
    void finished(const stepscope::supervisor::SetupResult &result);
    void failed(const stepscope::supervisor::SetupFailure &failure);

  private:
    enum class Step { None, ProbePip, ProbePython, CreateVenv, Install, Check };
    void runStep(Step step, const QString &program, const QStringList &arguments);
    void probePip();
    void createVenv();
    bool takeLock(); // false: failed (Busy, or the lock cannot be written) was said
    void releaseGuards();
    void install();
    void check();
    void onLine(const QByteArray &bytes);
    void onEnded(const ProcessEnd &end);
    void onStartFailed(const QString &why);
    void pollDownload();
    void emitProgress(bool now);
    void fail(SetupFailure failure);
    void stopProcess();
    void removeTempDir();
    QString venvPython() const;
    SetupContext failureContext() const; // context_ with the free space measured now

    SetupOptions options_;
    SetupContext context_;
    ProcessRunner *const runner_;
    qint64 processGroup_ = 0; // the running step's pid, which leads its process group
    std::unique_ptr<platform::GroupWatchdog> watchdog_;
    std::unique_ptr<platform::FileLock> lock_; // held from start to finished or failed
    Step step_ = Step::None;
    bool running_ = false;
    bool venvCreated_ = false; // by this run: a pip that still fails then means a broken venv module
    bool rawProgress_ = false;
    QString output_; // the running step's stdout and stderr, for the failure's words
    SetupProgressReader reader_;
    QTimer poll_;
    QElapsedTimer sinceEmit_;
};

} // namespace stepscope::supervisor

Q_DECLARE_METATYPE(stepscope::supervisor::SetupProgress)
Q_DECLARE_METATYPE(stepscope::supervisor::SetupResult)
Q_DECLARE_METATYPE(stepscope::supervisor::SetupFailure)
