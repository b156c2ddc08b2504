// platform.h on Linux (and, where noted, other POSIX systems): /proc, cgroups, sched_setaffinity,
// statvfs, fsync, dlopen. With guards_posix.cpp (guards.h), the only file of Stepscope that includes
// POSIX headers.
#include "platform/platform.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <mutex>
#include <sstream>

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#ifdef __linux__
#include <dirent.h>
#include <sched.h>
#include <sys/syscall.h>
#endif

namespace stepscope::platform
{
namespace
{

// The number after `key` on the first line of `file` that starts with it ("VmHWM:\t 1234 kB" ->
// 1234), or -1. /proc and cgroup files all speak this way.
std::int64_t keyedValue(const std::string &file, const std::string &key)
{
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(key, 0) == 0) {
            std::istringstream rest(line.substr(key.size()));
            std::int64_t value = -1;
            if (rest >> value)
                return value;
        }
    return -1;
}

// The memory cgroup directories of this process under /sys/fs/cgroup (v2 and v1, where present).
std::vector<std::string> memoryCgroupDirs()
{
    std::vector<std::string> dirs;
    std::ifstream in("/proc/self/cgroup");
    for (std::string line; std::getline(in, line);) {
        // "0::/path" (v2, unified) or "4:memory:/path" (v1).
        const auto first = line.find(':'), second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos)
            continue;
        const std::string controllers = line.substr(first + 1, second - first - 1);
        const std::string path = line.substr(second + 1);
        if (controllers.empty())
            dirs.push_back("/sys/fs/cgroup" + path);
        else if (("," + controllers + ",").find(",memory,") != std::string::npos)
            dirs.push_back("/sys/fs/cgroup/memory" + path);
    }
    return dirs;
}

bool readable(const std::string &file)
{
    return std::ifstream(file).good();
}

// A figure of /proc/self/status in bytes ("VmHWM:  123456 kB"), or -1.
std::int64_t ownStatusBytes(const std::string &key)
{
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind(key + ":", 0) == 0)
            return static_cast<std::int64_t>(std::atol(line.c_str() + key.size() + 1)) * 1024;
    return -1;
}

} // namespace

// --- Processes ---------------------------------------------------------------------------------

std::int64_t currentProcessId()
{
    return getpid();
}

std::string hostName()
{
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0)
        return {};
    return buf;
}

bool processExists(std::int64_t pid)
{
    if (pid <= 0 || pid > std::numeric_limits<pid_t>::max())
        return false;
    // EPERM means it exists but belongs to someone else: still alive.
    return kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
}

