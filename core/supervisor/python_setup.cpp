#include "supervisor/python_setup.h"

#include "platform/guards.h"
#include "platform/platform.h"
#include "supervisor/managed_python.h"
#include "supervisor/process_runner.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcessEnvironment>
#include <QStandardPaths>

namespace stepscope::supervisor
{
namespace
{

constexpr int kPollMs = 1000;                // the download's file size, for a pip without --progress-bar raw
constexpr int kEmitEveryMs = 200;            // progress signals at most this often, phase changes at once
constexpr qsizetype kKeptOutput = 64 * 1024; // of a step's output, for the failure's words

QString pipCacheDir(const QProcessEnvironment &env)
{
    if (const QString dir = env.value("PIP_CACHE_DIR"); !dir.isEmpty())
        return dir;
    return QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation) + "/pip";
}

QProcessEnvironment setupEnvironment()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // A user's PYTHONPATH or pip target would install or import somewhere other than the
    // environment being checked; their index and proxy settings stay (a mirror is how many reach PyPI).
    for (const char *name :
         {"PYTHONPATH", "PYTHONHOME", "PIP_USER", "PIP_TARGET", "PIP_PREFIX", "PIP_REQUIRE_VIRTUALENV"})
        env.remove(name);
    env.insert("PYTHONUNBUFFERED", "1"); // pip's lines as they happen, not when a buffer fills
    env.insert("PIP_NO_INPUT", "1");
    env.insert("PIP_DISABLE_PIP_VERSION_CHECK", "1");
    return env;
}

} // namespace

QString setupLockFile(const QString &environmentDir)
{
    const QFileInfo dir(QDir::cleanPath(environmentDir));
    return dir.absolutePath() + "/." + dir.fileName() + ".setup-lock";
}

PythonSetup::PythonSetup(QObject *parent) : QObject(parent), runner_(new ProcessRunner(this))
{
    qRegisterMetaType<SetupProgress>();
    qRegisterMetaType<SetupResult>();
    qRegisterMetaType<SetupFailure>();
    poll_.setInterval(kPollMs);
    connect(&poll_, &QTimer::timeout, this, &PythonSetup::pollDownload);
    connect(runner_, &ProcessRunner::stdoutLine, this, &PythonSetup::onLine);
    connect(runner_, &ProcessRunner::finished, this, &PythonSetup::onEnded);
}

PythonSetup::~PythonSetup()
{
    stopProcess();
    releaseGuards();
}

SetupContext PythonSetup::failureContext() const
{
    SetupContext c = context_;
    // The environment's disk: its nearest folder that exists (the environment may not, yet).
    QString folder = options_.environmentDir;
    while (!folder.isEmpty() && !QFileInfo(folder).isDir() && QFileInfo(folder).absolutePath() != folder)
        folder = QFileInfo(folder).absolutePath();
    if (const auto free = platform::freeBytes(folder.toStdString()))
        c.freeBytes = qint64(*free);
    return c;
}

QString PythonSetup::venvPython() const
{
    return options_.environmentDir + "/bin/python";
}

