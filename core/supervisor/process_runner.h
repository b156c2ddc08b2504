#pragma once
// One child process watched from its start to the judgement of its end, for every program Stepscope
// starts: the workers (worker_process.h), the CUDA probe (device_probe.h), the doctor's and the
// listing's short runs (process_run.h), the Python lookup (torch_location.h) and the setup's venv
// and pip (python_setup.h). It splits stdout into lines, keeps the end of stderr, ends a program
// that falls silent or outlives its limit, stops one on request (TERM, then KILL after a grace),
// and says how it ended as one typed value. What the lines mean is each user's own.
//
// Two ways to drive it, one set of rules:
//  - asynchronous: start() returns at once; stdoutLine, stderrLine and finished arrive from the
//    event loop of the thread the runner lives in. A flood of output is delivered a slice at a time
//    (kSliceMs), so that the thread's other events (a dashboard's repaints) keep coming.
//  - blocking: run() drives the same process to its end on the calling thread without an event loop
//    (the signals are emitted from inside it), for the command line and worker threads. It says so
//    through blockingCall() first: the dashboard's UI thread must never wait for a process.
//
// Memory: a line longer than maxLineBytes is cut there (the rest of it is dropped and counted), and
// output not yet delivered never grows past about kBacklogBytes: past it, delivery goes on without
// pausing until it is back under, while the pipe holds the program back.
#include <QByteArray>
#include <QDeadlineTimer>
#include <QMetaType>
#include <QObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <functional>
#include <optional>

namespace stepscope::supervisor
{

// Asked every tenth of a second while a blocking run goes on (from the thread that runs it): true
// stops the program.
using StopFlag = std::function<bool()>;

// Lines are split at '\n' and handed over without it, one at a time, keeping at most this much of
// each: longer than any line a Stepscope worker writes (the model listing's one line: a few hundred
// KB), short enough that a program printing without newlines cannot fill the memory.
inline constexpr qsizetype kMaxLineBytes = 8 * 1024 * 1024;

// What to start, and how it is watched. A limit of 0 is none.
struct ProcessLaunch {
    QString program;
    QStringList arguments;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    bool mergeStderr = false; // stderr into stdout's lines (pip's warnings between its own lines)
    int silenceMs = 0;        // no stdout for this long: stopped, and judged silent
    int limitMs = 0;          // running this long in all: stopped, and judged over its limit
    int graceMs = 3000;       // between TERM and KILL when it is stopped; 0: KILL at once
    qsizetype maxLineBytes = kMaxLineBytes;
    qsizetype stderrKeepBytes = 64 * 1024; // of the end of stderr, kept for a failure's detail
    // Runs in the child between fork and exec (Unix only): a process group of its own, a watchdog.
    std::function<void()> childSetup;
};

// How a process ended, judged once for all its users.
struct ProcessEnd {
    enum class How {
        NotStarted, // could not be started (startError says why)
        Exited,     // ended by itself with exitCode
        Crashed,    // ended by a signal (or on Windows an exception) that the runner did not send
        Silent,     // stopped after silenceMs without stdout
        OverLimit,  // stopped after limitMs
        Stopped,    // stopped on request (stop(), or the stop flag of a blocking run)
    };
    QString program;
    QStringList arguments;
    How how = How::NotStarted;
    QString startError; // QProcess's words when it did not start
    // The raw end, whatever `how` says: a program that was stopped may still have ended by itself,
    // with its own exit code, as it was asked to.
    bool normalExit = false;
    int exitCode = -1;           // of a normal exit; -1 otherwise
    int signal = 0;              // of a crash: the signal (POSIX) or the exception code (Windows); 0 otherwise
    bool killed = false;         // the runner sent KILL (at once, or once TERM's grace had passed)
    QByteArray stderrTail;       // the last stderrKeepBytes of stderr
    QByteArray unfinishedLine;   // what came after the last newline: a line cut off by the end
    qint64 lines = 0;            // stdout lines delivered
    qint64 cutLines = 0;         // of them, lines longer than maxLineBytes, cut there
    qint64 peakBacklogBytes = 0; // the most output read and not yet delivered at any moment

