#pragma once
// Why a PyTorch setup (python_setup.h) stopped, as a value with a category, the words for a user
// and the fix, read from what python3 -m venv and pip said. Pure functions: tests feed them the
// texts recorded from pip 23.2 (Debian 12) and pip 24.
#include <QString>
#include <QtGlobal>

namespace stepscope::supervisor
{

enum class SetupError {
    Cancelled,
    NoPython,         // the base interpreter could not be started
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
};

// `python -m venv` exited with `exitCode` after writing `output` (stdout and stderr).
SetupFailure classifyVenvFailure(const QString &output, const SetupContext &context);
// `pip install` exited non-zero after writing `output`.
SetupFailure classifyPipFailure(const QString &output, const SetupContext &context);
// The space a setup needs, said once for the words and the dialog: pip keeps the downloads in
// its cache and unpacks them into the environment.
// Measured on 2026-12-03: the environment scripts/bootstrap.sh makes (torch 2.11.0+cu130 and
// torchvision 0.26.0 from PyPI, Python 3.11) takes 4.98 GB on disk (du -sb). The wheels are
// compressed, so 5 GB is an upper bound for the downloads too.
constexpr qint64 kSetupDownloadBytes = 5'000'000'000LL;    // at most: PyPI's CUDA torch, torchvision, libraries
constexpr qint64 kSetupEnvironmentBytes = 5'000'000'000LL; // the same, installed
// Bytes as people read them: "4.2 MB", "888.0 MB", "1.4 kB" (decimal, as pip says them).
QString byteText(qint64 bytes);
// The last `lines` lines of `text`, for a failure's detail.
QString lastLines(const QString &text, int lines = 12);

} // namespace stepscope::supervisor
