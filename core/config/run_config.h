#pragma once
// One configuration of the training step: every knob of DESIGN.md's ledger plus the shape of the
// run. Plain C++: the engine, the workers, the CLI and the GUI all share this one definition.
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
enum class CompileCache { Cold, Warm };   // fresh inductor/Triton caches per run, or kept ones

struct RunConfig {
    Runtime runtime = Runtime::Native;
    std::string device = "cpu"; // "cpu", "cuda" or "cuda:N"

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
    CompileCache compileCache = CompileCache::Cold;

    // The shape of the run.
    int batch = 32;
    int imageSize = 224;
    int classes = 1000;
    int warmupSteps = 10; // a floor before measuring; the steady window itself is detected
    int steps = 100;      // measured steps after warm-up
    std::uint64_t seed = 0;

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
// unknown or the value not allowed.
bool setField(RunConfig &config, const std::string &key, const std::string &value, ConfigError &error);
// The JSON keys, in order, with their allowed values (for --help and error messages).
struct FieldInfo {
    const char *key;
    const char *allowed;
    const char *help;
    bool isFlag; // a boolean knob: `--key` alone means true
};
const std::vector<FieldInfo> &fields();

// The enabled knobs in ledger order, named as config/presets.h names them ("tf32", "bf16", ...).
std::vector<std::string> knobNames(const RunConfig &config);
// "baseline" or the enabled knobs in ledger order, e.g. "tf32+cudnn-bench+bf16+channels-last".
std::string knobLabel(const RunConfig &config);
// Unique, stable name: "native cuda:0 b32 224px fp32 [tf32+cudnn-bench]" style, used as the key
// that groups repeats and matches configurations across sweeps.
std::string canonicalName(const RunConfig &config);

std::string toString(Runtime r);
std::string toString(Autocast a);
std::string toString(Optimizer o);
std::string toString(CompileMode c);
std::string toString(CompileBackend b);
std::string toString(CompileTarget t);
std::string toString(CompileCache c);

} // namespace stepscope
