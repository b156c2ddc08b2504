#pragma once
// The report of a stored sweep. The dashboard's File › Export report and `stepscope --report` write
// the same document from the same pieces: the ledger as report::buildLedger reads it
// (reportInputOf), the charts drawn from it (renderReportCharts), and writeSweepReport, which adds
// the torch.compile section from the store and writes the file. The dashboard spreads them over
// its threads (ReportExport, ReportJob); writeStoredSweepReport runs them in a row.
#include "report/report_writer.h"

#include <QString>

namespace stepscope::store
{
class Reader;
}

namespace stepscope::ui
{

// Fills input.compile from `reader` and writes `path` as `format` (writeReport). Any thread.
bool writeSweepReport(const store::Reader &reader, ReportInput input, const QString &path, ReportFormat format,
                      QString *error = nullptr);

// Writes the report of sweep `sweepId` of the database file `database` (0: its latest sweep) to
// `path`, whose suffix picks the format, reading the database only. Refused, with *error saying
// what to do, for a target that is one of the database's own files, an unknown suffix, a database
// that cannot be read, an unknown sweep or a file that cannot be written. *reported, when given,
// gets the sweep written. The charts are drawn by widgets: call it on the GUI thread of a
// QApplication (the offscreen platform will do).
bool writeStoredSweepReport(const QString &database, qint64 sweepId, const QString &path, QString *error = nullptr,
                            qint64 *reported = nullptr);

} // namespace stepscope::ui
