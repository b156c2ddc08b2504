#include "config/resnet18_flops.h"

#include <cstdio>

namespace stepscope
{
namespace
{

// A convolution's output side: floor((in + 2 * pad - k) / stride) + 1.
int outSide(int in, int k, int stride, int pad)
{
    return (in + 2 * pad - k) / stride + 1;
}

double convFlops(int side, int k, int cin, int cout)
{
    return 2.0 * k * k * cin * cout * static_cast<double>(side) * side;
}

} // namespace

double resnet18ForwardFlops(int imageSize, int classes)
{
    // Stem: 7x7/2 convolution to 64 channels, then a 3x3/2 max pool.
    int side = outSide(imageSize, 7, 2, 3);
    double flops = convFlops(side, 7, 3, 64);
    side = outSide(side, 3, 2, 1);
    // Four stages of two basic blocks (two 3x3 convolutions each); the first block of stages 2-4
    // halves the side and doubles the channels, with a 1x1/2 convolution on its shortcut.
    int channels = 64;
    for (int stage = 0; stage < 4; ++stage) {
        const int out = 64 << stage;
        for (int block = 0; block < 2; ++block) {
            const int stride = stage > 0 && block == 0 ? 2 : 1;
            const int in = block == 0 ? channels : out;
            const int blockSide = outSide(side, 3, stride, 1);
            flops += convFlops(blockSide, 3, in, out) + convFlops(blockSide, 3, out, out);
            if (stride != 1 || in != out)
                flops += convFlops(outSide(side, 1, stride, 0), 1, in, out);
            side = blockSide;
        }
        channels = out;
    }
    return flops + 2.0 * 512 * classes; // the classifier after global average pooling
}

double resnet18TrainingFlops(int batch, int imageSize, int classes)
{
    const double forward = resnet18ForwardFlops(imageSize, classes);
    // The stem has no input gradient to compute: its data gradient is the one part left out.
    const int stemSide = outSide(imageSize, 7, 2, 3);
    const double stemInputGradient = convFlops(stemSide, 7, 3, 64);
    return batch * (3.0 * forward - stemInputGradient);
}

std::int64_t resnet18Parameters(int classes)
{
    // The classifier is 512 weights and a bias per class; the rest does not depend on the classes.
    return 11689512 - 513 * 1000 + 513 * static_cast<std::int64_t>(classes);
}

ModelFacts resnet18Facts(const RunConfig &config)
{
    ModelFacts f;
    char description[160];
    // models.py's _image_workload words the Python worker's ResNet18 so. The worker sets no locale:
    // printf writes a decimal point.
    std::snprintf(description, sizeof description, "resnet18 (%.1f M parameters, images 3x%dx%d, %d classes)",
                  static_cast<double>(resnet18Parameters(config.classes)) / 1e6, config.imageSize, config.imageSize, config.classes);
    f.description = description;
    f.parameters = resnet18Parameters(config.classes);
    f.forwardFlops = config.batch * resnet18ForwardFlops(config.imageSize, config.classes);
    f.trainingFlops = resnet18TrainingFlops(config.batch, config.imageSize, config.classes);
    f.flopsSource = FlopsSource::ResNet18Layers;
    return f;
}

} // namespace stepscope
