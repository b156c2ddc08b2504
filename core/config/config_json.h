#pragma once
// RunConfig <-> JSON. The supervisor hands a worker its configuration as one JSON object; the CLI
// reads sweep files of such objects. Unknown keys are errors, never ignored.
#include "config/run_config.h"

#include <QJsonObject>
#include <QString>

namespace stepscope
{

QJsonObject toJson(const RunConfig &config);
// Applies the members of `object` on top of `base`. Returns false with every problem in `errors`.
// A configuration in a sweep file may carry "baseline": true (the sweep's baseline, see
// isMarkedBaseline); that member belongs to the sweep, not to RunConfig, and is skipped here.
bool fromJson(const QJsonObject &object, RunConfig &config, std::vector<ConfigError> &errors,
              const RunConfig &base = RunConfig{});
// Parses and validates one JSON object text.
bool parseConfig(const QByteArray &json, RunConfig &config, std::vector<ConfigError> &errors);
// The same for a configuration as a store or the dashboard's settings hold it: files of schema 4-9
// wrote compile_cache into every configuration, which is the run's start state now and is left out
// here (docs/decisions.md "Start states"); a user's own file gets the error that says so.
bool parseStoredConfig(const QByteArray &json, RunConfig &config, std::vector<ConfigError> &errors);
// Whether a configuration object of a sweep file says it is the sweep's baseline ("baseline": true).
bool isMarkedBaseline(const QJsonObject &object);

} // namespace stepscope
