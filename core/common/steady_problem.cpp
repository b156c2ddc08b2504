#include "common/steady_problem.h"

#include <algorithm>
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

// Up to two significant digits: 4936 -> 5000, 140 -> 140, 123 -> 130. A step count to type.
std::int64_t roundUpTwoDigits(std::int64_t n)
{
    std::int64_t scale = 1;
    while (n / scale >= 100)
        scale *= 10;
    return (n + scale - 1) / scale * scale;
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

std::optional<std::int64_t> suggestedSteps(const SteadyProblem &p)
{
    std::int64_t steps = 0;
    switch (p.kind) {
    case SteadyProblem::Kind::TooFewSteps:
        // Three times the minimum leaves room for a warm-up before the window.
        steps = std::max<std::int64_t>(3 * std::max<std::int64_t>(p.needed, 10), 2 * p.steps);
        break;
    case SteadyProblem::Kind::StillDrifting:
    case SteadyProblem::Kind::NeverSettles:
        // The last half still moved, so the warm-up took more than half the run: four times as many
        // steps leave it a quarter of the next run at most.
        steps = 4 * p.runSteps;
        break;
    case SteadyProblem::Kind::TooFewAfterWarmup:
        // The warm-up it had, and the window it lacked, twice over.
        if (p.runSteps > 0)
            steps = std::max(2 * p.runSteps, 2 * (p.runSteps - p.steps + p.needed));
        break;
    case SteadyProblem::Kind::WindowMismatch:
        break;
    }
    if (steps <= 0)
        return std::nullopt;
    return roundUpTwoDigits(steps);
}

std::string describe(const SteadyProblem &p)
{
    const auto suggested = suggestedSteps(p);
    const std::string advice =
        suggested ? "; try --steps " + std::to_string(*suggested) : std::string("; run more steps");
    std::string text;
    switch (p.kind) {
    case SteadyProblem::Kind::TooFewSteps:
        text = "only " + std::to_string(p.steps) + " steps after the first one were timed, and finding a steady " +
               "state needs at least " + std::to_string(p.needed) + advice;
        break;
    case SteadyProblem::Kind::StillDrifting:
        text = "step times went from " + level(p.earlyMs) + " to " + level(p.lateMs) +
               " over the last half of the run and were still " +
               (p.lateMs > p.earlyMs ? "rising (throttling, or a cache that keeps growing?)" : "falling") + advice;
        break;
    case SteadyProblem::Kind::NeverSettles:
        text = "step times did not stay at one level anywhere in the run" +
               (p.runSteps > 0 ? "'s " + std::to_string(p.runSteps) + " steps after the first" : std::string()) +
               advice;
        break;
    case SteadyProblem::Kind::TooFewAfterWarmup:
        text = "only " + std::to_string(p.steps) + " steps remained after warm-up, and a steady state needs at least " +
               std::to_string(p.needed) + advice;
        break;
    case SteadyProblem::Kind::WindowMismatch:
        text = "the stored steady window does not match the stored steps";
        break;
    }
    if (p.machineBusy()) {
        char load[64];
        std::snprintf(load, sizeof load, "%.1f on %d core%s", p.loadAverage, p.cores, p.cores == 1 ? "" : "s");
        text += std::string("; the machine was busy (load average ") + load +
                "): other work on its cores moves step times, so run it on an idle machine";
    }
    return text.empty() ? "no steady state" : text;
}

} // namespace stepscope
