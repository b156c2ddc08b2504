#include "profile/profile_summary.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <array>

namespace stepscope::profile
{
namespace
{

struct FamilyName {
    Family family;
    const char *data;
    const char *people;
};
constexpr std::array<FamilyName, kFamilyCount> kFamilies{{
    {Family::ConvGemm, "conv-gemm", "convolution/GEMM"},
    {Family::Normalization, "normalization", "normalization"},
    {Family::Elementwise, "elementwise", "elementwise/fused"},
    {Family::Optimizer, "optimizer", "optimizer"},
    {Family::Copies, "copies", "copies and layout"},
    {Family::Other, "other", "other"},
}};

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

} // namespace

const char *toString(Family f)
{
    return kFamilies[static_cast<std::size_t>(f)].data;
}

const char *displayName(Family f)
{
    return kFamilies[static_cast<std::size_t>(f)].people;
}

std::optional<Family> familyFromString(const std::string &s)
{
    for (const auto &f : kFamilies)
        if (s == f.data)
            return f.family;
    return std::nullopt;
}

const FamilyStat &ProfileSummary::family(Family f) const
{
    static const FamilyStat none;
    for (const auto &stat : families)
        if (stat.family == f)
            return stat;
    return none;
}

std::string toJson(const StoredProfile &profile)
{
    QJsonObject o;
    if (!profile.problem.empty())
        o.insert("problem", q(profile.problem));
    if (!profile.traceFile.empty())
        o.insert("trace_file", q(profile.traceFile));
    if (profile.memory)
        o.insert("memory", toJsonObject(*profile.memory));
    if (const auto &s = profile.summary) {
        QJsonObject m;
        m.insert("steps", s->steps);
        m.insert("device", q(s->device));
        m.insert("profiled_step_ms", s->profiledStepMs);
        m.insert("busy_ms", s->busyMs);
        m.insert("span_ms", s->spanMs);
        m.insert("kernels_per_step", s->kernelsPerStep);
        m.insert("launches_per_step", s->launchesPerStep);
        m.insert("launch_cpu_ms", s->launchCpuMs);
        m.insert("memcpy_ms", s->memcpyMs);
        m.insert("memset_ms", s->memsetMs);
        if (s->profilerGflop)
            m.insert("profiler_gflop", *s->profilerGflop);
        if (!s->note.empty())
            m.insert("note", q(s->note));
        QJsonArray families;
        for (const auto &f : s->families)
            families.append(QJsonObject{
                {"family", toString(f.family)}, {"count_per_step", f.countPerStep}, {"ms_per_step", f.msPerStep}});
        m.insert("families", families);
        QJsonArray kernels;
        for (const auto &k : s->kernels)
            kernels.append(QJsonObject{{"name", q(k.name)},
                                       {"family", toString(k.family)},
                                       {"count_per_step", k.countPerStep},
                                       {"ms_per_step", k.msPerStep}});
        m.insert("kernels", kernels);
        o.insert("summary", m);
    }
    return QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString();
}

std::optional<StoredProfile> profileFromJson(const std::string &json)
{
    if (json.empty())
        return std::nullopt;
    StoredProfile out;
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json), &error);
    if (!doc.isObject()) {
        out.problem = "the stored profile is not readable (" + error.errorString().toStdString() + ")";
        return out;
    }
    const QJsonObject o = doc.object();
    out.problem = o.value("problem").toString().toStdString();
    out.traceFile = o.value("trace_file").toString().toStdString();
    if (o.value("memory").isObject())
        out.memory = storedMemoryFromJson(o.value("memory").toObject());
    if (o.value("summary").isObject()) {
        const QJsonObject m = o.value("summary").toObject();
        ProfileSummary s;
        s.steps = m.value("steps").toInt();
        s.device = m.value("device").toString().toStdString();
        s.profiledStepMs = m.value("profiled_step_ms").toDouble();
        s.busyMs = m.value("busy_ms").toDouble();
        s.spanMs = m.value("span_ms").toDouble();
        s.kernelsPerStep = m.value("kernels_per_step").toDouble();
        s.launchesPerStep = m.value("launches_per_step").toDouble();
        s.launchCpuMs = m.value("launch_cpu_ms").toDouble();
        s.memcpyMs = m.value("memcpy_ms").toDouble();
        s.memsetMs = m.value("memset_ms").toDouble();
        if (m.contains("profiler_gflop"))
            s.profilerGflop = m.value("profiler_gflop").toDouble();
        s.note = m.value("note").toString().toStdString();
        for (const auto &v : m.value("families").toArray()) {
            const QJsonObject f = v.toObject();
            FamilyStat stat;
            stat.family = familyFromString(f.value("family").toString().toStdString()).value_or(Family::Other);
            stat.countPerStep = f.value("count_per_step").toDouble();
            stat.msPerStep = f.value("ms_per_step").toDouble();
            s.families.push_back(stat);
        }
        for (const auto &v : m.value("kernels").toArray()) {
            const QJsonObject k = v.toObject();
            KernelStat stat;
            stat.name = k.value("name").toString().toStdString();
            stat.family = familyFromString(k.value("family").toString().toStdString()).value_or(Family::Other);
            stat.countPerStep = k.value("count_per_step").toDouble();
            stat.msPerStep = k.value("ms_per_step").toDouble();
            s.kernels.push_back(stat);
        }
        out.summary = std::move(s);
    } else if (out.problem.empty() && !out.memory) {
        out.problem = "the stored profile holds no summary";
    }
    return out;
}

} // namespace stepscope::profile