ProcessStart processStart(std::int64_t pid)
{
    ProcessStart result;
    std::ifstream statFile("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(statFile, line);
    const auto nameEnd = line.rfind(')'); // the command name may hold spaces and parentheses
    if (nameEnd == std::string::npos || nameEnd + 2 > line.size())
        return result;
    std::istringstream fields(line.substr(nameEnd + 2));
    std::string field;
    unsigned long long startTicks = 0;
    for (int i = 3; i <= 22 && fields >> field; ++i) { // field 3 is the state, 22 the start time
        if (i == 3)
            result.ended = field == "Z" || field == "X";
        if (i == 22)
            startTicks = std::strtoull(field.c_str(), nullptr, 10);
    }
    std::ifstream procStat("/proc/stat");
    unsigned long long bootSeconds = 0;
    for (std::string key; procStat >> key;) {
        if (key == "btime") {
            procStat >> bootSeconds;
            break;
        }
        procStat.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
    const long ticksPerSecond = sysconf(_SC_CLK_TCK);
    if (startTicks == 0 || bootSeconds == 0 || ticksPerSecond <= 0)
        return result;
    result.time = std::chrono::system_clock::time_point(std::chrono::seconds(bootSeconds) +
                                                        std::chrono::milliseconds(startTicks * 1000 / ticksPerSecond));
    return result;
}

std::optional<int> killSignal()
{
    return SIGKILL;
}

std::vector<int> interruptSignals()
{
    return {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
}

void startOwnProcessGroup()
{
    setpgid(0, 0);
}

void killProcessGroup(std::int64_t pid)
{
    if (pid > 0)
        ::kill(-static_cast<pid_t>(pid), SIGKILL);
}

std::string signalName(int signal)
{
    const char *name = strsignal(signal);
    return name ? name : "signal " + std::to_string(signal);
}

// --- Memory --------------------------------------------------------------------------------------

std::int64_t peakResidentKiB(std::int64_t pid)
{
    if (pid <= 0)
        return -1;
    return keyedValue("/proc/" + std::to_string(pid) + "/status", "VmHWM:");
}

OwnMemory ownMemory()
{
    OwnMemory memory;
    memory.peakResident = ownStatusBytes("VmHWM");
    memory.peakAddressSpace = ownStatusBytes("VmPeak");
    rlimit limit{};
    if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        memory.addressSpaceLimit = static_cast<std::int64_t>(limit.rlim_cur);
    return memory;
}

std::int64_t memoryLimitKiB()
{
    std::int64_t limit = keyedValue("/proc/meminfo", "MemTotal:");
    for (const auto &dir : memoryCgroupDirs())
        for (const char *name : {"/memory.max", "/memory.limit_in_bytes"}) {
            std::ifstream in(dir + name);
            std::string text;
            // "max" (v2) or a huge number (v1) mean no limit of its own.
            if (!(in >> text) || text == "max")
                continue;
            const long long bytes = std::atoll(text.c_str());
            if (bytes > 0 && (limit < 0 || bytes / 1024 < limit))
                limit = bytes / 1024;
        }
    return limit;
}

std::vector<std::string> oomCounterFiles()
{
    std::vector<std::string> files;
    if (readable("/proc/vmstat"))
        files.push_back("/proc/vmstat");
    for (const auto &dir : memoryCgroupDirs())
        for (const char *name : {"/memory.events", "/memory.oom_control"})
            if (readable(dir + name))
                files.push_back(dir + name);
    return files;
}

std::int64_t oomKillCount(const std::vector<std::string> &files)
{
    std::int64_t total = -1;
    for (const auto &file : files) {
        const std::int64_t n = keyedValue(file, "oom_kill ");
        if (n >= 0)
            total = std::max<std::int64_t>(total, 0) + n;
    }
    return total;
}

// --- CPU and scheduling --------------------------------------------------------------------------

std::string cpuModel()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            return colon == std::string::npos ? line : line.substr(colon + 2);
        }
    return "unknown";
}

std::vector<int> allowedCores()
{
    std::vector<int> cores;
#ifdef __linux__
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return cores;
    for (int core = 0; core < CPU_SETSIZE; ++core)
        if (CPU_ISSET(core, &set))
            cores.push_back(core);
#endif
    return cores;
}

std::optional<MachineLoad> machineLoad()
{
    double load[1] = {0};
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (getloadavg(load, 1) != 1 || cores <= 0)
        return std::nullopt;
    return MachineLoad{load[0], static_cast<int>(cores)};
}

bool canPinCores()
{
#ifdef __linux__
    return true;
#else
    return false;
#endif
}

std::string pinToCores(const std::vector<int> &cores)
{
#ifdef __linux__
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int core : cores)
        CPU_SET(core, &set);
    // The mask is per thread: pin the threads that already exist (libraries may have started some
    // before main) as well as this one, whose mask every later thread inherits.
    if (DIR *tasks = opendir("/proc/self/task")) {
        while (const dirent *entry = readdir(tasks)) {
            const pid_t tid = static_cast<pid_t>(std::atoi(entry->d_name));
            if (tid > 0)
                sched_setaffinity(tid, sizeof set, &set); // a thread that just ended is fine to miss
        }
        closedir(tasks);
    }
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return std::string("sched_setaffinity failed (") + std::strerror(errno) + ")";
    return {};
#else
    (void)cores;
    return "pinning is implemented on Linux and Windows only";
#endif
}

