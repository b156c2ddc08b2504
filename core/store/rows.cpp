// How records become row values and rows become records: times, check losses as JSON, and the
// columns a reader selects for a file of a given schema.
#include "store/store_internal.h"

#include "platform/platform.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>

#include <array>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <utility>

namespace stepscope::store
{

std::string isoUtc(std::chrono::system_clock::time_point t)
{
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
    const std::time_t secs = static_cast<std::time_t>(ms / 1000);
    const std::tm tm = platform::utcCalendar(secs);
    char buf[80];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
    return buf;
}

namespace
{

constexpr std::array<std::pair<SweepStatus, std::string_view>, 4> kSweepStatuses{{
    {SweepStatus::Running, "running"},
    {SweepStatus::Complete, "complete"},
    {SweepStatus::Cancelled, "cancelled"},
    {SweepStatus::Interrupted, "interrupted"},
}};

} // namespace

std::string_view toString(SweepStatus s)
{
    for (const auto &[status, name] : kSweepStatuses)
        if (status == s)
            return name;
    return {}; // not reached: every SweepStatus is in the table
}

std::optional<SweepStatus> sweepStatusFromString(std::string_view s)
{
    for (const auto &[status, name] : kSweepStatuses)
        if (name == s)
            return status;
    return std::nullopt;
}

std::string_view toString(MachineWarmup m)
{
    switch (m) {
    case MachineWarmup::WarmedUp:
        return "warmed-up";
    case MachineWarmup::FirstProcess:
        return "first-process";
    case MachineWarmup::AfterOthers:
        return "after-others";
    case MachineWarmup::Unrecorded:
        break;
    }
    return "";
}

std::string_view toString(Timing t)
{
    return t == Timing::Gpu ? "gpu" : t == Timing::Wall ? "wall" : "";
}

Timing timingFromString(std::string_view s)
{
    return s == "gpu" ? Timing::Gpu : s == "wall" ? Timing::Wall : Timing::Unrecorded;
}

MachineWarmup machineWarmupFromString(std::string_view s)
{
    for (const auto m : {MachineWarmup::WarmedUp, MachineWarmup::FirstProcess, MachineWarmup::AfterOthers})
        if (toString(m) == s)
            return m;
    return MachineWarmup::Unrecorded;
}

std::string_view toString(StartState s)
{
    switch (s) {
    case StartState::Fresh:
        return "fresh";
    case StartState::Shipped:
        return "shipped";
    case StartState::Again:
        return "again";
    case StartState::Unrecorded:
        break;
    }
    return "";
}

StartState startStateFromString(std::string_view s)
{
    // "cold" and "warm" are what files of schema 7 to 9 hold (docs/decisions.md "Start states").
    if (s == "fresh" || s == "cold")
        return StartState::Fresh;
    if (s == "shipped")
        return StartState::Shipped;
    if (s == "again" || s == "warm")
        return StartState::Again;
    return StartState::Unrecorded;
}

StartState startOf(const RunRecord &run)
{
    if (run.cacheRecord && run.cacheRecord->warmMissed() && run.caches != StartState::Fresh)
        return StartState::Unrecorded;
    if (!run.compileCache.empty()) {
        // An older file's compiled run. Before schema 7 its compile cache was the one state it
        // recorded: that is its start. From 7 on, one state only when both kinds of cache were in it.
        const StartState compile = run.compileCache == "warm" ? StartState::Again : StartState::Fresh;
        if (run.caches == StartState::Unrecorded)
            return compile;
        return run.caches == compile ? compile : StartState::Unrecorded;
    }
    return run.caches;
}

std::string_view toString(CacheUse::State s)
{
    return s == CacheUse::State::Primed ? "primed" : s == CacheUse::State::Shipped ? "shipped" : "fresh";
}

std::string toJson(const CacheRecord &record)
{
    QJsonArray caches;
    for (const CacheUse &c : record.caches)
        caches.append(QJsonObject{{"variable", QString::fromStdString(c.variable)},
                                  {"path", QString::fromStdString(c.path)},
                                  {"state", QString::fromUtf8(toString(c.state).data())},
                                  {"bytes_before", static_cast<double>(c.bytesBefore)},
                                  {"bytes_after", static_cast<double>(c.bytesAfter)}});
    QJsonArray missed;
    for (const std::string &m : record.missed)
        missed.append(QString::fromStdString(m));
    QJsonObject o{{"caches", caches}, {"missed", missed}};
    if (record.bundle) {
        const BundleUse &b = *record.bundle;
        o.insert("bundle", QJsonObject{{"path", QString::fromStdString(b.path)},
                                       {"bytes", static_cast<double>(b.bytes)},
                                       {"hits", b.hits},
                                       {"misses", b.misses},
                                       {"load_s", b.loadSeconds},
                                       {"reported", b.reported}});
    }
    if (record.bundleSavedBytes > 0)
        o.insert("bundle_saved_bytes", static_cast<double>(record.bundleSavedBytes));
    return QJsonDocument(o)
        .toJson(QJsonDocument::Compact)
        .toStdString();
}

std::optional<CacheRecord> cacheRecordFromJson(const std::string &json)
{
    if (json.empty())
        return std::nullopt;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json));
    if (!doc.isObject())
        return std::nullopt;
    CacheRecord r;
    for (const QJsonValue &v : doc.object().value("caches").toArray()) {
        const QJsonObject o = v.toObject();
        CacheUse c;
        c.variable = o.value("variable").toString().toStdString();
        c.path = o.value("path").toString().toStdString();
        const QString state = o.value("state").toString();
        c.state = state == "primed"    ? CacheUse::State::Primed
                  : state == "shipped" ? CacheUse::State::Shipped
                                       : CacheUse::State::Fresh;
        c.bytesBefore = static_cast<std::int64_t>(o.value("bytes_before").toDouble());
        c.bytesAfter = static_cast<std::int64_t>(o.value("bytes_after").toDouble(-1));
        r.caches.push_back(c);
    }
    for (const QJsonValue &v : doc.object().value("missed").toArray())
        r.missed.push_back(v.toString().toStdString());
    if (const QJsonValue b = doc.object().value("bundle"); b.isObject()) {
        const QJsonObject o = b.toObject();
        BundleUse u;
        u.path = o.value("path").toString().toStdString();
        u.bytes = static_cast<std::int64_t>(o.value("bytes").toDouble());
        u.hits = o.value("hits").toInt();
        u.misses = o.value("misses").toInt();
        u.loadSeconds = o.value("load_s").toDouble();
        u.reported = o.value("reported").toBool();
        r.bundle = u;
    }
    r.bundleSavedBytes = static_cast<std::int64_t>(doc.object().value("bundle_saved_bytes").toDouble());
    return r;
}

