// platform.h on Windows: OpenProcess/GetExitCodeProcess for liveness, GetProcessTimes,
// GetProcessMemoryInfo and job objects for memory, SetProcessAffinityMask, GetDiskFreeSpaceEx,
// LoadLibrary for nvml.dll.
//
// Cross-built with mingw-w64 and tested under wine64 in CI (scripts/test-windows.sh), never on
// Windows itself, and never with MSVC (README "Windows" says what wine cannot show).
// Paths are UTF-8 std::strings throughout Stepscope (QString::toStdString, SQLite's own API) and
// are converted to UTF-16 here for the wide Win32 calls.
#include "platform/platform.h"

#include "platform/guards.h"

#ifndef NOMINMAX
#define NOMINMAX
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <cerrno>
#include <csignal>

#include <io.h>
#include <psapi.h>

#include <cstdio>
#include <cstdlib>
#include <cwchar>
#include <string>
#include <utility>

namespace stepscope::platform
{
namespace
{

std::wstring wide(const std::string &utf8)
{
    if (utf8.empty())
        return {};
    const int n = MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), nullptr, 0);
    std::wstring out(static_cast<std::size_t>(n), L'\0');
    MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), out.data(), n);
    return out;
}

// A path for the wide file calls. Those stop at MAX_PATH (260) unless the program declares itself
// long-path aware and the machine allows it (LongPathsEnabled); the "\\?\" form passes any length
// everywhere, but takes only a full path with backslashes, so a long one is made full first.
std::wstring widePath(const std::string &utf8Path)
{
    std::wstring path = wide(utf8Path);
    // 12: the room CreateDirectoryW keeps below MAX_PATH for a file name in the new folder.
    if (path.size() < MAX_PATH - 12 || path.rfind(L"\\\\?\\", 0) == 0)
        return path;
    const DWORD n = GetFullPathNameW(path.c_str(), 0, nullptr, nullptr);
    if (n == 0)
        return path;
    std::wstring full(n, L'\0');
    full.resize(GetFullPathNameW(path.c_str(), n, full.data(), nullptr));
    if (full.rfind(L"\\\\", 0) == 0) // \\server\share\... is \\?\UNC\server\share\...
        return L"\\\\?\\UNC\\" + full.substr(2);
    return L"\\\\?\\" + full;
}

std::string utf8(const wchar_t *text, int length)
{
    if (length <= 0)
        return {};
    const int n = WideCharToMultiByte(CP_UTF8, 0, text, length, nullptr, 0, nullptr, nullptr);
    std::string out(static_cast<std::size_t>(n), '\0');
    WideCharToMultiByte(CP_UTF8, 0, text, length, out.data(), n, nullptr, nullptr);
    return out;
}

// Closes a HANDLE on scope exit.
class Handle
{
  public:
    explicit Handle(HANDLE h) : h_(h) {}
    ~Handle()
    {
        if (valid())
            CloseHandle(h_);
    }
    Handle(const Handle &) = delete;
    Handle &operator=(const Handle &) = delete;
    bool valid() const { return h_ != nullptr && h_ != INVALID_HANDLE_VALUE; }
    HANDLE get() const { return h_; }

  private:
    HANDLE h_;
};

// FILETIME counts 100 ns since 1601-01-01; the system clock counts from 1970-01-01.
std::chrono::system_clock::time_point fromFileTime(const FILETIME &ft)
{
    constexpr unsigned long long kEpochDifference = 116444736000000000ULL; // 1601 to 1970 in 100 ns
    ULARGE_INTEGER ticks;
    ticks.LowPart = ft.dwLowDateTime;
    ticks.HighPart = ft.dwHighDateTime;
    const auto sinceEpoch = static_cast<long long>((ticks.QuadPart - kEpochDifference) / 10); // microseconds
    return std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::microseconds(sinceEpoch)));
}

// The job object this process runs in, as a container's memory limit: its per-process and whole-job
// memory limits in bytes (0 where none).
JOBOBJECT_EXTENDED_LIMIT_INFORMATION jobLimits()
{
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION info{};
    if (!QueryInformationJobObject(nullptr, JobObjectExtendedLimitInformation, &info, sizeof info, nullptr))
        return JOBOBJECT_EXTENDED_LIMIT_INFORMATION{};
    return info;
}

} // namespace

// --- Processes ---------------------------------------------------------------------------------

std::int64_t currentProcessId()
{
    return static_cast<std::int64_t>(GetCurrentProcessId());
}

