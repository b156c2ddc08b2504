#pragma once
// Tables the user can take away: the rows of any table or tree view of the dashboard as text a
// spreadsheet (tab-separated) or a Markdown document takes, with the column headers first. Read as
// the user sees them: through the view's proxy (sorted, filtered), rows in view order, columns in
// the header's order, hidden columns left out, each cell as its display text.
//
// installTableCopy() gives a view Ctrl+C (the selected rows, tab-separated), Ctrl+Shift+C (the
// same as Markdown) and a context menu with those and "Copy table" (every row).
#include <QObject>
#include <QString>

class QAbstractItemView;
class QAction;
class QMenu;

namespace stepscope::ui
{

enum class TableText {
    Tsv,      // cells joined by tabs, a line per row; tabs and line breaks in a cell become spaces
    Markdown, // a pipe table; '|' in a cell is escaped, line breaks become spaces
};
enum class TableRows { Selected, All };

// The header row, then the rows of `view` (the selected ones, or all of them), each line ending in
// '\n'. Selected: every row with a selected cell, whole. Empty when no row is taken.
QString tableText(const QAbstractItemView *view, TableText format, TableRows rows);

// The copy keys and menu of one view: a child of the view, made by installTableCopy().
class TableCopy : public QObject
{
    Q_OBJECT
  public:
    // The installed one, or null.
    static TableCopy *of(const QAbstractItemView *view);

    // Puts tableText() on the clipboard; false (clipboard untouched) when no row is taken.
    bool copy(TableText format, TableRows rows) const;
    // The context menu (popped up on a right click in the view).
    QMenu *menu() const { return menu_; }
    QAction *copyTableAction() const { return copyTable_; }

  protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

  private:
    friend void installTableCopy(QAbstractItemView *view);
    explicit TableCopy(QAbstractItemView *view);

    QAbstractItemView *view_;
    QMenu *menu_;
    QAction *copyRows_, *copyRowsMarkdown_, *copyTable_, *copyTableMarkdown_;
};

// Installs Ctrl+C, Ctrl+Shift+C and the context menu on `view` (once; a second call does nothing).
// The view's context menu becomes this one (Qt::CustomContextMenu).
void installTableCopy(QAbstractItemView *view);

} // namespace stepscope::ui
