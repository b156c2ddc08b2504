#include "report/assessment_text.h"

#include "report/number_text.h"

#include <QJsonArray>

#include <array>
#include <sstream>

namespace stepscope::report
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

struct Words {
    Finding finding;
    const char *id;
    const char *assessment;
    const char *fix;
};

// The launch-bound and pinning findings' fixes depend on their figures: timingLines words them.
const Words kWords[] = {
    {Finding::None, "none", "", ""},
    {Finding::CudaUnavailable, "cuda_unavailable",
     "CUDA is not available: every figure is a CPU figure and says nothing about a GPU.",
     "Install the NVIDIA driver and a CUDA build of torch (check `nvidia-smi`), or run on a machine with a GPU."},
    {Finding::SharedCudaCache, "shared_cuda_cache",
     "The CUDA JIT cache is shared: once one process has filled it, later first steps are faster than a truly "
     "cold start.",
     "Use the fresh CUDA cache option (--fresh-cuda-cache) for truly cold first steps."},
    {Finding::EagerModuleLoading, "eager_module_loading",
     "Every CUDA kernel loads at start-up: setup takes longer and memory is higher than with the LAZY default.",
     "Unset CUDA_MODULE_LOADING (or set it to LAZY) unless eager loading is what you want to measure."},
    {Finding::LazyModuleLoading, "lazy_module_loading",
     "Kernels load on first use: their loading time falls inside the first step.",
     "Set CUDA_MODULE_LOADING=EAGER to move kernel loading into setup."},
    {Finding::FewCpuThreads, "few_cpu_threads",
     "Few CPU threads: CPU runs are slow, and CPU-side work competes with kernel launches.",
     "Unset OMP_NUM_THREADS or give the process more cores."},
    {Finding::PinnedWorker, "pinned_worker",
     "The worker was pinned to the cores below before CUDA started: launch-bound steps run steadier, CPU-bound "
     "ones get fewer cores.",
     "Compare with an unpinned run of the same configuration (cpu_affinity none)."},
    {Finding::GpuThrottled, "gpu_throttled", "The GPU was throttling: its step times are slower than the card can do.",
     "Check cooling and power limits (`nvidia-smi -q -d PERFORMANCE`), then measure again."},
    {Finding::SmClockBelowMaximum, "sm_clock_below_maximum",
     "The SM clock after the timed steps was more than 10% under its maximum: the figures are slower than the card "
     "at full clock.",
     "Check `nvidia-smi -q -d CLOCK,PERFORMANCE` for power or thermal limits and other jobs on the GPU."},
    {Finding::ClocksNotRecorded, "clocks_not_recorded",
     "Clocks and throttling were not recorded (no NVML): a throttled GPU looks like a slow configuration.",
     "Watch `nvidia-smi -q -d CLOCK,PERFORMANCE` during the sweep, or lock clocks with `nvidia-smi -lgc`."},
    {Finding::LaunchBound, "launch_bound",
     "launch-bound: the CPU limits this step. The GPU waits for kernel launches, so the figure measures the CPU "
     "(and how the scheduler moves the worker) more than the GPU.",
     "try cpu_affinity one (pin the worker to one core); fewer launches (CUDA graph, torch.compile "
     "reduce-overhead) remove the limit."},
    {Finding::PinningChangedTheSteps, "cpu_pinning",
     "Pinning the worker to fixed cores changes the steady median of launch-bound steps; GPU-bound and "
     "graph-replayed steps should not move.",
     ""},
};

const Words &wordsOf(Finding finding)
{
    for (const Words &w : kWords)
        if (w.finding == finding)
            return w;
    return kWords[0];
}

std::string ms(double v)
{
    return formatNumber("%.2f", v) + " ms";
}

std::string pinningText(const PinningPair &pair)
{
    const std::string verdict =
        pair.outcome == PinningOutcome::Faster   ? formatNumber("%.2f", pair.unpinnedMs / pair.pinnedMs) + "x faster"
        : pair.outcome == PinningOutcome::Slower ? formatNumber("%.2f", pair.pinnedMs / pair.unpinnedMs) + "x slower"
                                                 : std::string("no change");
    return knobLabel(pair.pinned) + ": " + ms(pair.pinnedMs) + " pinned vs " + ms(pair.unpinnedMs) + " unpinned (" +
           verdict + ")";
}

const char *pinningOutcomeName(PinningOutcome outcome)
{
    switch (outcome) {
    case PinningOutcome::Faster:
        return "faster";
    case PinningOutcome::Slower:
        return "slower";
    case PinningOutcome::NoChange:
        return "no change";
    }
    return "";
}

} // namespace

int factOrder(const std::string &key)
{
    for (std::size_t i = 0; i < kLabels.size(); ++i)
        if (key == kLabels[i].key)
            return static_cast<int>(i);
    return static_cast<int>(kLabels.size());
}

