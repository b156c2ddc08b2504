#include "supervisor/sweep_runner.h"
#include "supervisor/event_text.h"

#include "config/config_json.h"
#include "supervisor/leftovers.h"
#include "supervisor/max_batch_sweep.h"
#include "supervisor/run_profile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMetaObject>
#include <QTemporaryDir>
#include <QThread>

#include <algorithm>
#include <chrono>

namespace stepscope::supervisor
{

SweepRunner::SweepRunner(store::Database &db, RunnerOptions options, QObject *parent)
    : QObject(parent), db_(db), options_(std::move(options))
{
    qRegisterMetaType<SweepPlan>();
    // A first step (autotuning, a compile) or a CPU step can take minutes without a `steps` line;
    // the heartbeat keeps other openers of the file from taking the run for a crashed one.
    // Parented so that moveToThread() takes the timer along to the runner's thread.
    heartbeat_.setParent(this);
    heartbeat_.setInterval(30000);
    connect(&heartbeat_, &QTimer::timeout, this, [this] {
        for (const auto &lane : lanes_)
            if (lane->runId)
                db_.heartbeat(lane->runId);
        storeHealthy();
    });
}

SweepRunner::~SweepRunner()
{
    // Closed mid-sweep (the window closes, the CLI quits): nothing may stay `running` or `queued`.
    for (const auto &lane : lanes_) {
        if (lane->worker)
            lane->worker->abort();
        removeRunDirs(*lane);
    }
    if (!running_)
        return;
    const Failure closed{FailureCategory::Cancelled, "Stepscope closed during the sweep", {}};
    for (const auto &lane : lanes_)
        if (lane->runId)
            db_.finishRun(lane->runId, RunStatus::Cancelled, closed);
    cancelUntaken(closed);
    db_.finishSweep(plan_.sweepId, store::SweepStatus::Cancelled);
    try {
        db_.flush();
    } catch (const store::StoreError &) {
        // Best effort: the rows stay `running`, and the next open turns them `interrupted`.
    }
}

void SweepRunner::removeRunDirs(Lane &lane)
{
    if (cacheDirs_ && !lane.primingCaches.dir.isEmpty())
        cacheDirs_->finish(lane.primingCaches, configOf(lane), false);
    lane.primingCaches = {};
}

void SweepRunner::start(const SweepPlan &plan)
{
    plan_ = plan;
    running_ = true;
    cancelRequested_ = false;
    lanes_.clear();
    const std::vector<LaneDevice> devices = laned() ? options_.lanes : std::vector<LaneDevice>{LaneDevice{}};
    std::vector<SweepScheduler::Lane> kinds;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        auto lane = std::make_unique<Lane>();
        lane->index = static_cast<int>(i);
        lane->device = devices[i];
        lanes_.push_back(std::move(lane));
        if (laned())
            kinds.push_back({devices[i].model.toStdString(), devices[i].cudaIndex >= 0});
    }
    scheduler_ = std::make_unique<SweepScheduler>(std::move(kinds), options_.adaptive);
    for (const PlannedRun &run : plan_.runs)
        scheduler_->addRun(run.config);
    const bool reusedStarts = std::any_of(plan_.runs.begin(), plan_.runs.end(), [](const PlannedRun &r) {
        return r.caches == store::StartState::Again || r.caches == store::StartState::Shipped;
    });
    // What killed sweeps left on this host goes before this one makes its own (leftovers.h).
    const auto found =
        leftovers::clearLeftovers(leftovers::placesOf(db_.path(), QFile::encodeName(options_.cacheRoot).toStdString()));
    if (std::any_of(found.begin(), found.end(),
                    [](const leftovers::Found &f) { return f.owner == leftovers::Owner::Gone; }))
        Q_EMIT sweepEvent(event::Log{"stepscope: " + QString::fromStdString(leftovers::describe(found))});
    cacheDirs_ = std::make_unique<StartCacheDirs>(options_.cacheRoot, reusedStarts);
    sweepClock_.start();
    dispatch();
}

