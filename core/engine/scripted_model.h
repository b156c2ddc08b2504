#pragma once
// A model other than the built-in ResNet18 in the native worker (issue 30.3): the TorchScript module
// the Python worker traced for this run (resources/python/stepscope_py/export.py). Its forward takes
// the step's batch and returns the loss, so this side knows nothing of the model's inputs, head or
// loss; the batch travels inside the file (buffers stepscope_batch_0..N, the target last), made from
// the run's seed as a Python run makes it. Engine-internal (includes torch); torch::jit stays in the
// .cpp, so TrainingStep's users do not compile its headers.
#include <torch/types.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace stepscope::engine
{

// The export cannot be used: the run fails model-failed with this message.
struct ModelLoadError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class ScriptedModel
{
  public:
    // Loads `path` onto `device` in training mode; channels_last puts 4-D parameters and the 4-D
    // floating-point inputs in that layout, as ResNet18's path does. Throws ModelLoadError with what is
    // wrong with the file.
    ScriptedModel(const std::string &path, torch::Device device, bool channelsLast);
    ~ScriptedModel();
    ScriptedModel(const ScriptedModel &) = delete;
    ScriptedModel &operator=(const ScriptedModel &) = delete;

    // The traced forward and loss on the fixed batch, under whatever autocast the caller has set.
    torch::Tensor loss();
    std::vector<torch::Tensor> parameters() const;
    const std::vector<torch::Tensor> &batch() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace stepscope::engine
