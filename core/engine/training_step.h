#pragma once
// One SGD training step under a RunConfig: the knobs become LibTorch calls here, and nowhere else.
// The model is the built-in ResNet18, or another one from the TorchScript export the Python worker
// made for the run (scripted_model.h, issue 30.3). Engine-internal (includes torch).
#include "config/run_config.h"
#include "engine/resnet.h"
#include "engine/scripted_model.h"

#include <memory>
#include <optional>
#include <string>

namespace at::cuda
{
struct CUDAGraph;
}

namespace stepscope::engine
{

// SGD with momentum 0.9, no weight decay, no dampening: the same rule in all three implementations.
constexpr double kLearningRate = 0.01;
constexpr double kMomentum = 0.9;

class TrainingStep
{
  public:
    // `modulePath`: the run's TorchScript export, needed (and only taken) when config.model is not
    // the built-in resnet18.
    TrainingStep(const RunConfig &config, torch::Device device, const std::string &modulePath = {});
    ~TrainingStep();

    // One training step. Under cuda_graph, the first call warms up and captures; later calls replay.
    void step();
    // The loss of the last step, on the device (no sync).
    const torch::Tensor &loss() const { return loss_; }

    // Forward pass only, under the configuration's autocast (for tests of the knobs; ResNet18 only).
    torch::Tensor forward();

    ResNet18 &model() { return model_; }
    bool scripted() const { return scripted_ != nullptr; }
    const torch::Tensor &input() const { return input_; }
    const torch::Tensor &target() const { return target_; }
    std::vector<torch::Tensor> parameters() const { return params_; }
    // fp16 only (undefined otherwise): the dynamic loss scale on the device, halved after a step
    // that overflowed, for tests of the skip-on-overflow rule.
    const torch::Tensor &lossScale() const { return scale_; }

  private:
    void eagerStep(double lr);
    void zeroGrads();
    void optimizerStep(double lr, const std::optional<torch::Tensor> &foundInf);
    void captureGraph();

    RunConfig config_;
    torch::Device device_;
    ResNet18 model_{nullptr};
    std::unique_ptr<ScriptedModel> scripted_; // set instead of model_ for another model
    torch::Tensor input_, target_, loss_;
    std::vector<torch::Tensor> params_, momentum_;
    // fp16 dynamic loss scaling state (as GradScaler keeps it), on the device.
    torch::Tensor scale_, growthTracker_, foundInf_;
    std::unique_ptr<at::cuda::CUDAGraph> graph_;
};

} // namespace stepscope::engine
