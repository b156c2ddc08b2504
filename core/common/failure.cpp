#include "common/failure.h"

#include <array>
#include <utility>

namespace stepscope
{
namespace
{

struct CategoryInfo {
    FailureCategory category;
    std::string_view name;
    std::string_view fix;
};

constexpr std::array<CategoryInfo, 18> kCategories{{
    {FailureCategory::InvalidConfig, "invalid-config",
     "Correct the named field; `stepscope-cli --help` lists the allowed values."},
    {FailureCategory::CudaUnavailable, "cuda-unavailable",
     "No usable CUDA device: check `nvidia-smi`, the driver, and CUDA_VISIBLE_DEVICES, or run with --device cpu."},
    {FailureCategory::PythonNotFound, "python-not-found",
     "Run `stepscope-cli setup` (or the dashboard's Tools > Set up PyTorch) for an environment of Stepscope's own, "
     "or point --python / STEPSCOPE_PYTHON at the interpreter that holds torch."},
    {FailureCategory::TorchMissing, "torch-missing",
     "Run `stepscope-cli setup` (or Tools > Set up PyTorch) to install the torch Stepscope was built for into an "
     "environment of its own, or install torch into that Python."},
    {FailureCategory::TorchTooOld, "torch-too-old",
     "Upgrade torch to 2.4 or newer in the Python that runs the worker."},
    {FailureCategory::TorchVersionMismatch, "torch-version-mismatch",
     "Run `stepscope-cli setup` (or Tools > Set up PyTorch) to install the torch version Stepscope was built for "
     "into an environment of its own, or point --python / STEPSCOPE_PYTHON at an environment that has it."},
    {FailureCategory::TritonMissing, "triton-missing",
     "torch.compile on CUDA needs Triton: pip install the triton version torch requires (pip show torch lists it)."},
    {FailureCategory::TritonVersionMismatch, "triton-version-mismatch",
     "Install the Triton version your torch requires, as the detail names it (on Linux: the one in torch's "
     "metadata; on Windows: the triton-windows band of that torch release)."},
    {FailureCategory::CachePathTooLong, "cache-path-too-long",
     "Choose a shorter compile cache directory (--compile-cache-dir, or the dashboard's settings), or enable long "
     "paths on Windows."},
    {FailureCategory::OutOfMemory, "out-of-memory",
     "Lower the batch size or image size, or free memory: close other programs using the GPU (on the CPU: the "
     "RAM), or raise the limit the worker ran under (ulimit -v, a container's memory limit)."},
    {FailureCategory::CompileFailed, "compile-failed",
     "torch.compile failed or did not compile what was asked: see the detail; try another mode, backend or target "
     "(model instead of whole step), or report the trace upstream."},
    {FailureCategory::GraphCaptureFailed, "graph-capture-failed",
     "The step could not be captured in a CUDA graph: see the detail; run without cuda_graph."},
    {FailureCategory::DistributedFailed, "distributed-failed",
     "A data-parallel run failed as a group (process group start, a rank that died or hung): the message names "
     "the rank; check that the GPUs see each other (nvidia-smi topo -m), NCCL_DEBUG=INFO in the log, or run "
     "world_size 1."},
    {FailureCategory::ModelFailed, "model-failed",
     "The model could not be built: check its name (`stepscope-cli models` lists what the worker's Python can "
     "import), install the package the message names into that Python, or fix the factory (its trace is in the "
     "detail)."},
    {FailureCategory::WorkerCrashed, "worker-crashed",
     "The worker process died: its log is in the detail. Re-run the configuration alone to confirm."},
    {FailureCategory::Timeout, "timeout",
     "The worker reported nothing for the time limit (a hang in the driver or the compiler): check the log, or raise "
     "--timeout."},
    {FailureCategory::Cancelled, "cancelled", "Stopped by the user; run it again to get figures."},
    {FailureCategory::Internal, "internal",
     "An unexpected error inside Stepscope: the detail holds the trace; please report it."},
}};

// Errors whose cure is known and narrower than their category's: a piece of the text torch (or the
// toolchain under it) raises, and the fix for it. Matched in the message first, then the detail.
struct KnownError {
    std::string_view pattern;
    std::string_view fix;
};

constexpr std::array<KnownError, 2> kKnownErrors{{
    // torch.compile's CUDA graph trees (reduce-overhead, max-autotune) replay the graph of each
    // call into the same output memory; a whole step whose optimizer reads the previous step's
    // outputs (SGD's momentum buffers) finds them overwritten.
    {"overwritten by a subsequent run",
     "CUDA graph trees overwrote the previous step's outputs (a whole step under reduce-overhead or max-autotune): "
     "call torch.compiler.cudagraph_mark_step_begin() before each step, or compile the whole step with a mode "
     "without CUDA graphs (default or max-autotune-no-cudagraphs), or compile the model alone (target model)."},
    // Inductor's C++ backend builds against the interpreter's headers.
    {"Python.h: No such file or directory",
     "Inductor's C++ compile needs the Python development headers: install them for the interpreter that runs the "
     "worker (python3-dev on Debian and Ubuntu, python3-devel on Fedora), then run again."},
}};

constexpr std::array<std::pair<RunStatus, std::string_view>, 6> kStatuses{{
    {RunStatus::Queued, "queued"},
    {RunStatus::Running, "running"},
    {RunStatus::Complete, "complete"},
    {RunStatus::Failed, "failed"},
    {RunStatus::Cancelled, "cancelled"},
    {RunStatus::Interrupted, "interrupted"},
}};

} // namespace

std::string_view toString(FailureCategory c)
{
    for (const auto &info : kCategories)
        if (info.category == c)
            return info.name;
    return "internal";
}

std::optional<FailureCategory> failureCategoryFromString(std::string_view s)
{
    for (const auto &info : kCategories)
        if (info.name == s)
            return info.category;
    return std::nullopt;
}

std::string_view fixFor(FailureCategory c)
{
    for (const auto &info : kCategories)
        if (info.category == c)
            return info.fix;
    return {};
}

std::string_view fixFor(const Failure &failure)
{
    for (const std::string *text : {&failure.message, &failure.detail})
        for (const auto &known : kKnownErrors)
            if (text->find(known.pattern) != std::string::npos)
                return known.fix;
    return fixFor(failure.category);
}

std::string_view toString(RunStatus s)
{
    for (const auto &[status, name] : kStatuses)
        if (status == s)
            return name;
    return "failed";
}

std::optional<RunStatus> runStatusFromString(std::string_view s)
{
    for (const auto &[status, name] : kStatuses)
        if (name == s)
            return status;
    return std::nullopt;
}

} // namespace stepscope
