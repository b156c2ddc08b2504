#pragma once
// Where a measurements database lives: its default path, and the files SQLite keeps beside it. The
// CLI and the dashboard both read these, so that neither writes a report over the measurements or
// puts the database where the other would not look.
#include <string>

namespace stepscope::store
{

// $XDG_DATA_HOME/stepscope/measurements.sqlite, XDG_DATA_HOME being ~/.local/share when unset.
// Empty when neither XDG_DATA_HOME nor HOME is set: Qt would take "/" for the home folder and put
// the file in /.local/share, shared by everyone or not writable at all. The caller asks for a path.
std::string defaultDatabasePath();

// Which of the database's own files `path` is (the database, its -wal, -shm or -journal), by device
// and inode, so that a symbolic or a hard link to one counts too, or by path for one that does not
// exist yet: "the database's wal file (/x/m.sqlite-wal)"; or a file a running program holds
// locked, which is what a live database's side file under a name we do not know (a bind mount)
// gives away. Empty when it is none of them, so a report or export may be written there.
std::string databaseFileBehind(const std::string &path, const std::string &database);

// The path of a file the database keeps beside itself under a stored name relative to the
// database's folder (a run's kept trace: "m.sqlite.traces/run-3-AbC123.trace.json.gz").
std::string besideDatabase(const std::string &database, const std::string &storedName);

} // namespace stepscope::store
