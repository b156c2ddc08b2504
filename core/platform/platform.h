#pragma once
// The one place where Stepscope talks to the operating system directly: processes, files, CPU
// cores, scheduling, memory figures, the terminal and shared libraries. Everything else calls these
// and stays portable. Plain C++17, no Qt: the engine and the store use it too.
//
// platform_posix.cpp implements it on Linux (some answers are Linux-only: /proc, cgroups,
// sched_setaffinity; other POSIX systems get the conservative answer documented here).
// platform_windows.cpp implements it on Windows: CI cross-builds it with mingw-w64 and runs its tests
// under wine, never on Windows itself (README "Windows"). CMake picks one of the two by platform.
// guards.h adds the lock and the watchdog that a job owning a folder and processes takes.
#include <chrono>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

namespace stepscope::platform
{

// --- Processes ---------------------------------------------------------------------------------

std::int64_t currentProcessId();
// This machine's name; empty where it cannot be read.
std::string hostName();

// Whether a process with this id exists now, even one of another user (a zombie exists too; see
// processStart).
bool processExists(std::int64_t pid);

struct ProcessStart {
    // When the process started, as exact as the system says (whole seconds of the boot time on
    // Linux); none where it cannot be read.
    std::optional<std::chrono::system_clock::time_point> time;
    bool ended = false; // it has ended but not been reaped yet (a zombie)
};
ProcessStart processStart(std::int64_t pid);

// The signal a process gets when it is killed outright (SIGKILL), as QProcess reports it in the
// exit code of a crash; none where the system has no such signal (Windows).
std::optional<int> killSignal();
// "Killed", "Segmentation fault", ... for a crash's signal; "exception 0x..." on Windows.
std::string signalName(int signal);
// The C signals (std::signal numbers) by which the system asks a console program to stop: on POSIX
// SIGINT (Ctrl-C), SIGTERM (kill), SIGHUP (a closed terminal) and SIGQUIT (Ctrl-\); on Windows SIGINT
// and SIGBREAK, which the C runtime raises for the console's Ctrl-C and Ctrl-Break events (SIGTERM
// is never raised there, and a closed console ends the process without a signal).
std::vector<int> interruptSignals();
// Makes the calling process the leader of a process group of its own. Called in a child between
// fork and exec (QProcess's child modifier), so that a cancel can end the child's own children too
// (pip's build helpers) and a Ctrl-C on the terminal reaches the parent alone. Nothing on Windows.
void startOwnProcessGroup();
// Kills every process of the group led by `pid` (SIGKILL); nothing where there are no groups
// (Windows: the caller kills the process itself).
void killProcessGroup(std::int64_t pid);

// --- Memory --------------------------------------------------------------------------------------

// Peak resident memory of process `pid` (VmHWM; on Windows the peak working set), in KiB; -1 where
// unknown.
std::int64_t peakResidentKiB(std::int64_t pid);

// What this process used and was allowed, in bytes; -1 where unknown or unlimited.
struct OwnMemory {
    std::int64_t peakResident = -1;
    std::int64_t peakAddressSpace = -1;
    std::int64_t addressSpaceLimit = -1; // `ulimit -v`; -1 when there is none
};
OwnMemory ownMemory();

// Memory this process and its children may use, in KiB: the machine's, or a smaller limit of the
// container (cgroup) it runs in; -1 where unknown.
std::int64_t memoryLimitKiB();
// Files whose "oom_kill N" lines count out-of-memory kills of the machine and of this process's
// container (Linux /proc/vmstat, cgroup memory.events); none where the system keeps no such count.
std::vector<std::string> oomCounterFiles();
// The sum of the "oom_kill N" counts in `files`; -1 when none of them has one.
std::int64_t oomKillCount(const std::vector<std::string> &files);

// --- CPU and scheduling --------------------------------------------------------------------------

// The CPU's model name; "unknown" where it cannot be read.
std::string cpuModel();
// The cores this process may run on now, ascending; empty where that cannot be read.
std::vector<int> allowedCores();
// Pins every thread of this process, and every thread it starts later, to `cores`. Returns an empty
// string, or why it failed for people ("sched_setaffinity failed (Invalid argument)").
std::string pinToCores(const std::vector<int> &cores);
// Whether pinToCores can work here at all.
bool canPinCores();
// How busy the machine is: its 1-minute load average (runnable and waiting tasks) and the cores
// that average counts against (online processors, not this process's affinity: the load is the
// machine's). None where the system keeps no load average (Windows).
struct MachineLoad {
    double oneMinute = 0;
    int cores = 0;
};
std::optional<MachineLoad> machineLoad();
// Lowers the calling thread's scheduling priority below the default (a nice value of 10 on Linux,
// THREAD_PRIORITY_BELOW_NORMAL on Windows), so that it leaves a busy core to the UI thread.
void lowerCurrentThreadPriority();

// --- Files ---------------------------------------------------------------------------------------

bool pathExists(const std::string &path);
// Whether this process may write `path` (a read-only mount answers no, even to root).
bool mayWrite(const std::string &path);
// Size in bytes of the file at `path`; none where it does not exist or cannot be read.
std::optional<std::int64_t> fileSize(const std::string &path);
// Bytes free to this user on the file system of `folder`; none where it cannot be read.
std::optional<std::uint64_t> freeBytes(const std::string &folder);
// Whether two paths name the same file (links included); none where either does not exist.
std::optional<bool> sameFile(const std::string &a, const std::string &b);
// Gives the file `from` the name `to` unless `to` exists: 0, or the system's error (EEXIST when
// `to` is there; the file then keeps its old name). Atomic where the system offers it.
int renameNoReplace(const std::string &from, const std::string &to);
// How many names (hard links) the file at `path` has; none where it does not exist.
std::optional<std::uint64_t> hardLinkCount(const std::string &path);
// What kind of file `path` is, following symbolic links (Missing when nothing is there).
enum class FileKind { Missing, Regular, Directory, Fifo, Device, Socket, Other };
FileKind fileKind(const std::string &path);
// Flushes an open file (a descriptor on POSIX, QFileDevice::handle()) to the disk. Returns an empty
// string or the system's reason.
std::string syncFile(int handle);
// Makes a rename inside `folder` durable (fsync of the folder on POSIX; nothing to do on Windows).
void syncFolder(const std::string &folder);

// A file held open for byte-range locks that belong to this open file alone (Linux: open file
// description locks). SQLite's own locks are per process and fall when any descriptor of the file
// in the process closes (a reader's connection ending); these stay until the holder goes, and a
// kill releases them. They meet SQLite's locks only on the same bytes: callers keep to their own.
// Where the system has no such locks (Windows, other POSIX systems), open() gives an invalid holder
// and callers go without (README "Windows").
class LockHolder
{
  public:
    LockHolder() = default;
    ~LockHolder();
    LockHolder(LockHolder &&other) noexcept;
    LockHolder &operator=(LockHolder &&other) noexcept;
    LockHolder(const LockHolder &) = delete;
    LockHolder &operator=(const LockHolder &) = delete;

