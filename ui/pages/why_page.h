#pragma once
// The Why tab (issue 18.2, 18.3): where each configuration's step goes (a bar of GPU busy and
// waiting per row, the Why table with each row's verdict and the knobs that address it) and the
// kernel diff of two rows, tied to their steady and first-step difference. Reads the shown sweep's
// ledger model; the diff is computed from the two rows' stored profiles on the UI thread (small).
#include "pages/page.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableView;

namespace stepscope::ui
{

class LedgerModel;
class WhyChart;
class WhyModel;

class WhyPage : public Page
{
    Q_OBJECT
  public:
    // `ledger` is not owned and outlives the page.
    explicit WhyPage(LedgerModel *ledger, QWidget *parent = nullptr);

    QString title() const override { return tr("&Why"); }
    QString key() const override { return QStringLiteral("why"); }
    QCustomPlot *chart() const override;

    WhyModel *model() const { return model_; }
    QTableView *view() const { return view_; }
    // Picks the two rows to diff (ledger rows); the diff text follows.
    void setDiffRows(int a, int b);
    QString diffText() const;
    // The current row's kept trace: its path and the "Open trace" button, or why there is none.
    QString traceText() const;
    QPushButton *openTraceButton() const { return openTrace_; }

  private:
    void fillChoices();
    void showDiff();
    void showTrace();

    LedgerModel *ledger_;
    WhyModel *model_;
    WhyChart *chart_;
    QTableView *view_;
    QComboBox *a_, *b_;
    QPlainTextEdit *diff_;
    QLabel *trace_;
    QPushButton *openTrace_;
};

} // namespace stepscope::ui
