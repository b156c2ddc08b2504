#include "supervisor/setup_failure.h"

#include "platform/platform.h"

#include <QRegularExpression>
#include <QStringList>

namespace stepscope::supervisor
{
namespace
{

bool containsAny(const QString &text, std::initializer_list<const char *> needles)
{
    for (const char *n : needles)
        if (text.contains(QLatin1String(n), Qt::CaseInsensitive))
            return true;
    return false;
}

// The words a full disk or a used-up quota leaves in what a tool or the system says, for every step.
bool saysNoSpace(const QString &text)
{
    return containsAny(text, {"No space left on device", "Errno 28", "Disk quota exceeded", "Errno 122"});
}

// "1.2 MB free": `known` when the caller measured it at the failure, else measured now.
QString freeText(const QString &folder, std::optional<qint64> known = std::nullopt)
{
    if (!known)
        if (const auto free = platform::freeBytes(folder.toStdString()))
            known = qint64(*free);
    return known ? byteText(*known) + " free" : QString("free space unknown");
}

const char *const kPythonFix =
    "pass --python with the path of a Python 3 (--python /usr/bin/python3), or leave --python out to use python3 on "
    "PATH";

SetupFailure venvNoSpace(const QString &output, const SetupContext &context)
{
    return {SetupError::NoSpace,
            "no space left to create the Python environment in " + context.environmentDir + " (" +
                freeText(context.environmentDir, context.freeBytes) + ")",
            "free some space there (PyTorch needs about " + byteText(kSetupEnvironmentBytes) +
                "), or set STEPSCOPE_VENV to a folder on a larger disk",
            lastLines(output)};
}

// The package Debian names in its own message ("apt install python3.11-venv"), else the generic one.
QString debianVenvPackage(const QString &output)
{
    static const QRegularExpression named("apt(?:-get)? install (python3(?:\\.[0-9]+)?-venv)");
    const auto m = named.match(output);
    return m.hasMatch() ? m.captured(1) : QString("python3-venv");
}

} // namespace

const char *toString(SetupError error)
{
    switch (error) {
    case SetupError::Cancelled:
        return "cancelled";
    case SetupError::Busy:
        return "busy";
    case SetupError::NoPython:
        return "no-python";
    case SetupError::NoVenvModule:
        return "no-venv-module";
    case SetupError::NotWritable:
        return "not-writable";
    case SetupError::IndexUnreachable:
        return "index-unreachable";
    case SetupError::NoMatchingDistribution:
        return "no-matching-distribution";
    case SetupError::NoSpace:
        return "no-space";
    case SetupError::WrongVersion:
        return "wrong-version";
    case SetupError::ImportFailed:
        return "import-failed";
    case SetupError::Failed:
        return "failed";
    }
    return "?";
}

QString byteText(qint64 bytes)
{
    if (bytes < 1000)
        return QString::number(bytes) + " bytes";
    const char *units[] = {"kB", "MB", "GB", "TB"};
    double value = double(bytes);
    int unit = -1;
    while (value >= 1000 && unit < 3) {
        value /= 1000;
        ++unit;
    }
    return QString::number(value, 'f', 1) + ' ' + units[unit];
}

QString setupSizeText()
{
    return "about " + byteText(kSetupDownloadBytes) + " to download and " + byteText(kSetupEnvironmentBytes) +
           " once installed";
}

QString setupRetryText()
{
    // pip keeps a download in its cache only once the file is whole (its HTTP cache), and Debian's
    // pip cannot continue a cut-off one: say so rather than promise a resume.
    return "a retry keeps the environment and every package pip finished downloading (in pip's cache) and "
           "downloads the rest; a package cut off midway downloads again from its start";
}

QString lastLines(const QString &text, int lines)
{
    QStringList all = text.split('\n', Qt::SkipEmptyParts);
    if (all.size() > lines)
        all = all.mid(all.size() - lines);
    return all.join('\n');
}

QStringList pythonProbeArguments()
{
    // %-formatting and sys.stdout.write: a Python 2 answers too ("2.7"), and is named for what it is.
    return {"-c", "import sys; sys.stdout.write('%d.%d\\n' % sys.version_info[:2])"};
}

std::optional<SetupFailure> classifyPythonProbe(const QString &output, bool exitedNormally, int exitCode,
                                                const SetupContext &context)
{
    static const QRegularExpression version("^([0-9]+)\\.([0-9]+)$");
    const QString answer = output.trimmed().section('\n', -1).trimmed();
    const auto m = version.match(answer);
    const bool answered = exitedNormally && exitCode == 0 && m.hasMatch();
    if (answered && m.captured(1) == "3")
        return std::nullopt;
    QString how;
    if (answered)
        how = "it is Python " + answer;
    else if (!exitedNormally)
        how = "asked its version, it crashed";
    else if (exitCode != 0)
        how = QString("asked its version, it exited with code %1").arg(exitCode);
    else if (answer.isEmpty())
        how = "asked its version, it said nothing";
    else
        how = "asked its version, it answered '" + answer.left(80) + "'";
    return SetupFailure{SetupError::NoPython,
                        context.basePython + " is not a Python 3 that can create the environment (" + how + ")",
                        kPythonFix, lastLines(output)};
}

SetupFailure pythonProbeTimedOut(int seconds, const SetupContext &context)
{
    return {SetupError::NoPython,
            QString("%1 did not answer within %2 s when asked its version: it is not a working Python 3")
                .arg(context.basePython)
                .arg(seconds),
            kPythonFix,
            {}};
}

SetupFailure busyFailure(const QString &holder, const SetupContext &context)
{
    static const QRegularExpression pid("pid ([0-9]+)");
    const auto m = pid.match(holder);
    const QString who = holder.isEmpty() ? QString("a process that has not named itself yet") : holder;
    return {SetupError::Busy,
            "another setup of " + context.environmentDir + " is running (" + who + " holds " + context.lockFile + ")",
            "wait for it to finish, or stop it (Ctrl-C where it runs, Cancel in the dashboard" +
                (m.hasMatch() ? ", or kill " + m.captured(1) : QString()) +
                "), then set up again; two setups at once would break each other's pip",
            {}};
}

SetupFailure writeFailure(const QString &path, const QString &why, const SetupContext &context)
{
    // mkdir's failure comes without the system's words: a disk with next to nothing free is the cause.
    if (saysNoSpace(why) || (why.isEmpty() && context.freeBytes && *context.freeBytes < kSetupVenvBytes))
        return {SetupError::NoSpace,
                "no space left on the disk to write " + path + " (" + (why.isEmpty() ? QString() : why + "; ") +
                    freeText(context.environmentDir, context.freeBytes) + ")",
                "free some space there (PyTorch needs about " + byteText(kSetupEnvironmentBytes) +
                    "), or set STEPSCOPE_VENV to a folder on a larger disk",
                {}};
    return {SetupError::NotWritable,
            "cannot write " + path + (why.isEmpty() ? QString() : " (" + why + ")"),
            "make that folder writable, or set STEPSCOPE_VENV to a folder you may write",
            {}};
}

SetupFailure classifyVenvFailure(const QString &output, const SetupContext &context)
{
    if (saysNoSpace(output))
        return venvNoSpace(output, context);
    SetupFailure f;
    f.detail = lastLines(output);
    // Debian's own words wrap: "because ensurepip is not\navailable. ... install the python3-venv".
    if (containsAny(output, {"ensurepip is not", "python3-venv", "No module named venv", "No module named ensurepip",
                             "No module named 'venv'", "No module named 'ensurepip'"})) {
        f.error = SetupError::NoVenvModule;
        f.message =
            context.basePython + " cannot create virtual environments (its venv module or ensurepip is missing)";
        f.fix = "install it: on Debian or Ubuntu, sudo apt install " + debianVenvPackage(output) +
                "; elsewhere, your distribution's python3 venv package; or pass --python with another Python 3";
        return f;
    }
    if (containsAny(output, {"Permission denied", "Read-only file system", "Errno 13", "Errno 30"})) {
        f.error = SetupError::NotWritable;
        f.message = "cannot write the Python environment in " + context.environmentDir;
        f.fix = "make that folder writable, or set STEPSCOPE_VENV to a folder you may write";
        return f;
    }
    if (context.freeBytes && *context.freeBytes < kSetupVenvBytes)
        return venvNoSpace(output, context);
    f.error = SetupError::Failed;
    f.message = context.basePython + " -m venv could not create the environment in " + context.environmentDir;
    f.fix = "see the detail below and set up again, or pass --python with another Python 3";
    return f;
}

SetupFailure classifyPipFailure(const QString &output, const SetupContext &context)
{
    SetupFailure f;
    f.detail = lastLines(output);
    if (saysNoSpace(output)) {
        f.error = SetupError::NoSpace;
        f.message = "no space left on the disk while installing PyTorch (environment " + context.environmentDir + ": " +
                    freeText(context.environmentDir) + "; pip's cache " + context.cacheDir + ": " +
                    freeText(context.cacheDir) + ")";
        f.fix = "PyTorch needs about " + byteText(kSetupDownloadBytes) + " for its downloads in pip's cache and " +
                byteText(kSetupEnvironmentBytes) +
                " in the environment: free that much, or set STEPSCOPE_VENV (and PIP_CACHE_DIR) to a larger disk, "
                "then retry (what was downloaded is kept)";
        return f;
    }
    // pip says "No matching distribution" also when it reached no index at all: the connection
    // errors before it decide.
    if (containsAny(output, {"NewConnectionError", "Failed to establish a new connection", "Max retries exceeded",
                             "Temporary failure in name resolution", "Name or service not known", "ConnectTimeoutError",
                             "ReadTimeoutError", "Read timed out", "ProxyError", "Connection refused",
                             "Network is unreachable", "Connection reset", "SSLError", "connection broken",
                             "IncompleteRead", "not a trusted or secure host", "Could not fetch URL"})) {
        f.error = SetupError::IndexUnreachable;
        const QString index = context.indexUrl.isEmpty() ? QString("the package index (pypi.org)") : context.indexUrl;
        f.message = "cannot reach the package index " + index + " to download " + context.requirements;
        f.fix = "check the network (and a proxy: HTTPS_PROXY), or pass --index-url to a mirror you can reach; " +
                setupRetryText();
        return f;
    }
    if (containsAny(output, {"No matching distribution found", "Could not find a version that satisfies"})) {
        f.error = SetupError::NoMatchingDistribution;
        static const QRegularExpression versions("from versions: ([^)]*)\\)");
        const auto m = versions.match(output);
        f.message = "the package index offers no " + context.requirements + " for this Python and platform" +
                    (m.hasMatch() ? " (versions there: " + m.captured(1) + ")" : QString());
        f.fix = "use a Python that PyTorch supports (pass --python, e.g. python3.12), or an index that has these "
                "versions (--index-url https://download.pytorch.org/whl/cpu for CPU-only wheels)";
        return f;
    }
    if (containsAny(output, {"Permission denied", "Read-only file system", "Errno 13", "Errno 30"})) {
        f.error = SetupError::NotWritable;
        f.message = "cannot write into the environment " + context.environmentDir + " or pip's folders";
        f.fix = "make them writable, or set STEPSCOPE_VENV to a folder you may write";
        return f;
    }
    f.error = SetupError::Failed;
    f.message = "pip could not install " + context.requirements + " into " + context.environmentDir;
    f.fix = "see pip's last lines below; " + setupRetryText();
    return f;
}

} // namespace stepscope::supervisor
