#include "supervisor/process_run.h"

namespace stepscope::supervisor
{

QString ProcessRun::log() const
{
    return logTail.isEmpty() ? QStringLiteral("(nothing on stderr)") : logTail;
}

ProcessRun processRun(const ProcessEnd &end, QByteArray output)
{
    using How = ProcessEnd::How;
    ProcessRun run;
    run.program = end.program;
    run.arguments = end.arguments;
    run.started = end.started();
    run.timedOut = end.how == How::OverLimit || end.how == How::Silent;
    run.stopped = end.how == How::Stopped;
    run.crashed = end.how == How::Crashed;
    run.exitCode = end.exitCode;
    run.startError = end.startError;
    run.output = std::move(output);
    run.logTail = end.logTail();
    return run;
}

ProcessRun runProcess(const QString &program, const QStringList &arguments, const QProcessEnvironment &environment,
                      int limitMs, const StopFlag &stop, const LineHandler &onLine)
{
    ProcessRunner runner;
    QByteArray output;
    QObject::connect(&runner, &ProcessRunner::stdoutLine, &runner, [&](const QByteArray &line) {
        output += line + '\n';
        if (onLine)
            onLine(line);
    });
    ProcessLaunch launch;
    launch.program = program;
    launch.arguments = arguments;
    launch.environment = environment;
    launch.limitMs = limitMs;
    launch.graceMs = 0; // a short check has nothing to save: killed at once at its limit or a stop
    const ProcessEnd end = runner.run(launch, stop);
    // A last line without its newline still counts.
    if (!end.unfinishedLine.trimmed().isEmpty()) {
        output += end.unfinishedLine;
        if (onLine)
            onLine(end.unfinishedLine);
    }
    return processRun(end, std::move(output));
}

} // namespace stepscope::supervisor
