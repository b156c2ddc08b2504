#include "supervisor/sweep_lanes.h"

#include <QRegularExpression>

#include <algorithm>
#include <set>

namespace stepscope::supervisor
{

std::vector<FoundGpu> parseFoundGpus(const QString &probeOutput)
{
    const QStringList lines = probeOutput.split('\n', Qt::SkipEmptyParts);
    std::vector<FoundGpu> found;
    if (lines.isEmpty())
        return found;
    bool ok = false;
    const int count = lines.front().trimmed().toInt(&ok);
    if (!ok || count <= 0)
        return found;
    for (int i = 1; i < lines.size(); ++i) {
        const QStringList f = lines[i].split('\t');
        bool indexOk = false;
        const int index = f.value(0).toInt(&indexOk);
        if (f.size() < 4 || !indexOk)
            continue;
        found.push_back({index, f[1].trimmed(), f[2].trimmed(), f[3].trimmed(), f.value(4).trimmed().toLongLong()});
    }
    if (found.empty()) // an older worker: the count alone
        for (int i = 0; i < count; ++i)
            found.push_back({i, QString("GPU %1").arg(i), {}, {}, 0});
    return found;
}

std::vector<LaneDevice> parseLanes(const QString &text, const std::vector<FoundGpu> &found, QString &problem)
{
    problem.clear();
    std::vector<LaneDevice> lanes;
    const QString all = text.trimmed();
    auto gpuLane = [](const FoundGpu &g) {
        return LaneDevice{QString("cuda:%1").arg(g.index), QString("cuda:%1").arg(g.index), g.name, g.uuid, g.index};
    };
    if (all == "all") {
        if (found.empty()) {
            problem = "--devices all: no CUDA device is visible here (stepscope-cli doctor says why); use "
                      "--devices cpu:0,cpu:1 for CPU slots";
            return {};
        }
        for (const auto &g : found)
            lanes.push_back(gpuLane(g));
        return lanes;
    }
    static const QRegularExpression item("^(cuda|cpu):(\\d{1,3})$");
    std::set<QString> seen;
    bool cpu = false, gpu = false;
    for (const QString &raw : all.split(',', Qt::SkipEmptyParts)) {
        const QString name = raw.trimmed();
        const auto m = item.match(name);
        if (!m.hasMatch()) {
            problem = QString("--devices: '%1' is not a device; give cuda:N items (cuda:0,cuda:1), all, or cpu:N slots")
                          .arg(name);
            return {};
        }
        if (!seen.insert(name).second) {
            problem = QString("--devices: %1 is named twice; a device runs one timed process at a time").arg(name);
            return {};
        }
        const int n = m.captured(2).toInt();
        if (m.captured(1) == "cpu") {
            cpu = true;
            lanes.push_back({"cpu", QString("cpu slot %1").arg(n), "cpu", {}, -1});
            continue;
        }
        gpu = true;
        const auto it = std::find_if(found.begin(), found.end(), [&](const FoundGpu &g) { return g.index == n; });
        if (it == found.end()) {
            problem = QString("--devices: %1 is not here; this machine has %2 CUDA device(s)%3")
                          .arg(name)
                          .arg(found.size())
                          .arg(found.empty() ? QString() : QString(" (cuda:0 to cuda:%1)").arg(found.size() - 1));
            return {};
        }
        lanes.push_back(gpuLane(*it));
    }
    if (cpu && gpu) {
        problem = "--devices: CPU slots and GPUs in one sweep would compare a CPU step with a GPU step; name one kind";
        return {};
    }
    if (lanes.empty())
        problem = "--devices: no device named; give e.g. cuda:0,cuda:1 or all";
    return lanes;
}

std::vector<std::vector<LaneDevice>> groupByModel(const std::vector<LaneDevice> &lanes)
{
    std::vector<std::vector<LaneDevice>> groups;
    for (const auto &lane : lanes) {
        auto it =
            std::find_if(groups.begin(), groups.end(), [&](const auto &g) { return g.front().model == lane.model; });
        if (it == groups.end())
            groups.push_back({lane});
        else
            it->push_back(lane);
    }
    std::stable_sort(groups.begin(), groups.end(), [](const auto &a, const auto &b) { return a.size() > b.size(); });
    return groups;
}

QString lanesText(const std::vector<LaneDevice> &lanes)
{
    QStringList items;
    for (const auto &lane : lanes)
        items << (lane.cudaIndex >= 0 ? lane.device : QString("cpu:%1").arg(lane.label.section(' ', -1)));
    return items.join(',');
}

QString splitNote(const std::vector<std::vector<LaneDevice>> &groups)
{
    if (groups.size() < 2)
        return {};
    QStringList left;
    for (std::size_t i = 1; i < groups.size(); ++i)
        left << QString("%1 (%2)").arg(lanesText(groups[i]), groups[i].front().model);
    return QString("this host has GPUs of %1 models: the sweep runs on %2 (%3) and leaves out %4, because "
                   "the repeats of a configuration are only repeats on one model; run --devices %5 for a sweep "
                   "of its own")
        .arg(groups.size())
        .arg(lanesText(groups.front()), groups.front().front().model, left.join(", "), lanesText(groups[1]));
}

} // namespace stepscope::supervisor