void SweepRunner::cancel()
{
    if (QThread::currentThread() != thread()) {
        QMetaObject::invokeMethod(this, &SweepRunner::cancel, Qt::QueuedConnection);
        return;
    }
    if (!running_)
        return;
    cancelRequested_ = true;
    bool stopping = false;
    for (const auto &lane : lanes_) {
        if (lane->worker) {
            lane->worker->stop(); // onWorkerExited records the run as cancelled and moves on
            stopping = true;
        }
    }
    if (!stopping)
        dispatch();
}

bool SweepRunner::anyBusy() const
{
    return scheduler_ && scheduler_->anyBusy();
}

const RunConfig &SweepRunner::configOf(const Lane &lane) const
{
    return plan_.runs[scheduler_->runOn(lane.index)].config;
}

void SweepRunner::cancelUntaken(const Failure &why)
{
    while (const auto run = scheduler_->firstQueued()) {
        scheduler_->cancelRun(*run);
        db_.finishRun(plan_.runs[*run].runId, RunStatus::Cancelled, why);
    }
}

void SweepRunner::failBeforeStart(std::size_t planIndex, const Failure &why)
{
    // Said as a run that started and failed at once (as a missing worker is), so that every front
    // end counts and shows it: a sweep of only such runs is a failed sweep, not a quiet one.
    scheduler_->failRun(planIndex);
    const PlannedRun &run = plan_.runs[planIndex];
    const std::string failedFor = canonicalName(run.config);
    Q_EMIT sweepEvent(event::RunStarted{run.runId, static_cast<int>(planIndex), static_cast<int>(plan_.runs.size()),
                                        QString::fromStdString(failedFor), {}, {}});
    db_.finishRun(run.runId, RunStatus::Failed, why);
    Q_EMIT sweepEvent(event::RunFinished{run.runId, RunStatus::Failed, why, {}});
}

void SweepRunner::dispatch()
{
    // A cancel() between runs finishes the sweep itself; a dispatch() that finishCurrent() queued
    // then finds nothing to do (and must not say Finished a second time).
    if (!running_)
        return;
    if (cancelRequested_)
        cancelUntaken(Failure{FailureCategory::Cancelled, "the sweep was stopped before this run started", {}});
    // A data-parallel run that no group of lanes could ever hold fails now rather than waiting forever.
    while (const auto run = scheduler_->firstUnholdable()) {
        const std::string needed = std::to_string(plan_.runs[*run].config.worldSize);
        failBeforeStart(*run, Failure{FailureCategory::InvalidConfig,
                                      "world_size " + needed + " needs " + needed +
                                          " devices of one model, and the sweep's lanes have fewer; name more "
                                          "with --devices or lower world_size",
                                      {}});
    }
    // Until no idle lane finds a run: a run that fails before its worker starts frees its lane at once.
    for (;;) {
        if (!running_)
            return; // the store refused a write: storeFailed() has said Finished
        const auto start = scheduler_->next();
        if (!start)
            break;
        startRun(*start);
    }
    if (anyBusy())
        return;
    // Nothing runs, so the runs left (if any) have no lane that may take them: their model's lanes
    // were all retired after device failures.
    while (const auto run = scheduler_->firstStranded())
        failBeforeStart(*run, Failure{FailureCategory::CudaUnavailable,
                                      "no lane of the sweep was left to run this: the lanes of its GPU model were "
                                      "retired after device failures (the log says which)",
                                      {}});
    if (!scheduler_->firstQueued() && !cancelRequested_ && (planAnotherRound() || planMaxBatchRound())) {
        dispatch(); // adaptive repeats or max-batch tries appended a round; the lanes go on with it
        return;
    }
    if (!running_)
        return; // the store refused the new runs: storeFailed() has said Finished
    const int total = static_cast<int>(plan_.runs.size());
    db_.finishSweep(plan_.sweepId, cancelRequested_ ? store::SweepStatus::Cancelled : store::SweepStatus::Complete);
    cacheDirs_.reset(); // the sweep's cache folders go with it
    if (!flushed())
        return; // storeFailed() has said Finished
    running_ = false;
    Q_EMIT progress(total, total, 0, 0);
    Q_EMIT sweepEvent(event::Finished{plan_.sweepId, cancelRequested_});
}

