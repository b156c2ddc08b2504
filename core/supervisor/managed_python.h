#pragma once
// The managed Python environment: the virtual environment Stepscope sets up itself (the dashboard's
// "Set up PyTorch", `stepscope-cli setup`) when no usable torch is found. It lives in the user's
// data folder, never beside the programs, so that an installed package writes nothing outside the
// user's directories and removing the package leaves it alone.
#include <QString>

namespace stepscope::supervisor
{

// The torch and torchvision releases this build pins (CMake's STEPSCOPE_TORCH_PIN and
// STEPSCOPE_TORCHVISION_PIN, the same as scripts/bootstrap.sh): what setup installs. The torch
// version the native worker was built against (expectedTorchVersion) is checked separately.
QString pinnedTorchVersion();
QString pinnedTorchvisionVersion();

// Where the managed environment lives: STEPSCOPE_VENV when set (the variable scripts/bootstrap.sh
// honours too, so that a developer's or CI's bootstrap environment serves as the managed one and
// nothing is downloaded twice), else $XDG_DATA_HOME/stepscope/venv-torch-<pin> (XDG_DATA_HOME
// being ~/.local/share). Empty when the home folder is unknown: there is no managed environment.
QString managedEnvironmentDir();

// The managed environment's interpreter (<dir>/bin/python); empty when there is no managed
// environment folder. It may not exist yet: callers check.
QString managedPython();

// A setup in progress builds the environment here, beside the final folder, and renames it into
// place only once torch imports: a cancelled or failed setup never leaves a folder that later
// looks usable.
QString managedEnvironmentPartialDir();

} // namespace stepscope::supervisor
