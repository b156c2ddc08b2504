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
    // The steps after the first one that detection was given (warm-up included), so that a view can
    // name a run length to try; 0 where unknown (summaries stored before it was kept).
    std::int64_t runSteps = 0;
    // The machine's 1-minute load average when the run ended and the cores it counts against, as
    // the supervisor read them (platform::machineLoad); cores 0: not recorded. Other work on the
    // cores moves step times, most of all on the CPU, where the step itself needs every core.
    double loadAverage = 0;
    int cores = 0;

    // More runnable tasks than cores: something else competed with the run for them.
    bool machineBusy() const { return cores > 0 && loadAverage > cores; }

    bool operator==(const SteadyProblem &o) const
    {
        return kind == o.kind && steps == o.steps && needed == o.needed && earlyMs == o.earlyMs && lateMs == o.lateMs &&
               runSteps == o.runSteps && loadAverage == o.loadAverage && cores == o.cores;
    }
};

// The stored form: "too-few-steps", "still-drifting", ...
std::string_view toString(SteadyProblem::Kind kind);
std::optional<SteadyProblem::Kind> steadyProblemKindFromString(std::string_view token);

// A run length (--steps, the measured steps after warm-up) that should give the detector what it
// lacked; none where the problem is no matter of length (a damaged row) or the run's length is not
// known. Rounded up to two significant digits.
std::optional<std::int64_t> suggestedSteps(const SteadyProblem &problem);

// For people, with the levels and what to do: "step times went from 12.4 ms to 0.712 ms over the
// last half of the run and were still falling; try --steps 400", and the machine's load when it
// was busy.
std::string describe(const SteadyProblem &problem);

} // namespace stepscope
