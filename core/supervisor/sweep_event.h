#pragma once
// What happens in a sweep, one struct per fact (issue 29.4). The service (sweep_service.h) emits them
// as one std::variant; the CLI's printer and the dashboard's presenters visit it directly, and
// every sentence a user reads about one comes from event_text.h's describe(). A fact that matters
// to anyone is a field here, never only a word in a log line.
#include "common/failure.h"
#include "config/run_config.h"
#include "report/compile_record.h"
#include "store/store.h"

#include <QMetaType>
#include <QString>

#include <optional>
#include <variant>
#include <vector>

namespace stepscope::supervisor
{

// The lane that runs an event's run on a sweep over several devices (issue 21): its label ("cuda:1";
// a data-parallel run, "cuda:0+cuda:1") and index. Empty and -1 on one device.
struct LaneOf {
    QString label;
    int index = -1;
};

// The time the rest of the sweep should take (time_left.h): seconds < 0 while there is nothing to go
// on; guess: some run of the rest was predicted from runs of another kind.
struct TimeLeftEstimate {
    qint64 seconds = -1;
    bool guess = false;
};

namespace event
{

struct RunStarted {
    qint64 runId = 0;
    int index = 0, total = 0; // index: 0-based, in the plan
    QString config;
    LaneOf lane;
    TimeLeftEstimate left;
};
// The discarded one-step process before the timed runs (RunnerOptions::machineWarmup).
struct WarmupStarted {
    QString config; // the warm-up's own configuration
    QString before; // the run it comes before
};
struct WarmupFailed { // the sweep goes on
    Failure failure;
};
// The unstored process that fills what run `runId`'s shipped or again start reads.
struct PrimingStarted {
    qint64 runId = 0;
    QString config;
    store::StartState start = store::StartState::Shipped;
    LaneOf lane;
};
struct Environment {
    qint64 runId = 0;
    QString json; // the worker's environment record
};
struct FirstStep {
    qint64 runId = 0;
    double seconds = 0;
    LaneOf lane;
};
// A long stretch without steps: the worker's word for it ("compiling", "capturing") and the seconds
// spent in it so far; `priming` while the priming process of the run is the one in it.
struct Phase {
    qint64 runId = 0;
    QString phase;
    double seconds = 0;
    bool priming = false;
    LaneOf lane;
};
struct CompileInfo {
    qint64 runId = 0;
    report::CompileRecord record; // what torch.compile reported, read once (report/compile_record.h)
};
struct Progress {
    int runsDone = 0, total = 0;
    int step = 0, steps = 0; // of the run that reported
    double runFraction = 0, sweepFraction = 0;
    TimeLeftEstimate left;
    // That run: on a sweep over several devices each lane reports its own (0 when no run reported).
    qint64 runId = 0;
};
struct RunFinished {
    qint64 runId = 0;
    RunStatus status = RunStatus::Complete;
    std::optional<Failure> failure;
    LaneOf lane;
};
// Adaptive repeats: one more process of `config`; `processes` had a steady state and their CI's half
// width was `halfWidth` of the median (< 0: fewer than two, no interval yet), above `target`.
struct AdaptiveRunAdded {
    QString config;
    int processes = 0;
    double halfWidth = 0, target = 0;
};
struct AdaptiveTimeSpent { // the adaptive cap: no more processes after `minutes`
    int minutes = 0;
};
// A max-batch search (issue 31.3) queued its next try: `config` at `batch`, for the search of
// `search` (the configuration without its batch); `soFar` says where it stands and names the try.
struct MaxBatchTryAdded {
    RunConfig config;
    QString search;
    int batch = 0;
    QString soFar;
};
// A lane whose device failed its run takes no more (RunRequeued follows when another lane of its
// model is left).
struct LaneRetired {
    QString lane;
    QString config;
    Failure failure;
};
struct RunRequeued {
    QString config;
};
struct Log { // a line of a worker's or the supervisor's log, for people only
    QString line;
};
// At the sweep's end: the time-left estimates made at each run start against the time the rest
// really took.
struct TimeLeftReport {
    struct Prediction {
        double predicted = 0, actual = 0; // seconds
        bool guess = false;
    };
    std::vector<Prediction> predictions;
    double medianError = 0, worstError = 0; // relative
};
// Every configuration's run of one start state has ended while runs remain (issue 28.3): that state's
// verdict from what has landed, which the runs still to come may change.
struct Provisional {
    store::StartState start = store::StartState::Fresh;
    QString ledgerState;     // report::provisionalText: what the ledger rests on so far
    QString headline;        // report::recommendationHeadline; empty: no recommendation yet
    QString noRecommendation; // why not, when the ledger says
};
struct StorageFailed { // the database refused a write; Finished(cancelled) follows
    QString message;
};
struct Finished {
    qint64 sweepId = 0;
    bool cancelled = false;
};

} // namespace event

using SweepEvent =
    std::variant<event::RunStarted, event::WarmupStarted, event::WarmupFailed, event::PrimingStarted,
                 event::Environment, event::FirstStep, event::Phase, event::CompileInfo, event::Progress,
                 event::RunFinished, event::AdaptiveRunAdded, event::AdaptiveTimeSpent, event::LaneRetired,
                 event::RunRequeued, event::Log, event::TimeLeftReport, event::Provisional, event::StorageFailed,
                 event::Finished, event::MaxBatchTryAdded>;

// std::visit with one lambda per kind it cares about: `std::visit(Overloaded{[](const event::X &) {},
// [](const auto &) {}}, e)`.
template <class... F> struct Overloaded : F... {
    using F::operator()...;
};
template <class... F> Overloaded(F...) -> Overloaded<F...>;

// The kind's name, for logs and tests ("run-started", ...).
const char *kindName(const SweepEvent &e);

} // namespace stepscope::supervisor

Q_DECLARE_METATYPE(stepscope::supervisor::SweepEvent)