LaneOf SweepRunner::laneOf(const Lane &lane) const
{
    return laned() ? LaneOf{laneLabel(lane), lane.index} : LaneOf{};
}

QString SweepRunner::laneLabel(const Lane &lane) const
{
    QStringList labels{lane.device.label};
    for (int other : scheduler_->holding(lane.index))
        labels << lanes_[static_cast<std::size_t>(other)]->device.label;
    return labels.join('+');
}

QString SweepRunner::visibleDevices(const Lane &lane) const
{
    // The indices the probe saw are positions in the CUDA_VISIBLE_DEVICES the supervisor itself has.
    const QStringList outer = qEnvironmentVariable("CUDA_VISIBLE_DEVICES").split(',', Qt::SkipEmptyParts);
    QStringList visible;
    auto add = [&](const Lane &l) {
        const int index = l.device.cudaIndex;
        visible << (index >= 0 && index < outer.size() ? outer[index].trimmed() : QString::number(index));
    };
    add(lane);
    for (int other : scheduler_->holding(lane.index))
        add(*lanes_[static_cast<std::size_t>(other)]);
    return visible.join(',');
}

RunConfig SweepRunner::workerConfig(const Lane &lane, const RunConfig &config) const
{
    RunConfig c = config;
    if (!laned() || lane.device.cudaIndex < 0)
        return c; // one device, or a CPU slot: the configuration's own
    // A data-parallel run's ranks take cuda:0.. of the devices made visible to them.
    c.device = c.worldSize > 1 ? "cuda" : lane.device.device.toStdString();
    return c;
}

std::string SweepRunner::laneJson(const Lane &lane) const
{
    QJsonObject o{{"lane", lane.index},
                  {"lanes", static_cast<int>(lanes_.size())},
                  {"device", lane.device.label},
                  {"model", lane.device.model},
                  {"uuid", lane.device.uuid}};
    if (const std::vector<int> &holding = scheduler_->holding(lane.index); !holding.empty()) {
        QJsonArray devices{lane.device.label};
        for (int other : holding)
            devices.append(lanes_[static_cast<std::size_t>(other)]->device.label);
        o.insert("devices", devices);
    }
    return QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString();
}

