#pragma once
// The native engine's public face: no torch header, so the worker's main, the CLI and tests that
// only drive the engine compile fast. The training itself lives in the .cpp files of this folder.
#include "common/energy.h"
#include "common/failure.h"
#include "config/run_config.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stepscope::engine
{

// Ordered key/value facts about the machine and libraries ("gpu", "torch", "cudnn", ...).
using Environment = std::vector<std::pair<std::string, std::string>>;
Environment probeEnvironment(const RunConfig &config);

// K steady steps profiled after the timed ones (issue 18.1), written as a Chrome trace to
// `tracePath`; steps 0 profiles nothing. `memorySnapshotPath` (issue 31.2): on CUDA, one step with
// the caching allocator's history before the profile, or its state when the run fails out of
// memory, written there as the pickle pytorch.org/memory_viz opens; empty for none.
struct ProfileRequest {
    int steps = 0;
    std::string tracePath;
    std::string memorySnapshotPath;
};
// The memory snapshot written, or why there is none ("no memory timeline on the CPU").
struct MemorySnapshotOutcome {
    bool outOfMemory = false; // the state at an out-of-memory failure, not a step's timeline
    std::string path;         // written (empty when not)
    std::string problem;      // why not (empty when written)
};
struct ProfileOutcome {
    int steps = 0;
    double wallMs = 0;                   // the profiled steps and the synchronize after them
    std::optional<double> profilerGflop; // the profiler's FLOP counters over those steps, per step
    std::string tracePath;               // written (empty when the profile failed)
    std::string problem;                 // why it failed (empty when it did not)
};

// What a run reports as it goes. Called on the engine's thread, in this order:
// ready, firstStep, steps (batched, repeatedly), gpuState, memory, energy, check, phase, memorySnapshot
// and profile (when asked), done.
class Listener
{
  public:
    virtual ~Listener() = default;
    virtual void ready(double setupSeconds) = 0;
    virtual void firstStep(double wallSeconds) = 0;
    // Steps firstIndex, firstIndex + 1, ... (1 = the first step). gpuMs is empty on the CPU.
    virtual void steps(int firstIndex, const std::vector<double> &gpuMs, const std::vector<double> &wallMs) = 0;
    // The GPU's clocks, temperature and throttle reasons right after the timed steps (CUDA with
    // NVML only): what a throttled or idle-clocked card did to the figures.
    virtual void gpuState(const Environment &state) { (void)state; }
    virtual void memory(std::int64_t peakAllocated, std::int64_t peakReserved) = 0;
    // The GPU's energy over the first step and the timed steps, or why there is none (after memory).
    virtual void energy(const EnergyReading &reading) { (void)reading; }
    virtual void check(const std::vector<double> &losses) = 0;
    // The profile after the timed steps (ProfileRequest): a phase line before it starts, then the
    // trace's facts, or why there is none. A failed profile never fails the run.
    virtual void phase(const std::string &name, double elapsedSeconds) { (void)name, (void)elapsedSeconds; }
    virtual void profile(const ProfileOutcome &outcome) { (void)outcome; }
    // The memory snapshot (ProfileRequest::memorySnapshotPath): a step's, after the profiling phase
    // line and before the profile; or, out of memory, the state at the failure, before run() returns it.
    virtual void memorySnapshot(const MemorySnapshotOutcome &outcome) { (void)outcome; }
    virtual void done(int steps, double meanWallMsOverTimedBlock) = 0;
};

using Clock = std::chrono::steady_clock;

// Runs one configuration: setup, the first step, warm-up and measured steps. Returns the failure,
// if any (cancel is checked between steps). `processStart` anchors the setup time. `modulePath`:
// the TorchScript export of a model other than resnet18 (issue 30.3; the Python worker's
// --export-torchscript), required for one and ignored for resnet18.
std::optional<Failure> run(const RunConfig &config, Listener &listener, const std::atomic<bool> &cancel,
                           Clock::time_point processStart, const ProfileRequest &profile = {},
                           const std::string &modulePath = {});

// Number of losses kept for the accuracy gate.
constexpr int kCheckSteps = 10;

} // namespace stepscope::engine

namespace stepscope::engine
{
// CUDA devices LibTorch can use here (0 without CUDA).
int cudaDeviceCount();
// Each of them, for a sweep over several GPUs (issue 21): lanes are dealt by model.
struct CudaDeviceInfo {
    int index = 0;
    std::string name, uuid, pciBusId;
    long long memoryMib = 0;
};
std::vector<CudaDeviceInfo> cudaDevices();
} // namespace stepscope::engine
