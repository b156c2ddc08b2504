#pragma once
// One ResNet18 SGD training step under a RunConfig: the knobs become LibTorch calls here, and
// nowhere else. Engine-internal (includes torch).
#include "config/run_config.h"
#include "engine/resnet.h"

#include <memory>
#include <optional>

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
    TrainingStep(const RunConfig &config, torch::Device device);
    ~TrainingStep();

    // One training step. Under cuda_graph, the first call warms up and captures; later calls replay.
    void step();
    // The loss of the last step, on the device (no sync).
    const torch::Tensor &loss() const { return loss_; }

    // Forward pass only, under the configuration's autocast (for tests of the knobs).
    torch::Tensor forward();

    ResNet18 &model() { return model_; }
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
    torch::Tensor input_, target_, loss_;
    std::vector<torch::Tensor> params_, momentum_;
    // fp16 dynamic loss scaling state (as GradScaler keeps it), on the device.
    torch::Tensor scale_, growthTracker_, foundInf_;
    std::unique_ptr<at::cuda::CUDAGraph> graph_;
};

} // namespace stepscope::engine
