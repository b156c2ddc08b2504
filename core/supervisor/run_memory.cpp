#include "supervisor/run_memory.h"

#include "supervisor/run_profile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace stepscope::supervisor
{
namespace
{

// The compressed copy while it is written, inside the scratch (it goes with the scratch on failure).
constexpr const char *kCompressedName = "memory.pickle.gz";

// Only the snapshot's own files: the profiler may be writing its trace into the same scratch now
// (the worker profiles right after it sends the snapshot).
void removeSnapshotFiles(const TraceScratch &scratch)
{
    QFile::remove(scratch.memorySnapshotPath());
    QFile::remove(QDir(scratch.folder()).filePath(kCompressedName));
}

} // namespace

QString keptMemoryName(const QString &databasePath, std::int64_t runId, const QString &unique)
{
    return QFileInfo(traceFolderFor(databasePath)).fileName() +
           QString("/run-%1-%2.memory.pickle.gz").arg(runId).arg(unique);
}

profile::StoredMemory recordMemorySnapshot(const protocol::Message &m, const QString &databasePath, std::int64_t runId,
                                           const TraceScratch &scratch)
{
    profile::StoredMemory out;
    out.kind = m.snapshotKind;
    if (!m.snapshotProblem.empty()) {
        out.problem = m.snapshotProblem;
        removeSnapshotFiles(scratch);
        return out;
    }
    const QString raw = scratch.memorySnapshotPath();
    WorkerFile read = readWorkerFile("memory snapshot", m.snapshotPath, scratch, raw);
    if (read.problem != WorkerFile::Problem::None) {
        out.problem = read.text;
        if (read.problem != WorkerFile::Problem::Elsewhere)
            removeSnapshotFiles(scratch);
        return out;
    }
    const QByteArray pickle = std::move(read.data);
    QFile::remove(raw); // read: its room comes back before the compressed copy is written
    std::string problem;
    out.timeline =
        profile::summarizeSnapshot(std::string_view(pickle.constData(), std::size_t(pickle.size())), problem);
    if (!out.timeline)
        out.problem = "the memory snapshot could not be read: " + problem;
    const QString name = keptMemoryName(databasePath, runId, scratch.unique());
    const std::string keepProblem = keepCompressed(pickle, QDir(scratch.folder()).filePath(kCompressedName),
                                                   keptTracePath(databasePath, name.toStdString()));
    removeSnapshotFiles(scratch);
    if (keepProblem.empty())
        out.file = name.toStdString();
    else if (out.timeline)
        out.timeline->note += (out.timeline->note.empty() ? "" : "; ") + ("snapshot not kept: " + keepProblem);
    else
        out.problem += "; snapshot not kept: " + keepProblem;
    return out;
}

std::string snapshotPointer(const profile::StoredMemory &memory, const QString &databasePath)
{
    if (memory.kind != profile::SnapshotKind::OutOfMemory)
        return {};
    if (!memory.file.empty())
        return "memory snapshot kept: " + keptTracePath(databasePath, memory.file).toStdString() + " (" +
               profile::kMemoryVizHint + ")";
    return "no memory snapshot kept: " + (memory.problem.empty() ? memory.timeline->note : memory.problem);
}

} // namespace stepscope::supervisor
