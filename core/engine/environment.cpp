// What the worker says about its machine in `hello`: everything that can skew a number.
#include "engine/cpu_affinity.h"
#include "engine/engine.h"
#include "engine/gpu_state.h"
#include "platform/platform.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/cuda.h>
#include <torch/version.h>

#ifdef STEPSCOPE_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime_api.h>
#endif

namespace stepscope::engine
{
namespace
{

std::string envOr(const char *name, const char *fallback)
{
    const auto v = platform::environmentVariable(name);
    return v && !v->empty() ? *v : fallback;
}

#ifdef STEPSCOPE_WITH_CUDA
// nvidia-smi's spelling: "GPU-" and the 16 bytes as 8-4-4-4-12 hex digits.
std::string uuidText(const cudaUUID_t &uuid)
{
    static const char *hex = "0123456789abcdef";
    std::string out = "GPU-";
    for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out += '-';
        const auto byte = static_cast<unsigned char>(uuid.bytes[i]);
        out += hex[byte >> 4];
        out += hex[byte & 15];
    }
    return out;
}

std::string pciBusId(int index)
{
    char pci[32] = {};
    return cudaDeviceGetPCIBusId(pci, sizeof pci, index) == cudaSuccess ? std::string(pci) : std::string("unknown");
}
#endif

std::string dottedVersion(long v, long major, long minor)
{
    // cuDNN 9.19.0 is 91900; CUDA 13.0 is 13000.
    return std::to_string(v / major) + "." + std::to_string((v % major) / minor) + "." + std::to_string(v % minor);
}

} // namespace

Environment probeEnvironment(const RunConfig &config)
{
    Environment env;
    env.emplace_back("worker", "native");
    env.emplace_back("host", platform::hostName());
    env.emplace_back("cpu", platform::cpuModel());
    env.emplace_back("cpu_threads", std::to_string(at::get_num_threads()));
    // What was asked for and what the process got: "one" names no core, the read-back mask does.
    env.emplace_back("cpu_affinity", config.cpuAffinity);
    env.emplace_back("cpu_cores", formatCoreList(allowedCores()));
    env.emplace_back("torch", TORCH_VERSION);
    env.emplace_back("python", "none (LibTorch C++)");
    env.emplace_back("triton", "none (LibTorch C++)");
    env.emplace_back("device", config.device);
    env.emplace_back("cuda_module_loading", envOr("CUDA_MODULE_LOADING", "unset (LibTorch default: LAZY)"));
    env.emplace_back("cuda_cache_path", envOr("CUDA_CACHE_PATH", "unset (default ~/.nv/ComputeCache)"));
#ifdef STEPSCOPE_WITH_CUDA
    if (torch::cuda::is_available()) {
        int runtime = 0, driver = 0;
        cudaRuntimeGetVersion(&runtime);
        cudaDriverGetVersion(&driver);
        env.emplace_back("cuda_runtime", dottedVersion(runtime, 1000, 10));
        env.emplace_back("cuda_driver_api", dottedVersion(driver, 1000, 10));
        env.emplace_back("cudnn", dottedVersion(at::detail::getCUDAHooks().versionCuDNN(), 10000, 100));
        const int index = config.onCuda() ? config.cudaIndex() : 0;
        if (index < static_cast<int>(torch::cuda::device_count())) {
            const auto *prop = at::cuda::getDeviceProperties(static_cast<c10::DeviceIndex>(index)); // < device_count()
            env.emplace_back("gpu", prop->name);
            env.emplace_back("gpu_sms", std::to_string(prop->multiProcessorCount));
            env.emplace_back("gpu_memory_mib", std::to_string(prop->totalGlobalMem >> 20));
            env.emplace_back("gpu_cc", std::to_string(prop->major) + "." + std::to_string(prop->minor));
            // Which card of a several-GPU host ran it (issue 21): the index as this process saw it,
            // and what names the card whatever CUDA_VISIBLE_DEVICES did to the index.
            env.emplace_back("gpu_index", std::to_string(index));
            env.emplace_back("gpu_uuid", uuidText(prop->uuid));
            env.emplace_back("gpu_pci_bus_id", pciBusId(index));
            // The card before the run: an idle clock here is normal; the state after the timed
            // steps comes in its own message.
            for (const auto &[key, value] : readGpuState(index))
                env.emplace_back(key == "nvidia_driver" ? "driver" : "before_" + key, value);
        }
    } else {
        env.emplace_back("gpu", "none (CUDA not available)");
    }
#else
    env.emplace_back("gpu", "none (engine built without CUDA)");
#endif
    return env;
}

} // namespace stepscope::engine

namespace stepscope::engine
{
int cudaDeviceCount()
{
    return torch::cuda::is_available() ? static_cast<int>(torch::cuda::device_count()) : 0;
}

std::vector<CudaDeviceInfo> cudaDevices()
{
    std::vector<CudaDeviceInfo> devices;
#ifdef STEPSCOPE_WITH_CUDA
    for (int i = 0; i < cudaDeviceCount(); ++i) {
        const auto *prop = at::cuda::getDeviceProperties(static_cast<c10::DeviceIndex>(i)); // i < device_count()
        devices.push_back(
            {i, prop->name, uuidText(prop->uuid), pciBusId(i), static_cast<long long>(prop->totalGlobalMem >> 20)});
    }
#endif
    return devices;
}
} // namespace stepscope::engine