void SweepRunner::startRun(const SweepScheduler::Start &start)
{
    Lane &lane = *lanes_[static_cast<std::size_t>(start.lane)];
    const std::size_t planIndex = start.run;
    const PlannedRun &run = plan_.runs[planIndex];
    const std::string canonical = canonicalName(run.config);
    lane.runId = run.runId;
    lane.stage = Stage::Timed;
    const int total = static_cast<int>(plan_.runs.size());
    lane.recorder = std::make_unique<RunRecorder>(db_, lane.runId, static_cast<int>(planIndex), total,
                                                  run.config.totalSteps(), laneOf(lane), storedEnvironment_);
    connect(lane.recorder.get(), &RunRecorder::sweepEvent, this, &SweepRunner::sweepEvent);
    connect(lane.recorder.get(), &RunRecorder::stepsArrived, this, &SweepRunner::stepsArrived);
    connect(lane.recorder.get(), &RunRecorder::progress, this, &SweepRunner::progress);
    connect(lane.recorder.get(), &RunRecorder::storageFailed, this, &SweepRunner::storeFailed);

    const bool python = run.config.runtime == Runtime::Python;
    const WorkerCommand &worker = python ? options_.python : options_.native;
    const QString name = QString::fromStdString(canonical);
    if (laned())
        db_.setLane(lane.runId, laneJson(lane));
    Q_EMIT sweepEvent(event::RunStarted{lane.runId, static_cast<int>(planIndex), total, name, laneOf(lane), {}});
    Q_EMIT progress(static_cast<int>(planIndex), total, 0, run.config.totalSteps());
    db_.markRunning(lane.runId);
    if (worker.program.isEmpty()) {
        const std::string why = python && !worker.origin.isEmpty()
                                    ? worker.origin.toStdString()
                                    : "no worker program is configured for runtime " + toString(run.config.runtime);
        finishCurrent(lane, RunStatus::Failed,
                      Failure{python ? FailureCategory::PythonNotFound : FailureCategory::Internal, why, {}});
        return;
    }
    if (!python && !options_.torch.usable()) {
        // Said in the user's words here rather than as the loader's error from inside the worker.
        finishCurrent(lane, RunStatus::Failed, torchFailure(options_.torch));
        return;
    }
    if (ModelExports::needed(run.config) && exports_.path(run.config).isEmpty()) {
        // Another model in the native worker: the Python worker traces it first, once a sweep.
        if (const auto failed = exports_.failure(run.config)) {
            finishCurrent(lane, RunStatus::Failed, *failed);
            return;
        }
        if (options_.python.program.isEmpty()) {
            finishCurrent(lane, RunStatus::Failed,
                          exports_.failed(run.config, Failure{FailureCategory::PythonNotFound,
                                                              "its TorchScript export needs the Python worker: " +
                                                                  options_.python.origin.toStdString(),
                                                              {}}));
            return;
        }
        std::string problem;
        lane.exportPath = exports_.target(run.config, lane.index, problem);
        if (lane.exportPath.isEmpty()) {
            finishCurrent(lane, RunStatus::Failed,
                          exports_.failed(run.config, Failure{FailureCategory::Internal, problem, {}}));
            return;
        }
        lane.stage = Stage::Exporting;
        startWorker(lane, run.config);
        return;
    }
    continueRun(lane, run);
}

void SweepRunner::continueRun(Lane &lane, const PlannedRun &run)
{
    if (!prepareCaches(lane, run))
        return;
    if (options_.machineWarmup && lane.warmup == Warmup::NotRun) {
        lane.stage = Stage::WarmingUp;
        lane.warmup = Warmup::Running; // once a lane, whatever becomes of it
        const RunConfig warmup = machineWarmupConfig(run.config);
        Q_EMIT sweepEvent(event::WarmupStarted{QString::fromStdString(canonicalName(warmup)),
                                               QString::fromStdString(canonicalName(run.config))});
        startWorker(lane, warmup);
        return;
    }
    startPrimingOrRun(lane, run.config);
}

void SweepRunner::startPrimingOrRun(Lane &lane, const RunConfig &config)
{
    // A shipped or again run measures what some earlier run of this configuration left. When none
    // has (no fresh run of it came first), a one-step run of it fills the again folders and saves the
    // shipped bundle first; nothing of that run is stored as steps.
    if (cacheDirs_->needsPriming(config, lane.runCaches.start)) {
        Failure failure;
        if (!cacheDirs_->preparePriming(config, lane.primingCaches, failure)) {
            finishCurrent(lane, RunStatus::Failed, failure);
            return;
        }
        lane.stage = Stage::Priming;
        lane.primingWhat = primingText(lane.runCaches.start);
        Q_EMIT sweepEvent(event::PrimingStarted{lane.runId, QString::fromStdString(canonicalName(config)),
                                                lane.runCaches.start, laneOf(lane)});
        startWorker(lane, primingConfig(config));
        return;
    }
    startWorker(lane, config);
}

RunConfig machineWarmupConfig(const RunConfig &firstRun)
{
    RunConfig c = firstRun;
    c.compile = CompileMode::None;
    c.compileBackend = CompileBackend::Inductor;
    c.compileTarget = CompileTarget::Model;
    c.warmupSteps = 0;
    c.steps = 1;
    return c;
}

