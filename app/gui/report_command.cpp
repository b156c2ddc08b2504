#include "report_command.h"

#include "pages/stored_comparison_report.h"
#include "report/sweep_report.h"

#include <QDir>

#include <cstdio>

namespace
{

// A sweep number: a whole number above 0. "abc" must not read as 0, which would report the latest
// sweep instead of refusing.
bool sweepNumber(const QString &text, qint64 &id)
{
    bool number = false;
    id = text.trimmed().toLongLong(&number);
    return number && id >= 1;
}

bool haveDatabase(const QString &database)
{
    if (!database.isEmpty())
        return true;
    std::fprintf(stderr, "stepscope: no database to report from: HOME is not set (nor XDG_DATA_HOME); name one "
                         "with --db FILE.\n");
    return false;
}

} // namespace

int writeReportCommand(const QString &database, const QString &sweep, const QString &path)
{
    qint64 sweepId = 0;
    if (!sweep.isEmpty() && !sweepNumber(sweep, sweepId)) {
        std::fprintf(stderr, "stepscope: --sweep '%s' is not a sweep number; `stepscope-cli list` lists them.\n",
                     qPrintable(sweep));
        return 2;
    }
    if (!haveDatabase(database))
        return 1;
    QString error;
    qint64 reported = 0;
    if (!stepscope::ui::writeStoredSweepReport(database, sweepId, path, &error, &reported)) {
        std::fprintf(stderr, "stepscope: %s\n", qPrintable(error));
        return 1;
    }
    std::printf("Report of sweep %lld written to %s\n", static_cast<long long>(reported),
                qPrintable(QDir::toNativeSeparators(path)));
    return 0;
}

int writeComparisonReportCommand(const QString &database, const QString &compare, const QString &compareDb,
                                 const QString &path)
{
    const QStringList ab = compare.split(QLatin1Char(','));
    qint64 a = 0, b = 0;
    if (ab.size() != 2 || !sweepNumber(ab[0], a) || !sweepNumber(ab[1], b)) {
        std::fprintf(stderr,
                     "stepscope: --compare '%s' is not two sweep numbers A,B; `stepscope-cli list` lists them.\n",
                     qPrintable(compare));
        return 2;
    }
    if (!haveDatabase(database))
        return 1;
    QString error;
    if (!stepscope::ui::writeStoredComparisonReport(database, {{}, a}, {compareDb, b}, path, &error)) {
        std::fprintf(stderr, "stepscope: %s\n", qPrintable(error));
        return 1;
    }
    std::printf("Comparison of sweep %lld with sweep %lld written to %s\n", static_cast<long long>(a),
                static_cast<long long>(b), qPrintable(QDir::toNativeSeparators(path)));
    return 0;
}
