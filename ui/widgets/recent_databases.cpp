#include "widgets/recent_databases.h"

#include <QSettings>

namespace stepscope::ui
{
namespace
{

constexpr int kRemembered = 8;

} // namespace

RecentDatabases::RecentDatabases(const QString &title, QWidget *parent) : QMenu(title, parent)
{
    rebuild();
}

void RecentDatabases::remember(const QString &path)
{
    QSettings settings;
    QStringList recent = settings.value("recentDatabases").toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kRemembered)
        recent.removeLast();
    settings.setValue("recentDatabases", recent);
    settings.setValue("database", path);
    rebuild();
}

void RecentDatabases::rebuild()
{
    clear();
    const QStringList recent = QSettings().value("recentDatabases").toStringList();
    for (const auto &path : recent)
        addAction(path, this, [this, path] { Q_EMIT openRequested(path); });
    setEnabled(!recent.isEmpty());
}

} // namespace stepscope::ui
