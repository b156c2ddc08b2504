#include "store/store.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonValue>

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <exception>
#include <fstream>
#include <functional>
#include <future>
#include <limits>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>

#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace stepscope::store
{

namespace
{

// "STPS": lets us tell our files from any other SQLite file without guessing from table names.
constexpr int kApplicationId = 0x53545053;

// A run whose heartbeat is older than this is taken for abandoned even when its owner looks alive
// (the pid may have been reused, or the owner runs on another host).
constexpr std::chrono::seconds kStaleAfter{120};

constexpr int kBusyTimeoutMs = 5000;

// One entry per schema version: migration i takes the file from version i to i + 1. Each runs in
// its own transaction together with the user_version bump, so a crash leaves a whole version.
// Never edit a released entry; append a new one.
constexpr std::array<const char *, 5> kMigrations{{
    // 1: the first schema.
    R"sql(
PRAGMA application_id = 1398034515;
CREATE TABLE environments (
    id INTEGER PRIMARY KEY,
    json TEXT NOT NULL,
    gpu TEXT NOT NULL DEFAULT '',
    driver TEXT NOT NULL DEFAULT '',
    cuda TEXT NOT NULL DEFAULT '',
    cudnn TEXT NOT NULL DEFAULT '',
    torch TEXT NOT NULL DEFAULT '',
    python TEXT NOT NULL DEFAULT '',
    host TEXT NOT NULL DEFAULT ''
);
CREATE TABLE sweeps (
    id INTEGER PRIMARY KEY,
    created TEXT NOT NULL,
    name TEXT NOT NULL,
    preset TEXT NOT NULL,
    planned_steps INTEGER NOT NULL,
    settings_json TEXT NOT NULL,
    status TEXT NOT NULL
);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    sweep_id INTEGER NOT NULL REFERENCES sweeps(id),
    position INTEGER NOT NULL,
    repeat_index INTEGER NOT NULL,
    config_name TEXT NOT NULL,
    config_json TEXT NOT NULL,
    status TEXT NOT NULL,
    category TEXT,
    message TEXT NOT NULL DEFAULT '',
    detail TEXT NOT NULL DEFAULT '',
    environment_id INTEGER REFERENCES environments(id),
    owner_pid INTEGER,
    owner_host TEXT,
    heartbeat TEXT,
    started TEXT,
    finished TEXT,
    setup_s REAL,
    first_step_s REAL,
    peak_allocated INTEGER,
    peak_reserved INTEGER,
    check_losses TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE steps (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    idx INTEGER NOT NULL,
    gpu_ms REAL,
    wall_ms REAL NOT NULL,
    PRIMARY KEY (run_id, idx)
) WITHOUT ROWID;
)sql",
    // 2: per-run summaries computed once instead of on every view, and runs listed by sweep
    // without a scan.
    R"sql(
CREATE TABLE summaries (
    run_id INTEGER PRIMARY KEY REFERENCES runs(id),
    median_ms REAL,
    p10_ms REAL,
    p90_ms REAL,
    iqr_ms REAL,
    mad_ms REAL,
    cv REAL,
    steady_begin INTEGER,
    steady_count INTEGER,
    noise TEXT
);
CREATE INDEX runs_by_sweep ON runs(sweep_id, position);
)sql",
    // 3: the worker's mean wall time per step over the timed block (DESIGN.md: steady state is
    // CUDA-event time plus wall time over the timed block).
    R"sql(
ALTER TABLE runs ADD COLUMN block_wall_ms REAL;
)sql",
    // 4: torch.compile runs: what the compiler reported, and which compile caches the run had
    // (DESIGN.md: cold and warm compiles are labelled in the data).
    R"sql(
ALTER TABLE runs ADD COLUMN compile_json TEXT;
ALTER TABLE runs ADD COLUMN compile_cache TEXT;
ALTER TABLE runs ADD COLUMN cache_dirs TEXT;
)sql",
    // 5: the baseline a sweep is compared with, named instead of implied by the first row (older
    // sweeps keep what they meant: their first configuration), and the version of the rule that
    // computed each summary with its timing, so that summaries of an older rule are recomputed.
    R"sql(
ALTER TABLE sweeps ADD COLUMN baseline_config TEXT;
UPDATE sweeps SET baseline_config =
    (SELECT config_name FROM runs WHERE runs.sweep_id = sweeps.id ORDER BY position, id LIMIT 1);
ALTER TABLE summaries ADD COLUMN timing TEXT;
ALTER TABLE summaries ADD COLUMN method_version INTEGER NOT NULL DEFAULT 0;
)sql",
}};
static_assert(kApplicationId == 1398034515, "the migration above spells the id in decimal");

constexpr int kLatestVersion = static_cast<int>(kMigrations.size());

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

[[noreturn]] void throwSql(sqlite3 *db, int rc)
{
    const char *msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    throw SqlFailure(rc, msg ? msg : sqlite3_errstr(rc), db ? sqlite3_system_errno(db) : 0);
}

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

void exec(sqlite3 *db, const char *sql)
{
    const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK)
        throwSql(db, rc);
}

std::int64_t queryInt(sqlite3 *db, const char *sql)
{
    Statement st(db, sql);
    return st.step() ? st.int64(0) : 0;
}

// ISO-8601 UTC with milliseconds. Fixed width, so these strings also sort and compare as times.
std::string isoUtc(std::chrono::system_clock::time_point t)
{
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
    const std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[80];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
    return buf;
}

std::string nowUtc()
{
    return isoUtc(std::chrono::system_clock::now());
}

std::string hostName()
{
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0)
        return {};
    return buf;
}

bool processAlive(std::int64_t pid)
{
    if (pid <= 0 || pid > std::numeric_limits<pid_t>::max())
        return false;
    // EPERM means it exists but belongs to someone else: still alive.
    return kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
}

// Check losses as a JSON array, through QJson as every other JSON of the project (locale-independent:
// a GUI process runs under the user's locale, where "%g" may write a decimal comma). JSON has no NaN
// or infinity, and a diverged loss is exactly what the accuracy gate needs to see, so non-finite
// values become null and read back as NaN.
std::string lossesToJson(const std::vector<double> &losses)
{
    QJsonArray array;
    for (double loss : losses)
        array.append(std::isfinite(loss) ? QJsonValue(loss) : QJsonValue(QJsonValue::Null));
    return QJsonDocument(array).toJson(QJsonDocument::Compact).toStdString();
}

