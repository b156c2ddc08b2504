// The writer's claim on its database file and on the log beside its name (writer_claim.h).
#include "store/writer_claim.h"

#include "store/store_internal.h"

#include <chrono>
#include <filesystem>
#include <optional>
#include <system_error>
#include <thread>

namespace stepscope::store
{

namespace
{

// Bytes far above SQLite's own (its lock bytes start at 2^30 and span 512), never data: a lock may
// lie beyond the end of a file.
constexpr std::int64_t kGate = 0x70000000;   // held exclusively while one writer checks and claims
constexpr std::int64_t kWriter = 0x70000001; // held shared by every writer, on the file and its -wal
constexpr std::int64_t kPidBase = 0x71000000; // a writer holds kPidBase + its process id, so a
constexpr std::int64_t kPidSpan = 1 << 22;    // refused one can name it (Linux pids < 2^22)
// A writer holds the gate for microseconds; a longer wait means a writer stopped mid-claim.
constexpr auto kGateWait = std::chrono::seconds(5);
constexpr auto kMismatchWait = std::chrono::seconds(2);

// The name SQLite gives the log: the database's path, symbolic links resolved, and "-wal".
std::string logNameOf(const std::string &path)
{
    std::error_code error;
    const auto resolved = std::filesystem::canonical(path, error);
    return (error ? path : resolved.string()) + "-wal";
}

} // namespace

std::unique_ptr<WriterClaim> WriterClaim::take(const std::string &path)
{
    auto claim = std::unique_ptr<WriterClaim>(new WriterClaim);
    claim->file_ = platform::LockHolder::open(path);
    if (!claim->file_.valid())
        return nullptr; // no such locks here, or the file cannot be opened: SQLite will say why
    const std::string logName = logNameOf(path);
    claim->logName_ = logName;
    // A writer through our name that has just closed its connection has seen SQLite delete the
    // log, and still holds its claim for a moment, on the deleted log: that looks like a writer
    // through another name. So a mismatch is believed only once it has lasted kMismatchWait.
    const auto mismatchDeadline = std::chrono::steady_clock::now() + kMismatchWait;
    std::optional<std::int64_t> pidByte;
    for (;;) {
        // One claimant at a time, so that two writers through two names, starting together, cannot
        // both find the file unclaimed.
        const auto deadline = std::chrono::steady_clock::now() + kGateWait;
        for (;;) {
            const auto gate = claim->file_.lockExclusive(kGate);
            if (gate == platform::LockHolder::Lock::Taken)
                break;
            if (gate == platform::LockHolder::Lock::Unsupported)
                return nullptr; // a file system without such locks: the hard-link check is all there is
            if (std::chrono::steady_clock::now() > deadline)
                throw StoreError(StoreError::Kind::Io,
                                 quoted(path) +
                                     " is being opened for writing by another Stepscope process that has not finished "
                                     "opening it in " +
                                     std::to_string(kGateWait.count()) +
                                     " s (stopped, or on a frozen file system?). Try again once it has started or "
                                     "ended.");
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        bool createdLog = false;
        claim->log_ = platform::LockHolder::open(logName, path, &createdLog);
        const bool fileHasWriters = claim->file_.lockedElsewhere(kWriter, 1).has_value();
        const bool logHasWriters = claim->log_.valid() && claim->log_.lockedElsewhere(kWriter, 1).has_value();
        if (!fileHasWriters || logHasWriters)
            break; // claimed below, still behind the gate
        pidByte = claim->file_.lockedElsewhere(kPidBase, kPidSpan);
        if (createdLog) {
            std::error_code ignored;
            std::filesystem::remove(logName, ignored); // ours, empty, and nobody writes through it yet
        }
        claim->log_ = platform::LockHolder();
        claim->file_.unlock(kGate);
        if (std::chrono::steady_clock::now() < mismatchDeadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            continue;
        }
        std::string who = "another Stepscope process";
        if (pidByte) {
            const std::int64_t pid = *pidByte - kPidBase;
            who = "Stepscope process " + std::to_string(pid) +
                  (platform::processExists(pid) ? " on this machine" : " (on another machine that shares the file?)");
        }
        throw StoreError(StoreError::Kind::Io,
                         quoted(path) + " is being written by " + who +
                             " under another name of the same file (a bind mount or a second mount). SQLite keeps "
                             "its write-ahead log beside the name, so a second name would be a second, unsynchronised "
                             "database over one file and a sweep written through each would be lost. Wait until that "
                             "sweep ends, or use the name it uses.");
    }
    claim->file_.lockShared(kWriter);
    const std::int64_t pid = platform::currentProcessId();
    if (pid > 0 && pid < kPidSpan)
        claim->file_.lockShared(kPidBase + pid);
    if (claim->log_.valid())
        claim->log_.lockShared(kWriter);
    claim->file_.unlock(kGate);
    return claim;
}

void WriterClaim::followLog()
{
    auto now = platform::LockHolder::open(logName_);
    if (!now.valid() || (log_.valid() && platform::sameOpenFile(now, log_)))
        return;
    now.lockShared(kWriter);
    log_ = std::move(now);
}

WriterClaim::~WriterClaim() = default;

bool lockedByARunningProgram(const std::string &path)
{
    if (platform::fileKind(path) != platform::FileKind::Regular)
        return false; // never opened: a device or a FIFO may act on an open
    const auto holder = platform::LockHolder::open(path);
    if (holder.valid() && holder.lockedElsewhere(0, 0))
        return true;
    // SQLite takes no lock on a -wal: a live one gives itself away by the -shm beside it, which every
    // connection holds locked (a writer's claim covers it too, but only from when it was taken).
    static const std::string kLog = "-wal";
    if (path.size() > kLog.size() && path.compare(path.size() - kLog.size(), kLog.size(), kLog) == 0)
        return lockedByARunningProgram(path.substr(0, path.size() - kLog.size()) + "-shm");
    return false;
}

} // namespace stepscope::store
