#pragma once
// Which lane of a sweep runs which of its runs, and what the end of a run changes: the decisions of
// the sweep runner (sweep_runner.h) apart from its processes, its store and its signals, so that
// they can be tested by calling them (tests/core/test_sweep_scheduler.cpp) instead of by running
// workers, and the runner is left with the doing.
//
// The rules (issue 21): the lanes take the queued runs in order as they come free (a queue, not a
// fixed share: the lanes finish together however long each configuration takes). A configuration
// runs in one process at a time, since its again caches are one folder. Its repeats run only on
// lanes of the GPU model its first run had: a repeat on another model measures another machine. A
// data-parallel run of world_size W holds W idle lanes of one model, and nothing overtakes it while
// it waits, or a stream of small runs could keep it waiting for ever. A lane whose GPU has gone
// (cuda-unavailable) would fail every run it took: it takes no more, and its run is queued again
// when another lane of its model is left.
//
// Plain C++ (no Qt): time comes in as an argument, so a test decides how long a sweep has run.
#include "common/failure.h"
#include "config/run_config.h"

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace stepscope::supervisor
{

// Adaptive repeats: after the planned runs, one more round of cold processes for every
// configuration whose steady figure's 95% CI (at process level) is wider than +-halfWidth of its
// median, until maxProcesses per configuration or maxMinutes for the sweep (0: no limit).
struct AdaptiveRepeats {
    bool enabled = false;
    double halfWidth = 0.02;
    int maxProcesses = 10;
    int maxMinutes = 0;
};

class SweepScheduler
{
  public:
    // What the scheduler needs of a lane's device: repeats keep to its model, and only a GPU can
    // vanish under a run (a CPU slot's cuda-unavailable is the configuration's failure).
    struct Lane {
        std::string model;
        bool gpu = false;
    };

    // `lanes` empty: one lane, each run on its configuration's own device (RunnerOptions::lanes
    // empty): no model for repeats to keep to, no lanes for ranks to hold, no lane to retire.
    explicit SweepScheduler(std::vector<Lane> lanes, AdaptiveRepeats adaptive = {});

    // Queues a run of `config` after the others; returns its index. The caller keeps its own list
    // of the runs (SweepPlan::runs) index for index with these.
    std::size_t addRun(const RunConfig &config);

    // A run to start now: `lane` takes `run` and, for a data-parallel run, holds the lanes `holding`
    // (for its other ranks). None of them takes another run until finish(lane).
    struct Start {
        int lane = 0;
        std::size_t run = 0;
        std::vector<int> holding;
    };
    // The next run to start, or nullopt when no idle lane may take a queued run now. The lanes are
    // offered runs in passes from the first lane, each idle lane in turn, as long as a pass starts
    // something: a run that ends before its worker starts (a missing worker) frees its lane at
    // once, and the passes spread such runs over the lanes as they would spread runs that ran.
    std::optional<Start> next();

    // The first run no lane has taken, nullopt when none.
    std::optional<std::size_t> firstQueued() const;
    // The first queued data-parallel run that no group of live lanes of one model could ever hold:
    // failed at once, it does not wait for ever.
    std::optional<std::size_t> firstUnholdable() const;
    // The first queued run that will never run: every lane is idle and none may take it (the lanes
    // of its model were retired, or too many of them to hold its ranks). Nullopt while any lane runs.
    std::optional<std::size_t> firstStranded() const;
    // Takes a queued run out of the queue without a lane: cancelled, or failed before it started;
    // a failed one counts against its configuration, which adaptive rounds then leave alone.
    void cancelRun(std::size_t run);
    void failRun(std::size_t run);

    // What the end of a lane's run changes. `run` is the run the lane had; `retired`: the lane's
    // device has gone and the lane takes no more; `requeue`: the run to queue again (addRun) for
    // another lane of its model, set only when one is left.
    struct Ended {
        std::size_t run = 0;
        bool retired = false;
        std::optional<std::size_t> requeue;
    };
    // The run of `lane` ended with `status` (and `failure`); `steady` holds its steady steps (empty
    // without a steady state). Frees the lane and those its run held.
    Ended finish(int lane, RunStatus status, const std::optional<Failure> &failure, std::vector<double> steady);
    // The sweep stopped without finishing its runs (the store failed): no lane counts as busy.
    void freeAll();

    // The runs an adaptive round adds: one more process of each configuration in plan order whose
    // interval is too wide. `repeatIndex` counts the processes planned for it so far; `processes`
    // had a steady state, and their interval's half width was `halfWidth` of the median (< 0: fewer
    // than two, no interval yet). `timeSpent`: the sweep has run `maxMinutes`, and no round follows.
    struct AddedRun {
        RunConfig config;
        int repeatIndex = 0;
        int processes = 0;
        double halfWidth = -1;
    };
    struct Round {
        bool timeSpent = false;
        std::vector<AddedRun> runs;
    };
    // The round to add once every run has been taken, after `elapsed` of the sweep. Adds nothing
    // with adaptive repeats off. The caller queues each run (addRun).
    Round anotherRound(std::chrono::milliseconds elapsed) const;

    bool anyBusy() const;
    bool busy(int lane) const { return lanes_.at(static_cast<std::size_t>(lane)).busy; }
    bool retired(int lane) const { return lanes_.at(static_cast<std::size_t>(lane)).retired; }
    // The run `lane` has now, or had last.
    std::size_t runOn(int lane) const { return lanes_.at(static_cast<std::size_t>(lane)).run; }
    // The other lanes the data-parallel run of `lane` holds.
    const std::vector<int> &holding(int lane) const { return lanes_.at(static_cast<std::size_t>(lane)).holding; }

  private:
    struct Queued {
        RunConfig config;
        std::string name; // canonical: one process of it at a time, one model for its repeats
        bool taken = false;
    };
    struct LaneState {
        Lane device;
        bool busy = false, retired = false;
        int heldBy = -1;          // a data-parallel run of another lane holds this one
        std::vector<int> holding; // the other lanes this lane's data-parallel run holds
        std::size_t run = 0;
    };

    bool idle(const LaneState &lane) const { return !lane.busy && !lane.retired && lane.heldBy < 0; }
    std::optional<std::size_t> pick(const LaneState &lane) const;
    Start take(int lane, std::size_t run);
    int ranks(const Queued &run) const { return laned_ ? run.config.worldSize : 1; }

    std::vector<LaneState> lanes_;
    bool laned_;
    AdaptiveRepeats adaptive_;
    std::vector<Queued> runs_;
    std::set<std::string> running_;            // canonical names with a process now
    std::map<std::string, std::string> model_; // canonical name -> the GPU model its repeats keep to
    // Per configuration: the steady steps of each completed process, and whether one of its runs
    // failed (adaptive repeats add no process to a failing configuration).
    std::map<std::string, std::vector<std::vector<double>>> steady_;
    std::set<std::string> failed_;
    // Where next()'s pass over the lanes stands, and whether it has started a run.
    std::size_t cursor_ = 0;
    bool startedInPass_ = false;
};

} // namespace stepscope::supervisor
