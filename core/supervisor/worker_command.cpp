#include "supervisor/worker_command.h"

#include "supervisor/torch_location.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#ifndef STEPSCOPE_TORCH_VERSION
#define STEPSCOPE_TORCH_VERSION ""
#endif

namespace stepscope::supervisor
{
namespace
{

QString appDir()
{
    return QCoreApplication::applicationDirPath();
}

// Beside the program in the build tree, else where the installed layout puts it; with neither
// there, beside the program (what a missing worker's message then names).
QString besideOrInstalled(const QString &dir, const QString &name, const QString &installed)
{
    const QString beside = QDir(dir).filePath(name);
    if (QFileInfo::exists(beside))
        return beside;
    const QString other = QDir::cleanPath(QDir(dir).filePath(installed));
    return QFileInfo::exists(other) ? other : beside;
}

WorkerCommand python(const QString &interpreter, const QString &origin)
{
    return {interpreter, {"-u", defaultPythonWorkerScript()}, origin}; // -u: protocol lines leave at once
}

} // namespace

QString pythonWorkerScriptFor(const QString &dir)
{
    return besideOrInstalled(dir, "stepscope_worker.py", "../share/stepscope/python/stepscope_worker.py");
}

QString nativeWorkerFor(const QString &dir)
{
    return besideOrInstalled(dir, "stepscope-worker", "../lib/stepscope/stepscope-worker");
}

QString defaultPythonWorkerScript()
{
    const QString override = qEnvironmentVariable("STEPSCOPE_PYTHON_WORKER");
    return override.isEmpty() ? pythonWorkerScriptFor(appDir()) : override;
}

WorkerCommand defaultNativeWorker()
{
    // STEPSCOPE_NATIVE_WORKER points at another worker program (a build elsewhere, or a stand-in
    // that replays a stream for benchmarks); by default the one beside this program or installed.
    const QString override = qEnvironmentVariable("STEPSCOPE_NATIVE_WORKER");
    if (!override.isEmpty())
        return {override, {}, "STEPSCOPE_NATIVE_WORKER"};
    const QString program = nativeWorkerFor(appDir());
    return {program,
            {},
            QFileInfo(program).absolutePath() == QDir(appDir()).absolutePath() ? "beside this program"
                                                                               : "installed with this program"};
}

WorkerCommand defaultPythonWorker(const QString &configuredPython)
{
    // The same interpreter locateTorch looks in (torch_location.h): one order for both workers.
    const PythonChoice choice = choosePython(configuredPython);
    if (choice.python.isEmpty())
        return {{}, {}, problemAndFix(choice.problem, choice.fix)};
    return python(choice.python, choice.origin);
}

QString expectedTorchVersion()
{
    return QStringLiteral(STEPSCOPE_TORCH_VERSION);
}

QProcessEnvironment workerEnvironment()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // The build's torch, not whatever the caller's shell said.
    if (expectedTorchVersion().isEmpty())
        env.remove("STEPSCOPE_EXPECTED_TORCH");
    else
        env.insert("STEPSCOPE_EXPECTED_TORCH", expectedTorchVersion());
    return env;
}

} // namespace stepscope::supervisor
