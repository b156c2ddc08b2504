// The schema of a Stepscope database: its migrations, one per version, and how a file is taken
// from the version it has to the one this build writes.
#include "store/store_internal.h"

#include <array>
#include <cstddef>
#include <string>

namespace stepscope::store
{

namespace
{

// One entry per schema version: migration i takes the file from version i to i + 1. Each runs in
// its own transaction together with the user_version bump, so a crash leaves a whole version.
// Never edit a released entry; append a new one.
constexpr std::array<const char *, 11> kMigrations{{
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
    // 6: typed data instead of sentences. The machine warm-up state of a run's first step gets a
    // column of its own (it was a sentence in the environment JSON, read back by the ledger; this
    // is the one place that still reads those sentences, once per file), and a summary's "no steady
    // state" reason is stored as data. Summaries without a steady state held the reason as words
    // only: they are dropped (derived data), so the next refresh computes them again with the reason.
    R"sql(
ALTER TABLE runs ADD COLUMN machine_warmup TEXT;
UPDATE runs SET machine_warmup = )sql" STEPSCOPE_LEGACY_MACHINE_WARMUP R"sql(;
ALTER TABLE summaries ADD COLUMN steady_problem TEXT;
DELETE FROM summaries WHERE median_ms IS NULL OR steady_count = 0;
)sql",
    // 7: machine caches as a dimension of a run (issue 16): which caches its first step found, cold
    // or warm, planned with the run, and what each cache held before and after it (JSON).
    R"sql(
ALTER TABLE runs ADD COLUMN caches TEXT;
ALTER TABLE runs ADD COLUMN cache_record TEXT;
)sql",
    // 8: a run's profile (issue 18): the summary of the steps profiled after its timed ones, or why
    // there is none, and the name of its trace file beside the database (JSON, profile/profile_summary.h).
    R"sql(
ALTER TABLE runs ADD COLUMN profile TEXT;
)sql",
    // 9: several GPUs (issue 21). Which lane of a sweep ran the run (its device, GPU model and UUID,
    // JSON), and the step times of every rank of a data-parallel run; `steps` keeps the slowest rank.
    R"sql(
ALTER TABLE runs ADD COLUMN lane TEXT;
CREATE TABLE rank_steps (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    rank INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    gpu_ms REAL,
    wall_ms REAL NOT NULL,
    PRIMARY KEY (run_id, rank, idx)
) WITHOUT ROWID;
)sql",
    // 10: the model a run trained, as its worker reported it at setup (issue 30.4): its description,
    // its parameters, and one training step's FLOPs with their source, or why they were not counted.
    // Older runs keep NULL: their compute figures come from ResNet18's layers, the one model then.
    R"sql(
ALTER TABLE runs ADD COLUMN model_description TEXT;
ALTER TABLE runs ADD COLUMN parameters INTEGER;
ALTER TABLE runs ADD COLUMN forward_flops REAL;
ALTER TABLE runs ADD COLUMN training_flops REAL;
ALTER TABLE runs ADD COLUMN flops_source TEXT;
ALTER TABLE runs ADD COLUMN flops_problem TEXT;
)sql",
    // 11: energy (issue 31.4): the GPU's total-energy counter around the first step and around the
    // timed steps (common/energy.h), or why a run has none. NULL in older runs: not measured.
    R"sql(
ALTER TABLE runs ADD COLUMN energy_first_j REAL;
ALTER TABLE runs ADD COLUMN energy_first_s REAL;
ALTER TABLE runs ADD COLUMN energy_block_j REAL;
ALTER TABLE runs ADD COLUMN energy_block_s REAL;
ALTER TABLE runs ADD COLUMN energy_block_steps INTEGER;
ALTER TABLE runs ADD COLUMN energy_problem TEXT;
)sql",
}};

static_assert(kApplicationId == 1398034515, "the migration above spells the id in decimal");

static_assert(kLatestVersion == static_cast<int>(kMigrations.size()), "one schema version per migration");

} // namespace

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

int Database::latestSchemaVersion()
{
    return kLatestVersion;
}

} // namespace stepscope::store