// Strict: an unreadable document or element drops the whole array rather than guessing at it.
std::vector<double> lossesFromJson(const std::string &json)
{
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json));
    if (!doc.isArray())
        return {};
    std::vector<double> out;
    for (const QJsonValue &v : doc.array()) {
        if (v.isNull())
            out.push_back(std::numeric_limits<double>::quiet_NaN());
        else if (v.isDouble())
            out.push_back(v.toDouble());
        else
            return {};
    }
    return out;
}

bool fileExists(const std::string &path)
{
    struct stat st {
    };
    return ::stat(path.c_str(), &st) == 0;
}

bool startsWithSqliteMagic(const std::string &path)
{
    static constexpr char kMagic[16] = {'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f',
                                        'o', 'r', 'm', 'a', 't', ' ', '3', '\0'};
    std::ifstream in(path, std::ios::binary);
    char head[16] = {};
    return in.read(head, sizeof head) && std::memcmp(head, kMagic, sizeof kMagic) == 0;
}

std::string quoted(const std::string &path)
{
    return "'" + path + "'";
}

std::string folderOf(const std::string &path)
{
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos)
        return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

// Whether this process may write `path` (a read-only mount answers no, even to root).
bool mayWrite(const std::string &path)
{
    return ::access(path.c_str(), W_OK) == 0;
}

// Why a write could not find room, in words, or empty when it was not that. SQLite says SQLITE_FULL
// for ENOSPC on its own writes, but a failure to grow the -shm or a sync comes back as a plain I/O
// error whose errno may already be gone: then a file system with no space left gives it away.
std::string noSpaceCause(const std::string &path, int primary, int sys)
{
    if (primary == SQLITE_FULL || sys == ENOSPC || sys == EDQUOT)
        return sys == EDQUOT ? "the disk quota is used up" : "the disk is full";
    if (sys == EFBIG)
        return "the file reached a size limit";
    struct statvfs fs {
    };
    if (primary == SQLITE_IOERR && ::statvfs(folderOf(path).c_str(), &fs) == 0 &&
        static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize < 64 * 1024)
        return "the disk is full";
    return {};
}

// The sentence a user sees when a read or an open fails inside SQLite.
StoreError describeOpenFailure(const std::string &path, const SqlFailure &e)
{
    using Kind = StoreError::Kind;
    switch (e.primary()) {
    case SQLITE_NOTADB:
        if (startsWithSqliteMagic(path))
            return StoreError(Kind::Corrupt, quoted(path) + " starts like an SQLite file but cannot be read (" +
                                                 e.what() +
                                                 "): it is damaged or encrypted. It was left untouched; "
                                                 "restore it from a backup or choose another path with --db.");
        return StoreError(Kind::NotStepscope, quoted(path) +
                                                  " is not a Stepscope database (it is not an SQLite file at "
                                                  "all); choose another path with --db.");
    case SQLITE_CORRUPT:
        return StoreError(Kind::Corrupt, quoted(path) + " is a damaged database (" + e.what() +
                                             "). It was left untouched; restore it from a backup or choose another "
                                             "path with --db.");
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return StoreError(Kind::Io, quoted(path) + " is locked by another process (" + e.what() +
                                        "); close the other Stepscope and try again.");
    case SQLITE_CANTOPEN:
        return StoreError(Kind::Io, "cannot open " + quoted(path) + " (" + e.what() +
                                        "); check that its folder exists and that you may write there.");
    default: {
        const std::string full = noSpaceCause(path, e.primary(), e.systemErrno());
        if (!full.empty())
            return StoreError(Kind::Io, "cannot use " + quoted(path) + ": " + full + " (" + e.what() +
                                            "). It was left as it was; free some space and run again.");
        return StoreError(Kind::Io, "cannot use " + quoted(path) + ": " + e.what());
    }
    }
}

// The sentence a user sees when a batch of writes failed. Earlier batches were committed (and WAL
// keeps them through a crash), so the message says what was lost: this batch, nothing before it.
StoreError describeWriteFailure(const std::string &path, const SqlFailure &e)
{
    const char *safe = " Nothing committed before this batch was lost.";
    // A full disk reaches us as SQLITE_FULL, or as a plain I/O error whose errno says it (ENOSPC on
    // some file systems, EFBIG/EDQUOT at a size limit or a quota).
    const int sys = e.systemErrno();
    const std::string noSpace = noSpaceCause(path, e.primary(), sys);
    if (!noSpace.empty()) {
        std::string cause = e.what();
        if (sys != 0)
            cause += std::string(": ") + std::strerror(sys);
        const char *fix = sys == EFBIG ? " Raise the limit (ulimit -f) or choose another path with --db."
                                       : " Free some space and run again.";
        return StoreError(StoreError::Kind::Io,
                          "could not save to " + quoted(path) + ": " + noSpace + " (" + cause + ")." + safe + fix);
    }
    switch (e.primary()) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return StoreError(StoreError::Kind::Io, "could not save to " + quoted(path) +
                                                    ": another process held the database for too long (" + e.what() +
                                                    ")." + safe);
    default: {
        std::string cause = e.what();
        if (sys != 0)
            cause += std::string(" (") + std::strerror(sys) + ")";
        return StoreError(StoreError::Kind::Io, "could not save to " + quoted(path) + ": " + cause + "." + safe);
    }
    }
}

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

// What the refusal checks learnt about a file that is acceptable.
struct Inspection {
    int version = 0;    // user_version; 0 for a file that holds nothing yet
    bool empty = false; // an SQLite file with no schema at all (new, or a zero-length file)
};

