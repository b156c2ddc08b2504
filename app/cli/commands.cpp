#include "cli.h"
#include "cli_options.h"

#include "common/measurement_defaults.h"
#include "config/config_json.h"
#include "config/presets.h"
#include "config/sweep_baseline.h"
#include "platform/platform.h"
#include "report/compile_table.h"
#include "report/cache_text.h"
#include "report/memory_text.h"
#include "report/ledger.h"
#include "report/recommendation.h"
#include "report/run_summary.h"
#include "report/sweep_export.h"
#include "report/sweep_status.h"
#include "report/why_table.h"
#include "stats/stats.h"
#include "store/database_files.h"
#include "store/store.h"
#include "supervisor/max_batch_export.h"
#include "supervisor/sweep_runner.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSaveFile>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>

namespace stepscope::cli
{

bool parseNumber(const QString &text, double &out)
{
    static const QRegularExpression number(QStringLiteral("^-?[0-9]+(\\.[0-9]+)?$"));
    if (!number.match(text).hasMatch())
        return false;
    bool ok = false;
    out = text.toDouble(&ok);
    return ok;
}

bool parseWhole(const QString &text, long long &out)
{
    static const QRegularExpression whole(QStringLiteral("^-?[0-9]+$"));
    if (!whole.match(text).hasMatch())
        return false;
    bool ok = false;
    out = text.toLongLong(&ok);
    return ok;
}

QStringList commaList(const QString &text, const QString &example, QString &problem)
{
    problem.clear();
    const QStringList parts = text.split(',');
    QStringList cleaned; // what to write instead: each item once, trimmed, none empty
    for (const QString &part : parts)
        if (const QString item = part.trimmed(); !item.isEmpty() && !cleaned.contains(item))
            cleaned << item;
    const QString instead = "write " + (cleaned.isEmpty() ? example : cleaned.join(','));
    if (text.trimmed().isEmpty()) {
        problem = "the list is empty; " + instead;
        return {};
    }
    QStringList items;
    for (qsizetype i = 0; i < parts.size(); ++i) {
        const QString &part = parts[i];
        if (part.trimmed().isEmpty()) {
            problem = QString("item %1 of '%2' is empty (a comma too many); %3").arg(i + 1).arg(text, instead);
            return {};
        }
        if (part != part.trimmed()) {
            problem = "'" + part + "' has blanks around it; " + instead;
            return {};
        }
        if (items.contains(part)) {
            problem = part + " is named twice; name each once: " + instead;
            return {};
        }
        items << part;
    }
    return items;
}

void printError(const QString &line)
{
    // Values and paths a user gave are echoed here: a control character in one (an escape sequence,
    // a carriage return) is shown as \xNN, never sent to the terminal, as `list` does for names.
    QString shown;
    shown.reserve(line.size());
    for (const QChar c : line) {
        if ((c.unicode() < 0x20 && c != QLatin1Char('\n') && c != QLatin1Char('\t')) || c.unicode() == 0x7f)
            shown += QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'));
        else
            shown += c;
    }
    std::fprintf(stderr, "%s\n", qPrintable(shown));
}

std::unique_ptr<store::Reader> openReader(const QString &path, int &exitCode)
{
    if (!QFileInfo::exists(path)) {
        printError("stepscope-cli: no database at " + path + "; run 'stepscope-cli run' first or pass --db FILE");
        exitCode = kDatabase;
        return nullptr;
    }
    try {
        // Opening for writing first turns runs left `running` by a crash into `interrupted`, so
        // list/show/export tell the truth, and stores the summary of every completed run that has
        // none or one of an older rule. A read-only file is still readable: that case is skipped,
        // and its runs are read on the fly by the same rule.
        {
            std::unique_ptr<store::Database> db;
            try {
                store::OpenOptions openOptions;
                openOptions.create = false;
                db = store::Database::open(path.toStdString(), openOptions);
            } catch (const store::StoreError &e) {
                if (e.kind() != store::StoreError::Kind::Io)
                    throw;
            }
            if (db)
                report::refreshSummaries(*db, *store::Reader::open(path.toStdString()));
            // The writer closes here, after that reader: the last connection, it removes the -wal
            // and -shm (unless a sweep has the file open), and the reader below leaves none either.
        }
        return store::Reader::open(path.toStdString());
    } catch (const store::StoreError &e) {
        printError("stepscope-cli: " + storeMessage(e.what()));
        exitCode = kDatabase;
        return nullptr;
    }
}

QString storeMessage(const std::string &message)
{
    return QString::fromStdString(store::withFileChoiceHint(message, "with --db PATH"));
}

namespace
{

// Writes `text` to `path` whole or not at all: into a temporary file beside it, synced, then
// renamed over it, so that a failure (a full disk) never leaves half a file where a good one was.
// A path that is not a regular file (/dev/stdout, a pipe) is written directly.
bool writeWhole(const QString &path, const std::string &text, QString &error)
{
    const QFileInfo info(path);
    const auto size = static_cast<qint64>(text.size());
    if (info.exists() && !info.isFile() && !info.isDir()) {
        QFile f(path);
        const bool ok = f.open(QIODevice::WriteOnly) && f.write(text.data(), size) == size && f.flush();
        error = f.errorString();
        return ok;
    }
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), size) != size || !f.flush()) {
        error = f.errorString() + (f.error() == QFileDevice::WriteError ? " (is the disk full?)" : "");
        f.cancelWriting();
        return false;
    }
    if (const std::string why = platform::syncFile(f.handle()); !why.empty()) {
        error = QString("cannot sync it to disk: ") + QString::fromStdString(why);
        f.cancelWriting();
        return false;
    }
    if (!f.commit()) {
        error = f.errorString();
        return false;
    }
    // The rename is durable once the folder is synced too.
    platform::syncFolder(info.absolutePath().toStdString());
    return true;
}

