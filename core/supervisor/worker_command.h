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

// Where the native worker lives: next to the running executable (STEPSCOPE_NATIVE_WORKER overrides).
WorkerCommand defaultNativeWorker();

// The Python worker: {interpreter, {"-u", script}}. The interpreter is the first of
// `configuredPython` (settings, --python; a bare name is looked up on PATH), STEPSCOPE_PYTHON, the
// virtual environment the build used (when it still exists), and python3 on PATH. A configured or
// STEPSCOPE_PYTHON interpreter that does not exist is not skipped: the runs fail python-not-found
// with the path, since silently using another Python would measure another torch. The script is
// STEPSCOPE_PYTHON_WORKER, else stepscope_worker.py beside the running executable.
WorkerCommand defaultPythonWorker(const QString &configuredPython = {});

// The torch version this build found (LibTorch of the native worker); empty without the engine.
// Python workers get it as STEPSCOPE_EXPECTED_TORCH, so that a Python with another torch says so.
QString expectedTorchVersion();
// This process's environment with STEPSCOPE_EXPECTED_TORCH set to expectedTorchVersion() (removed
// when empty): what every worker process starts from.
QProcessEnvironment workerEnvironment();

} // namespace stepscope::supervisor
