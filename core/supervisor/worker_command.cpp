#include "supervisor/worker_command.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#ifndef STEPSCOPE_BUILD_PYTHON
#define STEPSCOPE_BUILD_PYTHON ""
#endif
#ifndef STEPSCOPE_TORCH_VERSION
#define STEPSCOPE_TORCH_VERSION ""
#endif

namespace stepscope::supervisor
{
namespace
{

QString besideProgram(const QString &name)
{
    return QDir(QCoreApplication::applicationDirPath()).filePath(name);
}

QString workerScript()
{
    const QString override = qEnvironmentVariable("STEPSCOPE_PYTHON_WORKER");
    return override.isEmpty() ? besideProgram("stepscope_worker.py") : override;
}

WorkerCommand python(const QString &interpreter, const QString &origin)
{
    return {interpreter, {"-u", workerScript()}, origin}; // -u: protocol lines leave at once
}

WorkerCommand notFound(const QString &why)
{
    return {{}, {}, why};
}

bool isExecutableFile(const QString &path)
{
    const QFileInfo info(path);
    return info.isFile() && info.isExecutable();
}

} // namespace

WorkerCommand defaultNativeWorker()
{
    // STEPSCOPE_NATIVE_WORKER points at another worker program (a build elsewhere, or a stand-in
    // that replays a stream for benchmarks); by default the one installed next to this program.
    const QString override = qEnvironmentVariable("STEPSCOPE_NATIVE_WORKER");
    if (!override.isEmpty())
        return {override, {}, "STEPSCOPE_NATIVE_WORKER"};
    return {besideProgram("stepscope-worker"), {}, "beside this program"};
}

WorkerCommand defaultPythonWorker(const QString &configuredPython)
{
    if (!configuredPython.isEmpty()) {
        const QString path =
            configuredPython.contains('/') ? configuredPython : QStandardPaths::findExecutable(configuredPython);
        if (!path.isEmpty() && isExecutableFile(path))
            return python(path, "--python / settings");
        return notFound("the Python set for Stepscope (" + configuredPython +
                        ", from --python or the dashboard's settings) is not an executable file; "
                        "point it at the interpreter that holds torch");
    }
    const QString env = qEnvironmentVariable("STEPSCOPE_PYTHON");
    if (!env.isEmpty()) {
        if (isExecutableFile(env))
            return python(env, "STEPSCOPE_PYTHON");
        return notFound("STEPSCOPE_PYTHON=" + env +
                        " is not an executable file; point it at the interpreter that holds torch, or unset it");
    }
    QStringList tried{"--python", "STEPSCOPE_PYTHON"};
    const QString built = QStringLiteral(STEPSCOPE_BUILD_PYTHON);
    if (!built.isEmpty()) {
        if (isExecutableFile(built))
            return python(built, "the build's environment");
        tried << built + " (the build's environment, gone)";
    }
    const QString onPath = QStandardPaths::findExecutable("python3");
    if (!onPath.isEmpty())
        return python(onPath, "python3 on PATH");
    tried << "python3 on PATH";
    return notFound("no Python interpreter found (tried " + tried.join(", ") +
                    "); set STEPSCOPE_PYTHON or pass --python with the interpreter that holds torch "
                    "(scripts/bootstrap.sh makes one)");
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
