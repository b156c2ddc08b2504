#include "controller/settings_location.h"

#include <QSettings>
#include <QStandardPaths>

namespace stepscope::ui
{

QString keepSettingsOutOfRoot()
{
    if (!qEnvironmentVariable("HOME").isEmpty() || !qEnvironmentVariable("XDG_CONFIG_HOME").isEmpty())
        return {};
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation);
    if (folder.isEmpty())
        return {};
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, folder);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, folder);
    return folder;
}

} // namespace stepscope::ui
