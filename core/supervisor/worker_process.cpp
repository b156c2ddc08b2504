#include "supervisor/worker_process.h"

#include "config/config_json.h"
#include "platform/platform.h"
#include "supervisor/worker_memory.h"

#include <QJsonDocument>
#include <QStringList>

#include <algorithm>

namespace stepscope::supervisor
{
namespace
{

constexpr qsizetype kStderrKeep = 64 * 1024; // the tail of the worker's log kept as failure detail

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

WorkerProcess::WorkerProcess(int timeoutSeconds, std::vector<std::string> oomCounterFiles, QObject *parent)
    : QObject(parent), timeoutSeconds_(timeoutSeconds), oomCounterFiles_(std::move(oomCounterFiles))
{
    qRegisterMetaType<protocol::Message>();
    qRegisterMetaType<RunStatus>();
    qRegisterMetaType<std::optional<Failure>>();
    qRegisterMetaType<Failure>();
    // Parented so that moveToThread() takes the timers along.
    timeout_.setParent(this);
    timeout_.setSingleShot(true);
    connect(&timeout_, &QTimer::timeout, this, [this] { terminateThenKill(timedOut_); });
    // The OOM killer leaves nothing behind but a SIGKILL: what the worker had grown to is read
    // while it lives.
    memoryWatch_.setParent(this);
    memoryWatch_.setInterval(500);
    connect(&memoryWatch_, &QTimer::timeout, this, [this] {
        if (process_)
            workerPeakKiB_ = std::max(workerPeakKiB_, peakResidentKiB(process_->processId()));
    });
}

WorkerProcess::~WorkerProcess()
{
    abort();
}

void WorkerProcess::start(const WorkerCommand &worker, const RunConfig &config, const QProcessEnvironment &env)
{
    auto *p = new QProcess(this);
    process_ = p;
    python_ = config.runtime == Runtime::Python;
    p->setProcessEnvironment(env);
    connect(p, &QProcess::readyReadStandardOutput, this, &WorkerProcess::onStdout);
    connect(p, &QProcess::readyReadStandardError, this, &WorkerProcess::onStderr);
    connect(p, &QProcess::finished, this, &WorkerProcess::onFinished);
    connect(p, &QProcess::errorOccurred, this, &WorkerProcess::onError);
    QStringList args = worker.arguments;
    args << "--config" << QString::fromUtf8(QJsonDocument(toJson(config)).toJson(QJsonDocument::Compact));
    timeout_.start(silenceLimitMs(timeoutSeconds_));
    workerPeakKiB_ = -1;
    oomKillsAtStart_ = oomKillCount(oomCounterFiles_);
    memoryWatch_.start();
    p->start(worker.program, args);
}

void WorkerProcess::stop()
{
    terminateThenKill(stopped_);
}

void WorkerProcess::terminateThenKill(bool &reason)
{
    if (!process_)
        return;
    reason = true; // what the judgement will name
    // SIGTERM lets the worker stop between steps and say so; SIGKILL follows if it does not.
    process_->terminate();
    QTimer::singleShot(3000, process_, [p = QPointer<QProcess>(process_)] {
        if (p && p->state() != QProcess::NotRunning)
            p->kill();
    });
}

void WorkerProcess::abort()
{
    timeout_.stop();
    memoryWatch_.stop();
    if (!process_)
        return;
    QProcess *p = process_;
    process_ = nullptr;
    p->disconnect(this);
    p->kill();
    p->waitForFinished(3000); // reaped here, not left running past its owner
}

void WorkerProcess::onError(QProcess::ProcessError error)
{
    if (error != QProcess::FailedToStart || !process_)
        return;
    QProcess *p = process_;
    process_ = nullptr;
    timeout_.stop();
    memoryWatch_.stop();
    Q_EMIT failedToStart(
        Failure{python_ ? FailureCategory::PythonNotFound : FailureCategory::WorkerCrashed,
                "could not start the worker " + p->program().toStdString() + ": " + p->errorString().toStdString(),
                {}});
}

void WorkerProcess::onStdout()
{
    if (!process_)
        return;
    // The timeout watches for silence, not total time: a long run that keeps reporting steps is
    // alive; a worker stuck in a driver call is not.
    timeout_.start(silenceLimitMs(timeoutSeconds_));
    for (const auto &line : lines_.append(process_->readAllStandardOutput())) {
        take(protocol::parseLine(line));
        if (!process_)
            return; // aborted by a receiver (the store refused a write)
    }
    Q_EMIT stdoutRead();
}

void WorkerProcess::onStderr()
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

void WorkerProcess::take(const protocol::Message &m)
{
    // What the judgement needs, whatever the process is for; the rest is the receiver's.
    using T = protocol::Message::Type;
    if (m.type == T::Done) {
        gotDone_ = true;
    } else if (m.type == T::Error) {
        reported_ = m.failure;
    } else if (m.type == T::Invalid) {
        // Garbage on stdout (a stray print in a library) is logged, not fatal: the run is judged
        // by whether `done` arrives.
        protocolProblems_ += QString::fromStdString(m.problem) + '\n';
        Q_EMIT logLine("protocol: " + QString::fromStdString(m.problem));
    }
    Q_EMIT message(m);
}

void WorkerProcess::onFinished(int exitCode, QProcess::ExitStatus status)
{
    if (!process_)
        return;
    timeout_.stop();
    memoryWatch_.stop();
    onStdout();
    if (!process_)
        return;
    onStderr();
    const QByteArray rest = lines_.takeRest();
    if (!rest.isEmpty()) {
        const auto m = protocol::parseLine(rest);
        if (m.type != protocol::Message::Type::Invalid)
            take(m);
        else
            protocolProblems_ += "truncated last line: " + QString::fromUtf8(rest.left(200)) + '\n';
    }
    if (!process_)
        return;
    process_ = nullptr;
    auto [outcome, failure] = judgeExit(exitCode, status);
    Q_EMIT exited(outcome, failure);
}

std::pair<RunStatus, std::optional<Failure>> WorkerProcess::judgeExit(int exitCode, QProcess::ExitStatus status) const
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
                        "the worker said nothing for " + std::to_string(timeoutSeconds_) + " s", log}};
    if (stopped_)
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
                                             ", last step " + std::to_string(lastStep_) + ")";
    return {RunStatus::Failed, Failure{FailureCategory::WorkerCrashed, how, log}};
}

Failure WorkerProcess::judgeUnexplainedKill(const std::string &log) const
{
    // Stepscope sends SIGKILL only after its own timeout or a cancel, both judged before this. The
    // kernel's OOM killer sends it and says nothing else: its count of kills, or a worker that had
    // grown to most of the memory there is, gives it away. Neither is proof, hence "probably".
    const std::int64_t limitKiB = memoryLimitKiB();
    std::string peak;
    if (workerPeakKiB_ > 0)
        peak = "its peak resident memory was " + mib(workerPeakKiB_) +
               (limitKiB > 0 ? " of " + mib(limitKiB) + " there is" : std::string());
    const std::int64_t oomKills = oomKillCount(oomCounterFiles_);
    const bool oomCounted = oomKillsAtStart_ >= 0 && oomKills > oomKillsAtStart_;
    const bool nearLimit = workerPeakKiB_ > 0 && limitKiB > 0 && workerPeakKiB_ * 10 >= limitKiB * 8;
    const std::string where = " at step " + std::to_string(lastStep_);
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

} // namespace stepscope::supervisor
