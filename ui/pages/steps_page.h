#pragma once
// The Steps tab: stored runs' step times over each other (RunOverlayChart), chosen from the sweep
// on show: one run per configuration (which settles lowest, and when), or every cold process of
// one configuration (do they settle at the same level?). The page asks the query job for the runs
// it wants and draws what the job reads for it off the UI thread.
#include "controller/query_job.h"
#include "pages/page.h"

#include <QVector>

#include <cstdint>

class QComboBox;
class QLabel;

namespace stepscope::ui
{

class LedgerModel;
class QueryJob;
class RunOverlayChart;
struct OverlayRuns;

class StepsPage : public Page
{
    Q_OBJECT
  public:
    // A run the page wants drawn (the job's own type: it reads them).
    using Wanted = WantedRun;

    // Neither is owned; both outlive the page.
    StepsPage(LedgerModel *model, QueryJob *query, QWidget *parent = nullptr);

    QString title() const override { return tr("&Steps"); }
    QString key() const override { return QStringLiteral("steps"); }
    QCustomPlot *chart() const override;
    void clear() override;

    RunOverlayChart *overlay() const { return chart_; }
    QComboBox *choice() const { return choice_; }
    // The runs of the current choice (-1: one per configuration; else every process of that row).
    QVector<Wanted> wanted() const;

  private:
    void fillChoices();
    void ask();
    // Draws what the job read for the latest wish; earlier answers are dropped by the job.
    void setRuns(const OverlayRuns &runs);

    LedgerModel *model_;
    QueryJob *query_;
    QComboBox *choice_;
    QLabel *note_;
    RunOverlayChart *chart_;
};

} // namespace stepscope::ui