void lowerCurrentThreadPriority()
{
#ifdef __linux__
    // Linux threads are tasks with a nice value each; 10 weighs about a tenth of the UI thread's 0.
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
#endif
}

// --- Files ---------------------------------------------------------------------------------------

bool pathExists(const std::string &path)
{
    struct stat st {
    };
    return ::stat(path.c_str(), &st) == 0;
}

bool mayWrite(const std::string &path)
{
    return ::access(path.c_str(), W_OK) == 0;
}

std::optional<std::int64_t> fileSize(const std::string &path)
{
    struct stat st {
    };
    if (::stat(path.c_str(), &st) != 0)
        return std::nullopt;
    return static_cast<std::int64_t>(st.st_size);
}

std::optional<std::uint64_t> freeBytes(const std::string &folder)
{
    struct statvfs fs {
    };
    if (::statvfs(folder.c_str(), &fs) != 0)
        return std::nullopt;
    return static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
}

std::optional<bool> sameFile(const std::string &a, const std::string &b)
{
    struct stat sa {
    };
    struct stat sb {
    };
    if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0)
        return std::nullopt;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int renameNoReplace(const std::string &from, const std::string &to)
{
#if defined(__linux__) && defined(SYS_renameat2)
    // renameat2(RENAME_NOREPLACE = 1): one step, so no one ever sees the file under two names.
    if (::syscall(SYS_renameat2, AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), 1u) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS) // a file system without it falls back below
        return errno;
#endif
    if (::link(from.c_str(), to.c_str()) != 0)
        return errno;
    ::unlink(from.c_str());
    return 0;
}

std::optional<std::uint64_t> fileSizeLimit()
{
    struct rlimit limit {
    };
    if (getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return std::nullopt;
    return static_cast<std::uint64_t>(limit.rlim_cur);
}

std::optional<std::uint64_t> hardLinkCount(const std::string &path)
{
    struct stat st {
    };
    if (::stat(path.c_str(), &st) != 0)
        return std::nullopt;
    return static_cast<std::uint64_t>(st.st_nlink);
}

// --- LockHolder: open file description locks (Linux 3.15 and later) -------------------------------

namespace
{

// Whether a descriptor of this process other than `fd` and those in `skip` refers to fd's file.
bool fileOpenElsewhere(int fd, const std::vector<int> &skip)
{
#ifndef __linux__
    (void)fd;
    (void)skip;
    return false; // no holder is ever opened there (no open file description locks)
#else
    struct stat mine {
    };
    if (::fstat(fd, &mine) != 0)
        return false;
    DIR *dir = ::opendir("/proc/self/fd");
    if (!dir)
        return true; // cannot tell: keep it open rather than drop someone's locks
    bool found = false;
    const int dirFd = ::dirfd(dir);
    while (const dirent *entry = ::readdir(dir)) {
        char *end = nullptr;
        const long other = std::strtol(entry->d_name, &end, 10);
        if (end == entry->d_name || *end != '\0' || other == fd || other == dirFd ||
            std::find(skip.begin(), skip.end(), static_cast<int>(other)) != skip.end())
            continue;
        struct stat st {
        };
        if (::fstat(static_cast<int>(other), &st) == 0 && st.st_dev == mine.st_dev && st.st_ino == mine.st_ino) {
            found = true;
            break;
        }
    }
    ::closedir(dir);
    return found;
#endif
}

// Closing ANY descriptor of a file drops every POSIX lock this process holds on it, SQLite's
// included (a reader's connection to the same database, the -shm it shares). So a lock holder's
// descriptor gives up its own locks at once, but is closed only once no other descriptor of this
// process has its file open; until then it waits here, and every later close tries again.
void closeKeepingProcessLocks(int fd)
{
    static std::mutex mutex;
    static std::vector<int> parked;
#ifdef F_OFD_SETLK
    struct flock all {
    };
    all.l_type = F_UNLCK;
    all.l_whence = SEEK_SET;
    ::fcntl(fd, F_OFD_SETLK, &all); // this open file's locks only; the process's POSIX ones stay
#endif
    std::lock_guard<std::mutex> lock(mutex);
    parked.push_back(fd);
    for (auto it = parked.begin(); it != parked.end();) {
        if (fileOpenElsewhere(*it, parked)) {
            ++it;
            continue;
        }
        ::close(*it);
        it = parked.erase(it);
    }
}

} // namespace

LockHolder::~LockHolder()
{
    if (handle_ >= 0)
        closeKeepingProcessLocks(handle_);
}

LockHolder::LockHolder(LockHolder &&other) noexcept : handle_(other.handle_)
{
    other.handle_ = -1;
}

LockHolder &LockHolder::operator=(LockHolder &&other) noexcept
{
    if (this != &other) {
        if (handle_ >= 0)
            closeKeepingProcessLocks(handle_);
        handle_ = other.handle_;
        other.handle_ = -1;
    }
    return *this;
}

LockHolder LockHolder::open(const std::string &path, const std::string &createLike, bool *created)
{
    LockHolder holder;
    if (created)
        *created = false;
#ifdef F_OFD_SETLK
    int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && !createLike.empty()) {
        struct stat like {
        };
        const mode_t mode = ::stat(createLike.c_str(), &like) == 0 ? (like.st_mode & 0777) : 0644;
        fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (fd >= 0) {
            ::fchmod(fd, mode); // the umask must not make it narrower than the database
            if (created)
                *created = true;
        } else if (errno == EEXIST) {
            fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC); // another process made it meanwhile
        }
    }
    holder.handle_ = fd;
