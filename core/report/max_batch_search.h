#pragma once
// The largest batch that fits (issue 31.3): the search's rule, apart from processes and the store, so
// that a test drives it against a fake boundary, the sweep runner asks it which try comes next and the
// reports ask it what the tries found (one rule for all three).
//
// Start at the configuration's batch; double while tries fit (divide by 8 while they run out of
// memory) until a fit and an out-of-memory bracket the answer; then narrow the bracket geometrically until the
// failing batch is at most ceil(fits * 1.05): that failing try is the +5% check of the answer. Where
// two fitting tries have a peak memory and the limit is known, the peak (allocated where known) is taken as linear in the
// batch and the next try aims just under where it meets the limit (after one fit, a try a quarter up
// gives the line its second point), so that the 8-try cap holds when
// the answer is far from the start; once a try contradicts that line (an aim that ran out of memory,
// a check that fitted) the search bisects. A failure that is not out-of-memory ends the search with
// its own words, never as a fit or an out-of-memory; a cap (tries, seconds) ends it with the bracket
// it has, said as such.
//
// Plain C++: tries come in as values (their order is the order they ran).
#include <optional>
#include <string>
#include <vector>

namespace stepscope::report
{

struct MaxBatchTry {
    enum class Result { Fits, OutOfMemory, Failed };
    int batch = 0;
    Result result = Result::Fits;
    // The peak a fitting try's worker measured (the allocator's reserved, else allocated); none where
    // the worker reports none (the CPU).
    std::optional<double> peakBytes;
    double seconds = 0;  // the process's wall time
    std::string failure; // Failed: "compile-failed: ...", in the run's own words
    // The allocator's allocated peak, where the worker reports it beside reserved. The line that aims
    // the next try runs through these: allocated grows with the batch in a straight line, while
    // reserved comes in segments and, near a set limit, sits at the limit whatever the batch (the
    // allocator frees its cache and retries before it fails), so a line through reserved peaks lies.
    std::optional<double> allocatedBytes{};
};

struct MaxBatchLimits {
    int maxTries = 8;
    double maxSeconds = 120; // per configuration, summed over its tries
    double tolerance = 0.05; // the answer is within this of the true largest batch
    int largestBatch = 4096; // the configuration table's largest batch
    // The smallest batch the configuration runs at all (batch norm needs 2 at 32 px): below it a try
    // would be refused, not measured.
    int smallestBatch = 1;
};

struct MaxBatchState {
    enum class Stop {
        Searching,   // `nextBatch` is the next try
        Narrowed,    // `fits` is the answer, `fails` (<= ceil(fits * 1.05)) its failing check
        NothingFits, // the smallest batch it runs ran out of memory
        Ceiling,     // the largest batch the table allows fits: nothing larger can be tried
        TriesUsed,   // the cap on tries stopped it with the bracket `fits` .. `fails`
        TimeUsed,    // the cap on seconds did
        Failed,      // a try failed other than out-of-memory (`failure`, at `failedBatch`)
    };
    Stop stop = Stop::Searching;
    int nextBatch = 0;
    std::optional<int> fits;  // the largest batch that fitted
    std::optional<int> fails; // the smallest batch above it that ran out of memory
    std::optional<double> peakAtAnswer; // the peak of the try at `fits`, where measured
    int tries = 0;
    double seconds = 0;
    std::string failure;
    int failedBatch = 0;
};

// ceil(batch * (1 + tolerance)), at least batch + 1: the batch whose running out of memory checks an
// answer of `batch`.
int checkBatch(int batch, double tolerance);

// Where the search stands after `tries` (in the order they ran) of a configuration whose own batch is
// `startBatch`; `limitBytes` is the memory the peaks are held against (a set limit, else the device's
// own), none where unknown.
MaxBatchState maxBatchState(int startBatch, const std::vector<MaxBatchTry> &tries,
                            std::optional<double> limitBytes, const MaxBatchLimits &limits = {});

// The outcome in one sentence: "fits 512 (1,234 MiB at peak); 538 runs out of memory", or with a
// cap, "fits 512; 1024 runs out of memory; not narrowed to 5%: 8 tries used".
std::string maxBatchSentence(const MaxBatchState &state, const MaxBatchLimits &limits = {});

} // namespace stepscope::report