// A name as `list` prints it: control characters (a terminal escape, a newline in a sweep name)
// are shown as escapes, never sent to the terminal.
std::string printable(const std::string &text)
{
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        char buf[8];
        if (c < 0x20 || c == 0x7f) {
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                   static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
            // C1 controls (U+0080..U+009F) in UTF-8: some terminals act on them too.
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(text[++i]));
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

} // namespace

// A whole number above 0 given to --`name` of the running command, into `out` (left as it is when
// the option is not given): "abc" must not read as 0, which means "the latest sweep" (or "the
// sweep's own N"). False, said, when it is not one.
bool positiveOption(const CommandLine &line, const QString &what, const QString &name, long long &out)
{
    if (!line.isSet(name))
        return true;
    const QString v = line.value(name);
    long long n = 0;
    if (!parseWhole(v, n) || n < 1) {
        printError("stepscope-cli " + line.spec().name + ": --" + name + " '" + v + "' is not allowed; give " + what);
        return false;
    }
    out = n;
    return true;
}

bool resolveSweep(const store::Reader &reader, const QString &command, const QString &db, long long &sweepId)
{
    if (sweepId == 0) {
        const auto sweeps = reader.sweeps();
        if (sweeps.empty()) {
            printError("stepscope-cli " + command + ": no sweeps in " + db);
            return false;
        }
        sweepId = sweeps.front().id;
    } else if (!reader.sweep(sweepId)) {
        printError("stepscope-cli " + command + ": no sweep " + QString::number(sweepId) + " in " + db);
        return false;
    }
    return true;
}

int listCommand(const Options &options, const CommandLine &line)
{
    long long sweepId = 0;
    if (!positiveOption(line, "a sweep id (see 'stepscope-cli list')", "sweep", sweepId))
        return kUsage;
    int code = kOk;
    auto reader = openReader(options.db, code);
    if (!reader)
        return code;
    if (sweepId != 0 && !reader->sweep(sweepId)) {
        printError("stepscope-cli list: no sweep " + QString::number(sweepId) + " in " + options.db);
        return kUsage;
    }
    const auto sweeps = reader->sweeps();
    if (sweeps.empty())
        std::printf("no sweeps in %s\n", qPrintable(options.db));
    for (const auto &s : sweeps) {
        if (sweepId != 0 && s.id != sweepId)
            continue;
        const auto runs = reader->runs(s.id);
        std::printf("sweep %lld  %s  %s  [%s]  %s\n", static_cast<long long>(s.id), printable(s.created).c_str(),
                    printable(s.name).c_str(), printable(s.preset).c_str(),
                    printable(report::sweepStatusText(s, runs)).c_str());
        for (const auto &r : runs) {
            // The run's own steady-state median, from its stored summary (completed runs only).
            const auto summary =
                r.status == RunStatus::Complete ? std::optional(report::summaryOf(*reader, r)) : std::nullopt;
            const std::string median = summary && summary->medianMs ? report::formatMs(*summary->medianMs) : "-";
            std::printf("  run %-5lld %-11s %-16s %5lld steps %10s  %s\n", static_cast<long long>(r.id),
                        std::string(toString(r.status)).c_str(),
                        r.category ? std::string(toString(*r.category)).c_str() : "",
                        static_cast<long long>(r.stepCount), median.c_str(), printable(r.configName).c_str());
        }
    }
    return kOk;
}

