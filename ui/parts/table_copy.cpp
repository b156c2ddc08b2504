#include "parts/table_copy.h"

#include <QAbstractItemView>
#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeyEvent>
#include <QMenu>
#include <QSet>
#include <QTableView>
#include <QTreeView>

#include <optional>

namespace stepscope::ui
{
namespace
{

const QHeaderView *columnHeader(const QAbstractItemView *view)
{
    if (const auto *table = qobject_cast<const QTableView *>(view))
        return table->horizontalHeader();
    if (const auto *tree = qobject_cast<const QTreeView *>(view))
        return tree->header();
    return nullptr;
}

// Logical columns in the order the header shows them, hidden ones left out.
QList<int> shownColumns(const QAbstractItemView *view)
{
    const int count = view->model()->columnCount(view->rootIndex());
    const QHeaderView *header = columnHeader(view);
    QList<int> columns;
    for (int visual = 0; visual < count; ++visual) {
        const int logical = header ? header->logicalIndex(visual) : visual;
        if (logical >= 0 && !(header && header->isSectionHidden(logical)))
            columns << logical;
    }
    return columns;
}

// Column-0 indexes of the rows under `parent` as the view lists them: a table's rows in its vertical
// header's order, a tree's children right after their parent (collapsed or not: "the table" is all
// of it), hidden rows left out.
void collectRows(const QAbstractItemView *view, const QModelIndex &parent, QList<QModelIndex> &out)
{
    const QAbstractItemModel *model = view->model();
    const auto *table = qobject_cast<const QTableView *>(view);
    const auto *tree = qobject_cast<const QTreeView *>(view);
    const int count = model->rowCount(parent);
    for (int visual = 0; visual < count; ++visual) {
        const int row = table ? table->verticalHeader()->logicalIndex(visual) : visual;
        if (row < 0 || (table && table->isRowHidden(row)) || (tree && tree->isRowHidden(row, parent)))
            continue;
        const QModelIndex index = model->index(row, 0, parent);
        out << index;
        if (tree && model->hasChildren(index))
            collectRows(view, index, out);
    }
}

// One cell on one line: a tab or a line break inside it would start another cell or row.
QString cellText(QString text, TableText format)
{
    text.replace(QStringLiteral("\r\n"), QStringLiteral(" "));
    for (const QChar c :
         {QChar('\t'), QChar('\n'), QChar('\r'), QChar(QChar::LineSeparator), QChar(QChar::ParagraphSeparator)})
        text.replace(c, QLatin1Char(' '));
    if (format == TableText::Markdown)
        text.replace(QLatin1Char('|'), QStringLiteral("\\|"));
    return text;
}

QString line(const QStringList &cells, TableText format)
{
    if (format == TableText::Tsv)
        return cells.join(QLatin1Char('\t')) + QLatin1Char('\n');
    return QStringLiteral("| ") + cells.join(QStringLiteral(" | ")) + QStringLiteral(" |\n");
}

// Markdown's delimiter row: numbers stay right-aligned as the view shows them (first row's alignment).
QString markdownRule(const QAbstractItemModel *model, const QModelIndex &firstRow, const QList<int> &columns)
{
    QStringList rules;
    for (const int column : columns) {
        const QVariant role = model->index(firstRow.row(), column, firstRow.parent()).data(Qt::TextAlignmentRole);
        const int flags = role.canConvert<int>() ? role.toInt() : int(role.value<Qt::Alignment>());
        if (flags & Qt::AlignRight)
            rules << QStringLiteral("---:");
        else if (flags & Qt::AlignHCenter)
            rules << QStringLiteral(":---:");
        else
            rules << QStringLiteral("---");
    }
    return QStringLiteral("| ") + rules.join(QStringLiteral(" | ")) + QStringLiteral(" |\n");
}

std::optional<TableText> copyKey(const QKeyEvent *event)
{
    const Qt::KeyboardModifiers modifiers = event->modifiers() & ~Qt::KeypadModifier;
    if (event->key() == Qt::Key_C && modifiers == (Qt::ControlModifier | Qt::ShiftModifier))
        return TableText::Markdown;
    if (event->matches(QKeySequence::Copy))
        return TableText::Tsv;
    return std::nullopt;
}

} // namespace

QString tableText(const QAbstractItemView *view, TableText format, TableRows rows)
{
    const QAbstractItemModel *model = view->model();
    if (!model)
        return {};
    QList<QModelIndex> taken;
    collectRows(view, view->rootIndex(), taken);
    if (rows == TableRows::Selected) {
        QSet<QModelIndex> selected;
        if (const QItemSelectionModel *selection = view->selectionModel())
            for (const QModelIndex &index : selection->selectedIndexes())
                selected.insert(index.siblingAtColumn(0));
        taken.removeIf([&](const QModelIndex &index) { return !selected.contains(index); });
    }
    if (taken.isEmpty())
        return {};

    const QList<int> columns = shownColumns(view);
    QStringList cells;
    for (const int column : columns)
        cells << cellText(model->headerData(column, Qt::Horizontal, Qt::DisplayRole).toString(), format);
    QString text = line(cells, format);
    if (format == TableText::Markdown)
        text += markdownRule(model, taken.front(), columns);
    for (const QModelIndex &row : taken) {
        cells.clear();
        for (const int column : columns)
            cells << cellText(row.siblingAtColumn(column).data(Qt::DisplayRole).toString(), format);
        text += line(cells, format);
    }
    return text;
}

TableCopy::TableCopy(QAbstractItemView *view) : QObject(view), view_(view), menu_(new QMenu(view))
{
    setObjectName(QStringLiteral("tableCopy"));
    const auto add = [this](const QString &text, const QKeySequence &keys, TableText format, TableRows rows) {
        QAction *action = menu_->addAction(text, this, [this, format, rows] { copy(format, rows); });
        action->setShortcut(keys); // shown in the menu; the view's keys are handled in eventFilter
        action->setShortcutContext(Qt::WidgetShortcut);
        return action;
    };
    copyRows_ = add(tr("&Copy rows"), QKeySequence::Copy, TableText::Tsv, TableRows::Selected);
    copyRowsMarkdown_ =
        add(tr("Copy rows as &Markdown"), QKeySequence(tr("Ctrl+Shift+C")), TableText::Markdown, TableRows::Selected);
    menu_->addSeparator();
    copyTable_ = add(tr("Copy &table"), {}, TableText::Tsv, TableRows::All);
    copyTableMarkdown_ = add(tr("Copy table as M&arkdown"), {}, TableText::Markdown, TableRows::All);
    copyRows_->setToolTip(tr("The selected rows with the column headers, tab-separated (a spreadsheet takes them)"));

    view_->installEventFilter(this);
    view_->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(view_, &QWidget::customContextMenuRequested, this, [this](const QPoint &at) {
        const bool anySelected = view_->selectionModel() && view_->selectionModel()->hasSelection();
        const bool anyRow = view_->model() && view_->model()->rowCount(view_->rootIndex()) > 0;
        copyRows_->setEnabled(anySelected);
        copyRowsMarkdown_->setEnabled(anySelected);
        copyTable_->setEnabled(anyRow);
        copyTableMarkdown_->setEnabled(anyRow);
        menu_->popup(view_->viewport()->mapToGlobal(at));
    });
}

TableCopy *TableCopy::of(const QAbstractItemView *view)
{
    return view->findChild<TableCopy *>(QStringLiteral("tableCopy"), Qt::FindDirectChildrenOnly);
}

bool TableCopy::copy(TableText format, TableRows rows) const
{
    const QString text = tableText(view_, format, rows);
    if (text.isEmpty())
        return false;
    QGuiApplication::clipboard()->setText(text);
    return true;
}

bool TableCopy::eventFilter(QObject *watched, QEvent *event)
{
    if (watched != view_ || (event->type() != QEvent::KeyPress && event->type() != QEvent::ShortcutOverride))
        return QObject::eventFilter(watched, event);
    const std::optional<TableText> format = copyKey(static_cast<QKeyEvent *>(event));
    if (!format)
        return QObject::eventFilter(watched, event);
    // Claimed before any shortcut of the window, and instead of the view's own Ctrl+C (one cell).
    event->accept();
    if (event->type() == QEvent::KeyPress)
        copy(*format, TableRows::Selected);
    return true;
}

void installTableCopy(QAbstractItemView *view)
{
    if (!TableCopy::of(view))
        new TableCopy(view);
}

} // namespace stepscope::ui
