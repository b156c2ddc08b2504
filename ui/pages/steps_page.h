#pragma once
// The Steps tab: stored runs' step times over each other (RunOverlayChart), chosen from the sweep
// on show: one run per configuration (which settles lowest, and when), or every cold process of
// one configuration (do they settle at the same level?). The page says which runs it wants; the
// window reads them off the UI thread and hands them back (setRuns).
#include "pages/page.h"

#include <QVector>

#include <cstdint>

class QComboBox;
class QLabel;

namespace stepscope::ui
{

class LedgerModel;
class RunOverlayChart;
struct OverlayRuns;

class StepsPage : public Page
{
    Q_OBJECT
  public:
    // A run the page wants drawn.
    struct Wanted {
        std::int64_t runId = 0;
        QString name;
        int colorIndex = -1;
    };

    explicit StepsPage(LedgerModel *model, QWidget *parent = nullptr);

    QString title() const override { return tr("&Steps"); }
    QString key() const override { return QStringLiteral("steps"); }
    QCustomPlot *chart() const override;
    void clear() override;

    // Draws what the window read for the latest wish; earlier answers are dropped by the job.
    void setRuns(const OverlayRuns &runs);
    RunOverlayChart *overlay() const { return chart_; }
    QComboBox *choice() const { return choice_; }
    // The runs of the current choice (-1: one per configuration; else every process of that row).
    QVector<Wanted> wanted() const;

  Q_SIGNALS:
    void runsWanted(const QVector<stepscope::ui::StepsPage::Wanted> &runs);

  private:
    void fillChoices();
    void ask();

    LedgerModel *model_;
    QComboBox *choice_;
    QLabel *note_;
    RunOverlayChart *chart_;
};

} // namespace stepscope::ui