    bool started() const { return how != How::NotStarted; }
    bool succeeded() const { return how == How::Exited && exitCode == 0; }
    // "PROGRAM: why", for a user's own words around a start that failed.
    QString startProblem() const { return program + QLatin1String(": ") + startError; }
    // The end of stderr, at most `chars` of it, trimmed; empty when it said nothing.
    QString logTail(qsizetype chars = 2000) const;
};

// Splits a stream into lines of at most maxLineBytes each, holding no more than one such line and
// the bytes of the last append().
class LineSplitter
{
  public:
    explicit LineSplitter(qsizetype maxLineBytes = kMaxLineBytes) : max_(maxLineBytes) {}
    void append(const QByteArray &bytes);
    // The next whole line, without its '\n'; none until more comes.
    std::optional<QByteArray> next();
    // What is left at the end of the stream: the bytes after the last newline.
    QByteArray takeRest();
    qsizetype buffered() const { return buffer_.size() - start_; }
    qint64 cutLines() const { return cut_; }

  private:
    qsizetype max_;
    QByteArray buffer_;
    qsizetype start_ = 0;   // where the next line begins in buffer_
    qsizetype scanned_ = 0; // buffer_ holds no newline between start_ and here
    bool dropping_ = false; // inside a line already cut: its bytes up to the newline go
    qint64 cut_ = 0;
};

class ProcessRunner : public QObject
{
    Q_OBJECT
  public:
    explicit ProcessRunner(QObject *parent = nullptr);
    // A program still running is killed, as by abort().
    ~ProcessRunner() override;

    // Starts the program and returns at once; false (and nothing happens) while one runs. finished()
    // follows exactly once, unless abort() comes first; for a program that cannot start it may
    // come before start() returns.
    bool start(const ProcessLaunch &launch);
    // Runs the program to its end on the calling thread and returns how it ended; `stop` is asked
    // every tenth of a second. The signals are emitted from inside, as in the asynchronous way.
    ProcessEnd run(const ProcessLaunch &launch, const StopFlag &stop = {});
    // TERM now, KILL after the launch's grace; judged Stopped unless a silence or a limit came first.
    void stop();
    // Kills it now; nothing more is signalled. Safe from any slot connected to the runner. The
    // process is reaped here, except on the thread that must not wait (blocking_call.h), where it
    // is reaped when it ends.
    void abort();

    bool isRunning() const { return process_ != nullptr; }
    // The running process's id (0 when none): for a caller that watches it or its group.
    qint64 processId() const;

    // The longest stretch of delivery before the event loop gets a turn, and the backlog past
    // which delivery goes on anyway (memory before smoothness).
    static constexpr int kSliceMs = 10;
    static constexpr qsizetype kBacklogBytes = 1024 * 1024;

  Q_SIGNALS:
    void stdoutLine(const QByteArray &line);
    void stderrLine(const QByteArray &line);
    // Every stdout line read so far has been delivered: a moment to act once for a batch of lines.
    void linesDelivered();
    void finished(const stepscope::supervisor::ProcessEnd &end);

  private:
    void onStdoutReady();
    void deliverStdout();
    void onStderrReady();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onError(QProcess::ProcessError error);
    void endWith(ProcessEnd::How reason); // TERM or KILL, with what the judgement will name
    void killNow();
    void checkDeadlines();
    qint64 msToNextDeadline() const; // -1: none
    void armClock();
    void conclude();
    void notStarted(const QString &why);
    void release(); // lets go of the process, reaping it unless this thread must not wait
    qint64 backlog() const;

    ProcessLaunch launch_;
    QProcess *process_ = nullptr; // null when none runs
    quint64 generation_ = 0;      // moves on at every start, end and abort: a loop over lines stops
    bool blocking_ = false;
    bool deliveryQueued_ = false;
    bool exited_ = false;                   // QProcess said finished; what it read is still being delivered
    std::optional<ProcessEnd::How> reason_; // why the runner ended it, once it has begun to
    ProcessEnd end_;
    LineSplitter out_, err_;
    QDeadlineTimer silence_, limit_, grace_;
    QTimer deadline_; // asynchronous way: fires at the nearest of the three deadlines
};

} // namespace stepscope::supervisor

Q_DECLARE_METATYPE(stepscope::supervisor::ProcessEnd)