void PythonSetup::start(const SetupOptions &options)
{
    if (running_)
        return;
    options_ = options;
    if (options_.environmentDir.isEmpty())
        options_.environmentDir = managedEnvironmentDir();
    if (!options_.environmentDir.isEmpty())
        options_.environmentDir = QDir::cleanPath(QDir(options_.environmentDir).absolutePath());
    if (options_.basePython.isEmpty())
        options_.basePython = "python3";
    if (options_.torchVersion.isEmpty())
        options_.torchVersion = pinnedTorchVersion();
    if (options_.torchvisionVersion.isEmpty())
        options_.torchvisionVersion = pinnedTorchvisionVersion();

    const QProcessEnvironment env = setupEnvironment();
    context_ = {};
    context_.environmentDir = options_.environmentDir;
    context_.basePython = options_.basePython;
    context_.indexUrl = options_.indexUrl;
    context_.tempDir = options_.environmentDir + "/.stepscope-setup-tmp";
    context_.cacheDir = pipCacheDir(env);
    context_.requirements = "torch==" + options_.torchVersion + " torchvision==" + options_.torchvisionVersion;
    context_.lockFile = options_.environmentDir.isEmpty() ? QString() : setupLockFile(options_.environmentDir);

    running_ = true;
    venvCreated_ = false;
    rawProgress_ = false;
    reader_ = SetupProgressReader();
    sinceEmit_.invalidate();
    // Everything, failures included, is said from the event loop: a caller connects after start().
    QMetaObject::invokeMethod(
        this,
        [this] {
            if (!running_)
                return;
            if (options_.environmentDir.isEmpty()) {
                fail({SetupError::NotWritable,
                      "there is no folder for the Python environment: HOME is not set",
                      "set STEPSCOPE_VENV to the folder the environment should go to",
                      {}});
                return;
            }
            if (!takeLock())
                return;
            // The marker before anything else in the environment: from here on it never looks
            // usable until the check at the end passes.
            const QString marker =
                options_.environmentDir + '/' + QFileInfo(managedEnvironmentIncompleteMarker()).fileName();
            if (!QDir().mkpath(options_.environmentDir)) {
                fail(writeFailure(options_.environmentDir, {}, failureContext()));
                return;
            }
            QFile file(marker);
            if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
                file.write("setup of " + context_.requirements.toUtf8() + " not finished\n") < 0 || !file.flush()) {
                fail(writeFailure(marker, file.errorString(), failureContext()));
                return;
            }
            file.close();
            probePip();
        },
        Qt::QueuedConnection);
}

// The watchdog first: it is a fork of this process, and must not share the lock's open file.
bool PythonSetup::takeLock()
{
    const QString parent = QFileInfo(context_.lockFile).absolutePath();
    if (!QDir().mkpath(parent)) {
        fail(writeFailure(parent, {}, failureContext()));
        return false;
    }
    watchdog_ = std::make_unique<platform::GroupWatchdog>();
    const std::string holder =
        "pid " + std::to_string(platform::currentProcessId()) + " on host " + platform::hostName();
    lock_ = std::make_unique<platform::FileLock>(context_.lockFile.toStdString(), holder);
    switch (lock_->state()) {
    case platform::FileLock::State::Held:
        return true;
    case platform::FileLock::State::Busy:
        fail(busyFailure(QString::fromStdString(lock_->holder()), context_));
        return false;
    case platform::FileLock::State::Failed:
        fail(writeFailure(context_.lockFile, QString::fromStdString(lock_->error()), failureContext()));
        return false;
    }
    return false;
}

void PythonSetup::releaseGuards()
{
    watchdog_.reset(); // after stopProcess: no group is left for it to kill
    lock_.reset();
}

void PythonSetup::runStep(Step step, const QString &program, const QStringList &arguments)
{
    step_ = step;
    output_.clear();
    ProcessLaunch launch;
    launch.program = program;
    launch.arguments = arguments;
    launch.mergeStderr = true;
    launch.environment = setupEnvironment();
    if (step == Step::Install)
        launch.environment.insert("TMPDIR", context_.tempDir); // pip downloads there: what the poll measures
    if (step == Step::ProbePython) {
        launch.limitMs = kPythonProbeSeconds * 1000;
        launch.graceMs = 0; // a program that does not answer its version has nothing to save
    }
    // A group of its own: a cancel ends pip's helpers too, and a terminal's Ctrl-C reaches the
    // front-end alone (which cancels) instead of printing pip's traceback. Watched from before
    // exec, so that the group dies with this process even when it is killed outright.
    const platform::GroupWatchdog *watchdog = watchdog_.get();
    launch.childSetup = [watchdog] {
        platform::startOwnProcessGroup();
        if (watchdog)
            watchdog->watchOwnGroup();
    };
    Q_EMIT outputLine("$ " + program + ' ' + arguments.join(' '));
    runner_->start(launch);
    processGroup_ = runner_->processId();
}

void PythonSetup::probePip()
{
    if (QFileInfo(venvPython()).isExecutable())
        runStep(Step::ProbePip, venvPython(), {"-m", "pip", "--version"});
    else
        createVenv();
}

// The base Python is asked its version first: venv's own errors assume a Python, and a program
// that is none (/bin/true) would "create" nothing, or hang.
void PythonSetup::createVenv()
{
    venvCreated_ = true;
    reader_.setPhase(SetupPhase::CreatingEnvironment);
    emitProgress(true);
    runStep(Step::ProbePython, options_.basePython, pythonProbeArguments());
}

