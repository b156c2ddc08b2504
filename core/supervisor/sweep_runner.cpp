#include "supervisor/sweep_runner.h"

#include "config/config_json.h"
#include "platform/platform.h"
#include "report/run_summary.h"
#include "stats/stats.h"

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
namespace
{

constexpr qsizetype kStderrKeep = 64 * 1024; // the tail of the worker's log kept as failure detail
constexpr const char *kPrimingFailed = "priming the warm compile cache failed: ";

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

// QTimer counts milliseconds in an int: seconds beyond the cap would wrap round to a timeout of a
// fraction of a second, or to none.
int silenceLimitMs(int seconds)
{
    return std::clamp(seconds, 1, kMaxTimeoutSeconds) * 1000;
}

std::string mib(std::int64_t kib)
{
    return std::to_string((kib + 512) / 1024) + " MiB";
}

} // namespace

SweepRunner::SweepRunner(store::Database &db, RunnerOptions options, QObject *parent)
    : QObject(parent), db_(db), options_(std::move(options))
{
    qRegisterMetaType<SweepPlan>();
    // Parented so that moveToThread() takes the timer along to the runner's thread.
    timeout_.setParent(this);
    timeout_.setSingleShot(true);
    connect(&timeout_, &QTimer::timeout, this, &SweepRunner::onTimeout);
    // A first step (autotuning, a compile) or a CPU step can take minutes without a `steps` line;
    // the heartbeat keeps other openers of the file from taking the run for a crashed one.
    heartbeat_.setParent(this);
    heartbeat_.setInterval(30000);
    connect(&heartbeat_, &QTimer::timeout, this, [this] {
        if (runId_)
            db_.heartbeat(runId_);
        storeHealthy();
    });
    // The OOM killer leaves nothing behind but a SIGKILL: what the worker had grown to is read
    // while it lives.
    memoryWatch_.setParent(this);
    memoryWatch_.setInterval(500);
    connect(&memoryWatch_, &QTimer::timeout, this, [this] {
        if (process_)
            workerPeakKiB_ = std::max(workerPeakKiB_, peakResidentKiB(process_->processId()));
    });
}

SweepRunner::~SweepRunner()
{
    // Closed mid-sweep (the window closes, the CLI quits): nothing may stay `running` or `queued`.
    if (process_) {
        process_->disconnect(this);
        process_->kill();
        process_->waitForFinished(3000);
    }
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
    for (const QString &dir : {cacheDir_, compileCaches_.removeAfterRun})
        if (!dir.isEmpty())
            QDir(dir).removeRecursively();
    cacheDir_.clear();
    compileCaches_ = {};
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
    if (process_)
        killWorker(); // onExited records the run as cancelled and moves on
    else
        startNext();
}

