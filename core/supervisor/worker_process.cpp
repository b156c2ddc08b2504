#include "supervisor/worker_process.h"

#include "config/config_json.h"
#include "platform/platform.h"
#include "supervisor/worker_memory.h"

#include <QJsonDocument>

#include <algorithm>

namespace stepscope::supervisor
{
namespace
{

constexpr int kTermGraceMs = 3000; // for a worker to stop between two steps and say so

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
    : QObject(parent), timeoutSeconds_(timeoutSeconds), oomCounterFiles_(std::move(oomCounterFiles)),
      runner_(new ProcessRunner(this)) // a child, so that moveToThread() takes it along
{
    qRegisterMetaType<protocol::Message>();
    qRegisterMetaType<RunStatus>();
    qRegisterMetaType<std::optional<Failure>>();
    qRegisterMetaType<Failure>();
    connect(runner_, &ProcessRunner::stdoutLine, this, &WorkerProcess::onLine);
    connect(runner_, &ProcessRunner::linesDelivered, this, &WorkerProcess::stdoutRead);
    connect(runner_, &ProcessRunner::stderrLine, this, [this](const QByteArray &line) {
        if (!line.trimmed().isEmpty())
            Q_EMIT logLine(QString::fromUtf8(line));
    });
    connect(runner_, &ProcessRunner::finished, this, &WorkerProcess::onEnded);
    // The OOM killer leaves nothing behind but a SIGKILL: what the worker had grown to is read
    // while it lives.
    memoryWatch_.setParent(this);
    memoryWatch_.setInterval(500);
    connect(&memoryWatch_, &QTimer::timeout, this, [this] {
        if (runner_->isRunning())
            workerPeakKiB_ = std::max(workerPeakKiB_, peakResidentKiB(runner_->processId()));
    });
}

WorkerProcess::~WorkerProcess()
{
    abort();
}

void WorkerProcess::start(const WorkerCommand &worker, const RunConfig &config, const QProcessEnvironment &env)
{
    python_ = config.runtime == Runtime::Python;
    ProcessLaunch launch;
    launch.program = worker.program;
    launch.arguments = worker.arguments;
    launch.arguments << "--config" << QString::fromUtf8(QJsonDocument(toJson(config)).toJson(QJsonDocument::Compact));
    launch.environment = env;
    // The timeout watches for silence, not total time: a long run that keeps reporting steps is
    // alive; a worker stuck in a driver call is not.
    launch.silenceMs = silenceLimitMs(timeoutSeconds_);
    launch.graceMs = kTermGraceMs;
    workerPeakKiB_ = -1;
    oomKillsAtStart_ = oomKillCount(oomCounterFiles_);
    live_ = true;
    memoryWatch_.start();
    runner_->start(launch);
}

void WorkerProcess::stop()
{
    runner_->stop();
}

void WorkerProcess::abort()
{
    live_ = false;
    memoryWatch_.stop();
    runner_->abort();
}

void WorkerProcess::onLine(const QByteArray &line)
{
    // Blank lines between protocol lines are no message.
    if (const QByteArray trimmed = line.trimmed(); !trimmed.isEmpty())
        take(protocol::parseLine(trimmed));
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

void WorkerProcess::onEnded(const ProcessEnd &end)
{
    memoryWatch_.stop();
    if (!end.started()) {
        live_ = false;
        Q_EMIT failedToStart(Failure{python_ ? FailureCategory::PythonNotFound : FailureCategory::WorkerCrashed,
                                     "could not start the worker " + end.startProblem().toStdString(),
                                     {}});
        return;
    }
    const QByteArray rest = end.unfinishedLine.trimmed();
    if (!rest.isEmpty()) {
        const auto m = protocol::parseLine(rest);
        if (m.type != protocol::Message::Type::Invalid)
            take(m);
        else
            protocolProblems_ += "truncated last line: " + QString::fromUtf8(rest.left(200)) + '\n';
    }
    if (!live_)
        return; // aborted by a receiver of the last line (the store refused a write)
    live_ = false;
    auto [outcome, failure] = judgeExit(end);
    Q_EMIT exited(outcome, failure);
}

std::pair<RunStatus, std::optional<Failure>> WorkerProcess::judgeExit(const ProcessEnd &end) const
{
    using How = ProcessEnd::How;
    const std::string log = end.stderrTail.toStdString() +
                            (protocolProblems_.isEmpty() ? "" : "\n[protocol]\n" + protocolProblems_.toStdString());
    const bool completed = gotDone_ && !reported_ && end.normalExit && end.exitCode == 0;
    // Checked first: a Stop that lands after `done` must not throw a whole measurement away.
    if (completed)
        return {RunStatus::Complete, std::nullopt};
    if (end.how == How::Silent)
        return {RunStatus::Failed,
                Failure{FailureCategory::Timeout,
                        "the worker said nothing for " + std::to_string(timeoutSeconds_) + " s", log}};
    if (end.how == How::Stopped)
        return {RunStatus::Cancelled, Failure{FailureCategory::Cancelled, "stopped by the user", log}};
    if (reported_) {
        Failure f = *reported_;
        if (!log.empty())
            f.detail += (f.detail.empty() ? "" : "\n\n[worker log]\n") + log;
        return {RunStatus::Failed, f};
    }
    if (const auto kill = platform::killSignal(); end.how == How::Crashed && kill && end.signal == *kill)
        return {RunStatus::Failed, judgeUnexplainedKill(log)};
    const std::string how =
        end.how == How::Crashed
            ? "the worker crashed (signal " + std::to_string(end.signal) + ": " + platform::signalName(end.signal) + ")"
        : gotDone_ ? "the worker exited with code " + std::to_string(end.exitCode) + " after finishing"
                   : "the worker ended without finishing (exit code " + std::to_string(end.exitCode) + ", last step " +
                         std::to_string(lastStep_) + ")";
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
