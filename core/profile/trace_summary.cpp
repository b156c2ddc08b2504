#include "profile/trace_summary.h"

#include "profile/kernel_family.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

namespace stepscope::profile
{
namespace
{

struct Event {
    std::string name;
    double ts = 0, dur = 0; // microseconds, as the trace has them
    qint64 tid = 0;
    double end() const { return ts + dur; }
};

struct Sorted {
    std::vector<Event> kernels, memcpys, memsets, launches, cpuOps;
};

bool isLaunch(const std::string &name)
{
    return name.find("Launch") != std::string::npos; // cudaLaunchKernel(ExC), cuLaunchKernel(Ex), cudaGraphLaunch
}

// Total length of the union of [ts, end) intervals.
double unionLength(std::vector<std::pair<double, double>> intervals)
{
    std::sort(intervals.begin(), intervals.end());
    double total = 0, begin = 0, end = -1;
    bool open = false;
    for (const auto &[b, e] : intervals) {
        if (!open || b > end) {
            if (open)
                total += end - begin;
            begin = b;
            end = e;
            open = true;
        } else {
            end = std::max(end, e);
        }
    }
    if (open)
        total += end - begin;
    return total;
}

// CPU ops with their self time (their duration less their children's, on their thread), and the
// ops no other op holds (the time inside ATen). Self time keeps a convolution's work with the
// convolution, not with the allocations it makes inside.
void selfAndTopOps(std::vector<Event> ops, std::vector<Event> &selves, std::vector<Event> &tops)
{
    std::sort(ops.begin(), ops.end(), [](const Event &a, const Event &b) {
        if (a.tid != b.tid)
            return a.tid < b.tid;
        if (a.ts != b.ts)
            return a.ts < b.ts;
        return a.dur > b.dur; // a parent that starts with its child comes first
    });
    std::vector<double> childTime(ops.size(), 0.0);
    std::vector<std::size_t> open;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        while (!open.empty() && (ops[open.back()].tid != ops[i].tid || ops[open.back()].end() <= ops[i].ts))
            open.pop_back();
        if (open.empty())
            tops.push_back(ops[i]);
        else
            childTime[open.back()] += ops[i].dur;
        open.push_back(i);
    }
    for (std::size_t i = 0; i < ops.size(); ++i) {
        Event self = ops[i];
        self.dur = std::max(0.0, ops[i].dur - childTime[i]);
        selves.push_back(std::move(self));
    }
}

void addFamilies(ProfileSummary &s, const std::vector<Event> &work, double perStep)
{
    std::map<std::string, KernelStat> byName;
    std::vector<FamilyStat> families(kFamilyCount);
    for (int f = 0; f < kFamilyCount; ++f)
        families[static_cast<std::size_t>(f)].family = static_cast<Family>(f);
    for (const Event &e : work) {
        KernelStat &k = byName[e.name];
        if (k.name.empty()) {
            k.name = e.name;
            k.family = kernelFamily(e.name);
        }
        k.countPerStep += perStep;
        k.msPerStep += e.dur / 1000.0 * perStep;
        FamilyStat &f = families[static_cast<std::size_t>(k.family)];
        f.countPerStep += perStep;
        f.msPerStep += e.dur / 1000.0 * perStep;
    }
    s.families = std::move(families);
    for (auto &[name, k] : byName)
        s.kernels.push_back(std::move(k));
    std::sort(s.kernels.begin(), s.kernels.end(), [](const KernelStat &a, const KernelStat &b) {
        return a.msPerStep != b.msPerStep ? a.msPerStep > b.msPerStep : a.name < b.name;
    });
    if (s.kernels.size() > kMaxKernels)
        s.kernels.resize(kMaxKernels);
}

} // namespace

