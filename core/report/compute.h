#pragma once
// What a training step computes and how close it comes to the GPU (issue 18.4): the FLOPs of one
// ResNet18 training step counted from its layers, the TFLOP/s a steady step achieves, and the share
// of the GPU's dense peak for the run's precision, from a small table of GPU models.
#include "config/run_config.h"

#include <optional>
#include <string>

namespace stepscope::report
{

// FLOPs (a multiply-add is two) of one forward pass of ResNet18 over one image, counting the
// convolutions and the classifier: batch norm, ReLU, pooling and the residual adds are under 1%.
double resnet18ForwardFlops(int imageSize, int classes);
// One training step of `batch` images: forward, then the backward pass's gradients of the inputs
// and of the weights, each as costly as the forward (the stem's input gradient is not needed).
double resnet18TrainingFlops(int batch, int imageSize, int classes);

// The precision a configuration's convolutions and matmuls run in, for the peak they are held to.
enum class ComputePrecision { Fp32, Tf32, Bf16, Fp16 };
ComputePrecision computePrecision(const RunConfig &config);
const char *toString(ComputePrecision p); // "fp32", "tf32", "bf16", "fp16"

// The dense (no sparsity) peak of a GPU model for a precision, in TFLOP/s, from the vendor's data
// sheet; none for a GPU the table does not hold ("unknown GPU"). `gpuName` as NVML or the CUDA
// runtime reports it ("NVIDIA H200").
std::optional<double> densePeakTflops(const std::string &gpuName, ComputePrecision precision);

struct ComputeFigures {
    double gflopPerStep = 0;
    std::optional<double> tflops;    // achieved over the steady step
    std::optional<double> peakShare; // tflops / dense peak; none for an unknown GPU or a CPU
    ComputePrecision precision = ComputePrecision::Fp32;
};
ComputeFigures computeFigures(const RunConfig &config, std::optional<double> steadyMs, const std::string &gpuName);

// The peak a share is of, named: fp32 runs on the CUDA cores and TF32 and 16-bit on the tensor
// cores, whose peaks are several times higher, so "36% of peak" then "9% of peak" would read as a
// regression. "fp32 dense peak", "TF32 dense peak", "bf16 dense peak", "fp16 dense peak".
std::string peakName(ComputePrecision p);
// "36.0% of the fp32 dense peak"; empty without a share (an unknown GPU, the CPU).
std::string peakShareText(const ComputeFigures &c);

} // namespace stepscope::report
