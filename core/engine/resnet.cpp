#include "engine/resnet.h"

namespace stepscope::engine
{
namespace
{

torch::nn::Conv2d conv(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t padding)
{
    return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding(padding).bias(false));
}

torch::nn::Sequential makeLayer(int64_t &inplanes, int64_t planes, int64_t stride)
{
    torch::nn::Sequential layer;
    layer->push_back(BasicBlock(inplanes, planes, stride));
    inplanes = planes;
    layer->push_back(BasicBlock(inplanes, planes, 1));
    return layer;
}

} // namespace

BasicBlockImpl::BasicBlockImpl(int64_t inplanes, int64_t planes, int64_t stride)
{
    conv1 = register_module("conv1", conv(inplanes, planes, 3, stride, 1));
    bn1 = register_module("bn1", torch::nn::BatchNorm2d(planes));
    conv2 = register_module("conv2", conv(planes, planes, 3, 1, 1));
    bn2 = register_module("bn2", torch::nn::BatchNorm2d(planes));
    if (stride != 1 || inplanes != planes) {
        downsample = register_module(
            "downsample", torch::nn::Sequential(conv(inplanes, planes, 1, stride, 0), torch::nn::BatchNorm2d(planes)));
    }
}

torch::Tensor BasicBlockImpl::forward(torch::Tensor x)
{
    // In-place ReLU as torchvision does: an out-of-place one costs an extra allocation and kernel
    // per activation, which shows on a launch-bound step.
    auto out = bn1(conv1(x)).relu_();
    out = bn2(conv2(out));
    out += downsample ? downsample->forward(x) : x;
    return out.relu_();
}

ResNet18Impl::ResNet18Impl(int64_t numClasses)
{
    int64_t inplanes = 64;
    conv1 = register_module("conv1", conv(3, 64, 7, 2, 3));
    bn1 = register_module("bn1", torch::nn::BatchNorm2d(64));
    layer1 = register_module("layer1", makeLayer(inplanes, 64, 1));
    layer2 = register_module("layer2", makeLayer(inplanes, 128, 2));
    layer3 = register_module("layer3", makeLayer(inplanes, 256, 2));
    layer4 = register_module("layer4", makeLayer(inplanes, 512, 2));
    fc = register_module("fc", torch::nn::Linear(512, numClasses));

    // torchvision's initialisation: Kaiming normal (fan_out, relu) for convolutions, BN at 1/0;
    // the linear layer keeps its default.
    torch::NoGradGuard noGrad;
    for (auto &m : modules(/*include_self=*/false)) {
        if (auto *c = m->as<torch::nn::Conv2d>())
            torch::nn::init::kaiming_normal_(c->weight, 0.0, torch::kFanOut, torch::kReLU);
        else if (auto *b = m->as<torch::nn::BatchNorm2d>()) {
            torch::nn::init::ones_(b->weight);
            torch::nn::init::zeros_(b->bias);
        }
    }
}

torch::Tensor ResNet18Impl::forward(torch::Tensor x)
{
    x = bn1(conv1(x)).relu_();
    x = torch::max_pool2d(x, 3, 2, 1);
    for (auto *layer : {&layer1, &layer2, &layer3, &layer4})
        x = (*layer)->forward(x);
    x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
    return fc(x);
}

} // namespace stepscope::engine
