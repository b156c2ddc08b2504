#include "profile/kernel_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace stepscope::profile
{
namespace
{

std::string ms(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, std::fabs(v) < 0.1 ? "%.3f ms" : "%.2f ms", v);
    return buf;
}

std::string signedMs(double v)
{
    return (v >= 0 ? "+" : "") + ms(v);
}

std::string count(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, std::fabs(v - std::round(v)) < 0.05 ? "%.0f" : "%.1f", v);
    return buf;
}

std::string shortName(const std::string &name, std::size_t max = 90)
{
    if (name.size() <= max)
        return name;
    // The start says what a templated kernel is; its arguments run on for hundreds of characters.
    return name.substr(0, max - 1) + "…";
}

} // namespace

const char *toString(KernelChange::Kind k)
{
    switch (k) {
    case KernelChange::Kind::Added:
        return "added";
    case KernelChange::Kind::Removed:
        return "removed";
    case KernelChange::Kind::Faster:
        return "faster";
    case KernelChange::Kind::Slower:
        return "slower";
    case KernelChange::Kind::Same:
        return "same";
    }
    return "";
}

KernelChange::Kind changeKind(double countA, double countB, double msA, double msB)
{
    const double delta = msB - msA;
    if (countA == 0)
        return KernelChange::Kind::Added;
    if (countB == 0)
        return KernelChange::Kind::Removed;
    if (std::fabs(delta) < 0.001 || std::fabs(delta) < kKernelChangeShare * msA)
        return KernelChange::Kind::Same;
    return delta < 0 ? KernelChange::Kind::Faster : KernelChange::Kind::Slower;
}

int ProfileDiff::count(KernelChange::Kind k) const
{
    return static_cast<int>(
        std::count_if(kernels.begin(), kernels.end(), [k](const KernelChange &c) { return c.kind == k; }));
}

ProfileDiff diffProfiles(const DiffSide &a, const DiffSide &b)
{
    ProfileDiff d;
    const ProfileSummary &pa = *a.profile;
    const ProfileSummary &pb = *b.profile;
    d.busyA = pa.busyMs;
    d.busyB = pb.busyMs;
    d.timed = a.steadyMs && b.steadyMs;
    d.stepA = d.timed ? *a.steadyMs : pa.profiledStepMs;
    d.stepB = d.timed ? *b.steadyMs : pb.profiledStepMs;
    d.kernelsA = pa.kernelsPerStep;
    d.kernelsB = pb.kernelsPerStep;
    if (a.firstStepMs && b.firstStepMs)
        d.firstStepDeltaMs = *b.firstStepMs - *a.firstStepMs;
    for (int f = 0; f < kFamilyCount; ++f) {
        FamilyChange c;
        c.family = static_cast<Family>(f);
        c.countA = pa.family(c.family).countPerStep;
        c.countB = pb.family(c.family).countPerStep;
        c.msA = pa.family(c.family).msPerStep;
        c.msB = pb.family(c.family).msPerStep;
        d.families.push_back(c);
    }
    std::map<std::string, KernelChange> byName;
    for (const auto &k : pa.kernels) {
        KernelChange &c = byName[k.name];
        c.name = k.name;
        c.family = k.family;
        c.countA = k.countPerStep;
        c.msA = k.msPerStep;
    }
    for (const auto &k : pb.kernels) {
        KernelChange &c = byName[k.name];
        c.name = k.name;
        c.family = k.family;
        c.countB = k.countPerStep;
        c.msB = k.msPerStep;
    }
    for (auto &[name, c] : byName) {
        c.kind = changeKind(c.countA, c.countB, c.msA, c.msB);
        d.kernels.push_back(std::move(c));
    }
    std::sort(d.kernels.begin(), d.kernels.end(), [](const KernelChange &x, const KernelChange &y) {
        const bool xs = x.kind == KernelChange::Kind::Same, ys = y.kind == KernelChange::Kind::Same;
        if (xs != ys)
            return ys;
        if (std::fabs(x.deltaMs()) != std::fabs(y.deltaMs()))
            return std::fabs(x.deltaMs()) > std::fabs(y.deltaMs());
        return x.name < y.name;
    });
    return d;
}

