#pragma once
// Which Python, and through it which torch, Stepscope uses. PyTorch is not bundled: both workers take
// it from one located Python, so that the native worker's LibTorch and the Python worker's torch are
// the same installation, and an installed Stepscope points into no build tree.
#include <QProcessEnvironment>
#include <QString>

namespace stepscope::supervisor
{

struct TorchLocation {
    QString python;  // the interpreter; empty when none was found
    QString origin;  // how it was chosen: "--python / settings", "STEPSCOPE_PYTHON", "managed environment", ...
    QString torchDir; // the torch package folder (…/site-packages/torch); its lib/ holds LibTorch
    QString version;  // torch.__version__ as installed, e.g. "2.11.0+cu130"
    QString problem;  // empty when usable; else what is wrong, said for a user
    QString fix;      // what to do about `problem`
    bool usable() const { return problem.isEmpty(); }
};

// Finds the Python in this order: `configuredPython` (settings, --python), STEPSCOPE_PYTHON, the
// managed environment (managed_python.h; skipped while incomplete), the build's environment when
// running from the build tree, python3 on PATH. Then locates torch in it without importing it
// (fast), reads its version and checks it against the one the native worker was built for.
TorchLocation locateTorch(const QString &configuredPython = {});

// The environment a native worker starts with: workerEnvironment() plus the located torch's lib/
// folder in front of LD_LIBRARY_PATH (the installed worker carries no path to LibTorch).
QProcessEnvironment nativeWorkerEnvironment(const TorchLocation &torch);

} // namespace stepscope::supervisor