// Decides whether `db` holds a Stepscope database we may use, reading only. Throws StoreError.
Inspection inspect(sqlite3 *db, const std::string &path)
{
    using Kind = StoreError::Kind;
    Inspection result;
    std::int64_t appId = 0;
    std::int64_t tables = 0;
    try {
        // One read transaction: the three answers come from one snapshot, so a file that another
        // process is creating at this moment reads as empty or as complete, never half of each.
        retryWhileBusy([&] {
            exec(db, "BEGIN");
            try {
                // The first read parses page 1 and the schema: this is where a foreign file shows.
                tables = queryInt(db, "SELECT count(*) FROM sqlite_master");
                appId = queryInt(db, "PRAGMA application_id");
                result.version = static_cast<int>(queryInt(db, "PRAGMA user_version"));
                exec(db, "COMMIT");
            } catch (...) {
                if (!sqlite3_get_autocommit(db))
                    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
                throw;
            }
        });
    } catch (const SqlFailure &e) {
        throw describeOpenFailure(path, e);
    }

    if (appId != kApplicationId) {
        if (appId == 0 && tables == 0 && result.version == 0) {
            result.empty = true;
            return result;
        }
        throw StoreError(Kind::NotStepscope, quoted(path) + " is not a Stepscope database (it is another SQLite "
                                                            "file); choose another path with --db.");
    }
    if (result.version > kLatestVersion)
        throw StoreError(Kind::TooNew, quoted(path) + " was made by a newer Stepscope (schema version " +
                                           std::to_string(result.version) + ", this one knows up to " +
                                           std::to_string(kLatestVersion) + "); upgrade Stepscope to open it.");

    // quick_check reads every page but skips the index cross-checks: enough to catch truncation
    // and torn pages before we write into them, at a cost a start-up can afford.
    try {
        Statement check(db, "PRAGMA quick_check(1)");
        const std::string verdict = check.step() ? check.text(0) : std::string("no answer");
        if (verdict != "ok")
            throw StoreError(Kind::Corrupt, quoted(path) + " is a damaged Stepscope database (" + verdict +
                                                "). It was left untouched; restore it from a backup or choose "
                                                "another path with --db.");
    } catch (const SqlFailure &e) {
        throw describeOpenFailure(path, e);
    }
    return result;
}