namespace
{
// Issue 21: the device a run of a sweep over several ran on, and a data-parallel run's every rank
// (the run's own steps are the slowest rank's).
void printLaneAndRanks(const store::Reader &reader, const store::RunRecord &run, const store::RunSummary &summary)
{
    if (!run.laneJson.empty()) {
        const QJsonObject lane = QJsonDocument::fromJson(QByteArray::fromStdString(run.laneJson)).object();
        QStringList devices;
        for (const auto &d : lane.value("devices").toArray())
            devices << d.toString();
        std::printf("lane: %s%s, %s%s\n", qPrintable(lane.value("device").toString()),
                    devices.isEmpty() ? "" : qPrintable(" (holding " + devices.join(", ") + ")"),
                    qPrintable(lane.value("model").toString()),
                    lane.value("uuid").toString().isEmpty() ? "" : qPrintable(" " + lane.value("uuid").toString()));
    }
    const auto steps = reader.rankSteps(run.id);
    if (steps.empty())
        return;
    std::map<int, std::vector<double>> steady;
    std::map<int, double> first;
    const bool gpu = summary.timing == store::Timing::Gpu;
    for (const auto &step : steps) {
        if (step.index == 1)
            first[step.rank] = step.wallMs;
        if (summary.steadyCount > 0 && step.index >= summary.steadyBegin &&
            step.index < summary.steadyBegin + summary.steadyCount)
            steady[step.rank].push_back(gpu && step.gpuMs ? *step.gpuMs : step.wallMs);
        else
            steady.try_emplace(step.rank);
    }
    std::printf("ranks (a step of the run is its slowest rank's):\n");
    for (const auto &[rank, ms] : steady) {
        std::printf("  rank %d:", rank);
        if (const auto it = first.find(rank); it != first.end())
            std::printf(" first step %s", report::formatSeconds(it->second / 1000.0).c_str());
        if (!ms.empty())
            std::printf(", steady median %s over the run's steady window", report::formatMs(stats::median(ms)).c_str());
        std::printf("\n");
    }
}
} // namespace

