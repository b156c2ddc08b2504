#include "supervisor/start_caches.h"

#include "config/config_json.h"
#include "supervisor/leftovers.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>

#include <filesystem>
#include <system_error>

namespace stepscope::supervisor
{

namespace
{

constexpr const char *kCudaJitFolder = "cuda-jit";
constexpr const char *kMegaCacheFile = "mega-cache.bin";

bool compiled(const RunConfig &config)
{
    return config.runtime == Runtime::Python && config.compile != CompileMode::None;
}

} // namespace

QString defaultCacheRoot()
{
    QString base = qEnvironmentVariable("XDG_CACHE_HOME");
    // No home to keep caches in (HOME unset): the temporary folder, never a folder under "/".
    if (base.isEmpty() && qEnvironmentVariable("HOME").isEmpty())
        return QDir::tempPath() + "/stepscope-cc";
    if (base.isEmpty())
        base = QDir::homePath() + "/.cache";
    return base + "/stepscope/cc";
}

const std::vector<StartCache> &startCaches()
{
    // What a training step's first call reads from disk and writes back for the next process
    // (docs/decisions.md lists what was checked and left out, and why).
    static const std::vector<StartCache> caches = {
        {"CUDA_CACHE_PATH", kCudaJitFolder,
         "the CUDA driver's JIT cache (PTX compiled to the GPU's code: cuDNN runtime-fused kernels, PTX-only "
         "kernels; default ~/.nv/ComputeCache)"},
        {"PYTORCH_KERNEL_CACHE_PATH", "torch-kernels",
         "torch's cache of kernels it compiles with NVRTC at run time (jiterator; default ~/.cache/torch/kernels)"},
        {"TRITON_HOME", "triton-home",
         "Triton's home (its kernel cache when TRITON_CACHE_DIR is unset, its dumps; default ~/.triton)"},
        {"TORCH_EXTENSIONS_DIR", "torch-extensions",
         "C++/CUDA extensions torch builds at run time (default ~/.cache/torch_extensions)"},
        {"TORCHINDUCTOR_CACHE_DIR", "inductor",
         "torch.compile's inductor caches: FX graphs, AOTAutograd, autotuning results, generated code "
         "(default /tmp/torchinductor_USER)"},
        {"TRITON_CACHE_DIR", "triton", "Triton's compiled kernels (default ~/.triton/cache)"},
    };
    return caches;
}

bool shippedDiffers(const RunConfig &config)
{
    return compiled(config) || config.onCuda();
}

RunConfig primingConfig(const RunConfig &config)
{
    RunConfig c = config;
    c.steps = 1;
    c.warmupSteps = 0;
    return c;
}

void RunCaches::apply(QProcessEnvironment &env) const
{
    if (dir.isEmpty())
        return;
    for (const StartCache &c : startCaches())
        env.insert(QString::fromLatin1(c.variable), dir + '/' + QString::fromLatin1(c.folder));
    // A cache the user switched off would make every start alike: the driver's own switch goes.
    env.remove(QStringLiteral("CUDA_CACHE_DISABLE"));
    env.insert(QStringLiteral("STEPSCOPE_START"), QString::fromUtf8(store::toString(start).data()));
    env.remove(QStringLiteral("STEPSCOPE_BUNDLE_SAVE"));
    env.remove(QStringLiteral("STEPSCOPE_BUNDLE_LOAD"));
    if (!bundleSave.isEmpty())
        env.insert(QStringLiteral("STEPSCOPE_BUNDLE_SAVE"), bundleSave);
    if (!bundleLoad.isEmpty())
        env.insert(QStringLiteral("STEPSCOPE_BUNDLE_LOAD"), bundleLoad);
}

std::int64_t folderBytes(const QString &path)
{
    namespace fs = std::filesystem;
    std::error_code error;
    std::int64_t bytes = 0;
    const fs::path root = path.toStdString();
    if (!fs::is_directory(root, error))
        return 0;
    for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, error), end;
         !error && it != end; it.increment(error)) {
        std::error_code sizeError;
        if (it->is_regular_file(sizeError)) {
            const auto size = it->file_size(sizeError);
            if (!sizeError)
                bytes += static_cast<std::int64_t>(size);
        }
    }
    return bytes;
}

