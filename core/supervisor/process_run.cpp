#include "supervisor/process_run.h"

#include <QElapsedTimer>
#include <QProcess>

namespace stepscope::supervisor
{
namespace
{

constexpr int kStartLimitMs = 30 * 1000;
constexpr int kPollMs = 100; // how soon a raised stop flag is seen
constexpr qsizetype kLogTail = 2000;

} // namespace

QString ProcessRun::log() const
{
    return logTail.isEmpty() ? QStringLiteral("(nothing on stderr)") : logTail;
}

ProcessRun runProcess(const QString &program, const QStringList &arguments, const QProcessEnvironment &environment,
                      int limitMs, const StopFlag &stop, const LineHandler &onLine)
{
    ProcessRun run;
    run.program = program;
    run.arguments = arguments;
    QProcess p;
    p.setProcessEnvironment(environment);
    p.start(program, arguments);
    if (!p.waitForStarted(kStartLimitMs)) {
        run.startError = p.errorString();
        p.kill();
        p.waitForFinished(5000);
        return run;
    }
    run.started = true;
    QByteArray pending;
    const auto takeLines = [&] {
        const QByteArray chunk = p.readAllStandardOutput();
        run.output += chunk;
        pending += chunk;
        qsizetype newline;
        while ((newline = pending.indexOf('\n')) >= 0) {
            const QByteArray line = pending.left(newline);
            pending.remove(0, newline + 1);
            if (onLine)
                onLine(line);
        }
    };
    QElapsedTimer clock;
    clock.start();
    while (p.state() != QProcess::NotRunning) {
        if (stop && stop()) {
            run.stopped = true;
            break;
        }
        if (clock.elapsed() >= limitMs) {
            run.timedOut = true;
            break;
        }
        p.waitForReadyRead(kPollMs); // back at new output, at the end, or after kPollMs
        takeLines();
    }
    if (run.stopped || run.timedOut) {
        p.kill();
        p.waitForFinished(5000); // a killed process ends at once; never a zombie behind us
    }
    takeLines();
    if (!pending.trimmed().isEmpty() && onLine)
        onLine(pending); // a last line without its newline still counts
    run.crashed = !run.stopped && !run.timedOut && p.exitStatus() == QProcess::CrashExit;
    run.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    run.logTail = QString::fromUtf8(p.readAllStandardError().right(kLogTail)).trimmed();
    return run;
}

} // namespace stepscope::supervisor