std::string hostName()
{
    wchar_t buf[MAX_COMPUTERNAME_LENGTH + 1] = {};
    DWORD size = MAX_COMPUTERNAME_LENGTH + 1;
    if (!GetComputerNameW(buf, &size))
        return {};
    return utf8(buf, static_cast<int>(size));
}

bool processExists(std::int64_t pid)
{
    if (pid <= 0 || pid > 0xffffffffLL)
        return false;
    Handle process(OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, static_cast<DWORD>(pid)));
    // Access denied: it exists but belongs to someone else (as EPERM on POSIX).
    if (!process.valid())
        return GetLastError() == ERROR_ACCESS_DENIED;
    return true; // an ended process whose object is still held reads as such in processStart
}

ProcessStart processStart(std::int64_t pid)
{
    ProcessStart result;
    if (pid <= 0 || pid > 0xffffffffLL)
        return result;
    Handle process(OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | SYNCHRONIZE, FALSE, static_cast<DWORD>(pid)));
    if (!process.valid())
        return result;
    DWORD exitCode = 0;
    // STILL_ACTIVE can also be a real exit code (259); the wait settles it.
    result.ended = GetExitCodeProcess(process.get(), &exitCode) &&
                   (exitCode != STILL_ACTIVE || WaitForSingleObject(process.get(), 0) == WAIT_OBJECT_0);
    FILETIME created{}, exited{}, kernel{}, user{};
    if (GetProcessTimes(process.get(), &created, &exited, &kernel, &user))
        result.time = fromFileTime(created);
    return result;
}

std::optional<int> killSignal()
{
    return std::nullopt; // TerminateProcess sets an exit code, not a signal
}

std::vector<int> interruptSignals()
{
    return {SIGINT, SIGBREAK};
}

void startOwnProcessGroup() {}

void killProcessGroup(std::int64_t) {}

std::string signalName(int signal)
{
    // QProcess reports a crash's NTSTATUS (0xC0000005: access violation) as the exit code.
    char buf[48];
    std::snprintf(buf, sizeof buf, "exception 0x%08X", static_cast<unsigned>(signal));
    return buf;
}

// --- Memory --------------------------------------------------------------------------------------

std::int64_t peakResidentKiB(std::int64_t pid)
{
    if (pid <= 0 || pid > 0xffffffffLL)
        return -1;
    Handle process(OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | PROCESS_VM_READ, FALSE, static_cast<DWORD>(pid)));
    PROCESS_MEMORY_COUNTERS counters{};
    if (!process.valid() || !GetProcessMemoryInfo(process.get(), &counters, sizeof counters))
        return -1;
    return static_cast<std::int64_t>(counters.PeakWorkingSetSize / 1024);
}

OwnMemory ownMemory()
{
    OwnMemory memory;
    PROCESS_MEMORY_COUNTERS counters{};
    if (GetProcessMemoryInfo(GetCurrentProcess(), &counters, sizeof counters))
        memory.peakResident = static_cast<std::int64_t>(counters.PeakWorkingSetSize);
    // Windows has no `ulimit -v`; a job object's per-process memory limit is the nearest thing.
    const auto job = jobLimits();
    if (job.BasicLimitInformation.LimitFlags & JOB_OBJECT_LIMIT_PROCESS_MEMORY)
        memory.addressSpaceLimit = static_cast<std::int64_t>(job.ProcessMemoryLimit);
    return memory;
}

std::int64_t memoryLimitKiB()
{
    std::int64_t limit = -1;
    MEMORYSTATUSEX status{};
    status.dwLength = sizeof status;
    if (GlobalMemoryStatusEx(&status))
        limit = static_cast<std::int64_t>(status.ullTotalPhys / 1024);
    // A job object (a container, a CI runner) may allow less than the machine has.
    const auto job = jobLimits();
    for (const auto &[flag, bytes] : {std::pair{JOB_OBJECT_LIMIT_JOB_MEMORY, job.JobMemoryLimit},
                                     std::pair{JOB_OBJECT_LIMIT_PROCESS_MEMORY, job.ProcessMemoryLimit}}) {
        const auto kib = static_cast<std::int64_t>(bytes / 1024);
        if ((job.BasicLimitInformation.LimitFlags & flag) && kib > 0 && (limit < 0 || kib < limit))
            limit = kib;
    }
    return limit;
}

std::vector<std::string> oomCounterFiles()
{
    return {}; // Windows keeps no count of out-of-memory kills in files
}

std::int64_t oomKillCount(const std::vector<std::string> &)
{
    return -1;
}

// --- CPU and scheduling --------------------------------------------------------------------------