void SweepRunner::killWorker()
{
    // SIGTERM lets the worker stop between steps and say so; SIGKILL follows if it does not.
    process_->terminate();
    QTimer::singleShot(3000, process_.data(), [p = process_] {
        if (p && p->state() != QProcess::NotRunning)
            p->kill();
    });
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
    resetRunState();

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
    if (!prepareCaches(run.config))
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
    // A warm run measures a cache some earlier run of this configuration filled. When none has,
    // a one-step run of it fills the cache first; nothing of that run is stored as steps.
    if (compileCaches_.state == "warm" && !QFileInfo::exists(primedMarker(options_.compileCacheRoot, config))) {
        stage_ = Stage::Priming;
        Q_EMIT logLine("priming the warm compile cache for " + QString::fromStdString(canonicalName(config)));
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

void SweepRunner::resetRunState()
{
    stepsSeen_ = 0;
    timedOut_ = false;
    gotDone_ = false;
    reported_.reset();
    protocolProblems_.clear();
    stderrTail_.clear();
    lines_ = protocol::LineBuffer{};
    helloEnvironment_ = QJsonObject{};
    steps_.clear();
}

bool SweepRunner::prepareCaches(const RunConfig &config)
{
    QJsonObject dirs;
    if (config.runtime == Runtime::Python && config.compile != CompileMode::None) {
        Failure failure;
        if (!prepareCompileCache(config, options_.compileCacheRoot, compileCaches_, failure)) {
            finishCurrent(RunStatus::Failed, failure);
            return false;
        }
        dirs = compileCaches_.env();
    }
    if (options_.freshCudaCache) {
        QTemporaryDir dir(QDir::tempPath() + "/stepscope-cuda-cache-XXXXXX");
        dir.setAutoRemove(false);
        cacheDir_ = dir.path();
        dirs.insert("CUDA_CACHE_PATH", cacheDir_);
    }
    // Which caches the run had is part of its data (DESIGN.md: cold and warm are labelled).
    if (!dirs.isEmpty())
        db_.setCompileCache(runId_, compileCaches_.state.toStdString(),
                            QJsonDocument(dirs).toJson(QJsonDocument::Compact).toStdString());
    return true;
}

void SweepRunner::startWorker(const RunConfig &config)
{
    const WorkerCommand &worker = config.runtime == Runtime::Python ? options_.python : options_.native;
    auto *p = new QProcess(this);
    process_ = p;
    ++workersStarted_;
    QProcessEnvironment env = workerEnvironment();
    // Priming fills the compile caches only: the measured run's CUDA cache stays fresh. The
    // machine warm-up touches neither.
    if (!cacheDir_.isEmpty() && stage_ == Stage::Timed)
        env.insert("CUDA_CACHE_PATH", cacheDir_);
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
    p->setProcessEnvironment(env);
    connect(p, &QProcess::readyReadStandardOutput, this, &SweepRunner::onStdout);
    connect(p, &QProcess::readyReadStandardError, this, &SweepRunner::onStderr);
    connect(p, &QProcess::finished, this, &SweepRunner::onExited);
    connect(p, &QProcess::errorOccurred, this, [this, p](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart && process_ == p) {
            const bool python = plan_.runs[next_ - 1].config.runtime == Runtime::Python;
            process_ = nullptr;
            p->deleteLater();
            timeout_.stop();
            heartbeat_.stop();
            memoryWatch_.stop();
            finishCurrent(RunStatus::Failed,
                          Failure{python ? FailureCategory::PythonNotFound : FailureCategory::WorkerCrashed,
                                  std::string(stage_ == Stage::Priming ? kPrimingFailed : "") +
                                      "could not start the worker " + p->program().toStdString() + ": " +
                                      p->errorString().toStdString(),
                                  {}});
        }
    });
    QStringList args = worker.arguments;
    args << "--config" << QString::fromUtf8(QJsonDocument(toJson(config)).toJson(QJsonDocument::Compact));
    timeout_.start(silenceLimitMs(options_.timeoutSeconds));
    heartbeat_.start();
    workerPeakKiB_ = -1;
    oomKillsAtStart_ = oomKillCount(options_.oomCounterFiles);
    memoryWatch_.start();
    p->start(worker.program, args);
}

void SweepRunner::onStdout()
{
    if (!process_)
        return;
    // The timeout watches for silence, not total time: a long run that keeps reporting steps is
    // alive; a worker stuck in a driver call is not.
    timeout_.start(silenceLimitMs(options_.timeoutSeconds));
    for (const auto &line : lines_.append(process_->readAllStandardOutput())) {
        handle(protocol::parseLine(line));
        if (!process_)
            return; // the store refused a write: the sweep has stopped
    }
    storeHealthy();
}

void SweepRunner::onStderr()
{
    if (!process_)
        return;
    const QByteArray bytes = process_->readAllStandardError();
    stderrTail_ += bytes;
    if (stderrTail_.size() > kStderrKeep)
        stderrTail_ = stderrTail_.right(kStderrKeep);
    for (const auto &l : bytes.split('\n'))
        if (!l.trimmed().isEmpty())
            Q_EMIT logLine(QString::fromUtf8(l));
}

void SweepRunner::handle(const protocol::Message &m)
{
    using T = protocol::Message::Type;
    if (stage_ != Stage::Timed) {
        handlePriming(m);
        return;
    }
    switch (m.type) {
    case T::Hello:
        helloEnvironment_ = QJsonDocument::fromJson(m.environmentJson).object();
        // Which machine-wide caches this run's first step found warm (DESIGN.md: a machine's first
        // process pays for the CUDA JIT cache and cuDNN's engines), as data of the run.
        db_.setMachineWarmup(runId_, warmup_ == Warmup::Completed ? store::MachineWarmup::WarmedUp
                                     : workersStarted_ == 1       ? store::MachineWarmup::FirstProcess
                                                                  : store::MachineWarmup::AfterOthers);
        recordEnvironment(helloEnvironment_);
        break;
    case T::GpuState: {
        // The state after the timed steps joins the run's environment as after_* keys.
        QJsonObject merged = helloEnvironment_;
        for (const auto &[k, v] : m.environment)
            if (k != "nvidia_driver" && k != "sm_clock_max_mhz") // fixed facts, already in hello
                merged.insert("after_" + QString::fromStdString(k), QString::fromStdString(v));
        recordEnvironment(merged);
        break;
    }
    case T::Ready:
        db_.setSetup(runId_, m.seconds);
        break;
    case T::FirstStep:
        db_.setFirstStep(runId_, m.seconds);
        Q_EMIT firstStep(runId_, m.seconds);
        break;
    case T::Steps: {
        std::vector<store::StepRow> rows;
        rows.reserve(m.wallMs.size());
        for (std::size_t i = 0; i < m.wallMs.size(); ++i) {
            store::StepRow row;
            row.index = m.firstIndex + static_cast<std::int64_t>(i);
            row.wallMs = m.wallMs[i];
            if (!m.gpuMs.empty())
                row.gpuMs = m.gpuMs[i];
            rows.push_back(row);
        }
        db_.appendSteps(runId_, rows);
        steps_.insert(steps_.end(), rows.begin(), rows.end());
        stepsSeen_ = m.firstIndex + static_cast<int>(m.wallMs.size()) - 1;
        Q_EMIT stepsArrived(runId_, m.firstIndex, QVector<double>(m.gpuMs.begin(), m.gpuMs.end()),
                            QVector<double>(m.wallMs.begin(), m.wallMs.end()));
        const auto &config = plan_.runs[next_ - 1].config;
        Q_EMIT progress(static_cast<int>(next_ - 1), static_cast<int>(plan_.runs.size()), stepsSeen_,
                        config.totalSteps());
        break;
    }
    case T::Memory:
        db_.setMemory(runId_, m.peakAllocated, m.peakReserved);
        break;
    case T::Check:
        db_.setCheckLosses(runId_, m.losses);
        break;
    case T::Phase:
        // Minutes of compiling print no steps: the heartbeat keeps the run from looking stale.
        db_.heartbeat(runId_);
        Q_EMIT phase(runId_, QString::fromStdString(m.phase), m.seconds, false);
        break;
    case T::Compile:
        db_.setCompileInfo(runId_, m.compileJson.toStdString());
        Q_EMIT compileInfo(runId_, QString::fromUtf8(m.compileJson));
        break;
    case T::Done:
        gotDone_ = true;
        if (m.meanWallMs > 0)
            db_.setBlockWall(runId_, m.meanWallMs);
        break;
    case T::Error:
        reported_ = m.failure;
        break;
    case T::Invalid:
        // Garbage on stdout (a stray print in a library) is logged, not fatal: the run is judged
        // by whether `done` arrives.
        protocolProblems_ += QString::fromStdString(m.problem) + '\n';
        Q_EMIT logLine("protocol: " + QString::fromStdString(m.problem));
        break;
    }
}

void SweepRunner::handlePriming(const protocol::Message &m)
{
    // Only whether it worked matters, and that it is alive; its figures are not the run's.
    using T = protocol::Message::Type;
    if (m.type == T::Phase) {
        db_.heartbeat(runId_);
        Q_EMIT phase(runId_, QString::fromStdString(m.phase), m.seconds, true);
    } else if (m.type == T::Error) {
        reported_ = m.failure;
    } else if (m.type == T::Done) {
        gotDone_ = true;
    } else if (m.type == T::Invalid) {
        protocolProblems_ += QString::fromStdString(m.problem) + '\n';
        Q_EMIT logLine("protocol: " + QString::fromStdString(m.problem));
    }
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
            failure->message = kPrimingFailed + failure->message;
        finishCurrent(status, failure);
        return;
    }
    const RunConfig &config = plan_.runs[next_ - 1].config;
    QFile marker(primedMarker(options_.compileCacheRoot, config));
    if (marker.open(QIODevice::WriteOnly | QIODevice::Truncate))
        marker.write(QJsonDocument(toJson(primingConfig(config))).toJson(QJsonDocument::Compact));
    resetRunState();
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
            appendRun(db_, plan_, config, planned);
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
    resetRunState();
    startPrimingOrRun(plan_.runs[next_ - 1].config);
}

