#pragma once
// Numbers as text for files other programs read (CSV, JSON, Markdown, HTML): always a decimal point,
// whatever the user's locale. QCoreApplication sets the C library's locale from the environment, and
// printf then writes "1,87" under de_DE, which splits CSV fields and breaks JSON.
#include <string>

namespace stepscope::report
{

// printf-style formatting of one double ("%.4g", "%.2fx", ...) in the C locale, thread-safe.
std::string formatNumber(const char *printfFormat, double value);

// 12,345 and 1,234,567: thousands grouped with commas, as the rest of Stepscope's English text.
std::string groupThousands(long long value);

// A field of a CSV file: quoted (quotes doubled) when it holds a comma, a quote or a newline.
std::string csvField(const std::string &text);
// A cell of a Markdown table: '|' escaped, newlines as spaces.
std::string markdownCell(const std::string &text);

} // namespace stepscope::report
