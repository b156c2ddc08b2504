#include "report_command.h"

#include "report/sweep_report.h"

#include <QDir>

#include <cstdio>

int writeReportCommand(const QString &database, const QString &sweep, const QString &path)
{
    qint64 sweepId = 0;
    if (!sweep.isEmpty()) {
        bool number = false;
        sweepId = sweep.toLongLong(&number);
        // "abc" must not read as 0, which would report the latest sweep instead of refusing.
        if (!number || sweepId < 1) {
            std::fprintf(stderr, "stepscope: --sweep '%s' is not a sweep number; `stepscope-cli list` lists them.\n",
                         qPrintable(sweep));
            return 2;
        }
    }
    if (database.isEmpty()) {
        std::fprintf(stderr, "stepscope: no database to report from: HOME is not set (nor XDG_DATA_HOME); name one "
                             "with --db FILE.\n");
        return 1;
    }
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
