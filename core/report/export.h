#pragma once
// A ledger as a file other programs read (export.cpp): CSV, JSON and Markdown, numbers in the C
// locale (number_text.h).
#include "report/ledger.h"

#include <string>

namespace stepscope::report
{

std::string toCsv(const Ledger &ledger);
std::string toJson(const Ledger &ledger);
std::string toMarkdown(const Ledger &ledger);

} // namespace stepscope::report