StartCacheDirs::StartCacheDirs(const QString &root, bool reusedStarts) : reusedStarts_(reusedStarts)
{
    parent_ = root.isEmpty() ? QDir::tempPath() : root;
    // Owned (leftovers.h): a sweep that is killed cannot remove it, the next one on this host does.
    // Empty when the folder cannot be made: prepare() says why.
    root_ =
        QString::fromStdString(leftovers::makeOwnedFolder(parent_.toStdString(), leftovers::kCachePrefix, rootError_));
    if (root_.isEmpty() && !rootError_)
        rootError_ = std::make_error_code(std::errc::permission_denied);
}

StartCacheDirs::~StartCacheDirs()
{
    // The sweep's folder goes whole.
    std::error_code error;
    if (!root_.isEmpty())
        std::filesystem::remove_all(root_.toStdString(), error);
}

QString StartCacheDirs::keyOf(const RunConfig &config) const
{
    // One key per configuration whatever its step counts: a priming process of one step fills the
    // caches its timed runs read.
    const QByteArray json = QJsonDocument(toJson(primingConfig(config))).toJson(QJsonDocument::Compact);
    return QCryptographicHash::hash(json, QCryptographicHash::Sha1).toHex().left(16);
}

QString StartCacheDirs::againDir(const RunConfig &config) const
{
    return root_ + "/again-" + keyOf(config);
}

QString StartCacheDirs::bundleDir(const RunConfig &config) const
{
    return root_ + "/bundle-" + keyOf(config);
}

bool StartCacheDirs::makeFolders(const QString &dir, Failure &failure) const
{
    std::error_code error = root_.isEmpty() ? rootError_ : std::error_code();
    for (const StartCache &c : startCaches())
        if (!error)
            std::filesystem::create_directories((dir + '/' + QString::fromLatin1(c.folder)).toStdString(), error);
    if (!error)
        return true;
    const bool tooLong = error == std::errc::filename_too_long;
    failure = {tooLong ? FailureCategory::CachePathTooLong : FailureCategory::Internal,
               "cannot create the run's cache folders under " + (root_.isEmpty() ? parent_ : root_).toStdString() +
                   " (" + error.message() +
                   "); free space there, or choose a short writable folder with --cache-dir (the dashboard: "
                   "STEPSCOPE_CACHE_DIR)",
               {}};
    return false;
}

namespace
{

void recordBefore(RunCaches &out)
{
    out.record = {};
    for (const StartCache &c : startCaches()) {
        store::CacheUse use;
        use.variable = c.variable;
        use.path = (out.dir + '/' + QString::fromLatin1(c.folder)).toStdString();
        use.bytesBefore = folderBytes(QString::fromStdString(use.path));
        use.state = out.start == store::StartState::Again ? store::CacheUse::State::Primed
                    : out.start == store::StartState::Shipped && use.bytesBefore > 0
                        ? store::CacheUse::State::Shipped
                        : store::CacheUse::State::Fresh;
        out.record.caches.push_back(use);
    }
}

bool copyFolder(const QString &from, const QString &to)
{
    std::error_code error;
    std::filesystem::copy(from.toStdString(), to.toStdString(),
                          std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing,
                          error);
    return !error;
}

} // namespace

bool StartCacheDirs::needsPriming(const RunConfig &config, store::StartState start) const
{
    return (start == store::StartState::Again || start == store::StartState::Shipped) && !primed(config);
}