std::string nowUtc()
{
    return isoUtc(std::chrono::system_clock::now());
}

// Check losses as a JSON array, through QJson as every other JSON of the project (locale-independent:
// a GUI process runs under the user's locale, where "%g" may write a decimal comma). JSON has no NaN
// or infinity, and a diverged loss is exactly what the accuracy gate needs to see, so non-finite
// values become null and read back as NaN.
std::string lossesToJson(const std::vector<double> &losses)
{
    QJsonArray array;
    for (double loss : losses)
        array.append(std::isfinite(loss) ? QJsonValue(loss) : QJsonValue(QJsonValue::Null));
    return QJsonDocument(array).toJson(QJsonDocument::Compact).toStdString();
}

// Strict: an unreadable document or element drops the whole array rather than guessing at it.
std::vector<double> lossesFromJson(const std::string &json)
{
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json));
    if (!doc.isArray())
        return {};
    std::vector<double> out;
    for (const QJsonValue &v : doc.array()) {
        if (v.isNull())
            out.push_back(std::numeric_limits<double>::quiet_NaN());
        else if (v.isDouble())
            out.push_back(v.toDouble());
        else
            return {};
    }
    return out;
}

// Readers never migrate, so a file of an older schema is read as it is: columns it lacks read NULL.
std::string runColumns(int schemaVersion)
{
    return std::string("SELECT id, sweep_id, position, repeat_index, config_name, config_json, status, category, "
                       "message, detail, environment_id, setup_s, first_step_s, peak_allocated, peak_reserved, "
                       "check_losses, started, finished, heartbeat, "
                       "(SELECT count(*) FROM steps WHERE steps.run_id = runs.id), ") +
           (schemaVersion >= 3 ? "block_wall_ms, " : "NULL, ") +
           (schemaVersion >= 4 ? "compile_json, compile_cache, cache_dirs, " : "NULL, NULL, NULL, ") +
           (schemaVersion >= 6 ? "machine_warmup, " : STEPSCOPE_LEGACY_MACHINE_WARMUP ", ") +
           (schemaVersion >= 7 ? "caches, cache_record, " : "NULL, NULL, ") +
           (schemaVersion >= 8 ? "profile, " : "NULL, ") + (schemaVersion >= 9 ? "lane, " : "NULL, ") +
           (schemaVersion >= 10
                ? "model_description, parameters, forward_flops, training_flops, flops_source, flops_problem"
                : "NULL, NULL, NULL, NULL, NULL, NULL") +
           (schemaVersion >= 11
                ? ", energy_first_j, energy_first_s, energy_block_j, energy_block_s, energy_block_steps, energy_problem"
                : ", NULL, NULL, NULL, NULL, NULL, NULL") +
           " FROM runs ";
}

