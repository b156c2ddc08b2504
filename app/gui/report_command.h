#pragma once
// `stepscope --report FILE`: the sweep report the dashboard's File › Export report writes (or, with
// --compare, its comparison report), written without a window (a GPU server over ssh has no
// display), and then the program ends.
#include <QString>

// Writes the report of sweep `sweep` (its text as given; empty: the latest) of `database` to
// `path`, says where on standard output or why not on standard error, and returns the exit
// status: 0 written, 1 refused or failed, 2 a --sweep that is not a sweep number.
int writeReportCommand(const QString &database, const QString &sweep, const QString &path);

// Writes the comparison of `compare` ("A,B": sweep A of `database` with sweep B of `compareDb`,
// else of `database`) to `path`; says and returns as writeReportCommand, 2 for a --compare that
// is not two sweep numbers.
int writeComparisonReportCommand(const QString &database, const QString &compare, const QString &compareDb,
                                 const QString &path);
