#pragma once
// The words every report file needs: its translation context ("Report", one for all report text so
// that a translator finds it together) and HTML escaping for text from the store. Defined here once;
// each report file says `using` them.
#include <QCoreApplication>
#include <QString>

#include <string>

namespace stepscope::ui::report_text
{

inline QString tr(const char *text)
{
    return QCoreApplication::translate("Report", text);
}

inline QString esc(const QString &s)
{
    return s.toHtmlEscaped();
}

inline QString esc(const std::string &s)
{
    return QString::fromStdString(s).toHtmlEscaped();
}

} // namespace stepscope::ui::report_text
