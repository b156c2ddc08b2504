#pragma once
// A sweep's exports with every figure core/report has for it: the ledger (ledger.h's toMarkdown and
// toJson), the compile break-even against eager and the environment assessment. `stepscope-cli
// export` writes these; `show --sweep` prints the same figures.
#include "report/compile_breakeven.h"
#include "report/environment_assessment.h"
#include "report/ledger.h"

#include <string>
#include <vector>

namespace stepscope::report
{

// What a sweep shows beside its ledger.
struct SweepFigures {
    SweepAssessment assessment;
    std::vector<CompileBreakEven> compile;
};
// Reads the sweep's completed runs (their summaries) for the timing rules.
SweepFigures sweepFigures(const store::Reader &reader, const Ledger &ledger);

// The ledger's Markdown, then the compile break-even and what may skew the numbers.
std::string toMarkdown(const Ledger &ledger, const SweepFigures &figures);
// The ledger's JSON with "compile_break_even" (compileBreakEvenJson) and "environment_assessment"
// (assessmentJson) added.
std::string toJson(const Ledger &ledger, const SweepFigures &figures);

} // namespace stepscope::report
