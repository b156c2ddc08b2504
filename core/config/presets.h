#pragma once
// Sweeps built from a base configuration: the cumulative ledger, each knob alone, every
// combination of chosen knobs. Knobs that do not apply to the base's device are left out and
// reported, so the CPU ledger is honest about what it skipped.
#include "config/run_config.h"

#include <optional>
#include <string>
#include <vector>

namespace stepscope
{

struct Sweep {
    std::vector<RunConfig> configs;   // configs[0] is the baseline
    std::vector<std::string> skipped; // knobs left out, with the reason
};

// A knob as the sweep builders see it: a name and how to switch it on.
struct Knob {
    // "tf32", "cudnn-bench", "bf16", "fp16", "channels-last", "pin-one-core", "cuda-graph", "sgd-fused",
    // "compile-default",
    // ..., and the compile modifiers "backend-cudagraphs", "backend-aot_eager", "whole-step".
    // (The caches a compile finds are no knob: they are the run's start state, store::StartState.)
    std::string name;
    void (*apply)(RunConfig &);
};
const std::vector<Knob> &ledgerKnobs(); // DESIGN.md's order, native knobs only
const std::vector<Knob> &allKnobs();    // every knob, compile modes (python runtime) included

// Baseline, then the named knobs added one by one in ledger order (fp16 and the optimizer
// variants take their place in allKnobs() order).
Sweep cumulativeSweep(const RunConfig &base, const std::vector<std::string> &knobNames);
// Baseline, +tf32, +cudnn-bench, +bf16, +channels-last, +cuda-graph, +sgd-fused; on CUDA with
// +pin-one-core after +channels-last (the later rows keep the pin). On a CUDA base of runtime
// native, then Python rows on tf32+cudnn-bench+bf16+channels-last (unpinned): eager, compile
// default, compile reduce-overhead, and the fastest within reach (compile default inside the whole-
// step CUDA graph, fused SGD). Each compiled row runs under every start state the sweep plans.
Sweep ledgerSweep(const RunConfig &base);
// Its two parts, for a ledger of other knobs (supervisor/sweep_recipe.h): the knobs it adds, and the
// Python rows it ends with (none on a CPU or a Python base).
std::vector<std::string> ledgerKnobNames(const RunConfig &base);
void addLedgerPythonRows(Sweep &sweep, const RunConfig &base);
// Baseline and every knob alone (only the named ones when knobNames is not empty). Unnamed, the
// compile modifiers and pin-one-core are left out, and on CUDA compile-max-autotune-no-cudagraphs too.
Sweep eachSweep(const RunConfig &base, const std::vector<std::string> &knobNames = {});
Sweep combinationSweep(const RunConfig &base, const std::vector<std::string> &knobNames); // 2^k configs
bool buildPreset(const std::string &preset, const RunConfig &base, Sweep &out, std::string &error);
const std::vector<std::string> &presetNames();

// `config` without the knob named as knobNames() names it ("cudnn-bench", "pin-one-core", "compile-default"):
// each field the knob sets goes back to RunConfig's default. Nothing for a name that is no knob of
// allKnobs(), or a knob `config` does not carry. The row a knob's worth is judged against (issue 35.1).
std::optional<RunConfig> configWithoutKnob(const RunConfig &config, const std::string &knob);

// The configuration every run of a sweep is compared with: same shape, no knob.
RunConfig baselineOf(const RunConfig &config);
// `knobs`'s knobs with `shape`'s runtime, device, batch, image size, classes, steps, seed and
// threads. A configuration with a compile mode keeps runtime python. The CPU affinity is a knob
// (a ledger row), so it stays with `knobs`.
RunConfig withShapeOf(RunConfig knobs, const RunConfig &shape);

} // namespace stepscope
