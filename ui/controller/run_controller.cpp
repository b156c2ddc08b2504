#include "controller/run_controller.h"

#include "platform/platform.h"
#include "report/run_summary.h"
#include "store/database_files.h"
#include "supervisor/sweep_runner.h"

#include <QDir>
#include <QFileInfo>
#include <QMetaObject>
#include <QMutexLocker>

#include <mutex>
#include <thread>

namespace stepscope::ui
{

// Threads of openDatabaseAsync and writeAsync deliver through this: never to a controller that
// has gone (the destructor clears `owner` under the lock).
struct RunController::Guard {
    std::mutex mutex;
    QObject *owner = nullptr;

    void deliver(std::function<void()> f)
    {
        std::lock_guard lock(mutex);
        if (owner)
            QMetaObject::invokeMethod(owner, std::move(f), Qt::QueuedConnection);
    }
};

RunController::RunController(QObject *parent) : QObject(parent), guard_(std::make_shared<Guard>())
{
    guard_->owner = this;
    thread_.setObjectName("stepscope-supervisor");
    thread_.start();
}

RunController::~RunController()
{
    {
        std::lock_guard lock(guard_->mutex);
        guard_->owner = nullptr;
    }
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
    const QString absolute = QFileInfo(path).absoluteFilePath();
    std::thread([guard = guard_, absolute, seq, this] {
        std::shared_ptr<store::Database> db;
        QString message;
        try {
            QDir().mkpath(QFileInfo(absolute).absolutePath());
            // Opened at the normal priority: the store's writer thread starts here and inherits this
            // thread's nice value, and a writer at nice 10 starved behind other processes' work
            // (a 2-configuration sweep took over 120 s at a load of 6-8). The file's check runs
            // in one thread and leaves the UI thread the other core.
            db = store::Database::open(absolute.toStdString());
            platform::lowerCurrentThreadPriority(); // the summaries may read every step of the file
            report::refreshSummaries(*db);
        } catch (const store::StoreError &e) {
            db.reset();
            message = QString::fromUtf8(e.what());
        }
        guard->deliver([this, db, absolute, seq, message] {
            if (seq != openingSeq_)
                return; // superseded by a later open; `db` closes with the last copy
            openingSeq_ = 0;
            if (!db) {
                Q_EMIT databaseRefused(absolute, message);
                return;
            }
            if (running_) { // cannot happen: start() refuses while opening; kept for safety
                Q_EMIT databaseRefused(absolute, tr("Stop the running sweep before opening another database."));
                return;
            }
            install(db, absolute);
            Q_EMIT databaseOpened(absolute);
        });
    }).detach();
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
    std::thread([guard = guard_, db = db_, write = std::move(write), done = std::move(done)] {
        platform::lowerCurrentThreadPriority();
        QString message;
        try {
            write(*db);
            db->flush();
        } catch (const store::StoreError &e) {
            message = QString::fromUtf8(e.what());
        }
        guard->deliver([done, message] {
            if (done)
                done(message);
        });
    }).detach();
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
