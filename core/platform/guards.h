#pragma once
// Two guards from the operating-system seam (platform.h) for a job that starts processes and owns
// a folder while it works (the PyTorch setup): a lock that names its holder, and a watchdog that
// kills the job's process groups when the job's process dies, however it dies. Plain C++17.
//
// guards_posix.cpp implements them with flock, fork and a socket pair; on Windows, platform_windows.cpp
// (cross-built and tested under wine, never on Windows itself: README "Windows").
#include <cstdint>
#include <string>

namespace stepscope::platform
{

// An exclusive lock on a file, tried once (never waits), held while the object lives. The kernel's
// lock decides (flock on POSIX): it ends with its process however the process ends, so a file left
// by a holder that was killed blocks nobody. The file's text only names the holder for a second
// taker to say ("pid 4242 on host lab1"); it stays on disk, emptied, when released, because
// removing it would let a taker that opened it just before lock a name that no longer exists
// while a third creates and locks a new one.
class FileLock
{
  public:
    enum class State { Held, Busy, Failed };
    // Creates `path` if needed (its folder must exist) and tries the lock. Held: `holder` is
    // written into the file. Busy: holder() is what the file says (empty in the moment before the
    // holder writes). Failed: systemError() and error() say why (a full disk: ENOSPC).
    FileLock(const std::string &path, const std::string &holder);
    ~FileLock();
    FileLock(const FileLock &) = delete;
    FileLock &operator=(const FileLock &) = delete;

    State state() const { return state_; }
    const std::string &holder() const { return holder_; }
    int systemError() const { return systemError_; }
    std::string error() const; // the system's words for systemError()

  private:
    std::intptr_t handle_ = -1;
    State state_ = State::Failed;
    std::string holder_;
    int systemError_ = 0;
};

// Kills process groups when this process ends, kill -9 included: a watchdog process (a fork of this
// one that closes every file it inherited) waits on a socket from this process; when the socket
// closes, it kills every group still watched and exits. It runs in a session of its own, so that a
// signal to this process's group (a terminal's Ctrl-C, kill -9 -- -PGID) does not end it first.
// A child started in a group of its own (startOwnProcessGroup) and watched then never outlives this
// process, nor do the children it starts in its group (venv's ensurepip, pip's build helpers):
// PR_SET_PDEATHSIG would reach the child alone. At most 64 groups at once; more go unwatched.
// Windows: nothing yet (a job object with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE would be the way).
class GroupWatchdog
{
  public:
    GroupWatchdog(); // starts the watchdog; active() says whether it runs (fork can fail)
    // Closes the socket: the watchdog kills what is still watched and exits; waits for that.
    ~GroupWatchdog();
    GroupWatchdog(const GroupWatchdog &) = delete;
    GroupWatchdog &operator=(const GroupWatchdog &) = delete;

    bool active() const { return socket_ >= 0; }
    // Watches the calling process's group. Async-signal-safe: made for a child between fork and exec,
    // right after startOwnProcessGroup(), so that the child never runs unwatched.
    void watchOwnGroup() const noexcept;
    // Stops watching the group led by `pid`, once its leader has ended (its id may be reused).
    void forget(std::int64_t pid) const;

  private:
    int socket_ = -1;
    std::int64_t pid_ = -1;
};

} // namespace stepscope::platform
