#pragma once
// Every cache a first step reads, given to each run as its start state says (store::StartState,
// docs/decisions.md "Start states"). One manager for the machine's caches (CUDA JIT, NVRTC, Triton's
// home, extensions) and torch.compile's (inductor, Triton's kernel cache) alike:
//
//   fresh    an empty folder of its own per cache, removed after the run: the first step pays for
//            everything, whatever ran before it
//   shipped  fresh folders, plus the configuration's bundle: what a team ships in its image. For a
//            compiled row the torch.compile mega-cache (torch.compiler.save_cache_artifacts, loaded
//            by the worker before its first step); for any other GPU row its CUDA JIT folder
//   again    the folders a run of the same configuration left in this sweep (the first fresh run,
//            or an unstored priming process), so its first step is what that configuration pays on
//            a machine that ran it before, and no other configuration touched them
//
//   <root>/sweep-<pid>-XXXXXX/owner                    whose sweep it is (leftovers.h: a killed sweep's goes later)
//   <root>/sweep-<pid>-XXXXXX/fresh-<run id>/<cache>    one per fresh run that does not prime (removed after it)
//   <root>/sweep-<pid>-XXXXXX/again-<sha1>/<cache>      one per configuration, primed once
//   <root>/sweep-<pid>-XXXXXX/bundle-<sha1>/            what its priming run saved for shipped starts
//   <root>/sweep-<pid>-XXXXXX/shipped-<run id>/<cache>  one per shipped run (removed after it)
//
// The sweep's folder goes with this object. What cannot be redirected per process (the kernel's page
// cache of library files, the driver's own state) is left alone and written down in docs/decisions.md.
#include "common/failure.h"
#include "config/run_config.h"
#include "store/store.h"

#include <QProcessEnvironment>
#include <QString>

#include <map>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

namespace stepscope::supervisor
{

// $XDG_CACHE_HOME (else ~/.cache) + "/stepscope/cc": short on purpose (Windows' path limit, and the
// long file names inductor and Triton make below it). Each sweep's folders are made below it.
QString defaultCacheRoot();

// A cache every process start may fill and the next one read, by the variable that moves it.
struct StartCache {
    const char *variable; // CUDA_CACHE_PATH, ...
    const char *folder;   // its folder under a run's cache directory
    const char *what;     // for people and the docs
};
// The redirected caches, in the order records list them.
const std::vector<StartCache> &startCaches();

// Whether a shipped start of `config` can differ from a fresh one: it has something portable to
// ship (a torch.compile mega-cache, or a CUDA JIT folder on a GPU). A CPU row without torch.compile
// has not: its shipped start is its fresh one, and is not run.
bool shippedDiffers(const RunConfig &config);
// The one-step process that fills a configuration's again folders and saves its bundle.
RunConfig primingConfig(const RunConfig &config);

// The cache folders of one run, and what they held when it started.
struct RunCaches {
    store::StartState start = store::StartState::Unrecorded;
    QString dir;              // the run's cache directory (its caches are folders below)
    bool primes = false;      // fills its configuration's again folders and saves its bundle
    bool removeAfter = false; // a fresh or shipped run's own folders: gone with the run
    QString bundleSave;       // the mega-cache file the worker writes (compiled rows that prime)
    QString bundleLoad;       // the mega-cache file the worker loads (shipped compiled rows)
    store::CacheRecord record; // bytes before now; after the run, finish() fills the rest
    // Points every variable at its folder and tells the worker its start and bundle files.
    void apply(QProcessEnvironment &env) const;
};

// One sweep's cache folders.
class StartCacheDirs
{
  public:
    // Below `root` (empty: the system's temporary folder) a folder of this sweep's own, removed with
    // this object. `reusedStarts`: the sweep has shipped or again runs, so the first fresh run of a
    // configuration keeps what it leaves for them.
    explicit StartCacheDirs(const QString &root = {}, bool reusedStarts = true);
    ~StartCacheDirs();
    StartCacheDirs(const StartCacheDirs &) = delete;
    StartCacheDirs &operator=(const StartCacheDirs &) = delete;

    const QString &root() const { return root_; }
    // Whether a run of `config` starting `start` needs a priming process first: shipped and again
    // starts read what an earlier run of the configuration left, and none has yet.
    bool needsPriming(const RunConfig &config, store::StartState start) const;
    // The folders for run `runId` of `config` starting `start`; false with `failure` when they cannot
    // be made. A fresh run of a configuration not primed yet primes it (the first fresh run of a
    // sweep with other states); any other fresh run gets folders of its own.
    bool prepare(std::int64_t runId, const RunConfig &config, store::StartState start, RunCaches &out,
                 Failure &failure);
    // The folders a priming process of `config` fills: its again folders, emptied first (a half
    // filled cache of a failed run is no start of any state).
    bool preparePriming(const RunConfig &config, RunCaches &out, Failure &failure);
    bool primed(const RunConfig &config) const;
    // After the run's worker is gone: bytes after, which caches missed (a primed or shipped cache
    // that grew; a bundle whose load the worker did not report as hits), a primed run's bundle
    // kept, the folders of a fresh or shipped run removed. `completed`: the run ended complete (a
    // fresh run primes only then). `bundle`: what the worker said of the bundle it loaded.
    void finish(RunCaches &caches, const RunConfig &config, bool completed,
                const std::optional<store::BundleUse> &bundle = std::nullopt);

  private:
    QString keyOf(const RunConfig &config) const;
    QString againDir(const RunConfig &config) const;
    QString bundleDir(const RunConfig &config) const;
    bool makeFolders(const QString &dir, Failure &failure) const;
    QString parent_, root_;
    std::error_code rootError_; // why the sweep's folder could not be made (root_ empty)
    bool reusedStarts_ = true;
    std::map<std::string, bool> primed_; // canonical name -> again folders filled, bundle saved
};

// Bytes under a folder (0 when it is missing).
std::int64_t folderBytes(const QString &path);

} // namespace stepscope::supervisor
