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
bool fromJson(const QJsonObject &object, RunConfig &config, std::vector<ConfigError> &errors,
              const RunConfig &base = RunConfig{});
// Parses and validates one JSON object text.
bool parseConfig(const QByteArray &json, RunConfig &config, std::vector<ConfigError> &errors);

} // namespace stepscope
