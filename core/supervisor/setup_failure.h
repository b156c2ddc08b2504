#pragma once
// Why a PyTorch setup (python_setup.h) stopped, as a value with a category, the words for a user
// and the fix, read from what python3 -m venv and pip said. Pure functions: tests feed them the
// texts recorded from pip 23.2 (Debian 12) and pip 24.
#include <QString>
#include <QStringList>
#include <QtGlobal>

#include <optional>

namespace stepscope::supervisor
{

enum class SetupError {
    Cancelled,
    Busy,             // another setup of the same environment holds its lock
    NoPython,         // the base interpreter could not be started, or is not a Python 3
    NoVenvModule,     // python3 has no venv/ensurepip (Debian: python3-venv)
    NotWritable,      // the environment folder cannot be made or written
    IndexUnreachable, // offline, DNS, proxy, TLS, a mirror that does not answer
    NoMatchingDistribution,
    NoSpace,
    WrongVersion, // the import worked but not at the pins
    ImportFailed, // pip said it installed them, and they do not import
    Failed,       // anything else: the detail holds pip's last lines
};
const char *toString(SetupError error); // "index-unreachable", ... for logs and tests

struct SetupFailure {
    SetupError error = SetupError::Failed;
    QString message; // what went wrong, for a user
    QString fix;     // what to do about it
    QString detail;  // the tool's own last lines
};

// What the setup was doing when it failed, for the words of the failure.
struct SetupContext {
    QString environmentDir; // where the environment is built
    QString basePython;     // the interpreter that creates it
    QString indexUrl;       // --index-url, empty for pip's default (PyPI)
    QString tempDir;        // the TMPDIR pip downloads into
    QString cacheDir;       // pip's cache, where downloads are kept for a retry
    QString requirements;   // "torch==2.11.0 torchvision==0.26.0"
    QString lockFile;       // the lock a setup holds beside the environment (python_setup.h)
    // Free on the environment's disk when the step failed (none: unknown). venv runs ensurepip
    // with its output captured and says only "returned non-zero exit status 1": on a full disk
    // this figure is the one sign left.
    std::optional<qint64> freeBytes;
};

// What the base Python is asked first, with a few seconds to answer: a program that is no Python
// (/bin/true), or one that hangs, is named at once instead of looping or waiting on venv.
QStringList pythonProbeArguments();
// Its answer (stdout and stderr) and how it ended: none for a Python 3, else why it cannot create
// the environment.
std::optional<SetupFailure> classifyPythonProbe(const QString &output, bool exitedNormally, int exitCode,
                                                const SetupContext &context);
// It did not answer within `seconds`.
SetupFailure pythonProbeTimedOut(int seconds, const SetupContext &context);
// Another setup holds the lock; `holder` is what its lock file says ("pid 4242 on host lab1").
SetupFailure busyFailure(const QString &holder, const SetupContext &context);
// A file or folder the setup writes itself (the lock, the marker, pip's TMPDIR) could not be
// written; `why` is the system's words ("No space left on device").
SetupFailure writeFailure(const QString &path, const QString &why, const SetupContext &context);
// `python -m venv` exited with `exitCode` after writing `output` (stdout and stderr).
SetupFailure classifyVenvFailure(const QString &output, const SetupContext &context);
// `pip install` exited non-zero after writing `output`.
SetupFailure classifyPipFailure(const QString &output, const SetupContext &context);
// What a setup downloads and leaves on disk, said once for its words, the dialog, the CLI's help
// and the README (a test holds the README to setupSizeText()). Decimal units, as pip says them.
// On disk: the environment scripts/bootstrap.sh makes (torch 2.11.0+cu130 and torchvision 0.26.0
// from PyPI, Python 3.11) measured 4,976,434,980 bytes (du -sb; `du -h` shows 4.7G, binary units).
// Downloaded: 2.7 GB, the compressed wheels of a fresh setup as reported in issue 35 point 9.
constexpr qint64 kSetupDownloadBytes = 2'700'000'000LL;    // PyPI's CUDA torch, torchvision, libraries
constexpr qint64 kSetupEnvironmentBytes = 4'980'000'000LL; // the same, installed
// An environment with pip alone: 23 MB (python3.11 -m venv, pip 23.2); below twice that free, a
// venv that failed without saying why most likely ran out of room.
constexpr qint64 kSetupVenvBytes = 50'000'000LL;
// Bytes as people read them: "4.2 MB", "888.0 MB", "1.4 kB" (decimal, as pip says them).
QString byteText(qint64 bytes);
// "about 2.7 GB to download and 5.0 GB once installed": the sizes above, in every text that names them.
QString setupSizeText();
// What a cancelled or failed setup keeps, in the words of each text that promises a retry:
// the environment and the packages pip finished downloading (its cache keeps whole files only), so
// a retry downloads only the rest, and the file that was being downloaded starts over.
QString setupRetryText();
// The last `lines` lines of `text`, for a failure's detail.
QString lastLines(const QString &text, int lines = 12);

} // namespace stepscope::supervisor
