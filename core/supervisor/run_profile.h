#pragma once
// A run's profile as the supervisor keeps it (issue 18.1): the worker writes the Chrome trace of
// its profiled steps where the supervisor asked (rawTracePath), says so in a `profile` line, and
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
// Where the worker of run `runId` writes its trace, inside `folder`.
QString rawTracePath(const QString &folder, std::int64_t runId);
// The kept trace's file name (relative to the database's folder, as stored) and full path.
QString keptTraceName(const QString &databasePath, std::int64_t runId);
QString keptTracePath(const QString &databasePath, const std::string &storedName);

// The stored profile for a `profile` message; the raw trace is removed either way.
profile::StoredProfile recordProfile(const protocol::Message &m, const QString &databasePath, std::int64_t runId);

} // namespace stepscope::supervisor
