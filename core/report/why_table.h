#pragma once
// The Why table (issue 18.2): for each row of a ledger, where its step goes (GPU busy against the
// timed step), how many kernels it launches, its verdict in words with the knobs that address it,
// and what it computes against the GPU's peak. The CLI's `why`, the Markdown export, the report
// and the dashboard's Why page all read this.
#include "profile/why.h"
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
    // The profiler's FLOP counters (forward ops) against the layer count's forward FLOPs, both per
    // step: a check of report/compute.h. Ratio 1.0 is agreement.
    std::optional<double> flopCheckRatio;
};

std::vector<WhyRow> whyRows(const Ledger &ledger);

// Plain text for a terminal: one block per row.
std::string whyText(const Ledger &ledger, std::size_t topKernels = 3);
// Markdown: one table, then each row's top kernels.
std::string whyMarkdown(const Ledger &ledger, std::size_t topKernels = 3);

} // namespace stepscope::report
