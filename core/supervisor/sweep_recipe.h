#pragma once
// One definition of what a sweep runs (issue 29.1), filled by the CLI's flags and the dashboard's
// panel alike, stored with every sweep and replayed whole (`run --again`, Run again).
//
// A recipe is a kind over a base configuration, the knobs the kind adds, a torch.compile choice, a
// list for the custom kind, and every other setting of the request. `expand` gives the
// configurations; `requestOf` the request the sweep service runs. How each kind carries the compile
// choice (one rule each, so that the ledger reads honestly):
//   Single        the base, compiled as chosen.
//   Custom        the list as it is (the panel gives each entry the form's shape first).
//   Ledger        the cumulative ledger of the knobs, then Python rows: unchosen, the ones the
//                 ledger preset ends with (config/presets.h: eager, compile default, reduce-overhead,
//                 compile default in the whole-step graph); chosen, Python eager on the knobs
//                 compile builds on (no hand-made CUDA graph: reduce-overhead is compile's graph;
//                 foreach SGD, unpinned) and that configuration compiled; "none": no Python rows.
//   Each          the baseline, each knob alone, and the compile knob alone.
//   Combinations  every combination of the knobs, each also compiled; combinations compile cannot
//                 join (a hand-made CUDA graph) are skipped, counted once per reason.
// Unset knobs are the kind's own set: the ledger's (presets.h, the pin on a GPU), every knob for
// Each. A core list in the base's CPU affinity takes the place of pin-one-core.
#include "config/presets.h"
#include "config/run_config.h"
#include "supervisor/sweep_request.h"
#include "supervisor/time_left.h"

#include <QJsonObject>
#include <QString>

#include <optional>
#include <string>
#include <vector>

namespace stepscope::supervisor
{

// In the panel's order (its index is stored in the panel's settings).
enum class SweepKind { Ledger, Each, Combinations, Custom, Single };
// "ledger", "each", "combinations", "custom", "single": the sweep's stored preset word.
const char *toString(SweepKind kind);
std::optional<SweepKind> sweepKindFromString(const QString &word);

struct CompileChoice {
    CompileMode mode = CompileMode::None;
    CompileBackend backend = CompileBackend::Inductor;
    CompileTarget target = CompileTarget::Model;
    // The caches a compile finds are no choice here: they are each run's start state (StartStates),
    // so a compiled configuration is one row.

    bool enabled() const { return mode != CompileMode::None; }
    // `eager` compiled as chosen (in the Python worker); {eager} unchanged without a compile mode.
    std::vector<RunConfig> applyTo(const RunConfig &eager) const;
    bool operator==(const CompileChoice &o) const
    {
        return mode == o.mode && backend == o.backend && target == o.target;
    }
};

struct SweepRecipe {
    // Stored with the recipe; a recipe of a newer version is refused by name (recipeFromJson).
    static constexpr int kVersion = 1;
    SweepKind kind = SweepKind::Ledger;
    RunConfig base; // the shape, device, runtime; for Single the configuration itself
    std::optional<std::vector<std::string>> knobs;
    std::optional<CompileChoice> compile;
    std::vector<RunConfig> list; // Custom
    QString baseline;            // the baseline row's canonical name; empty: automatic
    QString devices;             // lanes as --devices names them ("cuda:0,cuda:1"); empty: one device
    SweepRequest settings;       // every other setting; its configs, preset, baseline and lanes unused
};

// The default shape of a sweep on a GPU (ResNet18 at 224 px, batch 32, RunConfig's own) or on the
// CPU (batch 8 at 64 px, 5 warm-up and 30 measured steps: a CPU step at 224 px takes seconds, and
// the CPU default keeps a sweep to a minute or so). Both front-ends start from it.
RunConfig defaultShape(bool cuda);

// The recipe of the default sweep on a machine of `shape`'s device: the ledger preset.
SweepRecipe defaultRecipe(const RunConfig &shape);
// The knobs of `kind` when a recipe names none.
std::vector<std::string> defaultKnobs(SweepKind kind, const RunConfig &base);

Sweep expand(const SweepRecipe &recipe);
// The request the sweep service runs: the settings, the expanded configurations (`expanded`
// receives the whole Sweep, skipped knobs included), the preset word, the baseline's index and the
// recipe itself (stored with the sweep). False with `error` when the named baseline is not a row.
bool requestOf(const SweepRecipe &recipe, SweepRequest &out, std::string &error, Sweep *expanded = nullptr);

// What runs when a stored sweep runs again (`run --again`, the dashboard's Run again): the recipe
// stored with it, else, for a sweep of before recipes (`legacy`), its configurations as a custom
// list with its repeats, start states, planned steps and baseline. Named as the sweep, marked
// " (again)" once. nullopt with `error` for a recipe this version cannot run or a configuration
// that does not read: nothing of the sweep is dropped in silence.
std::optional<SweepRecipe> recipeToRunAgain(const store::SweepRecord &sweep,
                                            const std::vector<std::string> &configJsons, bool &legacy,
                                            std::string &error);

// What a request would run before it is planned (issue 29.1: the panel's line above Start and the
// CLI's first line): configurations after the defaults (a batch scan's made), runs in every start
// state, and the time it should take from `history` (supervisor/time_left.h), shared by the lanes.
struct SweepPreview {
    int configurations = 0, repeats = 0, runs = 0, lanes = 1, batchSizes = 0;
    bool adaptive = false;
    StartStates starts;
    bool startsChosen = false;              // not the plain fresh-only start
    std::optional<TimeEstimate> estimate;   // nullopt: nothing to go by yet
};
SweepPreview preview(const SweepRequest &request, const TimeLeft &history);

// validate()'s complaints about the compile settings alone (compile, backend, target), one line
// each; empty when they are fine for `config`.
std::string compileProblems(const RunConfig &config);

QJsonObject toJson(const SweepRecipe &recipe);
// nullopt with `error` for a recipe this version cannot run: a newer version, an unknown kind, a
// configuration that does not read.
std::optional<SweepRecipe> recipeFromJson(const QJsonObject &json, std::string &error);

} // namespace stepscope::supervisor
