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

// A setup writes this file into the environment folder before anything else and removes it only once
// torch and torchvision import at their pinned versions. An environment holding it is incomplete: the
// Python lookup skips it (a cancelled or failed setup never looks usable), and the next setup resumes
// in it (pip's cache keeps what was downloaded). Built in place rather than renamed into place,
// because a virtual environment's scripts name its folder in their first line.
QString managedEnvironmentIncompleteMarker();
// Whether the managed environment exists and is complete (its python is there, no marker).
bool managedEnvironmentReady();

} // namespace stepscope::supervisor
