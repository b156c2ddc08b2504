#pragma once
// The arrangement a user makes of the window and expects back next time: the sizes of every
// splitter, and the widths of the columns they drag (sections the header lets them resize). Kept in
// QSettings under a group of the caller's, each splitter and header keyed by the class of the page
// that holds it and its place among that page's own, so that none depends on an object name.
#include <QList>

class QHeaderView;
class QSettings;
class QString;
class QWidget;

namespace stepscope::ui
{

// `pages`: the roots whose splitters and headers are kept (a tab page, the window's own splitter
// under the central widget); `skip`: headers that size their columns themselves (the ledger's fit).
void saveViewState(QSettings &settings, const QString &group, const QList<QWidget *> &pages,
                   const QList<QHeaderView *> &skip = {});
void restoreViewState(const QSettings &settings, const QString &group, const QList<QWidget *> &pages,
                      const QList<QHeaderView *> &skip = {});

} // namespace stepscope::ui
