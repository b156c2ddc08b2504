#pragma once
// The caches that outlive a worker process and that a first step reads, given to each run as its
// start state says (issue 16, docs/decisions.md "Machine caches"):
//
//   cold   a fresh, empty folder of its own per cache, removed after the run: the first step pays
//          for everything, whatever ran before it
//   warm   the folders a run of the same configuration left in this sweep (the first cold run, or
//          an unstored priming process), so its first step is what that configuration pays on a
//          machine that has run it before, and no other configuration touched them
//
//   <root>/cold-<run id>/<cache>     one per cold run that does not prime (removed after it)
//   <root>/warm-<sha1>/<cache>       one per configuration, primed once, removed with the sweep
//
// What cannot be redirected per process (the kernel's page cache of library files, the driver's
// own state) is left alone and written down in docs/decisions.md.
#include "common/failure.h"
#include "config/run_config.h"
#include "store/store.h"

#include <QProcessEnvironment>
#include <QString>
#include <QTemporaryDir>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace stepscope::supervisor
{

// A cache every process start may fill and the next one read, by the variable that moves it.
struct MachineCache {
    const char *variable; // CUDA_CACHE_PATH, ...
    const char *folder;   // its folder under a run's cache directory
    const char *what;     // for people and the docs
};
// The redirected caches, in the order records list them.
const std::vector<MachineCache> &machineCaches();

// The cache folders of one run, and what they held when it started.
struct RunCaches {
    store::CacheStart start = store::CacheStart::Unrecorded;
    QString dir;                                // the run's cache directory (its caches are folders below)
    bool primesWarm = false;                    // a cold run that fills its configuration's warm folders
    bool removeAfter = false;                   // a cold run's own folders: gone with the run
    store::CacheRecord record;                  // bytes before now; after the run, finish() fills the rest
    void apply(QProcessEnvironment &env) const; // points every variable at its folder
};

// One sweep's cache folders.
class MachineCacheDirs
{
  public:
    // `root` empty: a new folder under the system's temporary directory, removed with this object;
    // the warm folders made below any root go with it too. `warmRuns`: the sweep has warm runs, so
    // its first cold run of a configuration keeps what it leaves for them.
    explicit MachineCacheDirs(const QString &root = {}, bool warmRuns = true);
    ~MachineCacheDirs();
    MachineCacheDirs(const MachineCacheDirs &) = delete;
    MachineCacheDirs &operator=(const MachineCacheDirs &) = delete;

    const QString &root() const { return root_; }
    // The folders for run `runId` of `config` starting `start`; false with `failure` when they cannot
    // be made. A cold run of a configuration whose warm folders are not primed yet fills them (the
    // first cold run under "both"); any other cold run gets folders of its own.
    bool prepare(std::int64_t runId, const RunConfig &config, store::CacheStart start, RunCaches &out,
                 Failure &failure);
    // The folders a priming process of `config` fills: its warm folders, emptied first (a half
    // filled cache of a failed run is not warm).
    bool preparePriming(const RunConfig &config, RunCaches &out, Failure &failure);
    // Fresh folders a priming process of run `runId` fills and nobody reads (it primes the compile
    // cache only), removed after it.
    bool prepareScratch(std::int64_t runId, RunCaches &out, Failure &failure);
    bool primed(const RunConfig &config) const;
    // After the run's worker is gone: bytes after, whether a warm cache missed, the folders of a
    // cold run removed. `completed`: the run ended complete (a cold run primes only then).
    void finish(RunCaches &caches, const RunConfig &config, bool completed);

  private:
    QString warmDir(const RunConfig &config) const;
    bool makeFolders(const QString &dir, Failure &failure) const;
    std::unique_ptr<QTemporaryDir> temporary_;
    QString root_;
    bool warmRuns_ = true;
    std::map<std::string, bool> primed_; // canonical name -> warm folders filled
    std::set<QString> warmDirs_;         // made here, removed with this object
};

// Bytes under a folder (0 when it is missing).
std::int64_t folderBytes(const QString &path);

} // namespace stepscope::supervisor
