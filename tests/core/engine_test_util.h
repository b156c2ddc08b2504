#pragma once
// Helpers shared by the engine tests on the CPU (test_engine.cpp) and on CUDA (test_engine_cuda.cpp):
// weight snapshots, how far two runs' updates differ, and torch::optim's SGD as the reference rule.
#include "engine/training_step.h"

#include <torch/optim/sgd.h>
#include <torch/torch.h>

#include <cmath>
#include <vector>

namespace stepscope::test
{

inline std::vector<torch::Tensor> snapshot(const std::vector<torch::Tensor> &params)
{
    std::vector<torch::Tensor> copies;
    for (const auto &p : params)
        copies.push_back(p.detach().clone());
    return copies;
}

// ||a - b|| / ||b - start|| over all parameters, in double: the difference of two runs' updates
// relative to the update itself. Comparing weights directly would let the initial weights, which
// are far larger than a few SGD updates, hide any difference. NaN when either side is not finite,
// so a comparison `< tolerance` fails on it.
inline double relativeUpdateDifference(const std::vector<torch::Tensor> &start, const std::vector<torch::Tensor> &a,
                                       const std::vector<torch::Tensor> &b)
{
    double diff = 0, update = 0;
    for (std::size_t i = 0; i < start.size(); ++i) {
        const auto s = start[i].to(torch::kCPU, torch::kDouble);
        const auto x = a[i].to(torch::kCPU, torch::kDouble), y = b[i].to(torch::kCPU, torch::kDouble);
        diff += (x - y).pow(2).sum().item<double>();
        update += (y - s).pow(2).sum().item<double>();
    }
    return update > 0 ? std::sqrt(diff / update) : std::nan("");
}

// ||after - start|| over all parameters: whether a step moved the weights at all.
inline double updateNorm(const std::vector<torch::Tensor> &start, const std::vector<torch::Tensor> &after)
{
    double sum = 0;
    for (std::size_t i = 0; i < start.size(); ++i)
        sum += (after[i].to(torch::kCPU, torch::kDouble) - start[i].to(torch::kCPU, torch::kDouble))
                   .pow(2)
                   .sum()
                   .item<double>();
    return std::sqrt(sum);
}

// The weights after `steps` updates of torch::optim::SGD (momentum 0.9, fp32, no autocast) on the
// model and data a TrainingStep of `config` starts from: the rule every engine optimizer must follow.
inline std::vector<torch::Tensor> referenceSgdWeights(const RunConfig &config, torch::Device device, int steps)
{
    engine::TrainingStep ref(config, device);
    torch::optim::SGD sgd(ref.model()->parameters(),
                          torch::optim::SGDOptions(engine::kLearningRate).momentum(engine::kMomentum));
    for (int i = 0; i < steps; ++i) {
        sgd.zero_grad();
        torch::nn::functional::cross_entropy(ref.model()->forward(ref.input()), ref.target()).backward();
        sgd.step();
    }
    return snapshot(ref.parameters());
}

} // namespace stepscope::test