void SweepRunner::onExited(int exitCode, QProcess::ExitStatus status)
{
    if (!process_)
        return;
    timeout_.stop();
    heartbeat_.stop();
    memoryWatch_.stop();
    onStdout();
    if (!process_)
        return;
    onStderr();
    const QByteArray rest = lines_.takeRest();
    if (!rest.isEmpty()) {
        const auto m = protocol::parseLine(rest);
        if (m.type != protocol::Message::Type::Invalid)
            handle(m);
        else
            protocolProblems_ += "truncated last line: " + QString::fromUtf8(rest.left(200)) + '\n';
    }
    if (!process_)
        return;
    process_->deleteLater();
    process_ = nullptr;

    auto [outcome, failure] = judgeExit(exitCode, status);
    switch (stage_) {
    case Stage::WarmingUp:
        warmupExited(outcome, failure);
        break;
    case Stage::Priming:
        primingExited(outcome, std::move(failure));
        break;
    case Stage::Timed:
        finishCurrent(outcome, failure);
        break;
    }
}

std::pair<RunStatus, std::optional<Failure>> SweepRunner::judgeExit(int exitCode, QProcess::ExitStatus status) const
{
    const std::string log = stderrTail_.toStdString() +
                            (protocolProblems_.isEmpty() ? "" : "\n[protocol]\n" + protocolProblems_.toStdString());
    const bool completed = gotDone_ && !reported_ && status == QProcess::NormalExit && exitCode == 0;
    // Checked first: a Stop that lands after `done` must not throw a whole measurement away.
    if (completed)
        return {RunStatus::Complete, std::nullopt};
    if (timedOut_)
        return {RunStatus::Failed,
                Failure{FailureCategory::Timeout,
                        "the worker said nothing for " + std::to_string(options_.timeoutSeconds) + " s", log}};
    if (cancelRequested_)
        return {RunStatus::Cancelled, Failure{FailureCategory::Cancelled, "stopped by the user", log}};
    if (reported_) {
        Failure f = *reported_;
        if (!log.empty())
            f.detail += (f.detail.empty() ? "" : "\n\n[worker log]\n") + log;
        return {RunStatus::Failed, f};
    }
    if (const auto kill = platform::killSignal(); status == QProcess::CrashExit && kill && exitCode == *kill)
        return {RunStatus::Failed, judgeUnexplainedKill(log)};
    const std::string how = status == QProcess::CrashExit ? "the worker crashed (signal " + std::to_string(exitCode) +
                                                                ": " + platform::signalName(exitCode) + ")"
                            : gotDone_ ? "the worker exited with code " + std::to_string(exitCode) + " after finishing"
                                       : "the worker ended without finishing (exit code " + std::to_string(exitCode) +
                                             ", last step " + std::to_string(stepsSeen_) + ")";
    return {RunStatus::Failed, Failure{FailureCategory::WorkerCrashed, how, log}};
}

