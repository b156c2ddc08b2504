#pragma once
// Why a run has no steady state, as data: stats finds it, the store keeps it (a token and its
// numbers), and views word it with describe(). Nothing downstream reads the words back, so a
// rewording changes no figure.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stepscope
{

struct SteadyProblem {
    enum class Kind {
        TooFewSteps,       // fewer timed steps after the first one than detection needs
        StillDrifting,     // the last half of the run still rises or falls (earlyMs to lateMs)
        NeverSettles,      // no stretch from which the steps stay at one level
        TooFewAfterWarmup, // what remains after the warm-up is too short
        WindowMismatch,    // a stored window that does not fit the stored steps (a damaged row)
    };
    Kind kind = Kind::NeverSettles;
    std::int64_t steps = 0;         // TooFewSteps, TooFewAfterWarmup: the steps there were
    std::int64_t needed = 0;        // ... and the steps detection needs
    double earlyMs = 0, lateMs = 0; // StillDrifting: the level at the start and at the end of the last half

    bool operator==(const SteadyProblem &o) const
    {
        return kind == o.kind && steps == o.steps && needed == o.needed && earlyMs == o.earlyMs && lateMs == o.lateMs;
    }
};

// The stored form: "too-few-steps", "still-drifting", ...
std::string_view toString(SteadyProblem::Kind kind);
std::optional<SteadyProblem::Kind> steadyProblemKindFromString(std::string_view token);

// For people: "step times still fall from 12.4 ms to 0.71 ms over the last half of the run; run
// more steps or check for throttling".
std::string describe(const SteadyProblem &problem);

} // namespace stepscope
