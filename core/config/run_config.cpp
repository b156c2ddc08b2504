#include "config/run_config.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <sstream>

namespace stepscope
{
namespace
{

// ResNet18 halves the image five times (stem conv, max-pool, three strided stages).
constexpr int kMinImageSize = 32;
constexpr int kMaxImageSize = 1024;

template <typename Enum> struct Choice {
    const char *name;
    Enum value;
};

const Choice<Runtime> kRuntimes[] = {{"native", Runtime::Native}, {"python", Runtime::Python}};
const Choice<Autocast> kAutocasts[] = {{"off", Autocast::Off}, {"bf16", Autocast::BF16}, {"fp16", Autocast::FP16}};
const Choice<Optimizer> kOptimizers[] = {
    {"per-parameter", Optimizer::PerParameter}, {"foreach", Optimizer::Foreach}, {"fused", Optimizer::Fused}};
const Choice<CompileMode> kCompileModes[] = {{"none", CompileMode::None},
                                             {"default", CompileMode::Default},
                                             {"reduce-overhead", CompileMode::ReduceOverhead},
                                             {"max-autotune", CompileMode::MaxAutotune},
                                             {"max-autotune-no-cudagraphs", CompileMode::MaxAutotuneNoCudagraphs}};
const Choice<CompileBackend> kCompileBackends[] = {{"inductor", CompileBackend::Inductor},
                                                   {"cudagraphs", CompileBackend::CudaGraphs},
                                                   {"aot_eager", CompileBackend::AotEager}};
const Choice<CompileTarget> kCompileTargets[] = {{"model", CompileTarget::Model}, {"step", CompileTarget::Step}};
const Choice<CompileCache> kCompileCaches[] = {{"cold", CompileCache::Cold}, {"warm", CompileCache::Warm}};

// "a, b, c": the allowed values of a choice, for error messages.
template <typename Enum, std::size_t N> std::string allowedOf(const Choice<Enum> (&choices)[N])
{
    std::string out;
    for (const auto &c : choices)
        out += (out.empty() ? "" : ", ") + std::string(c.name);
    return out;
}

template <typename Enum, std::size_t N> std::string nameOf(const Choice<Enum> (&choices)[N], Enum value)
{
    for (const auto &c : choices)
        if (c.value == value)
            return c.name;
    return "?";
}

template <typename Enum, std::size_t N>
bool parseChoice(const Choice<Enum> (&choices)[N], const std::string &text, Enum &out)
{
    for (const auto &c : choices)
        if (text == c.name) {
            out = c.value;
            return true;
        }
    return false;
}

bool parseBool(const std::string &text, bool &out)
{
    if (text == "true" || text == "1" || text == "on" || text == "yes") {
        out = true;
        return true;
    }
    if (text == "false" || text == "0" || text == "off" || text == "no") {
        out = false;
        return true;
    }
    return false;
}

bool parseInt(const std::string &text, long long lo, long long hi, long long &out)
{
    if (text.empty())
        return false;
    char *end = nullptr;
    errno = 0;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi)
        return false;
    out = v;
    return true;
}

bool validDevice(const std::string &d)
{
    if (d == "cpu" || d == "cuda")
        return true;
    long long idx = 0;
    return d.rfind("cuda:", 0) == 0 && parseInt(d.substr(5), 0, 63, idx);
}

// The torch.compile rules; `add(field, message)` records a violation.
template <typename Add> void validateCompile(const RunConfig &c, Add add)
{
    if (c.compile == CompileMode::None) {
        if (c.compileBackend != CompileBackend::Inductor)
            add("compile_backend", "compile_backend " + nameOf(kCompileBackends, c.compileBackend) +
                                       " applies only with a compile mode; set compile or drop compile_backend");
        if (c.compileTarget != CompileTarget::Model)
            add("compile_target", "compile_target " + nameOf(kCompileTargets, c.compileTarget) +
                                      " applies only with a compile mode; set compile or drop compile_target");
        if (c.compileCache != CompileCache::Cold)
            add("compile_cache", "compile_cache " + nameOf(kCompileCaches, c.compileCache) +
                                     " applies only with a compile mode; set compile or drop compile_cache");
        return;
    }
    const std::string mode = nameOf(kCompileModes, c.compile);
    if (c.runtime != Runtime::Python)
        add("compile", "torch.compile has no C++ training path; set runtime to python");
    if (c.cudaGraph)
        add("cuda_graph",
            "combine torch.compile with CUDA graphs through compile mode reduce-overhead, not cuda_graph");
    if (c.compileBackend == CompileBackend::CudaGraphs && !c.onCuda())
        add("compile_backend", "backend cudagraphs needs a CUDA device; use --device cuda or another backend");
    // Modes are options of inductor: another backend would ignore them silently.
    if (c.compileBackend != CompileBackend::Inductor && c.compile != CompileMode::Default)
        add("compile", "mode " + mode + " is an inductor mode; use compile default with backend " +
                           nameOf(kCompileBackends, c.compileBackend));
    if (!c.onCuda() && (c.compile == CompileMode::ReduceOverhead || c.compile == CompileMode::MaxAutotune))
        add("compile", "mode " + mode + " uses CUDA graphs; on the CPU use default or max-autotune-no-cudagraphs");
}

} // namespace

