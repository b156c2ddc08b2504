#pragma once
// A run's profile as the supervisor keeps it (issue 18.1): the worker writes the Chrome trace of
// its profiled steps where the supervisor asked (TraceScratch), says so in a `profile` line, and
// recordProfile() reads the trace once into a summary (profile/trace_summary.h), then keeps the
// trace gzip-compressed beside the database (Perfetto and chrome://tracing open .json.gz) unless
// it is over the cap. Whatever goes wrong here is the profile's problem, never the run's.
#include "profile/profile_summary.h"
#include "protocol/protocol.h"

#include <QString>

#include <cstdint>

namespace stepscope::supervisor
{

// A trace larger than this (compressed) is summarised but not kept; a raw trace larger than
// kMaxRawTraceBytes is not read.
inline constexpr std::int64_t kMaxKeptTraceBytes = 64LL * 1024 * 1024;
inline constexpr std::int64_t kMaxRawTraceBytes = 1024LL * 1024 * 1024;

// "<database>.traces": the folder beside the database that holds its runs' traces.
QString traceFolderFor(const QString &databasePath);

// Where one run's worker writes its trace: a folder of its own in the traces folder, owned as
// leftovers.h says (a killed sweep's is removed by the next one), on the kept trace's file system
// (keeping it is a rename). It goes with this object, and with it whatever the profile left: the
// raw trace, the profiler's own temporary files, a half-written compressed trace. So no failure,
// of the worker, the summary or the disk, leaves a file behind.
class TraceScratch
{
  public:
    // folder() is empty, with `problem`, when it cannot be made.
    TraceScratch(const QString &databasePath, std::string &problem);
    ~TraceScratch();
    TraceScratch(const TraceScratch &) = delete;
    TraceScratch &operator=(const TraceScratch &) = delete;

    const QString &folder() const { return folder_; }
    // The file the worker is told to write (--trace).
    QString rawTracePath() const;
    // The file the worker writes its memory snapshot pickle to (--memory-snapshot; run_memory.h).
    QString memorySnapshotPath() const;
    // Removes everything in the folder but keeps the folder (the raw trace once it is read: on a
    // full disk the room comes back before anything else is written).
    void empty() const;
    // The folder's own random part: the kept trace's name carries it, so that no later run (a run
    // id used again after its sweep was deleted) finds a trace that is not its own.
    QString unique() const;

  private:
    QString folder_;
};

// The kept trace's file name (relative to the database's folder, as stored) and full path. Names
// stored by older versions (run-N.trace.json.gz) are found the same way.
QString keptTraceName(const QString &databasePath, std::int64_t runId, const QString &unique);
QString keptTracePath(const QString &databasePath, const std::string &storedName);

// Writes `data` gzip-compressed to `partial` (inside a scratch folder: the scratch goes with it on
// any failure), then gives it the name `path`, never over a file already there, unless it is over
// kMaxKeptTraceBytes compressed. Returns the problem, empty on success. The trace and the memory
// snapshot are kept this way.
std::string keepCompressed(const QByteArray &data, const QString &partial, const QString &path);

// What a worker says it wrote at `said`, read from where it was asked to write (`asked`, in
// `scratch`), at most kMaxRawTraceBytes; the problem in the words of `what` ("trace", "memory
// snapshot") otherwise. A file written elsewhere is not read, nor ours to remove. The trace and the
// memory snapshot are read so.
struct WorkerFile {
    enum class Problem { None, Elsewhere, Unreadable, TooBig } problem = Problem::None;
    std::string text; // the problem in words; empty when read
    QByteArray data;
};
WorkerFile readWorkerFile(const std::string &what, const std::string &said, const TraceScratch &scratch,
                          const QString &asked);

// The stored profile for a `profile` message whose worker wrote into `scratch`. The raw trace is
// removed before the profile is stored, whatever came of it; a trace that cannot be kept (a full
// disk, a file-size limit) leaves the summary with a note that says why.
profile::StoredProfile recordProfile(const protocol::Message &m, const QString &databasePath, std::int64_t runId,
                                     const TraceScratch &scratch);

} // namespace stepscope::supervisor