std::optional<ProfileSummary> summarizeTrace(const QByteArray &traceJson, const TraceFacts &facts, std::string &problem)
{
    if (facts.steps <= 0) {
        problem = "no profiled steps";
        return std::nullopt;
    }
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(traceJson, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject()) {
        problem = "the trace is not JSON (" + error.errorString().toStdString() + " at byte " +
                  std::to_string(error.offset) + ")";
        return std::nullopt;
    }
    const QJsonArray events = doc.object().value("traceEvents").toArray();
    if (events.isEmpty()) {
        problem = "the trace holds no events";
        return std::nullopt;
    }

    std::optional<Event> window;
    Sorted all;
    for (const auto &value : events) {
        const QJsonObject o = value.toObject();
        if (o.value("ph").toString() != QLatin1String("X"))
            continue;
        Event e;
        e.name = o.value("name").toString().toStdString();
        e.ts = o.value("ts").toDouble();
        e.dur = o.value("dur").toDouble();
        e.tid = o.value("tid").toVariant().toLongLong();
        const QString cat = o.value("cat").toString();
        if (cat == QLatin1String("kernel"))
            all.kernels.push_back(std::move(e));
        else if (cat == QLatin1String("gpu_memcpy"))
            all.memcpys.push_back(std::move(e));
        else if (cat == QLatin1String("gpu_memset"))
            all.memsets.push_back(std::move(e));
        else if ((cat == QLatin1String("cuda_runtime") || cat == QLatin1String("cuda_driver")) && isLaunch(e.name))
            all.launches.push_back(std::move(e));
        else if (cat == QLatin1String("cpu_op"))
            all.cpuOps.push_back(std::move(e));
        else if (cat == QLatin1String("user_annotation") && e.name == kProfiledStepsAnnotation)
            window = std::move(e);
    }
    if (!window) {
        problem = std::string("the trace has no ") + kProfiledStepsAnnotation + " annotation around its steps";
        return std::nullopt;
    }
    auto inside = [&](const std::vector<Event> &list) {
        std::vector<Event> out;
        for (const Event &e : list)
            if (e.ts >= window->ts && e.ts < window->end())
                out.push_back(e);
        return out;
    };
    const double perStep = 1.0 / facts.steps;
    ProfileSummary s;
    s.steps = facts.steps;
    s.profiledStepMs = window->dur / 1000.0 * perStep;
    s.profilerGflop = facts.profilerGflop;

    const std::vector<Event> kernels = inside(all.kernels);
    const std::vector<Event> memcpys = inside(all.memcpys);
    const std::vector<Event> memsets = inside(all.memsets);
    const std::vector<Event> launches = inside(all.launches);
    if (!kernels.empty() || !memcpys.empty() || !memsets.empty()) {
        s.device = "cuda";
        std::vector<std::pair<double, double>> intervals;
        double first = window->end(), last = window->ts;
        std::vector<Event> work;
        for (const auto *list : {&kernels, &memcpys, &memsets})
            for (const Event &e : *list) {
                intervals.emplace_back(e.ts, e.end());
                first = std::min(first, e.ts);
                last = std::max(last, e.end());
                work.push_back(e);
            }
        s.busyMs = unionLength(std::move(intervals)) / 1000.0 * perStep;
        s.spanMs = std::max(0.0, last - first) / 1000.0 * perStep;
        s.kernelsPerStep = static_cast<double>(kernels.size()) * perStep;
        for (const Event &e : memcpys)
            s.memcpyMs += e.dur / 1000.0 * perStep;
        for (const Event &e : memsets)
            s.memsetMs += e.dur / 1000.0 * perStep;
        s.launchesPerStep = static_cast<double>(launches.size()) * perStep;
        for (const Event &e : launches)
            s.launchCpuMs += e.dur / 1000.0 * perStep;
        addFamilies(s, work, perStep);
        if (s.profiledStepMs > 0 && s.busyMs > s.profiledStepMs * 1.001)
            s.note = "GPU activity outlasts the profiled window: the figures are not reliable";
        return s;
    }

    // No GPU activity: a CPU run, read from its ATen ops.
    std::vector<Event> selves, tops;
    selfAndTopOps(inside(all.cpuOps), selves, tops);
    if (selves.empty()) {
        problem = "the profiled window holds neither GPU activity nor ATen ops";
        return std::nullopt;
    }
    s.device = "cpu";
    std::vector<std::pair<double, double>> intervals;
    double first = window->end(), last = window->ts;
    for (const Event &e : tops) {
        intervals.emplace_back(e.ts, e.end());
        first = std::min(first, e.ts);
        last = std::max(last, e.end());
    }
    s.busyMs = unionLength(std::move(intervals)) / 1000.0 * perStep;
    s.spanMs = std::max(0.0, last - first) / 1000.0 * perStep;
    s.kernelsPerStep = static_cast<double>(selves.size()) * perStep;
    addFamilies(s, selves, perStep);
    return s;
}

} // namespace stepscope::profile
