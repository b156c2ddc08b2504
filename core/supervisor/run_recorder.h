#pragma once
// One timed run into the store: what its worker's protocol lines say (environment, setup, first
// step, steps, memory, losses, compile info), and how the run ended, with its summary. Its events
// are SweepRunner's, for the same run; which process runs when is SweepRunner's business.
#include "common/failure.h"
#include "profile/profile_summary.h"
#include "protocol/protocol.h"
#include "store/store.h"
#include "supervisor/sweep_event.h"

#include <QByteArray>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QVector>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace stepscope::supervisor
{

// The environment row stored last. Every run of a sweep often reports the same machine: the runs
// of one runner share one row for it.
struct StoredEnvironment {
    QByteArray json;
    std::int64_t id = 0;
};

class TraceScratch;

class RunRecorder : public QObject
{
    Q_OBJECT
  public:
    // Run `runId` is run `index` of `total` in its sweep, on `lane`, and has `stepsInRun` steps
    // (progress); `stored` outlives the recorder.
    RunRecorder(store::Database &db, std::int64_t runId, int index, int total, int stepsInRun, LaneOf lane,
                StoredEnvironment &stored, QObject *parent = nullptr);
    ~RunRecorder() override; // the run's trace scratch goes with it, whatever the run's end

    // Makes the folder the worker writes its trace into (run_profile.h, TraceScratch) and returns
    // the trace's path for --trace; empty when it cannot be made, the problem then stored as the
    // run's profile. The folder goes once the profile is recorded or lost, or with this recorder.
    QString prepareTrace();
    // Where the worker writes its memory snapshot (--memory-snapshot), in the same folder; empty
    // without one (prepareTrace not called, or it failed).
    QString memorySnapshotPath() const;

    // Which machine-wide caches the run's first step found warm, stored when the worker says hello.
    void setMachineWarmup(store::MachineWarmup warmup) { machineWarmup_ = warmup; }
    // One protocol line of the run's timed worker. A refused write says storageFailed().
    void handle(const protocol::Message &m);
    // The last step stored so far (0: none).
    int lastStep() const { return lastStep_; }
    // The worker had said all of its timed run (its losses) and was profiling when it ended: a
    // worker that dies in the profiler leaves a complete run with a profile problem (takeOverProfile).
    bool diedProfiling() const { return profiling_ && !profiled_; }
    // What the worker said of the mega-cache bundle it loaded (a shipped compiled start), from its
    // latest compile info; nullopt when it said nothing of one.
    std::optional<store::BundleUse> bundle() const { return bundle_; }
    // Stores the profile's problem for a worker that ended while profiling.
    void recordProfileLoss(const std::string &why);
    // A run that failed out of memory points at the snapshot its worker kept (run_memory.h): its
    // failure's message says where it is and how to open it. Any other failure is left as it is.
    void pointAtSnapshot(Failure &failure) const;
    // Ends the run in the store (with its summary when complete). Returns the steady steps of a
    // complete run (report/run_summary.h); empty otherwise.
    std::vector<double> finish(RunStatus status, const std::optional<Failure> &failure);

  Q_SIGNALS:
    // The run's environment, first step, phases and compile record.
    void sweepEvent(const stepscope::supervisor::SweepEvent &event);
    void stepsArrived(qint64 runId, int firstIndex, const QVector<double> &gpuMs, const QVector<double> &wallMs);
    void progress(int finishedRuns, int totalRuns, int stepInRun, int stepsInRun);
    void storageFailed(const QString &message);

  private:
    void recordEnvironment(const QJsonObject &environment);
    // The run's profile column holds the profile and the memory snapshot, which arrive apart: both
    // are kept here and written together.
    void storeProfile();

    store::Database &db_;
    const std::int64_t runId_;
    const int index_;
    const int total_;
    const int stepsInRun_;
    const LaneOf lane_;
    StoredEnvironment &stored_;
    store::MachineWarmup machineWarmup_ = store::MachineWarmup::Unrecorded;
    QJsonObject helloEnvironment_;
    std::vector<store::StepRow> steps_; // the run's steps as stored, for its summary
    int lastStep_ = 0;
    bool checked_ = false;   // the worker sent its losses: every timed figure is in
    bool profiling_ = false; // then it said it was profiling
    bool profiled_ = false;  // and its profile arrived
    std::optional<store::BundleUse> bundle_;
    std::unique_ptr<TraceScratch> traceScratch_;
    profile::StoredProfile profile_;
};

} // namespace stepscope::supervisor
