#pragma once
// The written verdict of a batch scan (issue 35.4): for each configuration, its steady time per
// sample at each batch with the interval over processes, the batch that is fastest per sample
// against the next fastest with the ratio's interval ("no significant difference" when it holds 1),
// and the first step at each batch. The Batch scan page, `stepscope-cli run` and `why` (through
// batchScanText) say it in these words.
#include "stats/stats.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace stepscope::report
{

// One configuration at one batch as the verdict reads it: its row of that batch's ledger.
struct BatchPoint {
    int batch = 0;
    std::optional<double> steadyMs;               // steady step (ms)
    std::optional<stats::MedianCI> steadyCI;      // its interval over processes (ms)
    std::optional<double> firstStepMs;            // at the ledger's start state
    std::vector<stats::ProcessSummary> processes; // what the ratio against another batch resamples
};

struct BatchVerdict {
    struct At {
        int batch = 0;
        std::optional<double> perSampleMs;          // steady step / batch
        std::optional<stats::MedianCI> perSampleCI; // the steady interval / batch (ms)
        std::optional<double> firstStepMs;
    };
    std::string label;
    std::vector<At> at; // in the scan's batch order
    // The batches fastest and next fastest per sample (indices into `at`), and the fastest's time per
    // sample over the next's with its interval: below 1, and significant only when the interval is.
    std::optional<std::size_t> fastest, next;
    std::optional<stats::RatioCI> ratio;
};

// Runs one bootstrap (the two fastest batches' processes); `cancel` as buildLedger's.
BatchVerdict batchVerdictOf(const std::string &label, const std::vector<BatchPoint> &points,
                            stats::CancelToken cancel = {});

// What the scan says of the configuration: "b4 is 1.80x faster per sample than b2 (95% CI
// 1.62-2.01x)", "no significant difference per sample between b4 and b2 (...)", or why there is no
// verdict.
std::string batchVerdictHeadline(const BatchVerdict &verdict);
// Its figures at each batch: "b2: 5.00 ms per sample (95% CI 4.95-5.05), first step 2.00 s; b4: ...".
std::string batchVerdictFigures(const BatchVerdict &verdict);
// "label: headline. Figures." on one line, for a terminal or Markdown.
std::string batchVerdictText(const BatchVerdict &verdict);

} // namespace stepscope::report
