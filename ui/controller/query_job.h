#pragma once
// The quick reads of the open database the views make, off the UI thread: the history (every
// sweep and run with their summaries), a stored run's steps for the live chart, and several runs'
// steps for the Steps page. On a database of millions of steps each takes longer than a frame. A
// request supersedes the previous one of its kind.
#include "charts/run_overlay_chart.h"
#include "controller/reader_job.h"
#include "store/store.h"

#include <QVector>

namespace stepscope::ui
{

class HistoryModel;

// A run the Steps page wants drawn, as the job reads it.
struct WantedRun {
    std::int64_t runId = 0;
    QString name;
    int colorIndex = -1;
};

// A stored run's steps as the steps chart shows them.
struct RunSteps {
    store::RunRecord run;
    QVector<double> ms; // step 1 first: CUDA-event time where stored, else wall time
    bool steady = false;
    int steadyFirst = 0, steadyLast = 0; // the stored window, steps inclusive
};

class QueryJob : public ReaderJob
{
    Q_OBJECT
  public:
    // The job fills `history`, which must outlive it.
    explicit QueryJob(HistoryModel *history, QObject *parent = nullptr);

    void requestHistory();
    void requestRunSteps(qint64 runId);
    void requestRunSeries(const QVector<WantedRun> &runs);

  Q_SIGNALS:
    void historyReady();
    void runStepsReady(const stepscope::ui::RunSteps &steps);
    void runSeriesReady(const stepscope::ui::OverlayRuns &runs);

  private:
    enum Kind { History, Steps, Series, KindCount };
    HistoryModel *history_;
};

} // namespace stepscope::ui
