#include "cli.h"
#include "cli_options.h"

#include "common/measurement_defaults.h"
#include "config/config_json.h"
#include "config/presets.h"
#include "config/sweep_baseline.h"
#include "platform/platform.h"
#include "report/ledger.h"
#include "report/run_summary.h"
#include "report/sweep_export.h"
#include "store/database_files.h"
#include "store/store.h"
#include "supervisor/sweep_runner.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>

namespace stepscope::cli
{
namespace
{

std::atomic<bool> g_interrupted{false};
void onInterrupt(int)
{
    g_interrupted.store(true);
}

void err(const QString &s)
{
    std::fprintf(stderr, "%s\n", qPrintable(s));
}

// Options that map onto RunConfig fields: --image-size 64 sets "image_size".
QString fieldKey(QString option)
{
    return option.replace('-', '_');
}

bool isConfigField(const QString &key)
{
    for (const auto &f : fields())
        if (key == f.key)
            return true;
    return false;
}

std::unique_ptr<store::Reader> openReader(const QString &path, int &exitCode)
{
    if (!QFileInfo::exists(path)) {
        err("stepscope-cli: no database at " + path + "; run 'stepscope-cli run' first or pass --db FILE");
        exitCode = kDatabase;
        return nullptr;
    }
    try {
        // Opening for writing first turns runs left `running` by a crash into `interrupted`, so
        // list/show/export tell the truth, and stores the summary of every completed run that has
        // none or one of an older rule. A read-only file is still readable: that case is skipped,
        // and its runs are read on the fly by the same rule.
        std::unique_ptr<store::Database> db;
        try {
            store::OpenOptions openOptions;
            openOptions.create = false;
            db = store::Database::open(path.toStdString(), openOptions);
        } catch (const store::StoreError &e) {
            if (e.kind() != store::StoreError::Kind::Io)
                throw;
        }
        auto reader = store::Reader::open(path.toStdString());
        if (db)
            report::refreshSummaries(*db, *reader);
        return reader;
    } catch (const store::StoreError &e) {
        err("stepscope-cli: " + storeMessage(e.what()));
        exitCode = kDatabase;
        return nullptr;
    }
}

} // namespace

QString storeMessage(const std::string &message)
{
    return QString::fromStdString(store::withFileChoiceHint(message, "with --db PATH"));
}

namespace
{

int cudaDevicesSeenByWorker()
{
    return probeNativeWorker().cudaDevices;
}

// "42 s", "3 min 05 s": a compile's progress, whole seconds being enough.
QString phaseSeconds(double s)
{
    const long total = std::lround(s);
    if (total < 120)
        return QString::number(total) + " s";
    return QString("%1 min %2 s").arg(total / 60).arg(total % 60, 2, 10, QChar('0'));
}

// What a sweep says on standard error while it runs. On a terminal, the running configuration's
// progress redraws one line in place ("\r", the text cut to the terminal's width so that it never
// wraps, then clear to the end of the line); any other message first clears that line (and a ^C
// the terminal echoed there) and takes whole lines of its own. Elsewhere (a pipe, a file) only
// whole lines are written: progress that would redraw is left out.
class StatusLine
{
  public:
    bool onTerminal() const { return terminal_; }
    void progress(const QString &text)
    {
        if (!terminal_)
            return;
        std::fprintf(stderr, "\r%s\33[K", fitted(text).toLocal8Bit().constData());
        open_ = true;
    }
    void clear()
    {
        if (terminal_)
            std::fputs("\r\33[K", stderr);
        open_ = false;
    }
    void message(const QString &text)
    {
        clear();
        err(text);
    }
    bool open() const { return open_; }

  private:
    static QString fitted(const QString &text)
    {
        qsizetype columns = platform::stderrColumns();
        if (columns == 0)
            columns = qEnvironmentVariableIntValue("COLUMNS");
        const qsizetype room = columns - 1; // the last column would wrap on some terminals
        if (columns <= 0 || text.size() <= room)
            return text;
        if (room < 12)
            return text.left(room);
        // The start names the run ("[3/8] native cuda ..."), the end its state: the middle goes.
        const qsizetype head = (room - 3) / 2;
        return text.left(head) + "..." + text.right(room - 3 - head);
    }

