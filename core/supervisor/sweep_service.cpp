#include "supervisor/sweep_service.h"

#include "common/blocking_call.h"
#include "config/config_json.h"
#include "platform/platform.h"
#include "report/ledger.h"
#include "supervisor/max_batch_sweep.h"
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

QString gpuTopology()
{
    // How the GPUs reach each other (NVLink, PCIe switch, host bridge) changes what a data-parallel
    // step costs; nvidia-smi prints it as a matrix. A second at most: it reads the driver's tables,
    // but a driver still initialising can take seconds (the dashboard prepares off its UI thread).
    blockingCall("nvidia-smi topo -m");
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
    if (request.fitsFrom > 0) {
        if (request.batches.empty() || request.maxBatch) {
            errors.push_back({"fits_from", request.maxBatch ? "a largest-batch search is not bounded by another: drop "
                                                              "--fits-from or --max-batch"
                                                            : "bounds a batch scan: give a list of batches too "
                                                              "(--batch 64,128,256,512)"});
            return std::nullopt;
        }
        auto bound = boundByMaxBatch(*store::Reader::open(db.path()), request.fitsFrom, p.request.configs, errors);
        if (!bound)
            return std::nullopt;
        p.request.configs = std::move(bound->kept);
        p.fitsNote = QString::fromStdString(bound->note);
    }
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
    p.options.maxBatch = r.maxBatch;
    if (!r.cacheRoot.isEmpty())
        p.options.cacheRoot = QDir(r.cacheRoot).absolutePath();
    QJsonObject settings;
    if (!r.recipe.isEmpty())
        settings.insert("recipe", r.recipe);
    if (r.fitsFrom > 0) // the scan's bound, so that its views can say which search it came from
        settings.insert("fits_from", QJsonObject{{"sweep", qint64(r.fitsFrom)}, {"note", p.fitsNote}});
    if (r.maxBatch) { // the readers' sign of a max-batch sweep, with or without a recipe (max_batch_sweep.h)
        const report::MaxBatchLimits limits;
        settings.insert("max_batch", QJsonObject{{"tries", limits.maxTries},
                                                 {"seconds", limits.maxSeconds},
                                                 {"tolerance", limits.tolerance},
                                                 {"try_steps", kMaxBatchTrySteps}});
    }
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
        event::Provisional e;
        e.start = key.start;
        e.ledgerState = QString::fromStdString(report::provisionalText(ledger));
        e.headline = QString::fromStdString(report::recommendationHeadline(ledger));
        e.noRecommendation = QString::fromStdString(ledger.noRecommendationReason);
        emitEvent(e);
    } catch (const store::StoreError &) {
        // No verdict now: the final one comes with the finished sweep.
    }
}

void SweepService::connectRunner()
{
    SweepRunner *r = runner_;
    connect(r, &SweepRunner::stepsArrived, this, &SweepService::stepsArrived);
    connect(r, &SweepRunner::progress, this, &SweepService::onProgress);
    connect(r, &SweepRunner::sweepEvent, this, &SweepService::onRunnerEvent);
}

