#include "controller/sweep_builder.h"

#include <algorithm>
#include <map>

namespace stepscope::ui
{
namespace
{

bool contains(const Sweep &sweep, const RunConfig &c)
{
    return std::find(sweep.configs.begin(), sweep.configs.end(), c) != sweep.configs.end();
}

// Adds `c` unless it is already there; an invalid one is skipped with validate()'s first reason.
void add(Sweep &sweep, const RunConfig &c, std::map<std::string, int> *grouped = nullptr)
{
    if (contains(sweep, c))
        return;
    const auto errors = validate(c);
    if (errors.empty()) {
        sweep.configs.push_back(c);
        return;
    }
    const std::string why = errors.front().field + ": " + errors.front().message;
    if (grouped)
        ++(*grouped)[why];
    else
        sweep.skipped.push_back(knobLabel(c) + " (" + why + ")");
}

void addCompiled(Sweep &sweep, const RunConfig &eager, const CompileChoice &compile,
                 std::map<std::string, int> *grouped = nullptr)
{
    if (!compile.enabled())
        return;
    for (const RunConfig &c : compile.applyTo(eager))
        add(sweep, c, grouped);
}

} // namespace

std::vector<RunConfig> CompileChoice::applyTo(const RunConfig &eager) const
{
    if (!enabled())
        return {eager};
    RunConfig c = eager;
    c.runtime = Runtime::Python; // torch.compile has no C++ training path
    c.compile = mode;
    c.compileBackend = backend;
    c.compileTarget = target;
    return {c};
}

namespace
{

Sweep buildSweepOf(SweepKind kind, const RunConfig &base, const std::vector<std::string> &knobs,
                   const CompileChoice &compile, const std::vector<RunConfig> &custom)
{
    Sweep sweep;
    switch (kind) {
    case SweepKind::Single:
        for (const RunConfig &c : compile.applyTo(base))
            sweep.configs.push_back(c); // invalid ones too: the caller reports validate()'s message
        break;
    case SweepKind::Custom:
        // The list keeps the knobs (and the compile settings); the shape comes from the form now.
        for (const RunConfig &c : custom)
            sweep.configs.push_back(withShapeOf(c, base));
        break;
    case SweepKind::Ledger: {
        sweep = cumulativeSweep(base, knobs);
        if (!compile.enabled())
            break;
        RunConfig eager = sweep.configs.back(); // every ticked knob that applied
        eager.cudaGraph = false;
        eager.optimizer = Optimizer::Foreach;
        eager.runtime = Runtime::Python;
        // Unpinned, as in the preset: inductor sizes its compile workers by the allowed cores, and
        // one core would serialize the cold compile.
        eager.cpuAffinity = "none";
        add(sweep, eager);
        addCompiled(sweep, eager, compile);
        break;
    }
    case SweepKind::Each:
        // With nothing ticked but compile, the baseline and compile alone (eachSweep with no names
        // would run every knob).
        if (knobs.empty() && compile.enabled())
            sweep.configs.push_back(baselineOf(base));
        else
            sweep = eachSweep(base, knobs);
        addCompiled(sweep, baselineOf(base), compile);
        break;
    case SweepKind::Combinations: {
        sweep = combinationSweep(base, knobs);
        const auto eager = sweep.configs;
        std::map<std::string, int> grouped;
        for (const RunConfig &c : eager)
            addCompiled(sweep, c, compile, &grouped);
        for (const auto &[why, n] : grouped)
            sweep.skipped.push_back("compile on " + std::to_string(n) + " combination(s) (" + why + ")");
        break;
    }
    }
    return sweep;
}

} // namespace

Sweep buildSweep(SweepKind kind, const RunConfig &form, const CompileChoice &compile,
                 const std::vector<RunConfig> &custom)
{
    // A core list is the pin knob with other cores: the presets know pin-one-core, so the sweep is
    // built with it and the list put back in its place at the end.
    RunConfig base = form;
    const bool coreList = form.cpuAffinity != "none" && form.cpuAffinity != "one";
    if (coreList && kind != SweepKind::Single && kind != SweepKind::Custom)
        base.cpuAffinity = "one";
    // The thread count comes with the shape into every row (withShapeOf), not as a knob.
    auto knobs = knobNames(base);
    knobs.erase(
        std::remove_if(knobs.begin(), knobs.end(), [](const std::string &k) { return k.rfind("threads-", 0) == 0; }),
        knobs.end());
    Sweep sweep = buildSweepOf(kind, base, knobs, compile, custom);
    if (base.cpuAffinity != form.cpuAffinity)
        for (RunConfig &c : sweep.configs)
            if (c.cpuAffinity == "one")
                c.cpuAffinity = form.cpuAffinity;
    return sweep;
}

std::string compileProblems(const RunConfig &config)
{
    std::vector<ConfigError> mine;
    for (const auto &e : validate(config))
        if (e.field.rfind("compile", 0) == 0)
            mine.push_back(e);
    return describe(mine);
}

} // namespace stepscope::ui