std::string cpuModel()
{
    wchar_t name[256] = {};
    DWORD size = sizeof name;
    if (RegGetValueW(HKEY_LOCAL_MACHINE, L"HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0", L"ProcessorNameString",
                     RRF_RT_REG_SZ, nullptr, name, &size) != ERROR_SUCCESS)
        return "unknown";
    return utf8(name, static_cast<int>(wcslen(name)));
}

// Affinity masks cover one processor group (at most 64 logical processors): on a machine with more,
// the cores are those of the group this process runs in, numbered within it.
std::vector<int> allowedCores()
{
    std::vector<int> cores;
    DWORD_PTR processMask = 0, systemMask = 0;
    if (!GetProcessAffinityMask(GetCurrentProcess(), &processMask, &systemMask))
        return cores;
    for (int core = 0; core < static_cast<int>(sizeof(DWORD_PTR) * 8); ++core)
        if (processMask & (DWORD_PTR{1} << core))
            cores.push_back(core);
    return cores;
}

// Windows keeps no load average; processor queue length counters would need PDH. None.
std::optional<MachineLoad> machineLoad()
{
    return std::nullopt;
}

bool canPinCores()
{
    return true;
}

std::string pinToCores(const std::vector<int> &cores)
{
    DWORD_PTR mask = 0;
    for (int core : cores) {
        if (core < 0 || core >= static_cast<int>(sizeof(DWORD_PTR) * 8))
            return "core " + std::to_string(core) + " is outside this process's processor group";
        mask |= DWORD_PTR{1} << core;
    }
    // Unlike sched_setaffinity, this sets every thread of the process, existing and later ones.
    if (!SetProcessAffinityMask(GetCurrentProcess(), mask))
        return "SetProcessAffinityMask failed (" + errorText(static_cast<int>(GetLastError())) + ")";
    return {};
}

void lowerCurrentThreadPriority()
{
    SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_BELOW_NORMAL);
}

// --- Files ---------------------------------------------------------------------------------------

bool pathExists(const std::string &path)
{
    return GetFileAttributesW(widePath(path).c_str()) != INVALID_FILE_ATTRIBUTES;
}

bool mayWrite(const std::string &path)
{
    // Opening for writing without creating or truncating asks the ACLs and the read-only attribute
    // what access(W_OK) asks on POSIX; a folder opens with backup semantics.
    const std::wstring name = widePath(path);
    const DWORD attributes = GetFileAttributesW(name.c_str());
    if (attributes == INVALID_FILE_ATTRIBUTES)
        return false;
    const bool folder = attributes & FILE_ATTRIBUTE_DIRECTORY;
    Handle file(CreateFileW(name.c_str(), folder ? FILE_ADD_FILE : GENERIC_WRITE,
                            FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                            folder ? FILE_FLAG_BACKUP_SEMANTICS : FILE_ATTRIBUTE_NORMAL, nullptr));
    return file.valid();
}

std::optional<std::int64_t> fileSize(const std::string &path)
{
    WIN32_FILE_ATTRIBUTE_DATA data{};
    if (!GetFileAttributesExW(widePath(path).c_str(), GetFileExInfoStandard, &data))
        return std::nullopt;
    return static_cast<std::int64_t>((static_cast<unsigned long long>(data.nFileSizeHigh) << 32) | data.nFileSizeLow);
}

std::optional<std::uint64_t> freeBytes(const std::string &folder)
{
    ULARGE_INTEGER available{}, total{}, free{};
    if (!GetDiskFreeSpaceExW(widePath(folder).c_str(), &available, &total, &free))
        return std::nullopt;
    return static_cast<std::uint64_t>(available.QuadPart);
}

std::optional<bool> sameFile(const std::string &a, const std::string &b)
{
    // Volume serial number and file index identify a file as st_dev and st_ino do.
    const auto identity = [](const std::string &path) -> std::optional<BY_HANDLE_FILE_INFORMATION> {
        Handle file(CreateFileW(widePath(path).c_str(), 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                                OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr));
        BY_HANDLE_FILE_INFORMATION info{};
        if (!file.valid() || !GetFileInformationByHandle(file.get(), &info))
            return std::nullopt;
        return info;
    };
    const auto ia = identity(a), ib = identity(b);
    if (!ia || !ib)
        return std::nullopt;
    return ia->dwVolumeSerialNumber == ib->dwVolumeSerialNumber && ia->nFileIndexHigh == ib->nFileIndexHigh &&
           ia->nFileIndexLow == ib->nFileIndexLow;
}

std::optional<std::uint64_t> fileSizeLimit()
{
    return std::nullopt; // Windows has no per-process file-size limit
}