#else
    (void)path;
    (void)createLike;
#endif
    return holder;
}

namespace
{

#ifdef F_OFD_SETLK
LockHolder::Lock setByteLock(int fd, short type, std::int64_t offset)
{
    struct flock lock {
    };
    lock.l_type = type;
    lock.l_whence = SEEK_SET;
    lock.l_start = static_cast<off_t>(offset);
    lock.l_len = 1;
    if (::fcntl(fd, F_OFD_SETLK, &lock) == 0)
        return LockHolder::Lock::Taken;
    return errno == EAGAIN || errno == EACCES ? LockHolder::Lock::Busy : LockHolder::Lock::Unsupported;
}
#endif

} // namespace

LockHolder::Lock LockHolder::lockShared(std::int64_t offset)
{
#ifdef F_OFD_SETLK
    return handle_ >= 0 ? setByteLock(handle_, F_RDLCK, offset) : Lock::Unsupported;
#else
    (void)offset;
    return Lock::Unsupported;
#endif
}

LockHolder::Lock LockHolder::lockExclusive(std::int64_t offset)
{
#ifdef F_OFD_SETLK
    return handle_ >= 0 ? setByteLock(handle_, F_WRLCK, offset) : Lock::Unsupported;
#else
    (void)offset;
    return Lock::Unsupported;
#endif
}

void LockHolder::unlock(std::int64_t offset)
{
#ifdef F_OFD_SETLK
    if (handle_ >= 0)
        setByteLock(handle_, F_UNLCK, offset);
#else
    (void)offset;
#endif
}

