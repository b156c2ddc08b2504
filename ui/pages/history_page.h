#pragma once
// The History tab: every sweep of the database with its runs (HistoryModel, filled by the query
// job), a filter, and what can be done with a sweep: show it or compare two (the page asks), rename
// or delete it (the page does, through the controller's one writer). The list is read again when
// a database opens, a sweep starts or ends, and after each change.
#include "pages/page.h"

class QLineEdit;
class QSortFilterProxyModel;
class QTreeView;

namespace stepscope::ui
{

class HistoryModel;
class QueryJob;
class RunController;

class HistoryPage : public Page
{
    Q_OBJECT
  public:
    // None is owned; all outlive the page. `query` fills `model`.
    HistoryPage(HistoryModel *model, QueryJob *query, RunController *controller, QWidget *parent = nullptr);

    QString title() const override { return tr("&History"); }
    QString key() const override { return QStringLiteral("history"); }

    // The sweep of the current row (or of the current run's row), 0 when none.
    qint64 currentSweep() const;
    // The sweeps whose rows are selected, each once, in id order.
    QList<qint64> selectedSweeps() const;
    QTreeView *view() const { return view_; }
    QLineEdit *filter() const { return filter_; }
    HistoryModel *model() const { return model_; }

    // Renames a sweep (renamed follows); a refusal is said in a message box.
    void renameSweep(qint64 sweepId, const QString &name);
    // Asks, then deletes a sweep with its runs and steps (deleting comes first).
    void deleteSweep(qint64 sweepId);

  Q_SIGNALS:
    void showRequested(qint64 sweepId);
    void compareRequested(qint64 sweepA, qint64 sweepB);
    void renamed(qint64 sweepId, const QString &name);
    // About to be deleted: whatever shows it lets go.
    void deleting(qint64 sweepId);
    // A passing status-bar message.
    void message(const QString &text, int timeoutMs);

  private:
    void reload();
    void compareSelected();
    void renameCurrent();

    HistoryModel *model_;
    QueryJob *query_;
    RunController *controller_;
    QSortFilterProxyModel *proxy_;
    QTreeView *view_;
    QLineEdit *filter_;
};

} // namespace stepscope::ui
