#pragma once
// The ledger of a sweep, computed off the UI thread. Building a ledger runs the bootstrap over
// every steady step of every cold process (minutes for a 7 x 3 sweep at 100,000 steps a run), and a
// new planned run length recomputes the recommendation's interval: neither may stall the window.
//
// A request supersedes every earlier one (ReaderJob): work not yet started is skipped, work already
// running stops at its bootstrap's next resample and its result is dropped. The LedgerModel adopts
// results on the UI thread; then the job says so.
#include "controller/reader_job.h"
#include "models/environment_assessment.h"
#include "report/sweep_models.h"
#include "store/store.h"

#include <QList>

#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace stepscope::ui
{

class LedgerModel;

// What a sweep is, read in milliseconds before its ledger (the header shows it at once).
struct SweepInfo {
    store::SweepRecord sweep;
    std::optional<store::EnvironmentRecord> environment; // of its first run that reported one
    std::vector<std::string> configJsons;                // its configurations, in the sweep's order
    int runs = 0, complete = 0;
    std::int64_t lastRun = 0;               // the last run (by position) that recorded steps, else 0
    std::vector<report::SweepModel> models; // the models its runs trained, in order
};

class LedgerJob : public ReaderJob
{
    Q_OBJECT
  public:
    // The job fills `model`, which must outlive it.
    explicit LedgerJob(LedgerModel *model, QObject *parent = nullptr);
    ~LedgerJob() override;

    // Reads the sweep (sweepRead), then builds its ledger for a planned run of `plannedSteps`
    // (<= 0: the sweep's own) and the model adopts it (ready).
    // `start`: the start state the planned run assumes (report::Ledger::start); `batch`: the batch of
    // a batch scan whose rows are wanted (0: the baseline's).
    void request(qint64 sweepId, qint64 plannedSteps, store::StartState start = store::StartState::Fresh,
                 int batch = 0);
    // The recommendation of the latest ledger for another planned run length (recommended).
    void requestPlannedSteps(qint64 plannedSteps);
    qint64 requestedSweep() const { return sweepId_; }
    // Where the last ledger was built: never the UI thread (tests check it).
    std::thread::id lastBuildThread() const { return lastBuildThread_; }

  Q_SIGNALS:
    void sweepRead(const stepscope::ui::SweepInfo &info);
    // The model now holds the ledger of `sweepId`; `timing` is what its runs say about the CPU.
    void ready(qint64 sweepId, const QList<stepscope::ui::EnvironmentEntry> &timing);
    void recommended(qint64 sweepId, qint64 plannedSteps);

  private:
    enum Kind { Ledger, Recommendation, KindCount };
    struct Copy;

    LedgerModel *model_;
    std::shared_ptr<Copy> copy_; // the reader threads' copy of the last ledger built
    qint64 sweepId_ = 0;
    std::thread::id lastBuildThread_;
};

} // namespace stepscope::ui
