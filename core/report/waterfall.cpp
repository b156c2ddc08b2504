#include "report/waterfall.h"

#include "report/ledger.h"

#include <map>

namespace stepscope::report
{
namespace
{

// A canonical name taken apart: "native cuda b32 224px c1000 tf32+bf16" is the runtime, the shape
// (device, batch, image size, classes) and the knobs, each knob under the knob it is a value of.
struct NameParts {
    std::string runtime, shape;
    std::map<std::string, std::string> knobs; // knob -> the value's name: "autocast" -> "bf16"
};

// The knob a value's name belongs to: values of one knob ("bf16", "fp16"; "compile-default",
// "compile-max-autotune") replace each other, any other two names are two knobs.
std::string knobOf(const std::string &name)
{
    if (name == "bf16" || name == "fp16")
        return "autocast";
    for (const char *family : {"pin-", "sgd-", "compile-", "backend-", "threads-", "mem-"})
        if (name.rfind(family, 0) == 0)
            return family;
    return name;
}

std::optional<NameParts> partsOf(const std::string &configName)
{
    const auto first = configName.find(' ');
    const auto last = configName.rfind(' ');
    if (first == std::string::npos || last == first)
        return std::nullopt;
    NameParts parts;
    parts.runtime = configName.substr(0, first);
    parts.shape = configName.substr(first + 1, last - first - 1);
    const std::string knobs = configName.substr(last + 1);
    if (knobs == "baseline")
        return parts;
    for (std::size_t at = 0; at <= knobs.size();) {
        const auto plus = std::min(knobs.find('+', at), knobs.size());
        const std::string name = knobs.substr(at, plus - at);
        if (name.empty() || !parts.knobs.emplace(knobOf(name), name).second)
            return std::nullopt; // not a name this build writes
        at = plus + 1;
    }
    return parts;
}

// Which kind of parent explains a row best: the knob it adds first, the knob whose value it changes
// next, then the runtime, and a knob it drops last.
int preference(KnobChange::Kind kind)
{
    switch (kind) {
    case KnobChange::Kind::Added:
        return 0;
    case KnobChange::Kind::Replaced:
        return 1;
    case KnobChange::Kind::Runtime:
        return 2;
    case KnobChange::Kind::Removed:
        return 3;
    }
    return 4;
}

} // namespace

std::string changeText(const KnobChange &change)
{
    switch (change.kind) {
    case KnobChange::Kind::Added:
        return "+" + change.to;
    case KnobChange::Kind::Removed:
        return "-" + change.from;
    case KnobChange::Kind::Replaced: {
        // "compile-default -> reduce-overhead": the knob's name once.
        const std::string family = knobOf(change.to);
        const bool named = family != change.to && change.to.rfind(family, 0) == 0;
        return change.from + " -> " + (named ? change.to.substr(family.size()) : change.to);
    }
    case KnobChange::Kind::Runtime:
        return change.from + " -> " + change.to;
    }
    return {};
}

std::optional<KnobChange> knobChangeBetween(const std::string &fromConfigName, const std::string &toConfigName)
{
    const auto a = partsOf(fromConfigName), b = partsOf(toConfigName);
    if (!a || !b || a->shape != b->shape)
        return std::nullopt;
    std::vector<KnobChange> changes;
    if (a->runtime != b->runtime)
        changes.push_back({KnobChange::Kind::Runtime, a->runtime, b->runtime});
    for (const auto &[knob, value] : a->knobs) {
        const auto other = b->knobs.find(knob);
        if (other == b->knobs.end())
            changes.push_back({KnobChange::Kind::Removed, value, ""});
        else if (other->second != value)
            changes.push_back({KnobChange::Kind::Replaced, value, other->second});
    }
    for (const auto &[knob, value] : b->knobs)
        if (!a->knobs.count(knob))
            changes.push_back({KnobChange::Kind::Added, "", value});
    if (changes.size() != 1)
        return std::nullopt;
    return changes.front();
}

std::vector<WaterfallStep> waterfallOf(const std::vector<LedgerRow> &rows, stats::CancelToken cancel)
{
    std::vector<WaterfallStep> steps;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        WaterfallStep step;
        step.row = i;
        const LedgerRow &row = rows[i];
        // The best parent: one with a steady state (a bar needs two levels), then the kind of change,
        // then the nearest.
        for (std::size_t j = i; j-- > 0;) {
            const auto change = knobChangeBetween(rows[j].configName, row.configName);
            if (!change)
                continue;
            const auto better = [&] {
                if (!step.parent)
                    return true;
                const bool steady = rows[j].steadyMs.has_value(),
                           chosenSteady = rows[*step.parent].steadyMs.has_value();
                if (steady != chosenSteady)
                    return steady;
                return preference(change->kind) < preference(step.change->kind);
            };
            if (better()) {
                step.parent = j;
                step.change = change;
            }
        }
        if (step.parent) {
            const LedgerRow &parent = rows[*step.parent];
            step.branch = *step.parent + 1 != i;
            if (row.steadyMs && parent.steadyMs) {
                step.deltaMs = *row.steadyMs - *parent.steadyMs;
                // Against the baseline the ledger has this very interval already (same processes, seed).
                step.ratio = *step.parent == 0 && row.timeRatio
                                 ? *row.timeRatio
                                 : stats::ratioOfMedians(processSummariesOf(row), processSummariesOf(parent),
                                                         stats::kResamples, stats::kSeed, cancel);
                if (step.ratio->hasInterval) {
                    step.deltaLowMs = (step.ratio->low - 1.0) * *parent.steadyMs;
                    step.deltaHighMs = (step.ratio->high - 1.0) * *parent.steadyMs;
                }
            }
        }
        steps.push_back(std::move(step));
    }
    return steps;
}

} // namespace stepscope::report
