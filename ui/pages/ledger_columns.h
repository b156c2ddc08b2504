#pragma once
// The ledger table at the width it gets (1280 px and up, beside the panel): short two-line headers
// with the full names in tooltips, columns narrowed toward the widest word they hold while their
// text wraps (a configuration's at each '+'), and columns the user hides from the header's context
// menu, remembered between sessions.
#include "models/figure_sort_proxy.h"

#include <QString>
#include <QStyledItemDelegate>

class QTableView;

namespace stepscope::ui
{

// Long knob labels ("tf32+cudnn-bench+bf16+channels-last+compile-reduce-overhead+warm-cache") have
// no space to wrap at: a zero-width space after each '+' lets wrapping text break there.
QString breakableAtPlus(QString text);

// The ledger's sort proxy with the table's short headers, and their full names as tooltips.
class LedgerTableProxy : public FigureSortProxy
{
    Q_OBJECT
  public:
    using FigureSortProxy::FigureSortProxy;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
};

// Draws a configuration's name breakable at each '+'.
class BreakAtPlusDelegate : public QStyledItemDelegate
{
    Q_OBJECT
  public:
    using QStyledItemDelegate::QStyledItemDelegate;

  protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override;
};

// Sets the widths of the visible columns of `view` (a ledger table) to fit its viewport: each at
// its natural width when all fit, the configuration taking what is left; else the figures in
// proportion, then the configuration, narrowed toward the widest word they hold, with the rows
// grown for the wrapped text. Only when even that is too wide does the view scroll.
void fitLedgerColumns(QTableView *view);
// Hides the columns the user hid, Failure while no row has one, and Peak memory and Energy while no
// row has a figure (a CPU sweep); fitLedgerColumns does it too.
void hideLedgerColumns(QTableView *view);

// Shows or hides a ledger column (not the configuration) and remembers the choice. Failure shows
// only where a row has one, whatever the choice.
void setLedgerColumnShown(QTableView *view, int column, bool shown);
// Hides the columns the user hid last time, and gives the header a context menu of the columns
// to show or hide.
void installLedgerColumnMenu(QTableView *view);

} // namespace stepscope::ui
