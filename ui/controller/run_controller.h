#pragma once
// The dashboard's one facade over a running sweep. The supervisor lives in a thread of its own;
// this object lives in the UI thread and hands on the service's typed events as they are (the
// presenters visit them, supervisor/sweep_event.h), stop, and a sample buffer that the UI drains on its own timer (so a fast stream never floods the event
// loop with one queued signal per batch).
#include "common/measurement_defaults.h"
#include "controller/latest.h"
#include "config/run_config.h"
#include "store/store.h"
#include "supervisor/sweep_event.h"
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
struct PreparedSweep;
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
    bool isOpening() const { return !opening_.stale(); }
    QString databasePath() const { return path_; }
    bool hasDatabase() const { return db_ != nullptr; }

    // Starts a sweep: a request refused at once (invalid, or a sweep running) returns false with
    // *error; otherwise it is prepared off this thread (its plan stored, nvidia-smi asked about GPU
    // lanes) and sweepStarted or startFailed follows. isRunning() from this call on.
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
    // A batch of the running sweep's steps into that buffer; any thread (the service's calls it).
    void pushSamples(StepBatch batch);

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

    // The service's events, on the UI thread, handed on as sweepEvent; public so that a test can
    // hand it any event kind without a sweep that produces it.
    void onEvent(const supervisor::SweepEvent &e);

  Q_SIGNALS:
    void sweepStarted(qint64 sweepId, int runs);
    // A sweep start() accepted could not be prepared (the database refused its plan).
    void startFailed(const QString &error);
    // Every event of the running sweep, in order, one hop from the service (the presenters and
    // pages visit the kinds they show; supervisor/event_text.h words the stages).
    void sweepEvent(const stepscope::supervisor::SweepEvent &event);
    // The GPUs a sweep over several left out, and why (a host with more than one model).
    void lanesNote(const QString &note);
    void databaseOpened(const QString &path);
    void databaseRefused(const QString &path, const QString &error);
    // The open database is let go next (another one opens, or the controller ends): a write held back
    // for it (a delete waiting for its undo) is asked for now, and writeAsync still reaches it.
    void closingDatabase();

  private:
    struct WriterSide;
    // The prepared sweep into a service of the supervisor thread, or why it was not prepared.
    void launch(const std::optional<supervisor::PreparedSweep> &sweep, const QString &error);
    void install(std::shared_ptr<store::Database> db, const QString &path);
    void deleteService();

    QString path_;
    QString python_, compileCacheRoot_;
    // Shared with writeAsync's work, which may finish after another file was opened.
    std::shared_ptr<store::Database> db_;
    std::unique_ptr<WriterSide> writerSide_; // the thread of openDatabaseAsync and writeAsync
    Latest jobs_;     // the open, the start's preparation, the writes
    Ticket opening_;  // the open under way; stale when none is
    bool preparing_ = false, stopAsked_ = false; // start() accepted, no service yet; Stop pressed meanwhile
    QThread thread_;
    supervisor::SweepService *service_ = nullptr; // lives in thread_
    bool running_ = false;
    qint64 sweepId_ = 0;

    QMutex samplesMutex_;
    std::vector<StepBatch> samples_;
};

} // namespace stepscope::ui