    bool terminal_ = platform::stderrIsTerminal();
    bool open_ = false;
};

// While a sweep runs, Qt's own messages (warnings) clear an open progress line first as well.
class ScopedMessageHandler
{
  public:
    explicit ScopedMessageHandler(StatusLine &status)
    {
        current = &status;
        previous = qInstallMessageHandler(&ScopedMessageHandler::handle);
    }
    ~ScopedMessageHandler()
    {
        qInstallMessageHandler(previous);
        current = nullptr;
    }
    ScopedMessageHandler(const ScopedMessageHandler &) = delete;
    ScopedMessageHandler &operator=(const ScopedMessageHandler &) = delete;

  private:
    static void handle(QtMsgType type, const QMessageLogContext &context, const QString &message)
    {
        if (current && current->open())
            current->clear();
        if (previous)
            previous(type, context, message);
    }
    static inline StatusLine *current = nullptr;
    static inline QtMessageHandler previous = nullptr;
};

// Reads configurations from a JSON file: one object, an array of objects, or {"configs": [...]}.
// The baseline, when the file names one: {"configs": [...], "baseline": N} (1-based) or
// "baseline": true on one configuration.
bool readConfigFile(const QString &path, const RunConfig &base, std::vector<RunConfig> &out,
                    std::optional<std::size_t> &baseline, QString &error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        error = "cannot read " + path + ": " + f.errorString();
        return false;
    }
    // A sweep's configurations fit in a few kilobytes: a bigger file is a wrong path (a database, a
    // log, /dev/zero), refused before it is read in full.
    constexpr qint64 kMaxConfigBytes = 1 << 20;
    const QByteArray bytes = f.read(kMaxConfigBytes + 1);
    if (bytes.size() > kMaxConfigBytes) {
        error = path + " is larger than 1 MiB: not a configuration file (configurations take a few kilobytes)";
        return false;
    }
    QJsonParseError pe;
    const auto doc = QJsonDocument::fromJson(bytes, &pe);
    if (pe.error != QJsonParseError::NoError) {
        error = path + ": not valid JSON (" + pe.errorString() + " at offset " + QString::number(pe.offset) + ")";
        return false;
    }
    QJsonArray items;
    if (doc.isArray())
        items = doc.array();
    else if (doc.object().contains("configs"))
        items = doc.object().value("configs").toArray();
    else
        items.append(doc.object());
    int i = 0;
    for (const auto &item : items) {
        RunConfig c;
        std::vector<ConfigError> errors;
        if (!item.isObject())
            errors.push_back({"config", "each configuration must be a JSON object"});
        else if (fromJson(item.toObject(), c, errors, base)) {
            const auto problems = validate(c);
            errors.insert(errors.end(), problems.begin(), problems.end());
        }
        if (!errors.empty()) {
            error = path + ", configuration " + QString::number(i + 1) + ":\n  " +
                    QString::fromStdString(describe(errors)).replace("\n", "\n  ");
            return false;
        }
        if (isMarkedBaseline(item.toObject())) {
            if (baseline) {
                error = path + ": configurations " + QString::number(*baseline + 1) + " and " + QString::number(i + 1) +
                        " are both marked \"baseline\": true; mark one";
                return false;
            }
            baseline = static_cast<std::size_t>(i);
        }
        out.push_back(c);
        ++i;
    }
    if (out.empty()) {
        error = path + " holds no configuration";
        return false;
    }
    if (doc.isObject() && doc.object().contains("configs") && doc.object().contains("baseline")) {
        const QJsonValue v = doc.object().value("baseline");
        const double n = v.toDouble(-1);
        if (!v.isDouble() || n != std::floor(n) || n < 1 || n > static_cast<double>(out.size())) {
            error =
                path + ": \"baseline\" must be a position from 1 to " + QString::number(out.size()) + " in \"configs\"";
            return false;
        }
        if (baseline && *baseline != static_cast<std::size_t>(n) - 1) {
            error = path + ": \"baseline\": " + QString::number(n) + " and configuration " +
                    QString::number(*baseline + 1) + " marked \"baseline\": true disagree; give one";
            return false;
        }
        baseline = static_cast<std::size_t>(n) - 1;
    }
    return true;
}

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

// A whole number above 0 given to --`name` of the running command, into `out` (left as it is when
// the option is not given): "abc" must not read as 0, which means "the latest sweep" (or "the
// sweep's own N"). False, said, when it is not one.
bool positiveOption(const CommandLine &line, const QString &what, const QString &name, long long &out)
{
    if (!line.isSet(name))
        return true;
    bool ok = false;
    const QString v = line.value(name);
    const long long n = v.toLongLong(&ok);
    if (!ok || n < 1) {
        err("stepscope-cli " + line.spec().name + ": --" + name + " '" + v + "' is not allowed; give " + what);
        return false;
    }
    out = n;
    return true;
}

} // namespace