Failure SweepRunner::judgeUnexplainedKill(const std::string &log) const
{
    // Stepscope sends SIGKILL only after its own timeout or a cancel, both judged before this. The
    // kernel's OOM killer sends it and says nothing else: its count of kills, or a worker that had
    // grown to most of the memory there is, gives it away. Neither is proof, hence "probably".
    const std::int64_t limitKiB = memoryLimitKiB();
    std::string peak;
    if (workerPeakKiB_ > 0)
        peak = "its peak resident memory was " + mib(workerPeakKiB_) +
               (limitKiB > 0 ? " of " + mib(limitKiB) + " there is" : std::string());
    const std::int64_t oomKills = oomKillCount(options_.oomCounterFiles);
    const bool oomCounted = oomKillsAtStart_ >= 0 && oomKills > oomKillsAtStart_;
    const bool nearLimit = workerPeakKiB_ > 0 && limitKiB > 0 && workerPeakKiB_ * 10 >= limitKiB * 8;
    const std::string where = " at step " + std::to_string(stepsSeen_);
    if (oomCounted || nearLimit) {
        const std::string why = oomCounted ? "the kernel counted an out-of-memory kill while it ran"
                                           : "it had grown to most of the memory there is";
        return Failure{FailureCategory::OutOfMemory,
                       "out of memory: the worker was killed (SIGKILL)" + where +
                           ", probably by the kernel's out-of-memory killer (" + why +
                           ", and Stepscope sent no signal)" + (peak.empty() ? "" : "; " + peak),
                       log};
    }
    return Failure{FailureCategory::WorkerCrashed,
                   "the worker was killed (SIGKILL)" + where +
                       " by something other than Stepscope: another program, or the kernel (the kernel counted no "
                       "out-of-memory kill)" +
                       (peak.empty() ? "" : "; " + peak),
                   log};
}