bool StartCacheDirs::prepare(std::int64_t runId, const RunConfig &config, store::StartState start, RunCaches &out,
                             Failure &failure)
{
    out = {};
    out.start = start;
    if (start == store::StartState::Again) {
        out.dir = againDir(config);
    } else if (start == store::StartState::Fresh && reusedStarts_ && !primed(config) &&
               !QFileInfo::exists(againDir(config))) {
        out.dir = againDir(config); // empty now: this run is fresh, and what it leaves is the again start
        out.primes = true;
    } else {
        out.dir = root_ + (start == store::StartState::Shipped ? "/shipped-" : "/fresh-") + QString::number(runId);
        QDir(out.dir).removeRecursively(); // a run id is new in a sweep; be sure all the same
        out.removeAfter = true;
    }
    if (!makeFolders(out.dir, failure))
        return false;
    if (out.primes && compiled(config)) {
        QDir().mkpath(bundleDir(config));
        out.bundleSave = bundleDir(config) + '/' + kMegaCacheFile;
    }
    if (start == store::StartState::Shipped) {
        // What the image would carry: the mega-cache for a compiled row, else the CUDA JIT folder.
        if (compiled(config)) {
            out.bundleLoad = bundleDir(config) + '/' + kMegaCacheFile;
        } else {
            const QString jit = bundleDir(config) + '/' + kCudaJitFolder;
            if (QFileInfo::exists(jit) && !copyFolder(jit, out.dir + '/' + kCudaJitFolder)) {
                failure = {FailureCategory::Internal,
                           "cannot copy the shipped CUDA JIT cache " + jit.toStdString() + " into " +
                               out.dir.toStdString() + "; free space there or choose another --cache-dir",
                           {}};
                return false;
            }
        }
    }
    recordBefore(out);
    if (!out.bundleLoad.isEmpty()) {
        store::BundleUse bundle;
        bundle.path = out.bundleLoad.toStdString();
        bundle.bytes = QFileInfo(out.bundleLoad).size();
        out.record.bundle = bundle;
    }
    return true;
}

bool StartCacheDirs::preparePriming(const RunConfig &config, RunCaches &out, Failure &failure)
{
    out = {};
    out.start = store::StartState::Fresh;
    out.dir = againDir(config);
    QDir(out.dir).removeRecursively();
    QDir(bundleDir(config)).removeRecursively();
    out.primes = true;
    if (!makeFolders(out.dir, failure))
        return false;
    if (compiled(config)) {
        QDir().mkpath(bundleDir(config));
        out.bundleSave = bundleDir(config) + '/' + kMegaCacheFile;
    }
    recordBefore(out);
    return true;
}

bool StartCacheDirs::primed(const RunConfig &config) const
{
    const auto it = primed_.find(canonicalName(config));
    return it != primed_.end() && it->second;
}

void StartCacheDirs::finish(RunCaches &caches, const RunConfig &config, bool completed,
                            const std::optional<store::BundleUse> &bundle)
{
    for (store::CacheUse &use : caches.record.caches) {
        use.bytesAfter = folderBytes(QString::fromStdString(use.path));
        // A primed or shipped cache that grew had to compile what it lacked: that first step was
        // not the start it was planned as.
        const std::int64_t grown = use.bytesAfter - use.bytesBefore;
        if (use.state != store::CacheUse::State::Fresh && grown > store::kWarmCacheGrowthBytes)
            caches.record.missed.push_back(use.variable);
    }
    if (caches.record.bundle) {
        // A shipped compile is checked by its hits: a bundle that gave none, or left graphs to
        // compile, made no shipped start (and one the worker never reported on proves nothing).
        store::BundleUse &use = *caches.record.bundle;
        if (bundle) {
            use.hits = bundle->hits;
            use.misses = bundle->misses;
            use.loadSeconds = bundle->loadSeconds;
            use.reported = bundle->reported;
        }
        if (!use.reported || use.misses > 0 || use.hits == 0)
            caches.record.missed.emplace_back("mega-cache");
    }
    if (caches.primes) {
        if (completed) {
            primed_[canonicalName(config)] = true;
            if (!caches.bundleSave.isEmpty())
                caches.record.bundleSavedBytes = QFileInfo(caches.bundleSave).size();
            else if (config.onCuda()) {
                // The native bundle: the CUDA JIT folder as this first start left it.
                const QString jit = caches.dir + '/' + kCudaJitFolder;
                if (copyFolder(jit, bundleDir(config) + '/' + kCudaJitFolder))
                    caches.record.bundleSavedBytes = folderBytes(bundleDir(config) + '/' + kCudaJitFolder);
            }
        } else {
            QDir(caches.dir).removeRecursively(); // half filled: the next again run primes afresh
            QDir(bundleDir(config)).removeRecursively();
        }
    }
    if (caches.removeAfter)
        QDir(caches.dir).removeRecursively();
}

} // namespace stepscope::supervisor
