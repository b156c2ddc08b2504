#pragma once
// The profile of a run (engine.h, ProfileRequest): K more steps under LibTorch's Kineto profiler
// after the timed ones, so that the profiler's own cost never sits inside a timed step.
// Engine-internal (includes torch).
#include "engine/engine.h"
#include "engine/training_step.h"

namespace stepscope::engine
{

// Never throws: a profiler that cannot start or save says so in the outcome's problem.
ProfileOutcome profileSteps(TrainingStep &step, const torch::Device &device, const ProfileRequest &request);

} // namespace stepscope::engine
