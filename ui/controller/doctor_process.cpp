#include "controller/doctor_process.h"

#include "supervisor/start_caches.h"

#include "common/failure.h"

#include <QProcess>

#include <algorithm>

namespace stepscope::ui
{

DoctorProcess::DoctorProcess(QObject *parent) : QObject(parent)
{
    limit_.setSingleShot(true);
    limit_.setInterval(kLimitMs);
    connect(&limit_, &QTimer::timeout, this, [this] {
        if (!process_)
            return;
        timedOut_ = true;
        process_->kill(); // finished() follows and reports the timeout
    });
}

DoctorProcess::~DoctorProcess()
{
    if (process_) {
        process_->disconnect(this);
        process_->kill();
        process_->waitForFinished(2000); // a killed process ends at once; never a zombie behind us
    }
}

void DoctorProcess::start(const supervisor::WorkerCommand &python, const QString &device,
                          const QList<DoctorItem> &found)
{
    if (process_)
        return;
    items_.clear();
    pending_.clear();
    stderr_.clear();
    timedOut_ = false;
    for (const DoctorItem &row : found) {
        items_.append(row);
        Q_EMIT item(row);
    }
    const bool pythonSaid = std::any_of(found.begin(), found.end(), [](const DoctorItem &row) {
        return row.item == QLatin1String("python") && row.status == QLatin1String("fail");
    });
    if (python.program.isEmpty() && pythonSaid) {
        Q_EMIT finished(1, 0);
        return;
    }
    if (python.program.isEmpty()) {
        // No interpreter to ask: the origin says what was tried and what to set.
        const auto fix = fixFor(FailureCategory::PythonNotFound);
        const DoctorItem row{QStringLiteral("python"), QStringLiteral("fail"), python.origin,
                             QString::fromUtf8(fix.data(), static_cast<qsizetype>(fix.size()))};
        items_.append(row);
        Q_EMIT item(row);
        Q_EMIT finished(1, 0);
        return;
    }
    const QStringList arguments = python.arguments + QStringList{"--doctor", "--device", device};
    command_ = python.program + QLatin1Char(' ') + arguments.join(QLatin1Char(' '));
    process_ = new QProcess(this);
    QProcessEnvironment env = supervisor::workerEnvironment();
    // The worker judges the path budget of the caches runs will use, not a default of torch's.
    env.insert("STEPSCOPE_COMPILE_CACHE_ROOT", supervisor::defaultCacheRoot());
    process_->setProcessEnvironment(env);
    connect(process_, &QProcess::readyReadStandardOutput, this, &DoctorProcess::readLines);
    connect(process_, &QProcess::readyReadStandardError, this, [this] {
        stderr_ += process_->readAllStandardError();
        if (stderr_.size() > 64 * 1024)
            stderr_ = stderr_.right(32 * 1024); // only the end is shown
    });
    connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return; // crashes and kills arrive through finished()
        DoctorExit exit;
        exit.started = false;
        exit.startError = process_->errorString();
        exit.command = command_;
        finish(exit);
    });
    connect(process_, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        readLines();
        if (!pending_.trimmed().isEmpty()) {
            pending_ += '\n'; // a last line without its newline still counts
            readLines();
        }
        DoctorExit exit;
        exit.timedOut = timedOut_;
        exit.crashed = status == QProcess::CrashExit && !timedOut_;
        exit.exitCode = code;
        exit.logTail = QString::fromUtf8(stderr_.right(1200));
        exit.command = command_;
        finish(exit);
    });
    limit_.start();
    process_->start(python.program, arguments);
}

void DoctorProcess::cancel()
{
    if (process_)
        process_->kill();
}

void DoctorProcess::readLines()
{
    if (!process_)
        return;
    pending_ += process_->readAllStandardOutput();
    qsizetype newline;
    while ((newline = pending_.indexOf('\n')) >= 0) {
        const QByteArray line = pending_.left(newline);
        pending_.remove(0, newline + 1);
        if (const auto parsed = parseDoctorLine(line)) {
            items_.append(*parsed);
            Q_EMIT item(*parsed);
        }
    }
}

void DoctorProcess::finish(DoctorExit exit)
{
    limit_.stop();
    if (process_) {
        process_->disconnect(this);
        process_->deleteLater();
        process_ = nullptr;
    }
    if (const auto verdict = doctorVerdict(items_, exit)) {
        items_.append(*verdict);
        Q_EMIT item(*verdict);
    }
    int fails = 0, warnings = 0;
    for (const auto &i : items_) {
        fails += i.status == QLatin1String("fail");
        warnings += i.status == QLatin1String("warn");
    }
    Q_EMIT finished(fails, warnings);
}

} // namespace stepscope::ui
