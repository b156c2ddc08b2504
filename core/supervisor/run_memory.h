#pragma once
// A run's memory snapshot as the supervisor keeps it (issue 31.2): the worker writes the pickle
// where the supervisor asked (TraceScratch::memorySnapshotPath, in the run's trace scratch) and says
// so in a `memory_snapshot` line; recordMemorySnapshot() reads the pickle once into its summary
// (profile/memory_timeline.h), then keeps it gzip-compressed beside the trace as
// run-N-XXXX.memory.pickle.gz. Whatever goes wrong here is the snapshot's problem, never the run's.
#include "profile/memory_timeline.h"
#include "protocol/protocol.h"

#include <QString>

#include <cstdint>

namespace stepscope::supervisor
{

class TraceScratch;

// The kept snapshot's file name (relative to the database's folder, as stored).
QString keptMemoryName(const QString &databasePath, std::int64_t runId, const QString &unique);

// The stored snapshot for a `memory_snapshot` message whose worker wrote into `scratch`. The raw
// pickle is removed whatever came of it.
profile::StoredMemory recordMemorySnapshot(const protocol::Message &m, const QString &databasePath, std::int64_t runId,
                                           const TraceScratch &scratch);

// What a run that failed out of memory says of its snapshot, appended to its failure's message:
// where it is kept and how to open it, or why it is not kept. Empty for any other snapshot.
std::string snapshotPointer(const profile::StoredMemory &memory, const QString &databasePath);

} // namespace stepscope::supervisor