void PythonSetup::install()
{
    QDir(context_.tempDir).removeRecursively(); // what a cancelled pip left there is of no use
    if (!QDir().mkpath(context_.tempDir)) {
        fail(writeFailure(context_.tempDir, {}, failureContext()));
        return;
    }
    reader_.setPhase(SetupPhase::Resolving);
    emitProgress(true);
    QStringList arguments{"-m",
                          "pip",
                          "install",
                          "--retries",
                          QString::number(kPipRetries),
                          "--timeout",
                          QString::number(kPipTimeoutSeconds),
                          "--progress-bar",
                          rawProgress_ ? "raw" : "off"};
    if (!options_.indexUrl.isEmpty())
        arguments << "--index-url" << options_.indexUrl;
    if (!options_.findLinks.isEmpty())
        arguments << "--find-links" << options_.findLinks;
    if (options_.noIndex)
        arguments << "--no-index";
    arguments << "torch==" + options_.torchVersion << "torchvision==" + options_.torchvisionVersion;
    runStep(Step::Install, venvPython(), arguments);
    poll_.start();
}

void PythonSetup::check()
{
    poll_.stop();
    reader_.setPhase(SetupPhase::Checking);
    emitProgress(true);
    runStep(Step::Check, venvPython(),
            {"-c", "import torch, torchvision; print(torch.__version__, torchvision.__version__)"});
}

void PythonSetup::onLine(const QByteArray &bytes)
{
    const QString line = QString::fromUtf8(bytes).remove('\r');
    output_ += line + '\n';
    if (output_.size() > kKeptOutput)
        output_.remove(0, output_.size() - kKeptOutput);
    Q_EMIT outputLine(line);
    if (step_ == Step::Install) {
        const SetupPhase before = reader_.progress().phase;
        const int files = reader_.progress().files;
        if (reader_.readLine(line))
            emitProgress(reader_.progress().phase != before || reader_.progress().files != files);
    }
}

void PythonSetup::onStartFailed(const QString &why)
{
    const Step step = step_;
    if (step == Step::ProbePython || step == Step::CreateVenv) {
        fail({SetupError::NoPython,
              "cannot start " + options_.basePython + " to create the Python environment (" + why + ")",
              "install Python 3 with its venv module (Debian or Ubuntu: sudo apt install python3 python3-venv), or "
              "pass --python with the path of a Python 3",
              {}});
        return;
    }
    if (step == Step::ProbePip && !venvCreated_) {
        createVenv(); // the environment's python is broken (its base Python went away): make it again
        return;
    }
    fail({SetupError::Failed,
          "cannot start " + venvPython() + " (" + why + ")",
          "remove " + options_.environmentDir + " and set up again",
          {}});
}

