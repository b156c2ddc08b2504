#pragma once
// The Why tab (issue 18.2, 18.3): where each configuration's step goes (a bar of GPU busy and
// waiting per row, the Why table with each row's verdict and the knobs that address it) and the
// kernel diff of two rows, tied to their steady and first-step difference, and the current row's
// memory over one step (issue 31.2) with its biggest blocks. Reads the shown sweep's ledger model;
// the diff is computed from the two rows' stored profiles on the UI thread (small).
#include "config/run_config.h"
#include "pages/page.h"

class QComboBox;
class QLabel;
class QPushButton;
class QTableView;
class QToolButton;

namespace stepscope::ui
{

class FigureSortProxy;
class KernelDiffModel;
class LedgerModel;
class MemoryChart;
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
    // Picks the two rows to diff (ledger rows); the diff's summary and its table follow.
    void setDiffRows(int a, int b);
    QString diffText() const; // the summary: the two rows, their steps and where the change lies
    KernelDiffModel *diffModel() const { return diffModel_; }
    QTableView *diffView() const { return diffView_; } // sorted through a FigureSortProxy
    // "Add to the panel": the current row's configuration with each advised knob it can take
    // (profile::applyAdvice), one configuration per knob; disabled, its tooltip says why, when none.
    QToolButton *addToPanelButton() const { return addToPanel_; }
    // The current row's kept trace: its path and the "Open trace" button, or why there is none.
    QString traceText() const;
    QPushButton *openTraceButton() const { return openTrace_; }
    // The current row's memory over one step (the first row with one while none is picked): the
    // chart, hidden where there is no timeline to draw, and the words beside it (its peaks, the
    // kept snapshot, the biggest blocks and their stacks), or why there is none.
    MemoryChart *memoryChart() const { return memoryChart_; }
    QString memoryText() const;

  Q_SIGNALS:
    // A configuration to put into the settings panel (the window connects ConfigPanel::addConfig).
    void configWanted(const stepscope::RunConfig &config);

  private:
    void fillChoices();
    void showDiff();
    void showTrace();
    void showMemory();
    void showAdvice(); // the current row's advice on the Add to the panel button

    LedgerModel *ledger_;
    WhyModel *model_;
    WhyChart *chart_;
    QTableView *view_;
    QComboBox *a_, *b_;
    QComboBox *diffRows_; // by kernel or by family
    QLabel *diffSummary_;
    KernelDiffModel *diffModel_;
    FigureSortProxy *diffProxy_;
    QTableView *diffView_;
    QLabel *trace_;
    QPushButton *openTrace_;
    QToolButton *addToPanel_;
    MemoryChart *memoryChart_;
    QLabel *memory_;
};

} // namespace stepscope::ui
