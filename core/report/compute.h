#pragma once
// What a training step computes and how close it comes to the GPU (issue 18.4, 30.4): the FLOPs of
// one training step as the run's worker counted them for its model (common/model_facts.h; ResNet18's
// layer count for runs stored before workers reported one), the TFLOP/s a steady step achieves, and
// the share of the GPU's dense peak for the run's precision, from a small table of GPU models.
#include "common/model_facts.h"
#include "config/resnet18_flops.h"
#include "config/run_config.h"

#include <optional>
#include <string>

namespace stepscope::report
{

// The precision a configuration's convolutions and matmuls run in, for the peak they are held to.
enum class ComputePrecision { Fp32, Tf32, Bf16, Fp16 };
ComputePrecision computePrecision(const RunConfig &config);
const char *toString(ComputePrecision p); // "fp32", "tf32", "bf16", "fp16"

// The dense (no sparsity) peak of a GPU model for a precision, in TFLOP/s, from the vendor's data
// sheet; none for a GPU the table does not hold ("unknown GPU"). `gpuName` as NVML or the CUDA
// runtime reports it ("NVIDIA H200").
std::optional<double> densePeakTflops(const std::string &gpuName, ComputePrecision precision);

struct ComputeFigures {
    std::optional<double> gflopPerStep; // none: another model whose FLOPs were not counted
    FlopsSource source = FlopsSource::None;
    std::optional<double> tflops;    // achieved over the steady step
    std::optional<double> peakShare; // tflops / dense peak; none for an unknown GPU or a CPU
    ComputePrecision precision = ComputePrecision::Fp32;
};
// The step's FLOPs: the stored count of the run's model where there is one (`facts`), else, for
// ResNet18 alone, its layer count (files stored before workers reported facts); none for another
// model without a count, never ResNet18's figure in its place.
ComputeFigures computeFigures(const RunConfig &config, const ModelFacts &facts, std::optional<double> steadyMs,
                              const std::string &gpuName);

// What a step's FLOPs count, for a heading: "training FLOPs counted by torch.utils.flop_counter over
// one forward and backward (matmuls, convolutions, attention)", "ResNet18 training FLOPs counted
// from its layers (convolutions and classifier, backward twice the forward)".
std::string flopsBasisText(FlopsSource source);
// A GFLOP or TFLOP/s figure as text: one decimal from 10 up ("340.7"), three significant digits
// below, so that a tiny CPU model's 0.00042 GFLOP does not read as 0.0.
std::string flopFigureText(double value);

// "46.2 TFLOP/s (4.7% of the bf16 dense peak)", "0.0123 TFLOP/s"; "" without a rate.
std::string tflopsText(const ComputeFigures &c);

// The forward pass's FLOPs of one step, as `computeFigures` takes the training step's: the stored
// count, else ResNet18's layers for ResNet18 alone, else none.
std::optional<double> forwardFlopsOf(const RunConfig &config, const ModelFacts &facts);

// The peak a share is of, named: fp32 runs on the CUDA cores and TF32 and 16-bit on the tensor
// cores, whose peaks are several times higher, so "36% of peak" then "9% of peak" would read as a
// regression. "fp32 dense peak", "TF32 dense peak", "bf16 dense peak", "fp16 dense peak".
std::string peakName(ComputePrecision p);
// "36.0% of the fp32 dense peak"; empty without a share (an unknown GPU, the CPU).
std::string peakShareText(const ComputeFigures &c);

} // namespace stepscope::report