void PythonSetup::onEnded(const ProcessEnd &end)
{
    if (!running_)
        return;
    if (!end.unfinishedLine.isEmpty()) { // what came with the end, without a newline
        const QString line = QString::fromUtf8(end.unfinishedLine);
        output_ += line + '\n';
        Q_EMIT outputLine(line);
    }
    if (watchdog_)
        watchdog_->forget(processGroup_);
    if (!end.started()) {
        onStartFailed(end.startError);
        return;
    }
    const bool ok = end.succeeded();
    const QString output = output_;
    const Step step = step_;
    switch (step) {
    case Step::ProbePip:
        if (ok) {
            rawProgress_ = pipHasRawProgress(output.trimmed().section('\n', -1));
            install();
        } else if (!venvCreated_) {
            createVenv();
        } else {
            // A venv made just now without a working pip: Debian's python3 without python3-venv
            // gets that far on some versions.
            fail(classifyVenvFailure(output + "\nNo module named ensurepip", failureContext()));
        }
        return;
    case Step::ProbePython:
        if (end.how == ProcessEnd::How::OverLimit)
            fail(pythonProbeTimedOut(kPythonProbeSeconds, context_));
        else if (const auto failure = classifyPythonProbe(output, end.normalExit, end.exitCode, context_))
            fail(*failure);
        else
            runStep(Step::CreateVenv, options_.basePython, {"-m", "venv", options_.environmentDir});
        return;
    case Step::CreateVenv:
        // An exit 0 that made no bin/python is a failure too: probing again would loop.
        if (ok && QFileInfo(venvPython()).isExecutable()) {
            probePip();
        } else {
            fail(classifyVenvFailure(output, failureContext()));
        }
        return;
    case Step::Install:
        poll_.stop();
        if (ok)
            check();
        else
            fail(classifyPipFailure(output, failureContext()));
        return;
    case Step::Check: {
        const QStringList versions = output.trimmed().section('\n', -1).split(' ', Qt::SkipEmptyParts);
        if (!ok || versions.size() != 2) {
            fail({SetupError::ImportFailed, "torch or torchvision does not import in " + options_.environmentDir,
                  "set up again (a retry reinstalls into the same environment), or remove " + options_.environmentDir +
                      " first",
                  lastLines(output)});
            return;
        }
        // A local build suffix ("+cu130", "+cpu") is the same release.
        if (versions[0].section('+', 0, 0) != options_.torchVersion ||
            versions[1].section('+', 0, 0) != options_.torchvisionVersion) {
            fail({SetupError::WrongVersion,
                  "the environment holds torch " + versions[0] + " and torchvision " + versions[1] + ", not " +
                      context_.requirements,
                  "remove " + options_.environmentDir + " and set up again", lastLines(output)});
            return;
        }
        const QString marker =
            options_.environmentDir + '/' + QFileInfo(managedEnvironmentIncompleteMarker()).fileName();
        if (QFile::exists(marker) && !QFile::remove(marker)) {
            fail({SetupError::NotWritable,
                  "cannot remove the marker " + marker,
                  "make " + options_.environmentDir + " writable and set up again",
                  {}});
            return;
        }
        removeTempDir();
        running_ = false;
        step_ = Step::None;
        releaseGuards();
        Q_EMIT finished({options_.environmentDir, venvPython(), versions[0], versions[1]});
        return;
    }
    case Step::None:
        return;
    }
}

void PythonSetup::pollDownload()
{
    const SetupProgress &p = reader_.progress();
    if (!running_ || step_ != Step::Install || p.phase != SetupPhase::Downloading)
        return;
    if (reader_.rawProgressSeen()) {
        reader_.observeFileSize(0); // pip says the bytes itself: the poll only moves the clock on
    } else if (!p.file.isEmpty()) {
        // pip writes the download into a pip-unpack-* folder of its TMPDIR under the file's own name.
        qint64 size = -1;
        QDirIterator it(context_.tempDir, {p.file}, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            it.next();
            size = std::max(size, it.fileInfo().size());
        }
        if (size >= 0)
            reader_.observeFileSize(size);
    }
    emitProgress(true);
}

void PythonSetup::emitProgress(bool now)
{
    if (!now && sinceEmit_.isValid() && sinceEmit_.elapsed() < kEmitEveryMs)
        return;
    sinceEmit_.start();
    Q_EMIT progress(reader_.progress());
}

void PythonSetup::cancel()
{
    if (!running_)
        return;
    fail({SetupError::Cancelled,
          "setup cancelled; " + options_.environmentDir + " stays incomplete",
          "set up again when you want: " + setupRetryText(),
          {}});
}

void PythonSetup::fail(SetupFailure failure)
{
    stopProcess();
    // Only the lock's holder touches the environment: a refused second setup leaves the first's
    // TMPDIR alone.
    if (lock_ && lock_->state() == platform::FileLock::State::Held)
        removeTempDir();
    running_ = false;
    step_ = Step::None;
    releaseGuards();
    Q_EMIT failed(failure);
}

void PythonSetup::stopProcess()
{
    poll_.stop();
    if (!runner_->isRunning())
        return;
    platform::killProcessGroup(runner_->processId());
    runner_->abort(); // killed and reaped; nothing more is signalled
    if (watchdog_)
        watchdog_->forget(processGroup_);
}

void PythonSetup::removeTempDir()
{
    if (!context_.tempDir.isEmpty())
        QDir(context_.tempDir).removeRecursively();
}

} // namespace stepscope::supervisor
