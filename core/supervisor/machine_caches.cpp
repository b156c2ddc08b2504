#include "supervisor/machine_caches.h"

#include "config/config_json.h"

#include <QCryptographicHash>
#include <QDir>
#include <QJsonDocument>

#include <filesystem>
#include <system_error>

namespace stepscope::supervisor
{

const std::vector<MachineCache> &machineCaches()
{
    // What a ResNet18 step's first call reads from disk and writes back for the next process
    // (docs/decisions.md lists what was checked and left out, and why).
    static const std::vector<MachineCache> caches = {
        {"CUDA_CACHE_PATH", "cuda-jit",
         "the CUDA driver's JIT cache (PTX compiled to the GPU's code: cuDNN runtime-fused kernels, PTX-only "
         "kernels; default ~/.nv/ComputeCache)"},
        {"PYTORCH_KERNEL_CACHE_PATH", "torch-kernels",
         "torch's cache of kernels it compiles with NVRTC at run time (jiterator; default ~/.cache/torch/kernels)"},
        {"TRITON_HOME", "triton-home",
         "Triton's home (its kernel cache when TRITON_CACHE_DIR is unset, its dumps; default ~/.triton)"},
        {"TORCH_EXTENSIONS_DIR", "torch-extensions",
         "C++/CUDA extensions torch builds at run time (default ~/.cache/torch_extensions)"},
    };
    return caches;
}

void RunCaches::apply(QProcessEnvironment &env) const
{
    if (dir.isEmpty())
        return;
    for (const MachineCache &c : machineCaches())
        env.insert(QString::fromLatin1(c.variable), dir + '/' + QString::fromLatin1(c.folder));
    // A cache the user switched off would make warm and cold alike: the driver's own switch goes.
    env.remove(QStringLiteral("CUDA_CACHE_DISABLE"));
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

MachineCacheDirs::MachineCacheDirs(const QString &root, bool warmRuns) : warmRuns_(warmRuns)
{
    if (root.isEmpty()) {
        temporary_ = std::make_unique<QTemporaryDir>(QDir::tempPath() + "/stepscope-caches-XXXXXX");
        root_ = temporary_->path(); // empty when the system's temporary folder is not writable
    } else {
        root_ = root;
    }
}

MachineCacheDirs::~MachineCacheDirs()
{
    // The sweep's warm caches are its own: a later sweep primes its own (a temporary root goes whole).
    for (const QString &dir : warmDirs_)
        QDir(dir).removeRecursively();
}

QString MachineCacheDirs::warmDir(const RunConfig &config) const
{
    // One folder per configuration whatever its step counts: a priming process of one step fills
    // the caches its timed runs read.
    RunConfig key = config;
    key.steps = 1;
    key.warmupSteps = 0;
    const QByteArray json = QJsonDocument(toJson(key)).toJson(QJsonDocument::Compact);
    return root_ + "/warm-" + QCryptographicHash::hash(json, QCryptographicHash::Sha1).toHex().left(16);
}

bool MachineCacheDirs::makeFolders(const QString &dir, Failure &failure) const
{
    std::error_code error;
    if (root_.isEmpty())
        error = std::make_error_code(std::errc::permission_denied);
    for (const MachineCache &c : machineCaches())
        if (!error)
            std::filesystem::create_directories((dir + '/' + QString::fromLatin1(c.folder)).toStdString(), error);
    if (!error)
        return true;
    const bool tooLong = error == std::errc::filename_too_long;
    failure = {tooLong ? FailureCategory::CachePathTooLong : FailureCategory::Internal,
               "cannot create the run's cache folders under " +
                   (root_.isEmpty() ? QDir::tempPath() : root_).toStdString() + " (" + error.message() +
                   "); free space there or point TMPDIR at a writable folder",
               {}};
    return false;
}

namespace
{

void recordBefore(RunCaches &out, store::CacheUse::State state)
{
    out.record = {};
    for (const MachineCache &c : machineCaches()) {
        store::CacheUse use;
        use.variable = c.variable;
        use.path = (out.dir + '/' + QString::fromLatin1(c.folder)).toStdString();
        use.state = state;
        use.bytesBefore = folderBytes(QString::fromStdString(use.path));
        out.record.caches.push_back(use);
    }
}

} // namespace

bool MachineCacheDirs::prepare(std::int64_t runId, const RunConfig &config, store::CacheStart start, RunCaches &out,
                               Failure &failure)
{
    out = {};
    out.start = start;
    if (start == store::CacheStart::Warm) {
        out.dir = warmDir(config);
        warmDirs_.insert(out.dir);
    } else if (warmRuns_ && !primed(config) && !QFileInfo::exists(warmDir(config))) {
        out.dir = warmDir(config); // empty now: this run is cold, and what it leaves is warm
        warmDirs_.insert(out.dir);
        out.primesWarm = true;
    } else {
        out.dir = root_ + "/cold-" + QString::number(runId);
        QDir(out.dir).removeRecursively(); // a run id is new in a sweep; be sure all the same
        out.removeAfter = true;
    }
    if (!makeFolders(out.dir, failure))
        return false;
    recordBefore(out,
                 start == store::CacheStart::Warm ? store::CacheUse::State::Primed : store::CacheUse::State::Fresh);
    return true;
}

bool MachineCacheDirs::preparePriming(const RunConfig &config, RunCaches &out, Failure &failure)
{
    out = {};
    out.start = store::CacheStart::Cold;
    out.dir = warmDir(config);
    warmDirs_.insert(out.dir);
    QDir(out.dir).removeRecursively();
    out.primesWarm = true;
    if (!makeFolders(out.dir, failure))
        return false;
    recordBefore(out, store::CacheUse::State::Fresh);
    return true;
}

bool MachineCacheDirs::prepareScratch(std::int64_t runId, RunCaches &out, Failure &failure)
{
    out = {};
    out.start = store::CacheStart::Cold;
    out.dir = root_ + "/priming-" + QString::number(runId);
    QDir(out.dir).removeRecursively();
    out.removeAfter = true;
    if (!makeFolders(out.dir, failure))
        return false;
    recordBefore(out, store::CacheUse::State::Fresh);
    return true;
}

bool MachineCacheDirs::primed(const RunConfig &config) const
{
    const auto it = primed_.find(canonicalName(config));
    return it != primed_.end() && it->second;
}

void MachineCacheDirs::finish(RunCaches &caches, const RunConfig &config, bool completed)
{
    for (store::CacheUse &use : caches.record.caches) {
        use.bytesAfter = folderBytes(QString::fromStdString(use.path));
        // A warm cache that grew had to compile what it lacked: that first step was not warm.
        const std::int64_t grown = use.bytesAfter - use.bytesBefore;
        if (caches.start == store::CacheStart::Warm && grown > store::kWarmCacheGrowthBytes)
            caches.record.missed.push_back(use.variable);
    }
    if (caches.primesWarm) {
        if (completed)
            primed_[canonicalName(config)] = true;
        else
            QDir(caches.dir).removeRecursively(); // half filled: the next warm run primes afresh
    }
    if (caches.removeAfter)
        QDir(caches.dir).removeRecursively();
}

} // namespace stepscope::supervisor
