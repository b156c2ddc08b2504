#include "supervisor/torch_location.h"

#include "supervisor/managed_python.h"
#include "supervisor/process_run.h"
#include "supervisor/worker_command.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QStringList>

#ifndef STEPSCOPE_BUILD_PYTHON
#define STEPSCOPE_BUILD_PYTHON ""
#endif
#ifndef STEPSCOPE_BUILD_BIN_DIR
#define STEPSCOPE_BUILD_BIN_DIR ""
#endif

namespace stepscope::supervisor
{
namespace
{

// Python's start and a spec lookup take a tenth of a second; a cold disk or a network home more.
constexpr int kLookupLimitMs = 30 * 1000;

// Where torch would be imported from, without importing it. The first sys.path entry of `-c` is the
// working folder, which the worker (started with its script) does not have: dropped, so that a
// torch/ folder where Stepscope was started cannot pass for the installed one.
const char *const kFindTorch = "import sys\n"
                               "if sys.path and sys.path[0] == '': del sys.path[0]\n"
                               "import importlib.util\n"
                               "s = importlib.util.find_spec('torch')\n"
                               "print(next(iter(s.submodule_search_locations or []), '') if s else '')\n";

bool isExecutableFile(const QString &path)
{
    const QFileInfo info(path);
    return info.isFile() && info.isExecutable();
}

// The torch release Stepscope wants: the native worker's, else (a build without it) setup's pin.
QString wantedTorch()
{
    return expectedTorchVersion().isEmpty() ? pinnedTorchVersion() : expectedTorchVersion();
}

QString setupFix()
{
    return "Run `stepscope-cli setup` to install torch " + wantedTorch() +
           " into Stepscope's own environment, or choose a Python that has it with --python or the dashboard's "
           "Python setting.";
}

PythonChoice found(const QString &python, const QString &origin)
{
    return {python, origin, {}, {}};
}

// "2.11.0+cu130" -> "2.11.0": the local part names the build (CUDA, CPU), not the release.
QString baseVersion(const QString &version)
{
    return version.section('+', 0, 0).trimmed();
}

QString versionIn(const QString &torchDir)
{
    QFile file(QDir(torchDir).filePath("version.py"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    static const QRegularExpression line(R"(^__version__\s*=\s*['"]([^'"]+)['"])", QRegularExpression::MultilineOption);
    return line.match(QString::fromUtf8(file.readAll())).captured(1);
}

QString lastLine(const QByteArray &bytes)
{
    const QStringList lines = QString::fromUtf8(bytes).split('\n', Qt::SkipEmptyParts);
    return lines.isEmpty() ? QString() : lines.last().trimmed();
}

// Fills torchDir, version, or problem and fix, for an interpreter already chosen. It waits for the
// Python it starts (runProcess says so to blockingCall): never on the dashboard's UI thread.
void findTorchIn(TorchLocation &t)
{
    const QString who = t.python + " (" + t.origin + ")";
    // The workers' PYTHONPATH, hence their torch.
    const ProcessRun run =
        runProcess(t.python, {"-c", QString::fromLatin1(kFindTorch)}, workerEnvironment(), kLookupLimitMs);
    if (!run.started) {
        t.problem = "cannot start " + who + ": " + run.startError;
        t.fix = setupFix();
        return;
    }
    if (run.timedOut) {
        t.problem = who + " did not say where its torch is within " + QString::number(kLookupLimitMs / 1000) + " s";
        t.fix = setupFix();
        return;
    }
    if (!run.succeeded()) {
        t.problem = who + " failed when asked where its torch is: " + run.logTail.right(500);
        t.fix = setupFix();
        return;
    }
    t.torchDir = lastLine(run.output);
    if (t.torchDir.isEmpty() || !QFileInfo(t.torchDir).isDir()) {
        t.torchDir.clear();
        t.problem = who + " has no torch";
        t.fix = setupFix();
        return;
    }
    t.version = versionIn(t.torchDir);
    const QString expected = expectedTorchVersion();
    if (t.version.isEmpty()) {
        t.problem = "the torch of " + who + " at " + t.torchDir + " has no readable version.py (a broken install)";
        t.fix = setupFix();
    } else if (!expected.isEmpty() && baseVersion(t.version) != baseVersion(expected)) {
        t.problem = who + " has torch " + t.version + ", but the native worker was built for torch " + expected;
        t.fix = setupFix();
    } else if (!expected.isEmpty() && !QFileInfo(QDir(t.torchDir).filePath("lib")).isDir()) {
        t.problem = "the torch of " + who + " at " + t.torchDir + " has no lib/ folder (LibTorch)";
        t.fix = setupFix();
    }
}

} // namespace

bool runningFromBuildTree()
{
    const QString bin = QStringLiteral(STEPSCOPE_BUILD_BIN_DIR);
    if (bin.isEmpty())
        return false;
    const QString here = QFileInfo(QCoreApplication::applicationDirPath()).canonicalFilePath();
    return !here.isEmpty() && here == QFileInfo(bin).canonicalFilePath();
}

PythonChoice choosePython(const QString &configuredPython)
{
    return choosePython(configuredPython, runningFromBuildTree());
}

PythonChoice choosePython(const QString &configured, bool fromBuildTree)
{
    if (!configured.isEmpty()) {
        const QString path = configured.contains('/') ? configured : QStandardPaths::findExecutable(configured);
        if (!path.isEmpty() && isExecutableFile(path))
            return found(path, "--python / settings");
        return {{},
                {},
                "the Python set for Stepscope (" + configured +
                    ", from --python or the dashboard's settings) is not an executable file",
                "Point --python or the dashboard's Python setting at the interpreter that holds torch " +
                    wantedTorch() + ", or clear it to use the Python Stepscope finds itself."};
    }
    const QString env = qEnvironmentVariable("STEPSCOPE_PYTHON");
    if (!env.isEmpty()) {
        if (isExecutableFile(env))
            return found(env, "STEPSCOPE_PYTHON");
        return {{},
                {},
                "STEPSCOPE_PYTHON=" + env + " is not an executable file",
                "Point STEPSCOPE_PYTHON at the interpreter that holds torch " + wantedTorch() + ", or unset it."};
    }
    QStringList tried{"--python", "STEPSCOPE_PYTHON"};
    // A setup that did not finish is never used, but it is said: the user may think it was.
    QString skipped;
    if (managedEnvironmentReady())
        return found(managedPython(), "the managed environment");
    if (!managedEnvironmentIncompleteMarker().isEmpty() && QFileInfo::exists(managedEnvironmentIncompleteMarker())) {
        skipped = "the managed environment at " + managedEnvironmentDir() + ", whose setup did not finish";
        tried << skipped;
    } else {
        tried << "the managed environment (not set up)";
    }
    const QString withSkipped = skipped.isEmpty() ? QString() : "; skipped " + skipped;
    const QString built = QStringLiteral(STEPSCOPE_BUILD_PYTHON);
    if (fromBuildTree && !built.isEmpty()) {
        if (isExecutableFile(built))
            return found(built, "the build's environment" + withSkipped);
        tried << built + " (the build's environment, gone)";
    }
    const QString onPath = QStandardPaths::findExecutable("python3");
    if (!onPath.isEmpty())
        return found(onPath, "python3 on PATH" + withSkipped);
    tried << "python3 on PATH";
    return {{}, {}, "no Python interpreter found (tried " + tried.join(", ") + ")", setupFix()};
}

TorchLocation locateTorch(const QString &configuredPython)
{
    const PythonChoice choice = choosePython(configuredPython);
    TorchLocation t;
    t.python = choice.python;
    t.origin = choice.origin;
    if (t.python.isEmpty()) {
        t.problem = choice.problem;
        t.fix = choice.fix;
        return t;
    }
    findTorchIn(t);
    return t;
}

QProcessEnvironment nativeWorkerEnvironment(const TorchLocation &torch)
{
    QProcessEnvironment env = workerEnvironment();
    if (torch.torchDir.isEmpty())
        return env;
    // In front: a LibTorch of another torch elsewhere on the path must not be the one loaded.
    QStringList dirs{QDir(torch.torchDir).filePath("lib")};
    // The native worker also links the CUDA runtime itself (events, synchronisation), which the pip
    // wheels keep beside torch in site-packages/nvidia/<part>/lib (cu13/lib for CUDA 13), not in
    // torch/lib: without a system CUDA toolkit the worker would not start.
    const QDir nvidia(QDir(torch.torchDir).filePath("../nvidia"));
    for (const QString &part : nvidia.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        const QString lib = QDir::cleanPath(nvidia.filePath(part + "/lib"));
        if (QFileInfo(lib).isDir())
            dirs << lib;
    }
    const QString before = env.value("LD_LIBRARY_PATH");
    if (!before.isEmpty())
        dirs << before;
    env.insert("LD_LIBRARY_PATH", dirs.join(':'));
    return env;
}

QString problemAndFix(const QString &problem, const QString &fix)
{
    return fix.isEmpty() ? problem : problem + ". " + fix;
}

Failure torchFailure(const TorchLocation &torch)
{
    const QString expected = expectedTorchVersion();
    const bool otherRelease =
        !torch.version.isEmpty() && !expected.isEmpty() && baseVersion(torch.version) != baseVersion(expected);
    const FailureCategory category = torch.python.isEmpty() ? FailureCategory::PythonNotFound
                                     : otherRelease         ? FailureCategory::TorchVersionMismatch
                                                            : FailureCategory::TorchMissing;
    return {category, problemAndFix(torch.problem, torch.fix).toStdString(), {}};
}

} // namespace stepscope::supervisor
