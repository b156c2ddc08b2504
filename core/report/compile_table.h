#pragma once
// The torch.compile table of a sweep: per compiled configuration of the ledger, the start state of
// its first step, first step, compile time and phases, graphs, breaks and recompiles, and what the
// ledger is read for: the break-even against the baseline in each start state it ran, and against
// Python eager with the same knobs. The per-run compile records come from the store (the ledger
// keeps figures, not the worker's record). The CLI's Markdown export and the dashboard's report
// (ui/report/compile_report.h, its HTML) both read it from here.
#include "report/compile_breakeven.h"
#include "report/compile_record.h"
#include "report/ledger.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace stepscope::report
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
    // buys, without the Python runtime's own cost, with its interval (compileBreakEvens).
    CompileBreakEven vsEager;
};

std::vector<CompileReportRow> compileReportRows(const store::Reader &reader, const Ledger &ledger);

// The findings, one sentence per compiled configuration (after a note when the first row is
// compiled itself): its break-even against the baseline in each start state it ran
// ("compile-reduce-overhead against baseline: fresh pays off after 2,609 steps; again after 299.").
QStringList compileHeadlines(const std::vector<CompileReportRow> &rows, const Ledger &ledger);
// The section as Markdown; empty without compiled configurations.
QString compileReportMarkdown(const std::vector<CompileReportRow> &rows, const Ledger &ledger);

// The cells both media share: seconds or "-", the counts or "-", against eager.
QString compileSecondsCell(const std::optional<double> &seconds);
QString compileCountsCell(const CompileRecord &record);
QString compileVsEagerCell(const CompileReportRow &row);
// The note under the table: what its columns mean.
QString compileTableNote();

} // namespace stepscope::report
