#pragma once
// What a double-click on a ledger row shows for a failed or compiled configuration: one run's
// detail (models/run_detail.h), a choice between its repeats, and a way to its steps.
#include "store/store.h"

#include <QDialog>

#include <vector>

class QComboBox;
class QPushButton;
class QTextBrowser;

namespace stepscope::ui
{

class RunDetailDialog : public QDialog
{
    Q_OBJECT
  public:
    // `runs`: the configuration's repeats; `shown`: the index of the one to show first.
    RunDetailDialog(const QString &title, std::vector<store::RunRecord> runs, int shown, QWidget *parent = nullptr);

    QString html() const;
    const store::RunRecord &currentRun() const;
    QComboBox *runChoice() const { return choice_; }

    // The repeat to open on: a run that claims compile but did not get it, else the first failure
    // with a category, else the first complete run.
    static int preferredRun(const std::vector<store::RunRecord> &runs);

  Q_SIGNALS:
    void showStepsRequested(qint64 runId);

  private:
    void showRun(int index);

    std::vector<store::RunRecord> runs_;
    QComboBox *choice_;
    QTextBrowser *text_;
    QPushButton *steps_;
    QString html_;
};

} // namespace stepscope::ui
