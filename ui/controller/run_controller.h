#pragma once
// The dashboard's one facade over a running sweep. The supervisor lives in a thread of its own;
// this object lives in the UI thread and offers typed signals, progress with time left, stop, and
// a sample buffer that the UI drains on its own timer (so a fast stream never floods the event
// loop with one queued signal per batch).
#include "common/measurement_defaults.h"
#include "config/run_config.h"
#include "store/store.h"
#include "supervisor/sweep_request.h"

#include <QElapsedTimer>
#include <QMutex>
#include <QObject>
#include <QString>
#include <QThread>
#include <QVector>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace stepscope::supervisor
{
class SweepService;
struct SweepEvent;
} // namespace stepscope::supervisor

namespace stepscope::ui
{

// The dashboard asks the sweep service for what the CLI asks it for (supervisor/sweep_request.h).
using supervisor::SweepRequest;

struct StepBatch {
    qint64 runId = 0;
    int firstIndex = 1;
    QVector<double> ms; // GPU time where the worker has it, else wall time
};

class RunController : public QObject
{
    Q_OBJECT
  public:
    explicit RunController(QObject *parent = nullptr);
    ~RunController() override;

    // Opens (or creates) the database every later sweep writes to. Refused files stay untouched.
    // Blocks: opening checks the whole file and brings old summaries up to date (seconds on a
    // large file). The window uses openDatabaseAsync.
    bool openDatabase(const QString &path, QString *error);
    // The same on a thread of its own: databaseOpened or databaseRefused follows. False at once
    // (with *error) while a sweep runs; a later call supersedes an open still under way.
    bool openDatabaseAsync(const QString &path, QString *error);
    bool isOpening() const { return openingSeq_ > 0; }
    QString databasePath() const { return path_; }
    bool hasDatabase() const { return db_ != nullptr; }

    bool start(const SweepRequest &request, QString *error);
    // Deletes a finished sweep with its runs and steps, through the one writer of the file.
    bool deleteSweep(qint64 sweepId, QString *error);
    // Writes through the one writer of the file and waits for the commit on a thread of its own
    // (deleting millions of steps takes seconds); `done` runs on this thread after, with an empty
    // error on success. False at once (with *error) without a database.
    bool writeAsync(std::function<void(store::Database &)> write, std::function<void(const QString &error)> done,
                    QString *error);
    // Renames a sweep (writeAsync); `done` as there.
    bool renameSweep(qint64 sweepId, const QString &name, std::function<void(const QString &error)> done,
                     QString *error);
    void stop();
    bool isRunning() const { return running_; }
    qint64 currentSweep() const { return sweepId_; }

    // Samples that arrived since the last call (any thread may have produced them).
    std::vector<StepBatch> takeSamples();

    // store::defaultDatabasePath(): empty when neither HOME nor XDG_DATA_HOME is set, and then
    // no database opens until the user picks one (noDefaultDatabase() says so).
    static QString defaultDatabasePath();
    static QString noDefaultDatabase();

    // The interpreter of Python runs (the panel's setting; empty: automatic, see
    // supervisor::defaultPythonWorker), resolved when a sweep starts.
    void setPythonInterpreter(const QString &path) { python_ = path; }
    QString pythonInterpreter() const { return python_; }
    // Where torch.compile caches go; empty: supervisor::defaultCompileCacheRoot().
    void setCompileCacheRoot(const QString &root) { compileCacheRoot_ = root; }

    // The service's events as this controller's signals (the window's API); public so that a test
    // can hand it any event kind without a sweep that produces it.
    void onEvent(const supervisor::SweepEvent &e);

  Q_SIGNALS:
    void sweepStarted(qint64 sweepId, int runs);
    void runStarted(qint64 runId, int index, int total, const QString &configName);
    void firstStep(qint64 runId, double seconds);
    // A sweep over several devices (issue 21): which lane runs `runId` ("cuda:1"), said with runStarted.
    void runOnLane(qint64 runId, int lane, const QString &label, const QString &configName, int index, int total);
    void runFinished(qint64 runId, stepscope::RunStatus status, const std::optional<stepscope::Failure> &failure);
    // Fractions in [0, 1]; secondsLeft < 0 while unknown; guess: predicted partly from runs of
    // another kind (supervisor/time_left.h).
    void progress(double runFraction, double sweepFraction, qint64 secondsLeft, bool guess);
    void logLine(const QString &line);
    // The GPUs a sweep over several left out, and why (a host with more than one model).
    void lanesNote(const QString &note);
    void environment(qint64 runId, const QString &json);
    // A long stretch without steps ("compiling", "capturing", "priming: compiling") and the seconds
    // the worker has spent in it; repeated about every 2 s while it lasts.
    void phase(qint64 runId, const QString &phase, double elapsedSeconds, bool priming);
    // The worker's torch.compile record (compact JSON; see models/compile_record.h).
    void compileInfo(qint64 runId, const QString &json);
    void finished(qint64 sweepId, bool cancelled);
    void failed(const QString &message);
    void databaseOpened(const QString &path);
    void databaseRefused(const QString &path, const QString &error);
    // The open database is let go next (another one opens, or the controller ends): a write held back
    // for it (a delete waiting for its undo) is asked for now, and writeAsync still reaches it.
    void closingDatabase();

  private:
    struct WriterSide;
    void install(std::shared_ptr<store::Database> db, const QString &path);
    void deleteService();

    QString path_;
    QString python_, compileCacheRoot_;
    // Shared with writeAsync's work, which may finish after another file was opened.
    std::shared_ptr<store::Database> db_;
    std::unique_ptr<WriterSide> writerSide_; // the thread of openDatabaseAsync and writeAsync
    qint64 openingSeq_ = 0, openSeq_ = 0;
    QThread thread_;
    supervisor::SweepService *service_ = nullptr; // lives in thread_
    bool running_ = false;
    qint64 sweepId_ = 0;

    QMutex samplesMutex_;
    std::vector<StepBatch> samples_;
};

} // namespace stepscope::ui
