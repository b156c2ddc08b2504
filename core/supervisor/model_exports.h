#pragma once
// The TorchScript exports of a sweep (issue 30.3): a model other than the built-in ResNet18 runs in
// the native worker from a module the Python worker traced for it (stepscope_py/export.py). One
// export serves every native run of the same model and shape in the sweep (the knobs are applied by
// the native worker, not baked into the trace); a model that could not be exported fails each of
// its native runs with the same reason at once, without tracing it again, and the sweep goes on.
// The files live in a folder of the sweep's own and go with the runner.
#include "common/failure.h"
#include "config/run_config.h"

#include <QString>
#include <QTemporaryDir>

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace stepscope::supervisor
{

class ModelExports
{
  public:
    // Whether `config` runs from an export: the native runtime with another model than resnet18.
    static bool needed(const RunConfig &config);

    // The export made for this configuration's model and shape; empty when there is none yet.
    QString path(const RunConfig &config) const;
    // Why this configuration's model could not be exported, when an export of it failed before.
    std::optional<Failure> failure(const RunConfig &config) const;
    // Where `lane`'s export for `config` is to be written, or empty with `problem` set when no folder
    // could be made for it. A file a lane: two lanes that start native runs of one model at once
    // each export it (the later one's file is the one kept) rather than write one file together.
    QString target(const RunConfig &config, int lane, std::string &problem);
    // The export process ended: made at `path`, or the failure every native run of this model now
    // gets (its message said as the row's "n/a" on the native worker).
    void made(const RunConfig &config, const QString &path);
    Failure failed(const RunConfig &config, const Failure &why);

  private:
    // What the trace depends on: the model, the batch's shape and seed, the device it was traced on.
    static std::string key(const RunConfig &config);

    std::unique_ptr<QTemporaryDir> dir_;
    std::map<std::string, QString> made_;
    std::map<std::string, Failure> failed_;
};

} // namespace stepscope::supervisor
