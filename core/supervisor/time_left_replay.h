#pragma once
// A recorded sweep played back through the time-left model (issue 28.4): at each run's start, what
// the model would have said was left, from the runs before it, against what the rest really took.
// The same predictions a live sweep makes at its run starts (where no pace is known yet), so a
// change to the model is measured on real sweeps without a GPU (bench/time_left_replay).
#include "store/store.h"
#include "supervisor/time_left.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace stepscope::supervisor
{

struct ReplayPoint {
    std::size_t run = 0;  // 0-based, in the order the runs started
    double predicted = 0; // seconds left, as predicted at the run's start
    double actual = 0;    // seconds from the run's start to the sweep's last finish
    bool guess = false;
    // At the run's start, each run from it on: predicted seconds (negative: no estimate) and taken.
    std::vector<std::pair<double, double>> each;
};

// Every run of `sweepId` with start and finish stamps, in the order they started; `model` holds what
// was known before the sweep (history, references). Runs without an estimate are left out.
std::vector<ReplayPoint> replayTimeLeft(const store::Reader &reader, std::int64_t sweepId, TimeLeft model);

struct ReplayError {
    double median = 0, worst = 0; // |predicted - actual| / actual
    int points = 0;
};
// Over the points from run `fromRun` on (the goal counts from the third run: fromRun 2).
std::optional<ReplayError> replayError(const std::vector<ReplayPoint> &points, std::size_t fromRun);

} // namespace stepscope::supervisor
