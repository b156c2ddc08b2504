// Read-only access on a connection of its own: opening a file for reading, and the queries on
// sweeps, runs, steps and environments.
#include "store/store_internal.h"

#include "platform/platform.h"

#include <string>
#include <vector>

namespace stepscope::store
{

Reader::Reader(std::unique_ptr<Impl> impl) : d(std::move(impl)) {}
Reader::~Reader() = default;

const std::string &Reader::path() const
{
    return d->path;
}

std::unique_ptr<Reader> Reader::open(const std::string &path)
{
    using Kind = StoreError::Kind;
    if (const std::string why = notADatabasePathText(path); !why.empty())
        throw StoreError(Kind::Io, why);
    // Without this check SQLite would report "unable to open" for a plain typo; say it plainly.
    if (!fileExists(path))
        throw StoreError(Kind::Io, missingFileText(path));
    Inspection inspection;
    const std::string uri = readOnlyUri(path);
    const bool ownSideFiles = uri.empty() && readsWithOwnSideFiles(path);
    Connection db;
    const auto open = [&](const std::string &name, bool mayWriteSideFiles = false) {
        return openChecked(path,
                           (mayWriteSideFiles ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_FULLMUTEX |
                               (name.empty() ? 0 : SQLITE_OPEN_URI),
                           inspection, name);
    };
    try {
        try {
            db = open(uri, ownSideFiles);
            // It may write only what closing it removes: query_only refuses every statement that
            // would change the file.
            if (ownSideFiles) {
                try {
                    exec(db.get(), "PRAGMA query_only = 1");
                } catch (const SqlFailure &e) {
                    throw describeOpenFailure(path, e);
                }
            }
        } catch (const StoreError &e) {
            // Reading needs no space: on a full disk the -shm a WAL reader wants cannot be made, and a
            // file whose commits are all in it reads as immutable instead (no live writer can be
            // adding any there without room either).
            const auto room = platform::freeBytes(folderOf(path));
            const std::string immutable = readOnlyUri(path, true);
            if (e.kind() != Kind::Io || !uri.empty() || immutable.empty() || !room || *room >= 64 * 1024)
                throw;
            db = open(immutable);
        }
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
        throw StoreError(Kind::NotStepscope, quoted(path) + " holds no Stepscope data yet; choose another "
                                                            "database file.");
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

std::vector<RankStepRow> Reader::rankSteps(std::int64_t runId) const
{
    return d->read([runId](sqlite3 *db) {
        std::vector<RankStepRow> out;
        if (queryInt(db, "PRAGMA user_version") < 9)
            return out;
        Statement st(db, "SELECT rank, idx, gpu_ms, wall_ms FROM rank_steps WHERE run_id = ? ORDER BY rank, idx");
        st.bind(1, runId);
        while (st.step())
            out.push_back(RankStepRow{static_cast<int>(st.int64(0)), st.int64(1), st.optReal(2), st.real(3)});
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
