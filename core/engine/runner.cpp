// The step runner: setup, first step, warm-up and measured steps, with per-step timing. The timing
// rules (step 1 alone, the flush of 16 steps or 250 ms, the warm-up floor, the hand-off of every step
// to the steady-state detection) are written once, for this runner and the Python worker's
// (resources/python/stepscope_py/runner.py), in docs/decisions.md, "Timing rules of both workers".
#include "engine/engine.h"
#include "engine/gpu_state.h"
#include "engine/memory_snapshot.h"
#include "engine/memory_limit.h"
#include "engine/step_profile.h"
#include "engine/training_step.h"
#include "config/model_name.h"
#include "platform/platform.h"

#include <torch/torch.h>

#ifdef STEPSCOPE_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include <cstdlib>
#include <deque>
#include <new>
#include <string>

namespace stepscope::engine
{
namespace
{

double msSince(Clock::time_point t0, Clock::time_point t1)
{
    return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

void synchronize(const torch::Device &device)
{
#ifdef STEPSCOPE_WITH_CUDA
    if (device.is_cuda())
        torch::cuda::synchronize(device.index());
#else
    (void)device;
#endif
}

// Streams step times to the listener in batches. On CUDA, a step's GPU time is known only once its
// end event has completed; pending steps are handed on when their events have completed, which is
// checked without synchronizing, so reporting never drains the launch queue of a timed block.
class StepTimer
{
  public:
    StepTimer(Listener &listener, bool cuda) : listener_(listener), cuda_(cuda) {}

    void begin(int index)
    {
        current_ = Pending{index, Clock::now()};
#ifdef STEPSCOPE_WITH_CUDA
        if (cuda_) {
            current_.start = takeEvent();
            current_.end = takeEvent();
            current_.start->record();
        }
#endif
    }

    void end()
    {
#ifdef STEPSCOPE_WITH_CUDA
        if (cuda_)
            current_.end->record();
#endif
        current_.wallMs = msSince(current_.wallStart, Clock::now());
        pending_.push_back(std::move(current_));
        if (pending_.size() >= 16 || msSince(lastFlush_, Clock::now()) > 250)
            flush(false);
    }

    // Hands on every completed step; with `wait`, synchronizes first so nothing stays pending.
    void flush(bool wait)
    {
        std::vector<double> gpu, wall;
        int first = pending_.empty() ? 0 : pending_.front().index;
        while (!pending_.empty()) {
            auto &p = pending_.front();
#ifdef STEPSCOPE_WITH_CUDA
            if (cuda_) {
                if (wait)
                    p.end->synchronize();
                else if (!p.end->query())
                    break;
                gpu.push_back(p.start->elapsed_time(*p.end));
                spare_.push_back(std::move(p.start));
                spare_.push_back(std::move(p.end));
            }
#endif
            wall.push_back(p.wallMs);
            pending_.pop_front();
        }
        lastFlush_ = Clock::now();
        if (!wall.empty())
            listener_.steps(first, gpu, wall);
    }

  private:
#ifdef STEPSCOPE_WITH_CUDA
    // Events are recycled: creating and destroying two per step would sit inside the wall-timed
    // block of every step.
    std::unique_ptr<c10::cuda::CUDAEvent> takeEvent()
    {
        if (spare_.empty())
            return std::make_unique<c10::cuda::CUDAEvent>(cudaEventDefault);
        auto event = std::move(spare_.back());
        spare_.pop_back();
        return event;
    }
    std::vector<std::unique_ptr<c10::cuda::CUDAEvent>> spare_;
#endif
    struct Pending {
        int index = 0;
        Clock::time_point wallStart;
        double wallMs = 0;
#ifdef STEPSCOPE_WITH_CUDA
        std::unique_ptr<c10::cuda::CUDAEvent> start{}, end{}; // {}: set by begin() on CUDA only
#endif
    };
    Listener &listener_;
    bool cuda_;
    Pending current_;
    std::deque<Pending> pending_;
    Clock::time_point lastFlush_ = Clock::now();
};

// The GPU's energy counter read at the edges of the first step and of the timed block, each right
// after a synchronize and outside every timed span. One reading that fails leaves its window without
// a figure and says why; a CPU run has no counter at all.
class EnergyWindows
{
  public:
    explicit EnergyWindows(const torch::Device &device) : cudaIndex_(device.is_cuda() ? device.index() : -1)
    {
        if (cudaIndex_ < 0)
            reading_.problem = "no energy counter: a CPU run";
    }
    void beginFirstStep() { start_ = read(); }
    void endFirstStep(double seconds)
    {
        if (const auto joules = joulesSinceStart()) {
            reading_.firstStepJoules = joules;
            reading_.firstStepSeconds = seconds;
        }
    }
    void beginBlock() { start_ = read(); }
    void endBlock(double seconds, int steps)
    {
        if (const auto joules = joulesSinceStart(); joules && steps > 0) {
            reading_.blockJoules = joules;
            reading_.blockSeconds = seconds;
            reading_.blockSteps = steps;
        }
    }
    const EnergyReading &reading() const { return reading_; }

  private:
    // The window's joules: the counter now against its reading at begin*, when both were read.
    std::optional<double> joulesSinceStart()
    {
        const auto end = read();
        return start_ && end ? std::optional<double>(static_cast<double>(*end - *start_) / 1000.0) : std::nullopt;
    }
    std::optional<unsigned long long> read()
    {
        if (cudaIndex_ < 0)
            return std::nullopt;
        EnergyCount count = readEnergy(cudaIndex_);
        if (!count.millijoules && reading_.problem.empty())
            reading_.problem = count.problem;
        return count.millijoules;
    }
    int cudaIndex_;
    std::optional<unsigned long long> start_;
    EnergyReading reading_;
};

// A failed CPU allocation is not a c10::OutOfMemoryError: LibTorch's CPU allocator raises a plain
// c10::Error ("DefaultCPUAllocator: can't allocate memory: ... (Cannot allocate memory)"), and the
// C++ library std::bad_alloc.
bool isOutOfMemory(const std::exception &e, const std::string &what)
{
    if (dynamic_cast<const c10::OutOfMemoryError *>(&e) || dynamic_cast<const std::bad_alloc *>(&e))
        return true;
    for (const char *sign : {"out of memory", "can't allocate memory", "Cannot allocate memory"})
        if (what.find(sign) != std::string::npos)
            return true;
    return false;
}

// What this process used on the CPU side, and the address-space limit it ran under: the figures
// that tell a CPU out-of-memory apart from a too-low `ulimit -v`.
std::string processMemoryNote()
{
    std::string note;
    const platform::OwnMemory memory = platform::ownMemory();
    constexpr std::int64_t kMiB = 1024 * 1024;
    const std::int64_t peakResident = memory.peakResident < 0 ? -1 : memory.peakResident / kMiB;
    const std::int64_t peakVirtual = memory.peakAddressSpace < 0 ? -1 : memory.peakAddressSpace / kMiB;
    if (peakResident >= 0)
        note += "peak resident memory " + std::to_string(peakResident) + " MiB";
    if (peakVirtual >= 0)
        note += (note.empty() ? "" : ", ") + std::string("peak address space ") + std::to_string(peakVirtual) + " MiB";
    if (memory.addressSpaceLimit >= 0)
        note += (note.empty() ? "" : ", ") + std::string("under an address-space limit (ulimit -v) of ") +
                std::to_string(memory.addressSpaceLimit / kMiB) + " MiB";
    return note;
}

Failure failureFromException(const std::exception &e, const RunConfig &config, bool capturing)
{
    const std::string what = e.what();
    const std::string firstLine = what.substr(0, what.find('\n'));
    if (isOutOfMemory(e, what)) {
        std::string message = "out of memory at batch " + std::to_string(config.batch) +
                              (config.model == kDefaultModel ? ", image " + std::to_string(config.imageSize)
                                                             : " for " + config.model);
        if (!config.onCuda())
            if (const std::string note = processMemoryNote(); !note.empty())
                message += " on the CPU (" + note + ")";
        return {FailureCategory::OutOfMemory, message, what};
    }
    if (capturing)
        return {FailureCategory::GraphCaptureFailed, "CUDA graph capture failed: " + firstLine, what};
    return {FailureCategory::Internal, firstLine, what};
}

void applyGlobalFlags(const RunConfig &config)
{
    // Process-global in LibTorch: one more reason for one process per configuration.
    auto &ctx = at::globalContext();
    ctx.setAllowTF32CuBLAS(config.tf32);
    ctx.setAllowTF32CuDNN(config.tf32);
    ctx.setBenchmarkCuDNN(config.cudnnBenchmark);
}

} // namespace

std::optional<Failure> run(const RunConfig &config, Listener &listener, const std::atomic<bool> &cancel,
                           Clock::time_point processStart, const ProfileRequest &profile, const std::string &modulePath)
{
    const auto problems = validate(config);
    if (!problems.empty())
        return Failure{FailureCategory::InvalidConfig, problems.front().field + ": " + problems.front().message,
                       describe(problems)};
    if (config.model != kDefaultModel && modulePath.empty())
        return Failure{FailureCategory::InvalidConfig,
                       "model " + config.model + " needs its TorchScript export (--module PATH)",
                       "the native worker trains resnet18 itself; another model comes as the TorchScript module "
                       "the Python worker's --export-torchscript writes (a sweep makes it before the run)"};
    if (config.onCuda() && !torch::cuda::is_available())
        return Failure{FailureCategory::CudaUnavailable, "CUDA is not available to LibTorch on this machine",
                       "torch::cuda::is_available() returned false; device " + config.device};
    if (config.onCuda() && config.cudaIndex() >= static_cast<int>(torch::cuda::device_count()))
        return Failure{FailureCategory::CudaUnavailable,
                       config.device + " does not exist; this machine has " +
                           std::to_string(torch::cuda::device_count()) + " CUDA device(s)",
                       {}};

    bool capturing = false;
    const torch::Device device =
        config.onCuda() ? torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(config.cudaIndex()))
                        : torch::Device(torch::kCPU);
    try {
        applyGlobalFlags(config);
#ifdef STEPSCOPE_WITH_CUDA
        std::optional<c10::cuda::CUDAGuard> deviceGuard;
        if (device.is_cuda())
            deviceGuard.emplace(device.index());
#endif
        if (auto failure = applyMemoryLimit(config))
            return failure;
        TrainingStep step(config, device, modulePath);
        synchronize(device);
        listener.ready(msSince(processStart, Clock::now()) / 1000.0);

        // Losses of the first steps are copied on the device and read once at the end, so the
        // accuracy gate costs no host sync inside the timed steps.
        const int checkSteps = std::min(kCheckSteps, config.totalSteps());
        auto losses = torch::zeros({checkSteps}, torch::TensorOptions().device(device).dtype(torch::kFloat));

        // Step 1 alone, synchronized: autotuning, capture and lazy initialisation land here.
        synchronize(device);
        EnergyWindows energy(device);
        energy.beginFirstStep();
        const auto t0 = Clock::now();
        capturing = config.cudaGraph;
        step.step();
        capturing = false;
        losses[0].copy_(step.loss().detach().reshape({}));
        synchronize(device);
        const double firstWallMs = msSince(t0, Clock::now());
        energy.endFirstStep(firstWallMs / 1000.0);
        listener.firstStep(firstWallMs / 1000.0);
        // Step 1 has wall time only: it spans host work (autotuning, capture) that no event pair on
        // the stream would see.
        listener.steps(1, {}, {firstWallMs});
        if (auto failure = memoryLimitPassed(config, "after the first step"))
            return failure;

        StepTimer timer(listener, device.is_cuda());
        const int total = config.totalSteps();
        const int timedFrom = 2 + config.warmupSteps;
        Clock::time_point blockStart = Clock::now();
        for (int index = 2; index <= total; ++index) {
            if (cancel.load(std::memory_order_relaxed)) {
                timer.flush(true);
                return Failure{FailureCategory::Cancelled, "cancelled after step " + std::to_string(index - 1), {}};
            }
            if (index == timedFrom) {
                synchronize(device);
                energy.beginBlock();
                blockStart = Clock::now();
            }
            timer.begin(index);
            step.step();
            timer.end();
            if (index <= checkSteps)
                losses[index - 1].copy_(step.loss().detach().reshape({}));
        }
        synchronize(device);
        const double blockMs = msSince(blockStart, Clock::now());
        const int timedSteps = total - timedFrom + 1;
        energy.endBlock(blockMs / 1000.0, timedSteps);
        timer.flush(true);
        if (auto failure = memoryLimitPassed(config, "after the timed steps"))
            return failure;

#ifdef STEPSCOPE_WITH_CUDA
        if (device.is_cuda()) {
            // Read while the clocks still reflect the timed block, before anything else runs.
            if (auto state = readGpuState(device.index()); !state.empty())
                listener.gpuState(state);
            const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index());
            listener.memory(stats.allocated_bytes[0].peak, stats.reserved_bytes[0].peak);
        }
#endif
        listener.energy(energy.reading());
        auto cpuLosses = losses.cpu();
        std::vector<double> lossValues(cpuLosses.data_ptr<float>(), cpuLosses.data_ptr<float>() + checkSteps);
        listener.check(lossValues);
        // After the timed steps and every reading of them, never during: the profiler's cost lands
        // on steps no figure reads, and a worker that dies in the profiler has said all its run is.
        // The memory timeline comes before the profile: the supervisor reads its pickle from the
        // folder the profile's end clears.
        const bool profiling = profile.steps > 0 && !profile.tracePath.empty();
        if (profiling || !profile.memorySnapshotPath.empty())
            listener.phase("profiling", 0.0);
        if (!profile.memorySnapshotPath.empty())
            listener.memorySnapshot(recordStepSnapshot(step, device, profile.memorySnapshotPath));
        if (profiling)
            listener.profile(profileSteps(step, device, profile));
        listener.done(total, timedSteps > 0 ? blockMs / timedSteps : 0.0);
        return std::nullopt;
    } catch (const ModelLoadError &e) {
        return Failure{FailureCategory::ModelFailed, e.what(), {}};
    } catch (const std::exception &e) {
        Failure failure = failureFromException(e, config, capturing);
        // The allocator's state at the failure, kept for memory_viz; the supervisor points the
        // failure's text at it.
        if (failure.category == FailureCategory::OutOfMemory && device.is_cuda() &&
            !profile.memorySnapshotPath.empty())
            listener.memorySnapshot(writeOutOfMemorySnapshot(device, profile.memorySnapshotPath));
        return failure;
    }
}

} // namespace stepscope::engine
