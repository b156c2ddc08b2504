#include "supervisor/compile_cache.h"
#include "supervisor/worker_command.h"

#include "config/config_json.h"

#include <QCryptographicHash>
#include <QDir>
#include <QJsonDocument>
#include <QTemporaryDir>

#include <filesystem>
#include <system_error>

namespace stepscope::supervisor
{

QString defaultCompileCacheRoot()
{
    QString base = qEnvironmentVariable("XDG_CACHE_HOME");
    if (base.isEmpty())
        base = QDir::homePath() + "/.cache";
    return base + "/stepscope/cc";
}

QJsonObject CompileCacheDirs::env() const
{
    return {{"TORCHINDUCTOR_CACHE_DIR", inductor}, {"TRITON_CACHE_DIR", triton}};
}

bool prepareCompileCache(const RunConfig &config, const QString &root, CompileCacheDirs &out, Failure &failure)
{
    out = {};
    std::error_code error;
    QString dir;
    if (config.compileCache == CompileCache::Warm) {
        dir = root + "/warm";
        out.state = "warm";
    } else {
        out.state = "cold";
        if (std::filesystem::create_directories(root.toStdString(), error); !error) {
            QTemporaryDir fresh(root + "/cold-XXXXXX");
            fresh.setAutoRemove(false); // removed by the runner once the worker has gone
            dir = fresh.path();
            if (dir.isEmpty())
                error = std::make_error_code(std::errc::io_error);
        }
        out.removeAfterRun = dir;
    }
    out.inductor = dir + "/inductor";
    out.triton = dir + "/triton";
    for (const QString &d : {out.inductor, out.triton})
        if (!error)
            std::filesystem::create_directories(d.toStdString(), error);
    if (!error)
        return true;
    const bool tooLong = error == std::errc::filename_too_long;
    failure = {tooLong ? FailureCategory::CachePathTooLong : FailureCategory::Internal,
               "cannot create the compile cache directories under " + root.toStdString() + " (" + error.message() +
                   "); choose another with --compile-cache-dir (or the dashboard's settings)",
               {}};
    return false;
}

RunConfig primingConfig(const RunConfig &config)
{
    RunConfig c = config;
    c.steps = 1;
    c.warmupSteps = 0;
    return c;
}

QString primedMarker(const QString &root, const RunConfig &config)
{
    // The torch version is part of the key: after an upgrade the kept caches hold another
    // compiler's output, and the configuration must be primed again before it is called warm.
    const QByteArray json = QJsonDocument(toJson(primingConfig(config))).toJson(QJsonDocument::Compact) + '\n' +
                            expectedTorchVersion().toUtf8();
    return root + "/warm/primed-" + QCryptographicHash::hash(json, QCryptographicHash::Sha1).toHex();
}

} // namespace stepscope::supervisor
