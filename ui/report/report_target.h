#pragma once
// Where a report may go and what it is written as, read from the file name alone: the dashboard's
// exports and `stepscope --report` refuse the same targets with the same words.
#include <QString>

#include <optional>

namespace stepscope::ui
{

enum class ReportFormat { Html, Pdf, Markdown, Csv };

// The format a file name asks for (its suffix); nullopt and *error for any other.
std::optional<ReportFormat> reportFormatOf(const QString &path, QString *error);

// Why `path` may not be written: it is one of `database`'s own files (the database, its -wal,
// -shm or -journal, or a link to one: store::databaseFileBehind); else empty.
QString refusedReportTarget(const QString &path, const QString &database);

} // namespace stepscope::ui
