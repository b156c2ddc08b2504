#include "engine/gpu_state.h"

#ifdef STEPSCOPE_WITH_CUDA
#include "platform/platform.h"

#include <cuda_runtime_api.h>
#endif

namespace stepscope::engine
{

#ifdef STEPSCOPE_WITH_CUDA
namespace
{

// The few NVML entry points used, declared from NVML's stable C ABI (nvml.h is not always
// installed, the library always is where a driver is).
using NvmlDevice = void *;
using InitFn = int (*)();
using ByPciFn = int (*)(const char *, NvmlDevice *);
using ClockFn = int (*)(NvmlDevice, int, unsigned *);
using TempFn = int (*)(NvmlDevice, int, unsigned *);
using PowerFn = int (*)(NvmlDevice, unsigned *);
using ReasonsFn = int (*)(NvmlDevice, unsigned long long *);
using DriverFn = int (*)(char *, unsigned);
using EnergyFn = int (*)(NvmlDevice, unsigned long long *);

constexpr int kClockSm = 1, kClockMem = 2, kTemperatureGpu = 0;

std::string reasonNames(unsigned long long bits)
{
    static const std::pair<unsigned long long, const char *> kNames[] = {
        {0x1, "idle"},        {0x2, "application-clocks"}, {0x4, "sw-power-cap"},
        {0x8, "hw-slowdown"}, {0x10, "sync-boost"},        {0x20, "sw-thermal"},
        {0x40, "hw-thermal"}, {0x80, "hw-power-brake"},    {0x100, "display-clocks"},
    };
    std::string out;
    for (const auto &[bit, name] : kNames)
        if (bits & bit)
            out += (out.empty() ? "" : ",") + std::string(name);
    return out.empty() ? "none" : out;
}

// NVML loaded and initialised once a process; null where it is not there.
const platform::SharedLibrary *nvml()
{
    static const auto lib = platform::SharedLibrary::open(platform::nvmlLibraryName());
    static const bool initialised = [] {
        auto init = lib ? reinterpret_cast<InitFn>(lib->symbol("nvmlInit_v2")) : nullptr;
        return init && init() == 0;
    }();
    return initialised ? &*lib : nullptr;
}

// The NVML handle of a CUDA device, or null with `problem` set.
NvmlDevice nvmlDevice(int cudaIndex, std::string &problem)
{
    if (!nvml()) {
        problem = "NVML (" + std::string(platform::nvmlLibraryName()) + ") could not be loaded or initialised";
        return nullptr;
    }
    // CUDA and NVML number devices differently (CUDA_VISIBLE_DEVICES, ordering): match by PCI id.
    char pci[32] = {};
    if (cudaDeviceGetPCIBusId(pci, sizeof pci, cudaIndex) != cudaSuccess) {
        problem = "CUDA gave no PCI bus id for device " + std::to_string(cudaIndex);
        return nullptr;
    }
    auto byPci = reinterpret_cast<ByPciFn>(nvml()->symbol("nvmlDeviceGetHandleByPciBusId_v2"));
    NvmlDevice device = nullptr;
    if (!byPci || byPci(pci, &device) != 0) {
        problem = std::string("NVML does not know the device at ") + pci;
        return nullptr;
    }
    return device;
}

} // namespace

std::vector<std::pair<std::string, std::string>> readGpuState(int cudaIndex)
{
    std::vector<std::pair<std::string, std::string>> state;
    std::string problem;
    NvmlDevice device = nvmlDevice(cudaIndex, problem);
    if (!device)
        return state;
    auto sym = [](const char *name) { return nvml()->symbol(name); };

    char driver[96] = {};
    if (auto fn = reinterpret_cast<DriverFn>(sym("nvmlSystemGetDriverVersion")); fn && fn(driver, sizeof driver) == 0)
        state.emplace_back("nvidia_driver", driver);
    unsigned value = 0;
    if (auto fn = reinterpret_cast<ClockFn>(sym("nvmlDeviceGetClockInfo"))) {
        if (fn(device, kClockSm, &value) == 0)
            state.emplace_back("sm_clock_mhz", std::to_string(value));
        if (fn(device, kClockMem, &value) == 0)
            state.emplace_back("mem_clock_mhz", std::to_string(value));
    }
    if (auto fn = reinterpret_cast<ClockFn>(sym("nvmlDeviceGetMaxClockInfo")); fn && fn(device, kClockSm, &value) == 0)
        state.emplace_back("sm_clock_max_mhz", std::to_string(value));
    if (auto fn = reinterpret_cast<TempFn>(sym("nvmlDeviceGetTemperature"));
        fn && fn(device, kTemperatureGpu, &value) == 0)
        state.emplace_back("temperature_c", std::to_string(value));
    if (auto fn = reinterpret_cast<PowerFn>(sym("nvmlDeviceGetPowerUsage")); fn && fn(device, &value) == 0)
        state.emplace_back("power_w", std::to_string(value / 1000));
    unsigned long long reasons = 0;
    if (auto fn = reinterpret_cast<ReasonsFn>(sym("nvmlDeviceGetCurrentClocksThrottleReasons"));
        fn && fn(device, &reasons) == 0)
        state.emplace_back("throttle_reasons", reasonNames(reasons));
    return state;
}

EnergyCount readEnergy(int cudaIndex)
{
    EnergyCount count;
    std::string problem;
    NvmlDevice device = nvmlDevice(cudaIndex, problem);
    auto fn = device ? reinterpret_cast<EnergyFn>(nvml()->symbol("nvmlDeviceGetTotalEnergyConsumption")) : nullptr;
    unsigned long long mj = 0;
    if (!device)
        count.problem = "no energy counter: " + problem;
    else if (!fn)
        count.problem = "no energy counter: this NVML has no nvmlDeviceGetTotalEnergyConsumption";
    else if (const int status = fn(device, &mj); status != 0)
        count.problem = "no energy counter on this GPU (NVML status " + std::to_string(status) + ")";
    else
        count.millijoules = mj;
    return count;
}

#else

std::vector<std::pair<std::string, std::string>> readGpuState(int)
{
    return {};
}

EnergyCount readEnergy(int)
{
    return {std::nullopt, "no energy counter: this build of the engine has no CUDA"};
}

#endif

} // namespace stepscope::engine