int RunConfig::cudaIndex() const
{
    const auto colon = device.find(':');
    return colon == std::string::npos ? 0 : std::atoi(device.c_str() + colon + 1);
}

bool RunConfig::operator==(const RunConfig &o) const
{
    return runtime == o.runtime && device == o.device && tf32 == o.tf32 && cudnnBenchmark == o.cudnnBenchmark &&
           autocast == o.autocast && channelsLast == o.channelsLast && cudaGraph == o.cudaGraph &&
           optimizer == o.optimizer && compile == o.compile && compileBackend == o.compileBackend &&
           compileTarget == o.compileTarget && compileCache == o.compileCache && batch == o.batch &&
           imageSize == o.imageSize && classes == o.classes && warmupSteps == o.warmupSteps && steps == o.steps &&
           seed == o.seed && cpuAffinity == o.cpuAffinity && threads == o.threads;
}

bool parseCoreList(const std::string &text, std::vector<int> &cores, std::string &error)
{
    cores.clear();
    const std::string max = std::to_string(kMaxCpuCores - 1);
    auto bad = [&](const std::string &why) {
        error = "'" + text + "' is not a core list: " + why + " (e.g. 3, 2,3 or 4-7; cores 0.." + max + ")";
        cores.clear();
        return false;
    };
    if (text.empty())
        return bad("it is empty");
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const auto comma = text.find(',', pos);
        const std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        const auto dash = item.find('-');
        long long lo = 0, hi = 0;
        if (!parseInt(item.substr(0, dash), 0, kMaxCpuCores - 1, lo))
            return bad("'" + item + "' is not a core number or range");
        hi = lo;
        if (dash != std::string::npos && !parseInt(item.substr(dash + 1), 0, kMaxCpuCores - 1, hi))
            return bad("'" + item + "' is not a core number or range");
        if (hi < lo)
            return bad("range '" + item + "' runs backwards");
        for (long long core = lo; core <= hi; ++core)
            cores.push_back(static_cast<int>(core));
        if (comma == std::string::npos)
            break;
        pos = comma + 1;
    }
    std::sort(cores.begin(), cores.end());
    cores.erase(std::unique(cores.begin(), cores.end()), cores.end());
    return true;
}

std::string formatCoreList(std::vector<int> cores)
{
    std::sort(cores.begin(), cores.end());
    cores.erase(std::unique(cores.begin(), cores.end()), cores.end());
    std::string out;
    for (std::size_t i = 0; i < cores.size();) {
        std::size_t j = i;
        while (j + 1 < cores.size() && cores[j + 1] == cores[j] + 1)
            ++j;
        out += (out.empty() ? "" : ",") + std::to_string(cores[i]);
        if (j > i)
            out += "-" + std::to_string(cores[j]);
        i = j + 1;
    }
    return out;
}