void SweepRunner::onTimeout()
{
    if (!process_)
        return;
    timedOut_ = true;
    killWorker();
}

void SweepRunner::finishCurrent(RunStatus status, const std::optional<Failure> &failure)
{
    stage_ = Stage::Timed;
    removeRunDirs(); // the worker has gone: its cold caches go too
    // The run's one reading (report/run_summary.h), stored with it: every view reads this summary,
    // and adaptive repeats take the steps inside its window.
    const report::StepSeries series = report::stepSeries(steps_);
    const store::RunSummary summary = report::summarizeSeries(series);
    if (runId_ && next_ > 0) {
        const std::string name = canonicalName(plan_.runs[next_ - 1].config);
        if (status == RunStatus::Complete) {
            if (auto steady = report::steadySamples(series, summary); !steady.empty())
                steadyRuns_[name].push_back(std::move(steady));
        } else if (status == RunStatus::Failed) {
            failedConfigs_.insert(name);
        }
    }
    if (status == RunStatus::Complete)
        db_.setSummary(runId_, summary);
    db_.finishRun(runId_, status, failure);
    if (!flushed()) // a finished run is on disk before anyone hears of it
        return;
    Q_EMIT runFinished(runId_, static_cast<int>(status), failure ? qs(toString(failure->category)) : QString(),
                       failure ? QString::fromStdString(failure->message) : QString());
    runId_ = 0;
    // Queued so that a long sweep does not grow the stack, and signals of this run drain first.
    QMetaObject::invokeMethod(this, &SweepRunner::startNext, Qt::QueuedConnection);
}

void SweepRunner::recordEnvironment(const QJsonObject &object)
{
    const QByteArray json = QJsonDocument(object).toJson(QJsonDocument::Compact);
    store::EnvironmentRecord env;
    env.json = json.toStdString();
    auto field = [&](const char *key) { return object.value(key).toVariant().toString().toStdString(); };
    env.gpu = field("gpu");
    env.driver = object.contains("driver") ? field("driver") : field("cuda_driver_api");
    env.cuda = field("cuda_runtime");
    env.cudnn = field("cudnn");
    env.torch = field("torch");
    env.python = field("python");
    env.host = field("host");
    try {
        // Every run of a sweep often reports the same machine: keep one row for it.
        if (json != lastEnvironmentJson_) {
            lastEnvironmentId_ = db_.addEnvironment(env);
            lastEnvironmentJson_ = json;
        }
        db_.setEnvironment(runId_, lastEnvironmentId_);
    } catch (const store::StoreError &e) {
        storeFailed(e.what());
        return;
    }
    Q_EMIT environment(runId_, QString::fromUtf8(json));
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
    if (!running_ && !process_)
        return;
    running_ = false;
    if (process_) {
        process_->disconnect(this);
        process_->kill();
        process_->waitForFinished(3000); // reaped here, not left running past the sweep's end
        process_->deleteLater();
        process_ = nullptr;
    }
    timeout_.stop();
    heartbeat_.stop();
    memoryWatch_.stop();
    removeRunDirs();
    Q_EMIT storageFailed(message);
    Q_EMIT finished(true);
}

} // namespace stepscope::supervisor
