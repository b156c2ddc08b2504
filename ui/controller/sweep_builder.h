#pragma once
// The configurations a form asks for: a sweep kind over the ticked (eager) knobs, and the
// torch.compile choice on top. Plain functions over config/presets.h, so that the panel stays a
// form and the rules can be read (and tested) in one place.
//
// How each kind carries the compile choice (one rule each, so that the ledger reads honestly):
//   Single        the ticked configuration, compiled: one configuration per ticked cache state.
//   Custom        the list; "Add ticked combination" adds the compiled configuration(s).
//   Ledger        the cumulative ledger of the ticked knobs, then Python rows the way the CLI's
//                 ledger preset makes them (presets.h ledgerSweep): Python eager on the eager knobs
//                 torch.compile builds on (no hand-made CUDA graph: reduce-overhead is compile's
//                 graph; foreach SGD), then that configuration compiled. The
//                 eager Python row separates what Python costs from what compile saves.
//   Each          the baseline, each ticked knob alone, and the compile knob alone (with its
//                 backend and target) per cache state.
//   Combinations  every combination of the ticked knobs, each also compiled per cache state;
//                 combinations compile cannot join (a hand-made CUDA graph) are skipped, counted
//                 once per reason instead of once per combination.
// Compiled configurations always run in the Python worker; the others keep the form's runtime.
//
// CPU pinning is a knob like the ticked ones (a ledger row after channels-last, alone in Each, a
// factor in Combinations); a core list takes the place of one core. The ledger's Python rows are
// unpinned, as in the preset (one core would serialize inductor's cold compile). The thread count
// is a setting of every row, like the shape.
#include "config/presets.h"

#include <string>
#include <vector>

namespace stepscope::ui
{

enum class SweepKind { Ledger, Each, Combinations, Custom, Single };

struct CompileChoice {
    CompileMode mode = CompileMode::None;
    CompileBackend backend = CompileBackend::Inductor;
    CompileTarget target = CompileTarget::Model;
    // The caches a compile finds are no choice here: they are each run's start state (the panel's
    // "Start states", supervisor::StartStates), so a compiled configuration is one row.

    bool enabled() const { return mode != CompileMode::None; }
    // `eager` compiled as chosen; {eager} unchanged without a compile mode.
    std::vector<RunConfig> applyTo(const RunConfig &eager) const;
};

// `base` is the form's eager configuration: runtime, device, shape and the ticked knobs.
Sweep buildSweep(SweepKind kind, const RunConfig &base, const CompileChoice &compile,
                 const std::vector<RunConfig> &custom = {});

// validate()'s complaints about the compile settings alone (compile, backend, target, cache),
// one line each; empty when they are fine for `config`.
std::string compileProblems(const RunConfig &config);

} // namespace stepscope::ui
