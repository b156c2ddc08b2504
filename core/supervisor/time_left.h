#pragma once
// How long the rest of a sweep takes, from what each run costs (issues 16.4, 28.4): a run's wall time
// is mostly its first step (cudnn autotuning, a cold compile, priming), so the pace of the runs so far
// says little about the next. Each queued run is predicted from, in this order:
//   1. runs of the same configuration, start state and step count in this sweep,
//   2. such runs of this database on this host (earlier sweeps),
//   3. the same configuration in another start state of this sweep, its first step swapped for this
//      state's (a start state changes the first step; imports, steps and the profile pass stay): the
//      first step of runs of this kind and state in this sweep, else the reference's at this sweep's
//      pace; without first steps, scaled by the reference's ratio between the states, else by the
//      median ratio this sweep measured on the configurations that ran both,
//   4. the reference costs (run_costs.h: the configuration, else its kind, at this step count),
//      scaled by what this sweep's runs took against their reference costs; a guess when the
//      reference is only of the kind or fewer than two runs of this sweep calibrate it,
//   5. a guess, said to be one: the same configuration in another start state unscaled, else runs of
//      the same kind and step count (runtime, compile mode, cudnn autotuning, CUDA graph, start
//      state) in this sweep, then in the database, else every finished run of this sweep.
// Measured on the H200 by replaying recorded sweeps (bench/time_left_replay,
// docs/results/h200-start-states.md). A shipped or again run whose caches are not primed yet adds a
// priming process (predicted as its fresh run).
#include "config/run_config.h"
#include "store/store.h"
#include "supervisor/run_costs.h"
#include "supervisor/sweep_plan.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace stepscope::supervisor
{

struct RunKey {
    std::string name; // canonical configuration name
    store::StartState start = store::StartState::Fresh;
    std::int64_t steps = 0; // warm-up and measured steps
    std::string kind;       // the fallback's grouping (see above)
    RunConfig config;       // the run's configuration (its priming process is predicted from it)
    bool primes = false;    // a shipped or again run that pays for its priming process first
};
RunKey runKey(const RunConfig &config, store::StartState start);
// The keys of `runs` in the order they run: a shipped or again run primes when no earlier run of
// its configuration did.
std::vector<RunKey> runKeys(const std::vector<PlannedRun> &runs);

struct TimeEstimate {
    double seconds = 0;
    bool guess = false; // some run of it was predicted from another kind or the sweep's mean
};

// How the running run is going: its step `step` of `steps` (warm-up and measured steps), at
// `secondsPerStep` over the steps seen since the first batch arrived (the first step, which may be a
// compile, is behind it by then).
struct RunPace {
    int step = 0;
    int steps = 0;
    double secondsPerStep = 0;
};

// Measures a run's pace from the progress it reports: the step and the time of each report. Known
// once a few steps have come in after the first report, so that the first step is not in it.
class PaceMeter
{
  public:
    void restart(); // a new run
    void observe(int step, int steps, double seconds);
    std::optional<RunPace> pace() const;

  private:
    int firstStep_ = -1, lastStep_ = -1, steps_ = 0;
    double firstSeconds_ = 0, lastSeconds_ = 0;
};

class TimeLeft
{
  public:
    void addHistory(const RunKey &key, double seconds);  // a complete run of this database and host
    // A run of this sweep (any status), with its first step when it reported one.
    void addFinished(const RunKey &key, double seconds, std::optional<double> firstStep = std::nullopt);
    // Costs measured elsewhere (another machine, another step count); before any run is added.
    // Earlier references win a key: add the nearer one (this database's) first.
    void addReference(const RunCosts &costs);
    std::optional<TimeEstimate> predict(const RunKey &key) const;
    // The rest of run `current` of `plan` (`elapsed` seconds into it) and of every run after it;
    // nullopt while nothing is known about some of them.
    // With `pace`, the running run's rest is its steps left at the pace seen (issue 19.9): a prediction
    // from other runs is replaced by what this one is doing, and a run of which nothing was known
    // (the sweep's first) gets an estimate, said to be a guess for runs after it.
    std::optional<TimeEstimate> left(const std::vector<RunKey> &plan, std::size_t current, double elapsed,
                                     const std::optional<RunPace> &pace = std::nullopt) const;

  private:
    static std::string exact(const RunKey &key);
    // The median over this sweep's configurations that ran both of (seconds in `state`) / (seconds
    // in `other`), at `steps`; nullopt when none ran both.
    std::optional<double> stateRatio(store::StartState state, store::StartState other, std::int64_t steps) const;
    // The reference cost of `key`'s configuration, else of its kind; `exactOnly` says which it was.
    std::optional<RunCost> referenceOf(const RunKey &key, bool *exact = nullptr) const;
    // The first step `key` should take: this sweep's runs of its kind and state, else the reference's.
    std::optional<double> firstStepOf(const RunKey &key) const;
    double hostScale() const;
    struct FromOtherState {
        std::optional<double> scaled, unscaled; // see step 3 and 5 above
        bool modelled = false; // `scaled` rests on the reference (first steps, ratio), not on this sweep's ratio
    };
    FromOtherState fromOtherState(const RunKey &key) const;
    // What this sweep's runs of `state` took against their modelled estimates: the reference of
    // another machine or day may be off in a way every run of the state shares.
    double stateCalibration(store::StartState state) const;
    std::map<store::StartState, std::vector<double>> calibration_; // taken / predicted from another state
    RunCosts reference_;
    std::map<std::string, std::vector<double>> sweepFirst_, kindFirst_; // exact, kind -> first steps
    std::pair<double, double> hostSeconds_; // this sweep's runs with a reference: seconds taken, referenced
    std::map<std::string, std::vector<double>> sweep_, history_;
    std::map<std::string, std::vector<double>> kinds_, historyKinds_; // kind and steps -> seconds
    std::vector<double> all_;
};

// A time left for people, rounded as far as an estimate deserves: "about 40 s", "about 3 min",
// "about 1 h 20 min". Under a minute to the nearest 5 s (10 s above 20 s); under 20 min to the
// minute; then to 5 min; from 90 min to 10 min.
std::string roundedTimeLeft(double seconds);

// The complete runs of `reader`'s newest `maxSweeps` sweeps that ran on `host`, into `model`.
void addDatabaseHistory(TimeLeft &model, const store::Reader &reader, const std::string &host, int maxSweeps = 50);

// What a sweep's time left knows before its first run: the run costs Stepscope ships and this
// database's complete runs on `host` (the sweep service, the CLI's first line, the dashboard's
// preview). A database that cannot be read adds nothing: the estimate starts from the costs alone.
TimeLeft timeLeftBefore(const store::Reader &reader, const std::string &host);
TimeLeft timeLeftBefore(const std::string &databasePath, const std::string &host);

} // namespace stepscope::supervisor
