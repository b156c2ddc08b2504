#include "supervisor/run_profile.h"

#include "platform/platform.h"
#include "profile/trace_summary.h"
#include "store/database_files.h"
#include "supervisor/leftovers.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cerrno>
#include <filesystem>

#ifdef STEPSCOPE_WITH_ZLIB
#include <zlib.h>
#endif

namespace stepscope::supervisor
{
namespace
{

// The raw trace's and the compressed trace's names inside a run's scratch folder.
constexpr const char *kRawName = "trace.json";
constexpr const char *kCompressedName = "trace.json.gz";
constexpr const char *kMemorySnapshotName = "memory.pickle";

// Why a write failed, in words that say what to do.
std::string writeProblem(int systemError)
{
    switch (platform::noSpaceCause(systemError)) {
    case platform::NoSpace::DiskFull:
        return "the disk beside the database is full; free space there, or profile fewer steps (--profile-steps)";
    case platform::NoSpace::QuotaExceeded:
        return "the disk quota is used up; free space there, or profile fewer steps (--profile-steps)";
    case platform::NoSpace::FileTooLarge:
        return "the file reached this process's file-size limit (ulimit -f); raise it, or profile fewer steps";
    case platform::NoSpace::None:
        break;
    }
    return systemError ? platform::errorText(systemError) : std::string("a write failed");
}

// What may explain a trace the worker could not write, for its problem: a file-size limit (the
// worker has the supervisor's) or a disk with next to no room. Empty when neither holds.
std::string roomHint(const QString &folder)
{
    if (const auto limit = platform::fileSizeLimit())
        return " (files may hold at most " + std::to_string(*limit / 1024) +
               " KiB here, ulimit -f: raise it, or profile fewer steps)";
    const auto free = platform::freeBytes(QFile::encodeName(folder).toStdString());
    if (free && *free < 64ULL * 1024 * 1024)
        return " (only " + std::to_string(*free / (1024 * 1024)) +
               " MiB free beside the database: free space there, or profile fewer steps)";
    return {};
}

} // namespace

std::string keepCompressed(const QByteArray &data, const QString &partial, const QString &path)
{
#ifdef STEPSCOPE_WITH_ZLIB
    errno = 0;
    gzFile file = gzopen(QFile::encodeName(partial).constData(), "wb6");
    if (!file)
        return "cannot create " + partial.toStdString() + ": " + writeProblem(errno);
    qsizetype written = 0;
    bool ok = true;
    int error = 0;
    while (written < data.size() && ok) {
        const auto chunk = static_cast<unsigned>(std::min<qsizetype>(data.size() - written, 1 << 24));
        ok = gzwrite(file, data.constData() + written, chunk) == static_cast<int>(chunk);
        written += chunk;
    }
    if (!ok)
        error = errno;
    if (gzclose(file) != Z_OK && ok) {
        ok = false;
        error = errno;
    }
    if (!ok)
        return "writing the compressed file failed: " + writeProblem(error);
    const std::int64_t bytes = QFileInfo(partial).size();
    if (bytes > kMaxKeptTraceBytes)
        return "it is " + std::to_string(bytes / (1024 * 1024)) + " MiB compressed, over the " +
               std::to_string(kMaxKeptTraceBytes / (1024 * 1024)) + " MiB kept";
    if (const int renameError =
            platform::renameNoReplace(QFile::encodeName(partial).toStdString(), QFile::encodeName(path).toStdString()))
        return "cannot give the compressed file its name " + path.toStdString() + ": " +
               platform::errorText(renameError);
    return {};
#else
    (void)data, (void)partial, (void)path;
    return "this build has no zlib, so traces and memory snapshots are summarised but not kept";
#endif
}

QString traceFolderFor(const QString &databasePath)
{
    return databasePath + ".traces";
}

TraceScratch::TraceScratch(const QString &databasePath, std::string &problem)
{
    const QString traces = traceFolderFor(databasePath);
    std::error_code error;
    folder_ = QString::fromStdString(
        leftovers::makeOwnedFolder(QFile::encodeName(traces).toStdString(), leftovers::kTracePrefix, error));
    if (folder_.isEmpty())
        problem = "cannot create the trace folder " + traces.toStdString() + " (" + error.message() +
                  "); free space or fix its permissions, or run with --no-profile";
}

TraceScratch::~TraceScratch()
{
    std::error_code error;
    if (!folder_.isEmpty())
        std::filesystem::remove_all(QFile::encodeName(folder_).toStdString(), error);
}

QString TraceScratch::rawTracePath() const
{
    return QDir(folder_).filePath(kRawName);
}

QString TraceScratch::memorySnapshotPath() const
{
    return QDir(folder_).filePath(kMemorySnapshotName);
}

void TraceScratch::empty() const
{
    // The owner file stays: the folder is still this process's until it goes.
    QDir dir(folder_);
    for (const QFileInfo &entry :
         dir.entryInfoList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot))
        if (entry.fileName() != QLatin1String(leftovers::kOwnerFile)) {
            std::error_code error;
            std::filesystem::remove_all(QFile::encodeName(entry.filePath()).toStdString(), error);
        }
}

