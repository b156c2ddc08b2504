#pragma once
// File › Open database's file dialog: it opens a database or names a new one, as a user expects of
// Open (the button says Open, not Save; no overwrite question, since an existing file is opened).
#include <QString>

class QFileDialog;
class QWidget;

namespace stepscope::ui
{

// The dialog, set up; not shown (tests look at it, chooseDatabaseFile runs it).
QFileDialog *databaseFileDialog(QWidget *parent, const QString &current);
// The file chosen, existing or not; empty when cancelled.
QString chooseDatabaseFile(QWidget *parent, const QString &current);

} // namespace stepscope::ui
