#include "engine/memory_snapshot.h"

#include <torch/torch.h>

#ifdef STEPSCOPE_WITH_CUDA
#include <torch/csrc/cuda/memory_snapshot.h>
#endif

#include <cstdlib>
#include <fstream>

namespace stepscope::engine
{
namespace
{

#ifdef STEPSCOPE_WITH_CUDA
// Trace entries kept: a ResNet18 step makes a few thousand allocator events; older ones go first.
constexpr std::size_t kMaxEntries = 200000;

std::string firstLine(const std::exception &e)
{
    const std::string what = e.what();
    return what.substr(0, what.find('\n'));
}

// The snapshot as LibTorch pickles it (the Python worker's torch.cuda.memory._snapshot()).
std::string writeSnapshot(const std::string &path)
{
    // Frames by the dynamic symbol table: the default addr2line runs per address and can take
    // minutes for one step's stacks; a user's own TORCH_SYMBOLIZE_MODE stands.
    setenv("TORCH_SYMBOLIZE_MODE", "dladdr", 0);
    const std::string pickle = torch::cuda::_memory_snapshot_pickled();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(pickle.data(), static_cast<std::streamsize>(pickle.size()));
    out.close();
    return out ? std::string() : "cannot write " + path;
}
#endif

} // namespace

MemorySnapshotOutcome recordStepSnapshot(TrainingStep &step, const torch::Device &device, const std::string &path)
{
    MemorySnapshotOutcome out;
    if (!device.is_cuda()) {
        out.problem = "no memory timeline on the CPU";
        return out;
    }
#ifdef STEPSCOPE_WITH_CUDA
    bool recording = false;
    try {
        torch::cuda::synchronize(device.index());
        // C++ stacks of every alloc and free ("all": this process has no Python frames).
        torch::cuda::_record_memory_history(std::optional<std::string>("all"), std::optional<std::string>("all"),
                                            std::string("all"), kMaxEntries);
        recording = true;
        step.step();
        torch::cuda::synchronize(device.index());
        out.problem = writeSnapshot(path);
        torch::cuda::_record_memory_history(std::nullopt);
        recording = false;
    } catch (const std::exception &e) {
        if (recording) {
            try {
                torch::cuda::_record_memory_history(std::nullopt);
            } catch (const std::exception &) {
            }
        }
        out.problem = "the memory timeline failed: " + firstLine(e);
    }
    if (out.problem.empty())
        out.path = path;
#else
    (void)step, (void)path;
    out.problem = "this worker was built without CUDA, so it keeps no memory timeline";
#endif
    return out;
}

MemorySnapshotOutcome writeOutOfMemorySnapshot(const torch::Device &device, const std::string &path)
{
    MemorySnapshotOutcome out;
    out.outOfMemory = true;
#ifdef STEPSCOPE_WITH_CUDA
    try {
        out.problem = device.is_cuda() ? writeSnapshot(path) : "a CPU run has no allocator snapshot";
    } catch (const std::exception &e) {
        out.problem = "the allocator's state could not be written: " + firstLine(e);
    }
    if (out.problem.empty())
        out.path = path;
#else
    (void)device, (void)path;
    out.problem = "this worker was built without CUDA";
#endif
    return out;
}

} // namespace stepscope::engine