std::string diffSummaryText(const ProfileDiff &d, const DiffSide &a, const DiffSide &b, const SignedMsText &firstStep)
{
    std::string out;
    const double stepDelta = d.stepB - d.stepA;
    const double busyDelta = d.busyB - d.busyA;
    const double idleDelta = d.idleB() - d.idleA();
    out += std::string(d.timed ? "Steady step" : "Profiled step (no timed steady figure on both sides)") + ": " +
           ms(d.stepA) + " -> " + ms(d.stepB) + " (" + signedMs(stepDelta) + ")\n";
    const bool cpu = a.profile->device == "cpu" && b.profile->device == "cpu";
    out += std::string(cpu ? "  inside ATen:  " : "  GPU busy:    ") + ms(d.busyA) + " -> " + ms(d.busyB) + " (" +
           signedMs(busyDelta) + ")\n";
    out += std::string(cpu ? "  outside ATen: " : "  GPU waiting: ") + ms(d.idleA()) + " -> " + ms(d.idleB()) + " (" +
           signedMs(idleDelta) + ")\n";
    out += std::string(cpu ? "  ATen ops per step: " : "  kernels per step: ") + count(d.kernelsA) + " -> " +
           count(d.kernelsB) + "\n";
    if (d.firstStepDeltaMs)
        out += "  first step: " + (firstStep ? firstStep(*d.firstStepDeltaMs) : signedMs(*d.firstStepDeltaMs)) + "\n";
    if (std::fabs(stepDelta) > 0) {
        // Where the difference comes from, in the ledger's own terms.
        const bool work = std::fabs(busyDelta) >= std::fabs(idleDelta);
        out += "  " +
               std::string(work ? (cpu ? "Most of the change is inside ATen" : "Most of the change is GPU work")
                                : (cpu ? "Most of the change is outside ATen" : "Most of the change is waiting")) +
               " (" + signedMs(work ? busyDelta : idleDelta) + " of " + signedMs(stepDelta) + ")\n";
    }
    return out;
}

std::string diffText(const ProfileDiff &d, const DiffSide &a, const DiffSide &b, std::size_t topKernels,
                     const SignedMsText &firstStep)
{
    std::string out = "A: " + a.label + "\nB: " + b.label + "\n\n" + diffSummaryText(d, a, b, firstStep);
    out += "\nBy family (per step)      A            B            change\n";
    for (const auto &f : d.families) {
        if (f.countA == 0 && f.countB == 0)
            continue;
        char line[160];
        std::snprintf(line, sizeof line, "  %-22s %-12s %-12s %s (%s -> %s kernels)\n", displayName(f.family),
                      ms(f.msA).c_str(), ms(f.msB).c_str(), signedMs(f.msB - f.msA).c_str(), count(f.countA).c_str(),
                      count(f.countB).c_str());
        out += line;
    }
    out += "\nKernels: " + std::to_string(d.count(KernelChange::Kind::Added)) + " added, " +
           std::to_string(d.count(KernelChange::Kind::Removed)) + " removed, " +
           std::to_string(d.count(KernelChange::Kind::Faster)) + " faster, " +
           std::to_string(d.count(KernelChange::Kind::Slower)) + " slower, " +
           std::to_string(d.count(KernelChange::Kind::Same)) + " the same\n";
    std::size_t shown = 0;
    for (const auto &k : d.kernels) {
        if (shown++ >= topKernels || k.kind == KernelChange::Kind::Same)
            break;
        char line[64];
        std::snprintf(line, sizeof line, "  %-8s %-11s ", toString(k.kind), signedMs(k.deltaMs()).c_str());
        out += line + shortName(k.name) + " [" + displayName(k.family) + ", " + count(k.countA) + " -> " +
               count(k.countB) + "]\n";
    }
    return out;
}

} // namespace stepscope::profile
