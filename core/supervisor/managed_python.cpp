#include "supervisor/managed_python.h"

#include "platform/platform.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#ifndef STEPSCOPE_TORCH_PIN
#error "STEPSCOPE_TORCH_PIN comes from the top-level CMakeLists.txt"
#endif

namespace stepscope::supervisor
{

QString pinnedTorchVersion()
{
    return QStringLiteral(STEPSCOPE_TORCH_PIN);
}

QString pinnedTorchvisionVersion()
{
    return QStringLiteral(STEPSCOPE_TORCHVISION_PIN);
}

QString managedEnvironmentDir()
{
    const QString venv = qEnvironmentVariable("STEPSCOPE_VENV");
    if (!venv.isEmpty())
        return QDir::cleanPath(QDir(venv).absolutePath());
    if (!platform::homeFolderKnown())
        return {};
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + "/stepscope/venv-torch-" +
           pinnedTorchVersion();
}

QString managedPython()
{
    const QString dir = managedEnvironmentDir();
    return dir.isEmpty() ? QString() : dir + "/bin/python";
}

QString managedEnvironmentIncompleteMarker()
{
    const QString dir = managedEnvironmentDir();
    return dir.isEmpty() ? QString() : dir + "/.stepscope-setup-incomplete";
}

bool managedEnvironmentReady()
{
    const QString python = managedPython();
    if (python.isEmpty())
        return false;
    const QFileInfo info(python);
    return info.isFile() && info.isExecutable() && !QFileInfo::exists(managedEnvironmentIncompleteMarker());
}

} // namespace stepscope::supervisor
