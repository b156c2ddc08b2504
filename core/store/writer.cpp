// The writer thread: one connection, every write queued and committed in batches, one BEGIN
// IMMEDIATE transaction per drain; opening a database for writing, and flushing it.
#include "store/store_internal.h"

#include "platform/platform.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>
#include <iterator>
#include <memory>
#include <string>
#include <utility>

namespace stepscope::store
{

void Database::Impl::enqueue(Command command)
{
    {
        std::lock_guard<std::mutex> lock(mutex);
        queue.push_back(std::move(command));
    }
    wake.notify_one();
}

std::int64_t Database::Impl::call(std::function<std::int64_t(sqlite3 *)> work)
{
    auto id = std::make_shared<std::int64_t>(0);
    auto promise = std::make_shared<std::promise<std::int64_t>>();
    auto future = promise->get_future();
    enqueue(Command{[id, work = std::move(work)](sqlite3 *connection) { *id = work(connection); },
                    [id, promise](std::exception_ptr error) {
                        if (error)
                            promise->set_exception(error);
                        else
                            promise->set_value(*id);
                    }});
    return future.get();
}

void Database::Impl::writerLoop()
{
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
        wake.wait(lock, [this] { return stopping || !queue.empty(); });
        if (queue.empty()) {
            // Stopping, and everything before the stop is committed. SQLite's own checkpoint when
            // the last connection closes does not run while another connection (the dashboard's
            // readers, another process) has the file open, and the sweeps would stay in the -wal
            // beside it: a copy of the file alone would lack them. Closing may wait a little for a
            // reader to finish its query; a longer read leaves the rest in the log.
            lock.unlock();
            checkpoint(db.get(), kCloseCheckpointWaitMs);
            return;
        }
        std::vector<Command> batch(std::make_move_iterator(queue.begin()), std::make_move_iterator(queue.end()));
        queue.clear();
        lock.unlock();
        runBatch(batch);
        lock.lock();
    }
}

