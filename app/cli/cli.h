#pragma once
// stepscope-cli: the headless front-end. Everything the dashboard runs, this runs too.
#include <QString>
#include <QStringList>

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

struct Options {
    QString db;             // --db
    QString command;        // run, list, show, export
    QStringList positional; // e.g. the run id of `show`
    QStringList raw;        // the command's own arguments, parsed by the command
};

int runCommand(const Options &options);
int listCommand(const Options &options);
int showCommand(const Options &options);
int exportCommand(const Options &options);
int doctorCommand(const Options &options);

QString defaultDatabasePath();
void printUsage();

// What `stepscope-worker --cuda-devices` says: whether it runs, and the CUDA devices LibTorch sees.
struct NativeProbe {
    bool started = false, finished = false;
    int exitCode = -1;
    int cudaDevices = 0;
    QString error; // why it did not answer
};
NativeProbe probeNativeWorker();

// `show`'s compile part: the cache state and directories, then the worker's compile info.
void printCompileSection(const store::RunRecord &run);

} // namespace stepscope::cli
