#pragma once
// File › Recent databases: the last eight files opened, newest first, kept in QSettings
// ("recentDatabases", and "database" for the next start).
#include <QMenu>

namespace stepscope::ui
{

class RecentDatabases : public QMenu
{
    Q_OBJECT
  public:
    explicit RecentDatabases(const QString &title, QWidget *parent = nullptr);

    // `path` was opened: first in the list, and the file the next start opens.
    void remember(const QString &path);

  Q_SIGNALS:
    void openRequested(const QString &path);

  private:
    void rebuild();
};

} // namespace stepscope::ui
