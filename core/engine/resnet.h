#pragma once
// ResNet18 as torchvision builds it (BasicBlock, [2, 2, 2, 2]), written in the torch::nn module
// style of torchvision's csrc/models/resnet.h. Engine-internal: includes torch, so nothing in ui/
// may include it.
#include <torch/nn.h>

namespace stepscope::engine
{

struct BasicBlockImpl : torch::nn::Module {
    BasicBlockImpl(int64_t inplanes, int64_t planes, int64_t stride);
    torch::Tensor forward(torch::Tensor x);

    torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
    torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
    torch::nn::Sequential downsample{nullptr}; // 1x1 conv + BN when the shape changes
};
TORCH_MODULE(BasicBlock);

struct ResNet18Impl : torch::nn::Module {
    explicit ResNet18Impl(int64_t numClasses = 1000);
    torch::Tensor forward(torch::Tensor x);

    torch::nn::Conv2d conv1{nullptr};
    torch::nn::BatchNorm2d bn1{nullptr};
    torch::nn::Sequential layer1{nullptr}, layer2{nullptr}, layer3{nullptr}, layer4{nullptr};
    torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(ResNet18);

} // namespace stepscope::engine
