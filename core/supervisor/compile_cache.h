#pragma once
// The torch.compile caches of a Python run (DESIGN.md: a cold compile gets fresh
// TORCHINDUCTOR_CACHE_DIR and TRITON_CACHE_DIR; a warm one a kept cache on a short path).
//
//   <root>/cold-XXXXXX/{inductor,triton}   one per cold run, removed after it
//   <root>/warm/{inductor,triton}          shared by warm runs, kept
//   <root>/warm/primed-<sha1>              this configuration has filled the warm cache once
#include "common/failure.h"
#include "config/run_config.h"

#include <QJsonObject>
#include <QString>

namespace stepscope::supervisor
{

// $XDG_CACHE_HOME (else ~/.cache) + "/stepscope/cc": short on purpose (Windows' path limit, and
// the long file names inductor and Triton make below it).
QString defaultCompileCacheRoot();

struct CompileCacheDirs {
    QString state;           // "cold" or "warm"
    QString inductor;        // TORCHINDUCTOR_CACHE_DIR
    QString triton;          // TRITON_CACHE_DIR
    QString removeAfterRun;  // cold: the run's own directory
    QJsonObject env() const; // {"TORCHINDUCTOR_CACHE_DIR": ..., "TRITON_CACHE_DIR": ...}
};

// Creates the directories for `config` (a compile configuration). False with `failure` when the
// root cannot hold them: cache-path-too-long when the system says the path is, else internal.
bool prepareCompileCache(const RunConfig &config, const QString &root, CompileCacheDirs &out, Failure &failure);

// What fills a warm cache: the same configuration for one step and no warm-up.
RunConfig primingConfig(const RunConfig &config);
// The marker of a primed warm cache for `config` (whatever its step counts).
QString primedMarker(const QString &root, const RunConfig &config);

} // namespace stepscope::supervisor