int showCommand(const Options &options, const CommandLine &line)
{
    const QStringList arguments = line.positionalArguments();
    long long sweepId = 0;
    if (!positiveOption(line, "a sweep id (see 'stepscope-cli list')", "sweep", sweepId))
        return kUsage;
    if (sweepId != 0 && !arguments.isEmpty()) {
        printError("stepscope-cli show: give a run id or --sweep ID, not both");
        return kUsage;
    }
    if (sweepId != 0) {
        int code = kOk;
        auto reader = openReader(options.db, code);
        if (!reader)
            return code;
        if (!reader->sweep(sweepId)) {
            printError("stepscope-cli show: no sweep " + QString::number(sweepId) + " in " + options.db);
            return kUsage;
        }
        printSweepFigures(*reader, sweepId, options.db);
        return kOk;
    }
    if (arguments.isEmpty()) {
        printError("stepscope-cli show: give a run id, or --sweep ID (see 'stepscope-cli list')");
        return kUsage;
    }
    long long id = 0;
    if (!parseWhole(arguments.first(), id)) {
        printError("stepscope-cli show: '" + arguments.first() + "' is not a run id");
        return kUsage;
    }
    int code = kOk;
    auto reader = openReader(options.db, code);
    if (!reader)
        return code;
    const auto run = reader->run(id);
    if (!run) {
        printError("stepscope-cli show: no run " + QString::number(id) + " in " + options.db);
        return kUsage;
    }
    std::printf("run %lld (sweep %lld, repeat %lld)\n", static_cast<long long>(run->id),
                static_cast<long long>(run->sweepId), static_cast<long long>(run->repeatIndex));
    std::printf("configuration: %s\n  %s\n", printable(run->configName).c_str(), printable(run->configJson).c_str());
    std::printf("status: %s\n", std::string(toString(run->status)).c_str());
    if (const std::string model = report::modelFactsText(run->model); !model.empty())
        std::printf("model: %s\n", printable(model).c_str());
    if (run->category) {
        std::printf("failure: [%s] %s\nfix: %s\n", std::string(toString(*run->category)).c_str(), run->message.c_str(),
                    std::string(fixFor(Failure{*run->category, run->message, run->detail})).c_str());
        if (!run->detail.empty())
            std::printf("detail:\n%s\n", run->detail.c_str());
    } else if (!run->message.empty()) {
        std::printf("note: %s\n", run->message.c_str()); // e.g. an interrupted sweep's run that never started
    }
    if (run->setupSeconds)
        std::printf("setup: %s\n", report::formatSeconds(*run->setupSeconds).c_str());
    if (run->firstStepSeconds)
        std::printf("first step: %s\n", report::formatSeconds(*run->firstStepSeconds).c_str());
    // The stored summary of a completed run; any other run is read by the same rule now.
    const auto reading = report::readRun(*reader, *run);
    const auto &summary = reading.summary;
    std::printf("steps recorded: %lld\n", static_cast<long long>(run->stepCount));
    if (report::hasSteadyState(summary)) {
        std::printf("steady state: steps %lld-%lld, median %.3f ms (p10 %.3f, p90 %.3f, IQR %.3f, CV %.3f), %s [%s]\n",
                    static_cast<long long>(summary.steadyBegin),
                    static_cast<long long>(summary.steadyBegin + summary.steadyCount - 1), *summary.medianMs,
                    summary.p10Ms.value_or(NAN), summary.p90Ms.value_or(NAN), summary.iqrMs.value_or(NAN),
                    summary.cv.value_or(NAN), summary.noise.c_str(), summary.timing == store::Timing::Gpu ? "CUDA events" : "wall");
    } else if (!reading.series.ms.empty()) {
        const std::string why = summary.problem ? describe(*summary.problem) : "no steady window was found";
        std::printf("steady state: none (%s)\n", why.c_str());
    }
    printLaneAndRanks(*reader, *run, summary);
    // In the ledger's words (report/peak_memory.h): a run without figures, a CPU one, says why.
    const report::PeakMemory memory = report::peakMemoryOf({&*run}, !report::storedConfig(run->configJson).onCuda());
    std::printf("%s\n", report::memoryDetailText(memory, std::nullopt).c_str());
    if (!run->checkLosses.empty()) {
        std::printf("losses of the first steps:");
        for (double l : run->checkLosses)
            std::printf(" %.5f", l);
        std::printf("\n");
    }
    printCompileSection(*run);
    if (const auto caches = report::runCacheLines(*run); !caches.empty()) {
        std::printf("machine caches: %s\n", caches.front().c_str());
        for (std::size_t i = 1; i < caches.size(); ++i)
            std::printf("  %s\n", caches[i].c_str());
    }
    if (const auto profile = report::runProfileLines(*run); !profile.empty()) {
        std::printf("profile: %s\n", profile.front().substr(9).c_str());
        for (std::size_t i = 1; i < profile.size(); ++i)
            std::printf("  %s\n", profile[i].c_str());
    }
    if (const report::MemoryLines snapshot = report::runMemoryLines(*run); !snapshot.title.empty()) {
        std::printf("%s: %s\n", snapshot.title.c_str(), snapshot.lines.front().c_str());
        for (std::size_t i = 1; i < snapshot.lines.size(); ++i)
            std::printf("  %s\n", snapshot.lines[i].c_str());
    }
    if (run->environmentId)
        if (auto env = reader->environment(*run->environmentId))
            std::printf("environment: %s\n", env->json.c_str());
    return kOk;
}

