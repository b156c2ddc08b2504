#pragma once
// The one sweep service both front-ends adapt: a request (sweep_request.h) is validated, given its
// defaults, turned into a plan with its worker commands (prepare), and run (start), and everything
// that happens arrives as one typed event stream (sweep_event.h). The CLI's printer and the
// dashboard's presenters visit the events directly; neither assembles a sweep, reads a log line for
// meaning, or estimates time left itself.
//
// Threads: the service lives in whatever thread it is moved to (the dashboard gives it the
// supervisor thread, the CLI keeps it in the main event loop); prepare() is a plain function.
#include "supervisor/sweep_event.h"
#include "supervisor/sweep_plan.h"
#include "supervisor/sweep_request.h"
#include "supervisor/sweep_runner.h"
#include "supervisor/time_left.h"

#include <QElapsedTimer>
#include <QObject>
#include <QVector>

#include <map>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace stepscope::supervisor
{

// `nvidia-smi topo -m`, or "unknown (why)": how the GPUs of a sweep over several reach each other.
// Waits for the process (blocking_call.h): never on a UI thread.
QString gpuTopology();

// A request made ready to run: the plan stored in the database (one transaction) and the options
// the runner gets, workers resolved.
struct PreparedSweep {
    SweepPlan plan;
    RunnerOptions options;
    SweepRequest request; // with its defaults applied
    bool hasPythonRuns = false;
    // Native runs load the located torch's LibTorch (torch_location.h). Looking it up starts a
    // Python (50-100 ms), so prepare() leaves it to whoever may wait: start(), on the service's
    // thread, or the CLI before it says what will run.
    bool torchToLocate = false;
    // Said to the user before the sweep starts: the GPUs left out of a host with more than one model
    // (sweep_lanes.h, splitNote). Empty when nothing was left out.
    QString lanesNote;
    // Said too: what a batch scan bounded by a max-batch sweep left out (SweepRequest::fitsFrom).
    QString fitsNote;
};

class SweepService : public QObject
{
    Q_OBJECT
  public:
    explicit SweepService(store::Database &db, QObject *parent = nullptr);
    ~SweepService() override;

    // Validates the request (every problem in *errors: nothing is written then), applies its
    // defaults, resolves the workers and stores the plan. Waits for the plan's transaction and, for
    // GPU lanes, for nvidia-smi (gpuTopology): the dashboard calls it off its UI thread. Throws store::StoreError when the
    // database refuses the plan. `overrides` replaces the workers and caches the runner gets
    // (tests; the dashboard's benchmark); unset, the installed workers.
    static std::optional<PreparedSweep> prepare(store::Database &db, const SweepRequest &request,
                                                std::vector<ConfigError> &errors,
                                                const std::optional<RunnerOptions> &overrides = std::nullopt);

    // Looks up the torch the native runs load, once (a Python start: never on a UI thread).
    static void locateTorchFor(PreparedSweep &sweep);

    // Runs a prepared sweep; returns at once, events follow, Finished last.
    Q_INVOKABLE void start(const stepscope::supervisor::PreparedSweep &sweep);
    // Stops the running worker (its run becomes cancelled) and cancels the rest. Thread-safe.
    Q_INVOKABLE void cancel();
    bool isRunning() const;

  Q_SIGNALS:
    void sweepEvent(const stepscope::supervisor::SweepEvent &event);
    // Step samples go apart from the events, on the service's thread (DirectConnection is safe):
    // the dashboard puts them into a locked buffer that its UI timer drains.
    void stepsArrived(qint64 runId, int firstIndex, const QVector<double> &gpuMs, const QVector<double> &wallMs);

  private:
    void emitEvent(const SweepEvent &e) { Q_EMIT sweepEvent(e); }
    void onProgress(int finishedRuns, int totalRuns, int step, int steps);
    // The time the rest of the sweep should take (time_left.h); seconds -1 while there is nothing to
    // go on.
    TimeLeftEstimate timeLeftAt(int currentRun) const;
    void connectRunner();
    void onRunnerEvent(const SweepEvent &e);
    // How the predictions made at each run start compare with the time the sweep really took: a
    // Log event at its end (docs/results cite it).
    void reportTimeLeftError();

    store::Database &db_;
    SweepRunner *runner_ = nullptr; // a child: it moves with the service to the service's thread
    QElapsedTimer sweepClock_, runClock_;
    int runsDone_ = 0;
    TimeLeft timeLeft_;
    PaceMeter pace_;                       // the running run's steps per second, for its time left
    std::vector<RunKey> keys_;             // the plan's runs, in order (adaptive ones appended)
    std::map<QString, RunConfig> configs_; // by canonical name, for the runs adaptive repeats add
    bool warmRuns_ = false;
    int currentRun_ = -1;
    // At each run start: seconds into the sweep, the predicted rest, whether it was a guess.
    struct Prediction {
        double at = 0, left = 0;
        bool guess = false;
    };
    std::vector<Prediction> predictions_;
    int laneCount_ = 1;
    std::map<qint64, std::pair<int, qint64>> runStarts_; // run id -> plan index, sweep clock ms at its start
    std::map<qint64, double> firstSteps_;                // run id -> its first step, seconds
    // Issue 28.3: per start state, the configurations planned with it and those with a run of it
    // ended; once they match (and runs remain), the state's provisional verdict is said.
    std::map<store::StartState, std::set<std::string>> statePlanned_, stateEnded_;
    std::set<store::StartState> provisionalSaid_;
    std::int64_t sweepId_ = 0, plannedSteps_ = 0;
    void sayProvisional(int planIndex);
};

} // namespace stepscope::supervisor

Q_DECLARE_METATYPE(stepscope::supervisor::PreparedSweep)
