// Runs and sweeps left `running` by a process that is gone: whose owner still lives (on this host by
// its process, elsewhere by its heartbeat), and marking the rest interrupted when a file is opened.
#include "store/store_internal.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <signal.h>
#include <unistd.h>

namespace stepscope::store
{

std::string hostName()
{
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0)
        return {};
    return buf;
}

namespace
{

bool processAlive(std::int64_t pid)
{
    if (pid <= 0 || pid > std::numeric_limits<pid_t>::max())
        return false;
    // EPERM means it exists but belongs to someone else: still alive.
    return kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
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

} // namespace

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

} // namespace stepscope::store