int exportCommand(const Options &options, const CommandLine &line)
{
    const QString format = line.isSet("format") ? line.value("format") : "markdown";
    const QString out = line.value("out");
    long long sweepId = 0, planned = 0;
    if (!positiveOption(line, "a sweep id (see 'stepscope-cli list')", "sweep", sweepId) ||
        !positiveOption(line, "a positive number of steps", "planned-steps", planned))
        return kUsage;
    if (format != "csv" && format != "json" && format != "markdown") {
        printError("stepscope-cli export: format '" + format + "' is not allowed; use csv, json or markdown");
        return kUsage;
    }
    if (line.isSet("out") && out.isEmpty()) {
        printError("stepscope-cli export: --out is empty; give a file name (--out ledger.md), or leave --out out "
                   "to write to standard output");
        return kUsage;
    }
    if (!out.isEmpty()) {
        if (const QString clash =
                QString::fromStdString(store::databaseFileBehind(out.toStdString(), options.db.toStdString()));
            !clash.isEmpty()) {
            printError("stepscope-cli export: refusing to write " + out + ": it is " + clash +
                       ", and writing the export there would destroy the measurements. Choose another --out.");
            return kUsage;
        }
    }
    int code = kOk;
    auto reader = openReader(options.db, code);
    if (!reader)
        return code;
    if (!resolveSweep(*reader, "export", options.db, sweepId))
        return kUsage;
    const auto deliver = [&out](const std::string &text) {
        if (out.isEmpty()) {
            std::fwrite(text.data(), 1, text.size(), stdout);
            return kOk;
        }
        QString error;
        if (!writeWhole(out, text, error)) {
            printError("stepscope-cli export: cannot write " + out + ": " + error);
            return kDatabase;
        }
        printError("stepscope-cli: wrote " + out);
        return kOk;
    };
    // A max-batch sweep timed nothing: its export is each configuration's answer, not a ledger of its
    // tries (whose few steps have no steady state).
    if (const auto sweep = reader->sweep(sweepId); sweep && supervisor::isMaxBatchSweep(*sweep)) {
        const auto searches = supervisor::maxBatchSearches(*reader, sweepId);
        return deliver(format == "csv"    ? supervisor::maxBatchCsv(searches)
                       : format == "json" ? supervisor::maxBatchJson(searches)
                                          : supervisor::maxBatchMarkdown(searches));
    }
    long long batch = 0;
    if (!positiveOption(line, "a batch size the sweep ran", "batch", batch))
        return kUsage;
    auto ledger = report::buildLedger(
        *reader, sweepId, planned, {},
        line.isSet("start") ? store::startStateFromString(line.value("start").toStdString()) : store::StartState::Fresh,
        static_cast<int>(batch));
    if (line.isSet("idle-watts")) {
        bool ok = false;
        const double watts = line.value("idle-watts").toDouble(&ok);
        if (!ok || !std::isfinite(watts) || watts <= 0 || watts > 10000) {
            printError("stepscope-cli export: --idle-watts '" + line.value("idle-watts") +
                       "' is not a power; give the GPU's idle draw in watts, e.g. --idle-watts 75 (nvidia-smi "
                       "--query-gpu=power.draw shows it while nothing runs)");
            return kUsage;
        }
        report::subtractIdlePower(ledger, watts);
    }
    const QString objective = line.isSet("objective") ? line.value("objective") : QStringLiteral("time");
    if (objective != "time" && objective != "energy") {
        printError("stepscope-cli export: objective '" + objective + "' is not allowed; use time or energy");
        return kUsage;
    }
    if (objective == "energy" && !report::recommendByJoules(ledger)) {
        printError("stepscope-cli export: --objective energy: no row of sweep " + QString::number(sweepId) +
                   " has energy figures to pick by (" +
                   QString::fromStdString(ledger.rows.empty() ? std::string("no rows")
                                                              : report::energyText(ledger.rows.front().energy)) +
                   "); use --objective time");
        return kUsage;
    }
    if (batch != 0 && std::find(ledger.batches.begin(), ledger.batches.end(), batch) == ledger.batches.end()) {
        printError("stepscope-cli export: sweep " + QString::number(sweepId) + " ran no batch " +
                   QString::number(batch));
        return kUsage;
    }
    // Markdown and JSON carry the sweep's other figures too; CSV stays the ledger's one table. The
    // Markdown ends with the torch.compile table the dashboard's Markdown report has (one reading of
    // the compile records, report/compile_table.h).
    const std::string text =
        format == "csv"    ? report::toCsv(ledger)
        : format == "json" ? report::toJson(ledger, report::sweepFigures(*reader, ledger))
                           : report::toMarkdown(ledger, report::sweepFigures(*reader, ledger)) +
                                 report::compileReportMarkdown(report::compileReportRows(*reader, ledger), ledger)
                                     .toStdString();
    return deliver(text);
}

} // namespace stepscope::cli
