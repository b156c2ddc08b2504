#include "supervisor/run_recorder.h"

#include "platform/platform.h"
#include "report/run_summary.h"
#include "supervisor/run_memory.h"
#include "supervisor/run_profile.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QVariant>

#include <utility>

namespace stepscope::supervisor
{

RunRecorder::RunRecorder(store::Database &db, std::int64_t runId, int index, int total, int stepsInRun, LaneOf lane,
                         StoredEnvironment &stored, QObject *parent)
    : QObject(parent), db_(db), runId_(runId), index_(index), total_(total), stepsInRun_(stepsInRun),
      lane_(std::move(lane)), stored_(stored)
{
}

RunRecorder::~RunRecorder() = default;

QString RunRecorder::prepareTrace()
{
    std::string problem;
    traceScratch_ = std::make_unique<TraceScratch>(QString::fromStdString(db_.path()), problem);
    if (traceScratch_->folder().isEmpty()) {
        traceScratch_.reset();
        profile_.problem = problem;
        storeProfile();
        return {};
    }
    return traceScratch_->rawTracePath();
}

QString RunRecorder::memorySnapshotPath() const
{
    return traceScratch_ ? traceScratch_->memorySnapshotPath() : QString();
}

void RunRecorder::storeProfile()
{
    db_.setProfile(runId_, profile::toJson(profile_));
}

void RunRecorder::pointAtSnapshot(Failure &failure) const
{
    if (failure.category != FailureCategory::OutOfMemory || !profile_.memory)
        return;
    if (const std::string pointer = snapshotPointer(*profile_.memory, QString::fromStdString(db_.path()));
        !pointer.empty())
        failure.message += "; " + pointer;
}

namespace
{
std::vector<store::StepRow> stepRows(const protocol::Message &m)
{
    std::vector<store::StepRow> rows;
    rows.reserve(m.wallMs.size());
    for (std::size_t i = 0; i < m.wallMs.size(); ++i) {
        store::StepRow row;
        row.index = m.firstIndex + static_cast<std::int64_t>(i);
        row.wallMs = m.wallMs[i];
        if (!m.gpuMs.empty())
            row.gpuMs = m.gpuMs[i];
        rows.push_back(row);
    }
    return rows;
}
} // namespace

void RunRecorder::handle(const protocol::Message &m)
{
    using T = protocol::Message::Type;
    switch (m.type) {
    case T::Hello:
        helloEnvironment_ = QJsonDocument::fromJson(m.environmentJson).object();
        // Which machine-wide caches this run's first step found warm (DESIGN.md: a machine's first
        // process pays for the CUDA JIT cache and cuDNN's engines), as data of the run.
        db_.setMachineWarmup(runId_, machineWarmup_);
        recordEnvironment(helloEnvironment_);
        break;
    case T::GpuState: {
        // The state after the timed steps joins the run's environment as after_* keys.
        QJsonObject merged = helloEnvironment_;
        for (const auto &[k, v] : m.environment)
            if (k != "nvidia_driver" && k != "sm_clock_max_mhz") // fixed facts, already in hello
                merged.insert("after_" + QString::fromStdString(k), QString::fromStdString(v));
        recordEnvironment(merged);
        break;
    }
    case T::Model:
        db_.setModelFacts(runId_, m.model);
        break;
    case T::Ready:
        db_.setSetup(runId_, m.seconds);
        break;
    case T::FirstStep:
        db_.setFirstStep(runId_, m.seconds);
        Q_EMIT sweepEvent(event::FirstStep{runId_, m.seconds, lane_});
        break;
    case T::RankSteps:
        // Kept as they are; the run's own steps (the slowest rank) come in `steps`.
        db_.appendRankSteps(runId_, m.rank, stepRows(m));
        break;
    case T::Steps: {
        const std::vector<store::StepRow> rows = stepRows(m);
        db_.appendSteps(runId_, rows);
        steps_.insert(steps_.end(), rows.begin(), rows.end());
        lastStep_ = m.firstIndex + static_cast<int>(m.wallMs.size()) - 1;
        Q_EMIT stepsArrived(runId_, m.firstIndex, QVector<double>(m.gpuMs.begin(), m.gpuMs.end()),
                            QVector<double>(m.wallMs.begin(), m.wallMs.end()));
        Q_EMIT progress(index_, total_, lastStep_, stepsInRun_);
        break;
    }
    case T::Memory:
        db_.setMemory(runId_, m.peakAllocated, m.peakReserved);
        break;
    case T::Energy:
        db_.setEnergy(runId_, m.energy);
        break;
    case T::Check:
        db_.setCheckLosses(runId_, m.losses);
        checked_ = true;
        break;
    case T::Profile: {
        // Read here, in the supervisor's thread, between the run's last step and the next run.
        profile::StoredProfile stored;
        if (traceScratch_)
            stored = recordProfile(m, QString::fromStdString(db_.path()), runId_, *traceScratch_);
        else
            stored.problem = m.profileProblem.empty() ? "the worker profiled without being asked" : m.profileProblem;
        traceScratch_.reset(); // before the store is written: a disk the trace filled has room again
        stored.memory = std::move(profile_.memory);
        profile_ = std::move(stored);
        storeProfile();
        profiled_ = true;
        break;
    }
    case T::MemorySnapshot: {
        // Before the profile (the worker's order), so the scratch is still there to read it from.
        profile::StoredMemory memory;
        if (traceScratch_)
            memory = recordMemorySnapshot(m, QString::fromStdString(db_.path()), runId_, *traceScratch_);
        else
            memory.problem = m.snapshotProblem.empty() ? "the worker wrote a memory snapshot without being asked"
                                                       : m.snapshotProblem;
        memory.kind = m.snapshotKind;
        profile_.memory = std::move(memory);
        storeProfile();
        break;
    }
    case T::Phase:
        if (m.phase == "profiling" && checked_)
            profiling_ = true;
        // Minutes of compiling print no steps: the heartbeat keeps the run from looking stale.
        db_.heartbeat(runId_);
        Q_EMIT sweepEvent(event::Phase{runId_, QString::fromStdString(m.phase), m.seconds, false, lane_});
        break;
    case T::Compile:
        db_.setCompileInfo(runId_, m.compileJson.toStdString());
        if (const QJsonValue b = QJsonDocument::fromJson(m.compileJson).object().value("bundle"); b.isObject()) {
            // The worker's word on the bundle it loaded (resources/python/stepscope_py/compiled.py).
            const QJsonObject o = b.toObject();
            store::BundleUse use;
            use.path = o.value("path").toString().toStdString();
            use.bytes = static_cast<std::int64_t>(o.value("bytes").toDouble());
            use.hits = o.value("hits").toInt();
            use.misses = o.value("misses").toInt();
            use.loadSeconds = o.value("load_s").toDouble();
            use.reported = true;
            bundle_ = use;
        }
        Q_EMIT sweepEvent(event::CompileInfo{runId_, report::parseCompileRecord(QString::fromUtf8(m.compileJson))});
        break;
    case T::Done:
        if (m.meanWallMs > 0)
            db_.setBlockWall(runId_, m.meanWallMs);
        break;
    case T::Error:
    case T::Invalid:
        break; // they judge the worker's end (worker_process.h), and hold no figure of the run
    }
}

void RunRecorder::recordProfileLoss(const std::string &why)
{
    traceScratch_.reset(); // whatever the worker had written of its trace
    profile_.summary.reset();
    profile_.traceFile.clear();
    profile_.problem = why;
    storeProfile();
    profiled_ = true;
}

std::vector<double> RunRecorder::finish(RunStatus status, const std::optional<Failure> &failure)
{
    // The run's one reading (report/run_summary.h), stored with it: every view reads this summary,
    // and adaptive repeats take the steps inside its window.
    const report::StepSeries series = report::stepSeries(steps_);
    store::RunSummary summary = report::summarizeSeries(series);
    // A run that found no steady state keeps how busy the machine was as it ended: other work on
    // the cores is a cause the steps alone cannot show, and only now can it be read.
    if (summary.problem)
        if (const auto load = platform::machineLoad()) {
            summary.problem->loadAverage = load->oneMinute;
            summary.problem->cores = load->cores;
        }
    std::vector<double> steady;
    if (status == RunStatus::Complete) {
        steady = report::steadySamples(series, summary);
        db_.setSummary(runId_, summary);
    }
    db_.finishRun(runId_, status, failure);
    return steady;
}

void RunRecorder::recordEnvironment(const QJsonObject &object)
{
    const QByteArray json = QJsonDocument(object).toJson(QJsonDocument::Compact);
    store::EnvironmentRecord env;
    env.json = json.toStdString();
    auto field = [&](const char *key) { return object.value(key).toVariant().toString().toStdString(); };
    env.gpu = field("gpu");
    env.driver = object.contains("driver") ? field("driver") : field("cuda_driver_api");
    env.cuda = field("cuda_runtime");
    env.cudnn = field("cudnn");
    env.torch = field("torch");
    env.python = field("python");
    env.host = field("host");
    try {
        // Every run of a sweep often reports the same machine: keep one row for it.
        if (json != stored_.json) {
            stored_.id = db_.addEnvironment(env);
            stored_.json = json;
        }
        db_.setEnvironment(runId_, stored_.id);
    } catch (const store::StoreError &e) {
        Q_EMIT storageFailed(QString::fromUtf8(e.what()));
        return;
    }
    Q_EMIT sweepEvent(event::Environment{runId_, QString::fromUtf8(json)});
}

} // namespace stepscope::supervisor
