#pragma once
// A finished sweep written straight into a database through store::Database, as the supervisor
// would have stored it, without any worker: for benchmarks of what the dashboard does with a large
// file (a 7-configuration x 3-repeat ledger at 100,000 steps a run is 2.1 million step rows).
#include "store/store.h"

#include <cstdint>
#include <functional>

namespace stepscope::bench
{

struct SyntheticSweep {
    int repeats = 3;
    int stepsPerRun = 100000; // rows per run, step 1 included
    // Called once the sweep and its queued runs exist (sweep id, total runs), before each run is
    // written and after it is committed (run id, 0-based position, total runs): a benchmark can play
    // the part of the controller's sweepStarted, runStarted and runFinished signals.
    std::function<void(std::int64_t, int)> planned;
    std::function<void(std::int64_t, int, int)> runStarting;
    std::function<void(std::int64_t, int, int)> runWritten;
};

// Writes a CUDA ledger sweep of 7 configurations (baseline, +tf32, +cudnn-bench, +bf16,
// +channels-last, +cuda-graph, +sgd-fused), repeats interleaved, with an environment record, the
// runs' summaries and the sweep marked complete. Step times are deterministic (fixed seed): a
// decaying warm-up, then a steady level per configuration with ~2% noise. Returns the sweep id.
std::int64_t writeSyntheticSweep(store::Database &db, const SyntheticSweep &spec = {});

} // namespace stepscope::bench