bool SweepRunner::prepareCaches(Lane &lane, const PlannedRun &run)
{
    const RunConfig &config = run.config;
    QJsonObject dirs;
    Failure failure;
    if (!cacheDirs_->prepare(lane.runId, config, run.caches, lane.runCaches, failure)) {
        finishCurrent(lane, RunStatus::Failed, failure);
        return false;
    }
    QProcessEnvironment machine;
    lane.runCaches.apply(machine);
    for (const QString &variable : machine.keys())
        dirs.insert(variable, machine.value(variable));
    // Which caches the run had is part of its data (DESIGN.md: a first step names its start).
    dirs.remove("STEPSCOPE_START");
    db_.setCacheDirs(lane.runId, QJsonDocument(dirs).toJson(QJsonDocument::Compact).toStdString());
    return true;
}

void SweepRunner::startWorker(Lane &lane, const RunConfig &config)
{
    const bool exporting = lane.stage == Stage::Exporting;
    const bool python = exporting || config.runtime == Runtime::Python;
    const WorkerCommand &worker = python ? options_.python : options_.native;
    auto *w = new WorkerProcess(options_.timeoutSeconds, options_.oomCounterFiles, this);
    lane.worker = w;
    if (!exporting) // the export is no worker of the machine's warm-up order
        ++lane.workersStarted;
    QProcessEnvironment env = python ? workerEnvironment() : nativeWorkerEnvironment(options_.torch);
    // The timed run gets its own machine caches, the priming process the ones it fills; the
    // machine warm-up, the user's (it warms what no run reads now: the driver and the file cache).
    if (lane.stage == Stage::Timed)
        lane.runCaches.apply(env);
    else if (lane.stage == Stage::Priming)
        lane.primingCaches.apply(env);
    // The priming worker fills the again folders, so it compiles from nothing by design: the
    // worker's check that an again run found its graphs does not apply to it.
    if (lane.stage == Stage::Priming)
        env.insert("STEPSCOPE_PRIMING", "1");
    else
        env.remove("STEPSCOPE_PRIMING");
    if (laned()) {
        // Which lane it is, for the log and for test workers; a data-parallel run sees only its GPUs.
        env.insert("STEPSCOPE_LANE", laneLabel(lane));
        if (lane.device.cudaIndex >= 0 && config.worldSize > 1)
            env.insert("CUDA_VISIBLE_DEVICES", visibleDevices(lane));
    }
    if (lane.stage == Stage::Timed)
        lane.recorder->setMachineWarmup(lane.warmup == Warmup::Completed ? store::MachineWarmup::WarmedUp
                                        : lane.workersStarted == 1       ? store::MachineWarmup::FirstProcess
                                                                         : store::MachineWarmup::AfterOthers);
    WorkerCommand command = worker;
    if (exporting)
        command.arguments << "--export-torchscript" << lane.exportPath;
    else if (ModelExports::needed(config))
        command.arguments << "--module" << exports_.path(config);
    if (lane.stage == Stage::Timed && options_.profileSteps > 0) {
        // The timed worker profiles its last steps (issue 18.1) into a folder beside the database.
        // A CUDA worker also records one step's memory timeline there before it profiles, or the
        // allocator's state when it fails out of memory (issue 31.2).
        if (const QString trace = lane.recorder->prepareTrace(); !trace.isEmpty())
            command.arguments << "--profile-steps" << QString::number(options_.profileSteps) << "--trace" << trace
                              << "--memory-snapshot" << lane.recorder->memorySnapshotPath();
    }
    Lane *l = &lane; // lanes_ holds them by pointer: the address stays for the runner's life
    connect(w, &WorkerProcess::message, this, [this, l](const protocol::Message &m) { onMessage(*l, m); });
    connect(w, &WorkerProcess::stdoutRead, this, &SweepRunner::storeHealthy);
    connect(w, &WorkerProcess::logLine, this, [this](const QString &line) { Q_EMIT sweepEvent(event::Log{line}); });
    connect(w, &WorkerProcess::exited, this,
            [this, l](RunStatus status, std::optional<Failure> failure) { onWorkerExited(*l, status, failure); });
    connect(w, &WorkerProcess::failedToStart, this, [this, l](Failure failure) { onWorkerFailedToStart(*l, failure); });
    if (!heartbeat_.isActive()) // restarted, another lane's silent run would miss its beats
        heartbeat_.start();
    w->start(command, workerConfig(lane, config), env);
}

