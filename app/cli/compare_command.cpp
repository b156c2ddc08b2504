// `compare A B`: sweep B against sweep A, the comparison the dashboard's Compare page shows
// (report::compareSweeps), as Markdown, JSON or CSV on standard output. Both databases are only
// read: comparing a copy of someone's file must not change it.
#include "cli.h"
#include "cli_options.h"

#include "report/comparison_text.h"
#include "store/store.h"

#include <QFileInfo>
#include <QJsonDocument>

#include <cstdio>
#include <memory>

namespace stepscope::cli
{
namespace
{

void err(const QString &s)
{
    printError("stepscope-cli compare: " + s);
}

std::unique_ptr<store::Reader> openForReading(const QString &path, int &exitCode)
{
    if (!QFileInfo::exists(path)) {
        err("no database at " + path + "; pass --db FILE (A) and --db-b FILE (B)");
        exitCode = kDatabase;
        return nullptr;
    }
    try {
        return store::Reader::open(path.toStdString());
    } catch (const store::StoreError &e) {
        err(storeMessage(e.what()));
        exitCode = kDatabase;
        return nullptr;
    }
}

// A sweep id as given on the command line: a whole number above 0.
bool sweepIdOf(const QString &text, const char *side, std::int64_t &id)
{
    long long n = 0;
    if (parseWhole(text, n) && n > 0) {
        id = n;
        return true;
    }
    err(QString("sweep %1 '%2' is not a sweep id (see 'stepscope-cli list')").arg(side, text));
    return false;
}

// The ledger of one side, or a message and exit 2 when the database has no such sweep.
bool ledgerOf(const store::Reader &reader, std::int64_t id, const QString &path, report::Ledger &ledger)
{
    if (!reader.sweep(id)) {
        err("no sweep " + QString::number(id) + " in " + path);
        return false;
    }
    ledger = report::buildLedger(reader, id);
    if (ledger.rows.empty()) {
        err("sweep " + QString::number(id) + " in " + path + " has no configurations to compare");
        return false;
    }
    return true;
}

} // namespace

int compareCommand(const Options &options, const CommandLine &line)
{
    const QStringList arguments = line.positionalArguments();
    const QString format = line.isSet("format") ? line.value("format") : "markdown";
    if (arguments.size() != 2) {
        err("give two sweep ids, A and B (see 'stepscope-cli list')");
        return kUsage;
    }
    if (format != "csv" && format != "json" && format != "markdown") {
        err("format '" + format + "' is not allowed; use csv, json or markdown");
        return kUsage;
    }
    std::int64_t idA = 0, idB = 0;
    if (!sweepIdOf(arguments[0], "A", idA) || !sweepIdOf(arguments[1], "B", idB))
        return kUsage;
    const QString pathB = line.isSet("db-b") ? line.value("db-b") : options.db;
    const bool otherFile = QFileInfo(pathB).canonicalFilePath() != QFileInfo(options.db).canonicalFilePath();

    int code = kOk;
    const auto readerA = openForReading(options.db, code);
    if (!readerA)
        return code;
    const auto readerB = otherFile ? openForReading(pathB, code) : nullptr;
    if (otherFile && !readerB)
        return code;
    report::Ledger a, b;
    if (!ledgerOf(*readerA, idA, options.db, a) || !ledgerOf(otherFile ? *readerB : *readerA, idB, pathB, b))
        return kUsage;

    const report::SweepComparison comparison = report::compareSweeps(a, b);
    // From two files, each side says which file it is from.
    const auto name = [&](const QString &path, const report::Ledger &l) {
        const std::string title = report::sweepTitle(l);
        return otherFile ? QFileInfo(path).fileName().toStdString() + ", " + title : title;
    };
    const report::ComparisonSides sides{a, b, name(options.db, a), name(pathB, b)};
    const std::string text = format == "csv" ? report::comparisonCsv(sides, comparison)
                             : format == "json"
                                 ? QJsonDocument(report::comparisonJson(sides, comparison)).toJson().toStdString()
                                 : report::comparisonMarkdown(sides, comparison);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return kOk;
}

} // namespace stepscope::cli
