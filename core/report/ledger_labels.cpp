// The ledger's names for its rows: which row a stored run belongs to, a row's label and the short
// labels of chart axes and the headline. Words made of configuration names, apart from any figure.
#include "report/ledger_labels.h"

#include "report/ledger_internal.h"

#include <algorithm>
#include <utility>

namespace stepscope::report
{

std::string knobsOf(const std::string &configName)
{
    // The canonical name ends with the knob label after the last space.
    const auto space = configName.rfind(' ');
    return space == std::string::npos ? configName : configName.substr(space + 1);
}

std::string runtimeOf(const std::string &configName)
{
    // ... and starts with the runtime.
    return configName.substr(0, configName.find(' '));
}

std::string rowLabelOf(const std::string &configName, const std::string &baselineName, const std::string &model,
                       bool severalModels)
{
    std::string label = knobsOf(configName);
    // Python rows of a native ledger carry the same knobs as native ones: say which is which
    // (relative to the baseline's runtime).
    if (runtimeOf(configName) != runtimeOf(baselineName))
        label = runtimeOf(configName) + " " + label;
    // The model goes first: a label's last word is its knobs and the words before it what it ran
    // on, so rows of two models never read as one knob apart (knobDifference).
    return severalModels ? model + " " + label : label;
}

std::string rowNameOf(const std::string &configName)
{
    std::string name = configName;
    static const std::string retired = "+warm-cache";
    for (auto at = name.find(retired); at != std::string::npos; at = name.find(retired))
        name.erase(at, retired.size());
    return name;
}

std::vector<std::string> knobListOf(const std::string &nameOrLabel)
{
    const std::string knobs = knobsOf(nameOrLabel);
    std::vector<std::string> out;
    if (knobs == "baseline")
        return out;
    for (std::size_t at = 0; at <= knobs.size();) {
        const auto plus = std::min(knobs.find('+', at), knobs.size());
        out.push_back(knobs.substr(at, plus - at));
        at = plus + 1;
    }
    return out;
}

std::string joinedKnobs(const std::vector<std::string> &knobs)
{
    std::string out;
    for (const auto &k : knobs)
        out += (out.empty() ? "" : "+") + k;
    return out;
}

namespace
{

// A row label's runtime ("python " or "") and its knobs ("baseline" has none).
std::pair<std::string, std::vector<std::string>> splitLabel(const std::string &label)
{
    const auto space = label.rfind(' ');
    const std::string runtime = space == std::string::npos ? std::string() : label.substr(0, space + 1);
    return {runtime, knobListOf(label)};
}

// The knobs of `label` that `reference` lacks, and those of `reference` that `label` lacks; false
// when their runtimes differ (then no knob says the difference).
bool knobDifference(const std::string &label, const std::string &reference, std::vector<std::string> &added,
                    std::vector<std::string> &removed)
{
    const auto [runtime, knobs] = splitLabel(label);
    const auto [referenceRuntime, referenceKnobs] = splitLabel(reference);
    if (runtime != referenceRuntime)
        return false;
    const auto lacks = [](const std::vector<std::string> &list, const std::string &k) {
        return std::find(list.begin(), list.end(), k) == list.end();
    };
    for (const auto &k : knobs)
        if (lacks(referenceKnobs, k))
            added.push_back(k);
    for (const auto &k : referenceKnobs)
        if (lacks(knobs, k))
            removed.push_back(k);
    return true;
}

} // namespace

std::string axisLabelOf(const std::string &label, const std::string *previous)
{
    std::vector<std::string> added, removed;
    if (!previous || !knobDifference(label, *previous, added, removed) || added.empty() || !removed.empty())
        return label;
    return "+" + joinedKnobs(added);
}

std::string shortLabel(const LedgerRow &row, const LedgerRow &reference)
{
    std::vector<std::string> added, removed;
    if (&row == &reference || !knobDifference(row.label, reference.label, added, removed) ||
        (added.empty() == removed.empty()))
        return row.label;
    return added.empty() ? "without " + joinedKnobs(removed) : "+" + joinedKnobs(added);
}

} // namespace stepscope::report
