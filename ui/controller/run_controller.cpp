#include "controller/run_controller.h"

#include "controller/reader_pool.h"
#include "report/run_summary.h"
#include "store/database_files.h"
#include "supervisor/sweep_service.h"

#include <QDir>
#include <QFileInfo>
#include <QMetaObject>
#include <QMutexLocker>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>


namespace stepscope::ui
{

// The writer side of openDatabaseAsync and writeAsync: one thread, so writes reach the store in the
// order they were asked for. It is never niced: the store's writer thread, which an open starts
// here, inherits its nice value, and a writer at nice 10 starved behind other processes' work (a
// 2-configuration sweep took over 120 s at a load of 6-8). Idle, the thread ends after a moment;
// the controller's destructor waits for work under way (a write is committed, not cut off).
struct RunController::WriterSide {
    QThreadPool pool;

    WriterSide()
    {
        pool.setMaxThreadCount(1);
        pool.setExpiryTimeout(1000);
    }
};

namespace
{

// A database as the writer side opened it, or why it refused the file.
struct Opened {
    std::shared_ptr<store::Database> db;
    QString error;
};

// A sweep prepared on the writer side (its plan stored), or why it was refused.
struct Prepared {
    std::optional<supervisor::PreparedSweep> sweep;
    QString error;
};

// The kinds of request of the controller's job frame: a later open supersedes an earlier one, a
// later start cannot happen before the earlier one arrived (isRunning), and writes supersede nothing.
enum Kind { kOpen, kStart, kKinds };

} // namespace

RunController::RunController(QObject *parent)
    : QObject(parent), writerSide_(std::make_unique<WriterSide>()), jobs_(this, kKinds)
{
    thread_.setObjectName("stepscope-supervisor");
    thread_.start();
}

RunController::~RunController()
{
    // A write asked for now (writeAsync) is committed before writerSide_ goes.
    if (db_)
        Q_EMIT closingDatabase();
    deleteService(); // the runner's destructor kills a live worker and marks its run cancelled
    thread_.quit();
    thread_.wait();
}

QString RunController::defaultDatabasePath()
{
    return QString::fromStdString(store::defaultDatabasePath());
}

QString RunController::noDefaultDatabase()
{
    return tr("No database: HOME is not set (nor XDG_DATA_HOME), so there is no default place for measurements. "
              "Open or create one with File › Open database…, or start with --db FILE.");
}

bool RunController::openDatabase(const QString &path, QString *error)
{
    if (running_ || path.isEmpty()) {
        if (error)
            *error = running_ ? tr("Stop the running sweep before opening another database.") : noDefaultDatabase();
        return false;
    }
    QDir().mkpath(QFileInfo(path).absolutePath());
    try {
        std::shared_ptr<store::Database> db = store::Database::open(path.toStdString());
        // Completed runs without a summary of the current rule get one now: every view reads it.
        report::refreshSummaries(*db);
        jobs_.drop(kOpen); // supersedes an asynchronous open under way
        opening_ = {};
        install(std::move(db), path);
        return true;
    } catch (const store::StoreError &e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
}

void RunController::install(std::shared_ptr<store::Database> db, const QString &path)
{
    if (db_)
        Q_EMIT closingDatabase();
    deleteService();
    db_ = std::move(db);
    path_ = QFileInfo(path).absoluteFilePath();
}

bool RunController::openDatabaseAsync(const QString &path, QString *error)
{
    if (running_ || path.isEmpty()) {
        if (error)
            *error = running_ ? tr("Stop the running sweep before opening another database.") : noDefaultDatabase();
        return false;
    }
    const Ticket ticket = jobs_.next(kOpen);
    opening_ = ticket;
    const QString absolute = QFileInfo(path).absoluteFilePath();
    // First the file's check and the store's writer thread, on the writer side at normal priority.
    auto open = [absolute, ticket]() -> Opened {
        if (ticket.stale())
            return {}; // superseded before it started
        try {
            QDir().mkpath(QFileInfo(absolute).absolutePath());
            return {store::Database::open(absolute.toStdString()), {}};
        } catch (const store::StoreError &e) {
            return {nullptr, QString::fromUtf8(e.what())};
        }
    };
    // Then the summaries, which may read every step of the file: on its reader thread, below the UI
    // thread, with that thread's reader (the jobs read the file there next).
    auto refresh = [](std::shared_ptr<store::Database> db, QString file) -> Opened {
        try {
            report::refreshSummaries(*db, ReaderPool::readerOnThisThread(file));
            return {std::move(db), {}};
        } catch (const store::StoreError &e) {
            ReaderPool::dropReaderOnThisThread();
            return {nullptr, QString::fromUtf8(e.what())};
        }
    };
    // On this thread after each stage, while the open is still the latest; `db` closes with its
    // last copy when it was superseded.
    auto deliver = [this, absolute](const Opened &opened) {
        opening_ = {};
        if (!opened.db) {
            Q_EMIT databaseRefused(absolute, opened.error);
            return;
        }
        if (running_) { // cannot happen: start() refuses while opening; kept for safety
            Q_EMIT databaseRefused(absolute, tr("Stop the running sweep before opening another database."));
            return;
        }
        install(opened.db, absolute);
        Q_EMIT databaseOpened(absolute);
    };
    jobs_.when(ticket, QtConcurrent::run(&writerSide_->pool, std::move(open)),
               [this, ticket, absolute, refresh, deliver](const Opened &opened) {
                   if (!opened.db) {
                       deliver(opened);
                       return;
                   }
                   const auto pool = ReaderPool::of(absolute);
                   jobs_.when(ticket, QtConcurrent::run(pool->threads(), refresh, opened.db, pool->path()),
                              [deliver, pool](const Opened &refreshed) { deliver(refreshed); });
               });
    return true;
}

bool RunController::writeAsync(std::function<void(store::Database &)> write,
                               std::function<void(const QString &error)> done, QString *error)
{
    if (!db_) {
        if (error)
            *error = tr("No database is open.");
        return false;
    }
    // The write itself runs on the store's writer thread; the writer side only waits for its commit.
    auto commit = [db = db_, write = std::move(write)]() -> QString {
        try {
            write(*db);
            db->flush();
            return {};
        } catch (const store::StoreError &e) {
            return QString::fromUtf8(e.what());
        }
    };
    jobs_.when(jobs_.alongside(), QtConcurrent::run(&writerSide_->pool, std::move(commit)),
               [done = std::move(done)](const QString &message) {
                   if (done)
                       done(message);
               });
    return true;
}

bool RunController::renameSweep(qint64 sweepId, const QString &name, std::function<void(const QString &)> done,
                                QString *error)
{
    const std::string text = name.trimmed().toStdString();
    if (text.empty()) {
        if (error)
            *error = tr("A sweep needs a name.");
        return false;
    }
    return writeAsync([sweepId, text](store::Database &db) { db.renameSweep(sweepId, text); }, std::move(done), error);
}

void RunController::deleteService()
{
    if (!service_)
        return;
    QMetaObject::invokeMethod(
        service_, [s = service_] { delete s; }, Qt::BlockingQueuedConnection);
    service_ = nullptr;
}

bool RunController::start(const SweepRequest &request, QString *error)
{
    auto fail = [&](const QString &message) {
        if (error)
            *error = message;
        return false;
    };
    if (running_)
        return fail(tr("A sweep is already running."));
    if (isOpening())
        return fail(tr("The database is still being opened."));
    if (!db_)
        return fail(tr("No database is open."));
    SweepRequest r = request;
    if (r.python.isEmpty())
        r.python = python_;
    if (r.cacheRoot.isEmpty())
        r.cacheRoot = compileCacheRoot_;
    // A request the service would refuse is refused here at once (validating costs nothing); the
    // rest of prepare (the plan's transaction, nvidia-smi for GPU lanes) runs on the writer side.
    if (const auto problems = supervisor::validate(r); !problems.empty())
        return fail(QString::fromStdString(describe(problems)));
    running_ = preparing_ = true;
    stopAsked_ = false;
    auto prepare = [db = db_, r]() -> Prepared {
        try {
            std::vector<ConfigError> problems;
            auto sweep = supervisor::SweepService::prepare(*db, r, problems);
            const QString refused = sweep ? QString() : QString::fromStdString(describe(problems));
            return {std::move(sweep), refused};
        } catch (const store::StoreError &e) {
            return {std::nullopt, QString::fromUtf8(e.what())};
        }
    };
    jobs_.when(jobs_.next(kStart), QtConcurrent::run(&writerSide_->pool, std::move(prepare)),
               [this](const Prepared &prepared) { launch(prepared.sweep, prepared.error); });
    return true;
}

void RunController::launch(const std::optional<supervisor::PreparedSweep> &sweep, const QString &error)
{
    preparing_ = false;
    if (!sweep) {
        running_ = false;
        Q_EMIT startFailed(error);
        return;
    }
    deleteService();
    service_ = new supervisor::SweepService(*db_);
    service_->moveToThread(&thread_);
    // Step samples take the direct route into a locked buffer; the events are queued to this (UI)
    // thread and handed on as they are (onEvent).
    connect(
        service_, &supervisor::SweepService::stepsArrived, service_,
        [this](qint64 runId, int first, const QVector<double> &gpu, const QVector<double> &wall) {
            pushSamples({runId, first, gpu.isEmpty() ? wall : gpu});
        },
        Qt::DirectConnection);
    connect(service_, &supervisor::SweepService::sweepEvent, this, &RunController::onEvent);

    sweepId_ = sweep->plan.sweepId;
    Q_EMIT sweepStarted(sweep->plan.sweepId, static_cast<int>(sweep->plan.runs.size()));
    // A host with GPUs of two models runs on one group (supervisor/sweep_lanes.h): said, not hidden.
    if (!sweep->lanesNote.isEmpty())
        Q_EMIT lanesNote(sweep->lanesNote);
    QMetaObject::invokeMethod(
        service_, [s = service_, prepared = *sweep] { s->start(prepared); }, Qt::QueuedConnection);
    if (stopAsked_)
        service_->cancel(); // Stop was pressed while the sweep was being prepared: its runs end cancelled
}

void RunController::onEvent(const supervisor::SweepEvent &e)
{
    if (std::holds_alternative<supervisor::event::Finished>(e))
        running_ = false;
    Q_EMIT sweepEvent(e);
}

bool RunController::deleteSweep(qint64 sweepId, QString *error)
{
    auto fail = [&](const QString &message) {
        if (error)
            *error = message;
        return false;
    };
    if (!db_)
        return fail(tr("No database is open."));
    if (running_ && sweepId == sweepId_)
        return fail(tr("Stop the running sweep before deleting it."));
    try {
        db_->deleteSweep(sweepId);
        db_->flush();
    } catch (const store::StoreError &e) {
        return fail(QString::fromUtf8(e.what()));
    }
    return true;
}

void RunController::stop()
{
    if (!running_)
        return;
    if (preparing_)
        stopAsked_ = true; // said to the service once it exists (launch)
    else if (service_)
        service_->cancel(); // thread-safe: queues itself into the service's thread
}

void RunController::pushSamples(StepBatch batch)
{
    QMutexLocker lock(&samplesMutex_);
    samples_.push_back(std::move(batch));
}

std::vector<StepBatch> RunController::takeSamples()
{
    QMutexLocker lock(&samplesMutex_);
    std::vector<StepBatch> out;
    out.swap(samples_);
    return out;
}

} // namespace stepscope::ui
