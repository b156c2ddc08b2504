#include "supervisor/compile_cache.h"

#include "config/config_json.h"

#include <QCryptographicHash>
#include <QDir>
#include <QJsonDocument>
#include <QTemporaryDir>

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

bool prepareCompileCache(const RunConfig &config, const QString &root, CompileCacheDirs &out, QString &error)
{
    out = {};
    QString dir;
    if (config.compileCache == CompileCache::Warm) {
        dir = root + "/warm";
        out.state = "warm";
    } else {
        out.state = "cold";
        if (QDir().mkpath(root)) {
            QTemporaryDir fresh(root + "/cold-XXXXXX");
            fresh.setAutoRemove(false); // removed by the runner once the worker has gone
            dir = fresh.path();
        }
        out.removeAfterRun = dir;
    }
    out.inductor = dir + "/inductor";
    out.triton = dir + "/triton";
    if (dir.isEmpty() || !QDir().mkpath(out.inductor) || !QDir().mkpath(out.triton)) {
        error = "cannot create the compile cache directories under " + root +
                "; choose another with --compile-cache-dir (or the dashboard's settings)";
        return false;
    }
    return true;
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
    const QByteArray json = QJsonDocument(toJson(primingConfig(config))).toJson(QJsonDocument::Compact);
    return root + "/warm/primed-" + QCryptographicHash::hash(json, QCryptographicHash::Sha1).toHex();
}

} // namespace stepscope::supervisor
