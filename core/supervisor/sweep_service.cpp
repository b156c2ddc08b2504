#include "supervisor/sweep_service.h"

#include "config/config_json.h"
#include "platform/platform.h"
#include "report/ledger.h"
#include "stats/stats.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QThread>

#include <algorithm>
#include <cmath>
#include <utility>

namespace stepscope::supervisor
{

const char *toString(SweepEvent::Kind kind)
{
    using K = SweepEvent::Kind;
    switch (kind) {
    case K::RunStarted:
        return "run-started";
    case K::WarmupStarted:
        return "warmup-started";
    case K::WarmupFailed:
        return "warmup-failed";
    case K::PrimingStarted:
        return "priming-started";
    case K::LaneRetired:
        return "lane-retired";
    case K::RunRequeued:
        return "run-requeued";
    case K::Environment:
        return "environment";
    case K::FirstStep:
        return "first-step";
    case K::Phase:
        return "phase";
    case K::CompileInfo:
        return "compile-info";
    case K::Progress:
        return "progress";
    case K::RunFinished:
        return "run-finished";
    case K::AdaptiveRunAdded:
        return "adaptive-run-added";
    case K::AdaptiveTimeSpent:
        return "adaptive-time-spent";
    case K::Log:
        return "log";
    case K::TimeLeftReport:
        return "time-left-report";
    case K::Provisional:
        return "provisional";
    case K::StorageFailed:
        return "storage-failed";
    case K::Finished:
        return "finished";
    }
    return "log";
}

QString gpuTopology()
{
    // How the GPUs reach each other (NVLink, PCIe switch, host bridge) changes what a data-parallel
    // step costs; nvidia-smi prints it as a matrix. A second at most: it reads the driver's tables.
    QProcess smi;
    smi.start("nvidia-smi", {"topo", "-m"});
    if (!smi.waitForStarted(2000))
        return "unknown (nvidia-smi did not start)";
    if (!smi.waitForFinished(10000)) {
        smi.kill();
        smi.waitForFinished(1000);
        return "unknown (nvidia-smi topo -m did not answer in 10 s)";
    }
    const QString out = QString::fromUtf8(smi.readAllStandardOutput()).trimmed();
    return smi.exitCode() == 0 && !out.isEmpty() ? out : "unknown (nvidia-smi topo -m failed)";
}

SweepService::SweepService(store::Database &db, QObject *parent) : QObject(parent), db_(db)
{
    qRegisterMetaType<SweepEvent>();
    qRegisterMetaType<PreparedSweep>();
}

SweepService::~SweepService() = default; // the runner (a child) kills a live worker and marks its run cancelled

std::optional<PreparedSweep> SweepService::prepare(store::Database &db, const SweepRequest &request,
                                                   std::vector<ConfigError> &errors,
                                                   const std::optional<RunnerOptions> &overrides)
{
    errors = validate(request);
    if (!errors.empty())
        return std::nullopt;
    PreparedSweep p;
    p.request = withDefaults(request);
    // A batch scan or world sizes make configurations of their own: each is held to the rules too
    // (batch 1 at 32 px, a CPU pin under DDP).
    if ((!request.batches.empty() || !request.worldSizes.empty()) && !(errors = validate(p.request)).empty())
        return std::nullopt;
    const SweepRequest &r = p.request;
    p.hasPythonRuns = std::any_of(r.configs.begin(), r.configs.end(),
                                  [](const RunConfig &c) { return c.runtime == Runtime::Python; });
    if (overrides) {
        p.options = *overrides;
    } else {
        p.options.native = defaultNativeWorker();
        // Resolved once per sweep: with no interpreter the Python runs fail python-not-found with
        // what was tried (the origin), and the native ones still run.
        p.options.python = defaultPythonWorker(r.python);
        // The native worker's LibTorch comes from the same Python's torch (torch_location.h); looked
        // up only when a native run will need it, and later (locateTorchFor).
        p.torchToLocate = std::any_of(r.configs.begin(), r.configs.end(),
                                      [](const RunConfig &c) { return c.runtime == Runtime::Native; });
    }
    p.options.timeoutSeconds = r.timeoutSeconds;
    p.options.machineWarmup = r.machineWarmup.value_or(false);
    p.options.profileSteps = r.profileSteps;
    p.options.adaptive.enabled = r.adaptive;
    p.options.adaptive.halfWidth = r.adaptiveHalfWidth;
    p.options.adaptive.maxProcesses = r.adaptiveMaxProcesses;
    p.options.adaptive.maxMinutes = r.adaptiveMaxMinutes;
    if (!r.cacheRoot.isEmpty())
        p.options.cacheRoot = QDir(r.cacheRoot).absolutePath();
    QJsonObject settings;
    if (!r.recipe.isEmpty())
        settings.insert("recipe", r.recipe);
    if (!r.lanes.empty()) {
        const auto groups = groupByModel(r.lanes);
        p.options.lanes = groups.front();
        p.lanesNote = splitNote(groups);
        QJsonArray lanes;
        for (const LaneDevice &lane : p.options.lanes)
            lanes.append(QJsonObject{{"device", lane.label}, {"model", lane.model}, {"uuid", lane.uuid}});
        settings.insert("lanes", lanes);
        if (p.options.lanes.front().cudaIndex >= 0)
            settings.insert("topology", gpuTopology());
    }
    p.plan = planSweep(db, r.name.toStdString(), r.preset.toStdString(), r.configs, r.repeats, r.plannedSteps,
                       r.baseline, *r.starts, settings);
    return p;
}

bool SweepService::isRunning() const
{
    return runner_ && runner_->isRunning();
}

void SweepService::cancel()
{
    if (QThread::currentThread() != thread()) {
        QMetaObject::invokeMethod(this, &SweepService::cancel, Qt::QueuedConnection);
        return;
    }
    if (runner_)
        runner_->cancel();
}

void SweepService::locateTorchFor(PreparedSweep &sweep)
{
    if (!std::exchange(sweep.torchToLocate, false))
        return;
    sweep.options.torch = locateTorch(sweep.request.python);
}

void SweepService::start(const PreparedSweep &prepared)
{
    PreparedSweep sweep = prepared;
    locateTorchFor(sweep);
    delete runner_; // the last sweep's, finished
    runner_ = new SweepRunner(db_, sweep.options, this);
    runsDone_ = 0;
    // What each run should cost, from this database's earlier runs on this host and from the costs
    // Stepscope ships (time_left.h).
    timeLeft_ = timeLeftBefore(db_.path(), platform::hostName());
    keys_.clear();
    configs_.clear();
    predictions_.clear();
    currentRun_ = -1;
    warmRuns_ = false;
    lanes_.clear();
    runStarts_.clear();
    firstSteps_.clear();
    laneCount_ = static_cast<int>(std::max<std::size_t>(1, sweep.options.lanes.size()));
    keys_ = runKeys(sweep.plan.runs);
    statePlanned_.clear();
    stateEnded_.clear();
    provisionalSaid_.clear();
    sweepId_ = sweep.plan.sweepId;
    plannedSteps_ = sweep.request.plannedSteps;
    for (const PlannedRun &run : sweep.plan.runs) {
        warmRuns_ = warmRuns_ || run.caches != store::StartState::Fresh;
        configs_[QString::fromStdString(canonicalName(run.config))] = run.config;
        statePlanned_[run.caches].insert(canonicalName(run.config));
    }
    sweepClock_.start();
    runClock_.start();
    connectRunner();
    runner_->start(sweep.plan);
}

void SweepService::sayProvisional(int planIndex)
{
    if (planIndex < 0 || planIndex >= static_cast<int>(keys_.size()))
        return;
    const RunKey &key = keys_[static_cast<std::size_t>(planIndex)];
    stateEnded_[key.start].insert(key.name);
    const auto planned = statePlanned_.find(key.start);
    if (planned == statePlanned_.end() || provisionalSaid_.count(key.start) ||
        runsDone_ >= static_cast<int>(keys_.size()) || stateEnded_[key.start] != planned->second)
        return;
    provisionalSaid_.insert(key.start);
    // The verdict for that state from what has landed, in the words both front-ends show: its
    // runs of other states are still to come, and the ledger says so (report::provisionalText).
    try {
        db_.flush();
        const auto reader = store::Reader::open(db_.path());
        if (!reader)
            return;
        const report::Ledger ledger = report::buildLedger(*reader, sweepId_, plannedSteps_, {}, key.start);
        const std::string headline = report::recommendationHeadline(ledger);
        SweepEvent e = SweepEvent::of(SweepEvent::Kind::Provisional);
        e.start = key.start;
        e.detail = QString::fromStdString(
            "every configuration's " + std::string(store::toString(key.start)) + " run has ended (" +
            report::provisionalText(ledger) + "); for " + report::startText(key.start) + ": " +
            (headline.empty() ? "no recommendation yet" + (ledger.noRecommendationReason.empty()
                                                               ? std::string()
                                                               : " (" + ledger.noRecommendationReason + ")")
                              : headline));
        emitEvent(e);
    } catch (const store::StoreError &) {
        // No verdict now: the final one comes with the finished sweep.
    }
}

void SweepService::connectRunner()
{
    using K = SweepEvent::Kind;
    SweepRunner *r = runner_;
    connect(r, &SweepRunner::stepsArrived, this, &SweepService::stepsArrived);
    connect(r, &SweepRunner::runLane, this, [this](qint64 runId, int lane, const QString &label) {
        lanes_[runId] = {lane, label};
    });
    connect(r, &SweepRunner::runStarted, this, [this](qint64 runId, int index, int total, const QString &name) {
        runClock_.start();
        pace_.restart();
        currentRun_ = index;
        runStarts_[runId] = {index, sweepClock_.elapsed()};
        SweepEvent e = SweepEvent::of(K::RunStarted);
        e.runId = runId;
        e.index = index;
        e.total = total;
        e.config = name;
        fillLane(e);
        fillSecondsLeft(e, laneCount_ > 1 ? runsDone_ : index);
        if (e.secondsLeft >= 0)
            predictions_.push_back({static_cast<double>(sweepClock_.elapsed()) / 1000.0,
                                    static_cast<double>(e.secondsLeft), e.secondsLeftGuess});
        emitEvent(e);
    });
    connect(r, &SweepRunner::warmupStarted, this, [this](const QString &warmup, const QString &before) {
        SweepEvent e = SweepEvent::of(K::WarmupStarted);
        e.config = warmup;
        e.detail = before;
        emitEvent(e);
    });
    connect(r, &SweepRunner::warmupFailed, this, [this](const Failure &failure) {
        SweepEvent e = SweepEvent::of(K::WarmupFailed);
        e.failure = failure;
        emitEvent(e);
    });
    connect(r, &SweepRunner::primingStarted, this, [this](qint64 runId, const QString &name, store::StartState start) {
        SweepEvent e = SweepEvent::of(K::PrimingStarted);
        e.runId = runId;
        e.config = name;
        e.start = start;
        fillLane(e);
        emitEvent(e);
    });
    connect(r, &SweepRunner::laneRetired, this, [this](const QString &lane, const QString &name, const Failure &failure) {
        SweepEvent e = SweepEvent::of(K::LaneRetired);
        e.lane = lane;
        e.config = name;
        e.failure = failure;
        emitEvent(e);
    });
    connect(r, &SweepRunner::runRequeued, this, [this](const QString &name) {
        SweepEvent e = SweepEvent::of(K::RunRequeued);
        e.config = name;
        emitEvent(e);
    });
    connect(r, &SweepRunner::environment, this, [this](qint64 runId, const QString &json) {
        SweepEvent e = SweepEvent::of(K::Environment);
        e.runId = runId;
        e.detail = json;
        emitEvent(e);
    });
    connect(r, &SweepRunner::firstStep, this, [this](qint64 runId, double seconds) {
        firstSteps_[runId] = seconds; // the time-left model swaps first steps between start states
        SweepEvent e = SweepEvent::of(K::FirstStep);
        e.runId = runId;
        e.seconds = seconds;
        fillLane(e);
        emitEvent(e);
    });
    connect(r, &SweepRunner::phase, this, [this](qint64 runId, const QString &phase, double seconds, bool priming) {
        SweepEvent e = SweepEvent::of(K::Phase);
        e.runId = runId;
        fillLane(e);
        e.phase = phase;
        e.seconds = seconds;
        e.priming = priming;
        emitEvent(e);
    });
    connect(r, &SweepRunner::compileInfo, this, [this](qint64 runId, const QString &json) {
        SweepEvent e = SweepEvent::of(K::CompileInfo);
        e.runId = runId;
        e.detail = json;
        emitEvent(e);
    });
    connect(r, &SweepRunner::progress, this, &SweepService::onProgress);
    connect(r, &SweepRunner::runFinished, this,
            [this](qint64 runId, RunStatus status, const std::optional<Failure> &failure) {
                ++runsDone_;
                // Each run's own start: with lanes, several run at once.
                if (const auto it = runStarts_.find(runId); it != runStarts_.end()) {
                    const auto [index, startMs] = it->second;
                    if (index >= 0 && index < static_cast<int>(keys_.size()))
                        timeLeft_.addFinished(keys_[static_cast<std::size_t>(index)],
                                              static_cast<double>(sweepClock_.elapsed() - startMs) / 1000.0,
                                              firstSteps_.count(runId) ? std::optional<double>(firstSteps_[runId])
                                                                       : std::nullopt);
                }
                SweepEvent e = SweepEvent::of(K::RunFinished);
                e.runId = runId;
                fillLane(e);
                e.status = status;
                e.failure = failure;
                emitEvent(e);
                if (const auto it = runStarts_.find(runId); it != runStarts_.end())
                    sayProvisional(it->second.first);
            });
    connect(r, &SweepRunner::adaptiveRunAdded, this,
            [this](const QString &name, int processes, double halfWidth, double target) {
                if (const auto it = configs_.find(name); it != configs_.end())
                    keys_.push_back(runKey(it->second, warmRuns_ ? store::StartState::Again : store::StartState::Fresh));
                SweepEvent e = SweepEvent::of(K::AdaptiveRunAdded);
                e.config = name;
                e.processes = processes;
                e.halfWidth = halfWidth;
                e.target = target;
                emitEvent(e);
            });
    connect(r, &SweepRunner::adaptiveTimeSpent, this, [this](int minutes) {
        SweepEvent e = SweepEvent::of(K::AdaptiveTimeSpent);
        e.minutes = minutes;
        emitEvent(e);
    });
    connect(r, &SweepRunner::logLine, this, [this](const QString &line) {
        SweepEvent e = SweepEvent::of(K::Log);
        e.detail = line;
        emitEvent(e);
    });
    connect(r, &SweepRunner::storageFailed, this, [this](const QString &message) {
        SweepEvent e = SweepEvent::of(K::StorageFailed);
        e.detail = message;
        emitEvent(e);
    });
    connect(r, &SweepRunner::finished, this, [this](bool cancelled) {
        if (!cancelled)
            reportTimeLeftError();
        SweepEvent e = SweepEvent::of(K::Finished);
        e.cancelled = cancelled;
        emitEvent(e);
    });
}

void SweepService::fillLane(SweepEvent &e) const
{
    if (const auto it = lanes_.find(e.runId); it != lanes_.end()) {
        e.laneIndex = it->second.first;
        e.lane = it->second.second;
    }
}

void SweepService::onProgress(int finishedRuns, int totalRuns, int step, int steps)
{
    // With lanes the reporting run's position is not the count of runs done: several run at once.
    if (laneCount_ > 1)
        finishedRuns = std::min(runsDone_, totalRuns);
    SweepEvent e = SweepEvent::of(SweepEvent::Kind::Progress);
    e.index = finishedRuns;
    e.total = totalRuns;
    e.step = step;
    e.steps = steps;
    e.runFraction = steps > 0 ? std::min(1.0, double(step) / steps) : 0.0;
    e.sweepFraction = totalRuns > 0 ? (finishedRuns + e.runFraction) / totalRuns : 1.0;
    // One pace meter follows one run: with lanes, their steps would mix into a pace of no run.
    if (laneCount_ <= 1)
        pace_.observe(step, steps, static_cast<double>(runClock_.elapsed()) / 1000.0);
    fillSecondsLeft(e, finishedRuns);
    emitEvent(e);
}

void SweepService::fillSecondsLeft(SweepEvent &e, int currentRun) const
{
    e.secondsLeft = -1;
    if (currentRun < 0)
        return;
    const double elapsed = static_cast<double>(runClock_.elapsed()) / 1000.0;
    // The pace is the running run's only while it runs: at its start (RunStarted) there is none yet.
    const auto pace = currentRun == currentRun_ ? pace_.pace() : std::nullopt;
    if (const auto left = timeLeft_.left(keys_, static_cast<std::size_t>(currentRun), elapsed, pace)) {
        // Lanes share the rest between them: a rough division (the last runs of a lane may wait).
        e.secondsLeft = static_cast<qint64>(left->seconds / std::max(1, laneCount_));
        e.secondsLeftGuess = left->guess;
    }
}

void SweepService::reportTimeLeftError()
{
    const double end = static_cast<double>(sweepClock_.elapsed()) / 1000.0;
    std::vector<double> errors;
    QStringList each;
    for (const Prediction &p : predictions_) {
        const double actual = end - p.at;
        if (actual < 1)
            continue;
        errors.push_back(std::abs(p.left - actual) / actual);
        each << QString("%1 s for %2 s%3").arg(p.left, 0, 'f', 0).arg(actual, 0, 'f', 0).arg(p.guess ? " (guess)" : "");
    }
    if (errors.empty())
        return;
    SweepEvent e = SweepEvent::of(SweepEvent::Kind::TimeLeftReport);
    e.seconds = stats::median(errors);
    e.target = *std::max_element(errors.begin(), errors.end());
    e.processes = static_cast<int>(errors.size());
    e.detail = QString("time left, predicted at %1 run starts against the time the rest took: median error %2%, "
                       "worst %3% (%4)")
                   .arg(errors.size())
                   .arg(e.seconds * 100, 0, 'f', 0)
                   .arg(e.target * 100, 0, 'f', 0)
                   .arg(each.join(", "));
    emitEvent(e);
}

} // namespace stepscope::supervisor
