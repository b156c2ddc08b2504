#pragma once
// A run's CUDA memory snapshot (issue 31.2), as the supervisor keeps it. After its timed steps (and
// before its profile), a CUDA worker records the caching allocator's history over one more training
// step and writes the snapshot pickle that pytorch.org/memory_viz opens (Python:
// torch.cuda.memory._snapshot; LibTorch: torch::cuda::_memory_snapshot_pickled); a run that fails
// out of memory writes the allocator's state at the failure instead. The supervisor reads the
// pickle once (pickle_reader.h) into this summary, stores it with the run's profile, and keeps the
// pickle gzip-compressed beside the trace. Every view draws from the summary, never the pickle.
//
// The summary replays the step's trace entries against the state at its end, as memory_viz does:
// allocated moves with alloc and free_completed, reserved with segment_alloc/_map and
// segment_free/_unmap; the level before the first entry is the end's minus every change. The
// biggest blocks are those live at the peak of allocated, with the frames they were allocated from
// (none for a block allocated before history was recorded: parameters, optimizer state).
#include <QJsonObject>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stepscope::profile
{

// Which moment a snapshot holds.
enum class SnapshotKind {
    Step,       // one training step after the timed ones, with the allocator's history
    OutOfMemory // the allocator's state when the run failed out of memory (no history)
};
const char *toString(SnapshotKind kind); // "step", "out-of-memory" (protocol and stored data)
std::optional<SnapshotKind> snapshotKindFromString(std::string_view text);

struct MemoryPoint {
    double x = 0; // ms since the step's first allocator event, or the event's index (MemoryTimeline::timeAxis)
    std::int64_t allocated = 0, reserved = 0; // bytes after the event
};

struct MemoryBlock {
    std::int64_t bytes = 0;
    std::vector<std::string> frames; // innermost first, the model's own before the library's; empty: no stack
};

struct MemoryTimeline {
    bool timeAxis = true;            // points' x in ms; false: the allocator recorded no times
    std::vector<MemoryPoint> points; // before the first event, then after each (kMaxMemoryPoints, peaks kept)
    std::int64_t events = 0;         // trace entries over the step (0: no history, the state only)
    std::int64_t peakAllocated = 0, peakReserved = 0; // over the step; the state's own without history
    std::int64_t liveBlocks = 0;                      // blocks live at the peak
    std::vector<MemoryBlock> blocks;                  // the biggest of them, largest first (kMaxMemoryBlocks)
    std::string note;                                 // what the summary could not tell ("" when nothing)
};
constexpr std::size_t kMaxMemoryPoints = 2000;
constexpr std::size_t kMaxMemoryBlocks = 10;
constexpr std::size_t kMaxBlockFrames = 6;

// The summary of a snapshot pickle, or nullopt with `problem` (not a pickle, not a snapshot).
std::optional<MemoryTimeline> summarizeSnapshot(std::string_view pickle, std::string &problem);

// A run's stored snapshot: its summary, or why there is none ("no memory timeline on the CPU"), and
// the kept pickle's name beside the database.
struct StoredMemory {
    SnapshotKind kind = SnapshotKind::Step;
    std::optional<MemoryTimeline> timeline;
    std::string problem; // why there is no summary ("" with one)
    std::string file;    // the kept .memory.pickle.gz beside the database ("" when not kept)
};

QJsonObject toJsonObject(const StoredMemory &memory);
StoredMemory storedMemoryFromJson(const QJsonObject &object);

// Where memory_viz is, for every text that points at a kept snapshot: it reads the pickle itself,
// not the gzip-compressed file kept, hence the gunzip.
inline constexpr char kMemoryVizHint[] = "gunzip it, then open it at https://pytorch.org/memory_viz";

} // namespace stepscope::profile
