#pragma once
// What a GPU run's steps cost in energy (issue 31.4): the GPU's total-energy counter (NVML's
// nvmlDeviceGetTotalEnergyConsumption, millijoules since the driver loaded) read around the first
// step and around the timed block of steps. The worker sends the differences with the windows' length
// (the protocol's `energy` message), the store keeps them per run, and the ledger turns them into
// joules per step with an interval over processes.
//
// The counter moves in steps of 20-100 ms (the GPU's own update period), so a window shorter than
// about a second is said to be too short (kMinEnergyWindowSeconds) rather than read as exact. A
// device without the counter (a CPU run, a GPU before Volta, no NVML) has `problem` and no figure:
// never zero joules.
#include <optional>
#include <string>

namespace stepscope
{

// Windows shorter than this are too short for the counter's update period to vanish in.
constexpr double kMinEnergyWindowSeconds = 1.0;

struct EnergyReading {
    std::optional<double> firstStepJoules, firstStepSeconds; // around step 1, synchronized at both ends
    std::optional<double> blockJoules, blockSeconds;          // around the timed steps
    int blockSteps = 0;
    std::string problem; // why there is no reading ("no energy counter: ..."); empty when there is one
    bool recorded() const { return blockJoules.has_value() || firstStepJoules.has_value() || !problem.empty(); }
    std::optional<double> joulesPerStep() const
    {
        return blockJoules && blockSteps > 0 ? std::optional<double>(*blockJoules / blockSteps) : std::nullopt;
    }
    std::optional<double> blockWatts() const
    {
        return blockJoules && blockSeconds && *blockSeconds > 0 ? std::optional<double>(*blockJoules / *blockSeconds)
                                                                : std::nullopt;
    }
};

} // namespace stepscope
