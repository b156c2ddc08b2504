#pragma once
// The History tab: every sweep of the database with its runs (HistoryModel), a filter, and what
// can be done with a sweep: show it, compare two, rename, delete. The page asks; the window does.
#include "pages/page.h"

class QLineEdit;
class QSortFilterProxyModel;
class QTreeView;

namespace stepscope::ui
{

class HistoryModel;

class HistoryPage : public Page
{
    Q_OBJECT
  public:
    explicit HistoryPage(HistoryModel *model, QWidget *parent = nullptr);

    QString title() const override { return tr("&History"); }
    QString key() const override { return QStringLiteral("history"); }

    // The sweep of the current row (or of the current run's row), 0 when none.
    qint64 currentSweep() const;
    // The sweeps whose rows are selected, each once, in id order.
    QList<qint64> selectedSweeps() const;
    QTreeView *view() const { return view_; }
    QLineEdit *filter() const { return filter_; }

  Q_SIGNALS:
    void showRequested(qint64 sweepId);
    void compareRequested(qint64 sweepA, qint64 sweepB);
    void renameRequested(qint64 sweepId, const QString &name);
    void deleteRequested(qint64 sweepId);

  private:
    void compareSelected();
    void renameCurrent();

    HistoryModel *model_;
    QSortFilterProxyModel *proxy_;
    QTreeView *view_;
    QLineEdit *filter_;
};

} // namespace stepscope::ui
