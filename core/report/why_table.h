#pragma once
// The Why table (issue 18.2): for each row of a ledger, where its step goes (GPU busy against the
// timed step), how many kernels it launches, its verdict in words with the knobs that address it,
// and what it computes against the GPU's peak. The CLI's `why`, the Markdown export, the report
// and the dashboard's Why page all read this.
#include "profile/why.h"
#include "report/batch_scan_verdict.h"
#include "report/ledger.h"

#include <optional>
#include <string>
#include <vector>

namespace stepscope::report
{

struct WhyRow {
    std::size_t row = 0; // index into Ledger::rows
    std::string label;
    std::optional<profile::Verdict> verdict; // none without a profile
    std::string problem;                     // why there is no profile
    const profile::ProfileSummary *profile = nullptr;
    // The row's configuration as stored, what its verdict's advice applies to (profile::applyAdvice);
    // none without a profile.
    std::optional<RunConfig> config;
    // The profiler's FLOP counters (forward ops) against the layer count's forward FLOPs, both per
    // step: a check of report/compute.h. Ratio 1.0 is agreement.
    std::optional<double> flopCheckRatio;
    // The row's kept trace (Perfetto and chrome://tracing open it): its full path when the file is
    // there, else why there is none to open ("not kept: ...", "missing: <path>"). Both empty
    // without a profile: `problem` says why.
    std::string tracePath;
    std::string traceProblem;
    // The row's memory snapshot (LedgerRow::memorySnapshot), for the Why page's "Memory over one step";
    // null for a row never asked for one.
    const profile::StoredMemory *memory = nullptr;
};

std::vector<WhyRow> whyRows(const Ledger &ledger);

// Plain text for a terminal: one block per row.
std::string whyText(const Ledger &ledger, std::size_t topKernels = 3);
// Markdown: one table, then each row's top kernels.
std::string whyMarkdown(const Ledger &ledger, std::size_t topKernels = 3);

// A run's profile for `show RUN` and the run detail: a heading line, then facts (steps profiled,
// busy, kernels, launches, the trace's stored name beside the database, the top kernels), or why
// there is none; empty for a run never profiled.
std::vector<std::string> runProfileLines(const store::RunRecord &run, std::size_t topKernels = 5);

// The verdict across batch sizes (issue 18.5): a sweep of several batches, one ledger per batch,
// read side by side: for each configuration (by its knobs) the step time per image and the GPU's
// busy share at each batch, and each batch's recommendation, so a user sees where launch-bound ends.
struct BatchScan {
    struct Cell {
        int batch = 0;
        std::optional<double> stepMs, perImageMs, busyShare;
        std::optional<profile::Bound> bound;
    };
    struct Row {
        std::string label;
        std::vector<Cell> cells; // one per batch, in `batches` order
    };
    std::vector<int> batches;
    std::vector<Row> rows;
    std::vector<std::string> recommended; // per batch: the recommendation's text, "" without one
    std::vector<BatchVerdict> verdicts;   // per row, in `rows` order: which batch is fastest per sample
};
// Empty `batches` for a sweep of one batch.
BatchScan batchScan(const store::Reader &reader, std::int64_t sweepId, std::int64_t plannedSteps = 0,
                    stats::CancelToken cancel = {});
std::string batchScanText(const BatchScan &scan); // a table, then the verdicts, for a terminal or Markdown

} // namespace stepscope::report