int renameNoReplace(const std::string &from, const std::string &to)
{
    // Without MOVEFILE_REPLACE_EXISTING the move fails when `to` exists.
    if (MoveFileExW(widePath(from).c_str(), widePath(to).c_str(), 0))
        return 0;
    return GetLastError() == ERROR_ALREADY_EXISTS || GetLastError() == ERROR_FILE_EXISTS ? EEXIST : EIO;
}

// No lock holder on Windows yet: LockFileEx's per-handle locks would serve, but nothing here can
// test them until issue 33 (Windows) brings a Windows machine. Callers go without.
LockHolder::~LockHolder() = default;
LockHolder::LockHolder(LockHolder &&other) noexcept : handle_(other.handle_)
{
    other.handle_ = -1;
}
LockHolder &LockHolder::operator=(LockHolder &&other) noexcept
{
    handle_ = other.handle_;
    other.handle_ = -1;
    return *this;
}
LockHolder LockHolder::open(const std::string &, const std::string &, bool *created)
{
    if (created)
        *created = false;
    return {};
}
LockHolder::Lock LockHolder::lockShared(std::int64_t)
{
    return Lock::Unsupported;
}
LockHolder::Lock LockHolder::lockExclusive(std::int64_t)
{
    return Lock::Unsupported;
}
void LockHolder::unlock(std::int64_t) {}
std::optional<std::int64_t> LockHolder::lockedElsewhere(std::int64_t, std::int64_t) const
{
    return std::nullopt;
}
std::string LockHolder::currentPath() const
{
    return {};
}
bool sameOpenFile(const LockHolder &, const LockHolder &)
{
    return false;
}

std::optional<std::uint64_t> hardLinkCount(const std::string &path)
{
    Handle file(CreateFileW(widePath(path).c_str(), 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                            OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr));
    BY_HANDLE_FILE_INFORMATION info{};
    if (!file.valid() || !GetFileInformationByHandle(file.get(), &info))
        return std::nullopt;
    return static_cast<std::uint64_t>(info.nNumberOfLinks);
}

FileKind fileKind(const std::string &path)
{
    const DWORD attributes = GetFileAttributesW(widePath(path).c_str());
    if (attributes == INVALID_FILE_ATTRIBUTES)
        return FileKind::Missing;
    if (attributes & FILE_ATTRIBUTE_DIRECTORY)
        return FileKind::Directory;
    if (attributes & FILE_ATTRIBUTE_DEVICE)
        return FileKind::Device;
    return FileKind::Regular;
}

std::string syncFile(int handle)
{
    if (handle < 0)
        return {}; // Qt opened the file by a native handle and has no descriptor to give
    const auto file = reinterpret_cast<HANDLE>(_get_osfhandle(handle));
    if (file == INVALID_HANDLE_VALUE || !FlushFileBuffers(file))
        return errorText(static_cast<int>(GetLastError()));
    return {};
}

void syncFolder(const std::string &)
{
    // A folder cannot be flushed on Windows; NTFS journals the rename itself.
}

// The Windows SDK's winerror.h has it; mingw-w64's (Debian 12) does not.
#ifndef ERROR_DISK_QUOTA_EXCEEDED
#define ERROR_DISK_QUOTA_EXCEEDED 1295L
#endif

NoSpace noSpaceCause(int systemError)
{
    // SQLite's system error on Windows is GetLastError()'s code.
    switch (static_cast<DWORD>(systemError)) {
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
        return NoSpace::DiskFull;
    case ERROR_DISK_QUOTA_EXCEEDED:
        return NoSpace::QuotaExceeded;
    case ERROR_FILE_TOO_LARGE:
        return NoSpace::FileTooLarge;
    default:
        return NoSpace::None;
    }
}

std::string errorText(int systemError)
{
    wchar_t *text = nullptr;
    const DWORD n =
        FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
                       nullptr, static_cast<DWORD>(systemError), 0, reinterpret_cast<LPWSTR>(&text), 0, nullptr);
    std::string out = n ? utf8(text, static_cast<int>(n)) : "error " + std::to_string(systemError);
    LocalFree(text);
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == '.'))
        out.pop_back();
    return out;
}

// --- Environment, time, terminal -----------------------------------------------------------------

std::optional<std::string> environmentVariable(const char *name)
{
    const std::wstring key = wide(name);
    const DWORD size = GetEnvironmentVariableW(key.c_str(), nullptr, 0);
    if (size == 0)
        return GetLastError() == ERROR_ENVVAR_NOT_FOUND ? std::nullopt : std::optional<std::string>(std::string());
    std::wstring value(size, L'\0');
    const DWORD n = GetEnvironmentVariableW(key.c_str(), value.data(), size);
    return utf8(value.data(), static_cast<int>(n));
}

