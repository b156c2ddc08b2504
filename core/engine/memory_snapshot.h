#pragma once
// The run's CUDA memory snapshot (engine.h, ProfileRequest::memorySnapshotPath; issue 31.2): one
// more step after the timed ones with LibTorch's caching allocator recording its history, written
// as the pickle pytorch.org/memory_viz opens, or the allocator's state when the run fails out of
// memory. Never during the timed steps: recording each allocation's stack costs time on every one.
// Engine-internal (includes torch).
#include "engine/engine.h"
#include "engine/training_step.h"

namespace stepscope::engine
{

// Never throws: a snapshot that cannot be taken or written says so in the outcome's problem.
MemorySnapshotOutcome recordStepSnapshot(TrainingStep &step, const torch::Device &device, const std::string &path);
// Called as the run fails out of memory on `device`: by then the failed step's tensors have been
// freed (the exception unwound them), so the state shows what stayed (parameters, optimizer state,
// the cached segments that could not take the allocation).
MemorySnapshotOutcome writeOutOfMemorySnapshot(const torch::Device &device, const std::string &path);

} // namespace stepscope::engine
