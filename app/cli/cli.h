#pragma once
// stepscope-cli: the headless front-end. Everything the dashboard runs, this runs too.
#include <QString>
#include <QStringList>

#include <string>

#include "supervisor/device_probe.h"

namespace stepscope::store
{
struct RunRecord;
}

namespace stepscope::cli
{

// Exit codes scripts can rely on.
enum Exit {
    kOk = 0,          // every run complete
    kRunsFailed = 1,  // the sweep finished, some runs failed (see `show`)
    kUsage = 2,       // bad arguments or configuration: nothing ran
    kDatabase = 3,    // the database was refused or could not be written
    kCancelled = 130, // Ctrl-C: the running run is cancelled, finished runs are kept
};

class CommandLine; // cli_options.h: a command's options and arguments, parsed

struct Options {
    QString db;      // --db, else store::defaultDatabasePath()
    QString command; // run, list, show, export, doctor
};

int runCommand(const Options &options, const CommandLine &line);
int listCommand(const Options &options, const CommandLine &line);
int showCommand(const Options &options, const CommandLine &line);
int exportCommand(const Options &options, const CommandLine &line);
int doctorCommand(const Options &options, const CommandLine &line);

// `stepscope-worker --cuda-devices`, asked the way the dashboard asks it (supervisor/device_probe.h).
using supervisor::NativeProbe;
using supervisor::probeNativeWorker;

// A store message as the CLI prints it: where the store says to choose another database file, the
// CLI says how (--db PATH); the dashboard names its menu instead.
QString storeMessage(const std::string &message);

// `show`'s compile part: the cache state and directories, then the worker's compile info.
void printCompileSection(const store::RunRecord &run);

} // namespace stepscope::cli