RunRecord readRun(const Statement &st)
{
    RunRecord r;
    r.id = st.int64(0);
    r.sweepId = st.int64(1);
    r.position = st.int64(2);
    r.repeatIndex = st.int64(3);
    r.configName = st.text(4);
    r.configJson = st.text(5);
    // A status or category written by a newer build still reads as something sensible.
    r.status = runStatusFromString(st.text(6)).value_or(RunStatus::Failed);
    if (!st.isNull(7))
        r.category = failureCategoryFromString(st.text(7)).value_or(FailureCategory::Internal);
    r.message = st.text(8);
    r.detail = st.text(9);
    r.environmentId = st.optInt64(10);
    r.setupSeconds = st.optReal(11);
    r.firstStepSeconds = st.optReal(12);
    r.peakAllocatedBytes = st.optInt64(13);
    r.peakReservedBytes = st.optInt64(14);
    r.checkLosses = lossesFromJson(st.text(15));
    r.started = st.text(16);
    r.finished = st.text(17);
    r.heartbeat = st.text(18);
    r.stepCount = st.int64(19);
    r.blockWallMs = st.optReal(20);
    r.compileJson = st.text(21);
    r.compileCache = st.text(22);
    r.cacheDirs = st.text(23);
    r.machineWarmup = machineWarmupFromString(st.text(24));
    r.caches = startStateFromString(st.text(25));
    r.cacheRecord = cacheRecordFromJson(st.text(26));
    r.profileJson = st.text(27);
    r.laneJson = st.text(28);
    r.model.description = st.text(29);
    r.model.parameters = st.optInt64(30);
    r.model.forwardFlops = st.optReal(31);
    r.model.trainingFlops = st.optReal(32);
    r.model.flopsSource = flopsSourceFromString(st.text(33));
    r.model.flopsProblem = st.text(34);
    r.energy.firstStepJoules = st.optReal(35);
    r.energy.firstStepSeconds = st.optReal(36);
    r.energy.blockJoules = st.optReal(37);
    r.energy.blockSeconds = st.optReal(38);
    r.energy.blockSteps = static_cast<int>(st.optInt64(39).value_or(0));
    r.energy.problem = st.text(40);
    return r;
}

// Readers never migrate: a file older than schema 5 reads without a stored baseline.
std::string sweepColumns(int schemaVersion)
{
    return std::string("SELECT id, created, name, preset, planned_steps, settings_json, status, ") +
           (schemaVersion >= 5 ? "baseline_config" : "NULL") + " FROM sweeps ";
}

SweepRecord readSweep(const Statement &st)
{
    SweepRecord s;
    s.id = st.int64(0);
    s.created = st.text(1);
    s.name = st.text(2);
    s.preset = st.text(3);
    s.plannedSteps = st.int64(4);
    s.settingsJson = st.text(5);
    s.status = sweepStatusFromString(st.text(6)).value_or(SweepStatus::Interrupted);
    s.baselineConfig = st.text(7);
    return s;
}

} // namespace stepscope::store
