#include "report/sweep_report.h"

#include "report/report_text.h"
#include "report/report_charts.h"
#include "store/store.h"

#include <QCoreApplication>
#include <QDir>

namespace stepscope::ui
{
namespace
{

using report_text::tr;

bool fail(QString *error, const QString &message)
{
    if (error)
        *error = message;
    return false;
}

} // namespace

bool writeSweepReport(const store::Reader &reader, ReportInput input, const QString &path, ReportFormat format,
                      QString *error)
{
    try {
        input.compile = report::compileReportRows(reader, input.ledger);
    } catch (const store::StoreError &) {
        // The report still has the ledger; only the torch.compile section needs the runs.
    }
    return writeReport(input, path, format, error);
}

bool writeStoredSweepReport(const QString &database, qint64 sweepId, const QString &path, QString *error,
                            qint64 *reported)
{
    // What the file name alone refuses, before the database is read.
    if (const QString refused = refusedReportTarget(path, database); !refused.isEmpty())
        return fail(error, refused);
    const auto format = reportFormatOf(path, error);
    if (!format)
        return false;
    try {
        // Read-only: the report never changes the measurements (no summaries stored, no runs
        // marked interrupted); a run without its stored summary is read by the same rule.
        const auto reader = store::Reader::open(database.toStdString());
        if (sweepId <= 0) {
            const auto sweeps = reader->sweeps();
            if (sweeps.empty())
                return fail(error, tr("There is no sweep in %1 to report: run one first (stepscope-cli run), or "
                                      "name another database with --db.")
                                       .arg(QDir::toNativeSeparators(database)));
            sweepId = sweeps.front().id;
        } else if (!reader->sweep(sweepId)) {
            return fail(error, tr("There is no sweep %1 in %2: `stepscope-cli --db %2 list` lists its sweeps.")
                                   .arg(sweepId)
                                   .arg(QDir::toNativeSeparators(database)));
        }
        // The sweep's own planned run length and start state, as the dashboard shows a sweep it opens.
        ReportInput input = reportInputOf(report::buildLedger(*reader, sweepId));
        input.charts = renderReportCharts(input.ledger);
        if (!writeSweepReport(*reader, std::move(input), path, *format, error))
            return false;
    } catch (const store::StoreError &e) {
        return fail(error, QString::fromStdString(store::withFileChoiceHint(e.what(), "with --db FILE")));
    }
    if (reported)
        *reported = sweepId;
    return true;
}

} // namespace stepscope::ui