int pickOneCore(const std::vector<int> &allowed)
{
    for (int core : allowed)
        if (core != 0)
            return core;
    return allowed.empty() ? -1 : allowed.front();
}

const std::vector<FieldInfo> &fields()
{
    static const std::vector<FieldInfo> kFields = {
        {"runtime", "native|python", "which worker runs the step (torch.compile needs python)", false},
        {"device", "cpu|cuda|cuda:N", "where the step runs", false},
        {"tf32", "true|false", "TF32 matmuls and convolutions (CUDA)", true},
        {"cudnn_benchmark", "true|false", "cuDNN autotuning (CUDA)", true},
        {"autocast", "off|bf16|fp16", "mixed precision; fp16 uses dynamic loss scaling (CUDA)", false},
        {"channels_last", "true|false", "NHWC memory format for inputs and 4-D parameters", true},
        {"cuda_graph", "true|false", "capture the whole step in a CUDA graph and replay it (CUDA)", true},
        {"optimizer", "per-parameter|foreach|fused", "SGD implementation", false},
        {"compile", "none|default|reduce-overhead|max-autotune|max-autotune-no-cudagraphs",
         "torch.compile mode (python runtime); reduce-overhead and max-autotune use CUDA graphs", false},
        {"compile_backend", "inductor|cudagraphs|aot_eager",
         "torch.compile backend; cudagraphs needs CUDA, aot_eager is a debugging backend (no generated kernels)",
         false},
        {"compile_target", "model|step", "compile the model alone, or the whole training step", false},
        {"compile_cache", "cold|warm",
         "cold: fresh inductor/Triton caches per run; warm: kept caches, primed by a previous run", false},
        {"batch", "1..4096", "images per step", false},
        {"image_size", "32..1024", "square image side in pixels", false},
        {"classes", "1..100000", "output classes of the final layer", false},
        {"warmup_steps", "0..100000", "steps run before measuring", false},
        {"steps", "1..1000000", "measured steps", false},
        {"seed", "0..2^63", "seed of weights and synthetic data", false},
        {"cpu_affinity", "none|one|CORES",
         "pin the worker to CPU cores before CUDA starts: one (a core the worker picks) or a list like 2,3 or "
         "4-7; helps launch-bound steps (wall time well above GPU time), e.g. on VMs",
         false},
        {"threads", "0..256", "intra-op CPU threads (at::set_num_threads); 0 keeps the library default", false},
    };
    return kFields;
}

