#include "report/memory_text.h"

#include "profile/profile_summary.h"
#include "report/cache_text.h"

namespace stepscope::report
{

std::string memoryBlockText(const profile::MemoryBlock &block)
{
    std::string frames;
    for (const std::string &f : block.frames)
        frames += (frames.empty() ? "" : " < ") + f;
    if (frames.empty())
        frames = "no stack recorded: allocated before the step's history began (parameters, optimizer state), by "
                 "C++ code with no Python frames (autograd's backward), or in a snapshot without history";
    return formatBytes(block.bytes) + "  " + frames;
}

MemoryLines memoryLines(const profile::StoredMemory &memory, std::size_t topBlocks)
{
    const bool oom = memory.kind == profile::SnapshotKind::OutOfMemory;
    MemoryLines out;
    out.title = oom ? "memory snapshot at the out-of-memory failure" : "memory timeline";
    if (!memory.timeline) {
        out.lines.push_back("none (" + memory.problem + ")");
        return out;
    }
    const profile::MemoryTimeline &t = *memory.timeline;
    if (oom)
        out.lines.push_back(formatBytes(t.peakAllocated) + " allocated, " + formatBytes(t.peakReserved) +
                            " reserved when the run failed");
    else
        out.lines.push_back("one step after the timed ones, " + std::to_string(t.events) +
                            " allocator events: allocated peaks at " + formatBytes(t.peakAllocated) + ", reserved at " +
                            formatBytes(t.peakReserved) +
                            (t.points.empty() ? std::string()
                                              : " (from " + formatBytes(t.points.front().allocated) + " and " +
                                                    formatBytes(t.points.front().reserved) + " as the step began)"));
    out.lines.push_back("Snapshot: " + (memory.file.empty()
                                            ? std::string("not kept")
                                            : memory.file + " beside the database (" + profile::kMemoryVizHint + ")"));
    if (!t.note.empty())
        out.lines.push_back("Note: " + t.note);
    if (!t.blocks.empty())
        out.lines.push_back("Biggest blocks " + std::string(oom ? "live at the failure" : "live at the peak") + " (" +
                            std::to_string(t.liveBlocks) + " live):");
    for (std::size_t i = 0; i < t.blocks.size() && i < topBlocks; ++i)
        out.lines.push_back("  " + memoryBlockText(t.blocks[i]));
    return out;
}

MemoryLines runMemoryLines(const store::RunRecord &run, std::size_t topBlocks)
{
    const auto stored = profile::profileFromJson(run.profileJson);
    if (!stored || !stored->memory)
        return {};
    return memoryLines(*stored->memory, topBlocks);
}

} // namespace stepscope::report