bool homeFolderKnown()
{
    return true; // QStandardPaths asks the shell for the user's folders; no HOME needed
}

std::tm utcCalendar(std::time_t t)
{
    std::tm tm{};
    gmtime_s(&tm, &t);
    return tm;
}

bool stderrIsTerminal()
{
    // A console that takes the escape sequence the progress line redraws with ("\r\33[K"): turned
    // on here (Windows 10 and later); a console that refuses it counts as no terminal.
    const HANDLE err = GetStdHandle(STD_ERROR_HANDLE);
    DWORD mode = 0;
    if (!GetConsoleMode(err, &mode))
        return false;
    return (mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING) ||
           SetConsoleMode(err, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING);
}

int stderrColumns()
{
    CONSOLE_SCREEN_BUFFER_INFO info{};
    if (!GetConsoleScreenBufferInfo(GetStdHandle(STD_ERROR_HANDLE), &info))
        return 0;
    return info.srWindow.Right - info.srWindow.Left + 1;
}

// --- Shared libraries ----------------------------------------------------------------------------

std::optional<SharedLibrary> SharedLibrary::open(const std::string &name)
{
    // System folders only: a DLL of that name in the working folder must not be picked up.
    HMODULE module = LoadLibraryExW(wide(name).c_str(), nullptr, LOAD_LIBRARY_SEARCH_SYSTEM32);
    if (!module)
        return std::nullopt;
    return SharedLibrary(module);
}

void *SharedLibrary::symbol(const char *name) const
{
    return reinterpret_cast<void *>(GetProcAddress(static_cast<HMODULE>(handle_), name));
}

const char *nvmlLibraryName()
{
    return "nvml.dll"; // in System32 since the R450 drivers (2020); before, under NVSMI only
}

// --- Guards (guards.h) ---------------------------------------------------------------------------

namespace
{
constexpr DWORD kLockByteHigh = 0x40000000; // the lock's byte: offset 2^62, past any holder's text
} // namespace

FileLock::FileLock(const std::string &path, const std::string &holder)
{
    // Shared read and write, so that a second taker can open the file and read who holds it.
    HANDLE file = CreateFileW(widePath(path).c_str(), GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE,
                              nullptr, OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (file == INVALID_HANDLE_VALUE) {
        systemError_ = static_cast<int>(GetLastError());
        return;
    }
    // LockFileEx's locks are mandatory: bytes under another handle's lock cannot be read. So the
    // lock is one byte far past any text (locks may lie beyond the end of a file), and a second
    // taker reads the holder's name from the bytes before it.
    OVERLAPPED at{};
    at.OffsetHigh = kLockByteHigh;
    if (!LockFileEx(file, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &at)) {
        systemError_ = static_cast<int>(GetLastError());
        if (systemError_ == ERROR_LOCK_VIOLATION) {
            state_ = State::Busy;
            char buffer[512];
            DWORD n = 0;
            if (ReadFile(file, buffer, sizeof buffer, &n, nullptr))
                holder_.assign(buffer, n);
            while (!holder_.empty() && (holder_.back() == '\n' || holder_.back() == '\r'))
                holder_.pop_back();
        }
        CloseHandle(file);
        return;
    }
    const std::string text = holder + '\n';
    DWORD written = 0;
    if (!SetEndOfFile(file) || !WriteFile(file, text.data(), static_cast<DWORD>(text.size()), &written, nullptr) ||
        written != text.size()) {
        systemError_ = static_cast<int>(GetLastError());
        CloseHandle(file);
        return;
    }
    handle_ = reinterpret_cast<std::intptr_t>(file);
    state_ = State::Held;
}

FileLock::~FileLock()
{
    if (handle_ == -1)
        return;
    HANDLE file = reinterpret_cast<HANDLE>(handle_);
    SetFilePointer(file, 0, nullptr, FILE_BEGIN);
    SetEndOfFile(file);
    CloseHandle(file); // ends the lock
}

std::string FileLock::error() const
{
    return errorText(systemError_);
}

// No watchdog yet: socket_ stays -1 and every call does nothing.
GroupWatchdog::GroupWatchdog() = default;
GroupWatchdog::~GroupWatchdog() = default;
void GroupWatchdog::watchOwnGroup() const noexcept {}
void GroupWatchdog::forget(std::int64_t) const {}

} // namespace stepscope::platform
