#pragma once
// Which program runs a worker: the native worker beside this program, or a Python interpreter
// with the Python worker script. Resolution happens once per sweep (and in `doctor`), so that a
// missing interpreter is said with what was tried rather than as a failed process start.
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace stepscope::supervisor
{

struct WorkerCommand {
    QString program;       // e.g. <bin>/stepscope-worker, or python3
    QStringList arguments; // put before `--config JSON`
    // How the program was chosen ("--python", "STEPSCOPE_PYTHON", ...); with an empty program,
    // what was tried and what to set: the message of the run's python-not-found failure.
    QString origin{}; // {}: a command written as {program, arguments} leaves it empty on purpose
};

// Where the native worker lives: beside the running executable (the build tree), else the installed
// layout's <bin>/../lib/stepscope/stepscope-worker; STEPSCOPE_NATIVE_WORKER overrides both.
WorkerCommand defaultNativeWorker();

// The Python worker: {interpreter, {"-u", script}}. The interpreter is choosePython's
// (torch_location.h: `configuredPython`, STEPSCOPE_PYTHON, the managed environment, the build's
// environment from the build tree, python3 on PATH), the one locateTorch looks in. A configured or
// STEPSCOPE_PYTHON interpreter that does not exist is not skipped: the runs fail python-not-found
// with the path, since silently using another Python would measure another torch. With no
// interpreter, the program is empty and the origin says what was tried and what to do.
WorkerCommand defaultPythonWorker(const QString &configuredPython = {});
// The script: STEPSCOPE_PYTHON_WORKER, else pythonWorkerScriptFor(this program's folder).
QString defaultPythonWorkerScript();

// The worker files for a program in `appDir`: beside it (the build tree), else the installed layout's
// place (<appDir>/../share/stepscope/python/stepscope_worker.py, <appDir>/../lib/stepscope/
// stepscope-worker), else beside it, which a missing worker's message then names.
QString pythonWorkerScriptFor(const QString &appDir);
QString nativeWorkerFor(const QString &appDir);

// The torch version this build found (LibTorch of the native worker); empty without the engine.
// Python workers get it as STEPSCOPE_EXPECTED_TORCH, so that a Python with another torch says so.
QString expectedTorchVersion();
// This process's environment with STEPSCOPE_EXPECTED_TORCH set to expectedTorchVersion() (removed
// when empty): what every worker process starts from.
QProcessEnvironment workerEnvironment();

} // namespace stepscope::supervisor
