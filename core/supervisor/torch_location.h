#pragma once
// Which Python, and through it which torch, Stepscope uses. PyTorch is not bundled: both workers take
// it from one located Python, so that the native worker's LibTorch and the Python worker's torch are
// the same installation, and an installed Stepscope points into no build tree.
#include "common/failure.h"

#include <QProcessEnvironment>
#include <QString>

namespace stepscope::supervisor
{

struct TorchLocation {
    QString python;   // the interpreter; empty when none was found
    QString origin;   // how it was chosen: "--python / settings", "STEPSCOPE_PYTHON", "the managed environment", ...
    QString torchDir; // the torch package folder (…/site-packages/torch); its lib/ holds LibTorch
    QString version;  // torch.__version__ as installed, e.g. "2.11.0+cu130"
    QString problem;  // empty when usable; else what is wrong, said for a user (a phrase, no full stop)
    QString fix;      // what to do about `problem` (sentences)
    bool usable() const { return problem.isEmpty(); }
};

// Finds the Python in this order: `configuredPython` (settings, --python), STEPSCOPE_PYTHON, the
// managed environment (managed_python.h; skipped while incomplete), the build's environment when
// running from the build tree, python3 on PATH. Then locates torch in it without importing it
// (an import costs seconds; a lookup a tenth of one), reads its version from torch/version.py and
// checks it against the one the native worker was built for (any torch in a build without it).
// Nothing is cached: the user may set up or change a Python between two calls. It waits for the
// Python it starts, so it says so to blockingCall() (common/blocking_call.h): the dashboard calls it
// from another thread (DeviceProbe).
TorchLocation locateTorch(const QString &configuredPython = {});

// The interpreter alone, chosen in locateTorch's order without starting anything: what the Python
// worker runs (defaultPythonWorker) and where locateTorch looks for torch. A configured or
// STEPSCOPE_PYTHON interpreter that is not an executable file is not skipped: python is then empty
// and problem says so, since silently using another Python would measure another torch.
struct PythonChoice {
    QString python, origin; // as TorchLocation's
    QString problem, fix;   // when python is empty: what was tried, and what to do
};
PythonChoice choosePython(const QString &configuredPython = {});
// The same with the build tree decided by the caller (tests): an installed copy never considers the
// build's environment, even when it still exists on this machine.
PythonChoice choosePython(const QString &configuredPython, bool fromBuildTree);

// Whether this program runs from the build's bin/ folder (CMAKE_RUNTIME_OUTPUT_DIRECTORY) rather
// than from an installed copy.
bool runningFromBuildTree();

// The environment a native worker starts with: workerEnvironment() plus the located torch's lib/
// folder in front of LD_LIBRARY_PATH (the installed worker carries no path to LibTorch). Without a
// torch folder, workerEnvironment() as it is.
QProcessEnvironment nativeWorkerEnvironment(const TorchLocation &torch);

// How a native run that cannot get its LibTorch fails: python-not-found, torch-missing or
// torch-version-mismatch, with the problem and its fix as the message (never a loader error).
Failure torchFailure(const TorchLocation &torch);
// The problem and its fix in one text, for a log line or a message.
QString problemAndFix(const QString &problem, const QString &fix);

} // namespace stepscope::supervisor
