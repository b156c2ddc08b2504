#include "report/number_text.h"

#include <cstdio>
#include <locale.h>
#if defined(__APPLE__)
#include <xlocale.h>
#endif

namespace stepscope::report
{

std::string formatNumber(const char *printfFormat, double value)
{
    char buf[64];
#if defined(_WIN32)
    static const _locale_t c = _create_locale(LC_NUMERIC, "C");
    _snprintf_l(buf, sizeof buf, printfFormat, c, value);
#else
    // A C locale for this thread only while formatting: the process locale stays the user's, and
    // other threads (the dashboard's) are not disturbed.
    static const locale_t c = newlocale(LC_NUMERIC_MASK, "C", static_cast<locale_t>(0));
    const locale_t previous = uselocale(c);
    std::snprintf(buf, sizeof buf, printfFormat, value);
    uselocale(previous);
#endif
    return buf;
}

std::string groupThousands(long long value)
{
    const bool negative = value < 0;
    std::string digits = std::to_string(negative ? -static_cast<unsigned long long>(value) : value);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return negative ? "-" + out : out;
}

std::string csvField(const std::string &s)
{
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string out = "\"";
    for (char c : s)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string markdownCell(const std::string &text)
{
    std::string out;
    for (char c : text)
        out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
    return out;
}

} // namespace stepscope::report
