#pragma once
// Which models a Python can build by name (issue 30): torchvision's classifiers, timm's models and
// the transformers architectures with a trainable head, each library with its version, and for one
// that Python cannot import, why and the pip command that installs it there. The Python worker makes
// the list (stepscope_py/models.py: available_models, run as `--list-models`); `stepscope-cli models`
// prints it and the dashboard's model picker completes names from it (ui/controller/model_list_job.h).
//
// Like the doctor (doctor_service.h), a blocking function: the CLI calls it as it is, the dashboard on
// a thread of its own. Nothing is cached here: the dashboard keeps a listing per Python.
#include "supervisor/process_run.h"

#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

namespace stepscope::supervisor
{

// A cold import of torch, torchvision, timm and transformers: seconds, a minute on a slow disk.
inline constexpr int kModelListingLimitMs = 120 * 1000;

struct ModelLibrary {
    QString library;    // "torchvision", "timm", "transformers"
    QString prefix;     // what its names start with before the colon: "torchvision", "timm", "hf"
    QString version;    // as the library says it; empty when missing
    QStringList models; // as --model takes them: "timm:vit_tiny_patch16_224", "hf:gpt2"
    QString missing;    // why the Python cannot import it; empty when it can
    QString install;    // the command that installs it into that Python, when missing
    bool available() const { return missing.isEmpty(); }
};

struct ModelListing {
    QString python;               // the interpreter asked (empty when none was found)
    QString origin;               // how it was chosen: "--python / settings", "STEPSCOPE_PYTHON", ...
    QList<ModelLibrary> libraries; // in the grammar's order: torchvision, timm, transformers
    // Why there is no listing at all (no Python, no torch, a worker that crashed), with what to do.
    QString problem, fix;
    bool listed() const { return problem.isEmpty(); }
    // Every library listed: nothing for the user to install.
    bool complete() const;
};

// Asks the Python worker of `configuredPython` (empty: choosePython's order, as runs do) for its
// listing. Blocks for the seconds its imports take; `stop` ends the process within a tenth of a second.
ModelListing listModels(const QString &configuredPython, const StopFlag &stop = {});

// The listing of a finished `--list-models` process (its stdout and how it ended).
ModelListing readModelListing(const ProcessRun &run);

// Whether the model name `name` holds `text`, case-insensitively (empty text: every name): the one
// rule of `stepscope-cli models FILTER`, and the picker's completer matches the same way.
bool nameMatches(const QString &name, const QString &text);
// `listing` with the names that match `text`; every library keeps its place, a missing one too.
ModelListing filteredListing(const ModelListing &listing, const QString &text);
// Every name a run can take: the built-in resnet18 first, then each library's, in the listing's order.
QStringList modelNames(const ModelListing &listing);

} // namespace stepscope::supervisor

Q_DECLARE_METATYPE(stepscope::supervisor::ModelListing)