void SweepRunner::onMessage(Lane &lane, const protocol::Message &m)
{
    if (lane.stage == Stage::Timed) {
        lane.recorder->handle(m);
        if (lane.worker)
            lane.worker->setLastStep(lane.recorder->lastStep());
        return;
    }
    // The warm-up and priming processes: only whether they worked matters (their judgement), and
    // that they are alive; their figures are not the run's.
    if (m.type == protocol::Message::Type::Phase) {
        db_.heartbeat(lane.runId);
        // The export says its own phase ("exporting to TorchScript"); the others are named priming.
        Q_EMIT sweepEvent(event::Phase{lane.runId, QString::fromStdString(m.phase), m.seconds,
                                       lane.stage != Stage::Exporting, laneOf(lane)});
    }
}

void SweepRunner::onWorkerFailedToStart(Lane &lane, Failure failure)
{
    lane.worker->deleteLater();
    lane.worker = nullptr;
    if (lane.stage == Stage::Priming)
        failure.message = "priming " + lane.primingWhat + " failed: " + failure.message;
    if (lane.stage == Stage::Exporting) {
        exportExited(lane, RunStatus::Failed, failure);
        return;
    }
    finishCurrent(lane, RunStatus::Failed, failure);
}

void SweepRunner::exportExited(Lane &lane, RunStatus status, const std::optional<Failure> &failure)
{
    lane.stage = Stage::Timed;
    const PlannedRun &run = plan_.runs[scheduler_->runOn(lane.index)];
    if (cancelRequested_) {
        finishCurrent(lane, RunStatus::Cancelled,
                      Failure{FailureCategory::Cancelled, "stopped by the user while exporting " + run.config.model +
                                                              " to TorchScript",
                              {}});
        return;
    }
    if (status != RunStatus::Complete) {
        const Failure why = failure ? *failure : Failure{FailureCategory::ModelFailed, "the export ended without a word", {}};
        finishCurrent(lane, RunStatus::Failed, exports_.failed(run.config, why));
        return;
    }
    exports_.made(run.config, lane.exportPath);
    continueRun(lane, run);
}

void SweepRunner::primingExited(Lane &lane, RunStatus status, std::optional<Failure> failure)
{
    lane.stage = Stage::Timed;
    if (cancelRequested_) {
        finishCurrent(lane, RunStatus::Cancelled,
                      Failure{FailureCategory::Cancelled, "stopped by the user while priming " + lane.primingWhat,
                              failure ? failure->detail : std::string()});
        return;
    }
    if (status != RunStatus::Complete) {
        if (failure)
            failure->message = "priming " + lane.primingWhat + " failed: " + failure->message;
        finishCurrent(lane, status, failure);
        return;
    }
    const RunConfig &config = configOf(lane);
    cacheDirs_->finish(lane.primingCaches, config, true);
    lane.primingCaches = {};
    // What a shipped or again run finds is measured now that the priming process has filled it.
    Failure notMade;
    if (!cacheDirs_->prepare(lane.runId, config, lane.runCaches.start, lane.runCaches, notMade)) {
        finishCurrent(lane, RunStatus::Failed, notMade);
        return;
    }
    startWorker(lane, config);
}

