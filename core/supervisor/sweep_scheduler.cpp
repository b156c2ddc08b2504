#include "supervisor/sweep_scheduler.h"

#include "stats/stats.h"

#include <algorithm>
#include <utility>

namespace stepscope::supervisor
{

SweepScheduler::SweepScheduler(std::vector<Lane> lanes, AdaptiveRepeats adaptive)
    : laned_(!lanes.empty()), adaptive_(adaptive)
{
    if (lanes.empty())
        lanes.push_back(Lane{});
    for (Lane &lane : lanes)
        lanes_.push_back(LaneState{std::move(lane), false, false, -1, {}, 0});
}

std::size_t SweepScheduler::addRun(const RunConfig &config)
{
    runs_.push_back(Queued{config, canonicalName(config), false});
    return runs_.size() - 1;
}

std::optional<std::size_t> SweepScheduler::pick(const LaneState &lane) const
{
    if (!idle(lane))
        return std::nullopt;
    const auto idleOfModel = std::count_if(lanes_.begin(), lanes_.end(), [&](const LaneState &l) {
        return idle(l) && l.device.model == lane.device.model;
    });
    for (std::size_t i = 0; i < runs_.size(); ++i) {
        const Queued &run = runs_[i];
        if (run.taken || running_.count(run.name))
            continue;
        if (const auto bound = model_.find(run.name); bound != model_.end() && bound->second != lane.device.model)
            continue;
        if (ranks(run) > 1 && idleOfModel < ranks(run))
            return std::nullopt; // it waits for its lanes, and nothing overtakes it
        return i;
    }
    return std::nullopt;
}

SweepScheduler::Start SweepScheduler::take(int laneIndex, std::size_t run)
{
    Queued &queued = runs_[run];
    LaneState &lane = lanes_[static_cast<std::size_t>(laneIndex)];
    queued.taken = true;
    lane.busy = true;
    lane.run = run;
    lane.holding.clear();
    for (std::size_t i = 0; i < lanes_.size() && static_cast<int>(lane.holding.size()) + 1 < ranks(queued); ++i) {
        LaneState &other = lanes_[i];
        if (&other != &lane && idle(other) && other.device.model == lane.device.model) {
            other.heldBy = laneIndex;
            lane.holding.push_back(static_cast<int>(i));
        }
    }
    running_.insert(queued.name);
    if (laned_)
        model_.emplace(queued.name, lane.device.model);
    return Start{laneIndex, run, lane.holding};
}

std::optional<SweepScheduler::Start> SweepScheduler::next()
{
    for (;;) {
        if (cursor_ == lanes_.size()) {
            cursor_ = 0;
            if (!std::exchange(startedInPass_, false))
                return std::nullopt;
        }
        const std::size_t lane = cursor_++;
        if (const auto run = pick(lanes_[lane])) {
            startedInPass_ = true;
            return take(static_cast<int>(lane), *run);
        }
    }
}

std::optional<std::size_t> SweepScheduler::firstQueued() const
{
    for (std::size_t i = 0; i < runs_.size(); ++i)
        if (!runs_[i].taken)
            return i;
    return std::nullopt;
}

std::optional<std::size_t> SweepScheduler::firstUnholdable() const
{
    if (!laned_)
        return std::nullopt;
    std::map<std::string, int> alive;
    for (const LaneState &l : lanes_)
        if (!l.retired)
            ++alive[l.device.model];
    for (std::size_t i = 0; i < runs_.size(); ++i) {
        const int needed = ranks(runs_[i]);
        if (runs_[i].taken || needed <= 1)
            continue;
        if (std::none_of(alive.begin(), alive.end(), [&](const auto &m) { return m.second >= needed; }))
            return i;
    }
    return std::nullopt;
}

std::optional<std::size_t> SweepScheduler::firstStranded() const
{
    // With every lane idle nothing will free one: a run no idle lane picks now is never picked.
    if (anyBusy() || std::any_of(lanes_.begin(), lanes_.end(), [&](const LaneState &l) { return pick(l); }))
        return std::nullopt;
    return firstQueued();
}

void SweepScheduler::cancelRun(std::size_t run)
{
    runs_.at(run).taken = true;
}

void SweepScheduler::failRun(std::size_t run)
{
    runs_.at(run).taken = true;
    failed_.insert(runs_[run].name);
}

SweepScheduler::Ended SweepScheduler::finish(int laneIndex, RunStatus status, const std::optional<Failure> &failure,
                                             std::vector<double> steady)
{
    LaneState &lane = lanes_.at(static_cast<std::size_t>(laneIndex));
    const Queued &run = runs_[lane.run];
    // A device that has gone is the lane's failure, not the configuration's. A data-parallel run's
    // failure cannot tell which of its GPUs went, so it retires none.
    const bool retire = laned_ && status == RunStatus::Failed && failure &&
                        failure->category == FailureCategory::CudaUnavailable && lane.device.gpu &&
                        run.config.worldSize <= 1;
    if (!steady.empty())
        steady_[run.name].push_back(std::move(steady));
    else if (status == RunStatus::Failed && !retire)
        failed_.insert(run.name);
    lane.busy = false;
    for (int other : lane.holding)
        lanes_[static_cast<std::size_t>(other)].heldBy = -1;
    lane.holding.clear();
    running_.erase(run.name);

    Ended ended{lane.run, retire, std::nullopt};
    if (!retire)
        return ended;
    lane.retired = true;
    const bool another = std::any_of(lanes_.begin(), lanes_.end(), [&](const LaneState &l) {
        return !l.retired && l.device.model == lane.device.model;
    });
    if (another)
        ended.requeue = lane.run;
    return ended;
}

void SweepScheduler::freeAll()
{
    for (LaneState &lane : lanes_)
        lane.busy = false;
}

bool SweepScheduler::anyBusy() const
{
    return std::any_of(lanes_.begin(), lanes_.end(), [](const LaneState &l) { return l.busy; });
}

SweepScheduler::Round SweepScheduler::anotherRound(std::chrono::milliseconds elapsed) const
{
    Round round;
    if (!adaptive_.enabled)
        return round;
    if (adaptive_.maxMinutes > 0 && elapsed >= std::chrono::minutes(adaptive_.maxMinutes)) {
        round.timeSpent = true;
        return round;
    }
    // Configurations in plan order, each once, with the processes already planned for it.
    std::vector<std::pair<const RunConfig *, int>> configs;
    for (const Queued &run : runs_) {
        auto it = std::find_if(configs.begin(), configs.end(), [&](const auto &c) { return *c.first == run.config; });
        if (it == configs.end())
            configs.emplace_back(&run.config, 1);
        else
            ++it->second;
    }
    for (const auto &[config, planned] : configs) {
        const std::string name = canonicalName(*config);
        if (failed_.count(name) || planned >= adaptive_.maxProcesses)
            continue;
        static const stats::Runs none;
        const auto found = steady_.find(name);
        const stats::Runs &runs = found == steady_.end() ? none : found->second;
        double halfWidth = -1; // fewer than two processes with a steady state: no interval yet
        if (runs.size() >= 2) {
            const auto ci = stats::medianOfRuns(runs, 1000);
            halfWidth = ci.hasInterval && ci.median > 0 ? (ci.high - ci.low) / 2 / ci.median : 1.0;
            if (halfWidth <= adaptive_.halfWidth)
                continue;
        }
        round.runs.push_back(AddedRun{*config, planned, static_cast<int>(runs.size()), halfWidth});
    }
    return round;
}

} // namespace stepscope::supervisor
