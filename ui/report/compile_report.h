#pragma once
// The report's torch.compile section: per compiled configuration of the ledger, its cache state,
// first step, compile time and phases, graphs, breaks and recompiles, and what the ledger is read
// for: the break-even against the baseline, cold and warm side by side. The per-run compile
// records come from the store (the ledger keeps figures, not the worker's compile record).
#include "models/compile_record.h"
#include "report/compile_breakeven.h"
#include "report/ledger.h"

#include <QString>

#include <optional>
#include <vector>

namespace stepscope::ui
{

struct CompileReportRow {
    std::size_t ledgerRow = 0; // index into Ledger::rows
    QString label;             // the ledger's label
    QString pairKey;           // the configuration's canonical name
    QString cache;             // the start state of its first step: "fresh", "shipped", "again" (or "")
    CompileRecord record;      // of the first completed repeat (else the first that reported one)
    int runs = 0, notCompiled = 0;
    QString notCompiledText; // "NOT compiled: ..." of the first such repeat
    // Against the Python eager row with the same knobs, when the ledger has it: what compile alone
    // buys, without the Python runtime's own cost, with its interval (report::compileBreakEvens).
    report::CompileBreakEven vsEager;
};

std::vector<CompileReportRow> compileReportRows(const store::Reader &reader, const report::Ledger &ledger);

// The findings, one sentence per compiled configuration (after a note when the first row is compiled
// itself): cold and warm break-even against the
// baseline ("compile-reduce-overhead: cold never pays off against the baseline; warm after 310 steps.").
QStringList compileHeadlines(const std::vector<CompileReportRow> &rows, const report::Ledger &ledger);
// The section as HTML (empty without compiled configurations) and as Markdown.
enum class ReportMedium;
QString compileReportHtml(const std::vector<CompileReportRow> &rows, const report::Ledger &ledger, ReportMedium medium,
                          int printTextWidth = 0);
QString compileReportMarkdown(const std::vector<CompileReportRow> &rows, const report::Ledger &ledger);

} // namespace stepscope::ui
