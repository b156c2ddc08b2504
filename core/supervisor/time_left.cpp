#include "supervisor/time_left.h"

#include "config/config_json.h"
#include "stats/stats.h"

#include <QJsonDocument>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

namespace stepscope::supervisor
{

namespace
{
std::optional<double> medianOf(const std::map<std::string, std::vector<double>> &m, const std::string &k)
{
    const auto it = m.find(k);
    return it == m.end() || it->second.empty() ? std::nullopt : std::optional<double>(stats::median(it->second));
}
} // namespace

RunKey runKey(const RunConfig &config, store::StartState start)
{
    RunKey k;
    k.name = canonicalName(config);
    k.start = start;
    k.steps = config.totalSteps();
    // What makes a first step long: the runtime, compiling, autotuning, a graph, the start state.
    k.config = config;
    k.kind = toString(config.runtime) + "|" + toString(config.compile) + "|" + (config.cudnnBenchmark ? "bench" : "") +
             "|" + (config.cudaGraph ? "graph" : "") + "|" + std::string(store::toString(start)) + "|" +
             config.device.substr(0, 4);
    return k;
}

std::vector<RunKey> runKeys(const std::vector<PlannedRun> &runs)
{
    std::vector<RunKey> keys;
    std::set<std::string> primed; // configurations some earlier run primes
    for (const PlannedRun &run : runs) {
        RunKey key = runKey(run.config, run.caches);
        key.primes = run.caches != store::StartState::Fresh && !primed.count(key.name);
        primed.insert(key.name);
        keys.push_back(std::move(key));
    }
    return keys;
}

std::string TimeLeft::exact(const RunKey &key)
{
    return key.name + "|" + std::string(store::toString(key.start)) + "|" + std::to_string(key.steps);
}

void TimeLeft::addHistory(const RunKey &key, double seconds)
{
    history_[exact(key)].push_back(seconds);
    historyKinds_[key.kind + "|" + std::to_string(key.steps)].push_back(seconds);
}

std::optional<double> TimeLeft::stateRatio(store::StartState state, store::StartState other, std::int64_t steps) const
{
    // Over the configurations of this sweep with runs of both states and this step count.
    std::vector<double> ratios;
    const std::string tail = "|" + std::to_string(steps);
    const std::string mine = "|" + std::string(store::toString(state)) + tail;
    const std::string theirs = "|" + std::string(store::toString(other)) + tail;
    for (const auto &[k, seconds] : sweep_) {
        if (k.size() <= mine.size() || k.compare(k.size() - mine.size(), mine.size(), mine) != 0 || seconds.empty())
            continue;
        const auto twin = sweep_.find(k.substr(0, k.size() - mine.size()) + theirs);
        if (twin == sweep_.end() || twin->second.empty())
            continue;
        const double base = stats::median(twin->second);
        if (base > 0)
            ratios.push_back(stats::median(seconds) / base);
    }
    if (ratios.empty())
        return std::nullopt;
    return stats::median(ratios);
}

void TimeLeft::addReference(const RunCosts &costs)
{
    reference_.insert(costs.begin(), costs.end()); // insert keeps a key already there
}

std::optional<RunCost> TimeLeft::referenceOf(const RunKey &key, bool *exact) const
{
    if (const auto it = reference_.find(exactCostKey(key)); it != reference_.end()) {
        if (exact)
            *exact = true;
        return it->second;
    }
    if (exact)
        *exact = false;
    for (const std::string &k : {kindCostKey(key), familyCostKey(key)})
        if (const auto it = reference_.find(k); it != reference_.end())
            return it->second;
    return std::nullopt;
}

double TimeLeft::hostScale() const
{
    // This machine's pace against the reference's, over every second both measured (a long run
    // says more than a short one), shrunk towards the reference's own (1) while little has been
    // seen: one or two short runs move 30-40% between processes of the same machine.
    if (hostSeconds_.second <= 0)
        return 1.0;
    // Half-way there after a minute of runs. Replayed on the H200 default sweep, the pace of the first
    // two runs alone (3.8 and 4.0 s) made the fresh pass 38-49% too long; with this prior, within 7%.
    constexpr double kPriorSeconds = 60.0;
    const double weight = hostSeconds_.second / (hostSeconds_.second + kPriorSeconds);
    return std::exp(weight * std::log(hostSeconds_.first / hostSeconds_.second));
}

std::optional<double> TimeLeft::firstStepOf(const RunKey &key) const
{
    if (const auto it = kindFirst_.find(key.kind); it != kindFirst_.end() && !it->second.empty())
        return stats::median(it->second);
    if (const auto cost = referenceOf(key))
        return cost->firstStepSeconds * hostScale();
    return std::nullopt;
}

void TimeLeft::addFinished(const RunKey &key, double seconds, std::optional<double> firstStep)
{
    // How far the modelled other-state estimate was off for this run (before this run is in it).
    if (const auto predicted = fromOtherState(key);
        predicted.modelled && *predicted.scaled > 0 && seconds > 0 && !medianOf(sweep_, exact(key)))
        calibration_[key.start].push_back(seconds / *predicted.scaled);
    if (firstStep) {
        sweepFirst_[exact(key)].push_back(*firstStep);
        kindFirst_[key.kind].push_back(*firstStep);
    }
    if (const auto cost = referenceOf(key); cost && cost->seconds(key.steps) > 0 && seconds > 0) {
        hostSeconds_.first += seconds;
        hostSeconds_.second += cost->seconds(key.steps);
    }
    sweep_[exact(key)].push_back(seconds);
    kinds_[key.kind + "|" + std::to_string(key.steps)].push_back(seconds);
    all_.push_back(seconds);
}

TimeLeft::FromOtherState TimeLeft::fromOtherState(const RunKey &key) const
{
    FromOtherState out;
    const auto mine = referenceOf(key);
    for (const store::StartState other : store::kStartStates) {
        if (other == key.start || out.scaled)
            continue;
        RunKey o = key;
        o.start = other;
        o.kind = runKey(key.config, other).kind;
        const auto seconds = medianOf(sweep_, exact(o));
        if (!seconds)
            continue;
        const auto theirs = referenceOf(o);
        const auto theirFirst = medianOf(sweepFirst_, exact(o));
        const auto myFirst = theirFirst ? firstStepOf(key) : std::nullopt;
        if (theirFirst && myFirst) {
            // What else the state changes (an again run of a compiled row reads its caches outside
            // the first step too: 3-4 s more on the H200), as the reference measured it.
            double rest = 0;
            if (mine && theirs)
                rest = ((mine->seconds(key.steps) - mine->firstStepSeconds) -
                        (theirs->seconds(key.steps) - theirs->firstStepSeconds)) *
                       hostScale();
            out.scaled = std::max(0.0, *seconds - *theirFirst + rest) + *myFirst;
            out.modelled = true;
        } else if (mine && theirs && theirs->seconds(key.steps) > 0) {
            out.scaled = *seconds * mine->seconds(key.steps) / theirs->seconds(key.steps);
            out.modelled = true;
        } else if (const auto ratio = stateRatio(key.start, other, key.steps))
            out.scaled = *seconds * *ratio;
        else if (!out.unscaled)
            out.unscaled = seconds;
    }
    return out;
}

double TimeLeft::stateCalibration(store::StartState state) const
{
    // What this sweep's runs of `state` took against what their other state predicted, shrunk
    // towards 1 while few have: one run's 20% says little, five runs' say more.
    const auto it = calibration_.find(state);
    if (it == calibration_.end() || it->second.empty())
        return 1.0;
    const double n = static_cast<double>(it->second.size());
    return std::exp(n / (n + 2) * std::log(stats::median(it->second)));
}

std::optional<TimeEstimate> TimeLeft::predict(const RunKey &key) const
{
    std::optional<TimeEstimate> run;
    const std::string kind = key.kind + "|" + std::to_string(key.steps);
    // The same configuration in another state of this sweep.
    auto [scaled, unscaled, modelled] = fromOtherState(key);
    if (modelled)
        *scaled *= stateCalibration(key.start);
    // The reference, at this sweep's pace against it.
    std::optional<TimeEstimate> referenced;
    bool exactReference = false;
    if (const auto cost = referenceOf(key, &exactReference)) {
        referenced = TimeEstimate{cost->seconds(key.steps) * hostScale(), !exactReference || hostSeconds_.second <= 0};
    }
    if (const auto s = medianOf(sweep_, exact(key)))
        run = TimeEstimate{*s, false};
    else if (const auto h = medianOf(history_, exact(key)))
        run = TimeEstimate{*h, false};
    else if (scaled)
        run = TimeEstimate{*scaled, false};
    else if (referenced)
        run = referenced;
    else if (unscaled)
        run = TimeEstimate{*unscaled, true};
    else if (const auto k = medianOf(kinds_, kind))
        run = TimeEstimate{*k, true};
    else if (const auto hk = medianOf(historyKinds_, kind))
        run = TimeEstimate{*hk, true};
    else if (!all_.empty())
        run = TimeEstimate{std::accumulate(all_.begin(), all_.end(), 0.0) / static_cast<double>(all_.size()), true};
    if (!run || !key.primes)
        return run;
    // The priming process is a one-step run of the same configuration that pays the fresh first
    // step: close to what the fresh run costs.
    RunKey fresh = runKey(key.config, store::StartState::Fresh);
    fresh.name = key.name;
    fresh.steps = key.steps;
    const auto priming = predict(fresh);
    if (!priming)
        return TimeEstimate{run->seconds * 2, true};
    return TimeEstimate{run->seconds + priming->seconds, run->guess || priming->guess};
}

std::optional<TimeEstimate> TimeLeft::left(const std::vector<RunKey> &plan, std::size_t current, double elapsed,
                                           const std::optional<RunPace> &pace) const
{
    if (current >= plan.size())
        return std::nullopt;
    std::optional<TimeEstimate> now = predict(plan[current]);
    // The steps still to come at the pace this run is keeping: better than any other run's time,
    // whose first step and pace may be another machine state's.
    std::optional<double> paced;
    if (pace && pace->steps > 0 && pace->secondsPerStep > 0)
        paced = std::max(0, pace->steps - pace->step) * pace->secondsPerStep;
    if (!now && !paced)
        return std::nullopt;
    // A run that outlives its prediction is taken to end soon: its overrun is not added to the rest.
    TimeEstimate total =
        paced ? TimeEstimate{*paced, false} : TimeEstimate{std::max(0.0, now->seconds - elapsed), now->guess};
    for (std::size_t k = current + 1; k < plan.size(); ++k) {
        auto next = predict(plan[k]);
        // Nothing known of it: the running run's own projected length, the only figure there is.
        if (!next && paced)
            next = TimeEstimate{elapsed + *paced, true};
        if (!next)
            return std::nullopt;
        total.seconds += next->seconds;
        total.guess = total.guess || next->guess;
    }
    return total;
}

void PaceMeter::restart()
{
    *this = PaceMeter();
}

void PaceMeter::observe(int step, int steps, double seconds)
{
    steps_ = steps;
    if (step <= 0)
        return; // the run's start: no step measured yet
    if (firstStep_ < 0) {
        firstStep_ = step;
        firstSeconds_ = seconds;
    }
    lastStep_ = step;
    lastSeconds_ = seconds;
}

std::optional<RunPace> PaceMeter::pace() const
{
    // A few steps past the first report: one batch of steps alone is too few to time.
    constexpr int kMinSteps = 3;
    if (firstStep_ < 0 || lastStep_ - firstStep_ < kMinSteps || lastSeconds_ <= firstSeconds_)
        return std::nullopt;
    return RunPace{lastStep_, steps_, (lastSeconds_ - firstSeconds_) / (lastStep_ - firstStep_)};
}

std::string roundedTimeLeft(double seconds)
{
    const long long s = std::llround(std::max(0.0, seconds));
    const auto roundTo = [](long long v, long long unit) { return std::max(unit, (v + unit / 2) / unit * unit); };
    if (s < 55) {
        const long long r = roundTo(s, s < 20 ? 5 : 10);
        if (r < 60)
            return "about " + std::to_string(r) + " s";
    }
    const long long minutes = std::max(1LL, (s + 30) / 60);
    if (minutes < 20)
        return "about " + std::to_string(minutes) + " min";
    if (minutes < 90)
        return "about " + std::to_string(roundTo(minutes, 5)) + " min";
    const long long tens = roundTo(minutes, 10);
    const long long h = tens / 60, m = tens % 60;
    return "about " + std::to_string(h) + " h" + (m ? " " + std::to_string(m) + " min" : std::string());
}

void addDatabaseHistory(TimeLeft &model, const store::Reader &reader, const std::string &host, int maxSweeps)
{
    std::map<std::int64_t, bool> sameHost; // environment id -> recorded on `host`
    int seen = 0;
    for (const store::SweepRecord &sweep : reader.sweeps()) {
        if (++seen > maxSweeps)
            break;
        for (const store::RunRecord &run : reader.runs(sweep.id)) {
            const auto seconds = wallSeconds(run);
            if (run.status != RunStatus::Complete || !run.environmentId || !seconds)
                continue;
            auto known = sameHost.find(*run.environmentId);
            if (known == sameHost.end()) {
                const auto env = reader.environment(*run.environmentId);
                known = sameHost.emplace(*run.environmentId, env && env->host == host).first;
            }
            if (!known->second)
                continue;
            RunConfig config;
            std::vector<ConfigError> errors;
            if (!parseStoredConfig(QByteArray::fromStdString(run.configJson), config, errors))
                continue;
            // Files of before cache states ran cold (a run's own caches were never warm then) or
            // against the user's caches: taken as cold, the safer guess.
            const store::StartState start =
                run.caches == store::StartState::Unrecorded ? store::StartState::Fresh : run.caches;
            model.addHistory(runKey(config, start), *seconds);
        }
    }
}

TimeLeft timeLeftBefore(const store::Reader &reader, const std::string &host)
{
    TimeLeft model;
    model.addReference(referenceRunCosts());
    addDatabaseHistory(model, reader, host);
    return model;
}

TimeLeft timeLeftBefore(const std::string &databasePath, const std::string &host)
{
    try {
        if (const auto reader = store::Reader::open(databasePath))
            return timeLeftBefore(*reader, host);
    } catch (const store::StoreError &) {
        // No history: the reference costs alone.
    }
    TimeLeft model;
    model.addReference(referenceRunCosts());
    return model;
}

} // namespace stepscope::supervisor
