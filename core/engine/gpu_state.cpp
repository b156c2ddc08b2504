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

} // namespace

std::vector<std::pair<std::string, std::string>> readGpuState(int cudaIndex)
{
    std::vector<std::pair<std::string, std::string>> state;
    static const auto lib = platform::SharedLibrary::open(platform::nvmlLibraryName());
    if (!lib)
        return state;
    auto sym = [](const char *name) { return lib->symbol(name); };
    static const bool initialised = [&] {
        auto init = reinterpret_cast<InitFn>(sym("nvmlInit_v2"));
        return init && init() == 0;
    }();
    if (!initialised)
        return state;
    // CUDA and NVML number devices differently (CUDA_VISIBLE_DEVICES, ordering): match by PCI id.
    char pci[32] = {};
    if (cudaDeviceGetPCIBusId(pci, sizeof pci, cudaIndex) != cudaSuccess)
        return state;
    auto byPci = reinterpret_cast<ByPciFn>(sym("nvmlDeviceGetHandleByPciBusId_v2"));
    NvmlDevice device = nullptr;
    if (!byPci || byPci(pci, &device) != 0)
        return state;

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

#else

std::vector<std::pair<std::string, std::string>> readGpuState(int)
{
    return {};
}

#endif

} // namespace stepscope::engine
