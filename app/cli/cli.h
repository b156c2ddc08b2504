#pragma once
// stepscope-cli: the headless front-end. Everything the dashboard runs, this runs too.
#include "supervisor/device_probe.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <string>

namespace stepscope::store
{
struct RunRecord;
class Reader;
} // namespace stepscope::store

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
    QString command; // run, list, show, export, compare, doctor, models, ...
};

int runCommand(const Options &options, const CommandLine &line);
int listCommand(const Options &options, const CommandLine &line);
int showCommand(const Options &options, const CommandLine &line);
int exportCommand(const Options &options, const CommandLine &line);
int compareCommand(const Options &options, const CommandLine &line); // compare_command.cpp
int checkCommand(const Options &options, const CommandLine &line);   // compare_command.cpp
int doctorCommand(const Options &options, const CommandLine &line);
int modelsCommand(const Options &options, const CommandLine &line); // models_command.cpp
int whyCommand(const Options &options, const CommandLine &line);   // why_command.cpp
int setupCommand(const Options &options, const CommandLine &line); // setup_command.cpp

// The database for reading (summaries refreshed first where the file is writable); null, with the
// error said and `exitCode` set, when it cannot be read.
std::unique_ptr<store::Reader> openReader(const QString &path, int &exitCode);
// The sweep a command reads: `sweepId`, else (0) the newest; false, said as "stepscope-cli
// COMMAND: no sweeps in DB" or "no sweep N in DB", when there is none.
bool resolveSweep(const store::Reader &reader, const QString &command, const QString &db, long long &sweepId);
// A whole number above 0 given to --`name` of the running command, into `out`; false, said, when
// it is not one (left as it is when the option is not given).
bool positiveOption(const CommandLine &line, const QString &what, const QString &name, long long &out);

// `stepscope-worker --cuda-devices`, asked the way the dashboard asks it (supervisor/device_probe.h).
using supervisor::NativeProbe;
using supervisor::probeNativeWorker;

// A store message as the CLI prints it: where the store says to choose another database file, the
// CLI says how (--db PATH); the dashboard names its menu instead.
QString storeMessage(const std::string &message);

// A number as every option and argument takes it: decimal digits, a leading '-' and one '.' at
// most, nothing else (no spaces, no '+', no exponent), as configuration fields are read
// (config/run_config.cpp). Whole: no '.'. False when the text is not one.
bool parseNumber(const QString &text, double &out); // commands.cpp
bool parseWhole(const QString &text, long long &out);

// The one grammar of the CLI's comma lists (--devices, --batch, --world-sizes, --start, --knobs):
// items separated by single commas, none empty, none with blanks around it, none named twice. The
// items in order; empty, with `problem` naming the bad item and what to write instead (the list
// cleaned up, or `example` when nothing is left), when the text breaks a rule. The caller puts the
// flag in front of `problem`.
QStringList commaList(const QString &text, const QString &example, QString &problem); // commands.cpp

// One line on standard error: every command's errors and notes go through here.
void printError(const QString &line); // commands.cpp

// `show`'s compile part: the cache state and directories, then the worker's compile info.
void printCompileSection(const store::RunRecord &run);

// `show --sweep ID`: the sweep, its compile break-even against eager and its environment assessment
// (show_sweep.cpp).
void printSweepFigures(const store::Reader &reader, std::int64_t sweepId, const QString &dbPath);

} // namespace stepscope::cli
