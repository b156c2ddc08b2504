#pragma once
// One file, one write-ahead log. SQLite keeps its -wal and -shm beside the NAME it was given
// (symbolic links resolved), so two writers reaching one file through two names (a bind mount of
// the file, a second mount of its file system) write two logs over one file, and a checkpoint of
// one overwrites pages the other's log still counts on: a lost sweep, a malformed file. Hard links
// are refused by their count; a bind mount has none to count. So every writer claims the file
// itself (its inode) and the log beside its own name, with locks that live as long as the writer
// and die with its process; a writer whose log is not the one the file's writers use is refused,
// with the other writer's process id. Writers through one name share as before.
#include "platform/platform.h"

#include <memory>
#include <string>

namespace stepscope::store
{

class WriterClaim
{
  public:
    // Claims `path` for writing. Throws StoreError (Io) naming the other writer when the file is
    // being written under another name. Null where the system has no per-file locks (the hard-link
    // check is then all there is).
    static std::unique_ptr<WriterClaim> take(const std::string &path);
    ~WriterClaim();

    // Once SQLite has opened the file: the log it uses may not be the one claimed (a reader that
    // closed as the last connection in between deleted that one, and SQLite made another), so the
    // claim moves to the log SQLite holds now, which no one can delete while this writer lives.
    void followLog();
    // Where the database file is now: its new name after a rename, empty once removed.
    std::string currentPath() const { return file_.currentPath(); }
    // The write-ahead log's name, as SQLite makes it when the claim was taken: "/real/m.sqlite-wal".
    const std::string &logName() const { return logName_; }

  private:
    WriterClaim() = default;
    platform::LockHolder file_;
    platform::LockHolder log_;
    std::string logName_;
};

// Whether a running program (this one included) holds a lock on the regular file `path`: a live
// database, its -wal or -shm under any name (SQLite locks the file and the -shm, every Stepscope
// writer its -wal). Exports and reports ask, since their target may be a second name of a live
// side file that no comparison of names would catch.
bool lockedByARunningProgram(const std::string &path);

} // namespace stepscope::store
