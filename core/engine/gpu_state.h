#pragma once
// Clocks, temperature, power and throttle reasons of a GPU, read through NVML when the driver
// provides it (loaded at run time through platform::SharedLibrary: no build-time dependency, and
// nothing breaks where NVML is absent).
// Engine-internal; no torch.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stepscope::engine
{

// Empty when NVML or the device is not available. Keys: nvidia_driver, sm_clock_mhz,
// sm_clock_max_mhz, mem_clock_mhz, temperature_c, power_w, throttle_reasons.
std::vector<std::pair<std::string, std::string>> readGpuState(int cudaIndex);

// The GPU's total-energy counter (nvmlDeviceGetTotalEnergyConsumption: millijoules since the driver
// loaded; Volta and later), or why it cannot be read ("no energy counter: ...").
struct EnergyCount {
    std::optional<unsigned long long> millijoules;
    std::string problem;
};
EnergyCount readEnergy(int cudaIndex);

} // namespace stepscope::engine
