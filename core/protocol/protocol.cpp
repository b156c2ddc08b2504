#include "protocol/protocol.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace stepscope::protocol
{
namespace
{

QByteArray line(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n';
}

QJsonArray toArray(const std::vector<double> &v)
{
    QJsonArray a;
    for (double x : v)
        a.append(x);
    return a;
}

bool toDoubles(const QJsonValue &value, std::vector<double> &out)
{
    if (!value.isArray())
        return false;
    for (const auto &x : value.toArray()) {
        if (!x.isDouble())
            return false;
        out.push_back(x.toDouble());
    }
    return true;
}

Message invalid(std::string why)
{
    Message m;
    m.problem = std::move(why);
    return m;
}

bool finiteNonNegative(const QJsonValue &v)
{
    return v.isDouble() && std::isfinite(v.toDouble()) && v.toDouble() >= 0;
}

} // namespace

Message parseLine(const QByteArray &text)
{
    QJsonParseError error;
    const auto doc = QJsonDocument::fromJson(text.trimmed(), &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        return invalid("not a JSON object: " + text.left(120).toStdString());
    const QJsonObject o = doc.object();
    const QString type = o.value("type").toString();
    Message m;
    if (type == "hello") {
        m.type = Message::Type::Hello;
        m.protocolVersion = o.value("protocol").toInt();
        if (m.protocolVersion != kVersion)
            return invalid("protocol version " + std::to_string(m.protocolVersion) + " is not " +
                           std::to_string(kVersion) + ": worker and supervisor come from different versions");
        const QJsonObject env = o.value("env").toObject();
        for (auto it = env.begin(); it != env.end(); ++it)
            m.environment.emplace_back(it.key().toStdString(), it.value().toVariant().toString().toStdString());
        m.environmentJson = QJsonDocument(env).toJson(QJsonDocument::Compact);
    } else if (type == "model") {
        // The FLOPs are optional (a count can fail), and each is refused when it is no count.
        m.type = Message::Type::Model;
        m.model.description = o.value("description").toString().toStdString();
        if (o.contains("parameters")) {
            if (!finiteNonNegative(o.value("parameters")))
                return invalid("model: parameters must be a non-negative number");
            m.model.parameters = static_cast<std::int64_t>(o.value("parameters").toDouble());
        }
        for (const auto &[key, field] : {std::pair{"forward_flops", &ModelFacts::forwardFlops},
                                         std::pair{"training_flops", &ModelFacts::trainingFlops}}) {
            if (!o.contains(key))
                continue;
            if (!finiteNonNegative(o.value(key)))
                return invalid(std::string("model: ") + key + " must be a non-negative number");
            m.model.*field = o.value(key).toDouble();
        }
        m.model.flopsSource = flopsSourceFromString(o.value("flops_source").toString().toStdString());
        m.model.flopsProblem = o.value("flops_problem").toString().toStdString();
        if (m.model.trainingFlops && m.model.flopsSource == FlopsSource::None)
            return invalid("model: training_flops without a known flops_source");
    } else if (type == "ready" || type == "first_step") {
        const char *key = type == "ready" ? "setup_s" : "wall_s";
        if (!finiteNonNegative(o.value(key)))
            return invalid(type.toStdString() + " needs a non-negative " + key);
        m.type = type == "ready" ? Message::Type::Ready : Message::Type::FirstStep;
        m.seconds = o.value(key).toDouble();
    } else if (type == "steps" || type == "rank_steps") {
        // rank_steps: one rank's own steps of a data-parallel run; `steps` carries the slowest rank.
        m.type = type == "steps" ? Message::Type::Steps : Message::Type::RankSteps;
        if (m.type == Message::Type::RankSteps) {
            if (!o.value("rank").isDouble() || o.value("rank").toInt() < 0)
                return invalid("rank_steps needs a rank >= 0");
            m.rank = o.value("rank").toInt();
        }
        m.firstIndex = o.value("first").toInt();
        if (m.firstIndex < 1 || !toDoubles(o.value("wall_ms"), m.wallMs) || !toDoubles(o.value("gpu_ms"), m.gpuMs))
            return invalid("steps needs first >= 1 and numeric gpu_ms and wall_ms arrays");
        if (!m.gpuMs.empty() && m.gpuMs.size() != m.wallMs.size())
            return invalid("steps: gpu_ms and wall_ms differ in length");
    } else if (type == "gpu_state") {
        m.type = Message::Type::GpuState;
        const QJsonObject state = o.value("state").toObject();
        for (auto it = state.begin(); it != state.end(); ++it)
            m.environment.emplace_back(it.key().toStdString(), it.value().toVariant().toString().toStdString());
    } else if (type == "memory") {
        m.type = Message::Type::Memory;
        m.peakAllocated = static_cast<std::int64_t>(o.value("peak_allocated").toDouble());
        m.peakReserved = static_cast<std::int64_t>(o.value("peak_reserved").toDouble());
    } else if (type == "energy") {
        m.type = Message::Type::Energy;
        m.energy.problem = o.value("problem").toString().toStdString();
        for (const auto &[key, field] : {std::pair{"first_step_j", &EnergyReading::firstStepJoules},
                                         std::pair{"first_step_s", &EnergyReading::firstStepSeconds},
                                         std::pair{"block_j", &EnergyReading::blockJoules},
                                         std::pair{"block_s", &EnergyReading::blockSeconds}}) {
            if (!o.contains(key))
                continue;
            if (!finiteNonNegative(o.value(key)))
                return invalid(std::string("energy: ") + key + " must be a non-negative number");
            m.energy.*field = o.value(key).toDouble();
        }
        m.energy.blockSteps = o.value("block_steps").toInt();
        if (m.energy.blockJoules && m.energy.blockSteps < 1)
            return invalid("energy: block_j needs block_steps >= 1");
        if (!m.energy.recorded())
            return invalid("energy needs figures or a problem");
    } else if (type == "check") {
        m.type = Message::Type::Check;
        if (!toDoubles(o.value("losses"), m.losses))
            return invalid("check needs a numeric losses array");
    } else if (type == "phase") {
        // The phase names are open: a newer worker may report one this supervisor does not know.
        if (!o.value("phase").isString() || o.value("phase").toString().isEmpty() ||
            !finiteNonNegative(o.value("elapsed_s")))
            return invalid("phase needs a phase name and a non-negative elapsed_s");
        m.type = Message::Type::Phase;
        m.phase = o.value("phase").toString().toStdString();
        m.seconds = o.value("elapsed_s").toDouble();
    } else if (type == "compile") {
        if (!o.value("info").isObject())
            return invalid("compile needs an info object");
        m.type = Message::Type::Compile;
        m.compileJson = QJsonDocument(o.value("info").toObject()).toJson(QJsonDocument::Compact);
    } else if (type == "profile") {
        m.type = Message::Type::Profile;
        m.steps = o.value("steps").toInt();
        m.profileProblem = o.value("problem").toString().toStdString();
        m.tracePath = o.value("trace").toString().toStdString();
        if (m.profileProblem.empty()) {
            if (m.steps < 1 || m.tracePath.empty() || !finiteNonNegative(o.value("wall_ms")))
                return invalid("profile needs steps >= 1, a trace path and a non-negative wall_ms, or a problem");
            m.profileWallMs = o.value("wall_ms").toDouble();
            if (o.value("profiler_gflop").isDouble())
                m.profilerGflop = o.value("profiler_gflop").toDouble();
        }
    } else if (type == "memory_snapshot") {
        const auto kind = profile::snapshotKindFromString(o.value("kind").toString().toStdString());
        if (!kind)
            return invalid("memory_snapshot needs a kind, step or out-of-memory");
        m.type = Message::Type::MemorySnapshot;
        m.snapshotKind = *kind;
        m.snapshotPath = o.value("snapshot").toString().toStdString();
        m.snapshotProblem = o.value("problem").toString().toStdString();
        if (m.snapshotPath.empty() == m.snapshotProblem.empty())
            return invalid("memory_snapshot needs a snapshot path or a problem, not both");
    } else if (type == "done") {
        m.type = Message::Type::Done;
        m.steps = o.value("steps").toInt();
        m.meanWallMs = o.value("mean_wall_ms").toDouble();
    } else if (type == "error") {
        m.type = Message::Type::Error;
        const auto category = failureCategoryFromString(o.value("category").toString().toStdString());
        m.failure.category = category.value_or(FailureCategory::Internal);
        m.failure.message = o.value("message").toString().toStdString();
        m.failure.detail = o.value("detail").toString().toStdString();
        if (!category)
            m.failure.detail =
                "unknown category '" + o.value("category").toString().toStdString() + "'\n" + m.failure.detail;
    } else {
        return invalid("unknown message type '" + type.toStdString() + "'");
    }
    return m;
}

QByteArray helloLine(const std::vector<std::pair<std::string, std::string>> &environment)
{
    QJsonObject env;
    for (const auto &[k, v] : environment)
        env.insert(QString::fromStdString(k), QString::fromStdString(v));
    return line({{"type", "hello"}, {"protocol", kVersion}, {"env", env}});
}

QByteArray modelLine(const ModelFacts &facts)
{
    QJsonObject o{{"type", "model"}, {"description", QString::fromStdString(facts.description)}};
    if (facts.parameters)
        o.insert("parameters", static_cast<double>(*facts.parameters));
    if (facts.forwardFlops)
        o.insert("forward_flops", *facts.forwardFlops);
    if (facts.trainingFlops) {
        o.insert("training_flops", *facts.trainingFlops);
        const std::string_view source = toString(facts.flopsSource);
        o.insert("flops_source", QString::fromUtf8(source.data(), static_cast<qsizetype>(source.size())));
    }
    if (!facts.flopsProblem.empty())
        o.insert("flops_problem", QString::fromStdString(facts.flopsProblem));
    return line(o);
}

QByteArray energyLine(const EnergyReading &e)
{
    QJsonObject o{{"type", "energy"}};
    if (!e.problem.empty())
        o.insert("problem", QString::fromStdString(e.problem));
    for (const auto &[key, value] : {std::pair{"first_step_j", e.firstStepJoules}, std::pair{"first_step_s", e.firstStepSeconds},
                                     std::pair{"block_j", e.blockJoules}, std::pair{"block_s", e.blockSeconds}})
        if (value)
            o.insert(key, *value);
    if (e.blockJoules)
        o.insert("block_steps", e.blockSteps);
    return line(o);
}

QByteArray readyLine(double s)
{
    return line({{"type", "ready"}, {"setup_s", s}});
}
QByteArray firstStepLine(double s)
{
    return line({{"type", "first_step"}, {"wall_s", s}});
}

QByteArray stepsLine(int firstIndex, const std::vector<double> &gpuMs, const std::vector<double> &wallMs)
{
    return line({{"type", "steps"}, {"first", firstIndex}, {"gpu_ms", toArray(gpuMs)}, {"wall_ms", toArray(wallMs)}});
}

QByteArray rankStepsLine(int rank, int firstIndex, const std::vector<double> &gpuMs, const std::vector<double> &wallMs)
{
    return line({{"type", "rank_steps"},
                 {"rank", rank},
                 {"first", firstIndex},
                 {"gpu_ms", toArray(gpuMs)},
                 {"wall_ms", toArray(wallMs)}});
}

QByteArray gpuStateLine(const std::vector<std::pair<std::string, std::string>> &state)
{
    QJsonObject o;
    for (const auto &[k, v] : state)
        o.insert(QString::fromStdString(k), QString::fromStdString(v));
    return line({{"type", "gpu_state"}, {"state", o}});
}

QByteArray memoryLine(std::int64_t a, std::int64_t r)
{
    return line(
        {{"type", "memory"}, {"peak_allocated", static_cast<double>(a)}, {"peak_reserved", static_cast<double>(r)}});
}

QByteArray checkLine(const std::vector<double> &losses)
{
    return line({{"type", "check"}, {"losses", toArray(losses)}});
}

QByteArray phaseLine(const std::string &phase, double elapsedSeconds)
{
    return line({{"type", "phase"}, {"phase", QString::fromStdString(phase)}, {"elapsed_s", elapsedSeconds}});
}

QByteArray compileLine(const QByteArray &infoJson)
{
    return line({{"type", "compile"}, {"info", QJsonDocument::fromJson(infoJson).object()}});
}

QByteArray profileLine(int steps, double wallMs, const std::string &tracePath, std::optional<double> profilerGflop,
                       const std::string &problem)
{
    QJsonObject o{{"type", "profile"}, {"steps", steps}};
    if (!problem.empty()) {
        o.insert("problem", QString::fromStdString(problem));
    } else {
        o.insert("wall_ms", wallMs);
        o.insert("trace", QString::fromStdString(tracePath));
        if (profilerGflop)
            o.insert("profiler_gflop", *profilerGflop);
    }
    return line(o);
}

QByteArray memorySnapshotLine(profile::SnapshotKind kind, const std::string &snapshotPath, const std::string &problem)
{
    QJsonObject o{{"type", "memory_snapshot"}, {"kind", profile::toString(kind)}};
    if (!problem.empty())
        o.insert("problem", QString::fromStdString(problem));
    else
        o.insert("snapshot", QString::fromStdString(snapshotPath));
    return line(o);
}

QByteArray doneLine(int steps, double meanWallMs)
{
    return line({{"type", "done"}, {"steps", steps}, {"mean_wall_ms", meanWallMs}});
}

QByteArray errorLine(const Failure &f)
{
    return line({{"type", "error"},
                 {"category", QString::fromUtf8(toString(f.category).data(), int(toString(f.category).size()))},
                 {"message", QString::fromStdString(f.message)},
                 {"detail", QString::fromStdString(f.detail)}});
}

} // namespace stepscope::protocol
