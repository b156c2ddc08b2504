#pragma once
// What a run's model is (issue 30.4): its description, its parameter count and the FLOPs of one
// training step at the run's batch, with where that count came from. The worker reports them at
// setup (the protocol's `model` message), the store keeps them per run, and the compute figures
// (report/compute.h) divide them by the steady step.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stepscope
{

enum class FlopsSource {
    None,           // not counted: an older file, or a count that failed (ModelFacts::flopsProblem says why)
    FlopCounter,    // PyTorch's torch.utils.flop_counter over one forward and backward on the meta device
    ResNet18Layers, // ResNet18's convolutions and classifier counted from its layers (config/resnet18_flops.h)
};
// "torch.utils.flop_counter", "resnet18-layers"; "" for None. Stored and sent as these words.
std::string_view toString(FlopsSource s);
FlopsSource flopsSourceFromString(std::string_view s); // None for a word this build does not know
// How a front end names the source beside a figure: "counted by torch.utils.flop_counter",
// "counted from ResNet18's layers"; "" for None.
std::string flopsSourceText(FlopsSource s);

struct ModelFacts {
    std::string description; // "timm:resnet50 (25.6 M parameters, images 3x224x224, 1000 classes)"
    std::optional<std::int64_t> parameters;
    // One step at the run's batch (per rank for a data-parallel run); a multiply-add is two.
    std::optional<double> forwardFlops, trainingFlops;
    FlopsSource flopsSource = FlopsSource::None;
    std::string flopsProblem; // why there is no count
    bool recorded() const { return !description.empty() || parameters.has_value(); }
};

} // namespace stepscope
