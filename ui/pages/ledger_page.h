#pragma once
// The Ledger tab: the recommendation for the planned run, what is being computed, and the ledger
// table (one row per configuration) over the shown sweep's LedgerModel. It follows the ShownSweep
// presenter by itself; a double-click opens a row's run detail, or asks for its steps, and "What is
// each knob worth?" (a button under the table, and the table's context menu) says it of the selected row.
#include "config/run_config.h"
#include "pages/page.h"

#include <vector>

class QComboBox;
class QLabel;
class QAction;
class QModelIndex;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QToolButton;

namespace stepscope::ui
{

class LedgerModel;
class RunDetailDialog;
class ShownSweep;

class LedgerPage : public Page
{
    Q_OBJECT
  public:
    // `shown` is not owned and outlives the page.
    explicit LedgerPage(ShownSweep *shown, QWidget *parent = nullptr);

    QString title() const override { return tr("Le&dger"); }
    QString key() const override { return QStringLiteral("ledger"); }
    void clear() override;

    // The model's recommendation, or why there is none; follows the model by itself.
    QString recommendationText() const;
    // Its one-line headline ("Use +cuda-graph: 3.77x ..."); "" without a recommendation.
    QString headlineText() const;
    QString caveatsText() const; // "" when the line is not shown
    // The recommendation's full text is under "Details" when a headline says the verdict.
    bool recommendationShown() const;
    // The line under the recommendation while the ledger is computed or recomputed; empty when not.
    QString status() const;
    QTableView *view() const { return view_; }
    // The start-state switch above the table (data: int(store::StartState)).
    QComboBox *startBox() const { return start_; }
    // The batch switch beside it (data: the batch size), shown only for a batch scan: the ledger
    // compares steps of one size, so a scan is read one batch at a time.
    QComboBox *batchBox() const { return batch_; }
    // What the verdict minimizes (data: true for the fewest joules): enabled where the rows have
    // energy figures, its tooltip saying why not elsewhere (issue 31.4, the CLI's --objective).
    QComboBox *objectiveBox() const { return objective_; }
    // A max-batch sweep's answers above the table, one configuration a line; "" for other sweeps.
    QString maxBatchText() const;
    // The detail dialog of a row (model row) that failed, was cancelled or is compiled, from the
    // runs read with the ledger; nullptr for a plain row (a double-click shows its steps instead).
    // The caller owns it.
    RunDetailDialog *rowDetailDialog(int row);
    // What each knob of a row (model row) is worth, in the panel under the table (report/knob_worth.h,
    // the CLI's words); -1 hides the panel. The button and the context menu's action ask it for the
    // selected row; while the panel is open it follows the selection.
    void showKnobWorth(int row);
    QPushButton *knobWorthButton() const { return worthButton_; }
    QAction *knobWorthAction() const { return worthAction_; }
    QString knobWorthText() const; // "" while the panel is hidden
    // Under the panel when a knob is "not measured": puts the row without each such knob into the
    // settings panel (configWanted), so that the next sweep measures it.
    QPushButton *addMissingButton() const { return addMissing_; }

  Q_SIGNALS:
    // A run's steps are wanted in the live chart (a plain row double-clicked, or from its detail).
    void runStepsRequested(qint64 runId);
    // A configuration to run next (a row a knob's worth needs): MainWindow adds it to the panel.
    void configWanted(const stepscope::RunConfig &config);

  protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void showEvent(QShowEvent *event) override;

  private:
    void setStatus(const QString &text);
    void activate(int row);
    void showRecommendation();
    void fitColumns();
    void modelChanged();
    void showBatches();
    void showMaxBatch();
    int selectedRow() const; // the current row of the table as a model row, -1 without one

    LedgerModel *model_;
    QLabel *headline_;
    QComboBox *start_ = nullptr;
    QComboBox *batch_ = nullptr;
    QComboBox *objective_ = nullptr;
    QLabel *maxBatch_ = nullptr;
    QLabel *caveats_;
    QToolButton *details_;
    QLabel *recommendation_;
    QLabel *status_;
    QSortFilterProxyModel *proxy_;
    QTableView *view_;
    QPushButton *worthButton_;
    QAction *worthAction_;
    QLabel *worth_;
    QToolButton *closeWorth_;
    QPushButton *addMissing_;
    std::vector<RunConfig> missing_; // the rows addMissing_ adds, for the row the panel shows
    int worthRow_ = -1; // the row the panel shows, -1 when hidden
    // Fitting measures every cell's wrapped text: done when the rows or the viewport's width
    // change and the table is on screen, not on every resize nor on a hidden page.
    bool fitWhenShown_ = false;
    int fittedWidth_ = -1;
};

} // namespace stepscope::ui
