#include "report/compute.h"

#include "report/number_text.h"

#include <algorithm>
#include <cctype>

namespace stepscope::report
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

ComputePrecision computePrecision(const RunConfig &config)
{
    if (config.autocast == Autocast::BF16)
        return ComputePrecision::Bf16;
    if (config.autocast == Autocast::FP16)
        return ComputePrecision::Fp16;
    return config.tf32 ? ComputePrecision::Tf32 : ComputePrecision::Fp32;
}

const char *toString(ComputePrecision p)
{
    switch (p) {
    case ComputePrecision::Fp32:
        return "fp32";
    case ComputePrecision::Tf32:
        return "tf32";
    case ComputePrecision::Bf16:
        return "bf16";
    case ComputePrecision::Fp16:
        return "fp16";
    }
    return "fp32";
}

std::string peakName(ComputePrecision p)
{
    // TF32 is written as NVIDIA does: it names a tensor-core format, not a knob's value.
    return std::string(p == ComputePrecision::Tf32 ? "TF32" : toString(p)) + " dense peak";
}

std::string peakShareText(const ComputeFigures &c)
{
    return c.peakShare ? formatNumber("%.1f", *c.peakShare * 100) + "% of the " + peakName(c.precision) : std::string();
}

std::optional<double> densePeakTflops(const std::string &gpuName, ComputePrecision precision)
{
    // Dense peaks of the data sheets (SXM parts; sparsity doubles the tensor figures and is not used
    // here): FP32 on the CUDA cores, TF32 and 16-bit on the tensor cores.
    struct Peak {
        const char *model; // matched as a word in the reported name
        double fp32, tf32, half;
    };
    static const Peak peaks[] = {
        {"H200", 67.0, 494.7, 989.4}, {"H100", 67.0, 494.7, 989.4},    {"A100", 19.5, 156.0, 312.0},
        {"L40S", 91.6, 183.0, 366.0}, {"RTX 4090", 82.6, 82.6, 165.2},
    };
    std::string name = gpuName;
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
    for (const Peak &p : peaks) {
        std::string model = p.model;
        std::transform(model.begin(), model.end(), model.begin(), [](unsigned char c) { return std::toupper(c); });
        const auto at = name.find(model);
        const auto after = at == std::string::npos ? at : at + model.size();
        // "H100" is not "H1000": the model ends the name or a word in it.
        if (at == std::string::npos || (after < name.size() && std::isalnum(static_cast<unsigned char>(name[after]))))
            continue;
        switch (precision) {
        case ComputePrecision::Fp32:
            return p.fp32;
        case ComputePrecision::Tf32:
            return p.tf32;
        case ComputePrecision::Bf16:
        case ComputePrecision::Fp16:
            return p.half;
        }
    }
    return std::nullopt;
}

ComputeFigures computeFigures(const RunConfig &config, std::optional<double> steadyMs, const std::string &gpuName)
{
    ComputeFigures f;
    f.precision = computePrecision(config);
    const double flops = resnet18TrainingFlops(config.batch, config.imageSize, config.classes);
    f.gflopPerStep = flops / 1e9;
    if (steadyMs && *steadyMs > 0)
        f.tflops = flops / (*steadyMs / 1000.0) / 1e12;
    if (f.tflops && config.onCuda())
        if (const auto peak = densePeakTflops(gpuName, f.precision))
            f.peakShare = *f.tflops / *peak;
    return f;
}

} // namespace stepscope::report
