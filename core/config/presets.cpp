#include "config/presets.h"

#include "config/model_name.h"

#include <algorithm>

namespace stepscope
{
namespace
{

const Knob kTf32{"tf32", [](RunConfig &c) { c.tf32 = true; }};
const Knob kCudnn{"cudnn-bench", [](RunConfig &c) { c.cudnnBenchmark = true; }};
const Knob kBf16{"bf16", [](RunConfig &c) { c.autocast = Autocast::BF16; }};
const Knob kFp16{"fp16", [](RunConfig &c) { c.autocast = Autocast::FP16; }};
const Knob kChannelsLast{"channels-last", [](RunConfig &c) { c.channelsLast = true; }};
// "one" and not a core number: the worker picks the core from the ones it may use (pickOneCore).
const Knob kPinOneCore{"pin-one-core", [](RunConfig &c) { c.cpuAffinity = "one"; }};
const Knob kGraph{"cuda-graph", [](RunConfig &c) { c.cudaGraph = true; }};
const Knob kFused{"sgd-fused", [](RunConfig &c) { c.optimizer = Optimizer::Fused; }};
const Knob kLoop{"sgd-per-parameter", [](RunConfig &c) { c.optimizer = Optimizer::PerParameter; }};

// torch.compile exists only in the Python worker, so a compile knob brings the runtime along.
template <CompileMode M> void compileWith(RunConfig &c)
{
    c.runtime = Runtime::Python;
    c.compile = M;
}
const Knob kCompileDefault{"compile-default", compileWith<CompileMode::Default>};
const Knob kCompileReduceOverhead{"compile-reduce-overhead", compileWith<CompileMode::ReduceOverhead>};
const Knob kCompileMaxAutotune{"compile-max-autotune", compileWith<CompileMode::MaxAutotune>};
const Knob kCompileMaxAutotuneNoGraphs{"compile-max-autotune-no-cudagraphs",
                                       compileWith<CompileMode::MaxAutotuneNoCudagraphs>};
// Modifiers of a compile mode, named as knobNames() names them; alone they are not valid.
const Knob kBackendCudaGraphs{"backend-cudagraphs",
                              [](RunConfig &c) { c.compileBackend = CompileBackend::CudaGraphs; }};
const Knob kBackendAotEager{"backend-aot_eager", [](RunConfig &c) { c.compileBackend = CompileBackend::AotEager; }};
const Knob kWholeStep{"whole-step", [](RunConfig &c) { c.compileTarget = CompileTarget::Step; }};

bool isModifier(const Knob &k)
{
    for (const Knob *m : {&kBackendCudaGraphs, &kBackendAotEager, &kWholeStep})
        if (k.name == m->name)
            return true;
    return false;
}

// Whether `each` without named knobs runs `k` alone. Modifiers do nothing alone; on CUDA,
// max-autotune covers max-autotune-no-cudagraphs, which is the CPU's variant. Pinning alone, on
// the fp32 baseline, tells little (that step waits on the GPU, or on the CPU wants every core):
// it shows on launch-bound steps, the ledger's row.
bool inDefaultEach(const Knob &k, const RunConfig &base)
{
    return !isModifier(k) && k.name != kPinOneCore.name &&
           !(base.onCuda() && k.name == kCompileMaxAutotuneNoGraphs.name);
}

// Adds `config` when valid, else records why the knob was skipped.
bool addIfValid(Sweep &sweep, const RunConfig &config, const std::string &knob)
{
    const auto errors = validate(config);
    if (errors.empty()) {
        sweep.configs.push_back(config);
        return true;
    }
    sweep.skipped.push_back(knob + " (" + errors.front().message + ")");
    return false;
}

// Names knobNames() gives for settings the sweeps carry into every row instead of adding them as a
// knob (withShapeOf): asking for them is not asking for an unknown knob.
bool isCarried(const std::string &name)
{
    for (const char *prefix : {"threads-", "mem-", "seed-", "ddp-", "bucket-"})
        if (name.rfind(prefix, 0) == 0)
            return true;
    return name == "grad-view" || name == "static-graph";
}

} // namespace

const std::vector<Knob> &ledgerKnobs()
{
    static const std::vector<Knob> k{kTf32, kCudnn, kBf16, kChannelsLast, kGraph, kFused};
    return k;
}

const std::vector<Knob> &allKnobs()
{
    static const std::vector<Knob> k{kTf32,
                                     kCudnn,
                                     kBf16,
                                     kFp16,
                                     kChannelsLast,
                                     kPinOneCore,
                                     kGraph,
                                     kLoop,
                                     kFused,
                                     kCompileDefault,
                                     kCompileReduceOverhead,
                                     kCompileMaxAutotune,
                                     kCompileMaxAutotuneNoGraphs,
                                     kBackendCudaGraphs,
                                     kBackendAotEager,
                                     kWholeStep};
    return k;
}

RunConfig withShapeOf(RunConfig knobs, const RunConfig &shape)
{
    // A compile configuration keeps the Python runtime it cannot run without.
    if (knobs.compile == CompileMode::None)
        knobs.runtime = shape.runtime;
    knobs.device = shape.device;
    knobs.model = shape.model;
    knobs.sequenceLength = shape.sequenceLength;
    knobs.batch = shape.batch;
    knobs.imageSize = shape.imageSize;
    knobs.classes = shape.classes;
    knobs.warmupSteps = shape.warmupSteps;
    knobs.steps = shape.steps;
    knobs.seed = shape.seed;
    knobs.threads = shape.threads;
    knobs.memoryLimitMib = shape.memoryLimitMib;
    knobs.worldSize = shape.worldSize;
    knobs.ddpBucketCapMb = shape.ddpBucketCapMb;
    knobs.ddpGradientAsBucketView = shape.ddpGradientAsBucketView;
    knobs.ddpStaticGraph = shape.ddpStaticGraph;
    if (knobs.worldSize > 1 || knobs.model != kDefaultModel)
        knobs.runtime = Runtime::Python; // DDP runs only there, and so do models other than the built-in one
    return knobs;
}

std::optional<RunConfig> configWithoutKnob(const RunConfig &config, const std::string &knob)
{
    // The fields a knob sets are read off the table: those its apply() changes on a default
    // configuration, so that no knob's fields are listed a second time here.
    const auto names = knobNames(config);
    const auto it = std::find_if(allKnobs().begin(), allKnobs().end(), [&](const Knob &k) { return k.name == knob; });
    if (it == allKnobs().end() || std::find(names.begin(), names.end(), knob) == names.end())
        return std::nullopt;
    const RunConfig plain;
    RunConfig probe;
    it->apply(probe);
    // The runtime stays: a compile knob brings Python along, and the row it is judged against is the
    // same Python row eager (the ledger's "python tf32+..." rows), not a native one.
    RunConfig out = config;
    for (const FieldInfo &f : fields())
        if (valueText(probe, f) != valueText(plain, f) && f.key != std::string("runtime"))
            f.set(out, f.get(plain));
    return out;
}

RunConfig baselineOf(const RunConfig &c)
{
    return withShapeOf(RunConfig{}, c);
}

Sweep cumulativeSweep(const RunConfig &base, const std::vector<std::string> &knobNames)
{
    Sweep sweep;
    RunConfig current = baselineOf(base);
    sweep.configs.push_back(current);
    // Ledger order, whatever order the names come in: the ledger reads as a story of additions.
    for (const auto &knob : allKnobs()) {
        if (std::find(knobNames.begin(), knobNames.end(), knob.name) == knobNames.end())
            continue;
        RunConfig next = current;
        knob.apply(next);
        if (addIfValid(sweep, next, knob.name))
            current = next; // cumulative: later knobs stack on the ones that applied
    }
    for (const auto &name : knobNames)
        if (!isCarried(name) &&
            std::none_of(allKnobs().begin(), allKnobs().end(), [&](const Knob &k) { return k.name == name; }))
            sweep.skipped.push_back(name + " (unknown knob)");
    return sweep;
}

std::vector<std::string> ledgerKnobNames(const RunConfig &base)
{
    std::vector<std::string> names;
    for (const auto &knob : ledgerKnobs())
        names.push_back(knob.name);
    // On a GPU, eager steps with bf16 and channels-last are often launch-bound: pinning the worker
    // to one core is a row of its own there (after channels-last, allKnobs() order), and the rows
    // after it keep the pin. A CPU step is compute-bound and wants its cores, so the CPU ledger has no pin.
    if (base.onCuda())
        names.push_back(kPinOneCore.name);
    return names;
}

static void addNativeTwin(Sweep &sweep, const RunConfig &base)
{
    // Another model's rows all run in Python (withShapeOf); "C++ against Python" is one more row
    // (issue 30.3): the native worker on the model's TorchScript export, twin of the Python row with
    // the eager knobs (the baseline on the CPU), so the pair differs by the runtime alone. A model
    // that cannot be traced makes this row "n/a" and costs the rest nothing.
    RunConfig twin = baselineOf(base);
    if (base.onCuda())
        for (const Knob *k : {&kTf32, &kCudnn, &kBf16, &kChannelsLast})
            k->apply(twin);
    twin.runtime = Runtime::Native;
    addIfValid(sweep, twin, "native (TorchScript) " + knobLabel(twin));
}

void addLedgerPythonRows(Sweep &sweep, const RunConfig &base)
{
    // A cold compile on the CPU costs minutes, so the CPU ledger has no Python rows; nor does a
    // ledger that is already Python (its rows above run there), unless it is of another model than
    // ResNet18: its rows are all Python, and the compile rows are the ones it would miss most.
    const bool otherModel = base.model != kDefaultModel;
    if (otherModel)
        addNativeTwin(sweep, base);
    if (!base.onCuda() || (base.runtime != Runtime::Native && !otherModel))
        return;
    // Python rows on the eager knobs the compile modes build on (no hand-made graph: compile's
    // reduce-overhead is the graph; foreach SGD, which torch.compile fuses itself). Unpinned:
    // inductor sizes its compile workers by the cores the process may use, so one core would
    // serialize the cold compile and overstate what compiling costs.
    RunConfig eager = baselineOf(base);
    eager.runtime = Runtime::Python;
    for (const Knob *k : {&kTf32, &kCudnn, &kBf16, &kChannelsLast})
        k->apply(eager);
    // Another model's cumulative rows hold this one already.
    if (std::find(sweep.configs.begin(), sweep.configs.end(), eager) == sweep.configs.end())
        addIfValid(sweep, eager, "python " + knobLabel(eager));
    RunConfig compiled = eager;
    for (const auto mode : {CompileMode::Default, CompileMode::ReduceOverhead}) {
        compiled.compile = mode;
        addIfValid(sweep, compiled, "python " + knobLabel(compiled));
    }
    // The fastest step within reach (issue 18.6): inductor's fused kernels (mode default, no graphs
    // of its own) inside the whole-step CUDA graph with fused SGD, so that neither launches nor
    // unfused work are left.
    RunConfig fastest = eager;
    fastest.compile = CompileMode::Default;
    fastest.cudaGraph = true;
    fastest.optimizer = Optimizer::Fused;
    addIfValid(sweep, fastest, "python " + knobLabel(fastest));
}

Sweep ledgerSweep(const RunConfig &base)
{
    Sweep sweep = cumulativeSweep(base, ledgerKnobNames(base));
    addLedgerPythonRows(sweep, base);
    return sweep;
}

Sweep eachSweep(const RunConfig &base, const std::vector<std::string> &knobNames)
{
    Sweep sweep;
    const RunConfig baseline = baselineOf(base);
    sweep.configs.push_back(baseline);
    // Names of what every row carries (the base's threads, its seed) name no knob: with only those,
    // every knob runs alone, as with none.
    const bool anyKnobNamed =
        std::any_of(knobNames.begin(), knobNames.end(), [](const std::string &name) { return !isCarried(name); });
    for (const auto &knob : allKnobs()) {
        const bool named = std::find(knobNames.begin(), knobNames.end(), knob.name) != knobNames.end();
        if (!anyKnobNamed ? !inDefaultEach(knob, base) : !named)
            continue;
        RunConfig next = baseline;
        knob.apply(next);
        // fp16 under a graph needs the fused optimizer; alone, the graph runs fp32, so no clash.
        addIfValid(sweep, next, knob.name);
    }
    return sweep;
}

Sweep combinationSweep(const RunConfig &base, const std::vector<std::string> &knobNames)
{
    Sweep sweep;
    std::vector<const Knob *> chosen;
    for (const auto &name : knobNames) {
        if (isCarried(name))
            continue;
        const auto before = chosen.size();
        for (const auto &k : allKnobs())
            if (k.name == name)
                chosen.push_back(&k);
        if (chosen.size() == before)
            sweep.skipped.push_back(name + " (unknown knob)");
    }
    const RunConfig baseline = baselineOf(base);
    for (unsigned mask = 0; mask < (1u << chosen.size()); ++mask) {
        RunConfig c = baseline;
        for (std::size_t i = 0; i < chosen.size(); ++i)
            if (mask & (1u << i))
                chosen[i]->apply(c);
        // Knobs that set the same setting (bf16 and fp16, two compile modes) overwrite each other.
        if (std::find(sweep.configs.begin(), sweep.configs.end(), c) != sweep.configs.end()) {
            sweep.skipped.push_back(knobLabel(c) + " (again: two chosen knobs set the same setting)");
            continue;
        }
        addIfValid(sweep, c, knobLabel(c));
    }
    return sweep;
}

const std::vector<std::string> &presetNames()
{
    static const std::vector<std::string> names{"ledger", "each", "combinations"};
    return names;
}

bool buildPreset(const std::string &preset, const RunConfig &base, Sweep &out, std::string &error)
{
    if (preset == "ledger")
        out = ledgerSweep(base);
    else if (preset == "each")
        out = eachSweep(base);
    else if (preset == "combinations")
        out = combinationSweep(base, {}); // no knobs of its own: the baseline alone until some are named
    else {
        error = "unknown preset '" + preset + "'; choose ledger, each or combinations";
        return false;
    }
    return true;
}

} // namespace stepscope
