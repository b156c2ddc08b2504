#pragma once
// ResNet18's size and work, counted from its layers: what the native worker, which trains nothing
// else, reports as its model's facts (common/model_facts.h), and what the compute figures fall back
// on for runs of files stored before models reported their own count.
#include "common/model_facts.h"
#include "config/run_config.h"

#include <cstdint>

namespace stepscope
{

// FLOPs (a multiply-add is two) of one forward pass of ResNet18 over one image, counting the
// convolutions and the classifier: batch norm, ReLU, pooling and the residual adds are under 1%.
double resnet18ForwardFlops(int imageSize, int classes);
// One training step of `batch` images: forward, then the backward pass's gradients of the inputs
// and of the weights, each as costly as the forward (the stem's input gradient is not needed).
double resnet18TrainingFlops(int batch, int imageSize, int classes);
// torchvision's resnet18 with `classes` outputs: 11,689,512 parameters with 1000.
std::int64_t resnet18Parameters(int classes);
// The facts of a ResNet18 run of `config`, worded as the Python worker words its models.
ModelFacts resnet18Facts(const RunConfig &config);

} // namespace stepscope
