#pragma once
// Figures that the engine, the report and both front-ends must agree on. Header only: the stats
// library, which links nothing of Stepscope's, includes it too.
#include <cstdint>

namespace stepscope
{

// The planned run length N the recommendation compares total times for, when none is given.
constexpr std::int64_t kDefaultPlannedSteps = 10000;

// Noise flags of a steady figure (DESIGN.md "Measurement rules"): IQR / median, or the spread of
// the per-process medians over their median, at or above kNoiseWarn warns ("noisy"), at or above
// kNoiseUnreliable the figure is "unreliable". The first step across processes uses them too.
constexpr double kNoiseWarn = 0.10;
constexpr double kNoiseUnreliable = 0.25;

} // namespace stepscope
