#pragma once
// Which configuration of a sweep every other one is compared with: the row of speed-ups, break-even
// and the accuracy gate. The sweep stores it by canonical name (store::SweepRecord::baselineConfig).
#include "config/run_config.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace stepscope
{

// fp32 eager in the runtime and shape of the sweep's first configuration (baselineOf) where the
// sweep holds it, else the first configuration. 0 for an empty list.
std::size_t defaultBaseline(const std::vector<RunConfig> &configs);

// The configuration a user named: "N" (1-based position in `configs`), a knob label as the ledger
// shows it ("baseline", "tf32+bf16", "python tf32+bf16") or a canonical name. nullopt when the text
// names no configuration or several different ones; `error` then says so and lists the choices.
std::optional<std::size_t> findBaseline(const std::vector<RunConfig> &configs, const std::string &text,
                                        std::string &error);

// One line per configuration, "  2  tf32+bf16  (native cuda b32 224px c1000 tf32+bf16)", for
// messages that ask the user to pick one.
std::string baselineChoices(const std::vector<RunConfig> &configs);

} // namespace stepscope