QString TraceScratch::unique() const
{
    return QFileInfo(folder_).fileName().section('-', -1);
}

QString keptTraceName(const QString &databasePath, std::int64_t runId, const QString &unique)
{
    return QFileInfo(traceFolderFor(databasePath)).fileName() +
           QString("/run-%1-%2.trace.json.gz").arg(runId).arg(unique);
}

QString keptTracePath(const QString &databasePath, const std::string &storedName)
{
    return QString::fromStdString(store::besideDatabase(databasePath.toStdString(), storedName));
}

WorkerFile readWorkerFile(const std::string &what, const std::string &said, const TraceScratch &scratch,
                          const QString &asked)
{
    using Problem = WorkerFile::Problem;
    WorkerFile out;
    if (scratch.folder().isEmpty() || QString::fromStdString(said) != asked) {
        out.problem = Problem::Elsewhere;
        out.text = "the worker wrote its " + what + " to " + said + ", not where it was asked (" + asked.toStdString() +
                   "); it is not read";
        return out;
    }
    QFile file(asked);
    if (!file.open(QIODevice::ReadOnly)) {
        out.problem = Problem::Unreadable;
        out.text = "the worker's " + what + " " + said + " cannot be read: " + file.errorString().toStdString();
    } else if (file.size() > kMaxRawTraceBytes) {
        out.problem = Problem::TooBig;
        out.text = "the " + what + " is " + std::to_string(file.size() / (1024 * 1024)) + " MiB, over the " +
                   std::to_string(kMaxRawTraceBytes / (1024 * 1024)) + " MiB read";
    } else {
        out.data = file.readAll();
    }
    return out;
}

profile::StoredProfile recordProfile(const protocol::Message &m, const QString &databasePath, std::int64_t runId,
                                     const TraceScratch &scratch)
{
    profile::StoredProfile out;
    const QString raw = scratch.rawTracePath();
    if (!m.profileProblem.empty()) {
        out.problem = m.profileProblem + roomHint(scratch.folder());
        scratch.empty(); // what a profiler that failed half-way wrote
        return out;
    }
    WorkerFile read = readWorkerFile("trace", m.tracePath, scratch, raw);
    if (read.problem != WorkerFile::Problem::None) {
        out.problem = read.text;
        if (read.problem == WorkerFile::Problem::Elsewhere)
            return out;
        // Unreadable: a full disk may be why. Too big: fewer profiled steps make a smaller trace.
        out.problem += read.problem == WorkerFile::Problem::TooBig ? "; profile fewer steps" : roomHint(scratch.folder());
        scratch.empty();
        return out;
    }
    const QByteArray trace = std::move(read.data);
    // Read: the raw trace (and any temporary file of the profiler's) goes now, so that a disk it
    // filled has room again before the compressed copy or the database is written.
    scratch.empty();
    profile::TraceFacts facts;
    facts.steps = m.steps;
    facts.profilerGflop = m.profilerGflop;
    std::string problem;
    out.summary = profile::summarizeTrace(trace, facts, problem);
    if (!out.summary)
        out.problem = "the trace could not be read: " + problem + roomHint(scratch.folder());
    const QString name = keptTraceName(databasePath, runId, scratch.unique());
    const std::string keepProblem = keepCompressed(trace, QDir(scratch.folder()).filePath(kCompressedName),
                                                    keptTracePath(databasePath, name.toStdString()));
    scratch.empty(); // a compressed trace that was not kept
    if (keepProblem.empty())
        out.traceFile = name.toStdString();
    else if (out.summary)
        out.summary->note += (out.summary->note.empty() ? "" : "; ") + ("trace not kept: " + keepProblem);
    else
        out.problem += "; trace not kept: " + keepProblem;
    return out;
}

} // namespace stepscope::supervisor
