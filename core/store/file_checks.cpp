// What may be opened, checked before anything is written: the file, its folder and its header,
// whether SQLite reads it as a Stepscope database of a version we know, and how a file we may only
// read is opened without touching it.
#include "store/store_internal.h"

#include "platform/platform.h"

#include <cctype>
#include <fstream>
#include <string>

namespace stepscope::store
{

bool fileExists(const std::string &path)
{
    return platform::pathExists(path);
}

std::string quoted(const std::string &path)
{
    return "'" + path + "'";
}

namespace
{

bool hasDriveLetter(const std::string &path)
{
    return path.size() >= 2 && std::isalpha(static_cast<unsigned char>(path[0])) && path[1] == ':';
}

} // namespace

std::string folderOf(const std::string &path, PathStyle style)
{
    // Windows takes both separators; on POSIX a backslash is a character of a name.
    const auto slash = path.find_last_of(style == PathStyle::Windows ? "/\\" : "/");
    if (slash == std::string::npos)
        return style == PathStyle::Windows && hasDriveLetter(path) ? path.substr(0, 2) : std::string(".");
    if (slash == 0)
        return path.substr(0, 1);
    // "C:\x.db" lives in "C:\", the drive's root, not in "C:" (that drive's current folder).
    if (style == PathStyle::Windows && slash == 2 && hasDriveLetter(path))
        return path.substr(0, 3);
    return path.substr(0, slash);
}

bool mayWrite(const std::string &path)
{
    return platform::mayWrite(path);
}

namespace
{

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
                                                            "file); choose another database file.");
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
                                                "another database file.");
    } catch (const SqlFailure &e) {
        throw describeOpenFailure(path, e);
    }
    return result;
}

} // namespace

Connection openChecked(const std::string &path, int flags, Inspection &inspection, const std::string &sqliteName)
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

// "file:" URI of `path` with `query`, every byte outside the unreserved set percent-encoded. SQLite
// reads "file:/C:/x.db" as the Windows path C:/x.db, and wants '/' for a Windows '\\'.
std::string fileUri(const std::string &path, const std::string &query, PathStyle style)
{
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string uri = "file:";
    if (style == PathStyle::Windows && hasDriveLetter(path))
        uri += '/';
    for (unsigned char c : path) {
        if (style == PathStyle::Windows && c == '\\')
            c = '/';
        if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~' ||
            (style == PathStyle::Windows && c == ':')) {
            uri += static_cast<char>(c);
        } else {
            uri += '%';
            uri += kHex[c >> 4];
            uri += kHex[c & 15];
        }
    }
    return uri + "?" + query;
}

namespace
{

// Whether page 1 says the file is in WAL mode (file format bytes 18 and 19 are 2).
bool walModeHeader(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    char head[20] = {};
    return in.read(head, sizeof head) && head[18] == 2 && head[19] == 2;
}

} // namespace

// The URI a Reader opens instead of the plain path, or empty for the path itself. A file we may
// write, in a folder we may write, opens as it is. One that we may only read must not get -wal and
// -shm files created beside it (owned by us, they can lock its owner out; in a read-only folder
// SQLite cannot create them and refuses to read). Such a WAL file without a -wal beside it is
// opened immutable: then no connection has it open (the first one creates the -wal, the last one
// removes it), and a writer that starts later writes into its own -wal; the main file changes only
// at a checkpoint, which a short read will not meet. A -wal with frames in it means a writer may be
// at work, or commits are not yet in the file: SQLite reads them through the existing -shm.
std::string readOnlyUri(const std::string &path, bool asIfReadOnly)
{
    if (!asIfReadOnly && mayWrite(path) && mayWrite(folderOf(path)))
        return {};
    // An empty -wal holds no commit the file lacks (a reader that could not checkpoint leaves one).
    const auto walSize = platform::fileSize(path + "-wal");
    const bool walHoldsCommits = walSize && *walSize > 0;
    if (walHoldsCommits || !walModeHeader(path))
        return {};
    return fileUri(path, "immutable=1");
}

bool readsWithOwnSideFiles(const std::string &path)
{
    // A -wal present means another connection may be at work (a sweep writing): read-only, as ever,
    // and it sees the live data through the -shm that is there. A file in rollback mode gets no side
    // files from a reader at all.
    return mayWrite(path) && mayWrite(folderOf(path)) && !fileExists(path + "-wal") && walModeHeader(path);
}

} // namespace stepscope::store
