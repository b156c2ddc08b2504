#include "engine/memory_limit.h"

#include "platform/platform.h"

#ifdef STEPSCOPE_WITH_CUDA
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include <string>

namespace stepscope::engine
{

namespace
{
constexpr std::int64_t kMiB = 1024 * 1024;
}

std::optional<Failure> applyMemoryLimit(const RunConfig &config)
{
    if (config.memoryLimitMib <= 0 || !config.onCuda())
        return std::nullopt;
#ifdef STEPSCOPE_WITH_CUDA
    const auto index = static_cast<c10::DeviceIndex>(config.cudaIndex());
    const std::int64_t total = static_cast<std::int64_t>(at::cuda::getDeviceProperties(index)->totalGlobalMem);
    const std::int64_t limit = static_cast<std::int64_t>(config.memoryLimitMib) * kMiB;
    if (limit > total)
        return Failure{FailureCategory::InvalidConfig,
                       "memory_limit_mib " + std::to_string(config.memoryLimitMib) + " is more than " + config.device +
                           " has (" + std::to_string(total / kMiB) + " MiB); give at most that, or 0 for the whole card",
                       {}};
    // The caching allocator sets itself up on the first allocation, and refuses a fraction before
    // ("Allocator not initialized for device", on an H100): one small tensor first, freed at once.
    (void)at::empty({1}, at::TensorOptions().device(at::kCUDA, index));
    c10::cuda::CUDACachingAllocator::setMemoryFraction(static_cast<double>(limit) / static_cast<double>(total), index);
    return std::nullopt;
#else
    return Failure{FailureCategory::CudaUnavailable, "this native worker was built without CUDA", {}};
#endif
}

std::optional<Failure> memoryLimitPassed(const RunConfig &config, const char *when)
{
    if (config.memoryLimitMib <= 0 || config.onCuda())
        return std::nullopt;
    const std::int64_t peak = platform::ownMemory().peakResident;
    const std::string limit = "memory_limit_mib " + std::to_string(config.memoryLimitMib);
    if (peak < 0)
        return Failure{FailureCategory::InvalidConfig,
                       limit + " on the CPU needs the worker's peak resident memory, which this system does not give",
                       "set memory_limit_mib to 0 on this system"};
    if (peak <= static_cast<std::int64_t>(config.memoryLimitMib) * kMiB)
        return std::nullopt;
    return Failure{FailureCategory::OutOfMemory,
                   "out of memory at batch " + std::to_string(config.batch) + " under the memory limit: the worker's peak "
                       "resident memory " + std::to_string(peak / kMiB) + " MiB passed " + limit + " " + when,
                   "On the CPU the limit holds the worker process's peak resident memory (its high-water mark, "
                   "LibTorch and the model included), read after the first step and after the timed steps."};
}

} // namespace stepscope::engine
