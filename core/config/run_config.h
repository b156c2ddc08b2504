#pragma once
// One configuration of the training step: every knob of DESIGN.md's ledger plus the shape of the
// run. Plain C++: the engine, the workers, the CLI and the GUI all share this one definition.
// A new knob is a member here and a row of the table in config_table.cpp (its comment says the rest).
#include "config/config_table.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stepscope
{

enum class Runtime { Native, Python };
enum class Autocast { Off, BF16, FP16 };
enum class Optimizer { PerParameter, Foreach, Fused };
enum class CompileMode { None, Default, ReduceOverhead, MaxAutotune, MaxAutotuneNoCudagraphs };
enum class CompileBackend { Inductor, CudaGraphs, AotEager };
enum class CompileTarget { Model, Step }; // torch.compile(model) or the whole training step

struct RunConfig {
    Runtime runtime = Runtime::Native;
    std::string device = "cpu"; // "cpu", "cuda" or "cuda:N"
    // What is trained (config/model_name.h): "resnet18", "timm:NAME", a factory, ... Any other than
    // resnet18 runs in the Python worker. A setting of the whole run like the shape (withShapeOf).
    std::string model = "resnet18";

    // The knobs, in ledger order.
    bool tf32 = false;
    bool cudnnBenchmark = false;
    Autocast autocast = Autocast::Off;
    bool channelsLast = false;
    bool cudaGraph = false;
    Optimizer optimizer = Optimizer::Foreach;
    CompileMode compile = CompileMode::None;
    // How torch.compile runs; they apply only with a compile mode.
    CompileBackend compileBackend = CompileBackend::Inductor;
    CompileTarget compileTarget = CompileTarget::Model;
    // The CPU cores the worker pins itself to before CUDA initialises: "none" (the scheduler's
    // choice), "one" (one core the worker picks: the first allowed core other than 0, see
    // pickOneCore) or a core list as taskset -c writes it, kept in normalized form ("2-3,8").
    // A launch-bound step (wall time well above GPU time) can be faster and steadier pinned.
    std::string cpuAffinity = "none";

    // The shape of the run.
    int batch = 32;
    int imageSize = 224;
    int sequenceLength = 128; // tokens per sample, for a model that takes token ids (hf: text models)
    int classes = 1000;
    int warmupSteps = 10; // a floor before measuring; the steady window itself is detected
    int steps = 100;      // measured steps after warm-up
    std::uint64_t seed = 0;
    // Intra-op threads (at::set_num_threads); 0 keeps the default: one per pinned core when pinned,
    // else the library's. A setting of the process like the shape: sweeps carry it into every row
    // (withShapeOf).
    int threads = 0;
    // The memory the worker may use, in MiB; 0: the device's own. On CUDA the caching allocator's cap
    // (the fraction of the card it stands for); on the CPU, whose allocator keeps no figures, the
    // worker's peak resident memory. A run past it fails out-of-memory, naming the limit. Carried into
    // every row like threads (withShapeOf).
    int memoryLimitMib = 0;
    // Data-parallel training (issue 21): world_size processes of DistributedDataParallel launched
    // through torch.distributed.run by the Python worker, one rank per GPU (gloo on the CPU); 1 is a
    // plain step. Like threads, a setting of the whole run that sweeps carry into every row.
    int worldSize = 1;
    int ddpBucketCapMb = 25; // DDP's default bucket size
    bool ddpGradientAsBucketView = false;
    bool ddpStaticGraph = false;

    bool onCuda() const { return device.rfind("cuda", 0) == 0; }
    int cudaIndex() const; // N of "cuda:N", 0 for "cuda"
    int totalSteps() const { return 1 + warmupSteps + steps; }
    bool operator==(const RunConfig &o) const;
};

// A problem with one field, said so that the user can fix it.
struct ConfigError {
    std::string field;
    std::string message;
};

// Every violated rule (empty: valid).
std::vector<ConfigError> validate(const RunConfig &config);
std::string describe(const std::vector<ConfigError> &errors); // one line per error

// Sets one field from its textual value, as given by a CLI flag or a JSON member. Keys are the
// JSON names ("image_size", "autocast", ...). Returns false and fills `error` when the key is
// unknown or the value not allowed. The fields, their values and the rules validate() checks are
// the table of config_table.cpp (fields(), rules()).
bool setField(RunConfig &config, const std::string &key, const std::string &value, ConfigError &error);

// The enabled knobs in ledger order, named as config/presets.h names them ("tf32", "bf16", ...).
// CPU pinning is "pin-one-core" or "pin-<cores>" ("pin-2-3") after channels-last, and a thread
// count other than the default ends the list as "threads-N", then a memory limit as "mem-NMiB", then a
// seed other than 0 as "seed-N",
// so that labels and canonical names tell such runs apart.
std::vector<std::string> knobNames(const RunConfig &config);
// "baseline" or the enabled knobs in ledger order, e.g. "tf32+cudnn-bench+bf16+channels-last".
std::string knobLabel(const RunConfig &config);
// Unique, stable name: "native cuda:0 b32 224px fp32 [tf32+cudnn-bench]" style, used as the key
// that groups repeats and matches configurations across sweeps.
std::string canonicalName(const RunConfig &config);

// CPU core lists as taskset -c writes them: "3", "2,3", "4-7", "0,2-5". Cores are 0..1023
// (kMaxCpuCores). Returns false with a message for people when the text is not such a list.
constexpr int kMaxCpuCores = 1024;
bool parseCoreList(const std::string &text, std::vector<int> &cores, std::string &error);
// Sorted, without repeats, consecutive cores as ranges: {0,2,3,4} -> "0,2-4"; {} -> "".
std::string formatCoreList(std::vector<int> cores);
// The core "one" pins to, out of the cores the process may use: the first that is not core 0
// (many systems route interrupts and housekeeping there), core 0 when it is the only one.
// Deterministic, so the repeats of a configuration run on the same core. -1 when `allowed` is empty.
int pickOneCore(const std::vector<int> &allowed);

std::string toString(Runtime r);
std::string toString(Autocast a);
std::string toString(Optimizer o);
std::string toString(CompileMode c);
std::string toString(CompileBackend b);
std::string toString(CompileTarget t);

} // namespace stepscope