bool SweepRunner::planAnotherRound()
{
    const SweepScheduler::Round round = scheduler_->anotherRound(std::chrono::milliseconds(sweepClock_.elapsed()));
    if (round.timeSpent) {
        Q_EMIT sweepEvent(event::AdaptiveTimeSpent{options_.adaptive.maxMinutes});
        return false;
    }
    const bool sweepHasWarm = std::any_of(plan_.runs.begin(), plan_.runs.end(),
                                          [](const PlannedRun &r) { return r.caches == store::StartState::Again; });
    for (const SweepScheduler::AddedRun &added : round.runs) {
        try {
            // Again when the sweep runs again starts: primed already, so no process is spent priming.
            queueRun(added.config, added.repeatIndex,
                     sweepHasWarm ? store::StartState::Again : store::StartState::Fresh);
        } catch (const store::StoreError &e) {
            storeFailed(e.what());
            return false;
        }
        Q_EMIT sweepEvent(event::AdaptiveRunAdded{QString::fromStdString(canonicalName(added.config)),
                                                  added.processes, added.halfWidth, options_.adaptive.halfWidth});
    }
    return !round.runs.empty();
}

bool SweepRunner::planMaxBatchRound()
{
    if (!options_.maxBatch || !flushed())
        return false;
    // The searches are read back from the store, as the reports read them: one reading of the tries.
    std::vector<MaxBatchSearch> searches;
    try {
        const auto reader = store::Reader::open(db_.path());
        if (reader)
            searches = maxBatchSearches(*reader, plan_.sweepId);
    } catch (const store::StoreError &e) {
        storeFailed(e.what());
        return false;
    }
    bool queued = false;
    for (const MaxBatchSearch &search : searches) {
        if (search.state.stop != report::MaxBatchState::Stop::Searching || search.pending)
            continue;
        // The rule never asks for a batch it has tried; were it to, a try again would loop for ever.
        if (std::any_of(search.tries.begin(), search.tries.end(),
                        [&](const report::MaxBatchTry &t) { return t.batch == search.state.nextBatch; }))
            continue;
        const RunConfig next = maxBatchTry(search.config, search.state.nextBatch);
        try {
            queueRun(next, 0, store::StartState::Fresh);
        } catch (const store::StoreError &e) {
            storeFailed(e.what());
            return false;
        }
        queued = true;
        Q_EMIT sweepEvent(event::MaxBatchTryAdded{next, QString::fromStdString(search.label), search.state.nextBatch,
                                                  QString::fromStdString(report::maxBatchSentence(search.state))});
    }
    return queued;
}

void SweepRunner::queueRun(const RunConfig &config, int repeatIndex, store::StartState start)
{
    appendRun(db_, plan_, config, repeatIndex, start);
    scheduler_->addRun(config);
}

void SweepRunner::warmupExited(Lane &lane, RunStatus status, const std::optional<Failure> &failure)
{
    lane.stage = Stage::Timed;
    lane.warmup = status == RunStatus::Complete ? Warmup::Completed : Warmup::Failed;
    if (cancelRequested_) {
        finishCurrent(lane, RunStatus::Cancelled,
                      Failure{FailureCategory::Cancelled, "stopped by the user during the machine warm-up", {}});
        return;
    }
    // Its figures are not kept, and its failure is not the run's: the run that follows says for itself.
    if (status != RunStatus::Complete && failure) {
        Q_EMIT sweepEvent(event::WarmupFailed{*failure});
    }
    startPrimingOrRun(lane, configOf(lane));
}

void SweepRunner::onWorkerExited(Lane &lane, RunStatus status, std::optional<Failure> failure)
{
    lane.worker->deleteLater();
    lane.worker = nullptr;
    switch (lane.stage) {
    case Stage::WarmingUp:
        warmupExited(lane, status, failure);
        break;
    case Stage::Priming:
        primingExited(lane, status, std::move(failure));
        break;
    case Stage::Exporting:
        exportExited(lane, status, failure);
        break;
    case Stage::Timed:
        if (failure && lane.recorder)
            lane.recorder->pointAtSnapshot(*failure);
        if (status == RunStatus::Failed && failure && lane.recorder && lane.recorder->diedProfiling() &&
            failure->category != FailureCategory::Cancelled) {
            // Every timed figure was in before the profiler started: the run is complete, its
            // profile is what failed (issue 18: a failed profile never fails the timed run).
            lane.recorder->recordProfileLoss("the worker ended while profiling: " + failure->message);
            finishCurrent(lane, RunStatus::Complete, std::nullopt);
            break;
        }
        finishCurrent(lane, status, failure);
        break;
    }
}

