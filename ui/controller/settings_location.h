#pragma once
// Where the dashboard's settings (last database, recent files, panel state) live when the user has
// no home folder.
#include <QString>

namespace stepscope::ui
{

// With neither HOME nor XDG_CONFIG_HOME set, Qt takes "/" for the home folder and would write the
// settings into /.config: the root folder's, shared by everyone or refused. Points QSettings at
// Qt's runtime folder of this user instead (XDG_RUNTIME_DIR, else /tmp/runtime-USER), where they
// last until the machine restarts, and returns it. Changes nothing and returns empty when a
// home is set. Call it before the first QSettings.
QString keepSettingsOutOfRoot();

} // namespace stepscope::ui
