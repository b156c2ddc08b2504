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

QString freeText(const QString &folder)
{
    const auto free = platform::freeBytes(folder.toStdString());
    return free ? byteText(qint64(*free)) + " free" : QString("free space unknown");
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

QString lastLines(const QString &text, int lines)
{
    QStringList all = text.split('\n', Qt::SkipEmptyParts);
    if (all.size() > lines)
        all = all.mid(all.size() - lines);
    return all.join('\n');
}

SetupFailure classifyVenvFailure(const QString &output, const SetupContext &context)
{
    SetupFailure f;
    f.detail = lastLines(output);
    if (containsAny(output, {"No space left on device", "Errno 28", "Disk quota exceeded"})) {
        f.error = SetupError::NoSpace;
        f.message = "no space left to create the Python environment in " + context.environmentDir + " (" +
                    freeText(context.environmentDir) + ")";
        f.fix = "free some space there (PyTorch needs about " + byteText(kSetupEnvironmentBytes) +
                "), or set STEPSCOPE_VENV to a folder on a larger disk";
        return f;
    }
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
    f.error = SetupError::Failed;
    f.message = context.basePython + " -m venv could not create the environment in " + context.environmentDir;
    f.fix = "see the detail below; a retry resumes, or pass --python with another Python 3";
    return f;
}

SetupFailure classifyPipFailure(const QString &output, const SetupContext &context)
{
    SetupFailure f;
    f.detail = lastLines(output);
    if (containsAny(output, {"No space left on device", "Errno 28", "Disk quota exceeded", "Errno 122"})) {
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
        f.fix = "check the network (and a proxy: HTTPS_PROXY), or pass --index-url to a mirror you can reach; a retry "
                "resumes with what was already downloaded";
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
    f.fix = "see pip's last lines below; a retry resumes with what was downloaded";
    return f;
}

} // namespace stepscope::supervisor