std::string factLabel(const std::string &key)
{
    const auto i = static_cast<std::size_t>(factOrder(key));
    return i < kLabels.size() ? kLabels[i].label : key;
}

const char *severityName(Severity severity)
{
    switch (severity) {
    case Severity::None:
        return "none";
    case Severity::Info:
        return "info";
    case Severity::Warning:
        return "warning";
    case Severity::Problem:
        return "problem";
    }
    return "none";
}

const char *findingId(Finding finding)
{
    return wordsOf(finding).id;
}

AssessmentLine lineOf(const EnvironmentFact &fact)
{
    AssessmentLine line;
    line.key = fact.key;
    line.label = factLabel(fact.key);
    line.value = fact.recorded ? fact.value : "not recorded";
    line.finding = fact.finding;
    line.severity = fact.severity;
    line.assessment = wordsOf(fact.finding).assessment;
    line.fix = wordsOf(fact.finding).fix;
    return line;
}

std::vector<AssessmentLine> timingLines(const TimingAssessment &timing)
{
    std::vector<AssessmentLine> out;
    if (const auto &bound = timing.launchBound) {
        AssessmentLine line;
        line.key = "launch_bound";
        line.label = factLabel(line.key);
        line.value = std::to_string(bound->bound) + " of " + std::to_string(bound->measured) +
                     " configurations; worst " + knobLabel(bound->worst) + ": wall " + ms(bound->wallMs) +
                     " per step vs GPU " + ms(bound->gpuMs) + " (" + formatNumber("%.2f", bound->ratio) + "x)";
        line.finding = Finding::LaunchBound;
        line.severity = Severity::Warning;
        line.assessment = wordsOf(Finding::LaunchBound).assessment;
        line.fix = bound->worst.cpuAffinity == "none"
                       ? wordsOf(Finding::LaunchBound).fix
                       : "Already pinned: fewer launches (CUDA graph, torch.compile reduce-overhead) remove the limit.";
        out.push_back(line);
    }
    if (!timing.pinning.empty()) {
        AssessmentLine line;
        line.key = "cpu_pinning";
        line.label = factLabel(line.key);
        for (const PinningPair &pair : timing.pinning)
            line.value += (line.value.empty() ? "" : "; ") + pinningText(pair);
        line.finding = Finding::PinningChangedTheSteps;
        line.severity = Severity::Info;
        line.assessment = wordsOf(Finding::PinningChangedTheSteps).assessment;
        out.push_back(line);
    }
    return out;
}

std::vector<AssessmentLine> assessmentLines(const SweepAssessment &assessment)
{
    std::vector<AssessmentLine> out;
    for (const EnvironmentFact &fact : assessment.environment)
        out.push_back(lineOf(fact));
    for (AssessmentLine &line : timingLines(assessment.timing))
        out.push_back(std::move(line));
    return out;
}

std::string assessmentMarkdown(const SweepAssessment &assessment)
{
    std::ostringstream out;
    for (const AssessmentLine &line : assessmentLines(assessment)) {
        if (line.finding == Finding::None)
            continue;
        out << "- **" << line.label << "** (" << line.value << ", " << severityName(line.severity)
            << "): " << line.assessment;
        if (!line.fix.empty())
            out << " Fix: " << line.fix;
        out << '\n';
    }
    const std::string items = out.str();
    return items.empty() ? std::string() : "\n### What may skew these numbers\n\n" + items;
}

QJsonObject assessmentJson(const SweepAssessment &assessment)
{
    const auto text = [](const std::string &s) { return QString::fromStdString(s); };
    QJsonArray findings;
    for (const AssessmentLine &line : assessmentLines(assessment)) {
        if (line.finding == Finding::None)
            continue;
        findings.append(QJsonObject{{"id", findingId(line.finding)},
                                    {"key", text(line.key)},
                                    {"severity", severityName(line.severity)},
                                    {"value", text(line.value)},
                                    {"assessment", text(line.assessment)},
                                    {"fix", text(line.fix)}});
    }
    QJsonObject root{{"findings", findings}};
    if (const auto &bound = assessment.timing.launchBound)
        root["launch_bound"] = QJsonObject{{"configurations", bound->bound},
                                           {"measured", bound->measured},
                                           {"worst", text(canonicalName(bound->worst))},
                                           {"wall_ms", bound->wallMs},
                                           {"gpu_ms", bound->gpuMs},
                                           {"ratio", bound->ratio}};
    else
        root["launch_bound"] = QJsonValue(QJsonValue::Null);
    QJsonArray pinning;
    for (const PinningPair &pair : assessment.timing.pinning)
        pinning.append(QJsonObject{{"configuration", text(canonicalName(pair.pinned))},
                                   {"pinned_ms", pair.pinnedMs},
                                   {"unpinned_ms", pair.unpinnedMs},
                                   {"outcome", pinningOutcomeName(pair.outcome)}});
    root["cpu_pinning"] = pinning;
    return root;
}

} // namespace stepscope::report