void SweepService::onRunnerEvent(const SweepEvent &e)
{
    // The runner's events go on as they are; the service adds what time left knows, and learns
    // from the runs' starts, first steps and ends what the rest of the sweep should take.
    using namespace event;
    std::visit(Overloaded{
                   [this](RunStarted x) {
                       runClock_.start();
                       pace_.restart();
                       currentRun_ = x.index;
                       runStarts_[x.runId] = {x.index, sweepClock_.elapsed()};
                       x.left = timeLeftAt(laneCount_ > 1 ? runsDone_ : x.index);
                       if (x.left.seconds >= 0)
                           predictions_.push_back({static_cast<double>(sweepClock_.elapsed()) / 1000.0,
                                                   static_cast<double>(x.left.seconds), x.left.guess});
                       emitEvent(x);
                   },
                   [this](const FirstStep &x) {
                       firstSteps_[x.runId] = x.seconds; // the time-left model swaps first steps between states
                       emitEvent(x);
                   },
                   [this](const RunFinished &x) {
                       ++runsDone_;
                       // Each run's own start: with lanes, several run at once.
                       const auto started = runStarts_.find(x.runId);
                       if (started != runStarts_.end()) {
                           const auto [index, startMs] = started->second;
                           if (index >= 0 && index < static_cast<int>(keys_.size()))
                               timeLeft_.addFinished(keys_[static_cast<std::size_t>(index)],
                                                     static_cast<double>(sweepClock_.elapsed() - startMs) / 1000.0,
                                                     firstSteps_.count(x.runId)
                                                         ? std::optional<double>(firstSteps_[x.runId])
                                                         : std::nullopt);
                       }
                       emitEvent(x);
                       if (started != runStarts_.end())
                           sayProvisional(started->second.first);
                   },
                   [this](const AdaptiveRunAdded &x) {
                       if (const auto it = configs_.find(x.config); it != configs_.end())
                           keys_.push_back(
                               runKey(it->second, warmRuns_ ? store::StartState::Again : store::StartState::Fresh));
                       emitEvent(x);
                   },
                   [this](const MaxBatchTryAdded &x) {
                       keys_.push_back(runKey(x.config, store::StartState::Fresh));
                       emitEvent(x);
                   },
                   [this](const Finished &x) {
                       if (!x.cancelled)
                           reportTimeLeftError();
                       emitEvent(x);
                   },
                   [this](const auto &x) { emitEvent(x); },
               },
               e);
}

void SweepService::onProgress(int finishedRuns, int totalRuns, int step, int steps)
{
    event::Progress e;
    // The reporter's position in the plan names its run (until its RunStarted, none).
    for (const auto &[runId, start] : runStarts_)
        if (start.first == finishedRuns)
            e.runId = runId;
    // With lanes the reporting run's position is not the count of runs done: several run at once.
    if (laneCount_ > 1)
        finishedRuns = std::min(runsDone_, totalRuns);
    e.runsDone = finishedRuns;
    e.total = totalRuns;
    e.step = step;
    e.steps = steps;
    e.runFraction = steps > 0 ? std::min(1.0, double(step) / steps) : 0.0;
    e.sweepFraction = totalRuns > 0 ? (finishedRuns + e.runFraction) / totalRuns : 1.0;
    // One pace meter follows one run: with lanes, their steps would mix into a pace of no run.
    if (laneCount_ <= 1)
        pace_.observe(step, steps, static_cast<double>(runClock_.elapsed()) / 1000.0);
    e.left = timeLeftAt(finishedRuns);
    emitEvent(e);
}

TimeLeftEstimate SweepService::timeLeftAt(int currentRun) const
{
    if (currentRun < 0)
        return {};
    const double elapsed = static_cast<double>(runClock_.elapsed()) / 1000.0;
    // The pace is the running run's only while it runs: at its start (RunStarted) there is none yet.
    const auto pace = currentRun == currentRun_ ? pace_.pace() : std::nullopt;
    const auto left = timeLeft_.left(keys_, static_cast<std::size_t>(currentRun), elapsed, pace);
    if (!left)
        return {};
    // Lanes share the rest between them: a rough division (the last runs of a lane may wait).
    return {static_cast<qint64>(left->seconds / std::max(1, laneCount_)), left->guess};
}

void SweepService::reportTimeLeftError()
{
    const double end = static_cast<double>(sweepClock_.elapsed()) / 1000.0;
    event::TimeLeftReport e;
    std::vector<double> errors;
    for (const Prediction &p : predictions_) {
        const double actual = end - p.at;
        if (actual < 1)
            continue;
        errors.push_back(std::abs(p.left - actual) / actual);
        e.predictions.push_back({p.left, actual, p.guess});
    }
    if (errors.empty())
        return;
    e.medianError = stats::median(errors);
    e.worstError = *std::max_element(errors.begin(), errors.end());
    emitEvent(e);
}

} // namespace stepscope::supervisor
