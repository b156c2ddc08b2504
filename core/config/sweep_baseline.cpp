#include "config/sweep_baseline.h"

#include "config/presets.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace stepscope
{

std::size_t defaultBaseline(const std::vector<RunConfig> &configs)
{
    if (configs.empty())
        return 0;
    // Compared by canonical name, the key that groups a sweep's runs into ledger rows.
    const std::string wanted = canonicalName(baselineOf(configs.front()));
    for (std::size_t i = 0; i < configs.size(); ++i)
        if (canonicalName(configs[i]) == wanted)
            return i;
    return 0;
}

std::string baselineChoices(const std::vector<RunConfig> &configs)
{
    std::string out;
    for (std::size_t i = 0; i < configs.size(); ++i)
        out += "  " + std::to_string(i + 1) + "  " + knobLabel(configs[i]) + "  (" + canonicalName(configs[i]) + ")\n";
    return out;
}

std::optional<std::size_t> findBaseline(const std::vector<RunConfig> &configs, const std::string &text,
                                        std::string &error)
{
    const auto fail = [&](const std::string &why) -> std::optional<std::size_t> {
        error = why + "; choose one of:\n" + baselineChoices(configs);
        if (!error.empty() && error.back() == '\n')
            error.pop_back();
        return std::nullopt;
    };
    if (!text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        errno = 0;
        const unsigned long long n = std::strtoull(text.c_str(), nullptr, 10);
        if (errno != 0 || n < 1 || n > configs.size())
            return fail("'" + text + "' is not a position in this sweep (1 to " + std::to_string(configs.size()) + ")");
        return static_cast<std::size_t>(n - 1);
    }
    // Several rows of one configuration (the same canonical name) are one choice: the first.
    std::optional<std::size_t> found;
    std::string foundName;
    for (std::size_t i = 0; i < configs.size(); ++i) {
        const std::string name = canonicalName(configs[i]);
        const std::string label = knobLabel(configs[i]);
        if (text != name && text != label && text != toString(configs[i].runtime) + " " + label)
            continue;
        if (!found) {
            found = i;
            foundName = name;
        } else if (name != foundName) {
            return fail("'" + text + "' names more than one configuration of this sweep; give its position or its " +
                        "runtime (\"python " + label + "\")");
        }
    }
    if (!found)
        return fail("'" + text + "' names no configuration of this sweep");
    return found;
}

} // namespace stepscope
