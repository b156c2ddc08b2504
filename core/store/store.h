#pragma once
// SQLite storage of sweeps, runs and steps (DESIGN.md "Storage"). Plain C++17 over the sqlite3 C API.
//
// One Database object owns the writer connection and its writer thread: every write is queued and
// the thread commits whatever is queued in one BEGIN IMMEDIATE transaction, so a stream of step
// batches costs one commit per drain, not one per step. Reads go through Reader, on a connection of
// its own (WAL lets readers and the writer work at once).
#include "common/failure.h"
#include "common/energy.h"
#include "common/model_facts.h"
#include "common/steady_problem.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace stepscope::store
{

// Why a file was refused. The file is never modified when open() throws.
class StoreError : public std::runtime_error
{
  public:
    enum class Kind { NotStepscope, Corrupt, TooNew, Io };
    StoreError(Kind kind, const std::string &message) : std::runtime_error(message), kind_(kind) {}
    Kind kind() const { return kind_; }

  private:
    Kind kind_;
};

// The store's messages name the remedy in no front end's words: where it is another file, they say
// this phrase, and each front end adds how its user chooses one (withFileChoiceHint).
inline constexpr char kChooseAnotherFile[] = "choose another database file";
// `message` with `how` ("with --db PATH", "with File › Open database…") after kChooseAnotherFile;
// `message` unchanged where it does not say that phrase.
std::string withFileChoiceHint(const std::string &message, const std::string &how);

struct EnvironmentRecord {
    std::string json; // the worker's full `hello` environment object
    std::string gpu, driver, cuda, cudnn, torch, python, host;
};

// How a sweep stands: running until its runner finishes it (complete, or cancelled by a Stop or by
// Stepscope closing), interrupted when a later open finds it running with no live owner (recovery.cpp).
// Stored as those words in sweeps.status; a sweep that ran to its end is complete whatever its runs
// did (report/sweep_status.h words that for people).
enum class SweepStatus { Running, Complete, Cancelled, Interrupted };
std::string_view toString(SweepStatus s);
// nullopt for a word this build does not know (a newer build's, a hand-edited file's). The store reads
// such a sweep as Interrupted (readSweep): it is not running under this build, and nothing says it ran
// to its end. The word stays in the file; nothing writes it back.
std::optional<SweepStatus> sweepStatusFromString(std::string_view s);

struct SweepRecord {
    std::int64_t id = 0;
    std::string created; // ISO-8601 UTC, filled by the store on insert
    std::string name;
    std::string preset; // "ledger", "each", "custom", ...
    std::int64_t plannedSteps = 0;
    std::string settingsJson; // the sweep's shared settings (device, batch, ...)
    SweepStatus status = SweepStatus::Running;
    // Canonical name (RunRecord::configName) of the configuration every other is compared with
    // (schema 5). Files of older schemas take their first configuration, as before; empty where a
    // reader of an older file or a sweep without runs has none: readers then take the first.
    std::string baselineConfig;
};

// What the machine-wide caches (CUDA JIT, cuDNN's engines, library files) had seen when a run's
// first step ran, as the supervisor knew it (schema 6; files of schema 5 are read from what their
// supervisor wrote then). Stored as "warmed-up", "first-process", "after-others".
enum class MachineWarmup {
    Unrecorded,   // not recorded (older files, runs that never started)
    WarmedUp,     // a discarded warm-up process ran before the sweep's first run
    FirstProcess, // no warm-up: this run was the sweep's first process and paid for those caches
    AfterOthers,  // no warm-up, but earlier processes of the sweep ran first
};
std::string_view toString(MachineWarmup m); // "" for Unrecorded
MachineWarmup machineWarmupFromString(std::string_view s);

// The clock a run's steps were read by: CUDA events on the GPU, else wall time. Stored as "gpu" and
// "wall" (schema 5); Unrecorded in older summaries.
enum class Timing { Unrecorded, Gpu, Wall };
std::string_view toString(Timing t); // "" for Unrecorded
Timing timingFromString(std::string_view s);

// What every cache a run's first step reads held when it started (supervisor/start_caches.h: the
// machine caches and torch.compile's alike). Planned with the run (schema 7); Unrecorded in older
// files, and for a run whose start did not hold (its caches missed: CacheRecord::missed).
//   Fresh    every cache empty and the run's own: a new node or container
//   Shipped  fresh, plus the portable caches an earlier run of the same configuration saved (the
//            torch.compile mega-cache bundle, the CUDA JIT folder): a node built from a team's image
//   Again    the caches as a run of the same configuration left them: a workstation that ran it before
// Stored as "fresh", "shipped", "again"; files of schema 7-9 say "cold" (fresh) and "warm" (again).
enum class StartState { Unrecorded, Fresh, Shipped, Again };
std::string_view toString(StartState s); // "fresh", "shipped", "again"; "" for Unrecorded
StartState startStateFromString(std::string_view s);
inline constexpr StartState kStartStates[] = {StartState::Fresh, StartState::Shipped, StartState::Again};
// `s`, then the states with fewer caches than it, most caches first (again: shipped, fresh; shipped:
// fresh; fresh alone): what a figure of `s` may stand in with, never a state with more caches.
inline std::vector<StartState> stateAndFewerCaches(StartState s)
{
    if (s == StartState::Again)
        return {StartState::Again, StartState::Shipped, StartState::Fresh};
    if (s == StartState::Shipped)
        return {StartState::Shipped, StartState::Fresh};
    return {s};
}
// The state a figure of `s` is shown beside: again for fresh and shipped, fresh for again (and for
// Unrecorded): the two ends a user weighs.
inline StartState otherState(StartState s)
{
    return s == StartState::Again ? StartState::Fresh : StartState::Again;
}

// One cache a run had, and what it held before and after.
struct CacheUse {
    enum class State {
        Fresh,  // an empty folder of the run's own
        Primed,  // filled by an earlier process of the same configuration in this sweep
        Shipped, // empty but for what the configuration's bundle put in (a copied CUDA JIT folder)
    };
    std::string variable; // CUDA_CACHE_PATH, PYTORCH_KERNEL_CACHE_PATH, ...
    std::string path;
    State state = State::Fresh;
    std::int64_t bytesBefore = 0;
    std::int64_t bytesAfter = -1; // -1: not measured (the run never ended under its supervisor)
};
std::string_view toString(CacheUse::State s); // "fresh", "primed", "shipped"

// A cache that an again or shipped start found filled and that grew by more than this compiled what
// it lacked: its first step was not the start it was planned as.
// (The CUDA JIT cache of a ResNet18 step holds some MiB; a hit rewrites no entry.)
constexpr std::int64_t kWarmCacheGrowthBytes = 64 * 1024;

// The torch.compile mega-cache bundle of a shipped start (torch.compiler.load_cache_artifacts),
// as the worker reported loading it: what a shipped start is checked by.
struct BundleUse {
    std::string path;
    std::int64_t bytes = 0;
    int hits = 0;    // FX graphs inductor found in the caches the bundle filled
    int misses = 0;  // FX graphs it compiled anyway
    double loadSeconds = 0;
    bool reported = false; // the worker said how loading went (false: it ended before)
};

struct CacheRecord {
    std::vector<CacheUse> caches;
    // What made the start not the one planned: variables of primed or shipped caches that grew
    // (kWarmCacheGrowthBytes), and "mega-cache" for a bundle that missed or was never reported.
    std::vector<std::string> missed;
    std::optional<BundleUse> bundle; // shipped compiled runs
    // The bundle this run saved for the configuration's shipped runs (bytes; 0: none saved).
    std::int64_t bundleSavedBytes = 0;
    bool warmMissed() const { return !missed.empty(); }
};
std::string toJson(const CacheRecord &record);
std::optional<CacheRecord> cacheRecordFromJson(const std::string &json); // nullopt: empty or unreadable

struct RunRecord {
    std::int64_t id = 0;
    std::int64_t sweepId = 0;
    std::int64_t position = 0;    // order within the sweep (interleaved repeats)
    std::int64_t repeatIndex = 0; // 0-based cold-process repeat of the same configuration
    std::string configName;       // canonical configuration name
    std::string configJson;
    RunStatus status = RunStatus::Queued;
    std::optional<FailureCategory> category;
    std::string message, detail;
    std::optional<std::int64_t> environmentId;
    std::optional<double> setupSeconds, firstStepSeconds;
    std::optional<std::int64_t> peakAllocatedBytes, peakReservedBytes;
    std::vector<double> checkLosses;          // losses of the first steps (accuracy gate)
    std::string started, finished, heartbeat; // ISO-8601 UTC, empty when unset
    std::int64_t stepCount = 0;               // filled by readers
    std::optional<double> blockWallMs;        // mean wall time per step over the timed block
    // torch.compile runs (schema 4; empty in older files and for runs without a compile).
    std::string compileJson;  // the worker's `compile` info object
    // Files of schema 4-9: the compile_cache knob a compiled run had, "cold" or "warm" (startOf reads
    // it); empty for every run since start states took it over.
    std::string compileCache;
    std::string cacheDirs;    // JSON object: env var -> directory (TORCHINDUCTOR_CACHE_DIR, ...)
    MachineWarmup machineWarmup = MachineWarmup::Unrecorded;
    StartState caches = StartState::Unrecorded; // schema 7, written when the run is planned
    std::optional<CacheRecord> cacheRecord;     // schema 7, written when the run ends
    // The profile of the steps after the timed ones, or why there is none (schema 8; JSON that
    // profile/profile_summary.h reads; empty: not profiled, or an older file).
    std::string profileJson;
    // The lane of a sweep over several devices that ran it (schema 9; JSON: device, model, uuid and,
    // for a data-parallel run, every device it held). Empty: a sweep on one device, or an older file.
    std::string laneJson;
    // The model as the worker reported it at setup (schema 10; unrecorded in older files and for
    // runs that failed before it).
    ModelFacts model;
    // The GPU's energy over the first step and the timed steps (schema 11, issue 31.4), or why
    // there is none; not recorded (recorded() false) in older files.
    EnergyReading energy;
};

// The start a run's first step really had: its planned state, or Unrecorded when that did not hold
// (a shipped or again run whose caches missed) or cannot be told (no state recorded; a run of a
// schema 7-9 file whose torch.compile caches, then a knob of the configuration, were in another
// state than its machine caches). Before schema 7 a compiled run's compile cache is its start (cold:
// fresh, warm: again), the one state those files recorded: docs/decisions.md "Start states".
StartState startOf(const RunRecord &run);

// The one reading of a run's steps: its steady window and the figures over it, computed when the
// run completes and again when the rule that computes it changes (methodVersion; the rule lives in
// core/report/run_summary.h, the store only keeps what it computed). Every view reads this, and the
// ledger pools the steps inside each run's window. Figures are empty without a steady state.
struct RunSummary {
    std::optional<double> medianMs, p10Ms, p90Ms, iqrMs, madMs, cv;
    std::int64_t steadyBegin = 0; // first step of the window (2 = right after the first step)
    std::int64_t steadyCount = 0;
    std::string noise; // stats::toString(Noise): "ok", "noisy", "unreliable"; empty without a steady state
    std::optional<SteadyProblem> problem; // why there is no steady state (schema 6)
    Timing timing = Timing::Unrecorded;   // Unrecorded in summaries of schema < 5
    int methodVersion = 0;                // the rule's version that computed it; 0 for summaries of schema < 5
};

struct StepRow {
    std::int64_t index = 0;      // 1 = the first step
    std::optional<double> gpuMs; // CUDA-event time; none on CPU
    double wallMs = 0;
};

// One step of one rank of a data-parallel run (schema 9); the run's `steps` hold the slowest rank.
struct RankStepRow {
    int rank = 0;
    std::int64_t index = 0;
    std::optional<double> gpuMs;
    double wallMs = 0;
};

struct OpenOptions {
    bool create = true;   // create the file when missing
    int migrateUpTo = -1; // -1: latest schema; tests use lower versions to check migrations
};

class Database
{
  public:
    // Opens (or creates) a Stepscope database. Refuses, with StoreError and without touching the
    // file, anything that is not one: another SQLite file, a corrupt file, a newer schema.
    // On success, stale `running` runs (owner process gone, or heartbeat older than two minutes)
    // become `interrupted`, and so do sweeps whose runs' process (before any started: the process
    // that planned them) is gone.
    static std::unique_ptr<Database> open(const std::string &path, const OpenOptions &options = {});
    // Flushes, copies the write-ahead log into the file (the file alone is then the whole database,
    // unless a reader held the log past a short wait: SQLite replays what stays there), and joins
    // the writer thread.
    ~Database();

    static int latestSchemaVersion();
    int schemaVersion() const;
    const std::string &path() const;

    // Synchronous writes that return the new row id (they go through the writer thread too).
    std::int64_t addEnvironment(const EnvironmentRecord &env);
    std::int64_t createSweep(const SweepRecord &sweep);
    std::int64_t createRun(const RunRecord &run); // status from the record (normally queued)
    // A sweep and its runs in one transaction: both are there, or neither, so that a kill while a
    // sweep is planned never leaves one without its runs. Each run's sweepId is set to the new
    // sweep's; `runIds` receives their ids in order. Returns the sweep's id.
    std::int64_t createSweepWithRuns(const SweepRecord &sweep, const std::vector<RunRecord> &runs,
                                     std::vector<std::int64_t> &runIds);

    // Queued writes: return at once, committed in the next batch.
    void markRunning(std::int64_t runId); // status running, started, owner pid, heartbeat
    void appendSteps(std::int64_t runId, const std::vector<StepRow> &steps); // also bumps heartbeat
    void appendRankSteps(std::int64_t runId, int rank, const std::vector<StepRow> &steps);
    void setLane(std::int64_t runId, const std::string &json);
    // Bumps the heartbeat alone: an owner that spends minutes between steps (torch.compile, warm-up)
    // calls it so that other processes opening the file do not take the run for stale.
    void heartbeat(std::int64_t runId);
    void setEnvironment(std::int64_t runId, std::int64_t environmentId);
    void setSetup(std::int64_t runId, double setupSeconds);
    void setFirstStep(std::int64_t runId, double firstStepSeconds);
    void setMemory(std::int64_t runId, std::int64_t peakAllocated, std::int64_t peakReserved);
    void setCheckLosses(std::int64_t runId, const std::vector<double> &losses);
    void setModelFacts(std::int64_t runId, const ModelFacts &facts);
    void setEnergy(std::int64_t runId, const EnergyReading &energy);
    void setBlockWall(std::int64_t runId, double meanWallMs);
    void setSummary(std::int64_t runId, const RunSummary &summary);
    void setCompileInfo(std::int64_t runId, const std::string &json);
    void setProfile(std::int64_t runId, const std::string &json); // profile/profile_summary.h's JSON
    // state "cold" or "warm"; dirsJson: {"TORCHINDUCTOR_CACHE_DIR": ..., "TRITON_CACHE_DIR": ..., ...}
    // The folders every cache of the run was pointed at (JSON: variable -> folder).
    void setCacheDirs(std::int64_t runId, const std::string &dirsJson) { setCompileCache(runId, {}, dirsJson); }
    // What files of schema 4-9 wrote: the compile_cache knob too (tests write such rows with it).
    void setCompileCache(std::int64_t runId, const std::string &state, const std::string &dirsJson);
    void setMachineWarmup(std::int64_t runId, MachineWarmup state);
    void setCacheRecord(std::int64_t runId, const CacheRecord &record);
    void finishRun(std::int64_t runId, RunStatus status, const std::optional<Failure> &failure = std::nullopt);
    void finishSweep(std::int64_t sweepId, SweepStatus status); // then checkpoints, as the destructor does
    void renameSweep(std::int64_t sweepId, const std::string &name);
    void deleteSweep(std::int64_t sweepId); // with its runs and steps

    // Blocks until every queued write is committed; rethrows a write error (e.g. disk full) as StoreError.
    void flush();
    // flush() without the wait: throws, at once, the failure of a queued write committed so far
    // (disk full), or the file found deleted or replaced under the writer (checked at every commit;
    // every write fails from then on, and flush() says so too). A long run learns of either without
    // waiting for its end.
    void check();

  private:
    struct Impl;
    explicit Database(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> d;
};

// Read-only access on its own connection. Same refusal rules as Database::open, never creates.
class Reader
{
  public:
    static std::unique_ptr<Reader> open(const std::string &path);
    ~Reader();
    // The database file it reads: the files kept beside it (traces) are found from it.
    const std::string &path() const;

    std::vector<SweepRecord> sweeps() const; // newest first
    std::optional<SweepRecord> sweep(std::int64_t id) const;
    std::vector<RunRecord> runs(std::int64_t sweepId) const; // by position
    std::optional<RunRecord> run(std::int64_t runId) const;
    std::vector<StepRow> steps(std::int64_t runId) const;         // by index
    std::vector<RankStepRow> rankSteps(std::int64_t runId) const; // by rank, then index; empty before schema 9
    std::optional<RunSummary> summary(std::int64_t runId) const;
    // Completed runs whose summary is missing or was computed by a rule older than methodVersion.
    std::vector<std::int64_t> runsNeedingSummary(int methodVersion) const;
    std::optional<EnvironmentRecord> environment(std::int64_t id) const;

  private:
    struct Impl;
    explicit Reader(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> d;
};

} // namespace stepscope::store
