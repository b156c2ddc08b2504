#pragma once
// The configuration table (config_table.h) as JSON: what the Python worker reads instead of a table
// of its own. The build writes it to stepscope_py/config_schema.json beside stepscope_worker.py
// (app/config_schema); the worker refuses a file of another format or version.
#include <QJsonObject>

namespace stepscope
{

constexpr const char *kConfigSchemaFormat = "stepscope-config-schema";
// Raise it when the worker must read the file differently (a new kind, a new condition): a worker
// of another version then says so instead of misreading it.
constexpr int kConfigSchemaVersion = 2; // 2: the model kind and its pattern (issue 30)

QJsonObject configSchema();

} // namespace stepscope
