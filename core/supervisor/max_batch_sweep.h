#pragma once
// A max-batch sweep (issue 31.3: `run --max-batch`, the panel's "Largest batch that fits"): for each
// configuration the largest batch that fits, found by short processes, one try each, stored as the
// sweep's runs like any other. The rule that picks the next try and reads the answer is
// report/max_batch_search.h; here are the tries as processes (their shape, the request's rules) and
// as stored runs: the searches of a sweep are read back from its runs, by the sweep runner (which try
// comes next) and by the reports alike, so that nothing of a search lives outside the store.
#include "config/run_config.h"
#include "report/max_batch_search.h"
#include "store/store.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stepscope::supervisor
{

struct SweepRequest;

// The measured steps of a try after its first: enough for a CUDA graph tree to record and replay and
// for an optimizer's state to exist, and short, since a try times nothing.
inline constexpr int kMaxBatchTrySteps = 3;

// `config` as a try at `batch`: no warm-up, kMaxBatchTrySteps steps.
RunConfig maxBatchTry(RunConfig config, int batch);

// The request's problems as a max-batch sweep ("max-batch: ..."), none when it is not one. Its repeats
// and start states are withDefaults' to set (one fresh process a try): the dashboard greys them out,
// the CLI refuses them as flags (run_command.cpp).
std::vector<ConfigError> maxBatchProblems(const SweepRequest &request);

// Whether a stored sweep is a max-batch search (its settings say so).
bool isMaxBatchSweep(const store::SweepRecord &sweep);

// One configuration's search read from a sweep's runs.
struct MaxBatchSearch {
    RunConfig config;    // at its start batch, as a try
    std::string label;   // its canonical name without the batch
    int startBatch = 0;
    std::vector<report::MaxBatchTry> tries;   // the ended runs, in the order they ran
    std::vector<std::int64_t> runIds;          // of `tries`, index for index
    bool pending = false;                      // a try is queued or running
    std::optional<double> limitBytes;          // what the peaks are held against
    std::string limitText;                     // "memory_limit_mib 2048", "cuda:0's 143,771 MiB", "unknown"
    report::MaxBatchState state;
};

// A stored try as the search reads it: fits (with its peaks), out of memory, or failed in its own
// words; its seconds leave out a compile's own (the cap on seconds is the search's, not the compile's).
report::MaxBatchTry maxBatchTryOf(const store::RunRecord &run, int batch);

// Every configuration's search in `sweepId`, in the order the sweep planned them.
std::vector<MaxBatchSearch> maxBatchSearches(const store::Reader &reader, std::int64_t sweepId,
                                             const report::MaxBatchLimits &limits = {});

// A batch scan bounded by a max-batch sweep's answers (issue 31.3: the search feeds the scan). A
// configuration is left out at every batch at or above the smallest its search saw run out of
// memory; a batch between its answer and that try was not tried and runs. A configuration the
// search did not cover runs at every batch. `note` says each of these. None, with `errors`, when the
// sweep is not a max-batch search, when the scan's first batch would lose a configuration (the
// baseline is found there), or when nothing is left to run.
struct FitBound {
    std::vector<RunConfig> kept;
    std::string note;
};
std::optional<FitBound> boundByMaxBatch(const store::Reader &reader, std::int64_t maxBatchSweep,
                                        const std::vector<RunConfig> &scan, std::vector<ConfigError> &errors);

// One search in a line, for the dashboard and the Markdown's notes: "native cuda 224px c1000 bf16: fits
// 512 (9,120 MiB at peak); 538 runs out of memory (the +5% check); 5 tries, 41 s".
std::string maxBatchLine(const MaxBatchSearch &search, const report::MaxBatchLimits &limits = {});

// The Markdown section "Largest batch that fits": per configuration the answer, its failing +5% check,
// the tries, their time and the peak at the answer, or the bracket and what stopped it.
std::string maxBatchMarkdown(const std::vector<MaxBatchSearch> &searches, const report::MaxBatchLimits &limits = {});

} // namespace stepscope::supervisor