std::optional<std::int64_t> LockHolder::lockedElsewhere(std::int64_t from, std::int64_t length) const
{
#ifdef F_OFD_SETLK
    if (handle_ < 0)
        return std::nullopt;
    // Asking for a write lock meets every other lock, shared or not; our own open file's are skipped.
    struct flock probe {
    };
    probe.l_type = F_WRLCK;
    probe.l_whence = SEEK_SET;
    probe.l_start = static_cast<off_t>(from);
    probe.l_len = static_cast<off_t>(length);
    if (::fcntl(handle_, F_OFD_GETLK, &probe) != 0 || probe.l_type == F_UNLCK)
        return std::nullopt;
    return static_cast<std::int64_t>(std::max<off_t>(probe.l_start, static_cast<off_t>(from)));
#else
    (void)from;
    (void)length;
    return std::nullopt;
#endif
}

bool sameOpenFile(const LockHolder &a, const LockHolder &b)
{
    struct stat sa {
    };
    struct stat sb {
    };
    return a.handle_ >= 0 && b.handle_ >= 0 && ::fstat(a.handle_, &sa) == 0 && ::fstat(b.handle_, &sb) == 0 &&
           sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

std::string LockHolder::currentPath() const
{
    if (handle_ < 0)
        return {};
    char target[4096];
    const std::string link = "/proc/self/fd/" + std::to_string(handle_);
    const ssize_t n = ::readlink(link.c_str(), target, sizeof target - 1);
    if (n <= 0)
        return {};
    std::string path(target, static_cast<std::size_t>(n));
    static const std::string kDeleted = " (deleted)";
    struct stat st {
    };
    if (::fstat(handle_, &st) != 0 || st.st_nlink == 0)
        return {};
    if (path.size() > kDeleted.size() && path.compare(path.size() - kDeleted.size(), kDeleted.size(), kDeleted) == 0)
        return {};
    return path;
}

FileKind fileKind(const std::string &path)
{
    struct stat st {
    };
    if (::stat(path.c_str(), &st) != 0)
        return FileKind::Missing;
    if (S_ISREG(st.st_mode))
        return FileKind::Regular;
    if (S_ISDIR(st.st_mode))
        return FileKind::Directory;
    if (S_ISFIFO(st.st_mode))
        return FileKind::Fifo;
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
        return FileKind::Device;
    if (S_ISSOCK(st.st_mode))
        return FileKind::Socket;
    return FileKind::Other;
}

std::string syncFile(int handle)
{
    if (::fsync(handle) != 0)
        return std::strerror(errno);
    return {};
}

void syncFolder(const std::string &folder)
{
    const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY);
    if (dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
}

NoSpace noSpaceCause(int systemError)
{
    switch (systemError) {
    case ENOSPC:
        return NoSpace::DiskFull;
    case EDQUOT:
        return NoSpace::QuotaExceeded;
    case EFBIG:
        return NoSpace::FileTooLarge;
    default:
        return NoSpace::None;
    }
}

std::string errorText(int systemError)
{
    return std::strerror(systemError);
}

// --- Environment, time, terminal -----------------------------------------------------------------

std::optional<std::string> environmentVariable(const char *name)
{
    const char *value = std::getenv(name);
    if (!value)
        return std::nullopt;
    return std::string(value);
}

bool homeFolderKnown()
{
    // Without HOME (and XDG_DATA_HOME), Qt takes "/" for the home folder.
    for (const char *name : {"XDG_DATA_HOME", "HOME"})
        if (const char *value = std::getenv(name); value && *value)
            return true;
    return false;
}

std::tm utcCalendar(std::time_t t)
{
    std::tm tm{};
    gmtime_r(&t, &tm);
    return tm;
}

bool stderrIsTerminal()
{
    return isatty(STDERR_FILENO) != 0;
}

int stderrColumns()
{
    winsize size{};
    return ::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
}

// --- Shared libraries ----------------------------------------------------------------------------

std::optional<SharedLibrary> SharedLibrary::open(const std::string &name)
{
    void *handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
        return std::nullopt;
    return SharedLibrary(handle);
}

void *SharedLibrary::symbol(const char *name) const
{
    return dlsym(handle_, name);
}

const char *nvmlLibraryName()
{
    return "libnvidia-ml.so.1";
}

} // namespace stepscope::platform