std::optional<StoreError> Database::Impl::checkStillThere(sqlite3 *conn)
{
    std::lock_guard<std::mutex> lock(mutex);
    if (lost)
        return lost;
    int moved = 0;
    if (sqlite3_file_control(conn, "main", SQLITE_FCNTL_HAS_MOVED, &moved) != SQLITE_OK || !moved)
        return lost;
    const std::string now = claim ? claim->currentPath() : std::string();
    if (now.empty() || now == path) {
        lost =
            StoreError(StoreError::Kind::Io,
                       store::quoted(path) + " was deleted or replaced while Stepscope was writing to it (or its "
                                             "folder went away): nothing written since can be found there. What the "
                                             "file held is gone with it unless it has another link; run the sweep "
                                             "again, and leave the database where it is until it ends.");
        return lost;
    }
    // Renamed: the open file is still the database, but its log stays beside the old name, where
    // no one opening the new name looks. So the log goes into the file now, and the writer stops
    // rather than go on writing a log that only this process can find.
    movedTo = now;
    sqlite3_busy_timeout(conn, kSweepCheckpointWaitMs);
    const int rc = sqlite3_wal_checkpoint_v2(conn, nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
    sqlite3_busy_timeout(conn, kBusyTimeoutMs);
    lost = StoreError(StoreError::Kind::Io,
                      store::quoted(path) + " was moved to " + store::quoted(now) +
                          " while Stepscope was writing to it, so Stepscope stopped writing. " +
                          (rc == SQLITE_OK ? "Everything it had saved is in " + store::quoted(now) + "."
                                           : "What it had saved goes into " + store::quoted(now) +
                                                 " once every program reading the database has closed it.") +
                          " Open that file to see it (--db " + store::quoted(now) +
                          "), and leave a database where it is while a sweep writes to it.");
    return lost;
}

void Database::Impl::runBatch(std::vector<Command> &batch)
{
    sqlite3 *conn = db.get();
    if (const auto gone = checkStillThere(conn)) {
        for (auto &command : batch)
            fail(command, *gone);
        return;
    }
    bool commandFailed = false;
    try {
        inTransaction(conn, [&] {
            for (auto &command : batch) {
                try {
                    command.work(conn);
                } catch (...) {
                    commandFailed = true;
                    throw;
                }
            }
        });
    } catch (...) {
        // One bad write (a duplicate step index, a missing run) must not take the good ones of
        // the same batch with it, so they are replayed one transaction each. Failures of BEGIN
        // or COMMIT (disk full, lock held too long) would only repeat, so those fail the batch.
        if (commandFailed && batch.size() > 1) {
            for (auto &command : batch) {
                std::vector<Command> single;
                single.push_back(std::move(command));
                runBatch(single);
            }
            return;
        }
        const StoreError error = toStoreError(std::current_exception());
        for (auto &command : batch)
            fail(command, error);
        return;
    }
    // Committed, but into a file that may have gone meanwhile: its callers must not count on it.
    if (const auto gone = checkStillThere(conn)) {
        for (auto &command : batch)
            fail(command, *gone);
        return;
    }
    // Before anyone waiting on the batch (flush) is told: once told, the file alone holds it.
    if (std::any_of(batch.begin(), batch.end(), [](const Command &command) { return command.checkpointAfter; }))
        checkpoint(conn, kSweepCheckpointWaitMs);
    for (auto &command : batch) {
        if (command.afterCommit)
            command.afterCommit();
        if (command.done)
            command.done(nullptr);
    }
}

void Database::Impl::checkpoint(sqlite3 *conn, int waitMs)
{
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (lost && movedTo.empty())
            return; // the file at `path` is another one now: nothing of ours goes into it
    }
    // TRUNCATE waits (through the busy handler) for readers still reading the log, then empties it.
    // A reader in a long query answers SQLITE_BUSY: SQLite has then copied what it could, as a
    // passive checkpoint, and keeps the rest in the log, where every connection (and a later open)
    // reads and replays it. Nothing is lost, so no error here fails a write or reaches the user;
    // the next sweep's end, or the close, tries again.
    sqlite3_busy_timeout(conn, waitMs);
    sqlite3_wal_checkpoint_v2(conn, nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
    sqlite3_busy_timeout(conn, kBusyTimeoutMs);
}

void Database::Impl::throwPending()
{
    if (!pendingError)
        return;
    const StoreError error = *pendingError;
    pendingError.reset();
    lostReported = lostReported || lost.has_value();
    throw error;
}

void Database::Impl::throwIfFailed()
{
    std::lock_guard<std::mutex> lock(mutex);
    throwPending();
    if (lost) {
        lostReported = true;
        throw *lost;
    }
}

StoreError Database::Impl::toStoreError(std::exception_ptr error) const
{
    try {
        std::rethrow_exception(error);
    } catch (const SqlFailure &e) {
        return describeWriteFailure(path, e);
    } catch (const StoreError &e) {
        return e;
    } catch (const std::exception &e) {
        return StoreError(StoreError::Kind::Io, "could not save to " + store::quoted(path) + ": " + e.what());
    } catch (...) {
        return StoreError(StoreError::Kind::Io, "could not save to " + store::quoted(path) + ": unknown error");
    }
}

void Database::Impl::fail(Command &command, const StoreError &error)
{
    if (command.done) {
        command.done(std::make_exception_ptr(error));
        return;
    }
    std::lock_guard<std::mutex> lock(mutex);
    if (!pendingError)
        pendingError = error;
}

void Database::Impl::flush()
{
    auto promise = std::make_shared<std::promise<void>>();
    auto future = promise->get_future();
    // The marker commits with (or after) everything queued before it.
    enqueue(Command{[](sqlite3 *) {}, [promise](std::exception_ptr) { promise->set_value(); }});
    future.wait();
    std::lock_guard<std::mutex> lock(mutex);
    throwPending();
}

void Database::Impl::stop()
{
    {
        std::lock_guard<std::mutex> lock(mutex);
        stopping = true;
    }
    wake.notify_one();
    if (writer.joinable())
        writer.join();
}

Database::Database(std::unique_ptr<Impl> impl) : d(std::move(impl)) {}

namespace
{

// A new database appears whole or not at all: its schema is written into a file of its own beside
// it, then that file takes the database's name by a rename that fails rather than replaces when
// another process got there first. A kill in the first milliseconds leaves at most the temporary
// file, never an empty database that readers refuse and writers reuse. False where that cannot be
// done (a folder that is not there, ...): the caller creates it in place and says why it failed.
bool createWhole(const std::string &path, int schemaVersion)
{
    namespace fs = std::filesystem;
    // As SQLite reads the name: "a/../m.sqlite" is m.sqlite here even where no folder "a" exists
    // (the kernel would refuse the rename, and the temporary file would stay behind).
    std::error_code absoluteError;
    fs::path target = fs::absolute(fs::path(path), absoluteError).lexically_normal();
    if (absoluteError)
        target = fs::path(path).lexically_normal();
    const fs::path temporary =
        target.parent_path() /
        ("." + target.filename().string() + ".creating-" + std::to_string(platform::currentProcessId()) + "-" +
         std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    std::error_code error;
    {
        sqlite3 *raw = nullptr;
        const int rc =
            sqlite3_open_v2(temporary.string().c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
        Connection db(raw);
        if (rc != SQLITE_OK) {
            fs::remove(temporary, error);
            return false;
        }
        try {
            migrate(db.get(), schemaVersion); // rollback journal: nothing beside it once closed
            // WAL set here too: once renamed, nothing changes the file's header again, so a writer
            // killed while it opens the new file leaves no half-switched journal mode that a
            // read-only reader would have to repair (it cannot, and refused such a file).
            exec(db.get(), "PRAGMA journal_mode = WAL");
        } catch (const SqlFailure &) {
            db = Connection();
            fs::remove(temporary, error);
            return false;
        }
    }
    const int renamed = platform::renameNoReplace(temporary.string(), target.string());
    if (renamed != 0)
        fs::remove(temporary, error); // EEXIST: another process created it first, and that one stays
    return renamed == 0 || renamed == EEXIST;
}

} // namespace

std::unique_ptr<Database> Database::open(const std::string &path, const OpenOptions &options)
{
    using Kind = StoreError::Kind;
    if (const std::string why = notADatabasePathText(path); !why.empty())
        throw StoreError(Kind::Io, why);
    bool exists = fileExists(path);
    if (!exists && !options.create)
        throw StoreError(Kind::Io, missingFileText(path));
    // One file, one lock: a file with a second name is refused before anything opens it.
    if (const std::string why = moreThanOneNameText(path); exists && !why.empty())
        throw StoreError(Kind::Io, why);
    if (!exists) {
        const int target = options.migrateUpTo < 0 ? kLatestVersion : std::min(options.migrateUpTo, kLatestVersion);
        if (createWhole(path, target))
            exists = fileExists(path);
    }

    // Refused before SQLite opens it: even a connection that only inspects a WAL file would create
    // its -wal and -shm beside it, and those, owned by whoever opened it, can lock its owner out.
    if (exists && !mayWrite(path))
        throw StoreError(Kind::Io, readOnlyFileText(path));
    if (exists && !mayWrite(folderOf(path)))
        throw StoreError(Kind::Io, "the folder of " + store::quoted(path) +
                                       " is read-only; Stepscope needs to create its write-ahead log beside it. "
                                       "Check the folder's permissions or choose another database file.");

    // Before SQLite opens it: a writer through a second name must not even create its log.
    std::unique_ptr<WriterClaim> claim = exists ? WriterClaim::take(path) : nullptr;

    Inspection inspection;
    const int flags = SQLITE_OPEN_READWRITE | (exists ? 0 : SQLITE_OPEN_CREATE);
    Connection db = openChecked(path, flags, inspection);
    if (claim)
        claim->followLog(); // the log SQLite opened, which may be a newer one than claimed
    sqlite3 *conn = db.get();
    auto refuse = [conn](Kind kind, const std::string &message) {
        sqlite3_db_config(conn, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
        throw StoreError(kind, message);
    };
    // SQLite quietly falls back to read-only when it may not write; we would only find out at the
    // first commit, long after the user could have picked another path.
    if (sqlite3_db_readonly(conn, "main") == 1)
        refuse(Kind::Io, readOnlyFileText(path));
    if (inspection.empty && exists && !options.create)
        refuse(Kind::NotStepscope,
               store::quoted(path) + " is empty, not a Stepscope database; choose another database file.");

    auto impl = std::make_unique<Impl>();
    impl->path = path;
    impl->claim = std::move(claim);
    try {
        exec(conn, "PRAGMA foreign_keys = ON");
        // WAL: readers see committed batches while the writer goes on, and a kill loses at most
        // the batch being written. NORMAL sync is durable to application crashes in WAL mode.
        retryWhileBusy([conn] { exec(conn, "PRAGMA journal_mode = WAL"); });
        exec(conn, "PRAGMA synchronous = NORMAL");
        const int target = options.migrateUpTo < 0 ? kLatestVersion : std::min(options.migrateUpTo, kLatestVersion);
        retryWhileBusy([conn, target] { migrate(conn, target); });
        impl->version = static_cast<int>(queryInt(conn, "PRAGMA user_version"));
        interruptStaleRuns(conn);
    } catch (const SqlFailure &e) {
        throw describeOpenFailure(path, e);
    }

    // From here on the connection belongs to the writer thread alone.
    impl->db = std::move(db);
    Impl *raw = impl.get();
    impl->writer = std::thread([raw] { raw->writerLoop(); });
    return std::unique_ptr<Database>(new Database(std::move(impl)));
}

Database::~Database()
{
    try {
        d->flush();
    } catch (const std::exception &e) {
        // Nobody is left to catch it; the user must still learn that the last batch is missing
        // (a lost file was already said: once is enough).
        if (!d->lostReported)
            std::fprintf(stderr, "stepscope: %s\n", e.what());
    }
    d->stop();
    if (d->movedTo.empty())
        return;
    // Renamed under us: once the connection is closed, the log and index beside the old name are
    // ours alone unless a reader still has them open (SQLite locks the -shm while it does). What the
    // log held is in the file (see checkStillThere), so an empty log is litter; one with frames is
    // left for the readers, who put it into the file when they close.
    d->db = Connection();
    const std::string log = d->claim->logName();
    const std::string index = log.substr(0, log.size() - 4) + "-shm";
    d->claim.reset();
    if (lockedByARunningProgram(index) || platform::fileSize(log).value_or(0) > 0)
        return;
    std::error_code ignored;
    std::filesystem::remove(log, ignored);
    std::filesystem::remove(index, ignored);
}

int Database::schemaVersion() const
{
    return d->version;
}

const std::string &Database::path() const
{
    return d->path;
}

void Database::flush()
{
    d->flush();
}

void Database::check()
{
    d->throwIfFailed();
}

} // namespace stepscope::store