    // Opens `path` for its locks. With `createLike`, a missing file is created with that file's
    // permission bits (as SQLite creates its side files); `created` then says whether it was.
    static LockHolder open(const std::string &path, const std::string &createLike = {}, bool *created = nullptr);
    bool valid() const { return handle_ >= 0; }
    // Take a lock on one byte without waiting. Busy: another open file holds one in the way.
    // Unsupported: this file's file system takes no such locks (some network and FUSE mounts).
    enum class Lock { Taken, Busy, Unsupported };
    Lock lockShared(std::int64_t offset);
    Lock lockExclusive(std::int64_t offset);
    void unlock(std::int64_t offset);
    // The first byte of [from, from + length) (length 0: to the end of all bytes) where another open
    // file, in this process or another, holds a lock of any kind, SQLite's included; none if free.
    std::optional<std::int64_t> lockedElsewhere(std::int64_t from, std::int64_t length) const;
    // Where the open file is now: its new name after a rename, empty once removed or unknown.
    std::string currentPath() const;

  private:
    friend bool sameOpenFile(const LockHolder &a, const LockHolder &b);
    int handle_ = -1;
};
// Whether two holders have the same file open (device and inode); false where either is invalid.
bool sameOpenFile(const LockHolder &a, const LockHolder &b);

// What an OS error behind a failed write says about room: the disk is full, a quota is used up, the
// file reached a size limit, or none of these.
enum class NoSpace { None, DiskFull, QuotaExceeded, FileTooLarge };
NoSpace noSpaceCause(int systemError);
// The largest file this process may write (ulimit -f, RLIMIT_FSIZE) in bytes; none without a limit.
std::optional<std::uint64_t> fileSizeLimit();
// The system's words for an OS error (strerror, FormatMessage).
std::string errorText(int systemError);

// --- Environment, time, terminal -----------------------------------------------------------------

// The value of an environment variable; none where it is not set.
std::optional<std::string> environmentVariable(const char *name);
// Whether the user's home folder is known, so that default data and cache folders can live there
// (POSIX: HOME or XDG_DATA_HOME is set; Windows always knows the user's profile).
bool homeFolderKnown();
// Calendar fields of `t` in UTC (gmtime_r, gmtime_s).
std::tm utcCalendar(std::time_t t);
// Whether standard error is a terminal, and its width in columns (0 where unknown).
bool stderrIsTerminal();
int stderrColumns();

// --- Shared libraries ----------------------------------------------------------------------------

// A library loaded at run time (dlopen, LoadLibrary), never unloaded: symbols taken from it stay
// valid for the life of the process.
class SharedLibrary
{
  public:
    // Null where the library is not there: callers then go without it.
    static std::optional<SharedLibrary> open(const std::string &name);
    // The address of `symbol`, or null.
    void *symbol(const char *name) const;

  private:
    explicit SharedLibrary(void *handle) : handle_(handle) {}
    void *handle_;
};
// The file name of NVIDIA's management library (NVML) as the driver installs it.
const char *nvmlLibraryName();

} // namespace stepscope::platform