int runCommand(const Options &options, const CommandLine &line)
{
    RunConfig base;
    QString preset, configFile, name, python, compileCacheDir;
    bool single = false, freshCache = false, deviceGiven = false, shapeGiven = false;
    std::optional<bool> warmupProcess; // default: on for presets, off for --single and --config
    supervisor::RunnerOptions::Adaptive adaptive;
    int repeats = 1, timeout = 900;
    long long planned = kDefaultPlannedSteps;
    std::optional<QString> baselineChoice; // --baseline N|LABEL, resolved once the configurations are known
    std::vector<ConfigError> flagErrors;
    // In command-line order: a later --device overrides an earlier one, and errors come in order.
    for (const auto &[option, v] : line.given()) {
        const std::string flag = "--" + option.toStdString();
        if (option == "preset") {
            preset = v;
        } else if (option == "config") {
            configFile = v;
        } else if (option == "name") {
            name = v;
        } else if (option == "python") {
            python = v;
        } else if (option == "baseline") {
            baselineChoice = v;
        } else if (option == "compile-cache-dir") {
            compileCacheDir = v;
        } else if (option == "single") {
            single = true;
        } else if (option == "until-ci" || option == "max-repeats" || option == "max-minutes") {
            bool ok = false;
            const double n = v.toDouble(&ok);
            const bool percent = option == "until-ci";
            if (!ok || !(percent ? n > 0 && n <= 50 : n >= 1 && n <= 1000 && n == std::floor(n))) {
                flagErrors.push_back({flag, "'" + v.toStdString() + "' is not allowed; give " +
                                                (percent ? "a percentage above 0 and up to 50 (2 means +-2%)"
                                                         : "a whole number from 1 to 1000")});
                continue;
            }
            if (percent) {
                adaptive.enabled = true;
                adaptive.halfWidth = n / 100.0;
            } else if (option == "max-repeats") {
                adaptive.maxProcesses = static_cast<int>(n);
            } else {
                adaptive.maxMinutes = static_cast<int>(n);
            }
        } else if (option == "warmup-process" || option == "no-warmup-process") {
            warmupProcess = option == "warmup-process";
        } else if (option == "fresh-cuda-cache") {
            freshCache = true;
        } else if (option == "repeat" || option == "timeout" || option == "planned-steps") {
            bool ok = false;
            const long long n = v.toLongLong(&ok);
            if (!ok || n < 1 || (option == "repeat" && n > 100)) {
                flagErrors.push_back({flag, "'" + v.toStdString() + "' is not allowed; give a positive integer" +
                                                (option == "repeat" ? std::string(" up to 100") : "")});
                continue;
            }
            // Parsed wide and capped here: the supervisor's timer counts milliseconds in an int.
            if (option == "timeout" && n > supervisor::kMaxTimeoutSeconds) {
                flagErrors.push_back({flag, "'" + v.toStdString() + "' seconds is too long; give at most " +
                                                std::to_string(supervisor::kMaxTimeoutSeconds) + " (7 days)"});
                continue;
            }
            if (option == "repeat")
                repeats = static_cast<int>(n);
            else if (option == "timeout")
                timeout = static_cast<int>(n);
            else
                planned = n;
        } else if (const QString key = fieldKey(option); isConfigField(key)) {
            ConfigError e;
            if (!setField(base, key.toStdString(), v.toStdString(), e))
                flagErrors.push_back({flag, e.message});
            deviceGiven = deviceGiven || key == "device";
            shapeGiven = shapeGiven || key == "batch" || key == "image_size" || key == "steps" || key == "warmup_steps";
        }
        // --db is the program's, read before the command runs.
    }
    if (!flagErrors.empty()) {
        err("stepscope-cli run: nothing was run:\n  " +
            QString::fromStdString(describe(flagErrors)).replace("\n", "\n  "));
        return kUsage;
    }

    // A CUDA device that is not there fails every run the same way: say so once, run nothing.
    std::optional<int> gpusSeen; // asked of the worker once, when first needed
    const auto cudaDevices = [&] {
        if (!gpusSeen)
            gpusSeen = cudaDevicesSeenByWorker();
        return *gpusSeen;
    };
    if (deviceGiven && base.onCuda()) {
        const int gpus = cudaDevices();
        if (base.cudaIndex() >= gpus) {
            err(QString("stepscope-cli run: nothing was run: %1 is not available; LibTorch sees %2 CUDA device(s) "
                        "here. Check nvidia-smi and CUDA_VISIBLE_DEVICES, or use --device cpu.")
                    .arg(QString::fromStdString(base.device))
                    .arg(gpus));
            return kUsage;
        }
    }
    // The default sweep fits the machine: the 224x224 ledger on a GPU, a small CPU ledger otherwise.
    if (!deviceGiven) {
        const int gpus = cudaDevices();
        if (gpus > 0) {
            base.device = "cuda";
            err(QString("stepscope-cli: %1 CUDA device(s) found: running on cuda").arg(gpus));
        } else {
            base.device = "cpu";
            if (!shapeGiven) {
                base.imageSize = 64;
                base.batch = 8;
                base.steps = 30;
                base.warmupSteps = 5;
            }
            // Only a preset is the ledger; a file or --single runs what it names.
            const QString shape = QString("%1x%1 images, batch %2").arg(base.imageSize).arg(base.batch);
            if (!configFile.isEmpty())
                err("stepscope-cli: no CUDA device found: configurations that name no device run on the cpu (" + shape +
                    " where they name no shape)");
            else if (single)
                err("stepscope-cli: no CUDA device found: running on the cpu (" + shape + ")");
            else
                err("stepscope-cli: no CUDA device found: running the small CPU ledger (" + shape +
                    "); CUDA-only knobs are skipped");
        }
    }

    std::vector<RunConfig> configs;
    std::optional<std::size_t> baseline; // index into configs; none: the default rule (planSweep)
    QString presetName = preset;
    if (!configFile.isEmpty()) {
        QString error;
        if (!readConfigFile(configFile, base, configs, baseline, error)) {
            err("stepscope-cli run: nothing was run: " + error);
            return kUsage;
        }
        // A CUDA device the file names that is not there is refused as the flag is, before anything
        // is written (a sweep of runs that can only fail helps nobody).
        for (std::size_t k = 0; k < configs.size(); ++k) {
            if (configs[k].onCuda() && configs[k].cudaIndex() >= cudaDevices()) {
                err(QString("stepscope-cli run: nothing was run: %1, configuration %2: %3 is not available; "
                            "LibTorch sees %4 CUDA device(s) here. Check nvidia-smi and CUDA_VISIBLE_DEVICES, or "
                            "use \"device\": \"cpu\".")
                        .arg(configFile)
                        .arg(k + 1)
                        .arg(QString::fromStdString(configs[k].device))
                        .arg(cudaDevices()));
                return kUsage;
            }
        }
        presetName = "custom";
    } else if (single) {
        const auto problems = validate(base);
        if (!problems.empty()) {
            err("stepscope-cli run: nothing was run:\n  " +
                QString::fromStdString(describe(problems)).replace("\n", "\n  "));
            return kUsage;
        }
        configs.push_back(base);
        presetName = "single";
    } else {
        if (presetName.isEmpty())
            presetName = "ledger";
        const auto problems = validate(baselineOf(base));
        if (!problems.empty()) {
            err("stepscope-cli run: nothing was run:\n  " +
                QString::fromStdString(describe(problems)).replace("\n", "\n  "));
            return kUsage;
        }
        Sweep sweep;
        std::string error;
        if (!buildPreset(presetName.toStdString(), base, sweep, error)) {
            err("stepscope-cli run: " + QString::fromStdString(error));
            return kUsage;
        }
        for (const auto &s : sweep.skipped)
            err("stepscope-cli: skipped " + QString::fromStdString(s));
        configs = sweep.configs;
    }
    if (baselineChoice) {
        std::string error;
        baseline = findBaseline(configs, baselineChoice->toStdString(), error);
        if (!baseline) {
            err("stepscope-cli run: nothing was run: --baseline " + QString::fromStdString(error));
            return kUsage;
        }
    }

    QDir().mkpath(QFileInfo(options.db).absolutePath());
    std::unique_ptr<store::Database> db;
    try {
        db = store::Database::open(options.db.toStdString());
    } catch (const store::StoreError &e) {
        err("stepscope-cli: " + storeMessage(e.what()));
        return kDatabase;
    }

    const QString sweepName = name.isEmpty() ? QString("%1 %2 b%3 %4px")
                                                   .arg(presetName, QString::fromStdString(configs.front().device))
                                                   .arg(configs.front().batch)
                                                   .arg(configs.front().imageSize)
                                             : name;
    supervisor::SweepPlan plan;
    try {
        // An interval needs two processes: adaptive sweeps start with at least two of each.
        if (adaptive.enabled)
            repeats = std::min(std::max(repeats, 2), adaptive.maxProcesses);
        plan = supervisor::planSweep(*db, sweepName.toStdString(), presetName.toStdString(), configs, repeats, planned,
                                     baseline);
    } catch (const store::StoreError &e) {
        err("stepscope-cli: " + storeMessage(e.what()));
        return kDatabase;
    }
    err(QString("stepscope-cli: sweep %1: %2 configuration(s) x %3 repeat(s) into %4")
            .arg(plan.sweepId)
            .arg(configs.size())
            .arg(repeats)
            .arg(options.db));

    supervisor::RunnerOptions runnerOptions;
    runnerOptions.native = supervisor::defaultNativeWorker();
    runnerOptions.timeoutSeconds = timeout;
    runnerOptions.freshCudaCache = freshCache;
    runnerOptions.machineWarmup = warmupProcess.value_or(configFile.isEmpty() && !single);
    runnerOptions.adaptive = adaptive;
    if (!compileCacheDir.isEmpty())
        runnerOptions.compileCacheRoot = QDir(compileCacheDir).absolutePath();
    if (std::any_of(configs.begin(), configs.end(), [](const RunConfig &c) { return c.runtime == Runtime::Python; })) {
        runnerOptions.python = supervisor::defaultPythonWorker(python);
        // Said once up front; each python run then fails python-not-found with the same words.
        if (runnerOptions.python.program.isEmpty())
            err("stepscope-cli: python runs will fail: " + runnerOptions.python.origin);
        else
            err("stepscope-cli: python runs use " + runnerOptions.python.program + " (" + runnerOptions.python.origin +
                ")");
    }
    supervisor::SweepRunner runner(*db, runnerOptions);

    // Progress on a terminal redraws one line; every other message clears it first and takes a line
    // of its own (Qt's warnings too). Through a pipe or into a file, whole lines only.
    StatusLine status;
    const ScopedMessageHandler ownLines(status);
    int failed = 0;
    bool cancelled = false;
    QString current;
    QElapsedTimer sweepClock;
    sweepClock.start();
    QString lastPhase;
    QElapsedTimer phasePrinted;
    QObject::connect(
        &runner, &supervisor::SweepRunner::runStarted, [&](qint64, int index, int total, const QString &n) {
            current = QString("[%1/%2] %3").arg(index + 1).arg(total).arg(n);
            // Time left from the pace of the runs so far (cold processes cost alike).
            QString left;
            if (index > 0) {
                const double perRun = static_cast<double>(sweepClock.elapsed()) / 1000.0 / index;
                left = " (about " + QString::fromStdString(report::formatSeconds(perRun * (total - index))) + " left)";
            }
            lastPhase.clear();
            status.message(current + ": starting" + left);
        });
    QObject::connect(&runner, &supervisor::SweepRunner::firstStep, [&](qint64, double s) {
        status.message(current + ": first step " + QString::fromStdString(report::formatSeconds(s)));
    });
    QObject::connect(&runner, &supervisor::SweepRunner::progress, [&](int, int, int step, int steps) {
        if (steps > 0)
            status.progress(current + QString(": step %1/%2").arg(step).arg(steps));
    });
    // A compile can take minutes without a step: say what the worker is doing, so that it never
    // looks like a hang (a line at most every 15 s when stderr is a file or a pipe).
    QObject::connect(&runner, &supervisor::SweepRunner::phase, [&](qint64, const QString &phase, double s) {
        const QString text = current + ": " + phase + " " + phaseSeconds(s);
        if (status.onTerminal()) {
            status.progress(text);
        } else if (phase != lastPhase || !phasePrinted.isValid() || phasePrinted.elapsed() >= 15000) {
            status.message(text);
            phasePrinted.start();
        }
        lastPhase = phase;
    });
    // The worker's own log stays in the database; the supervisor's notes about the run are shown.
    QObject::connect(&runner, &supervisor::SweepRunner::logLine, [&](const QString &text) {
        if (text.startsWith("priming the warm compile cache"))
            status.message(current +
                           ": priming the warm compile cache first (one step of this configuration, not stored)");
        if (text.startsWith("adaptive repeats"))
            status.message("stepscope-cli: " + text);
        if (text.startsWith("machine warm-up"))
            status.message("stepscope-cli: " + text + " (not stored; --no-warmup-process skips it)");
    });
    QObject::connect(&runner, &supervisor::SweepRunner::runFinished,
                     [&](qint64 runId, int runStatus, const QString &category, const QString &message) {
                         if (runStatus == static_cast<int>(RunStatus::Complete)) {
                             status.message(current + ": complete (run " + QString::number(runId) + ")");
                             return;
                         }
                         if (runStatus == static_cast<int>(RunStatus::Failed))
                             ++failed;
                         const auto cat = failureCategoryFromString(category.toStdString());
                         status.message(
                             current + ": " +
                             QString::fromStdString(std::string(toString(static_cast<RunStatus>(runStatus)))) + " [" +
                             category + "] " + message +
                             (cat ? "\n    fix: " + QString::fromStdString(std::string(fixFor(*cat))) : QString()) +
                             "\n    detail: stepscope-cli show " + QString::number(runId));
                     });
    QString storageError;
    QObject::connect(&runner, &supervisor::SweepRunner::storageFailed, [&](const QString &message) {
        storageError = message;
        status.message("stepscope-cli: the database refused a write, the sweep stops: " +
                       storeMessage(message.toStdString()));
    });
    QObject::connect(&runner, &supervisor::SweepRunner::finished, [&](bool wasCancelled) {
        cancelled = wasCancelled;
        QCoreApplication::quit();
    });

    // Ctrl-C: the running worker is stopped and its run marked cancelled; finished runs stay.
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    QTimer interruptPoll;
    QObject::connect(&interruptPoll, &QTimer::timeout, [&] {
        if (g_interrupted.exchange(false)) {
            status.message("stepscope-cli: interrupted: stopping the running configuration");
            runner.cancel();
        }
    });
    interruptPoll.start(100);

    QTimer::singleShot(0, &runner, [&] { runner.start(plan); });
    QCoreApplication::exec();
    if (!storageError.isEmpty())
        return kDatabase;
    try {
        db->flush();
    } catch (const store::StoreError &e) {
        err("stepscope-cli: " + storeMessage(e.what()));
        return kDatabase;
    }

    auto reader = store::Reader::open(options.db.toStdString());
    const auto ledger = report::buildLedger(*reader, plan.sweepId, planned);
    std::printf("%s", report::toMarkdown(ledger).c_str());
    if (cancelled)
        return kCancelled;
    return failed > 0 ? kRunsFailed : kOk;
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
        err("stepscope-cli list: no sweep " + QString::number(sweepId) + " in " + options.db);
        return kUsage;
    }
    const auto sweeps = reader->sweeps();
    if (sweeps.empty())
        std::printf("no sweeps in %s\n", qPrintable(options.db));
    for (const auto &s : sweeps) {
        if (sweepId != 0 && s.id != sweepId)
            continue;
        std::printf("sweep %lld  %s  %s  [%s]  %s\n", static_cast<long long>(s.id), printable(s.created).c_str(),
                    printable(s.name).c_str(), printable(s.preset).c_str(), printable(s.status).c_str());
        for (const auto &r : reader->runs(s.id)) {
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

int showCommand(const Options &options, const CommandLine &line)
{
    const QStringList arguments = line.positionalArguments();
    long long sweepId = 0;
    if (!positiveOption(line, "a sweep id (see 'stepscope-cli list')", "sweep", sweepId))
        return kUsage;
    if (sweepId != 0 && !arguments.isEmpty()) {
        err("stepscope-cli show: give a run id or --sweep ID, not both");
        return kUsage;
    }
    if (sweepId != 0) {
        int code = kOk;
        auto reader = openReader(options.db, code);
        if (!reader)
            return code;
        if (!reader->sweep(sweepId)) {
            err("stepscope-cli show: no sweep " + QString::number(sweepId) + " in " + options.db);
            return kUsage;
        }
        printSweepFigures(*reader, sweepId);
        return kOk;
    }
    if (arguments.isEmpty()) {
        err("stepscope-cli show: give a run id, or --sweep ID (see 'stepscope-cli list')");
        return kUsage;
    }
    bool ok = false;
    const qint64 id = arguments.first().toLongLong(&ok);
    if (!ok) {
        err("stepscope-cli show: '" + arguments.first() + "' is not a run id");
        return kUsage;
    }
    int code = kOk;
    auto reader = openReader(options.db, code);
    if (!reader)
        return code;
    const auto run = reader->run(id);
    if (!run) {
        err("stepscope-cli show: no run " + QString::number(id) + " in " + options.db);
        return kUsage;
    }
    std::printf("run %lld (sweep %lld, repeat %lld)\n", static_cast<long long>(run->id),
                static_cast<long long>(run->sweepId), static_cast<long long>(run->repeatIndex));
    std::printf("configuration: %s\n  %s\n", printable(run->configName).c_str(), printable(run->configJson).c_str());
    std::printf("status: %s\n", std::string(toString(run->status)).c_str());
    if (run->category) {
        std::printf("failure: [%s] %s\nfix: %s\n", std::string(toString(*run->category)).c_str(), run->message.c_str(),
                    std::string(fixFor(*run->category)).c_str());
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
                    summary.cv.value_or(NAN), summary.noise.c_str(), summary.timing == "gpu" ? "CUDA events" : "wall");
    } else if (!reading.series.ms.empty()) {
        const std::string prefix = "no steady state: ";
        const std::string why =
            summary.noise.rfind(prefix, 0) == 0 ? summary.noise.substr(prefix.size()) : summary.noise;
        std::printf("steady state: none (%s)\n", why.c_str());
    }
    if (run->peakAllocatedBytes)
        std::printf("peak memory: %.1f MiB allocated, %.1f MiB reserved\n",
                    static_cast<double>(*run->peakAllocatedBytes) / 1048576.0,
                    static_cast<double>(run->peakReservedBytes.value_or(0)) / 1048576.0);
    if (!run->checkLosses.empty()) {
        std::printf("losses of the first steps:");
        for (double l : run->checkLosses)
            std::printf(" %.5f", l);
        std::printf("\n");
    }
    printCompileSection(*run);
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
        err("stepscope-cli export: format '" + format + "' is not allowed; use csv, json or markdown");
        return kUsage;
    }
    if (!out.isEmpty()) {
        if (const QString clash =
                QString::fromStdString(store::databaseFileBehind(out.toStdString(), options.db.toStdString()));
            !clash.isEmpty()) {
            err("stepscope-cli export: refusing to write " + out + ": it is " + clash +
                ", and writing the export there would destroy the measurements. Choose another --out.");
            return kUsage;
        }
    }
    int code = kOk;
    auto reader = openReader(options.db, code);
    if (!reader)
        return code;
    if (sweepId == 0) {
        const auto sweeps = reader->sweeps();
        if (sweeps.empty()) {
            err("stepscope-cli export: no sweeps in " + options.db);
            return kUsage;
        }
        sweepId = sweeps.front().id;
    } else if (!reader->sweep(sweepId)) {
        err("stepscope-cli export: no sweep " + QString::number(sweepId) + " in " + options.db);
        return kUsage;
    }
    const auto ledger = report::buildLedger(*reader, sweepId, planned);
    // Markdown and JSON carry the sweep's other figures too; CSV stays the ledger's one table.
    const std::string text = format == "csv"    ? report::toCsv(ledger)
                             : format == "json" ? report::toJson(ledger, report::sweepFigures(*reader, ledger))
                                                : report::toMarkdown(ledger, report::sweepFigures(*reader, ledger));
    if (out.isEmpty()) {
        std::fwrite(text.data(), 1, text.size(), stdout);
        return kOk;
    }
    QString error;
    if (!writeWhole(out, text, error)) {
        err("stepscope-cli export: cannot write " + out + ": " + error);
        return kDatabase;
    }
    err("stepscope-cli: wrote " + out);
    return kOk;
}

} // namespace stepscope::cli
