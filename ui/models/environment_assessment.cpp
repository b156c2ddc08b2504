#include "models/environment_assessment.h"

#include "config/config_json.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <array>
#include <map>
#include <vector>

namespace stepscope::ui
{
namespace
{

struct Label {
    const char *key;
    const char *label;
};

// The order in which people look for things: which GPU, which versions, then how it was run.
constexpr std::array<Label, 33> kLabels{{
    {"gpu", "GPU"},
    {"gpu_cc", "Compute capability"},
    {"gpu_sms", "Multiprocessors"},
    {"gpu_memory_mib", "GPU memory (MiB)"},
    {"driver", "Driver"},
    {"cuda_driver_api", "CUDA driver API"},
    {"cuda_runtime", "CUDA runtime"},
    {"cudnn", "cuDNN"},
    {"torch", "torch"},
    {"triton", "Triton"},
    {"python", "Python"},
    {"worker", "Worker"},
    {"device", "Device"},
    {"host", "Host"},
    {"cpu", "CPU"},
    {"cpu_threads", "CPU threads"},
    {"cpu_affinity", "CPU affinity asked for"},
    {"cpu_cores", "CPU cores the worker ran on"},
    {"launch_bound", "Launch-bound steps"},
    {"cpu_pinning", "What pinning did"},
    {"cuda_module_loading", "CUDA_MODULE_LOADING"},
    {"cuda_cache_path", "CUDA_CACHE_PATH"},
    {"gpu_clocks", "GPU clocks"},
    {"after_sm_clock_mhz", "SM clock after the timed steps (MHz)"},
    {"before_sm_clock_max_mhz", "SM clock maximum (MHz)"},
    {"after_throttle_reasons", "Throttle reasons after the timed steps"},
    {"after_temperature_c", "Temperature after (°C)"},
    {"after_power_w", "Power after (W)"},
    {"after_mem_clock_mhz", "Memory clock after (MHz)"},
    {"before_sm_clock_mhz", "SM clock before the run (MHz)"},
    {"before_temperature_c", "Temperature before (°C)"},
    {"before_power_w", "Power before (W)"},
    {"before_throttle_reasons", "Throttle reasons before the run"},
}};

struct Facts {
    QJsonObject env;
    bool hasGpu() const
    {
        const QString gpu = env.value(QLatin1String("gpu")).toVariant().toString();
        return !gpu.isEmpty() && !gpu.startsWith(QLatin1String("none"));
    }
    bool hasKeyContaining(const char *part) const
    {
        const auto keys = env.keys();
        return std::any_of(keys.begin(), keys.end(),
                           [part](const QString &k) { return k.contains(QLatin1String(part)); });
    }
};

struct Rule {
    const char *key;
    // Whether the rule speaks; `value` is empty when the record lacks the key.
    bool (*applies)(const QString &value, const Facts &facts);
    Severity severity;
    const char *assessment;
    const char *fix;
};

// First matching rule per key wins.
const Rule kRules[] = {
    {"gpu", [](const QString &v, const Facts &) { return v.startsWith(QLatin1String("none")); }, Severity::Problem,
     "CUDA is not available: every figure is a CPU figure and says nothing about a GPU.",
     "Install the NVIDIA driver and a CUDA build of torch (check `nvidia-smi`), or run on a machine with a GPU."},
    {"cuda_cache_path",
     [](const QString &v, const Facts &f) { return f.hasGpu() && v.startsWith(QLatin1String("unset")); },
     Severity::Warning,
     "The CUDA JIT cache is shared: once one process has filled it, later first steps are faster than a "
     "truly cold start.",
     "Use the fresh CUDA cache option (--fresh-cuda-cache) for truly cold first steps."},
    {"cuda_module_loading",
     [](const QString &v, const Facts &f) { return f.hasGpu() && v.contains(QLatin1String("EAGER")); },
     Severity::Warning,
     "Every CUDA kernel loads at start-up: setup takes longer and memory is higher than with the LAZY default.",
     "Unset CUDA_MODULE_LOADING (or set it to LAZY) unless eager loading is what you want to measure."},
    {"cuda_module_loading", [](const QString &v, const Facts &f) { return f.hasGpu() && !v.isEmpty(); }, Severity::Info,
     "Kernels load on first use: their loading time falls inside the first step.",
     "Set CUDA_MODULE_LOADING=EAGER to move kernel loading into setup."},
    {"cpu_threads",
     [](const QString &v, const Facts &) {
         bool ok = false;
         const int n = v.toInt(&ok);
         return ok && n > 0 && n < 4;
     },
     Severity::Warning, "Few CPU threads: CPU runs are slow, and CPU-side work competes with kernel launches.",
     "Unset OMP_NUM_THREADS or give the process more cores."},
    {"cpu_affinity", [](const QString &v, const Facts &) { return !v.isEmpty() && v != QLatin1String("none"); },
     Severity::Info,
     "The worker was pinned to the cores below before CUDA started: launch-bound steps run steadier, "
     "CPU-bound ones get fewer cores.",
     "Compare with an unpinned run of the same configuration (cpu_affinity none)."},
    {"after_throttle_reasons",
     [](const QString &v, const Facts &) {
         // Idle is not a slowdown (the card waits for work), and neither is an application-clock setting.
         for (const char *slow : {"power", "thermal", "hw-slowdown", "sync-boost"})
             if (v.contains(QLatin1String(slow)))
                 return true;
         return false;
     },
     Severity::Problem, "The GPU was throttling: its step times are slower than the card can do.",
     "Check cooling and power limits (`nvidia-smi -q -d PERFORMANCE`), then measure again."},
    {"after_sm_clock_mhz",
     [](const QString &v, const Facts &f) {
         const double max = f.env.value(QLatin1String("before_sm_clock_max_mhz")).toVariant().toDouble();
         return max > 0 && v.toDouble() > 0 && v.toDouble() < 0.9 * max;
     },
     Severity::Warning,
     "The SM clock after the timed steps was more than 10% under its maximum: the figures are slower than "
     "the card at full clock.",
     "Check `nvidia-smi -q -d CLOCK,PERFORMANCE` for power or thermal limits and other jobs on the GPU."},
    {"gpu_clocks",
     [](const QString &v, const Facts &f) { return v.isEmpty() && f.hasGpu() && !f.hasKeyContaining("clock"); },
     Severity::Warning,
     "Clocks and throttling were not recorded (no NVML): a throttled GPU looks like a slow configuration.",
     "Watch `nvidia-smi -q -d CLOCK,PERFORMANCE` during the sweep, or lock clocks with `nvidia-smi -lgc`."},
};

QString tr(const char *text)
{
    return QCoreApplication::translate("EnvironmentModel", text);
}

int orderOf(const QString &key)
{
    for (std::size_t i = 0; i < kLabels.size(); ++i)
        if (key == QLatin1String(kLabels[i].key))
            return static_cast<int>(i);
    return static_cast<int>(kLabels.size());
}

QString labelOf(const QString &key)
{
    const int i = orderOf(key);
    return i < static_cast<int>(kLabels.size()) ? tr(kLabels[static_cast<std::size_t>(i)].label) : key;
}

void assess(EnvironmentEntry &entry, const QString &value, const Facts &facts)
{
    for (const Rule &rule : kRules) {
        if (entry.key != QLatin1String(rule.key) || !rule.applies(value, facts))
            continue;
        entry.assessment = tr(rule.assessment);
        entry.fix = tr(rule.fix);
        entry.severity = rule.severity;
        return;
    }
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n == 0 ? 0.0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

QString ms(double v)
{
    return QString::number(v, 'f', 2) + QStringLiteral(" ms");
}

} // namespace

QList<EnvironmentEntry> assessTiming(const QList<RunTiming> &runs)
{
    // Per configuration (repeats pooled by their medians): the figures, and the configuration
    // without its pin, which pairs a pinned run with its unpinned twin.
    struct Config {
        RunConfig config;
        std::vector<double> medians, walls;
    };
    std::map<std::string, Config> byName;
    for (const RunTiming &run : runs) {
        RunConfig c;
        std::vector<ConfigError> errors;
        if (run.steadyMedianMs <= 0 || !parseConfig(run.configJson.toUtf8(), c, errors))
            continue;
        Config &entry = byName[canonicalName(c)];
        entry.config = c;
        entry.medians.push_back(run.steadyMedianMs);
        if (run.blockWallMs > 0)
            entry.walls.push_back(run.blockWallMs);
    }

    QList<EnvironmentEntry> out;
    // Launch-bound: wall time per step well above the GPU's. Only CUDA has a GPU time to compare.
    int bound = 0, measured = 0;
    const Config *worst = nullptr;
    double worstRatio = 0;
    for (const auto &[name, entry] : byName) {
        if (!entry.config.onCuda() || entry.walls.empty())
            continue;
        ++measured;
        const double ratio = median(entry.walls) / median(entry.medians);
        if (ratio < kLaunchBoundRatio)
            continue;
        ++bound;
        if (ratio > worstRatio) {
            worstRatio = ratio;
            worst = &entry;
        }
    }
    if (worst) {
        EnvironmentEntry e;
        e.key = QStringLiteral("launch_bound");
        e.label = labelOf(e.key);
        e.value = tr("%1 of %2 configurations; worst %3: wall %4 per step vs GPU %5 (%6x)")
                      .arg(bound)
                      .arg(measured)
                      .arg(QString::fromStdString(knobLabel(worst->config)), ms(median(worst->walls)),
                           ms(median(worst->medians)), QString::number(worstRatio, 'f', 2));
        e.assessment = tr("launch-bound: the CPU limits this step. The GPU waits for kernel launches, so the "
                          "figure measures the CPU (and how the scheduler moves the worker) more than the GPU.");
        e.fix =
            worst->config.cpuAffinity == "none"
                ? tr("try cpu_affinity one (pin the worker to one core); fewer launches (CUDA graph, "
                     "torch.compile reduce-overhead) remove the limit.")
                : tr("Already pinned: fewer launches (CUDA graph, torch.compile reduce-overhead) remove the limit.");
        e.severity = Severity::Warning;
        out.append(e);
    }

    // What pinning did: each pinned configuration against its unpinned twin.
    QStringList pairs;
    for (const auto &[name, pinned] : byName) {
        if (pinned.config.cpuAffinity == "none")
            continue;
        RunConfig twin = pinned.config;
        twin.cpuAffinity = "none";
        const auto it = byName.find(canonicalName(twin));
        if (it == byName.end())
            continue;
        const double on = median(pinned.medians), off = median(it->second.medians);
        const double ratio = on / off;
        const QString verdict = ratio < 0.97   ? tr("%1x faster").arg(QString::number(off / on, 'f', 2))
                                : ratio > 1.03 ? tr("%1x slower").arg(QString::number(ratio, 'f', 2))
                                               : tr("no change");
        pairs << tr("%1: %2 pinned vs %3 unpinned (%4)")
                     .arg(QString::fromStdString(knobLabel(pinned.config)), ms(on), ms(off), verdict);
    }
    if (!pairs.isEmpty()) {
        EnvironmentEntry e;
        e.key = QStringLiteral("cpu_pinning");
        e.label = labelOf(e.key);
        e.value = pairs.join(QStringLiteral("; "));
        e.assessment = tr("Pinning the worker to fixed cores changes the steady median of launch-bound steps; "
                          "GPU-bound and graph-replayed steps should not move.");
        e.severity = Severity::Info;
        out.append(e);
    }
    return out;
}

QList<EnvironmentEntry> assessEnvironment(const QString &environmentJson)
{
    const QJsonDocument doc = QJsonDocument::fromJson(environmentJson.toUtf8());
    if (!doc.isObject())
        return {};
    Facts facts{doc.object()};

    QList<EnvironmentEntry> entries;
    for (auto it = facts.env.begin(); it != facts.env.end(); ++it) {
        EnvironmentEntry entry;
        entry.key = it.key();
        entry.label = labelOf(entry.key);
        entry.value = it.value().toVariant().toString();
        assess(entry, entry.value, facts);
        entries.append(entry);
    }
    std::stable_sort(entries.begin(), entries.end(), [](const EnvironmentEntry &a, const EnvironmentEntry &b) {
        return orderOf(a.key) < orderOf(b.key);
    });

    // Facts the record lacks can skew numbers too: a rule that speaks on an empty value adds a row.
    for (const Rule &rule : kRules) {
        const QString key = QLatin1String(rule.key);
        if (facts.env.contains(key) || !rule.applies(QString(), facts))
            continue;
        const bool listed = std::any_of(entries.begin(), entries.end(), [&](const auto &e) { return e.key == key; });
        if (listed)
            continue;
        EnvironmentEntry entry;
        entry.key = key;
        entry.label = labelOf(key);
        entry.value = tr("not recorded");
        assess(entry, QString(), facts);
        entries.append(entry);
    }
    return entries;
}

} // namespace stepscope::ui
