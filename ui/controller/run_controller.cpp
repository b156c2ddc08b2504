#include "controller/run_controller.h"

#include "controller/reader_pool.h"
#include "report/run_summary.h"
#include "store/database_files.h"
#include "supervisor/sweep_runner.h"

#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QMetaObject>
#include <QMutexLocker>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>

namespace stepscope::ui
{

// The writer side of openDatabaseAsync and writeAsync: one thread, so writes reach the store in the
// order they were asked for. It is never niced: the store's writer thread, which an open starts
// here, inherits its nice value, and a writer at nice 10 starved behind other processes' work (a
// 2-configuration sweep took over 120 s at a load of 6-8). Idle, the thread ends after a moment;
// the controller's destructor waits for work under way (a write is committed, not cut off).
struct RunController::WriterSide {
    std::atomic<qint64> latestOpen{0}; // an open queued behind a later one is skipped
    QThreadPool pool;

    WriterSide()
    {
        pool.setMaxThreadCount(1);
        pool.setExpiryTimeout(1000);
    }
};

namespace
{

// Runs `then(result)` on `context`'s thread once `future` has finished; never once `context` has
// gone (the watcher is its child).
template <typename T, typename Then> void whenDone(QObject *context, QFuture<T> future, Then then)
{
    auto *watcher = new QFutureWatcher<T>(context);
    QObject::connect(watcher, &QFutureWatcherBase::finished, context, [watcher, then = std::move(then)]() mutable {
        watcher->deleteLater();
        then(watcher->result());
    });
    watcher->setFuture(std::move(future));
}

// A database as the writer side opened it, or why it refused the file.
struct Opened {
    std::shared_ptr<store::Database> db;
    QString error;
};

} // namespace

RunController::RunController(QObject *parent) : QObject(parent), writerSide_(std::make_unique<WriterSide>())
{
    thread_.setObjectName("stepscope-supervisor");
    thread_.start();
}

RunController::~RunController()
{
    if (runner_) {
        // The runner's destructor kills a live worker and marks its run cancelled.
        QMetaObject::invokeMethod(
            runner_, [r = runner_] { delete r; }, Qt::BlockingQueuedConnection);
        runner_ = nullptr;
    }
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
        openingSeq_ = 0; // supersedes an asynchronous open under way
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
    if (runner_) {
        QMetaObject::invokeMethod(
            runner_, [r = runner_] { delete r; }, Qt::BlockingQueuedConnection);
        runner_ = nullptr;
    }
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
    const qint64 seq = ++openSeq_;
    openingSeq_ = seq;
    writerSide_->latestOpen = seq;
    const QString absolute = QFileInfo(path).absoluteFilePath();
    // First the file's check and the store's writer thread, on the writer side at normal priority.
    auto open = [side = writerSide_.get(), absolute, seq]() -> Opened {
        if (side->latestOpen != seq)
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
    // On this thread after each stage; `db` closes with its last copy when an open was superseded.
    auto deliver = [this, absolute, seq](const Opened &opened) {
        openingSeq_ = 0;
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
    whenDone(this, QtConcurrent::run(&writerSide_->pool, std::move(open)),
             [this, seq, absolute, refresh, deliver](const Opened &opened) {
                 if (seq != openingSeq_)
                     return;
                 if (!opened.db) {
                     deliver(opened);
                     return;
                 }
                 const auto pool = ReaderPool::of(absolute);
                 whenDone(this, QtConcurrent::run(pool->threads(), refresh, opened.db, pool->path()),
                          [this, seq, deliver, pool](const Opened &refreshed) {
                              if (seq == openingSeq_)
                                  deliver(refreshed);
                          });
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
    whenDone(this, QtConcurrent::run(&writerSide_->pool, std::move(commit)),
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

bool RunController::start(const SweepRequest &request, QString *error)
{
    auto fail = [&](const QString &message) {
        if (error)
            *error = message;
        return false;
    };
    if (running_)
        return fail(tr("A sweep is already running."));
    if (openingSeq_)
        return fail(tr("The database is still being opened."));
    if (!db_)
        return fail(tr("No database is open."));
    if (request.configs.empty())
        return fail(tr("The sweep has no configuration: tick at least one option or add to the custom list."));
    for (const auto &c : request.configs) {
        const auto problems = validate(c);
        if (!problems.empty())
            return fail(QString::fromStdString(canonicalName(c) + ": " + describe(problems)));
    }

    supervisor::SweepPlan plan;
    try {
        const QString name = request.name.isEmpty()
                                 ? QString("%1 %2 b%3 %4px")
                                       .arg(request.preset, QString::fromStdString(request.configs.front().device))
                                       .arg(request.configs.front().batch)
                                       .arg(request.configs.front().imageSize)
                                 : request.name;
        plan = supervisor::planSweep(*db_, name.toStdString(), request.preset.toStdString(), request.configs,
                                     request.repeats, request.plannedSteps, request.baseline);
    } catch (const store::StoreError &e) {
        return fail(QString::fromUtf8(e.what()));
    }

    if (runner_) {
        QMetaObject::invokeMethod(
            runner_, [r = runner_] { delete r; }, Qt::BlockingQueuedConnection);
        runner_ = nullptr;
    }
    supervisor::RunnerOptions options;
    options.native = supervisor::defaultNativeWorker();
    // Resolved once per sweep: with no interpreter the Python runs fail python-not-found with what
    // was tried (the origin), and the native ones still run.
    options.python = supervisor::defaultPythonWorker(python_);
    if (!compileCacheRoot_.isEmpty())
        options.compileCacheRoot = compileCacheRoot_;
    options.freshCudaCache = request.freshCudaCache;
    // As the CLI does: built sweeps start with one discarded process, so that the machine's caches
    // are not charged to the baseline; a single configuration or a hand-made list runs as given.
    options.machineWarmup = request.machineWarmup.value_or(request.preset != "single" && request.preset != "custom");
    options.adaptive.enabled = request.adaptive;
    options.adaptive.halfWidth = request.adaptiveHalfWidth;
    options.adaptive.maxProcesses = request.adaptiveMaxProcesses;
    options.adaptive.maxMinutes = request.adaptiveMaxMinutes;
    runner_ = new supervisor::SweepRunner(*db_, options);
    runner_->moveToThread(&thread_);

    // Step samples take the direct route into a locked buffer; everything else is queued to this
    // (UI) thread as ordinary signals.
    connect(
        runner_, &supervisor::SweepRunner::stepsArrived, runner_,
        [this](qint64 runId, int first, const QVector<double> &gpu, const QVector<double> &wall) {
            QMutexLocker lock(&samplesMutex_);
            samples_.push_back({runId, first, gpu.isEmpty() ? wall : gpu});
        },
        Qt::DirectConnection);
    connect(runner_, &supervisor::SweepRunner::runStarted, this,
            [this](qint64 runId, int index, int total, const QString &name) {
                runClock_.start();
                Q_EMIT runStarted(runId, index, total, name);
            });
    connect(runner_, &supervisor::SweepRunner::firstStep, this, &RunController::firstStep);
    connect(runner_, &supervisor::SweepRunner::environment, this, &RunController::environment);
    connect(runner_, &supervisor::SweepRunner::phase, this, &RunController::phase);
    connect(runner_, &supervisor::SweepRunner::compileInfo, this, &RunController::compileInfo);
    connect(runner_, &supervisor::SweepRunner::runFinished, this,
            [this](qint64 runId, int status, const QString &category, const QString &message) {
                ++runsDone_;
                secondsPerFinishedRun_ = static_cast<double>(sweepClock_.elapsed()) / 1000.0 / runsDone_;
                Q_EMIT runFinished(runId, status, category, message);
            });
    connect(runner_, &supervisor::SweepRunner::progress, this, &RunController::onProgress);
    connect(runner_, &supervisor::SweepRunner::logLine, this, &RunController::logLine);
    connect(runner_, &supervisor::SweepRunner::storageFailed, this, &RunController::failed);
    connect(runner_, &supervisor::SweepRunner::finished, this, &RunController::onFinished);

    running_ = true;
    sweepId_ = plan.sweepId;
    runsDone_ = 0;
    secondsPerFinishedRun_ = 0;
    sweepClock_.start();
    runClock_.start();
    Q_EMIT sweepStarted(plan.sweepId, static_cast<int>(plan.runs.size()));
    QMetaObject::invokeMethod(
        runner_, [r = runner_, plan] { r->start(plan); }, Qt::QueuedConnection);
    return true;
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
    if (runner_ && running_)
        runner_->cancel(); // thread-safe: queues itself into the runner's thread
}

std::vector<StepBatch> RunController::takeSamples()
{
    QMutexLocker lock(&samplesMutex_);
    std::vector<StepBatch> out;
    out.swap(samples_);
    return out;
}

void RunController::onProgress(int finishedRuns, int totalRuns, int step, int steps)
{
    const double runFraction = steps > 0 ? std::min(1.0, double(step) / steps) : 0.0;
    const double sweepFraction = totalRuns > 0 ? (finishedRuns + runFraction) / totalRuns : 1.0;
    qint64 left = -1;
    // Time left from the pace so far: whole runs once one has finished, else this run's steps.
    if (runsDone_ > 0)
        left = static_cast<qint64>(secondsPerFinishedRun_ * (totalRuns - finishedRuns - runFraction));
    else if (runFraction > 0.05)
        left = static_cast<qint64>(static_cast<double>(runClock_.elapsed()) / 1000.0 / runFraction *
                                   (totalRuns - runFraction));
    Q_EMIT progress(runFraction, sweepFraction, left);
}

void RunController::onFinished(bool cancelled)
{
    running_ = false;
    Q_EMIT finished(sweepId_, cancelled);
}

} // namespace stepscope::ui
