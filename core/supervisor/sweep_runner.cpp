#include "supervisor/sweep_runner.h"

#include "config/config_json.h"
#include "stats/stats.h"
#include "supervisor/run_profile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QMetaObject>
#include <QTemporaryDir>
#include <QThread>

#include <algorithm>

namespace stepscope::supervisor
{

SweepRunner::SweepRunner(store::Database &db, RunnerOptions options, QObject *parent)
    : QObject(parent), db_(db), options_(std::move(options))
{
    qRegisterMetaType<SweepPlan>();
    // A first step (autotuning, a compile) or a CPU step can take minutes without a `steps` line;
    // the heartbeat keeps other openers of the file from taking the run for a crashed one.
    // Parented so that moveToThread() takes the timer along to the runner's thread.
    heartbeat_.setParent(this);
    heartbeat_.setInterval(30000);
    connect(&heartbeat_, &QTimer::timeout, this, [this] {
        if (runId_)
            db_.heartbeat(runId_);
        storeHealthy();
    });
}

SweepRunner::~SweepRunner()
{
    // Closed mid-sweep (the window closes, the CLI quits): nothing may stay `running` or `queued`.
    if (worker_)
        worker_->abort();
    removeRunDirs();
    if (!running_)
        return;
    const Failure closed{FailureCategory::Cancelled, "Stepscope closed during the sweep", {}};
    if (runId_)
        db_.finishRun(runId_, RunStatus::Cancelled, closed);
    for (; next_ < plan_.runs.size(); ++next_)
        db_.finishRun(plan_.runs[next_].runId, RunStatus::Cancelled, closed);
    db_.finishSweep(plan_.sweepId, "cancelled");
    try {
        db_.flush();
    } catch (const store::StoreError &) {
        // Best effort: the rows stay `running`, and the next open turns them `interrupted`.
    }
}

void SweepRunner::removeRunDirs()
{
    if (!compileCaches_.removeAfterRun.isEmpty())
        QDir(compileCaches_.removeAfterRun).removeRecursively();
    compileCaches_ = {};
    if (machineDirs_ && !primingCaches_.dir.isEmpty())
        machineDirs_->finish(primingCaches_, plan_.runs[next_ - 1].config, false);
    primingCaches_ = {};
}

void SweepRunner::start(const SweepPlan &plan)
{
    plan_ = plan;
    next_ = 0;
    running_ = true;
    cancelRequested_ = false;
    warmup_ = Warmup::NotRun;
    stage_ = Stage::Timed;
    workersStarted_ = 0;
    steadyRuns_.clear();
    failedConfigs_.clear();
    const bool warmRuns = std::any_of(plan_.runs.begin(), plan_.runs.end(),
                                      [](const PlannedRun &r) { return r.caches == store::CacheStart::Warm; });
    machineDirs_ = std::make_unique<MachineCacheDirs>(options_.machineCacheRoot, warmRuns);
    sweepClock_.start();
    startNext();
}

void SweepRunner::cancel()
{
    if (QThread::currentThread() != thread()) {
        QMetaObject::invokeMethod(this, &SweepRunner::cancel, Qt::QueuedConnection);
        return;
    }
    if (!running_)
        return;
    cancelRequested_ = true;
    if (worker_)
        worker_->stop(); // onWorkerExited records the run as cancelled and moves on
    else
        startNext();
}

void SweepRunner::startNext()
{
    // A cancel() between runs finishes the sweep itself; the startNext() that finishCurrent()
    // queued then finds nothing to do (and must not emit finished() a second time).
    if (!running_)
        return;
    if (cancelRequested_) {
        for (; next_ < plan_.runs.size(); ++next_)
            db_.finishRun(plan_.runs[next_].runId, RunStatus::Cancelled,
                          Failure{FailureCategory::Cancelled, "the sweep was stopped before this run started", {}});
    }
    // Adaptive repeats append a round to the plan; the sweep then goes on with its first run.
    if (next_ >= plan_.runs.size() && !cancelRequested_ && options_.adaptive.enabled)
        planAnotherRound();
    if (!running_)
        return; // the store refused the new runs: storeFailed() has said finished()
    const int total = static_cast<int>(plan_.runs.size());
    if (next_ >= plan_.runs.size()) {
        db_.finishSweep(plan_.sweepId, cancelRequested_ ? "cancelled" : "complete");
        machineDirs_.reset(); // the sweep's warm caches go with it
        if (!flushed())
            return; // storeFailed() has said finished()
        running_ = false;
        Q_EMIT progress(total, total, 0, 0);
        Q_EMIT finished(cancelRequested_);
        return;
    }
    const PlannedRun &run = plan_.runs[next_];
    runId_ = run.runId;
    stage_ = Stage::Timed;
    recorder_ = std::make_unique<RunRecorder>(db_, runId_, static_cast<int>(next_), total, run.config.totalSteps(),
                                              storedEnvironment_);
    connect(recorder_.get(), &RunRecorder::environment, this, &SweepRunner::environment);
    connect(recorder_.get(), &RunRecorder::firstStep, this, &SweepRunner::firstStep);
    connect(recorder_.get(), &RunRecorder::stepsArrived, this, &SweepRunner::stepsArrived);
    connect(recorder_.get(), &RunRecorder::progress, this, &SweepRunner::progress);
    connect(recorder_.get(), &RunRecorder::phase, this, &SweepRunner::phase);
    connect(recorder_.get(), &RunRecorder::compileInfo, this, &SweepRunner::compileInfo);
    connect(recorder_.get(), &RunRecorder::storageFailed, this, &SweepRunner::storeFailed);

    const bool python = run.config.runtime == Runtime::Python;
    const WorkerCommand &worker = python ? options_.python : options_.native;
    const QString name = QString::fromStdString(canonicalName(run.config));
    Q_EMIT runStarted(runId_, static_cast<int>(next_), total, name);
    Q_EMIT progress(static_cast<int>(next_), total, 0, run.config.totalSteps());
    ++next_;
    db_.markRunning(runId_);
    if (worker.program.isEmpty()) {
        const std::string why = python && !worker.origin.isEmpty()
                                    ? worker.origin.toStdString()
                                    : "no worker program is configured for runtime " + toString(run.config.runtime);
        finishCurrent(RunStatus::Failed,
                      Failure{python ? FailureCategory::PythonNotFound : FailureCategory::Internal, why, {}});
        return;
    }
    if (!python && !options_.torch.usable()) {
        // Said in the user's words here rather than as the loader's error from inside the worker.
        finishCurrent(RunStatus::Failed, torchFailure(options_.torch));
        return;
    }
    if (!prepareCaches(run))
        return;
    if (options_.machineWarmup && warmup_ == Warmup::NotRun) {
        stage_ = Stage::WarmingUp;
        warmup_ = Warmup::Running; // once a sweep, whatever becomes of it
        const RunConfig warmup = machineWarmupConfig(run.config);
        Q_EMIT logLine("machine warm-up: one discarded step of " + QString::fromStdString(canonicalName(warmup)) +
                       " before the timed runs, so that caches which outlive a process are not charged to " + name);
        Q_EMIT warmupStarted(QString::fromStdString(canonicalName(warmup)), name);
        startWorker(warmup);
        return;
    }
    startPrimingOrRun(run.config);
}

void SweepRunner::startPrimingOrRun(const RunConfig &config)
{
    // A warm run measures caches some earlier run of this configuration filled. When none has,
    // a one-step run of it fills them first; nothing of that run is stored as steps.
    const bool compileCold =
        compileCaches_.state == "warm" && !QFileInfo::exists(primedMarker(options_.compileCacheRoot, config));
    const bool machineCold = runCaches_.start == store::CacheStart::Warm && !machineDirs_->primed(config);
    if (compileCold || machineCold) {
        // The priming process fills this configuration's warm machine caches when they are what is
        // missing, else folders of its own: a cold run's fresh folders stay empty for it.
        Failure failure;
        const bool made = machineCold ? machineDirs_->preparePriming(config, primingCaches_, failure)
                                      : machineDirs_->prepareScratch(runId_, primingCaches_, failure);
        if (!made) {
            finishCurrent(RunStatus::Failed, failure);
            return;
        }
        stage_ = Stage::Priming;
        const QString what = compileCold && machineCold ? "the warm compile and machine caches"
                             : compileCold              ? "the warm compile cache"
                                                        : "the warm machine caches";
        primingWhat_ = what.toStdString();
        Q_EMIT logLine("priming " + what + " for " + QString::fromStdString(canonicalName(config)));
        Q_EMIT primingStarted(runId_, QString::fromStdString(canonicalName(config)));
        startWorker(primingConfig(config));
        return;
    }
    startWorker(config);
}

RunConfig machineWarmupConfig(const RunConfig &firstRun)
{
    RunConfig c = firstRun;
    c.compile = CompileMode::None;
    c.compileBackend = CompileBackend::Inductor;
    c.compileTarget = CompileTarget::Model;
    c.compileCache = CompileCache::Cold;
    c.warmupSteps = 0;
    c.steps = 1;
    return c;
}

bool SweepRunner::prepareCaches(const PlannedRun &run)
{
    const RunConfig &config = run.config;
    QJsonObject dirs;
    if (config.runtime == Runtime::Python && config.compile != CompileMode::None) {
        Failure failure;
        if (!prepareCompileCache(config, options_.compileCacheRoot, compileCaches_, failure)) {
            finishCurrent(RunStatus::Failed, failure);
            return false;
        }
        dirs = compileCaches_.env();
    }
    Failure failure;
    if (!machineDirs_->prepare(runId_, config, run.caches, runCaches_, failure)) {
        finishCurrent(RunStatus::Failed, failure);
        return false;
    }
    QProcessEnvironment machine;
    runCaches_.apply(machine);
    for (const QString &variable : machine.keys())
        dirs.insert(variable, machine.value(variable));
    // Which caches the run had is part of its data (DESIGN.md: cold and warm are labelled).
    db_.setCompileCache(runId_, compileCaches_.state.toStdString(),
                        QJsonDocument(dirs).toJson(QJsonDocument::Compact).toStdString());
    return true;
}

void SweepRunner::startWorker(const RunConfig &config)
{
    const WorkerCommand &worker = config.runtime == Runtime::Python ? options_.python : options_.native;
    auto *w = new WorkerProcess(options_.timeoutSeconds, options_.oomCounterFiles, this);
    worker_ = w;
    ++workersStarted_;
    QProcessEnvironment env =
        config.runtime == Runtime::Python ? workerEnvironment() : nativeWorkerEnvironment(options_.torch);
    // The timed run gets its own machine caches, the priming process the ones it fills; the
    // machine warm-up, the user's (it warms what no run reads now: the driver and the file cache).
    if (stage_ == Stage::Timed)
        runCaches_.apply(env);
    else if (stage_ == Stage::Priming)
        primingCaches_.apply(env);
    // The priming worker fills the warm cache, so it compiles cold by design: the worker's check
    // that a warm run found its graphs does not apply to it.
    if (stage_ == Stage::Priming)
        env.insert("STEPSCOPE_PRIMING", "1");
    else
        env.remove("STEPSCOPE_PRIMING");
    if (!compileCaches_.state.isEmpty() && stage_ != Stage::WarmingUp) {
        env.insert("TORCHINDUCTOR_CACHE_DIR", compileCaches_.inductor);
        env.insert("TRITON_CACHE_DIR", compileCaches_.triton);
    }
    if (stage_ == Stage::Timed)
        recorder_->setMachineWarmup(warmup_ == Warmup::Completed ? store::MachineWarmup::WarmedUp
                                    : workersStarted_ == 1       ? store::MachineWarmup::FirstProcess
                                                                 : store::MachineWarmup::AfterOthers);
    WorkerCommand command = worker;
    if (stage_ == Stage::Timed && options_.profileSteps > 0) {
        // The timed worker profiles its last steps (issue 18.1) into the folder beside the database.
        const QString folder = traceFolderFor(QString::fromStdString(db_.path()));
        if (QDir().mkpath(folder)) {
            command.arguments << "--profile-steps" << QString::number(options_.profileSteps) << "--trace"
                              << rawTracePath(folder, runId_);
        } else {
            profile::StoredProfile none;
            none.problem = "cannot create the trace folder " + folder.toStdString();
            db_.setProfile(runId_, profile::toJson(none));
        }
    }
    connect(w, &WorkerProcess::message, this, &SweepRunner::onMessage);
    connect(w, &WorkerProcess::stdoutRead, this, &SweepRunner::storeHealthy);
    connect(w, &WorkerProcess::logLine, this, &SweepRunner::logLine);
    connect(w, &WorkerProcess::exited, this, &SweepRunner::onWorkerExited);
    connect(w, &WorkerProcess::failedToStart, this, &SweepRunner::onWorkerFailedToStart);
    heartbeat_.start();
    w->start(command, config, env);
}

void SweepRunner::onMessage(const protocol::Message &m)
{
    if (stage_ == Stage::Timed) {
        recorder_->handle(m);
        if (worker_)
            worker_->setLastStep(recorder_->lastStep());
        return;
    }
    // The warm-up and priming processes: only whether they worked matters (their judgement), and
    // that they are alive; their figures are not the run's.
    if (m.type == protocol::Message::Type::Phase) {
        db_.heartbeat(runId_);
        Q_EMIT phase(runId_, QString::fromStdString(m.phase), m.seconds, true);
    }
}

void SweepRunner::onWorkerFailedToStart(Failure failure)
{
    worker_->deleteLater();
    worker_ = nullptr;
    heartbeat_.stop();
    if (stage_ == Stage::Priming)
        failure.message = "priming " + primingWhat_ + " failed: " + failure.message;
    finishCurrent(RunStatus::Failed, failure);
}

void SweepRunner::primingExited(RunStatus status, std::optional<Failure> failure)
{
    stage_ = Stage::Timed;
    if (cancelRequested_) {
        finishCurrent(RunStatus::Cancelled,
                      Failure{FailureCategory::Cancelled, "stopped by the user while priming the warm compile cache",
                              failure ? failure->detail : std::string()});
        return;
    }
    if (status != RunStatus::Complete) {
        if (failure)
            failure->message = "priming " + primingWhat_ + " failed: " + failure->message;
        finishCurrent(status, failure);
        return;
    }
    const RunConfig &config = plan_.runs[next_ - 1].config;
    if (compileCaches_.state == "warm") {
        QFile marker(primedMarker(options_.compileCacheRoot, config));
        if (marker.open(QIODevice::WriteOnly | QIODevice::Truncate))
            marker.write(QJsonDocument(toJson(primingConfig(config))).toJson(QJsonDocument::Compact));
    }
    machineDirs_->finish(primingCaches_, config, true);
    primingCaches_ = {};
    // What a warm run finds is measured now that the priming process has filled it.
    Failure notMade;
    if (runCaches_.start == store::CacheStart::Warm &&
        !machineDirs_->prepare(runId_, config, store::CacheStart::Warm, runCaches_, notMade)) {
        finishCurrent(RunStatus::Failed, notMade);
        return;
    }
    startWorker(config);
}

bool SweepRunner::planAnotherRound()
{
    const auto &a = options_.adaptive;
    if (a.maxMinutes > 0 && sweepClock_.elapsed() >= qint64(a.maxMinutes) * 60 * 1000) {
        Q_EMIT logLine(
            QString("adaptive repeats: the sweep's %1 minutes are spent; no more processes").arg(a.maxMinutes));
        Q_EMIT adaptiveTimeSpent(a.maxMinutes);
        return false;
    }
    const bool sweepHasWarm = std::any_of(plan_.runs.begin(), plan_.runs.end(),
                                          [](const PlannedRun &r) { return r.caches == store::CacheStart::Warm; });
    // Configurations in plan order, each once, with the processes already planned for it.
    std::vector<std::pair<RunConfig, int>> configs;
    for (const auto &run : plan_.runs) {
        auto it = std::find_if(configs.begin(), configs.end(), [&](const auto &c) { return c.first == run.config; });
        if (it == configs.end())
            configs.emplace_back(run.config, 1);
        else
            ++it->second;
    }
    bool added = false;
    for (const auto &[config, planned] : configs) {
        const std::string name = canonicalName(config);
        if (failedConfigs_.count(name) || planned >= a.maxProcesses)
            continue;
        const auto &runs = steadyRuns_[name];
        QString why;
        double halfWidth = -1;
        if (runs.size() < 2) {
            why = QString("%1 process(es) with a steady state: no interval yet").arg(runs.size());
        } else {
            const auto ci = stats::medianOfRuns(runs, 1000);
            halfWidth = ci.hasInterval && ci.median > 0 ? (ci.high - ci.low) / 2 / ci.median : 1.0;
            if (halfWidth <= a.halfWidth)
                continue;
            why = QString("%1 processes, 95% CI +-%2% of the median, above +-%3%")
                      .arg(runs.size())
                      .arg(halfWidth * 100, 0, 'f', 1)
                      .arg(a.halfWidth * 100, 0, 'f', 1);
        }
        try {
            // Warm when the sweep runs warm ones: primed already, so no process is spent priming.
            appendRun(db_, plan_, config, planned, sweepHasWarm ? store::CacheStart::Warm : store::CacheStart::Cold);
        } catch (const store::StoreError &e) {
            storeFailed(e.what());
            return false;
        }
        Q_EMIT logLine("adaptive repeats: one more process of " + QString::fromStdString(name) + " (" + why + ")");
        Q_EMIT adaptiveRunAdded(QString::fromStdString(name), static_cast<int>(runs.size()), halfWidth, a.halfWidth);
        added = true;
    }
    return added;
}

void SweepRunner::warmupExited(RunStatus status, const std::optional<Failure> &failure)
{
    stage_ = Stage::Timed;
    warmup_ = status == RunStatus::Complete ? Warmup::Completed : Warmup::Failed;
    if (cancelRequested_) {
        finishCurrent(RunStatus::Cancelled,
                      Failure{FailureCategory::Cancelled, "stopped by the user during the machine warm-up", {}});
        return;
    }
    // Its figures are not kept, and its failure is not the run's: the run that follows says for itself.
    if (status != RunStatus::Complete && failure) {
        Q_EMIT logLine("machine warm-up process failed [" + QString::fromUtf8(toString(failure->category).data()) +
                       "] " + QString::fromStdString(failure->message) + "; the timed runs go on");
        Q_EMIT warmupFailed(*failure);
    }
    startPrimingOrRun(plan_.runs[next_ - 1].config);
}

void SweepRunner::onWorkerExited(RunStatus status, std::optional<Failure> failure)
{
    heartbeat_.stop();
    worker_->deleteLater();
    worker_ = nullptr;
    switch (stage_) {
    case Stage::WarmingUp:
        warmupExited(status, failure);
        break;
    case Stage::Priming:
        primingExited(status, std::move(failure));
        break;
    case Stage::Timed:
        if (status == RunStatus::Failed && failure && recorder_ && recorder_->diedProfiling() &&
            failure->category != FailureCategory::Cancelled) {
            // Every timed figure was in before the profiler started: the run is complete, its
            // profile is what failed (issue 18: a failed profile never fails the timed run).
            recorder_->recordProfileLoss("the worker ended while profiling: " + failure->message);
            QFile::remove(rawTracePath(traceFolderFor(QString::fromStdString(db_.path())), runId_));
            finishCurrent(RunStatus::Complete, std::nullopt);
            break;
        }
        finishCurrent(status, failure);
        break;
    }
}

void SweepRunner::finishCurrent(RunStatus status, const std::optional<Failure> &failure)
{
    stage_ = Stage::Timed;
    removeRunDirs(); // the worker has gone: its cold caches go too
    if (!runCaches_.dir.isEmpty()) {
        machineDirs_->finish(runCaches_, plan_.runs[next_ - 1].config, status == RunStatus::Complete);
        db_.setCacheRecord(runId_, runCaches_.record);
        runCaches_ = {};
    }
    std::vector<double> steady = recorder_->finish(status, failure);
    recorder_.reset();
    const std::string name = canonicalName(plan_.runs[next_ - 1].config);
    if (!steady.empty())
        steadyRuns_[name].push_back(std::move(steady));
    else if (status == RunStatus::Failed)
        failedConfigs_.insert(name);
    if (!flushed()) // a finished run is on disk before anyone hears of it
        return;
    Q_EMIT runFinished(runId_, status, failure);
    runId_ = 0;
    // Queued so that a long sweep does not grow the stack, and signals of this run drain first.
    QMetaObject::invokeMethod(this, &SweepRunner::startNext, Qt::QueuedConnection);
}

bool SweepRunner::flushed(bool wait)
{
    try {
        if (wait)
            db_.flush();
        else
            db_.check();
        return true;
    } catch (const store::StoreError &e) {
        storeFailed(e.what());
        return false;
    }
}

bool SweepRunner::storeHealthy()
{
    // Steps are queued, not flushed, as they arrive: a full disk or a database deleted under a long
    // run is learnt from the writer's last commit, without waiting for the run to end.
    return flushed(false);
}

void SweepRunner::storeFailed(const QString &message)
{
    // Measuring on without a place to keep the figures would waste the user's time: stop the
    // sweep and say why. What was committed before stays (the store never loses a commit).
    if (!running_ && !worker_)
        return;
    running_ = false;
    if (worker_) {
        worker_->abort(); // reaped here, not left running past the sweep's end
        worker_->deleteLater();
        worker_ = nullptr;
    }
    heartbeat_.stop();
    removeRunDirs();
    Q_EMIT storageFailed(message);
    Q_EMIT finished(true);
}

} // namespace stepscope::supervisor
