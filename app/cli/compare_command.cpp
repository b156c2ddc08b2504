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

// The two databases of a comparison: --db, and --db-b when it names another file (else --db's reader
// serves both sides). Each side's title names its file when there are two.
struct TwoDatabases {
    QString db, dbB;
    bool otherFile = false;
    std::unique_ptr<store::Reader> reader, readerB;

    const store::Reader &of(bool b) const { return b && otherFile ? *readerB : *reader; }
    const QString &path(bool b) const { return b ? dbB : db; }
    std::string title(bool b, const report::Ledger &ledger) const
    {
        const std::string t = report::sweepTitle(ledger);
        return otherFile ? QFileInfo(path(b)).fileName().toStdString() + ", " + t : t;
    }
};

bool openDatabases(const Options &options, const CommandLine &line, TwoDatabases &out, int &exitCode)
{
    out.db = options.db;
    out.dbB = line.isSet("db-b") ? line.value("db-b") : options.db;
    out.otherFile = QFileInfo(out.dbB).canonicalFilePath() != QFileInfo(out.db).canonicalFilePath();
    out.reader = openForReading(out.db, exitCode);
    if (!out.reader)
        return false;
    if (out.otherFile)
        out.readerB = openForReading(out.dbB, exitCode);
    return !out.otherFile || out.readerB;
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
    int code = kOk;
    TwoDatabases dbs;
    if (!openDatabases(options, line, dbs, code))
        return code;
    report::Ledger a, b;
    if (!ledgerOf(dbs.of(false), idA, dbs.path(false), a) || !ledgerOf(dbs.of(true), idB, dbs.path(true), b))
        return kUsage;

    const report::SweepComparison comparison = report::compareSweeps(a, b);
    // From two files, each side says which file it is from.
    const report::ComparisonSides sides{a, b, dbs.title(false, a), dbs.title(true, b)};
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
    // The sweep checked is --db's; the one checked against is --db-b's when given.
    int code = kOk;
    TwoDatabases dbs;
    if (!openDatabases(options, line, dbs, code))
        return code;
    if (idB == 0) {
        const auto sweeps = dbs.of(false).sweeps();
        if (sweeps.empty()) {
            err("no sweep in " + options.db + " to check");
            return kUsage;
        }
        idB = sweeps.front().id;
    }
    if (!dbs.otherFile && idA == idB) {
        err(QString("sweep %1 is the one checked: give --against an earlier sweep, or --sweep another").arg(idB));
        return kUsage;
    }
    report::Ledger a, b;
    if (!ledgerOf(dbs.of(true), idA, dbs.path(true), a) || !ledgerOf(dbs.of(false), idB, dbs.path(false), b))
        return kUsage;
    const report::SweepComparison comparison = report::compareSweeps(a, b);
    const report::GateResult result = report::checkRegression(a, b, comparison, rule);
    const std::string text =
        format == "json"
            ? QJsonDocument(report::gateJson(result, dbs.title(true, a), dbs.title(false, b))).toJson().toStdString()
            : report::gateText(result, dbs.title(true, a), dbs.title(false, b));
    std::fwrite(text.data(), 1, text.size(), stdout);
    return result.regressed() ? kRunsFailed : kOk;
}

} // namespace stepscope::cli