// Opens a connection and runs the refusal checks. On refusal the connection is closed without the
// checkpoint SQLite would otherwise run on close, so not one byte of the main file changes.
// `sqliteName` is what SQLite opens when it differs from the path the user named (a URI).
Connection openChecked(const std::string &path, int flags, Inspection &inspection, const std::string &sqliteName = {})
{
    sqlite3 *raw = nullptr;
    const int rc = sqlite3_open_v2(sqliteName.empty() ? path.c_str() : sqliteName.c_str(), &raw, flags, nullptr);
    Connection db(raw);
    if (rc != SQLITE_OK) {
        const SqlFailure failure(rc, raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc));
        throw describeOpenFailure(path, failure);
    }
    sqlite3_extended_result_codes(db.get(), 1);
    sqlite3_busy_timeout(db.get(), kBusyTimeoutMs);
    try {
        inspection = inspect(db.get(), path);
    } catch (...) {
        sqlite3_db_config(db.get(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
        throw;
    }
    return db;
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

void migrate(sqlite3 *db, int target)
{
    for (int next = 1; next <= target; ++next) {
        inTransaction(db, [&] {
            // Re-read inside the transaction: another process may have migrated meanwhile.
            if (queryInt(db, "PRAGMA user_version") >= next)
                return;
            exec(db, kMigrations[static_cast<std::size_t>(next - 1)]);
            exec(db, ("PRAGMA user_version = " + std::to_string(next)).c_str());
        });
    }
}

// What recovery writes on runs that never started because their sweep's process went away.
constexpr const char *kNeverStarted = "not run: the sweep's process ended before this run started";

// When the process `pid` started, as ISO-8601 UTC, less `slack`; empty where /proc cannot say.
// Sets `zombie` for a process that has ended but not yet been reaped.
std::string processStartUtc(std::int64_t pid, std::chrono::seconds slack, bool &zombie)
{
    std::ifstream statFile("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(statFile, line);
    const auto nameEnd = line.rfind(')'); // the command name may hold spaces and parentheses
    if (nameEnd == std::string::npos || nameEnd + 2 > line.size())
        return {};
    std::istringstream fields(line.substr(nameEnd + 2));
    std::string field;
    unsigned long long startTicks = 0;
    for (int i = 3; i <= 22 && fields >> field; ++i) { // field 3 is the state, 22 the start time
        if (i == 3)
            zombie = field == "Z" || field == "X";
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
        return {};
    const auto started = std::chrono::system_clock::time_point(
        std::chrono::seconds(bootSeconds) + std::chrono::milliseconds(startTicks * 1000 / ticksPerSecond));
    return isoUtc(started - slack);
}

// Whether the process that marked a run `running` at `started` on this host still lives. A stopped
// one (Ctrl-Z) does: it may be resumed any time, so however old its heartbeat, its run is not stale.
// A zombie does not, nor a later process that was given the same pid: the owner started before the
// run did (the boot time /proc gives is whole seconds, hence the slack).
bool ownerAlive(std::int64_t pid, const std::string &started)
{
    if (!processAlive(pid))
        return false;
    bool zombie = false;
    const std::string processStarted = processStartUtc(pid, std::chrono::seconds(30), zombie);
    if (zombie)
        return false;
    return processStarted.empty() || started.empty() || processStarted <= started;
}

// Runs and sweeps left `running` by an owner that is gone. On this host the owner's process settles
// it (alive, even stopped: not stale); elsewhere only the heartbeat can tell. A sweep with no run
// running is over when the process that ran its runs is gone, or (none started) when it is older
// than the heartbeat's limit; its runs still queued then never will run. Steps stay: they were
// measured and committed.
void interruptStaleRuns(sqlite3 *db)
{
    const std::string host = hostName();
    const std::string cutoff = isoUtc(std::chrono::system_clock::now() - kStaleAfter);
    // The owner of a row lives: on this host by its process, elsewhere by a recent sign of life.
    const auto alive = [&](const Statement &st, int pidCol, int hostCol, int startedCol, int lastSignCol) {
        if (!host.empty() && !st.isNull(pidCol) && st.text(hostCol) == host)
            return ownerAlive(st.int64(pidCol), st.text(startedCol));
        return !st.isNull(lastSignCol) && st.text(lastSignCol) >= cutoff;
    };
    inTransaction(db, [&] {
        const std::string now = nowUtc();
        std::vector<std::int64_t> staleRuns;
        {
            Statement st(db, "SELECT id, owner_pid, owner_host, started, heartbeat FROM runs WHERE status = 'running'");
            while (st.step())
                if (!alive(st, 1, 2, 3, 4))
                    staleRuns.push_back(st.int64(0));
        }
        Statement run(db, "UPDATE runs SET status = 'interrupted', finished = ?1 WHERE id = ?2");
        for (const std::int64_t runId : staleRuns) {
            run.reset();
            run.bind(1, now).bind(2, runId).run();
        }

        // Sweeps marked running with none of their runs running: the process driving one is the
        // owner of its latest started run; before any run started, only its age can tell.
        std::vector<std::int64_t> staleSweeps;
        {
            Statement st(db, "SELECT s.id, r.owner_pid, r.owner_host, r.started, "
                             "max(s.created, coalesce(r.heartbeat, ''), coalesce(r.finished, '')) "
                             "FROM sweeps s LEFT JOIN runs r ON r.id = (SELECT id FROM runs WHERE sweep_id = s.id AND "
                             "started IS NOT NULL ORDER BY started DESC, id DESC LIMIT 1) "
                             "WHERE s.status = 'running' AND "
                             "NOT EXISTS (SELECT 1 FROM runs WHERE sweep_id = s.id AND status = 'running')");
            while (st.step())
                if (!alive(st, 1, 2, 3, 4))
                    staleSweeps.push_back(st.int64(0));
        }
        Statement sweep(db, "UPDATE sweeps SET status = 'interrupted' WHERE id = ?1");
        for (const std::int64_t sweepId : staleSweeps) {
            sweep.reset();
            sweep.bind(1, sweepId).run();
        }
        // Runs queued in a sweep that is over will never run (files of older builds kept them queued).
        Statement queued(db, "UPDATE runs SET status = 'interrupted', message = ?1 WHERE status = 'queued' AND "
                             "sweep_id IN (SELECT id FROM sweeps WHERE status <> 'running')");
        queued.bind(1, std::string(kNeverStarted)).run();
    });
}

// Readers never migrate, so a file of an older schema is read as it is: columns it lacks read NULL.
std::string runColumns(int schemaVersion)
{
    return std::string("SELECT id, sweep_id, position, repeat_index, config_name, config_json, status, category, "
                       "message, detail, environment_id, setup_s, first_step_s, peak_allocated, peak_reserved, "
                       "check_losses, started, finished, heartbeat, "
                       "(SELECT count(*) FROM steps WHERE steps.run_id = runs.id), ") +
           (schemaVersion >= 3 ? "block_wall_ms, " : "NULL, ") +
           (schemaVersion >= 4 ? "compile_json, compile_cache, cache_dirs" : "NULL, NULL, NULL") + " FROM runs ";
}

RunRecord readRun(const Statement &st)
{
    RunRecord r;
    r.id = st.int64(0);
    r.sweepId = st.int64(1);
    r.position = st.int64(2);
    r.repeatIndex = st.int64(3);
    r.configName = st.text(4);
    r.configJson = st.text(5);
    // A status or category written by a newer build still reads as something sensible.
    r.status = runStatusFromString(st.text(6)).value_or(RunStatus::Failed);
    if (!st.isNull(7))
        r.category = failureCategoryFromString(st.text(7)).value_or(FailureCategory::Internal);
    r.message = st.text(8);
    r.detail = st.text(9);
    r.environmentId = st.optInt64(10);
    r.setupSeconds = st.optReal(11);
    r.firstStepSeconds = st.optReal(12);
    r.peakAllocatedBytes = st.optInt64(13);
    r.peakReservedBytes = st.optInt64(14);
    r.checkLosses = lossesFromJson(st.text(15));
    r.started = st.text(16);
    r.finished = st.text(17);
    r.heartbeat = st.text(18);
    r.stepCount = st.int64(19);
    r.blockWallMs = st.optReal(20);
    r.compileJson = st.text(21);
    r.compileCache = st.text(22);
    r.cacheDirs = st.text(23);
    return r;
}

// Readers never migrate: a file older than schema 5 reads without a stored baseline.
std::string sweepColumns(int schemaVersion)
{
    return std::string("SELECT id, created, name, preset, planned_steps, settings_json, status, ") +
           (schemaVersion >= 5 ? "baseline_config" : "NULL") + " FROM sweeps ";
}

SweepRecord readSweep(const Statement &st)
{
    SweepRecord s;
    s.id = st.int64(0);
    s.created = st.text(1);
    s.name = st.text(2);
    s.preset = st.text(3);
    s.plannedSteps = st.int64(4);
    s.settingsJson = st.text(5);
    s.status = st.text(6);
    s.baselineConfig = st.text(7);
    return s;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Database

struct Database::Impl {
    // A queued write. `done` is called once, after the commit (null) or with the failure; writes
    // without it report their failure through the next flush().
    struct Command {
        std::function<void(sqlite3 *)> work;
        std::function<void(std::exception_ptr)> done;
    };

    std::string path;
    int version = 0;
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
    std::thread writer;

    void enqueue(Command command)
    {
        {
            std::lock_guard<std::mutex> lock(mutex);
            queue.push_back(std::move(command));
        }
        wake.notify_one();
    }

    void enqueue(std::function<void(sqlite3 *)> work) { enqueue(Command{std::move(work), {}}); }

    // Runs `work` on the writer thread and waits for its commit; returns what it returned.
    std::int64_t call(std::function<std::int64_t(sqlite3 *)> work)
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

    void writerLoop()
    {
        std::unique_lock<std::mutex> lock(mutex);
        for (;;) {
            wake.wait(lock, [this] { return stopping || !queue.empty(); });
            if (queue.empty())
                return; // stopping, and everything before the stop is committed
            std::vector<Command> batch(std::make_move_iterator(queue.begin()), std::make_move_iterator(queue.end()));
            queue.clear();
            lock.unlock();
            runBatch(batch);
            lock.lock();
        }
    }

    // Whether the file at `path` is still the one the connection has open (SQLite compares the
    // inode behind the path with its own). On failure, the sticky error is set and returned.
    std::optional<StoreError> checkStillThere(sqlite3 *conn)
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (lost)
            return lost;
        int moved = 0;
        if (sqlite3_file_control(conn, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK && moved)
            lost = StoreError(StoreError::Kind::Io,
                              quoted(path) + " was deleted or replaced while Stepscope was writing to it (or its "
                                             "folder went away): nothing written since can be found there. What the "
                                             "file held is gone with it unless it was moved or has another link; run "
                                             "the sweep again, and leave the database where it is until it ends.");
        return lost;
    }

    void runBatch(std::vector<Command> &batch)
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
        for (auto &command : batch)
            if (command.done)
                command.done(nullptr);
    }

    // Throws the first failure of a queued write that nobody has heard of yet. `mutex` is held.
    void throwPending()
    {
        if (!pendingError)
            return;
        const StoreError error = *pendingError;
        pendingError.reset();
        lostReported = lostReported || lost.has_value();
        throw error;
    }

    void throwIfFailed()
    {
        std::lock_guard<std::mutex> lock(mutex);
        throwPending();
        if (lost) {
            lostReported = true;
            throw *lost;
        }
    }

    StoreError toStoreError(std::exception_ptr error) const
    {
        try {
            std::rethrow_exception(error);
        } catch (const SqlFailure &e) {
            return describeWriteFailure(path, e);
        } catch (const StoreError &e) {
            return e;
        } catch (const std::exception &e) {
            return StoreError(StoreError::Kind::Io, "could not save to " + quoted(path) + ": " + e.what());
        } catch (...) {
            return StoreError(StoreError::Kind::Io, "could not save to " + quoted(path) + ": unknown error");
        }
    }

    void fail(Command &command, const StoreError &error)
    {
        if (command.done) {
            command.done(std::make_exception_ptr(error));
            return;
        }
        std::lock_guard<std::mutex> lock(mutex);
        if (!pendingError)
            pendingError = error;
    }

    void flush()
    {
        auto promise = std::make_shared<std::promise<void>>();
        auto future = promise->get_future();
        // The marker commits with (or after) everything queued before it.
        enqueue(Command{[](sqlite3 *) {}, [promise](std::exception_ptr) { promise->set_value(); }});
        future.wait();
        std::lock_guard<std::mutex> lock(mutex);
        throwPending();
    }

    void stop()
    {
        {
            std::lock_guard<std::mutex> lock(mutex);
            stopping = true;
        }
        wake.notify_one();
        if (writer.joinable())
            writer.join();
    }
};

Database::Database(std::unique_ptr<Impl> impl) : d(std::move(impl)) {}

std::unique_ptr<Database> Database::open(const std::string &path, const OpenOptions &options)
{
    using Kind = StoreError::Kind;
    const bool exists = fileExists(path);
    if (!exists && !options.create)
        throw StoreError(Kind::Io, quoted(path) + " does not exist; check the path given with --db.");

    // Refused before SQLite opens it: even a connection that only inspects a WAL file would create
    // its -wal and -shm beside it, and those, owned by whoever opened it, can lock its owner out.
    if (exists && !mayWrite(path))
        throw StoreError(Kind::Io, quoted(path) + " is read-only; Stepscope needs to write to it. Check its "
                                                  "permissions or choose another path with --db.");
    if (exists && !mayWrite(folderOf(path)))
        throw StoreError(Kind::Io, "the folder of " + quoted(path) +
                                       " is read-only; Stepscope needs to create its write-ahead log beside it. "
                                       "Check the folder's permissions or choose another path with --db.");

    Inspection inspection;
    const int flags = SQLITE_OPEN_READWRITE | (exists ? 0 : SQLITE_OPEN_CREATE);
    Connection db = openChecked(path, flags, inspection);
    sqlite3 *conn = db.get();
    auto refuse = [conn](Kind kind, const std::string &message) {
        sqlite3_db_config(conn, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
        throw StoreError(kind, message);
    };
    // SQLite quietly falls back to read-only when it may not write; we would only find out at the
    // first commit, long after the user could have picked another path.
    if (sqlite3_db_readonly(conn, "main") == 1)
        refuse(Kind::Io, quoted(path) + " is read-only; Stepscope needs to write to it. Check its permissions or "
                                        "choose another path with --db.");
    if (inspection.empty && exists && !options.create)
        refuse(Kind::NotStepscope,
               quoted(path) + " is empty, not a Stepscope database; choose another path with --db.");

    auto impl = std::make_unique<Impl>();
    impl->path = path;
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
}

int Database::latestSchemaVersion()
{
    return kLatestVersion;
}

int Database::schemaVersion() const
{
    return d->version;
}

const std::string &Database::path() const
{
    return d->path;
}

std::int64_t Database::addEnvironment(const EnvironmentRecord &env)
{
    return d->call([env](sqlite3 *db) {
        Statement st(db, "INSERT INTO environments (json, gpu, driver, cuda, cudnn, torch, python, host) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
        st.bind(1, env.json).bind(2, env.gpu).bind(3, env.driver).bind(4, env.cuda).bind(5, env.cudnn);
        st.bind(6, env.torch).bind(7, env.python).bind(8, env.host).run();
        return static_cast<std::int64_t>(sqlite3_last_insert_rowid(db));
    });
}

namespace
{

// `hasBaseline`: the file has the baseline column (schema 5); tests keep files at older schemas.
std::int64_t insertSweep(sqlite3 *db, const SweepRecord &sweep, bool hasBaseline)
{
    Statement st(db, hasBaseline ? "INSERT INTO sweeps (created, name, preset, planned_steps, settings_json, "
                                   "status, baseline_config) VALUES (?, ?, ?, ?, ?, ?, ?)"
                                 : "INSERT INTO sweeps (created, name, preset, planned_steps, settings_json, "
                                   "status) VALUES (?, ?, ?, ?, ?, ?)");
    st.bind(1, nowUtc()).bind(2, sweep.name).bind(3, sweep.preset).bind(4, sweep.plannedSteps);
    st.bind(5, sweep.settingsJson).bind(6, sweep.status.empty() ? std::string("running") : sweep.status);
    if (hasBaseline)
        st.bindTextOrNull(7, sweep.baselineConfig);
    st.run();
    return static_cast<std::int64_t>(sqlite3_last_insert_rowid(db));
}

std::int64_t insertRun(sqlite3 *db, const RunRecord &run)
{
    Statement st(db, "INSERT INTO runs (sweep_id, position, repeat_index, config_name, config_json, status, "
                     "category, message, detail, environment_id, setup_s, first_step_s, peak_allocated, "
                     "peak_reserved, check_losses, started, finished, heartbeat) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    st.bind(1, run.sweepId).bind(2, run.position).bind(3, run.repeatIndex);
    st.bind(4, run.configName).bind(5, run.configJson).bind(6, toString(run.status));
    if (run.category)
        st.bind(7, toString(*run.category));
    else
        st.bindNull(7);
    st.bind(8, run.message).bind(9, run.detail).bind(10, run.environmentId);
    st.bind(11, run.setupSeconds).bind(12, run.firstStepSeconds);
    st.bind(13, run.peakAllocatedBytes).bind(14, run.peakReservedBytes);
    st.bind(15, lossesToJson(run.checkLosses));
    st.bindTextOrNull(16, run.started).bindTextOrNull(17, run.finished).bindTextOrNull(18, run.heartbeat);
    st.run();
    return static_cast<std::int64_t>(sqlite3_last_insert_rowid(db));
}

} // namespace

std::int64_t Database::createSweep(const SweepRecord &sweep)
{
    const bool hasBaseline = d->version >= 5;
    return d->call([sweep, hasBaseline](sqlite3 *db) { return insertSweep(db, sweep, hasBaseline); });
}

std::int64_t Database::createRun(const RunRecord &run)
{
    return d->call([run](sqlite3 *db) { return insertRun(db, run); });
}

std::int64_t Database::createSweepWithRuns(const SweepRecord &sweep, const std::vector<RunRecord> &runs,
                                           std::vector<std::int64_t> &runIds)
{
    const bool hasBaseline = d->version >= 5;
    auto ids = std::make_shared<std::vector<std::int64_t>>();
    const std::int64_t sweepId = d->call([sweep, runs, hasBaseline, ids](sqlite3 *db) {
        ids->clear(); // a batch that failed for another write's sake is replayed: start afresh
        const std::int64_t id = insertSweep(db, sweep, hasBaseline);
        for (RunRecord run : runs) {
            run.sweepId = id;
            ids->push_back(insertRun(db, run));
        }
        return id;
    });
    runIds = *ids;
    return sweepId;
}

void Database::markRunning(std::int64_t runId)
{
    // Owner and time are taken now, on the caller's side, not when the batch happens to commit.
    const std::int64_t pid = getpid();
    const std::string host = hostName();
    const std::string now = nowUtc();
    d->enqueue([=](sqlite3 *db) {
        Statement st(db, "UPDATE runs SET status = 'running', started = ?1, heartbeat = ?1, owner_pid = ?2, "
                         "owner_host = ?3 WHERE id = ?4");
        st.bind(1, now).bind(2, pid).bind(3, host).bind(4, runId).run();
    });
}

void Database::appendSteps(std::int64_t runId, const std::vector<StepRow> &steps)
{
    const std::string now = nowUtc();
    d->enqueue([runId, steps, now](sqlite3 *db) {
        Statement insert(db, "INSERT INTO steps (run_id, idx, gpu_ms, wall_ms) VALUES (?, ?, ?, ?)");
        for (const auto &step : steps) {
            insert.reset();
            insert.bind(1, runId).bind(2, step.index).bind(3, step.gpuMs).bind(4, step.wallMs).run();
        }
        Statement beat(db, "UPDATE runs SET heartbeat = ? WHERE id = ?");
        beat.bind(1, now).bind(2, runId).run();
    });
}

void Database::heartbeat(std::int64_t runId)
{
    const std::string now = nowUtc();
    d->enqueue([runId, now](sqlite3 *db) {
        Statement st(db, "UPDATE runs SET heartbeat = ? WHERE id = ?");
        st.bind(1, now).bind(2, runId).run();
    });
}

void Database::setEnvironment(std::int64_t runId, std::int64_t environmentId)
{
    d->enqueue([=](sqlite3 *db) {
        Statement st(db, "UPDATE runs SET environment_id = ? WHERE id = ?");
        st.bind(1, environmentId).bind(2, runId).run();
    });
}

void Database::setSetup(std::int64_t runId, double setupSeconds)
{
    d->enqueue([=](sqlite3 *db) {
        Statement st(db, "UPDATE runs SET setup_s = ? WHERE id = ?");
        st.bind(1, setupSeconds).bind(2, runId).run();
    });
}

void Database::setFirstStep(std::int64_t runId, double firstStepSeconds)
{
    d->enqueue([=](sqlite3 *db) {
        Statement st(db, "UPDATE runs SET first_step_s = ? WHERE id = ?");
        st.bind(1, firstStepSeconds).bind(2, runId).run();
    });
}

void Database::setMemory(std::int64_t runId, std::int64_t peakAllocated, std::int64_t peakReserved)
{
    d->enqueue([=](sqlite3 *db) {
        Statement st(db, "UPDATE runs SET peak_allocated = ?, peak_reserved = ? WHERE id = ?");
        st.bind(1, peakAllocated).bind(2, peakReserved).bind(3, runId).run();
    });
}

void Database::setBlockWall(std::int64_t runId, double meanWallMs)
{
    d->enqueue([runId, meanWallMs](sqlite3 *db) {
        Statement st(db, "UPDATE runs SET block_wall_ms = ? WHERE id = ?");
        st.bind(1, meanWallMs).bind(2, runId).run();
    });
}

void Database::setCompileInfo(std::int64_t runId, const std::string &json)
{
    d->enqueue([runId, json](sqlite3 *db) {
        Statement st(db, "UPDATE runs SET compile_json = ? WHERE id = ?");
        st.bind(1, json).bind(2, runId).run();
    });
}

void Database::setCompileCache(std::int64_t runId, const std::string &state, const std::string &dirsJson)
{
    d->enqueue([runId, state, dirsJson](sqlite3 *db) {
        Statement st(db, "UPDATE runs SET compile_cache = ?, cache_dirs = ? WHERE id = ?");
        st.bind(1, state).bind(2, dirsJson).bind(3, runId).run();
    });
}

void Database::setSummary(std::int64_t runId, const RunSummary &summary)
{
    const bool versioned = d->version >= 5; // older files (tests of migrations) lack the two columns
    d->enqueue([runId, summary, versioned](sqlite3 *db) {
        Statement st(db, versioned ? "INSERT OR REPLACE INTO summaries (run_id, median_ms, p10_ms, p90_ms, iqr_ms, "
                                     "mad_ms, cv, steady_begin, steady_count, noise, timing, method_version) "
                                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                                   : "INSERT OR REPLACE INTO summaries (run_id, median_ms, p10_ms, p90_ms, iqr_ms, "
                                     "mad_ms, cv, steady_begin, steady_count, noise) "
                                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        st.bind(1, runId);
        const std::optional<double> figures[] = {summary.medianMs, summary.p10Ms, summary.p90Ms,
                                                 summary.iqrMs,    summary.madMs, summary.cv};
        for (int i = 0; i < 6; ++i)
            st.bind(2 + i, figures[i]);
        st.bind(8, summary.steadyBegin).bind(9, summary.steadyCount).bind(10, summary.noise);
        if (versioned)
            st.bindTextOrNull(11, summary.timing).bind(12, summary.methodVersion);
        st.run();
    });
}

void Database::setCheckLosses(std::int64_t runId, const std::vector<double> &losses)
{
    d->enqueue([runId, json = lossesToJson(losses)](sqlite3 *db) {
        Statement st(db, "UPDATE runs SET check_losses = ? WHERE id = ?");
        st.bind(1, json).bind(2, runId).run();
    });
}

void Database::finishRun(std::int64_t runId, RunStatus status, const std::optional<Failure> &failure)
{
    const std::string now = nowUtc();
    d->enqueue([runId, status, failure, now](sqlite3 *db) {
        if (failure) {
            Statement st(db, "UPDATE runs SET status = ?, finished = ?, category = ?, message = ?, detail = ? "
                             "WHERE id = ?");
            st.bind(1, toString(status)).bind(2, now).bind(3, toString(failure->category));
            st.bind(4, failure->message).bind(5, failure->detail).bind(6, runId).run();
        } else {
            Statement st(db, "UPDATE runs SET status = ?, finished = ? WHERE id = ?");
            st.bind(1, toString(status)).bind(2, now).bind(3, runId).run();
        }
    });
}

void Database::finishSweep(std::int64_t sweepId, const std::string &status)
{
    d->enqueue([sweepId, status](sqlite3 *db) {
        Statement st(db, "UPDATE sweeps SET status = ? WHERE id = ?");
        st.bind(1, status).bind(2, sweepId).run();
    });
}

void Database::renameSweep(std::int64_t sweepId, const std::string &name)
{
    d->enqueue([sweepId, name](sqlite3 *db) {
        Statement st(db, "UPDATE sweeps SET name = ? WHERE id = ?");
        st.bind(1, name).bind(2, sweepId).run();
    });
}

void Database::deleteSweep(std::int64_t sweepId)
{
    const bool hasSummaries = d->version >= 2;
    d->enqueue([sweepId, hasSummaries](sqlite3 *db) {
        // Children first: the foreign keys refuse orphans rather than cascade, so a stray delete
        // elsewhere can never silently take measurements with it.
        if (hasSummaries) {
            Statement st(db, "DELETE FROM summaries WHERE run_id IN (SELECT id FROM runs WHERE sweep_id = ?)");
            st.bind(1, sweepId).run();
        }
        Statement steps(db, "DELETE FROM steps WHERE run_id IN (SELECT id FROM runs WHERE sweep_id = ?)");
        steps.bind(1, sweepId).run();
        Statement runs(db, "DELETE FROM runs WHERE sweep_id = ?");
        runs.bind(1, sweepId).run();
        Statement sweep(db, "DELETE FROM sweeps WHERE id = ?");
        sweep.bind(1, sweepId).run();
    });
}

void Database::flush()
{
    d->flush();
}

void Database::check()
{
    d->throwIfFailed();
}

// ---------------------------------------------------------------------------------------------
// Reader

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

namespace
{

// "file:" URI of `path` with `query`, every byte outside the unreserved set percent-encoded.
std::string fileUri(const std::string &path, const std::string &query)
{
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string uri = "file:";
    for (const unsigned char c : path) {
        if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
            uri += static_cast<char>(c);
        } else {
            uri += '%';
            uri += kHex[c >> 4];
            uri += kHex[c & 15];
        }
    }
    return uri + "?" + query;
}

// Whether page 1 says the file is in WAL mode (file format bytes 18 and 19 are 2).
bool walModeHeader(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    char head[20] = {};
    return in.read(head, sizeof head) && head[18] == 2 && head[19] == 2;
}

// The URI a Reader opens instead of the plain path, or empty for the path itself. A file we may
// write, in a folder we may write, opens as it is. One that we may only read must not get -wal and
// -shm files created beside it (owned by us, they can lock its owner out; in a read-only folder
// SQLite cannot create them and refuses to read). Such a WAL file without a -wal beside it is
// opened immutable: then no connection has it open (the first one creates the -wal, the last one
// removes it), and a writer that starts later writes into its own -wal; the main file changes only
// at a checkpoint, which a short read will not meet. A -wal with frames in it means a writer may be
// at work, or commits are not yet in the file: SQLite reads them through the existing -shm.
std::string readOnlyUri(const std::string &path)
{
    if (mayWrite(path) && mayWrite(folderOf(path)))
        return {};
    // An empty -wal holds no commit the file lacks (a reader that could not checkpoint leaves one).
    struct stat wal {
    };
    const bool walHoldsCommits = ::stat((path + "-wal").c_str(), &wal) == 0 && wal.st_size > 0;
    if (walHoldsCommits || !walModeHeader(path))
        return {};
    return fileUri(path, "immutable=1");
}

} // namespace

Reader::Reader(std::unique_ptr<Impl> impl) : d(std::move(impl)) {}
Reader::~Reader() = default;

std::unique_ptr<Reader> Reader::open(const std::string &path)
{
    using Kind = StoreError::Kind;
    // Without this check SQLite would report "unable to open" for a plain typo; say it plainly.
    if (!fileExists(path))
        throw StoreError(Kind::Io, quoted(path) + " does not exist; check the path given with --db.");
    Inspection inspection;
    const std::string uri = readOnlyUri(path);
    Connection db;
    try {
        db = openChecked(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX | (uri.empty() ? 0 : SQLITE_OPEN_URI),
                         inspection, uri);
    } catch (const StoreError &e) {
        // The one case left that a read-only folder cannot read: commits still in the -wal, and no
        // -shm beside it to read them through.
        if (e.kind() == Kind::Io && !mayWrite(folderOf(path)) && fileExists(path + "-wal") &&
            !fileExists(path + "-shm"))
            throw StoreError(Kind::Io, quoted(path) + " has commits in its write-ahead log (" + path +
                                           "-wal) that only a -shm file beside it can read, and its folder is "
                                           "read-only. Open it once where its folder can be written, or copy it "
                                           "together with its -wal to such a folder.");
        throw;
    }
    if (inspection.empty || inspection.version < 1) {
        sqlite3_db_config(db.get(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
        throw StoreError(Kind::NotStepscope, quoted(path) + " holds no Stepscope data yet; choose another path "
                                                            "with --db.");
    }
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    impl->db = std::move(db);
    impl->schemaVersion = inspection.version;
    return std::unique_ptr<Reader>(new Reader(std::move(impl)));
}

std::vector<SweepRecord> Reader::sweeps() const
{
    return d->read([version = d->schemaVersion](sqlite3 *db) {
        std::vector<SweepRecord> out;
        Statement st(db, (sweepColumns(version) + "ORDER BY created DESC, id DESC").c_str());
        while (st.step())
            out.push_back(readSweep(st));
        return out;
    });
}

std::optional<SweepRecord> Reader::sweep(std::int64_t id) const
{
    return d->read([id, version = d->schemaVersion](sqlite3 *db) -> std::optional<SweepRecord> {
        Statement st(db, (sweepColumns(version) + "WHERE id = ?").c_str());
        st.bind(1, id);
        if (!st.step())
            return std::nullopt;
        return readSweep(st);
    });
}

std::vector<RunRecord> Reader::runs(std::int64_t sweepId) const
{
    return d->read([sweepId, version = d->schemaVersion](sqlite3 *db) {
        std::vector<RunRecord> out;
        Statement st(db, (runColumns(version) + "WHERE sweep_id = ? ORDER BY position, id").c_str());
        st.bind(1, sweepId);
        while (st.step())
            out.push_back(readRun(st));
        return out;
    });
}

std::optional<RunSummary> Reader::summary(std::int64_t runId) const
{
    if (d->schemaVersion < 2)
        return std::nullopt; // summaries arrived with schema 2
    return d->read([runId, version = d->schemaVersion](sqlite3 *db) -> std::optional<RunSummary> {
        const std::string sql =
            std::string("SELECT median_ms, p10_ms, p90_ms, iqr_ms, mad_ms, cv, steady_begin, steady_count, noise, ") +
            (version >= 5 ? "timing, method_version" : "NULL, 0") + " FROM summaries WHERE run_id = ?";
        Statement st(db, sql.c_str());
        st.bind(1, runId);
        if (!st.step())
            return std::nullopt;
        RunSummary r;
        r.medianMs = st.optReal(0);
        r.p10Ms = st.optReal(1);
        r.p90Ms = st.optReal(2);
        r.iqrMs = st.optReal(3);
        r.madMs = st.optReal(4);
        r.cv = st.optReal(5);
        r.steadyBegin = st.int64(6);
        r.steadyCount = st.int64(7);
        r.noise = st.text(8);
        r.timing = st.text(9);
        r.methodVersion = static_cast<int>(st.int64(10));
        return r;
    });
}

std::vector<std::int64_t> Reader::runsNeedingSummary(int methodVersion) const
{
    return d->read([methodVersion, version = d->schemaVersion](sqlite3 *db) {
        std::vector<std::int64_t> out;
        // Before schema 5 no summary says which rule computed it (before 2 there are none): all of
        // them are due.
        const std::string sql = version < 5 ? "SELECT id FROM runs WHERE status = 'complete' ORDER BY id"
                                            : "SELECT id FROM runs WHERE status = 'complete' AND id NOT IN "
                                              "(SELECT run_id FROM summaries WHERE method_version >= ?) ORDER BY id";
        Statement st(db, sql.c_str());
        if (version >= 5)
            st.bind(1, methodVersion);
        while (st.step())
            out.push_back(st.int64(0));
        return out;
    });
}

std::optional<RunRecord> Reader::run(std::int64_t runId) const
{
    return d->read([runId, version = d->schemaVersion](sqlite3 *db) -> std::optional<RunRecord> {
        Statement st(db, (runColumns(version) + "WHERE id = ?").c_str());
        st.bind(1, runId);
        if (!st.step())
            return std::nullopt;
        return readRun(st);
    });
}

std::vector<StepRow> Reader::steps(std::int64_t runId) const
{
    return d->read([runId](sqlite3 *db) {
        std::vector<StepRow> out;
        Statement st(db, "SELECT idx, gpu_ms, wall_ms FROM steps WHERE run_id = ? ORDER BY idx");
        st.bind(1, runId);
        while (st.step())
            out.push_back(StepRow{st.int64(0), st.optReal(1), st.real(2)});
        return out;
    });
}

std::optional<EnvironmentRecord> Reader::environment(std::int64_t id) const
{
    return d->read([id](sqlite3 *db) -> std::optional<EnvironmentRecord> {
        Statement st(db, "SELECT json, gpu, driver, cuda, cudnn, torch, python, host FROM environments WHERE id = ?");
        st.bind(1, id);
        if (!st.step())
            return std::nullopt;
        return EnvironmentRecord{st.text(0), st.text(1), st.text(2), st.text(3),
                                 st.text(4), st.text(5), st.text(6), st.text(7)};
    });
}

} // namespace stepscope::store
