// THE configuration table: every field of RunConfig and every rule between fields, once.
//
// To add a knob: a member in RunConfig (run_config.h), a row in fields() below, and, if it cannot run
// with some other setting, a rule in rules(). setField, validate, toJson/fromJson, ==, the CLI's
// --flags and --help, and the Python worker (the build writes this table into
// stepscope_py/config_schema.json) follow from these rows; so does the dashboard's widget for a row
// with a `form` (shown(): its label, unit and tooltip; ui/widgets/field_widgets.h), greyed where
// rules() refuse it. What is left by hand: the knob's label (knobNames in run_config.cpp), its sweep
// knob (presets.cpp), where the panel places its widget, and what each worker does with it.
#include "config/config_table.h"

#include "config/model_name.h"
#include "config/run_config.h"

#include <algorithm>
#include <limits>
#include <type_traits>
#include <utility>

namespace stepscope
{
namespace
{

// Reads and writes one RunConfig member as a FieldValue.
struct Access {
    FieldValue (*get)(const RunConfig &);
    void (*set)(RunConfig &, const FieldValue &);
};
template <auto Member> Access number()
{
    using T = std::remove_reference_t<decltype(std::declval<RunConfig &>().*Member)>;
    return {[](const RunConfig &c) {
                return FieldValue{static_cast<long long>(c.*Member), {}};
            },
            [](RunConfig &c, const FieldValue &v) { c.*Member = static_cast<T>(v.number); }};
}
template <auto Member> Access text()
{
    return {[](const RunConfig &c) {
                return FieldValue{0, c.*Member};
            },
            [](RunConfig &c, const FieldValue &v) { c.*Member = v.text; }};
}

FieldInfo row(const char *key, FieldKind kind, Access access, const char *help)
{
    FieldInfo f;
    f.key = key;
    f.help = help;
    f.isFlag = kind == FieldKind::Flag;
    f.kind = kind;
    f.get = access.get;
    f.set = access.set;
    return f;
}
FieldInfo choice(const char *key, std::vector<std::string> names, Access access, const char *help)
{
    FieldInfo f = row(key, FieldKind::Choice, access, help);
    f.choices = std::move(names);
    return f;
}
FieldInfo flag(const char *key, Access access, const char *help)
{
    return row(key, FieldKind::Flag, access, help);
}
FieldInfo integer(const char *key, long long min, long long max, Access access, const char *help, const char *why = "")
{
    FieldInfo f = row(key, FieldKind::Integer, access, help);
    f.min = min;
    f.max = max;
    f.why = why;
    return f;
}

// `f` as a form shows it (config_table.h's FieldForm).
FieldInfo shown(FieldInfo f, FieldForm form)
{
    f.form = std::move(form);
    return f;
}

std::string joined(const std::vector<std::string> &items, const char *separator)
{
    std::string out;
    for (const auto &item : items)
        out += (out.empty() ? "" : separator) + item;
    return out;
}

// --help's "allowed" column, for the rows that do not spell it themselves.
std::vector<FieldInfo> finish(std::vector<FieldInfo> rows)
{
    for (auto &f : rows) {
        if (f.allowedText.empty()) {
            if (f.kind == FieldKind::Choice)
                f.allowedText = joined(f.choices, "|");
            else if (f.kind == FieldKind::Flag)
                f.allowedText = "true|false";
            else
                f.allowedText = std::to_string(f.min) + ".." + std::to_string(f.max);
        }
        f.allowed = f.allowedText.c_str(); // the vector is never resized again: the pointer stays valid
    }
    return rows;
}

} // namespace

const std::vector<FieldInfo> &fields()
{
    static const std::vector<FieldInfo> kFields = finish({
        shown(choice("runtime", {"native", "python"}, number<&RunConfig::runtime>(),
                     "which worker runs the step (torch.compile needs python)"),
              {"Runtime",
               "",
               "",
               "In a sweep it runs the eager configurations: compiled ones always run in Python.",
               {{"native", "native (LibTorch C++)"}, {"python", "Python (same knobs, torch.compile)"}}}),
        [] {
            FieldInfo f = row("device", FieldKind::Device, text<&RunConfig::device>(), "where the step runs");
            f.max = 63; // cuda:0 .. cuda:63
            f.allowedText = "cpu|cuda|cuda:N";
            f.form.label = "Device";
            return f;
        }(),
        [] {
            FieldInfo f = row("model", FieldKind::Model, text<&RunConfig::model>(),
                              "what is trained: resnet18 (built in), torchvision:NAME, timm:NAME, hf:NAME (a "
                              "transformers architecture, random weights) or your factory module.path:factory; "
                              "options follow as ,key=value");
            f.allowedText = "resnet18|torchvision:NAME|timm:NAME|hf:NAME|module:factory";
            f.form = {"Model", "", "",
                      "A factory may be a file too, /path/file.py:factory; options as in "
                      "timm:vit_tiny_patch16_224,img_size=64.\nAny model other than resnet18 runs in the Python "
                      "worker."};
            return f;
        }(),
        // The knobs, in ledger order.
        shown(flag("tf32", number<&RunConfig::tf32>(), "TF32 matmuls and convolutions (CUDA)"),
              {"TF32 matmuls and convolutions", "", "",
               "TensorFloat-32 on Ampere and newer GPUs: about 2x on fp32 convolutions, with a 10-bit mantissa inside "
               "the multiply (the accuracy gate checks the losses). No first-step cost."}),
        shown(flag("cudnn_benchmark", number<&RunConfig::cudnnBenchmark>(), "cuDNN autotuning (CUDA)"),
              {"cuDNN autotuning (benchmark)", "", "",
               "cudnn.benchmark: cuDNN times its algorithms for each new shape and keeps the fastest. It costs seconds "
               "in the first step (more on a machine's first process) and pays off when shapes stay fixed."}),
        // The form's checkbox is "off"; the box beside it offers the precisions.
        shown(choice("autocast", {"off", "bf16", "fp16"}, number<&RunConfig::autocast>(),
                     "mixed precision; fp16 uses dynamic loss scaling (CUDA)"),
              {"Autocast",
               "",
               "",
               "Matmuls and convolutions in 16 bits; bf16 needs no loss scaling. Helps a GPU-bound step; a "
               "launch-bound step (small batch) may not move.",
               {{"bf16", "bf16"}, {"fp16", "fp16"}}}),
        shown(flag("channels_last", number<&RunConfig::channelsLast>(),
                   "NHWC memory format for inputs and 4-D parameters"),
              {"channels_last memory format", "", "",
               "Tensor cores want it, so it mostly pays together with autocast. Costs a layout change in the first "
               "step."}),
        shown(flag("cuda_graph", number<&RunConfig::cudaGraph>(),
                   "capture the whole step in a CUDA graph and replay it (CUDA)"),
              {"CUDA graph of the whole step", "", "",
               "Forward, backward and optimizer: the CPU launches one graph instead of hundreds of kernels. Large "
               "gains on launch-bound steps; capture costs time in the first step, and shapes must stay fixed."}),
        // PyTorch's default first in the form: per-parameter is there to compare with.
        shown(choice("optimizer", {"per-parameter", "foreach", "fused"}, number<&RunConfig::optimizer>(),
                     "SGD implementation"),
              {"SGD",
               "",
               "",
               "foreach: a few multi-tensor kernels per step (PyTorch's default). fused: "
               "one kernel per step; it helps launch-bound steps and costs nothing. per-parameter: one small kernel "
               "per weight, the slow path, to see what the others save.\nIn a ledger, fused is the last row; "
               "per-parameter runs alone vs the baseline.",
               {{"foreach", "foreach (PyTorch's default)"},
                {"fused", "fused"},
                {"per-parameter", "per-parameter loop (for comparison)"}}}),
        shown(choice("compile", {"none", "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"},
                     number<&RunConfig::compile>(),
                     "torch.compile mode (python runtime); reduce-overhead and max-autotune use CUDA graphs"),
              {"Mode"}),
        shown(choice("compile_backend", {"inductor", "cudagraphs", "aot_eager"}, number<&RunConfig::compileBackend>(),
                     "torch.compile backend; cudagraphs needs CUDA, aot_eager is a debugging backend (no generated "
                     "kernels)"),
              {"Backend",
               "",
               "",
               "",
               {{"inductor", "inductor"}, {"cudagraphs", "cudagraphs"}, {"aot_eager", "aot_eager (debugging backend)"}}}),
        shown(choice("compile_target", {"model", "step"}, number<&RunConfig::compileTarget>(),
                     "compile the model alone, or the whole training step"),
              {"Target", "", "", "", {{"model", "model"}, {"step", "whole step (model, loss, optimizer)"}}}),
        // The shape of the run.
        shown(integer("batch", 1, 4096, number<&RunConfig::batch>(), "images per step"), {"Batch"}),
        shown(integer("image_size", 32, 1024, number<&RunConfig::imageSize>(), "square image side in pixels",
                      "ResNet18 halves the image five times"),
              {"Image size", " px"}),
        shown(integer("sequence_length", 1, 1 << 20, number<&RunConfig::sequenceLength>(),
                      "tokens per sample for a model that takes token ids (hf: language models)"),
              {"Sequence length", " tokens"}),
        integer("classes", 1, 100000, number<&RunConfig::classes>(), "output classes of the final layer"),
        shown(integer("warmup_steps", 0, 100000, number<&RunConfig::warmupSteps>(), "steps run before measuring"),
              {"Warm-up steps"}),
        shown(integer("steps", 1, 1000000, number<&RunConfig::steps>(), "measured steps"), {"Measured steps"}),
        integer("seed", 0, std::numeric_limits<long long>::max(), number<&RunConfig::seed>(),
                "seed of weights and synthetic data"),
        [] {
            FieldInfo f = row("cpu_affinity", FieldKind::CoreList, text<&RunConfig::cpuAffinity>(),
                              "pin the worker to CPU cores before CUDA starts: one (a core the worker picks) or a "
                              "list like 2,3 or 4-7; helps launch-bound steps (wall time well above GPU time), "
                              "e.g. on VMs");
            f.choices = {"none", "one"};
            f.max = kMaxCpuCores - 1;
            f.allowedText = "none|one|CORES";
            f.form = {"CPU affinity",
                      "",
                      "",
                      "An eager GPU step that waits on kernel launches (common on VMs whose vCPUs move between host "
                      "cores) can get faster and steadier on one core; GPU-bound and graph-replayed steps do not "
                      "move, and a CPU step wants its cores.\nOne core: the first core the worker may use other than "
                      "core 0. The pin is a knob: in a ledger it is a row after channels_last, Each runs it alone, "
                      "Combinations combines it; a core list stands in for one core.",
                      {{"none", "none (the scheduler's choice)"}, {"one", "one core"}, {"list", "cores:"}}};
            return f;
        }(),
        shown(integer("threads", 0, 256, number<&RunConfig::threads>(),
                      "intra-op CPU threads (at::set_num_threads); 0 keeps the library default"),
              {"CPU threads", "", "library default",
               "Every configuration of the sweep runs with it (torch.set_num_threads in Python). More threads rarely "
               "help a launch-bound GPU step: pinning does."}),
        // A smaller device than the one at hand ("will it fit on a 40 GB card"), and what makes the
        // max-batch search (issue 31.3) testable on the CPU. 16 TiB is more than any device has.
        shown(integer("memory_limit_mib", 0, 1 << 24, number<&RunConfig::memoryLimitMib>(),
                      "memory the worker may use in MiB (0: the device's own): on CUDA the caching allocator's cap; "
                      "on the CPU the worker's peak resident memory, checked after the first and the last step; "
                      "past it the run fails out-of-memory"),
              {"Memory limit", " MiB", "the device's own",
               "Will it fit on a smaller card? The largest batch search on the CPU needs it."}),
        integer("world_size", 1, 64, number<&RunConfig::worldSize>(),
                "data-parallel ranks: DistributedDataParallel over this many processes (python runtime), "
                "one GPU each (gloo on the CPU); 1 is a plain step"),
        integer("ddp_bucket_cap_mb", 1, 1024, number<&RunConfig::ddpBucketCapMb>(),
                "DDP's gradient bucket size in MB (world_size > 1)"),
        flag("ddp_gradient_as_bucket_view", number<&RunConfig::ddpGradientAsBucketView>(),
             "DDP: gradients are views into the all-reduce buckets (no copy; world_size > 1)"),
        flag("ddp_static_graph", number<&RunConfig::ddpStaticGraph>(),
             "DDP: the graph is the same every step (needed around a captured CUDA graph; world_size > 1)"),
    });
    return kFields;
}

namespace
{
FieldCondition is(const char *field, std::vector<std::string> values)
{
    return {field, false, std::move(values)};
}
FieldCondition isNot(const char *field, std::vector<std::string> values)
{
    return {field, true, std::move(values)};
}
} // namespace

const std::vector<FieldRule> &rules()
{
    // A valid device is cpu or cuda[:N], so "device is cpu" reads "not on CUDA".
    static const std::vector<FieldRule> kRules = {
        {"tf32",
         {is("device", {"cpu"}), is("tf32", {"true"})},
         "TF32 exists only on CUDA devices; untick it or use --device cuda"},
        {"cudnn_benchmark",
         {is("device", {"cpu"}), is("cudnn_benchmark", {"true"})},
         "cuDNN autotuning exists only on CUDA devices; untick it or use --device cuda"},
        {"cuda_graph",
         {is("device", {"cpu"}), is("cuda_graph", {"true"})},
         "CUDA graphs need a CUDA device; untick it or use --device cuda"},
        {"autocast",
         {is("device", {"cpu"}), is("autocast", {"fp16"})},
         "fp16 autocast is a CUDA feature here; use bf16 on the CPU"},
        // Training-mode batch norm needs more than one value per channel after the last stage. The
        // five stride-2 layers each round up, so the last stage is ceil(image_size/32) wide: 1x1 only
        // at 32 px, the smallest image_size allowed.
        {"batch",
         {is("batch", {"1"}), is("image_size", {"32"})},
         "batch 1 at image_size {image_size} leaves one value per channel for batch norm; use batch >= 2 or "
         "image_size >= 33"},

        // Another model than the built-in ResNet18 runs natively from a TorchScript trace the Python
        // worker makes (issue 30.3, sweep_runner's export stage): no rule here, a trace that fails is
        // said by that run.
        {"sequence_length",
         {is("model", {"resnet18"}), isNot("sequence_length", {"128"})},
         "sequence_length applies to a model that takes token ids; resnet18 takes images (image_size)"},

        // torch.compile. Its backend, target and cache mean nothing without a mode.
        {"compile_backend",
         {is("compile", {"none"}), isNot("compile_backend", {"inductor"})},
         "compile_backend {compile_backend} applies only with a compile mode; set compile or drop compile_backend"},
        {"compile_target",
         {is("compile", {"none"}), isNot("compile_target", {"model"})},
         "compile_target {compile_target} applies only with a compile mode; set compile or drop compile_target"},
        {"compile",
         {isNot("compile", {"none"}), isNot("runtime", {"python"})},
         "torch.compile has no C++ training path; set runtime to python"},
        // Inductor's kernels inside Stepscope's whole-step graph (issue 18.6) need a mode that
        // captures no graphs of its own, and the model compiled: a compiled whole step breaks its
        // graph at the optimizer, which a capture cannot hold.
        {"cuda_graph",
         {is("compile", {"reduce-overhead", "max-autotune"}), is("cuda_graph", {"true"})},
         "compile mode {compile} captures CUDA graphs of its own; under cuda_graph use compile default or "
         "max-autotune-no-cudagraphs"},
        {"cuda_graph",
         {isNot("compile", {"none"}), is("compile_target", {"step"}), is("cuda_graph", {"true"})},
         "cuda_graph captures the whole step around a compiled model; use compile_target model"},
        {"cuda_graph",
         {isNot("compile", {"none"}), is("compile_backend", {"cudagraphs"}), is("cuda_graph", {"true"})},
         "backend cudagraphs captures graphs of its own; under cuda_graph use backend inductor"},
        {"compile_backend",
         {isNot("compile", {"none"}), is("compile_backend", {"cudagraphs"}), is("device", {"cpu"})},
         "backend cudagraphs needs a CUDA device; use --device cuda or another backend"},
        // Modes are options of inductor: another backend would ignore them silently.
        {"compile",
         {isNot("compile", {"none", "default"}), isNot("compile_backend", {"inductor"})},
         "mode {compile} is an inductor mode; use compile default with backend {compile_backend}"},
        {"compile",
         {is("compile", {"reduce-overhead", "max-autotune"}), is("device", {"cpu"})},
         "mode {compile} uses CUDA graphs; on the CPU use default or max-autotune-no-cudagraphs"},

        // Data-parallel steps (issue 21): DDP lives in the Python worker, which launches the ranks.
        {"world_size",
         {isNot("world_size", {"1"}), isNot("runtime", {"python"})},
         "DistributedDataParallel (world_size {world_size}) runs in the Python worker; set runtime python"},
        {"world_size",
         {isNot("world_size", {"1"}), isNot("device", {"cpu", "cuda"})},
         "under world_size {world_size} the ranks take one GPU each, cuda:0 onwards (or the sweep's devices); "
         "use device cuda"},
        {"cpu_affinity",
         {isNot("world_size", {"1"}), isNot("cpu_affinity", {"none"})},
         "under world_size {world_size} every rank would pin itself to the same cores; leave cpu_affinity none"},
        {"ddp_bucket_cap_mb",
         {is("world_size", {"1"}), isNot("ddp_bucket_cap_mb", {"25"})},
         "ddp_bucket_cap_mb applies only to a data-parallel step; set world_size 2 or more, or drop it"},
        {"ddp_gradient_as_bucket_view",
         {is("world_size", {"1"}), is("ddp_gradient_as_bucket_view", {"true"})},
         "ddp_gradient_as_bucket_view applies only to a data-parallel step; set world_size 2 or more"},
        {"ddp_static_graph",
         {is("world_size", {"1"}), is("ddp_static_graph", {"true"})},
         "ddp_static_graph applies only to a data-parallel step; set world_size 2 or more"},

        {"optimizer",
         {is("cuda_graph", {"true"}), is("autocast", {"fp16"}), isNot("optimizer", {"fused"})},
         "fp16 under a CUDA graph needs optimizer fused: skipping a step on overflow must stay on the GPU"},
    };
    return kRules;
}

const FieldInfo *findField(const std::string &key)
{
    const auto &all = fields();
    const auto it = std::find_if(all.begin(), all.end(), [&](const FieldInfo &f) { return key == f.key; });
    return it == all.end() ? nullptr : &*it;
}

std::string valueText(const RunConfig &config, const FieldInfo &field)
{
    const FieldValue v = field.get(config);
    switch (field.kind) {
    case FieldKind::Choice:
        return v.number >= 0 && v.number < static_cast<long long>(field.choices.size())
                   ? field.choices[static_cast<std::size_t>(v.number)]
                   : "?";
    case FieldKind::Flag:
        return v.number ? "true" : "false";
    case FieldKind::Integer:
        return std::to_string(v.number);
    case FieldKind::Device:
    case FieldKind::CoreList:
    case FieldKind::Model:
        break;
    }
    return v.text;
}

std::string allowedPhrase(const FieldInfo &field)
{
    switch (field.kind) {
    case FieldKind::Choice:
        return joined(field.choices, ", ");
    case FieldKind::Flag:
        return "true, false";
    case FieldKind::Integer:
        return "an integer from " + std::to_string(field.min) + " to " + std::to_string(field.max);
    case FieldKind::Device:
        return "cpu, cuda, cuda:N";
    case FieldKind::Model:
        return modelPhrase();
    case FieldKind::CoreList:
        break;
    }
    return joined(field.choices, ", ") + " or a core list";
}

std::string sentences(const std::string &brief, const std::string &more)
{
    std::string out = brief;
    // A plain first word takes a capital; a name keeps its spelling (cuDNN, torch.compile, tf32).
    const std::string first = out.substr(0, out.find(' '));
    const bool plain =
        std::all_of(first.begin(), first.end(), [](char c) { return (c >= 'a' && c <= 'z') || c == '-'; });
    if (!first.empty() && plain)
        out[0] = static_cast<char>(out[0] - 'a' + 'A');
    if (!out.empty() && out.back() != '.' && out.back() != '?' && out.back() != '!')
        out += '.';
    return more.empty() ? out : out + ' ' + more;
}

std::string explanation(const FieldInfo &field)
{
    return sentences(field.help, field.form.details);
}

} // namespace stepscope
