#pragma once
// Sweeps built from a base configuration: the cumulative ledger, each knob alone, every
// combination of chosen knobs. Knobs that do not apply to the base's device are left out and
// reported, so the CPU ledger is honest about what it skipped.
#include "config/run_config.h"

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
    std::string name; // "tf32", "cudnn-bench", "bf16", "fp16", "channels-last", "cuda-graph", "sgd-fused", ...
    void (*apply)(RunConfig &);
};
const std::vector<Knob> &ledgerKnobs(); // DESIGN.md's order
const std::vector<Knob> &allKnobs();    // every knob, for `each`

// Baseline, then the named knobs added one by one in ledger order (fp16 and the optimizer
// variants take their place in allKnobs() order).
Sweep cumulativeSweep(const RunConfig &base, const std::vector<std::string> &knobNames);
Sweep ledgerSweep(
    const RunConfig &base); // baseline, +tf32, +cudnn-bench, +bf16, +channels-last, +cuda-graph, +sgd-fused
// Baseline and every knob alone (only the named ones when knobNames is not empty).
Sweep eachSweep(const RunConfig &base, const std::vector<std::string> &knobNames = {});
Sweep combinationSweep(const RunConfig &base, const std::vector<std::string> &knobNames); // 2^k configs
bool buildPreset(const std::string &preset, const RunConfig &base, Sweep &out, std::string &error);
const std::vector<std::string> &presetNames();

// The configuration every run of a sweep is compared with: same shape, no knob.
RunConfig baselineOf(const RunConfig &config);
// `knobs`'s knobs with `shape`'s runtime, device, batch, image size, classes, steps and seed.
RunConfig withShapeOf(RunConfig knobs, const RunConfig &shape);

} // namespace stepscope
