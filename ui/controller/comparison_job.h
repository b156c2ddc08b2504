#pragma once
// Two sweeps compared off the UI thread: both ledgers and the ratio of each configuration's
// steady medians with its bootstrap interval. A request supersedes the one before; the
// ComparisonModel adopts the result on the UI thread, then the job says so.
#include "controller/reader_job.h"

namespace stepscope::ui
{

class ComparisonModel;

class ComparisonJob : public ReaderJob
{
    Q_OBJECT
  public:
    // The job fills `model`, which must outlive it.
    explicit ComparisonJob(ComparisonModel *model, QObject *parent = nullptr);

    void request(qint64 sweepA, qint64 sweepB, qint64 plannedSteps);

  Q_SIGNALS:
    // The model holds the comparison of A and B.
    void ready(qint64 sweepA, qint64 sweepB);
    // One of the two has no runs (or does not exist): nothing to compare.
    void empty(qint64 sweepA, qint64 sweepB);

  private:
    ComparisonModel *model_;
};

} // namespace stepscope::ui
