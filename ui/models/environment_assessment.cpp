#include "models/environment_assessment.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <array>

namespace stepscope::ui
{
namespace
{

struct Label {
    const char *key;
    const char *label;
};

// The order in which people look for things: which GPU, which versions, then how it was run.
constexpr std::array<Label, 29> kLabels{{
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

} // namespace

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
