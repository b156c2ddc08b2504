// The writes of a sweep's life, planning to deletion: its environment, the sweep and its runs, each
// run's start, steps and figures, its end, and the sweep's rename, end and deletion. All queued on
// the writer thread.
#include "store/store_internal.h"

#include "platform/platform.h"
#include "store/database_files.h"

#include <filesystem>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace stepscope::store
{

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

// Removes the kept traces and memory snapshots `names` of a database's deleted runs. Only a name a
// profile stores (a file in the traces folder, ending .trace.json.gz or .memory.pickle.gz) is
// taken: a stored name that climbs out ("../x") or names anything else is left alone, whatever a
// foreign file says.
void removeKeptTraces(const std::string &database, const std::vector<std::string> &names)
{
    const auto endsWith = [](const std::string &name, std::string_view suffix) {
        return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    for (const std::string &name : names) {
        const auto slash = name.find('/');
        if (name.find("..") != std::string::npos || slash == std::string::npos ||
            name.find('/', slash + 1) != std::string::npos ||
            !(endsWith(name, ".trace.json.gz") || endsWith(name, ".memory.pickle.gz")) ||
            name.compare(0, slash, std::filesystem::path(database).filename().string() + ".traces") != 0)
            continue;
        std::error_code error;
        std::filesystem::remove(besideDatabase(database, name), error);
    }
}

// `hasBaseline`: the file has the baseline column (schema 5); tests keep files at older schemas.
std::int64_t insertSweep(sqlite3 *db, const SweepRecord &sweep, bool hasBaseline)
{
    Statement st(db, hasBaseline ? "INSERT INTO sweeps (created, name, preset, planned_steps, settings_json, "
                                   "status, baseline_config) VALUES (?, ?, ?, ?, ?, ?, ?)"
                                 : "INSERT INTO sweeps (created, name, preset, planned_steps, settings_json, "
                                   "status) VALUES (?, ?, ?, ?, ?, ?)");
    st.bind(1, nowUtc()).bind(2, sweep.name).bind(3, sweep.preset).bind(4, sweep.plannedSteps);
    st.bind(5, sweep.settingsJson).bind(6, toString(sweep.status));
    if (hasBaseline)
        st.bindTextOrNull(7, sweep.baselineConfig);
    st.run();
    return static_cast<std::int64_t>(sqlite3_last_insert_rowid(db));
}

std::int64_t insertRun(sqlite3 *db, const RunRecord &run, bool hasCaches)
{
    Statement st(db, "INSERT INTO runs (sweep_id, position, repeat_index, config_name, config_json, status, "
                     "category, message, detail, environment_id, setup_s, first_step_s, peak_allocated, "
                     "peak_reserved, check_losses, started, finished, heartbeat, owner_pid, owner_host) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
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
    // The planner owns a run until one starts it (markRunning takes it then): a sweep killed before its
    // first run is known dead by its planner's process at the next open, not two minutes later by its
    // age (issue 34.7; recovery.cpp). Runs are planned by the process that runs them.
    st.bind(19, static_cast<std::int64_t>(platform::currentProcessId())).bind(20, platform::hostName());
    st.run();
    const auto id = static_cast<std::int64_t>(sqlite3_last_insert_rowid(db));
    if (hasCaches && run.caches != StartState::Unrecorded) {
        Statement caches(db, "UPDATE runs SET caches = ? WHERE id = ?");
        caches.bind(1, std::string(toString(run.caches))).bind(2, id).run();
    }
    return id;
}

} // namespace

std::int64_t Database::createSweep(const SweepRecord &sweep)
{
    const bool hasBaseline = d->version >= 5;
    return d->call([sweep, hasBaseline](sqlite3 *db) { return insertSweep(db, sweep, hasBaseline); });
}

std::int64_t Database::createRun(const RunRecord &run)
{
    const bool hasCaches = d->version >= 7;
    return d->call([run, hasCaches](sqlite3 *db) { return insertRun(db, run, hasCaches); });
}

std::int64_t Database::createSweepWithRuns(const SweepRecord &sweep, const std::vector<RunRecord> &runs,
                                           std::vector<std::int64_t> &runIds)
{
    const bool hasBaseline = d->version >= 5, hasCaches = d->version >= 7;
    auto ids = std::make_shared<std::vector<std::int64_t>>();
    const std::int64_t sweepId = d->call([sweep, runs, hasBaseline, hasCaches, ids](sqlite3 *db) {
        ids->clear(); // a batch that failed for another write's sake is replayed: start afresh
        const std::int64_t id = insertSweep(db, sweep, hasBaseline);
        for (RunRecord run : runs) {
            run.sweepId = id;
            ids->push_back(insertRun(db, run, hasCaches));
        }
        return id;
    });
    runIds = *ids;
    return sweepId;
}

void Database::markRunning(std::int64_t runId)
{
    // Owner and time are taken now, on the caller's side, not when the batch happens to commit.
    const std::int64_t pid = platform::currentProcessId();
    const std::string host = platform::hostName();
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

void Database::appendRankSteps(std::int64_t runId, int rank, const std::vector<StepRow> &steps)
{
    if (d->version < 9)
        return; // older files (tests of migrations) lack the table
    d->enqueue([runId, rank, steps](sqlite3 *db) {
        Statement insert(db, "INSERT INTO rank_steps (run_id, rank, idx, gpu_ms, wall_ms) VALUES (?, ?, ?, ?, ?)");
        for (const auto &step : steps) {
            insert.reset();
            insert.bind(1, runId).bind(2, rank).bind(3, step.index).bind(4, step.gpuMs).bind(5, step.wallMs).run();
        }
    });
}

void Database::setLane(std::int64_t runId, const std::string &json)
{
    if (d->version < 9)
        return;
    d->enqueue([runId, json](sqlite3 *db) {
        Statement st(db, "UPDATE runs SET lane = ? WHERE id = ?");
        st.bind(1, json).bind(2, runId).run();
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

void Database::setModelFacts(std::int64_t runId, const ModelFacts &facts)
{
    if (d->version < 10)
        return; // older files (tests of migrations) lack the columns
    d->enqueue([runId, facts](sqlite3 *db) {
        Statement st(db, "UPDATE runs SET model_description = ?, parameters = ?, forward_flops = ?, training_flops = ?, "
                         "flops_source = ?, flops_problem = ? WHERE id = ?");
        st.bindTextOrNull(1, facts.description).bind(2, facts.parameters).bind(3, facts.forwardFlops);
        st.bind(4, facts.trainingFlops).bindTextOrNull(5, std::string(toString(facts.flopsSource)));
        st.bindTextOrNull(6, facts.flopsProblem).bind(7, runId).run();
    });
}

void Database::setEnergy(std::int64_t runId, const EnergyReading &e)
{
    if (d->version < 11)
        return;
    d->enqueue([runId, e](sqlite3 *db) {
        Statement st(db, "UPDATE runs SET energy_first_j = ?, energy_first_s = ?, energy_block_j = ?, energy_block_s = ?, "
                         "energy_block_steps = ?, energy_problem = ? WHERE id = ?");
        st.bind(1, e.firstStepJoules).bind(2, e.firstStepSeconds).bind(3, e.blockJoules).bind(4, e.blockSeconds);
        st.bind(5, e.blockJoules ? std::optional<std::int64_t>(e.blockSteps) : std::nullopt);
        st.bindTextOrNull(6, e.problem).bind(7, runId).run();
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

void Database::setProfile(std::int64_t runId, const std::string &json)
{
    if (d->version < 8)
        return; // older files (tests of migrations) lack the column
    d->enqueue([runId, json](sqlite3 *db) {
        Statement st(db, "UPDATE runs SET profile = ? WHERE id = ?");
        st.bind(1, json).bind(2, runId).run();
    });
}

void Database::setCompileCache(std::int64_t runId, const std::string &state, const std::string &dirsJson)
{
    d->enqueue([runId, state, dirsJson](sqlite3 *db) {
        Statement st(db, "UPDATE runs SET compile_cache = ?, cache_dirs = ? WHERE id = ?");
        st.bindTextOrNull(1, state).bind(2, dirsJson).bind(3, runId).run();
    });
}

void Database::setMachineWarmup(std::int64_t runId, MachineWarmup state)
{
    if (d->version < 6)
        return; // older files (tests of migrations) lack the column
    d->enqueue([runId, token = std::string(toString(state))](sqlite3 *db) {
        Statement st(db, "UPDATE runs SET machine_warmup = ? WHERE id = ?");
        st.bindTextOrNull(1, token).bind(2, runId).run();
    });
}

void Database::setCacheRecord(std::int64_t runId, const CacheRecord &record)
{
    if (d->version < 7)
        return; // older files (tests of migrations) lack the column
    d->enqueue([runId, json = toJson(record)](sqlite3 *db) {
        Statement st(db, "UPDATE runs SET cache_record = ? WHERE id = ?");
        st.bind(1, json).bind(2, runId).run();
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

void Database::finishSweep(std::int64_t sweepId, SweepStatus status)
{
    // A finished sweep is what a user copies away: its rows go from the write-ahead log into the
    // file right after they commit, so that the file alone holds it (issue 34).
    Impl::Command command{[sweepId, status](sqlite3 *db) {
                              Statement st(db, "UPDATE sweeps SET status = ? WHERE id = ?");
                              st.bind(1, toString(status)).bind(2, sweepId).run();
                          },
                          {}};
    command.checkpointAfter = true;
    d->enqueue(std::move(command));
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
    // The traces its runs kept (supervisor/run_profile.h) go too, once the rows are gone for good:
    // a delete that rolls back keeps them, and no later run with a reused id finds one.
    auto traces = std::make_shared<std::vector<std::string>>();
    Impl::Command command;
    command.work = [sweepId, hasSummaries, traces](sqlite3 *db) {
        // A sweep that some process is running now is its: deleting it would fail that process's next
        // write (a run of no sweep) and take what it measures. Checked in the deleting transaction.
        if (const std::string owner = liveSweepOwner(db, sweepId); !owner.empty())
            throw StoreError(StoreError::Kind::Io, "sweep " + std::to_string(sweepId) + " is being run now by " +
                                                       owner + "; stop it there first. Nothing was deleted.");
        // Children first: the foreign keys refuse orphans rather than cascade, so a stray delete
        // elsewhere can never silently take measurements with it.
        if (hasSummaries) {
            Statement st(db, "DELETE FROM summaries WHERE run_id IN (SELECT id FROM runs WHERE sweep_id = ?)");
            st.bind(1, sweepId).run();
        }
        if (queryInt(db, "PRAGMA user_version") >= 8) {
            // The trace and the memory snapshot (profile/memory_timeline.h) each run kept.
            for (const char *path : {"$.trace_file", "$.memory.file"}) {
                const std::string sql = std::string("SELECT json_extract(profile, '") + path +
                                        "') FROM runs WHERE sweep_id = ? AND json_valid(profile) AND "
                                        "json_extract(profile, '" + path + "') IS NOT NULL";
                Statement kept(db, sql.c_str());
                kept.bind(1, sweepId);
                while (kept.step())
                    traces->push_back(kept.text(0));
            }
        }
        Statement steps(db, "DELETE FROM steps WHERE run_id IN (SELECT id FROM runs WHERE sweep_id = ?)");
        steps.bind(1, sweepId).run();
        if (queryInt(db, "PRAGMA user_version") >= 9) {
            Statement ranks(db, "DELETE FROM rank_steps WHERE run_id IN (SELECT id FROM runs WHERE sweep_id = ?)");
            ranks.bind(1, sweepId).run();
        }
        Statement runs(db, "DELETE FROM runs WHERE sweep_id = ?");
        runs.bind(1, sweepId).run();
        Statement sweep(db, "DELETE FROM sweeps WHERE id = ?");
        sweep.bind(1, sweepId).run();
    };
    command.afterCommit = [traces, database = d->path] { removeKeptTraces(database, *traces); };
    d->enqueue(std::move(command));
}

} // namespace stepscope::store
