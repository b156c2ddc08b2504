#include "profile/kernel_family.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>

namespace stepscope::profile
{
namespace
{

bool hasAny(const std::string &text, std::initializer_list<const char *> words)
{
    for (const char *w : words)
        if (text.find(w) != std::string::npos)
            return true;
    return false;
}

} // namespace

Family kernelFamily(const std::string &name)
{
    std::string n = name;
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    // Checked in this order: an optimizer's multi-tensor kernel adds and multiplies, a layout
    // transform sits inside cuDNN's namespace, and inductor's fused kernels name every op they hold.
    if (hasAny(n, {"memcpy", "memset", "nchwtonhwc", "nhwctonchw", "aten::copy_", "aten::_to_copy", "aten::to",
                   "aten::fill_", "aten::zero_", "aten::clone", "aten::contiguous", "copy_kernel", "fill_kernel",
                   "transpose"}))
        return Family::Copies;
    if (hasAny(n, {"multi_tensor_apply", "fused_sgd", "_foreach", "sgd", "adam", "optimizer"}))
        return Family::Optimizer;
    if (n.rfind("triton_tem", 0) == 0)
        return Family::ConvGemm; // inductor's templates: max-autotune's own GEMMs and convolutions
    if (n.rfind("triton_", 0) == 0)
        return Family::Elementwise; // pointwise, reduction and persistent-reduction fusions
    if (hasAny(n, {"batch_norm", "batchnorm", "bn_fw", "bn_bw", "welford", "layer_norm", "group_norm"}))
        return Family::Normalization;
    if (hasAny(n, {"conv",     "gemm",     "cutlass",  "xmma",        "cudnn",     "cublas", "wgrad",  "dgrad", "fprop",
                   "winograd", "implicit", "aten::mm", "aten::addmm", "aten::bmm", "matmul", "linear", "sm80_", "sm90_",
                   "sm100_",   "ampere_",  "hopper_",  "volta_",      "turing_",   "mkldnn", "onednn", "dnnl"}))
        return Family::ConvGemm;
    if (hasAny(n,
               {"elementwise", "vectorized", "unrolled", "reduce_kernel", "relu",          "threshold", "add",   "mul",
                "div",         "pool",       "softmax",  "nll",           "cross_entropy", "loss",      "clamp", "sum",
                "mean",        "where",      "sigmoid",  "tanh",          "index",         "scatter",   "gather"}))
        return Family::Elementwise;
    return Family::Other;
}

} // namespace stepscope::profile
