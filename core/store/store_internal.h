#pragma once
// What the files of the store share and nobody outside it sees: the SQLite helpers, the refusal
// checks, the row codecs, and the two Impl structs behind Database and Reader. Each group below names
// the file that defines it; not installed, not included from outside core/store.
#include "store/store.h"
#include "store/writer_claim.h"

#include <sqlite3.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace stepscope::store
{

// "STPS": lets us tell our files from any other SQLite file without guessing from table names.
constexpr int kApplicationId = 0x53545053;

// A run whose heartbeat is older than this is taken for abandoned even when its owner looks alive
// (the pid may have been reused, or the owner runs on another host).
constexpr std::chrono::seconds kStaleAfter{120};

constexpr int kBusyTimeoutMs = 5000;
// How long a checkpoint waits for readers still reading the write-ahead log (Impl::checkpoint): at
// a sweep's end briefly, since the writer thread waits with it; at close a little longer, once.
constexpr int kSweepCheckpointWaitMs = 100;
constexpr int kCloseCheckpointWaitMs = 1000;

// The schema version this build writes: one per entry of the migrations (schema.cpp checks it).
constexpr int kLatestVersion = 11;

// A run's machine warm-up state (MachineWarmup's tokens) as files before schema 6 hold it: the
// sentence their supervisor wrote into the run's environment JSON under "machine_warmup". An SQL
// expression over a `runs` row; migration 6 stores it, readers of older read-only files select it.
// Only this legacy reading looks at those words; nothing after schema 6 writes them.
#define STEPSCOPE_LEGACY_MACHINE_WARMUP                                                                                \
    "(SELECT CASE WHEN instr(e.json, '\"machine_warmup\":\"a discarded warm-up process') > 0 THEN 'warmed-up' "        \
    "WHEN instr(e.json, '\"machine_warmup\":\"none: this run was the sweep''s first process') > 0 "                    \
    "THEN 'first-process' "                                                                                            \
    "WHEN instr(e.json, '\"machine_warmup\":\"none: ') > 0 THEN 'after-others' END "                                   \
    "FROM environments e WHERE e.id = runs.environment_id)"

// An SQLite call that failed; turned into a StoreError with a user-facing sentence by whoever knows
// what was being done (opening, writing a batch, reading).
class SqlFailure : public std::runtime_error
{
  public:
    SqlFailure(int code, const std::string &message, int systemErrno = 0)
        : std::runtime_error(message), code_(code), systemErrno_(systemErrno)
    {
    }
    int code() const { return code_; }
    int primary() const { return code_ & 0xff; }
    int systemErrno() const { return systemErrno_; } // the OS error behind an I/O failure, or 0

  private:
    int code_;
    int systemErrno_;
};

[[noreturn]] void throwSql(sqlite3 *db, int rc);

struct ConnectionCloser {
    void operator()(sqlite3 *db) const { sqlite3_close_v2(db); }
};
using Connection = std::unique_ptr<sqlite3, ConnectionCloser>;

// A prepared statement, finalized on scope exit. Column and bind indexes as SQLite counts them
// (columns from 0, parameters from 1).
class Statement
{
  public:
    Statement(sqlite3 *db, const char *sql) : db_(db)
    {
        const int rc = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
        if (rc != SQLITE_OK)
            throwSql(db, rc);
    }
    ~Statement() { sqlite3_finalize(stmt_); }
    Statement(const Statement &) = delete;
    Statement &operator=(const Statement &) = delete;

    Statement &bind(int i, std::int64_t v) { return check(sqlite3_bind_int64(stmt_, i, v)); }
    Statement &bind(int i, int v) { return bind(i, static_cast<std::int64_t>(v)); }
    Statement &bind(int i, double v) { return check(sqlite3_bind_double(stmt_, i, v)); }
    Statement &bind(int i, const std::string &v)
    {
        return check(sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    }
    Statement &bind(int i, std::string_view v)
    {
        return check(sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    }
    Statement &bindNull(int i) { return check(sqlite3_bind_null(stmt_, i)); }
    template <typename T> Statement &bind(int i, const std::optional<T> &v) { return v ? bind(i, *v) : bindNull(i); }
    // Empty strings stand for "unset" in the records; the table keeps them as NULL.
    Statement &bindTextOrNull(int i, const std::string &v) { return v.empty() ? bindNull(i) : bind(i, v); }

    // True while there is a row to read.
    bool step()
    {
        const int rc = sqlite3_step(stmt_);
        if (rc == SQLITE_ROW)
            return true;
        if (rc == SQLITE_DONE)
            return false;
        throwSql(db_, rc);
    }
    void run()
    {
        while (step()) {
        }
    }
    void reset()
    {
        sqlite3_reset(stmt_);
        sqlite3_clear_bindings(stmt_);
    }

    bool isNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
    std::int64_t int64(int col) const { return sqlite3_column_int64(stmt_, col); }
    double real(int col) const { return sqlite3_column_double(stmt_, col); }
    std::string text(int col) const
    {
        const auto *p = reinterpret_cast<const char *>(sqlite3_column_text(stmt_, col));
        return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
    }
    std::optional<std::int64_t> optInt64(int col) const
    {
        return isNull(col) ? std::nullopt : std::optional<std::int64_t>(int64(col));
    }
    std::optional<double> optReal(int col) const
    {
        return isNull(col) ? std::nullopt : std::optional<double>(real(col));
    }

  private:
    Statement &check(int rc)
    {
        if (rc != SQLITE_OK)
            throwSql(db_, rc);
        return *this;
    }

    sqlite3 *db_;
    sqlite3_stmt *stmt_ = nullptr;
};

void exec(sqlite3 *db, const char *sql);
std::int64_t queryInt(sqlite3 *db, const char *sql);

// SQLite answers SQLITE_BUSY at once, without waiting on the busy timeout, where waiting could
// deadlock: switching a file to WAL while another connection reads it is one such place (two sweeps
// creating the same new file at once). Such steps are retried here until the busy timeout is spent.
template <typename Step> void retryWhileBusy(Step &&step)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
    for (;;) {
        try {
            step();
            return;
        } catch (const SqlFailure &e) {
            const bool busy = e.primary() == SQLITE_BUSY || e.primary() == SQLITE_LOCKED;
            if (!busy || std::chrono::steady_clock::now() >= deadline)
                throw;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

// Runs `work` in a BEGIN IMMEDIATE transaction: immediate, so a second writer waits on the busy
// timeout up front instead of failing half-way when it tries to upgrade a read lock.
template <typename Work> void inTransaction(sqlite3 *db, Work &&work)
{
    exec(db, "BEGIN IMMEDIATE");
    try {
        work();
        exec(db, "COMMIT");
    } catch (...) {
        if (!sqlite3_get_autocommit(db))
            sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
}

// Takes the file to schema version `target` (schema.cpp).
void migrate(sqlite3 *db, int target);

// Row values (rows.cpp).
// ISO-8601 UTC with milliseconds. Fixed width, so these strings also sort and compare as times.
std::string isoUtc(std::chrono::system_clock::time_point t);
std::string nowUtc();
// Check losses as a JSON array; non-finite losses are stored as null and read back as NaN.
std::string lossesToJson(const std::vector<double> &losses);
std::vector<double> lossesFromJson(const std::string &json);
// Readers never migrate: the SELECTs of a file of `schemaVersion`, read by readRun/readSweep.
std::string runColumns(int schemaVersion);
RunRecord readRun(const Statement &st);
std::string sweepColumns(int schemaVersion);
SweepRecord readSweep(const Statement &st);

// Files and their refusals (file_checks.cpp).
bool fileExists(const std::string &path);
std::string quoted(const std::string &path);
// How paths are written where the program runs; a parameter so that tests on Linux check the
// Windows rules too (the Windows build itself is never made here).
enum class PathStyle { Posix, Windows };
#ifdef _WIN32
inline constexpr PathStyle kNativePathStyle = PathStyle::Windows;
#else
inline constexpr PathStyle kNativePathStyle = PathStyle::Posix;
#endif
std::string folderOf(const std::string &path, PathStyle style = kNativePathStyle);
// The "file:" URI SQLite opens for `path` with `query` ("immutable=1").
std::string fileUri(const std::string &path, const std::string &query, PathStyle style = kNativePathStyle);
// Whether this process may write `path` (a read-only mount answers no, even to root).
bool mayWrite(const std::string &path);
// What the refusal checks learnt about a file that is acceptable.
struct Inspection {
    int version = 0;    // user_version; 0 for a file that holds nothing yet
    bool empty = false; // an SQLite file with no schema at all (new, or a zero-length file)
};
// Opens a connection and runs the refusal checks. On refusal the connection is closed without the
// checkpoint SQLite would otherwise run on close, so not one byte of the main file changes.
// `sqliteName` is what SQLite opens when it differs from the path the user named (a URI).
Connection openChecked(const std::string &path, int flags, Inspection &inspection, const std::string &sqliteName = {});
// The URI a Reader opens instead of the plain path, or empty for the path itself.
// `asIfReadOnly`: the same for a file that could be written, where nothing beside it can be made
// (a full disk has no room for the -shm a reader of a WAL file needs).
std::string readOnlyUri(const std::string &path, bool asIfReadOnly = false);
// Whether a Reader of `path` should open it on a connection that may write (made read-only by
// query_only): a WAL file we may write that no connection has open, no -wal beside it. SQLite lets
// only such a connection, the last to close, remove the -wal and -shm its reads create; a read-only
// one leaves them behind (issue 19.9: `list`, `show`, `export` leave the folder as they found it).
bool readsWithOwnSideFiles(const std::string &path);

// The sentences a user sees when SQLite fails (error_text.cpp): opening or reading, and writing.
StoreError describeOpenFailure(const std::string &path, const SqlFailure &e);
StoreError describeWriteFailure(const std::string &path, const SqlFailure &e);
// Refusals both the reader and the writer give, worded once; each ends in kChooseAnotherFile, where
// a front end adds how its user chooses one (withFileChoiceHint).
std::string missingFileText(const std::string &path);  // "'x' does not exist; check its path or ..."
std::string readOnlyFileText(const std::string &path); // "'x' is read-only; Stepscope needs to write ..."
// Why `path` can be no database file at all, before SQLite sees it (a FIFO would block the open for
// good, a folder or a device gives "disk I/O error" and /dev/null grows a /dev/null-journal, a path
// past SQLite's length limit reads as a missing folder); empty when it may be one. Both the reader
// and the writer refuse these.
std::string notADatabasePathText(const std::string &path);
// Why a writer must not open `path`: a file with more than one name (hard link). SQLite keeps its
// lock and write-ahead log beside the name it is given, so two names are two unsynchronised
// databases over one file (docs/decisions.md "One file, one lock"). Empty when it has one name.
std::string moreThanOneNameText(const std::string &path);

// Runs left behind (recovery.cpp).
// Runs and sweeps left `running` by an owner that is gone become `interrupted`.
void interruptStaleRuns(sqlite3 *db);
// Who runs sweep `sweepId` now ("process 4242 on host"), or empty when nobody does: the owner rule
// above, for a sweep still marked running.
std::string liveSweepOwner(sqlite3 *db, std::int64_t sweepId);

// The writer thread (writer.cpp) and what queues work on it (sweep_lifecycle.cpp, summaries.cpp).
struct Database::Impl {
    // A queued write. `done` is called once, after the commit (null) or with the failure; writes
    // without it report their failure through the next flush().
    struct Command {
        std::function<void(sqlite3 *)> work;
        std::function<void(std::exception_ptr)> done;
        // After its commit, the write-ahead log goes into the file (a sweep's end): see checkpoint().
        bool checkpointAfter = false;
        // Runs once the work has committed, never after a failure (which goes where `done`, or
        // without one the next check or flush, reports it): files that go with the rows.
        std::function<void()> afterCommit = {};
    };

    std::string path;
    int version = 0;
    // Declared before the connection, so released after it has closed (writer_claim.h).
    std::unique_ptr<WriterClaim> claim;
    Connection db;

    std::mutex mutex;
    std::condition_variable wake;
    std::deque<Command> queue;
    bool stopping = false;
    std::optional<StoreError> pendingError; // first unreported failure of a queued write
    // Set once the file at `path` is no longer the one this connection writes (deleted, replaced,
    // its folder unmounted): from then on every write fails with it, and nothing more goes into a
    // file nobody can find. `lostReported`: check() or flush() has handed it to someone.
    std::optional<StoreError> lost;
    bool lostReported = false;
    // Where the file went when it was renamed under the writer (then `lost` is set too, and what
    // the log held was checkpointed into it); empty otherwise.
    std::string movedTo;
    std::thread writer;

    void enqueue(Command command);

    void enqueue(std::function<void(sqlite3 *)> work) { enqueue(Command{std::move(work), {}}); }

    // Runs `work` on the writer thread and waits for its commit; returns what it returned.
    std::int64_t call(std::function<std::int64_t(sqlite3 *)> work);

    void writerLoop();

    // Whether the file at `path` is still the one the connection has open (SQLite compares the
    // inode behind the path with its own). On failure, the sticky error is set and returned.
    std::optional<StoreError> checkStillThere(sqlite3 *conn);

    void runBatch(std::vector<Command> &batch);

    // Copies the write-ahead log into the file and empties it (TRUNCATE), waiting at most `waitMs`
    // for readers still reading from the log; what it could not copy stays in the log, where SQLite
    // replays it. Never fails a write: every committed row is in the log or the file either way.
    void checkpoint(sqlite3 *conn, int waitMs);

    // Throws the first failure of a queued write that nobody has heard of yet. `mutex` is held.
    void throwPending();

    void throwIfFailed();

    StoreError toStoreError(std::exception_ptr error) const;

    void fail(Command &command, const StoreError &error);

    void flush();

    void stop();
};

// A Reader's connection (read_queries.cpp, summaries.cpp).
struct Reader::Impl {
    std::string path;
    Connection db;
    int schemaVersion = 0;

    // Every query is one statement, hence one read transaction: a consistent snapshot while the
    // writer goes on committing.
    template <typename Fn> auto read(Fn &&fn) const
    {
        try {
            return fn(db.get());
        } catch (const SqlFailure &e) {
            throw describeOpenFailure(path, e);
        }
    }
};

} // namespace stepscope::store
