#pragma once
// Two configurations' profiles side by side, kernel by kernel (issue 18.3), in the manner of
// Holistic Trace Analysis's TraceDiff, and tied to what the ledger measured: of the steady
// difference between the two, how much is GPU work and how much is waiting.
#include "profile/profile_summary.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace stepscope::profile
{

// A relative change smaller than this (or under a microsecond) is "same".
inline constexpr double kKernelChangeShare = 0.05;

struct KernelChange {
    enum class Kind { Added, Removed, Faster, Slower, Same };
    Kind kind = Kind::Same;
    std::string name;
    Family family = Family::Other;
    double countA = 0, countB = 0; // per step
    double msA = 0, msB = 0;       // per step
    double deltaMs() const { return msB - msA; }
};
const char *toString(KernelChange::Kind k); // "added", "removed", "faster", "slower", "same"
// What a kernel's (or a family's) per-step calls and times in A and B make of it.
KernelChange::Kind changeKind(double countA, double countB, double msA, double msB);

struct FamilyChange {
    Family family = Family::Other;
    double countA = 0, countB = 0;
    double msA = 0, msB = 0;
};

// One side: its profile and what the ledger measured for it.
struct DiffSide {
    const ProfileSummary *profile = nullptr;
    std::optional<double> steadyMs;    // timed steady median
    std::optional<double> firstStepMs; // first step
    std::string label;
};

struct ProfileDiff {
    std::vector<FamilyChange> families; // every family, in enum order
    std::vector<KernelChange> kernels;  // largest |change| first; "same" ones last
    double busyA = 0, busyB = 0;        // GPU busy per step
    double stepA = 0, stepB = 0;        // the step each busy time is set against (timed when known)
    bool timed = false;                 // both steps are timed steady medians
    double idleA() const { return std::max(0.0, stepA - busyA); }
    double idleB() const { return std::max(0.0, stepB - busyB); }
    double kernelsA = 0, kernelsB = 0; // per step
    std::optional<double> firstStepDeltaMs;
    int count(KernelChange::Kind k) const;
};

ProfileDiff diffProfiles(const DiffSide &a, const DiffSide &b);

// Writes a signed difference of milliseconds. The first step is a ledger figure (seconds for a
// compiled model's, milliseconds for an eager one's): the front-ends pass the ledger's own format
// (report::formatSecondsDelta), which this library, below the report one, cannot call.
using SignedMsText = std::function<std::string(double ms)>;

// The diff for a terminal or a Markdown report: the totals tied to the ledger, then families, then
// the `topKernels` largest kernel changes. `firstStep` writes the first-step difference (default: ms).
std::string diffText(const ProfileDiff &diff, const DiffSide &a, const DiffSide &b, std::size_t topKernels = 15,
                     const SignedMsText &firstStep = {});
// Its head alone, without the sides' labels (a view that names them itself): their steps split into busy and waiting, kernels per step, the
// first step and where most of the change lies (the dashboard shows families and kernels in a table).
std::string diffSummaryText(const ProfileDiff &diff, const DiffSide &a, const DiffSide &b,
                            const SignedMsText &firstStep = {});

} // namespace stepscope::profile
