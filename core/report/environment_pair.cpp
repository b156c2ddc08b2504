#include "report/environment_pair.h"

#include "report/assessment_text.h"
#include "report/environment_assessment.h"

#include <algorithm>

namespace stepscope::report
{

std::vector<EnvironmentPair> environmentPairs(const std::string &environmentJsonA, const std::string &environmentJsonB)
{
    std::vector<EnvironmentPair> pairs;
    const auto find = [&pairs](const std::string &key) -> EnvironmentPair & {
        const auto it =
            std::find_if(pairs.begin(), pairs.end(), [&](const EnvironmentPair &p) { return p.key == key; });
        if (it != pairs.end())
            return *it;
        pairs.push_back({key, factLabel(key), {}, {}, false, false});
        return pairs.back();
    };
    for (const EnvironmentFact &fact : assessEnvironment(environmentJsonA)) {
        EnvironmentPair &p = find(fact.key);
        p.valueA = fact.value;
        p.recordedA = fact.recorded;
    }
    for (const EnvironmentFact &fact : assessEnvironment(environmentJsonB)) {
        EnvironmentPair &p = find(fact.key);
        p.valueB = fact.value;
        p.recordedB = fact.recorded;
    }
    // A's order, with what only B recorded in its place among the known facts (stable: unknown
    // keys keep the order the records gave them).
    std::stable_sort(pairs.begin(), pairs.end(), [](const EnvironmentPair &x, const EnvironmentPair &y) {
        return factOrder(x.key) < factOrder(y.key);
    });
    return pairs;
}

std::string environmentValueText(const std::string &value, bool recorded)
{
    return recorded && !value.empty() ? value : "-";
}

} // namespace stepscope::report
