#include "common/steady_problem.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <utility>

namespace stepscope
{
namespace
{

constexpr std::array<std::pair<SteadyProblem::Kind, std::string_view>, 5> kTokens{{
    {SteadyProblem::Kind::TooFewSteps, "too-few-steps"},
    {SteadyProblem::Kind::StillDrifting, "still-drifting"},
    {SteadyProblem::Kind::NeverSettles, "never-settles"},
    {SteadyProblem::Kind::TooFewAfterWarmup, "too-few-after-warmup"},
    {SteadyProblem::Kind::WindowMismatch, "window-mismatch"},
}};

// Three significant digits at most: 0.712 ms, 12.4 ms, 1680 ms. Plain C formatting of a double in
// the "C" locale's shape (the worker and report paths never set LC_NUMERIC).
std::string level(double ms)
{
    char buffer[32];
    const double a = std::abs(ms);
    std::snprintf(buffer, sizeof buffer, a >= 100 ? "%.0f ms" : a >= 10 ? "%.1f ms" : "%.3g ms", ms);
    return buffer;
}

} // namespace

std::string_view toString(SteadyProblem::Kind kind)
{
    for (const auto &[k, token] : kTokens)
        if (k == kind)
            return token;
    return "never-settles";
}

std::optional<SteadyProblem::Kind> steadyProblemKindFromString(std::string_view token)
{
    for (const auto &[k, t] : kTokens)
        if (t == token)
            return k;
    return std::nullopt;
}

std::string describe(const SteadyProblem &p)
{
    switch (p.kind) {
    case SteadyProblem::Kind::TooFewSteps:
        return "only " + std::to_string(p.steps) + " steps after the first one were timed; at least " +
               std::to_string(p.needed) + " are needed to find a steady state";
    case SteadyProblem::Kind::StillDrifting:
        return std::string("step times still ") + (p.lateMs > p.earlyMs ? "rise" : "fall") + " from " +
               level(p.earlyMs) + " to " + level(p.lateMs) +
               " over the last half of the run; run more steps or check for throttling";
    case SteadyProblem::Kind::NeverSettles:
        return "the steps of the run do not settle at one step time; run more steps";
    case SteadyProblem::Kind::TooFewAfterWarmup:
        return "only " + std::to_string(p.steps) + " steps remain after warm-up; at least " + std::to_string(p.needed) +
               " are needed, run more steps";
    case SteadyProblem::Kind::WindowMismatch:
        return "the stored steady window does not match the stored steps";
    }
    return "no steady state";
}

} // namespace stepscope
