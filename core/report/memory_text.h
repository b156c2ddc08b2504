#pragma once
// A run's memory snapshot for people (issue 31.2): `show RUN`, the run detail and the Why page say
// the same words of it. Reads the summary stored with the run's profile (profile/memory_timeline.h).
#include "profile/memory_timeline.h"
#include "store/store.h"

#include <string>
#include <vector>

namespace stepscope::report
{

struct MemoryLines {
    std::string title;              // "memory timeline", "memory snapshot at the out-of-memory failure"; "" with none
    std::vector<std::string> lines; // facts: the peaks, the kept file and how to open it, the biggest blocks
};

// Empty title for a run that was never asked for a snapshot (profiling off, files of before 31.2).
MemoryLines runMemoryLines(const store::RunRecord &run, std::size_t topBlocks = 5);
MemoryLines memoryLines(const profile::StoredMemory &memory, std::size_t topBlocks = 5);

// "8.0 MiB  _forward_impl (torchvision/models/resnet.py:270) < step (train.py:12)": a block and the
// frames it was allocated from, innermost first; a block without them says why.
std::string memoryBlockText(const profile::MemoryBlock &block);

} // namespace stepscope::report
