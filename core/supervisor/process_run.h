#pragma once
// One short process run to its end on the calling thread: the doctor's checks (the native worker's
// --cuda-devices and --probe, the Python worker's --doctor), the model listing, the torch lookup. Its
// stdout is handed over line by line as it comes; it is killed past its limit, or as soon as the
// caller's stop flag is up. It blocks (ProcessRunner::run), so its callers are a command-line program
// or a worker thread (doctor_service.h says why).
#include "supervisor/process_runner.h"

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <functional>

namespace stepscope::supervisor
{

using LineHandler = std::function<void(const QByteArray &line)>;

struct ProcessRun {
    QString program;
    QStringList arguments;
    bool started = false;
    bool timedOut = false; // killed at the limit
    bool stopped = false;  // killed because the stop flag went up
    bool crashed = false;  // ended by a signal it was not sent here
    int exitCode = -1;
    QString startError; // QProcess's errorString() when it did not start
    QByteArray output;  // all of stdout
    QString logTail;    // the end of stderr, trimmed

    bool succeeded() const { return started && !timedOut && !stopped && !crashed && exitCode == 0; }
    QString commandLine() const { return program + QLatin1Char(' ') + arguments.join(QLatin1Char(' ')); }
    // The log, or words saying there was none.
    QString log() const;
};

ProcessRun runProcess(const QString &program, const QStringList &arguments, const QProcessEnvironment &environment,
                      int limitMs, const StopFlag &stop = {}, const LineHandler &onLine = {});

// The same record of a process that ended, with `output` its stdout: for an asynchronous user of
// ProcessRunner that reads an answer as a blocking one does (the device probe as the doctor).
ProcessRun processRun(const ProcessEnd &end, QByteArray output);

} // namespace stepscope::supervisor
