// `compare A B`: sweep B against sweep A, the comparison the dashboard's Compare page shows
// (report::compareSweeps), as Markdown, JSON or CSV on standard output. Both databases are only
// read: comparing a copy of someone's file must not change it.
#include "cli.h"
#include "cli_options.h"

#include "report/comparison_text.h"
#include "report/regression_gate.h"
#include "store/store.h"

#include <QFileInfo>
#include <QJsonDocument>

#include <cstdio>
#include <memory>

namespace stepscope::cli
{
namespace
{

QString command = "compare"; // the command whose words these are: compare or check

void err(const QString &s)
{
    printError("stepscope-cli " + command + ": " + s);
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

int checkCommand(const Options &options, const CommandLine &line)
{
    command = "check";
    const QString format = line.isSet("format") ? line.value("format") : "text";
    if (format != "text" && format != "json") {
        err("format '" + format + "' is not allowed; use text or json");
        return kUsage;
    }
    if (!line.isSet("against")) {
        err("give --against ID: the sweep to check against (see 'stepscope-cli list')");
        return kUsage;
    }
    report::GateRule rule;
    const auto percentOf = [&](const char *name, double &out) {
        double n = 0;
        if (!parseNumber(line.value(name), n) || n < 0 || n > 1000) {
            err(QString("--%1 '%2' is not a percentage from 0 to 1000").arg(name, line.value(name)));
            return false;
        }
        out = n / 100;
        return true;
    };
    if (line.isSet("max-slowdown") && !percentOf("max-slowdown", rule.maxSlowdown))
        return kUsage;
    if (line.isSet("max-first-step")) {
        double t = 0;
        if (!percentOf("max-first-step", t))
            return kUsage;
        rule.maxFirstStep = t;
    }
    std::int64_t idA = 0, idB = 0;
    if (!sweepIdOf(line.value("against"), "--against", idA))
        return kUsage;
    if (line.isSet("sweep") && !sweepIdOf(line.value("sweep"), "--sweep", idB))
        return kUsage;
    const QString pathA = line.isSet("db-b") ? line.value("db-b") : options.db;
    const bool otherFile = QFileInfo(pathA).canonicalFilePath() != QFileInfo(options.db).canonicalFilePath();
    int code = kOk;
    const auto readerB = openForReading(options.db, code);
    if (!readerB)
        return code;
    const auto readerA = otherFile ? openForReading(pathA, code) : nullptr;
    if (otherFile && !readerA)
        return code;
    if (idB == 0) {
        const auto sweeps = readerB->sweeps();
        if (sweeps.empty()) {
            err("no sweep in " + options.db + " to check");
            return kUsage;
        }
        idB = sweeps.front().id;
    }
    if (!otherFile && idA == idB) {
        err(QString("sweep %1 is the one checked: give --against an earlier sweep, or --sweep another").arg(idB));
        return kUsage;
    }
    report::Ledger a, b;
    if (!ledgerOf(otherFile ? *readerA : *readerB, idA, pathA, a) || !ledgerOf(*readerB, idB, options.db, b))
        return kUsage;
    const report::SweepComparison comparison = report::compareSweeps(a, b);
    const report::GateResult result = report::checkRegression(a, b, comparison, rule);
    const auto title = [&](const QString &path, const report::Ledger &l) {
        const std::string t = report::sweepTitle(l);
        return otherFile ? QFileInfo(path).fileName().toStdString() + ", " + t : t;
    };
    const std::string text =
        format == "json" ? QJsonDocument(report::gateJson(result, title(pathA, a), title(options.db, b))).toJson().toStdString()
                         : report::gateText(result, title(pathA, a), title(options.db, b));
    std::fwrite(text.data(), 1, text.size(), stdout);
    return result.regressed() ? kRunsFailed : kOk;
}

} // namespace stepscope::cli
