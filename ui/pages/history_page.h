#pragma once
// The History tab: every sweep of the database with its runs (HistoryModel, filled by the query
// job), a filter, and what can be done with a sweep: show it or compare two (the page asks), rename
// or delete it (the page does, through the controller's one writer). The list is read again when
// a database opens, a sweep starts or ends, and after each change.
//
// A delete can be undone for a while: the sweep leaves the list at once, but the file is written
// only when the undo window ends (Undo, or Ctrl+Z, before that keeps everything, as nothing was
// written). A delete still waiting when the database is let go (another one opens, the app quits)
// is carried out then, in one transaction of the store: the sweep goes whole, or stays whole.
#include "pages/page.h"

#include <QPointer>

class QAction;
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTimer;
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
    ~HistoryPage() override; // carries out a delete still waiting for its undo

    QString title() const override { return tr("Hist&ory"); }
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
    // Asks (No by default), then deletes a sweep with its runs and steps once the undo window ends.
    void deleteSweep(qint64 sweepId);
    // The sweep whose delete waits for its undo window, 0 when none.
    qint64 pendingDelete() const { return pending_; }
    // Keeps the sweep whose delete is waiting: nothing was written.
    void undoDelete();
    // How long a delete can be undone (10 s; tests shorten it).
    void setUndoWindow(int ms) { undoWindowMs_ = ms; }
    QWidget *undoBar() const { return undoBar_; }
    QPushButton *undoButton() const { return undoButton_; }

  Q_SIGNALS:
    void showRequested(qint64 sweepId);
    void compareRequested(qint64 sweepA, qint64 sweepB);
    void renamed(qint64 sweepId, const QString &name);
    // Deleted by the user (the file keeps it for the undo window): whatever shows it lets go now,
    // as the list does, rather than show a deleted sweep until the window ends.
    void deleting(qint64 sweepId);
    // A passing status-bar message.
    void message(const QString &text, int timeoutMs);

  private:
    void reload();
    void compareSelected();
    void renameCurrent();
    // Writes the waiting delete (asked for, done later on the writer side) and forgets it.
    void carryOutDelete();
    // Hides the undo bar; the sweep whose delete waited (0: none), no longer waiting.
    qint64 endUndoWindow();

    HistoryModel *model_;
    QueryJob *query_;
    QPointer<RunController> controller_; // the window's controller ends before its pages
    QSortFilterProxyModel *proxy_;
    QTreeView *view_;
    QLineEdit *filter_;

    qint64 pending_ = 0;
    QString pendingName_;
    int undoWindowMs_ = 10000;
    QTimer *undoTimer_;
    QWidget *undoBar_;
    QLabel *undoText_;
    QPushButton *undoButton_;
    QAction *undoAction_;
};

} // namespace stepscope::ui
