#pragma once
// The dashboard report's torch.compile section as HTML, from the table core/report/compile_table.h
// makes (the CLI's Markdown export prints the same table).
#include "report/compile_table.h"

#include <QString>

#include <vector>

namespace stepscope::ui
{

using report::CompileReportRow;
enum class ReportMedium;
QString compileReportHtml(const std::vector<CompileReportRow> &rows, const report::Ledger &ledger, ReportMedium medium,
                          int printTextWidth = 0);

} // namespace stepscope::ui
