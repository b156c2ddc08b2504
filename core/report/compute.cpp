#include "report/compute.h"

#include "config/model_name.h"
#include "report/number_text.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace stepscope::report
{

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

std::string flopsBasisText(FlopsSource source)
{
    switch (source) {
    case FlopsSource::FlopCounter:
        return "training FLOPs counted by torch.utils.flop_counter over one forward and backward: matmuls, "
               "convolutions and attention";
    case FlopsSource::ResNet18Layers:
        return "ResNet18 training FLOPs counted from its layers: convolutions and classifier, backward twice the "
               "forward";
    case FlopsSource::None:
        break;
    }
    return "training FLOPs of one step";
}

std::string flopFigureText(double v)
{
    return std::abs(v) >= 10 || v == 0 ? formatNumber("%.1f", v) : formatNumber("%.3g", v);
}

std::optional<double> forwardFlopsOf(const RunConfig &config, const ModelFacts &facts)
{
    if (facts.forwardFlops)
        return facts.forwardFlops;
    if (config.model == kDefaultModel)
        return resnet18ForwardFlops(config.imageSize, config.classes) * config.batch;
    return std::nullopt;
}

std::string tflopsText(const ComputeFigures &c)
{
    if (!c.tflops)
        return {};
    return flopFigureText(*c.tflops) + " TFLOP/s" + (c.peakShare ? " (" + peakShareText(c) + ")" : std::string());
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

ComputeFigures computeFigures(const RunConfig &config, const ModelFacts &facts, std::optional<double> steadyMs,
                              const std::string &gpuName)
{
    ComputeFigures f;
    f.precision = computePrecision(config);
    if (facts.trainingFlops && *facts.trainingFlops > 0) {
        f.gflopPerStep = *facts.trainingFlops / 1e9;
        f.source = facts.flopsSource;
    } else if (config.model == kDefaultModel) {
        f.gflopPerStep = resnet18TrainingFlops(config.batch, config.imageSize, config.classes) / 1e9;
        f.source = FlopsSource::ResNet18Layers;
    } else {
        return f;
    }
    if (steadyMs && *steadyMs > 0)
        f.tflops = *f.gflopPerStep * 1e9 / (*steadyMs / 1000.0) / 1e12;
    if (f.tflops && config.onCuda())
        if (const auto peak = densePeakTflops(gpuName, f.precision))
            f.peakShare = *f.tflops / *peak;
    return f;
}

} // namespace stepscope::report
