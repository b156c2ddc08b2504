#pragma once
// Sets up the managed Python environment (managed_python.h) with the pinned torch and torchvision:
// the job behind `stepscope-cli setup` and the dashboard's "Set up PyTorch" dialog. One QObject
// facade, as the other background jobs: start(), typed progress, finished or failed, cancel().
//
// The steps: write the incomplete marker first (the lookup never takes a half-made environment);
// `python3 -m venv DIR` unless DIR already has a working pip (a retry resumes there); `pip install
// torch==PIN torchvision==PIN` with a private TMPDIR; import both and check the pins; only then
// remove the marker. A cancel or a failure leaves the marker, the environment and pip's cache, so
// that a retry downloads nothing twice.
//
// Threads: every process is an asynchronous QProcess of the thread the object lives in (the CLI's
// main loop, the dashboard's UI thread): nothing blocks, signals arrive from that thread's loop.
#include "supervisor/setup_failure.h"
#include "supervisor/setup_progress.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QStringList>
#include <QTimer>

namespace stepscope::supervisor
{

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

  Q_SIGNALS:
    void progress(const stepscope::supervisor::SetupProgress &progress);
    // A line of what venv and pip say, for a log or a details view; never read for meaning.
    void outputLine(const QString &line);
    void finished(const stepscope::supervisor::SetupResult &result);
    void failed(const stepscope::supervisor::SetupFailure &failure);

  private:
    enum class Step { None, ProbePip, CreateVenv, Install, Check };
    void runStep(Step step, const QString &program, const QStringList &arguments);
    void probePip();
    void createVenv();
    void install();
    void check();
    void onOutput();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onStartFailed(QProcess::ProcessError error);
    void pollDownload();
    void emitProgress(bool now);
    void fail(SetupFailure failure);
    void stopProcess();
    void removeTempDir();
    QString venvPython() const;

    SetupOptions options_;
    SetupContext context_;
    QPointer<QProcess> process_;
    Step step_ = Step::None;
    bool running_ = false;
    bool venvCreated_ = false; // by this run: a pip that still fails then means a broken venv module
    bool rawProgress_ = false;
    QString output_;     // the running step's stdout and stderr, for the failure's words
    QByteArray pending_; // a partial line
    SetupProgressReader reader_;
    QTimer poll_;
    QElapsedTimer sinceEmit_;
};

} // namespace stepscope::supervisor

Q_DECLARE_METATYPE(stepscope::supervisor::SetupProgress)
Q_DECLARE_METATYPE(stepscope::supervisor::SetupResult)
Q_DECLARE_METATYPE(stepscope::supervisor::SetupFailure)