bool setField(RunConfig &c, const std::string &key, const std::string &value, ConfigError &error)
{
    auto fail = [&](const std::string &allowed) {
        error = {key, "'" + value + "' is not allowed for " + key + "; allowed: " + allowed};
        return false;
    };
    long long n = 0;
    if (key == "runtime")
        return parseChoice(kRuntimes, value, c.runtime) || fail("native, python");
    if (key == "device") {
        if (!validDevice(value))
            return fail("cpu, cuda, cuda:N");
        c.device = value;
        return true;
    }
    if (key == "tf32")
        return parseBool(value, c.tf32) || fail("true, false");
    if (key == "cudnn_benchmark")
        return parseBool(value, c.cudnnBenchmark) || fail("true, false");
    if (key == "autocast")
        return parseChoice(kAutocasts, value, c.autocast) || fail("off, bf16, fp16");
    if (key == "channels_last")
        return parseBool(value, c.channelsLast) || fail("true, false");
    if (key == "cuda_graph")
        return parseBool(value, c.cudaGraph) || fail("true, false");
    if (key == "optimizer")
        return parseChoice(kOptimizers, value, c.optimizer) || fail("per-parameter, foreach, fused");
    if (key == "compile")
        return parseChoice(kCompileModes, value, c.compile) || fail(allowedOf(kCompileModes));
    if (key == "compile_backend")
        return parseChoice(kCompileBackends, value, c.compileBackend) || fail(allowedOf(kCompileBackends));
    if (key == "compile_target")
        return parseChoice(kCompileTargets, value, c.compileTarget) || fail(allowedOf(kCompileTargets));
    if (key == "compile_cache")
        return parseChoice(kCompileCaches, value, c.compileCache) || fail(allowedOf(kCompileCaches));
    auto setInt = [&](int &field, long long lo, long long hi) {
        if (!parseInt(value, lo, hi, n))
            return fail("an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
        field = static_cast<int>(n);
        return true;
    };
    if (key == "batch")
        return setInt(c.batch, 1, 4096);
    if (key == "image_size")
        return setInt(c.imageSize, kMinImageSize, kMaxImageSize);
    if (key == "classes")
        return setInt(c.classes, 1, 100000);
    if (key == "warmup_steps")
        return setInt(c.warmupSteps, 0, 100000);
    if (key == "steps")
        return setInt(c.steps, 1, 1000000);
    if (key == "threads")
        return setInt(c.threads, 0, 256);
    if (key == "cpu_affinity") {
        if (value == "none" || value == "one") {
            c.cpuAffinity = value;
            return true;
        }
        std::vector<int> cores;
        std::string why;
        if (!parseCoreList(value, cores, why)) {
            error = {key, why + "; allowed: none, one or a core list"};
            return false;
        }
        c.cpuAffinity = formatCoreList(cores); // one spelling per set: "3,2" and "2-3" are the same runs
        return true;
    }
    if (key == "seed") {
        if (!parseInt(value, 0, std::numeric_limits<long long>::max(), n))
            return fail("a non-negative integer");
        c.seed = static_cast<std::uint64_t>(n);
        return true;
    }
    std::string known;
    for (const auto &f : fields())
        known += std::string(known.empty() ? "" : ", ") + f.key;
    error = {key, "unknown setting '" + key + "'; known settings: " + known};
    return false;
}

std::vector<ConfigError> validate(const RunConfig &c)
{
    std::vector<ConfigError> errors;
    auto add = [&](const char *field, std::string message) { errors.push_back({field, std::move(message)}); };
    if (!validDevice(c.device))
        add("device", "'" + c.device + "' is not a device; use cpu, cuda or cuda:N");
    if (c.batch < 1 || c.batch > 4096)
        add("batch", "batch must be from 1 to 4096 (got " + std::to_string(c.batch) + ")");
    if (c.imageSize < kMinImageSize || c.imageSize > kMaxImageSize)
        add("image_size", "image_size must be from 32 to 1024: ResNet18 halves the image five times (got " +
                              std::to_string(c.imageSize) + ")");
    // Training-mode batch norm needs more than one value per channel after the last stage. Each of
    // the five stride-2 layers rounds up (ceil(n/2)), so the last stage is ceil(image_size/32) wide.
    const int side = std::max(1, (c.imageSize + 31) / 32);
    if (c.batch >= 1 && c.batch * side * side < 2)
        add("batch", "batch 1 at image_size " + std::to_string(c.imageSize) +
                         " leaves one value per channel for batch norm; use batch >= 2 or image_size >= 33");
    if (c.classes < 1 || c.classes > 100000)
        add("classes", "classes must be from 1 to 100000");
    if (c.steps < 1)
        add("steps", "steps must be at least 1");
    if (c.warmupSteps < 0)
        add("warmup_steps", "warmup_steps must not be negative");
    if (!c.onCuda()) {
        if (c.tf32)
            add("tf32", "TF32 exists only on CUDA devices; untick it or use --device cuda");
        if (c.cudnnBenchmark)
            add("cudnn_benchmark", "cuDNN autotuning exists only on CUDA devices; untick it or use --device cuda");
        if (c.cudaGraph)
            add("cuda_graph", "CUDA graphs need a CUDA device; untick it or use --device cuda");
        if (c.autocast == Autocast::FP16)
            add("autocast", "fp16 autocast is a CUDA feature here; use bf16 on the CPU");
    }
    if (c.threads < 0 || c.threads > 256)
        add("threads", "threads must be from 0 (library default) to 256 (got " + std::to_string(c.threads) + ")");
    std::vector<int> cores;
    std::string why;
    if (c.cpuAffinity != "none" && c.cpuAffinity != "one" && !parseCoreList(c.cpuAffinity, cores, why))
        add("cpu_affinity", why + "; use none, one or a core list");
    validateCompile(c, add);
    if (c.cudaGraph && c.autocast == Autocast::FP16 && c.optimizer != Optimizer::Fused)
        add("optimizer",
            "fp16 under a CUDA graph needs optimizer fused: skipping a step on overflow must stay on the GPU");
    return errors;
}

std::string describe(const std::vector<ConfigError> &errors)
{
    std::string out;
    for (const auto &e : errors)
        out += (out.empty() ? "" : "\n") + e.field + ": " + e.message;
    return out;
}

std::vector<std::string> knobNames(const RunConfig &c)
{
    std::vector<std::string> knobs;
    if (c.tf32)
        knobs.emplace_back("tf32");
    if (c.cudnnBenchmark)
        knobs.emplace_back("cudnn-bench");
    if (c.autocast != Autocast::Off)
        knobs.push_back(toString(c.autocast));
    if (c.channelsLast)
        knobs.emplace_back("channels-last");
    // Where the ledger puts it: pinning matters once the GPU work is small enough to wait on launches.
    if (c.cpuAffinity == "one")
        knobs.emplace_back("pin-one-core");
    else if (c.cpuAffinity != "none")
        knobs.push_back("pin-" + c.cpuAffinity);
    if (c.cudaGraph)
        knobs.emplace_back("cuda-graph");
    if (c.optimizer != Optimizer::Foreach)
        knobs.push_back("sgd-" + toString(c.optimizer));
    if (c.compile != CompileMode::None) {
        knobs.push_back("compile-" + toString(c.compile));
        if (c.compileBackend != CompileBackend::Inductor)
            knobs.push_back("backend-" + toString(c.compileBackend));
        if (c.compileTarget == CompileTarget::Step)
            knobs.emplace_back("whole-step");
        if (c.compileCache == CompileCache::Warm)
            knobs.emplace_back("warm-cache");
    }
    if (c.threads > 0)
        knobs.push_back("threads-" + std::to_string(c.threads));
    return knobs;
}

std::string knobLabel(const RunConfig &c)
{
    const auto knobs = knobNames(c);
    if (knobs.empty())
        return "baseline";
    std::string out;
    for (const auto &k : knobs)
        out += (out.empty() ? "" : "+") + k;
    return out;
}

std::string canonicalName(const RunConfig &c)
{
    std::ostringstream s;
    s << toString(c.runtime) << ' ' << c.device << " b" << c.batch << ' ' << c.imageSize << "px c" << c.classes << ' '
      << knobLabel(c);
    return s.str();
}

std::string toString(Runtime r)
{
    return nameOf(kRuntimes, r);
}
std::string toString(Autocast a)
{
    return nameOf(kAutocasts, a);
}
std::string toString(Optimizer o)
{
    return nameOf(kOptimizers, o);
}
std::string toString(CompileMode m)
{
    return nameOf(kCompileModes, m);
}
std::string toString(CompileBackend b)
{
    return nameOf(kCompileBackends, b);
}
std::string toString(CompileTarget t)
{
    return nameOf(kCompileTargets, t);
}
std::string toString(CompileCache c)
{
    return nameOf(kCompileCaches, c);
}

} // namespace stepscope
