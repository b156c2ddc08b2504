#include "supervisor/process_runner.h"

#include "common/blocking_call.h"

#include <QElapsedTimer>
#include <QMetaObject>

#include <algorithm>
#include <limits>

namespace stepscope::supervisor
{
namespace
{

constexpr qint64 kReadBytes = 64 * 1024; // stdout is taken from QProcess's buffer this much at a time
constexpr int kStartLimitMs = 30 * 1000; // a start that takes longer (a hung network mount) failed
constexpr int kPollMs = 100;             // how soon a blocking run sees its stop flag go up
constexpr int kReapMs = 3000;            // a killed process is gone at once, unless stuck in the kernel

QDeadlineTimer never()
{
    return QDeadlineTimer(QDeadlineTimer::Forever);
}

QDeadlineTimer in(int ms)
{
    return QDeadlineTimer(ms, Qt::PreciseTimer);
}

} // namespace

QString ProcessEnd::logTail(qsizetype chars) const
{
    return QString::fromUtf8(stderrTail.right(chars)).trimmed();
}

void LineSplitter::append(const QByteArray &bytes)
{
    // What was handed over goes before more comes: the buffer holds one unfinished line at most.
    if (start_ > 0) {
        buffer_.remove(0, start_);
        scanned_ = std::max<qsizetype>(0, scanned_ - start_);
        start_ = 0;
    }
    buffer_ += bytes;
}

std::optional<QByteArray> LineSplitter::next()
{
    for (;;) {
        const qsizetype newline = buffer_.indexOf('\n', std::max(start_, scanned_));
        if (newline < 0) {
            scanned_ = buffer_.size(); // a long unfinished line is searched once, not at every append
            if (dropping_) {
                buffer_.clear();
                start_ = scanned_ = 0;
            } else if (buffered() > max_) {
                QByteArray line = buffer_.mid(start_, max_);
                buffer_.clear();
                start_ = scanned_ = 0;
                dropping_ = true;
                ++cut_;
                return line;
            }
            return std::nullopt;
        }
        const qsizetype length = newline - start_;
        const qsizetype from = start_;
        start_ = scanned_ = newline + 1;
        if (dropping_) { // the end of a line already handed over, cut
            dropping_ = false;
            continue;
        }
        if (length > max_)
            ++cut_;
        return buffer_.mid(from, std::min(length, max_));
    }
}

QByteArray LineSplitter::takeRest()
{
    QByteArray rest = dropping_ ? QByteArray() : buffer_.mid(start_);
    buffer_.clear();
    start_ = scanned_ = 0;
    dropping_ = false;
    return rest;
}

ProcessRunner::ProcessRunner(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<ProcessEnd>();
    // Parented so that moveToThread() takes it along.
    deadline_.setParent(this);
    deadline_.setSingleShot(true);
    deadline_.setTimerType(Qt::PreciseTimer);
    connect(&deadline_, &QTimer::timeout, this, &ProcessRunner::checkDeadlines);
}

ProcessRunner::~ProcessRunner()
{
    abort();
}

qint64 ProcessRunner::processId() const
{
    return process_ ? process_->processId() : 0;
}

bool ProcessRunner::start(const ProcessLaunch &launch)
{
    if (process_)
        return false;
    ++generation_;
    launch_ = launch;
    end_ = {};
    end_.program = launch.program;
    end_.arguments = launch.arguments;
    out_ = LineSplitter(launch.maxLineBytes);
    err_ = LineSplitter(launch.maxLineBytes);
    reason_.reset();
    exited_ = deliveryQueued_ = false;
    silence_ = launch.silenceMs > 0 ? in(launch.silenceMs) : never();
    limit_ = launch.limitMs > 0 ? in(launch.limitMs) : never();
    grace_ = never();

    auto *p = new QProcess(this);
    process_ = p;
    p->setProcessEnvironment(launch.environment);
    if (launch.mergeStderr)
        p->setProcessChannelMode(QProcess::MergedChannels);
#ifdef Q_OS_UNIX
    if (launch.childSetup)
        p->setChildProcessModifier(launch.childSetup);
#endif
    connect(p, &QProcess::readyReadStandardOutput, this, &ProcessRunner::onStdoutReady);
    connect(p, &QProcess::readyReadStandardError, this, &ProcessRunner::onStderrReady);
    connect(p, &QProcess::finished, this, &ProcessRunner::onFinished);
    connect(p, &QProcess::errorOccurred, this, &ProcessRunner::onError);
    armClock();
    p->start(launch.program, launch.arguments);
    return true;
}

ProcessEnd ProcessRunner::run(const ProcessLaunch &launch, const StopFlag &stop)
{
    blockingCall(("waiting for " + launch.program + ' ' + launch.arguments.join(' ')).left(300).toStdString());
    std::optional<ProcessEnd> result;
    Q_ASSERT(!process_);
    const auto keep = connect(this, &ProcessRunner::finished, this, [&result](const ProcessEnd &end) { result = end; });
    blocking_ = true;
    const bool started = start(launch);
    if (started) {
        const quint64 generation = generation_; // moves on when the run ends (or failed to start already)
        if (process_ && !process_->waitForStarted(kStartLimitMs) && generation_ == generation)
            notStarted(QStringLiteral("it did not start within %1 s").arg(kStartLimitMs / 1000));
        while (process_ && generation_ == generation) {
            if (stop && !reason_ && stop())
                this->stop();
            checkDeadlines();
            // The nearest deadline or the next look at the stop flag, whichever comes first.
            const qint64 next = msToNextDeadline();
            const qint64 wait = next < 0 ? kPollMs : std::min<qint64>(next, kPollMs);
            if (!process_ || generation_ != generation)
                break;
            // Its output, its death (finished is emitted in there) or the end of the wait. A program
            // that closed its stdout and goes on is waited for as a whole.
            QElapsedTimer waited;
            waited.start();
            if (!process_->waitForReadyRead(int(wait)) && process_ && generation_ == generation &&
                process_->state() != QProcess::NotRunning && waited.elapsed() < wait)
                process_->waitForFinished(int(wait - waited.elapsed()));
        }
    }
    blocking_ = false;
    disconnect(keep);
    if (result)
        return *result;
    // Aborted by a receiver of its lines (killed, nothing signalled), or never begun.
    ProcessEnd end = started ? end_ : ProcessEnd{};
    end.program = launch.program;
    end.arguments = launch.arguments;
    if (started) {
        end.how = ProcessEnd::How::Stopped;
        end.killed = true;
    } else {
        end.startError = QStringLiteral("another program is still running under this runner");
    }
    return end;
}

void ProcessRunner::stop()
{
    endWith(ProcessEnd::How::Stopped);
}

void ProcessRunner::abort()
{
    if (!process_)
        return;
    ++generation_;
    deadline_.stop();
    deliveryQueued_ = false;
    release();
}

void ProcessRunner::release()
{
    QProcess *p = process_;
    process_ = nullptr;
    if (!p)
        return;
    p->disconnect(this);
    if (p->state() != QProcess::NotRunning) {
        p->kill();
        // Never a wait on the thread that must not wait: the process goes its own way and is
        // reaped when it ends. Elsewhere it is reaped here, so that none outlives its owner.
        if (blockingForbiddenHere()) {
            p->setParent(nullptr);
            connect(p, &QProcess::finished, p, &QObject::deleteLater);
            return;
        }
        p->waitForFinished(kReapMs);
    }
    p->deleteLater(); // it may be the sender of the signal being handled
}

void ProcessRunner::onError(QProcess::ProcessError error)
{
    if (error == QProcess::FailedToStart && process_ && sender() == process_)
        notStarted(process_->errorString());
}

void ProcessRunner::notStarted(const QString &why)
{
    end_.how = ProcessEnd::How::NotStarted;
    end_.startError = why;
    conclude();
}

void ProcessRunner::onStdoutReady()
{
    if (!process_)
        return;
    // The silence is of the pipe, not of delivery: bytes that came are a sign of life even while
    // earlier ones are still being handed over.
    if (launch_.silenceMs > 0 && !reason_) {
        silence_ = in(launch_.silenceMs);
        armClock();
    }
    if (!deliveryQueued_ || backlog() > kBacklogBytes)
        deliverStdout();
}

qint64 ProcessRunner::backlog() const
{
    return (process_ ? process_->bytesAvailable() : 0) + out_.buffered();
}

void ProcessRunner::deliverStdout()
{
    deliveryQueued_ = false;
    if (!process_)
        return;
    const quint64 generation = generation_;
    QElapsedTimer slice;
    slice.start();
    for (;;) {
        end_.peakBacklogBytes = std::max(end_.peakBacklogBytes, backlog());
        if (const auto line = out_.next()) {
            ++end_.lines;
            Q_EMIT stdoutLine(*line);
            if (generation_ != generation)
                return; // aborted, or ended and started again, by a receiver
            // A slice is over: the rest after the thread's other events, unless too much waits.
            if (!blocking_ && slice.elapsed() >= kSliceMs && backlog() <= kBacklogBytes) {
                deliveryQueued_ = true;
                QMetaObject::invokeMethod(
                    this,
                    [this, generation] {
                        if (generation_ == generation)
                            deliverStdout();
                    },
                    Qt::QueuedConnection);
                return;
            }
            continue;
        }
        const QByteArray bytes = process_->read(kReadBytes);
        if (bytes.isEmpty())
            break;
        out_.append(bytes);
    }
    Q_EMIT linesDelivered();
    if (generation_ == generation && exited_)
        conclude();
}

void ProcessRunner::onStderrReady()
{
    if (!process_)
        return;
    const QByteArray bytes = process_->readAllStandardError();
    end_.stderrTail += bytes;
    if (end_.stderrTail.size() > launch_.stderrKeepBytes)
        end_.stderrTail = end_.stderrTail.right(launch_.stderrKeepBytes);
    err_.append(bytes);
    const quint64 generation = generation_;
    while (const auto line = err_.next()) {
        Q_EMIT stderrLine(*line);
        if (generation_ != generation)
            return;
    }
}

void ProcessRunner::onFinished(int exitCode, QProcess::ExitStatus status)
{
    if (!process_ || sender() != process_)
        return;
    exited_ = true;
    end_.normalExit = status == QProcess::NormalExit;
    end_.exitCode = end_.normalExit ? exitCode : -1;
    end_.signal = end_.normalExit ? 0 : exitCode; // QProcess's exit code of a crash
    silence_ = limit_ = grace_ = never();
    deadline_.stop();
    onStderrReady();
    // Judged once every line it wrote has been delivered: a delivery under way concludes.
    if (process_ && !deliveryQueued_)
        deliverStdout();
}

void ProcessRunner::conclude()
{
    const quint64 generation = generation_;
    if (const QByteArray rest = err_.takeRest(); !rest.isEmpty()) {
        Q_EMIT stderrLine(rest);
        if (generation_ != generation)
            return;
    }
    end_.unfinishedLine = out_.takeRest();
    end_.cutLines = out_.cutLines();
    if (exited_)
        end_.how = reason_ ? *reason_ : end_.normalExit ? ProcessEnd::How::Exited : ProcessEnd::How::Crashed;
    ++generation_;
    deadline_.stop();
    release();
    const ProcessEnd end = end_; // a receiver may start the next program on this runner
    Q_EMIT finished(end);
}

void ProcessRunner::endWith(ProcessEnd::How reason)
{
    // Once: the first reason is the one judged. Too late once the program has ended by itself.
    if (!process_ || reason_ || exited_)
        return;
    reason_ = reason;
    silence_ = limit_ = never();
    if (launch_.graceMs <= 0) {
        killNow();
    } else {
        // TERM lets a program stop cleanly (a worker between two steps) and say so.
        process_->terminate();
        grace_ = in(launch_.graceMs);
    }
    armClock();
}

void ProcessRunner::killNow()
{
    end_.killed = true;
    grace_ = never();
    process_->kill();
}

void ProcessRunner::checkDeadlines()
{
    if (!process_ || exited_)
        return;
    if (!reason_) {
        if (limit_.hasExpired())
            endWith(ProcessEnd::How::OverLimit);
        else if (silence_.hasExpired())
            endWith(ProcessEnd::How::Silent);
    } else if (!end_.killed && grace_.hasExpired()) {
        killNow();
    }
    armClock();
}

qint64 ProcessRunner::msToNextDeadline() const
{
    qint64 next = -1;
    for (const QDeadlineTimer &d : {silence_, limit_, grace_})
        if (!d.isForever())
            next = next < 0 ? d.remainingTime() : std::min(next, d.remainingTime());
    return next;
}

void ProcessRunner::armClock()
{
    if (blocking_) // run() looks at the deadlines itself
        return;
    const qint64 next = msToNextDeadline();
    if (next < 0)
        deadline_.stop();
    else
        deadline_.start(int(std::min<qint64>(next, std::numeric_limits<int>::max())));
}

} // namespace stepscope::supervisor