void SweepRunner::retireAfter(Lane &lane, const SweepScheduler::Ended &ended, const Failure &failure)
{
    // A device that has gone (cuda-unavailable on a lane whose GPU the probe saw) fails every run
    // it would get: it takes no more, the others go on, and its run is queued again for them.
    const PlannedRun run = plan_.runs[ended.run]; // a copy: queueRun below may move plan_.runs
    const QString name = QString::fromStdString(canonicalName(run.config));
    Q_EMIT sweepEvent(event::LaneRetired{lane.device.label, name, failure});
    if (!ended.requeue || cancelRequested_)
        return;
    try {
        queueRun(run.config, run.repeatIndex, run.caches);
        Q_EMIT sweepEvent(event::RunRequeued{name});
    } catch (const store::StoreError &e) {
        storeFailed(e.what());
    }
}

void SweepRunner::finishCurrent(Lane &lane, RunStatus status, const std::optional<Failure> &failure)
{
    lane.stage = Stage::Timed;
    removeRunDirs(lane); // the worker has gone: its fresh caches go too
    const RunConfig &config = configOf(lane);
    if (!lane.runCaches.dir.isEmpty()) {
        cacheDirs_->finish(lane.runCaches, config, status == RunStatus::Complete,
                           lane.recorder ? lane.recorder->bundle() : std::nullopt);
        db_.setCacheRecord(lane.runId, lane.runCaches.record);
        lane.runCaches = {};
    }
    std::vector<double> steady = lane.recorder->finish(status, failure);
    lane.recorder.reset();
    const SweepScheduler::Ended ended = scheduler_->finish(lane.index, status, failure, std::move(steady));
    const std::int64_t runId = std::exchange(lane.runId, 0);
    if (!anyBusy())
        heartbeat_.stop();
    if (ended.retired)
        retireAfter(lane, ended, *failure);
    if (!flushed()) // a finished run is on disk before anyone hears of it
        return;
    Q_EMIT sweepEvent(event::RunFinished{runId, status, failure, laneOf(lane)});
    // Queued so that a long sweep does not grow the stack, and signals of this run drain first.
    QMetaObject::invokeMethod(this, &SweepRunner::dispatch, Qt::QueuedConnection);
}

bool SweepRunner::flushed(bool wait)
{
    try {
        if (wait)
            db_.flush();
        else
            db_.check();
        return true;
    } catch (const store::StoreError &e) {
        storeFailed(e.what());
        return false;
    }
}

bool SweepRunner::storeHealthy()
{
    // Steps are queued, not flushed, as they arrive: a full disk or a database deleted under a long
    // run is learnt from the writer's last commit, without waiting for the run to end.
    return flushed(false);
}

void SweepRunner::storeFailed(const QString &message)
{
    // Measuring on without a place to keep the figures would waste the user's time: stop the
    // sweep and say why. What was committed before stays (the store never loses a commit).
    if (!running_ && !anyBusy())
        return;
    running_ = false;
    for (const auto &lane : lanes_) {
        if (lane->worker) {
            lane->worker->abort(); // reaped here, not left running past the sweep's end
            lane->worker->deleteLater();
            lane->worker = nullptr;
        }
        removeRunDirs(*lane);
    }
    if (scheduler_)
        scheduler_->freeAll();
    heartbeat_.stop();
    Q_EMIT sweepEvent(event::StorageFailed{message});
    Q_EMIT sweepEvent(event::Finished{plan_.sweepId, true});
}

} // namespace stepscope::supervisor
