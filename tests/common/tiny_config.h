#pragma once
// The smallest configuration the engine runs on a CPU in a test: 32x32 images, batch 2, 10 classes.
#include "config/run_config.h"

namespace stepscope::test
{

inline RunConfig tinyCpuConfig(int warmupSteps, int steps)
{
    RunConfig c;
    c.device = "cpu";
    c.batch = 2;
    c.imageSize = 32;
    c.classes = 10;
    c.warmupSteps = warmupSteps;
    c.steps = steps;
    return c;
}

} // namespace stepscope::test
