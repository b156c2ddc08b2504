// Tables the user takes away (parts/table_copy.h): Ctrl+C copies the selected rows as TSV with the
// headers, Ctrl+Shift+C as Markdown, the context menu's "Copy table" every row; all as the view
// shows them (through its proxy, in view order, hidden columns left out), on every table of the
// dashboard.
#include "pages/page.h"
#include "pages/sweep_pages.h"
#include "widgets/main_window.h"
#include "parts/table_copy.h"

#include "window_fixture.h"

#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QHeaderView>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTableView>
#include <QTest>
#include <QTreeView>

using namespace stepscope::ui;

namespace
{

QString clipboard()
{
    return QGuiApplication::clipboard()->text();
}

// Name | Value (right-aligned) | Note | Hidden, with a tab, a line break and a '|' in cells.
void fill(QStandardItemModel &model)
{
    model.setHorizontalHeaderLabels({"Name", "Value", "Note", "Hidden"});
    const QList<QStringList> rows{
        {"a", "1", "tab\there", "x"}, {"b|c", "22", "line\nbreak", "y"}, {"d", "333", "plain", "z"}};
    for (const QStringList &cells : rows) {
        QList<QStandardItem *> items;
        for (const QString &cell : cells)
            items << new QStandardItem(cell);
        items[1]->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        model.appendRow(items);
    }
}

} // namespace

class TestTableCopy : public QObject
{
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { stepscope::test::useTestSettings("test_table_copy"); }

    void selectedRowsCopyAsTheViewShowsThem()
    {
        QStandardItemModel model;
        fill(model);
        QSortFilterProxyModel proxy; // sorted by value, largest first: d, b|c, a
        proxy.setSourceModel(&model);
        QTableView view;
        view.setModel(&proxy);
        view.setSelectionBehavior(QAbstractItemView::SelectRows);
        view.sortByColumn(1, Qt::DescendingOrder);
        view.setColumnHidden(3, true);
        view.horizontalHeader()->moveSection(2, 0); // Note | Name | Value
        installTableCopy(&view);
        QVERIFY(TableCopy::of(&view));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));

        // Nothing selected: Ctrl+C leaves the clipboard alone.
        QGuiApplication::clipboard()->setText("before");
        QTest::keyClick(&view, Qt::Key_C, Qt::ControlModifier);
        QCOMPARE(clipboard(), QString("before"));

        // Rows d and a (view rows 0 and 2), whole, with the headers; the tab in a cell is a space.
        view.selectionModel()->select(proxy.index(0, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
        view.selectionModel()->select(proxy.index(2, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
        QTest::keyClick(&view, Qt::Key_C, Qt::ControlModifier);
        QCOMPARE(clipboard(), QString("Note\tName\tValue\n"
                                      "plain\td\t333\n"
                                      "tab here\ta\t1\n"));

        // With Shift, Markdown: '|' escaped, the line break a space, the number column right-aligned.
        view.clearSelection();
        view.selectionModel()->select(proxy.index(1, 2), QItemSelectionModel::Select); // one cell: its row
        QTest::keyClick(&view, Qt::Key_C, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(clipboard(), QString("| Note | Name | Value |\n"
                                      "| --- | --- | ---: |\n"
                                      "| line break | b\\|c | 22 |\n"));

        // The context menu's "Copy table": every row, whatever is selected.
        TableCopy *copy = TableCopy::of(&view);
        QVERIFY(copy->menu()->actions().contains(copy->copyTableAction()));
        QCOMPARE(copy->copyTableAction()->text().remove('&'), QString("Copy table"));
        copy->copyTableAction()->trigger();
        QCOMPARE(clipboard(), QString("Note\tName\tValue\n"
                                      "plain\td\t333\n"
                                      "line break\tb|c\t22\n"
                                      "tab here\ta\t1\n"));
        // The filter hides a row: the table is what is shown.
        proxy.setFilterKeyColumn(0);
        proxy.setFilterFixedString("b|c");
        QCOMPARE(tableText(&view, TableText::Tsv, TableRows::All), QString("Note\tName\tValue\nline break\tb|c\t22\n"));
        QVERIFY(view.contextMenuPolicy() == Qt::CustomContextMenu);
    }

    void aTreeCopiesEachParentBeforeItsChildren()
    {
        QStandardItemModel model;
        model.setHorizontalHeaderLabels({"Sweep / run", "Id"});
        for (const auto &[sweep, runs] : QList<QPair<QString, QStringList>>{{"s1", {"r1", "r2"}}, {"s2", {"r3"}}}) {
            QList<QStandardItem *> parent{new QStandardItem(sweep), new QStandardItem(sweep.mid(1))};
            for (const QString &run : runs)
                parent.front()->appendRow({new QStandardItem(run), new QStandardItem(run.mid(1))});
            model.appendRow(parent);
        }
        QTreeView view;
        view.setModel(&model);
        view.setSelectionMode(QAbstractItemView::ExtendedSelection);
        installTableCopy(&view);
        view.collapseAll(); // "the table" is all of it, collapsed or not
        QVERIFY(TableCopy::of(&view)->copy(TableText::Tsv, TableRows::All));
        QCOMPARE(clipboard(), QString("Sweep / run\tId\ns1\t1\nr1\t1\nr2\t2\ns2\t2\nr3\t3\n"));
        view.expandAll();
        view.selectionModel()->select(model.index(1, 0, model.index(0, 0)),
                                      QItemSelectionModel::Select | QItemSelectionModel::Rows);
        QVERIFY(TableCopy::of(&view)->copy(TableText::Markdown, TableRows::Selected));
        QCOMPARE(clipboard(), QString("| Sweep / run | Id |\n| --- | --- |\n| r2 | 2 |\n"));
    }

    void everyTableOfTheDashboardCopies()
    {
        MainWindow window;
        const auto views = window.pages()->findChildren<QAbstractItemView *>();
        int tables = 0;
        for (QAbstractItemView *view : views) {
            if (!qobject_cast<QTableView *>(view) && !qobject_cast<QTreeView *>(view))
                continue; // a combo box's list
            ++tables;
            QWidget *page = view;
            while (page && !qobject_cast<Page *>(page))
                page = page->parentWidget();
            QVERIFY2(TableCopy::of(view), page ? page->metaObject()->className() : "no page");
        }
        QVERIFY2(tables >= 6, qPrintable(QString::number(tables))); // ledger, why, history, compare, env, doctor
    }
};

QTEST_MAIN(TestTableCopy)
#include "test_table_copy.moc"
