// Runs and sweeps left `running` by a process that is gone: whose owner still lives (on this host by
// its process, elsewhere by its heartbeat), and marking the rest interrupted when a file is opened.
#include "store/store_internal.h"

#include "platform/platform.h"

#include <string>
#include <vector>

namespace stepscope::store
{

namespace
{

// What recovery writes on runs that never started because their sweep's process went away.
constexpr const char *kNeverStarted = "not run: the sweep's process ended before this run started";

// When the process `pid` started, as ISO-8601 UTC, less `slack`; empty where the system cannot say.
// Sets `zombie` for a process that has ended but not yet been reaped.
std::string processStartUtc(std::int64_t pid, std::chrono::seconds slack, bool &zombie)
{
    const platform::ProcessStart start = platform::processStart(pid);
    zombie = start.ended;
    return start.time ? isoUtc(*start.time - slack) : std::string();
}

// Whether the process that marked a run `running` at `started` on this host still lives. A stopped
// one (Ctrl-Z) does: it may be resumed any time, so however old its heartbeat, its run is not stale.
// A zombie does not, nor a later process that was given the same pid: the owner started before the
// run did (the boot time /proc gives is whole seconds, hence the slack).
bool ownerAlive(std::int64_t pid, const std::string &started)
{
    if (!platform::processExists(pid))
        return false;
    bool zombie = false;
    const std::string processStarted = processStartUtc(pid, std::chrono::seconds(30), zombie);
    if (zombie)
        return false;
    return processStarted.empty() || started.empty() || processStarted <= started;
}

} // namespace

// Runs and sweeps left `running` by an owner that is gone. On this host the owner's process settles
// it (alive, even stopped: not stale); elsewhere only the heartbeat can tell. A sweep with no run
// running is over when the process that ran its runs is gone, or (none started) when it is older
// than the heartbeat's limit; its runs still queued then never will run. Steps stay: they were
// measured and committed.
namespace
{

// The owner of a row lives: on this host by its process, elsewhere by a recent sign of life.
bool rowOwnerAlive(const Statement &st, int pidCol, int hostCol, int startedCol, int lastSignCol)
{
    static const std::string host = platform::hostName();
    const std::string cutoff = isoUtc(std::chrono::system_clock::now() - kStaleAfter);
    if (!host.empty() && !st.isNull(pidCol) && st.text(hostCol) == host)
        return ownerAlive(st.int64(pidCol), st.text(startedCol));
    return !st.isNull(lastSignCol) && st.text(lastSignCol) >= cutoff;
}

} // namespace

std::string liveSweepOwner(sqlite3 *db, std::int64_t sweepId)
{
    // The process driving a running sweep owns its running run, else its latest started one, else
    // (none started) the process that planned its runs.
    Statement st(db, "SELECT r.owner_pid, r.owner_host, coalesce(r.started, s.created), "
                     "max(s.created, coalesce(r.heartbeat, ''), coalesce(r.finished, '')) "
                     "FROM sweeps s LEFT JOIN runs r ON r.id = (SELECT id FROM runs WHERE sweep_id = s.id AND "
                     "(started IS NOT NULL OR owner_pid IS NOT NULL) ORDER BY status = 'running' DESC, "
                     "started IS NOT NULL DESC, started DESC, id DESC LIMIT 1) "
                     "WHERE s.id = ? AND s.status = 'running'");
    st.bind(1, sweepId);
    if (!st.step() || !rowOwnerAlive(st, 0, 1, 2, 3))
        return {};
    return st.isNull(0) ? std::string("a process that has not started a run yet")
                        : "process " + std::to_string(st.int64(0)) + " on " + st.text(1);
}

void interruptStaleRuns(sqlite3 *db)
{
    const auto alive = rowOwnerAlive;
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
        // owner of its latest started run; before any run started, the process that planned its runs
        // (which started before the sweep was created: a later process given its pid is not it).
        // Only a sweep without runs, or planned by an older build, is judged by its age alone.
        std::vector<std::int64_t> staleSweeps;
        {
            Statement st(db, "SELECT s.id, r.owner_pid, r.owner_host, coalesce(r.started, s.created), "
                             "max(s.created, coalesce(r.heartbeat, ''), coalesce(r.finished, '')) "
                             "FROM sweeps s LEFT JOIN runs r ON r.id = (SELECT id FROM runs WHERE sweep_id = s.id AND "
                             "(started IS NOT NULL OR owner_pid IS NOT NULL) "
                             "ORDER BY started IS NOT NULL DESC, started DESC, id DESC LIMIT 1) "
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

} // namespace stepscope::store
