// `stepscope-cli run`: the CLI's adapter over the sweep service (supervisor/sweep_service.h). It
// turns flags into a SweepRequest (limits from the service's table), fits the default sweep to the
// machine, and prints the service's typed events; it assembles nothing the dashboard does not.
#include "cli.h"
#include "cli_options.h"
#include "interrupts.h"
#include "status_line.h"

#include "config/config_json.h"
#include "config/presets.h"
#include "config/sweep_baseline.h"
#include "platform/platform.h"
#include "report/ledger.h"
#include "report/recommendation.h"
#include "report/why_table.h"
#include "store/store.h"
#include "supervisor/event_text.h"
#include "supervisor/max_batch_sweep.h"
#include "supervisor/sweep_recipe.h"
#include "supervisor/sweep_service.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>

namespace stepscope::cli
{
namespace
{

bool isConfigField(const QString &key)
{
    for (const auto &f : fields())
        if (key == f.key)
            return true;
    return false;
}

// The lanes --devices names (sweep_lanes.h), from the GPUs the native worker lists; false after
// saying why when it names a device that is not there.
bool lanesOf(const QString &devices, const QString &python, supervisor::SweepRequest &request)
{
    if (devices.isEmpty())
        return true;
    const bool gpus = devices.trimmed() == "all" || devices.contains("cuda");
    const auto found = gpus ? probeNativeWorker(python).gpus : std::vector<supervisor::FoundGpu>{};
    QString problem;
    request.lanes = supervisor::parseLanes(devices, found, problem);
    if (!problem.isEmpty()) {
        printError("stepscope-cli run: nothing was run: " + problem);
        return false;
    }
    return true;
}

// Reads configurations from a JSON file: one object, an array of objects, or {"configs": [...]}.
// The baseline, when the file names one: {"configs": [...], "baseline": N} (1-based) or
// "baseline": true on one configuration; the start states, when it says {"start": "fresh,again"} (or the
// old {"caches": "both"}).
bool readConfigFile(const QString &path, const RunConfig &base, std::vector<RunConfig> &out,
                    std::optional<std::size_t> &baseline, std::optional<supervisor::StartStates> &caches,
                    QString &error)
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
    if (doc.isArray()) {
        items = doc.array();
    } else if (doc.object().contains("configs")) {
        // Beside "configs" only the sweep's own keys: a typo ("basline") is refused, not ignored.
        const QStringList known{"configs", "baseline", "start", "caches"};
        for (const QString &key : doc.object().keys())
            if (!known.contains(key)) {
                error =
                    path + ": unknown key \"" + key + "\" beside \"configs\"; the known ones are " + known.join(", ");
                return false;
            }
        items = doc.object().value("configs").toArray();
    } else {
        items.append(doc.object());
    }
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
    for (const char *key : {"start", "caches"})
        if (doc.isObject() && doc.object().contains(key)) {
            std::string why;
            caches = supervisor::startStatesFromString(doc.object().value(key).toString(), &why);
            if (!caches) {
                error = path + ": \"" + key + "\": " + QString::fromStdString(why);
                return false;
            }
        }
    return true;
}

// What the flags of `run` say, before the machine or a file is looked at.
struct RunFlags {
    supervisor::SweepRequest request;
    RunConfig base;
    QString configFile;
    bool single = false, deviceGiven = false, shapeGiven = false;
    QString devices;                       // --devices, resolved into lanes once the device is known
    std::optional<QString> baselineChoice; // --baseline N|LABEL, resolved once the configurations are known
    QStringList configKeys; // the configuration fields the flags set ("compile", "tf32"), in order, once each
    std::optional<qint64> again; // --again SWEEP: its stored recipe, whole
    std::optional<std::vector<std::string>> knobs; // --knobs: a preset's knobs instead of its own
    bool dryRun = false;                           // --dry-run: say what would run, run nothing
    bool byJoules = false; // --objective energy: the printed verdict is the fewest joules (issue 31.4)
    QStringList others;          // every other flag given, for --again's refusal
};

// A flag's comma list in the CLI's one grammar (commaList, cli.h); empty after the problem is put
// in `errors` under the flag.
QStringList listOf(const QString &text, const char *example, const std::string &flag, std::vector<ConfigError> &errors)
{
    QString problem;
    const QStringList items = commaList(text, example, problem);
    if (!problem.isEmpty())
        errors.push_back({flag, problem.toStdString()});
    return items;
}

// --knobs: a comma list of the presets' knob names (config/presets.h allKnobs), in order, each once;
// an unknown name is refused with the known ones, never skipped while the sweep runs.
std::vector<std::string> knobList(const QString &text, const std::string &flag, std::vector<ConfigError> &errors)
{
    std::vector<std::string> out, known;
    for (const Knob &k : allKnobs())
        known.push_back(k.name);
    for (const QString &part : listOf(text, "tf32,bf16", flag, errors)) {
        const std::string name = part.toStdString();
        if (std::find(known.begin(), known.end(), name) == known.end()) {
            std::string list;
            for (const std::string &k : known)
                list += (list.empty() ? "" : ", ") + k;
            errors.push_back({flag, "'" + name + "' is no knob; the knobs are " + list});
        } else {
            out.push_back(name);
        }
    }
    return out;
}

// The limit a numeric flag of `run` checks against (the service's table); null for other flags.
const supervisor::SweepLimit *limitOf(const QString &option)
{
    for (const supervisor::SweepLimit *limit : supervisor::kSweepLimits)
        if (option == limit->option)
            return limit;
    return nullptr;
}

// A comma list (the one grammar, commaList) of whole numbers from 1 to `max` (--batch 16,32,
// --world-sizes 1,2); empty, with the first bad part named in `errors`, when one is not such a
// number or names a number twice (2,02).
std::vector<int> wholeList(const QString &text, long long max, const char *what, const char *example,
                           const std::string &flag, std::vector<ConfigError> &errors)
{
    std::vector<int> out;
    for (const QString &part : listOf(text, example, flag, errors)) {
        long long n = 0;
        if (!parseWhole(part, n) || n < 1 || n > max) {
            errors.push_back({flag, "'" + part.toStdString() + "' is not " + what + ": give whole numbers from 1 to " +
                                        std::to_string(max) + ", separated by commas (" + example + ")"});
            return {};
        }
        if (std::find(out.begin(), out.end(), static_cast<int>(n)) != out.end()) {
            errors.push_back(
                {flag, std::to_string(n) + " is named twice ('" + part.toStdString() + "'); name each once"});
            return {};
        }
        out.push_back(static_cast<int>(n));
    }
    return out;
}

// In command-line order: a later --device overrides an earlier one, and errors come in order.
bool parseRunFlags(const CommandLine &line, RunFlags &f)
{
    supervisor::SweepRequest &r = f.request;
    r.preset.clear();
    std::vector<ConfigError> errors;
    for (const auto &[option, v] : line.given()) {
        const std::string flag = "--" + option.toStdString();
        if (const supervisor::SweepLimit *limit = limitOf(option)) {
            double n = 0;
            if (!parseNumber(v, n) || !supervisor::withinLimit(*limit, n)) {
                errors.push_back({flag, "'" + v.toStdString() + "' is not allowed; " + supervisor::limitHint(*limit)});
                continue;
            }
            if (limit == &supervisor::kRepeatLimit)
                r.repeats = static_cast<int>(n);
            else if (limit == &supervisor::kTimeoutLimit)
                r.timeoutSeconds = static_cast<int>(n);
            else if (limit == &supervisor::kPlannedStepsLimit)
                r.plannedSteps = static_cast<qint64>(n);
            else if (limit == &supervisor::kUntilCiLimit) {
                r.adaptive = true;
                r.adaptiveHalfWidth = n / 100.0;
            } else if (limit == &supervisor::kMaxRepeatsLimit)
                r.adaptiveMaxProcesses = static_cast<int>(n);
            else if (limit == &supervisor::kProfileStepsLimit)
                r.profileSteps = static_cast<int>(n);
            else
                r.adaptiveMaxMinutes = static_cast<int>(n);
        } else if (option == "preset") {
            r.preset = v;
        } else if (option == "config") {
            f.configFile = v;
        } else if (option == "name") {
            r.name = v;
        } else if (option == "python") {
            r.python = v;
        } else if (option == "baseline") {
            f.baselineChoice = v;
        } else if (option == "cache-dir" || option == "compile-cache-dir") {
            r.cacheRoot = v;
        } else if (option == "again") {
            long long id = 0;
            if (!parseWhole(v, id) || id < 1)
                errors.push_back({flag, "'" + v.toStdString() + "' is not a sweep id (see stepscope-cli list)"});
            else
                f.again = id;
        } else if (option == "single") {
            f.single = true;
        } else if (option == "dry-run") {
            f.dryRun = true;
        } else if (option == "objective") {
            if (v != "time" && v != "energy")
                errors.push_back({flag, "'" + v.toStdString() + "' is not an objective; use time or energy"});
            f.byJoules = v == "energy";
        } else if (option == "knobs") {
            f.knobs = knobList(v, flag, errors);
        } else if (option == "warmup-process" || option == "no-warmup-process") {
            r.machineWarmup = option == "warmup-process";
        } else if (option == "devices") {
            f.devices = v;
            listOf(v, "cuda:0,cuda:1", flag, errors); // its items are read by parseLanes once checked
        } else if (option == "world-sizes") {
            r.worldSizes = wholeList(v, 64, "a world size", "1,2", flag, errors);
        } else if (option == "no-profile") {
            r.profileSteps = 0;
        } else if (option == "max-batch") {
            r.maxBatch = true;
        } else if (option == "fits-from") {
            bool ok = false;
            r.fitsFrom = v.toLongLong(&ok);
            if (!ok || r.fitsFrom < 1)
                errors.push_back({flag, "'" + v.toStdString() + "' is not a sweep number: give the number list "
                                                                 "shows for a --max-batch sweep"});
        } else if (option == "fresh-cuda-cache") {
            r.starts = supervisor::StartStates{};
        } else if (option == "caches" || option == "start") {
            std::string why;
            if (!listOf(v, "fresh,again", flag, errors).isEmpty()) {
                r.starts = supervisor::startStatesFromString(v, &why);
                if (!r.starts)
                    errors.push_back({flag, why});
            }
        } else if (option == "batch" && v.contains(',')) {
            // A batch scan: every configuration at each size (SweepRequest::batches).
            r.batches = wholeList(v, 4096, "a batch size", "16,32,64,128", flag, errors);
            if (!r.batches.empty())
                f.base.batch = r.batches.front();
            f.shapeGiven = true;
        } else if (const QString key = QString(option).replace('-', '_'); isConfigField(key)) {
            ConfigError e;
            if (!setField(f.base, key.toStdString(), v.toStdString(), e))
                errors.push_back({flag, e.message});
            else if (!f.configKeys.contains(key))
                f.configKeys << key;
            f.deviceGiven = f.deviceGiven || key == "device";
            f.shapeGiven =
                f.shapeGiven || key == "batch" || key == "image_size" || key == "steps" || key == "warmup_steps";
        }
        // --db is the program's, read before the command runs.
        if (option != "again" && option != "python" && option != "cache-dir" && option != "compile-cache-dir" &&
            option != "name" && option != "dry-run" && option != "objective")
            f.others << "--" + option;
    }
    if (f.again && !f.others.isEmpty())
        errors.push_back({"--again", "it runs the stored sweep as it was defined, so " + f.others.join(", ").toStdString() +
                                         " cannot go with it; leave " + (f.others.size() == 1 ? "it" : "them") +
                                         " out, or run a new sweep with them"});
    // What to run is said once: a preset, a file, or --single, never two of them.
    const int sources = (r.preset.isEmpty() ? 0 : 1) + (f.configFile.isEmpty() ? 0 : 1) + (f.single ? 1 : 0);
    if (sources > 1)
        errors.push_back({"--preset/--config/--single",
                          "give one of --preset, --config and --single: each names the whole sweep on its own"});
    if (f.knobs && (f.single || !f.configFile.isEmpty()))
        errors.push_back({"--knobs", "it chooses the knobs of a preset; --single and --config name their "
                                     "configurations whole, so leave it out or use --preset"});
    // DDP (a world size above 1) runs only in the Python worker, and unpinned: every rank would pin
    // itself to the same cores. A --runtime native or a --cpu-affinity the user gave would be dropped
    // from those rows, so it is refused; the runtime the user left alone is switched, and said
    // (ddpNote).
    if (const auto ddp = std::find_if(r.worldSizes.begin(), r.worldSizes.end(), [](int w) { return w > 1; });
        ddp != r.worldSizes.end()) {
        const std::string sizes = "--world-sizes " + std::to_string(*ddp);
        if (f.configKeys.contains("runtime") && f.base.runtime == Runtime::Native)
            errors.push_back({"--runtime native", sizes + " runs DDP, which only the Python worker runs; leave "
                                                          "--runtime native out, or give --world-sizes 1"});
        if (f.configKeys.contains("cpu_affinity") && f.base.cpuAffinity != "none")
            errors.push_back({"--cpu-affinity " + f.base.cpuAffinity,
                              sizes + " runs unpinned (every rank would pin itself to the same cores), so the "
                                      "affinity would be dropped from its rows; leave --cpu-affinity out, or give "
                                      "--world-sizes 1"});
    }
    // A max-batch try is one fresh process (supervisor/max_batch_sweep.h): flags that ask otherwise are
    // refused here rather than overridden in silence.
    if (r.maxBatch && r.repeats > 1)
        errors.push_back({"--repeat", "each try of --max-batch is one process: drop --repeat"});
    if (r.maxBatch && r.starts && !(*r.starts == supervisor::StartStates{}))
        errors.push_back({"--start", "every try of --max-batch starts fresh: drop --start"});
    if (r.preset == "combinations" && !f.knobs)
        errors.push_back({"--preset combinations", "it combines the knobs --knobs names (2^k rows for k knobs), and "
                                                   "none were named: add e.g. --knobs tf32,bf16,channels-last"});
    if (errors.empty())
        return true;
    printError("stepscope-cli run: nothing was run:\n  " +
               QString::fromStdString(describe(errors)).replace("\n", "\n  "));
    return false;
}

// The configuration flags whose value `config` does not have, as they were given ("--compile
// default", "--tf32"): what a preset or a --config file decided instead. A flag is never dropped
// without a word (issue 19.9).
QStringList overriddenFlags(const RunFlags &f, const RunConfig &config)
{
    QStringList out;
    for (const QString &key : f.configKeys) {
        const FieldInfo *field = findField(key.toStdString());
        const std::string given = field ? valueText(f.base, *field) : std::string();
        if (!field || valueText(config, *field) == given)
            continue;
        const QString name = "--" + QString(key).replace('_', '-');
        out << (field->isFlag && given == "true" ? name : name + " " + QString::fromStdString(given));
    }
    return out;
}

// A CUDA device that is not there fails every run the same way: say so once, run nothing. Without
// --device the sweep fits the machine: the 224x224 ledger on a GPU, a small CPU ledger otherwise.
bool fitToMachine(RunFlags &f, const std::function<int()> &cudaDevices)
{
    RunConfig &base = f.base;
    if (f.deviceGiven && base.onCuda()) {
        const int gpus = cudaDevices();
        if (base.cudaIndex() >= gpus) {
            printError(
                QString("stepscope-cli run: nothing was run: %1 is not available; LibTorch sees %2 CUDA device(s) "
                        "here. Check nvidia-smi and CUDA_VISIBLE_DEVICES, or use --device cpu.")
                    .arg(QString::fromStdString(base.device))
                    .arg(gpus));
            return false;
        }
    }
    if (f.deviceGiven)
        return true;
    const int gpus = cudaDevices();
    if (gpus > 0) {
        base.device = "cuda";
        printError(QString("stepscope-cli: %1 CUDA device(s) found: running on cuda").arg(gpus));
        return true;
    }
    base.device = "cpu";
    if (!f.shapeGiven) {
        const RunConfig shape = supervisor::defaultShape(false); // the dashboard's CPU default too
        base.imageSize = shape.imageSize;
        base.batch = shape.batch;
        base.steps = shape.steps;
        base.warmupSteps = shape.warmupSteps;
    }
    // Only a preset is the ledger; a file or --single runs what it names.
    const QString shape = QString("%1x%1 images, batch %2").arg(base.imageSize).arg(base.batch);
    if (!f.configFile.isEmpty())
        printError("stepscope-cli: no CUDA device found: configurations that name no device run on the cpu (" + shape +
                   " where they name no shape)");
    else if (f.single)
        printError("stepscope-cli: no CUDA device found: running on the cpu (" + shape + ")");
    else
        printError("stepscope-cli: no CUDA device found: running the small CPU ledger (" + shape +
                   "); CUDA-only knobs are skipped");
    return true;
}

// What the flags ran, as the recipe stored with the sweep (`run --again` replays it): a --config
// file is a custom list, --single the one configuration, a preset its kind with its own knobs.
supervisor::SweepRecipe recipeOf(const RunFlags &f)
{
    const supervisor::SweepRequest &r = f.request;
    supervisor::SweepRecipe recipe = supervisor::defaultRecipe(f.base);
    if (!f.configFile.isEmpty()) {
        recipe.kind = supervisor::SweepKind::Custom;
        recipe.list = r.configs;
    } else if (f.single) {
        recipe.kind = supervisor::SweepKind::Single;
        recipe.base = f.base;
    } else {
        recipe.kind = supervisor::sweepKindFromString(r.preset).value_or(supervisor::SweepKind::Ledger);
    }
    recipe.settings = r;
    recipe.settings.configs.clear();
    recipe.settings.recipe = {};
    if (r.baseline && *r.baseline < r.configs.size())
        recipe.baseline = QString::fromStdString(canonicalName(r.configs[*r.baseline]));
    recipe.devices = f.devices;
    if (recipe.kind != supervisor::SweepKind::Custom && recipe.kind != supervisor::SweepKind::Single)
        recipe.knobs = f.knobs;
    return recipe;
}

// --again SWEEP: the request of the recipe stored with that sweep. A sweep of before recipes (issue
// 29) is its stored configurations, repeats and start states, and that is said.
bool againRequest(RunFlags &f, const QString &dbPath)
{
    supervisor::SweepRequest &r = f.request;
    const QString python = r.python, cacheRoot = r.cacheRoot, name = r.name;
    std::unique_ptr<store::Reader> reader;
    std::optional<store::SweepRecord> sweep;
    try {
        reader = store::Reader::open(dbPath.toStdString());
        sweep = reader->sweep(*f.again);
    } catch (const store::StoreError &e) {
        printError("stepscope-cli run: nothing was run: " + storeMessage(e.what()));
        return false;
    }
    if (!sweep) {
        printError(QString("stepscope-cli run: nothing was run: %1 has no sweep %2 (see stepscope-cli list)")
                       .arg(dbPath)
                       .arg(*f.again));
        return false;
    }
    std::vector<std::string> configJsons;
    for (const store::RunRecord &run : reader->runs(sweep->id))
        configJsons.push_back(run.configJson);
    bool legacy = false;
    std::string why;
    auto stored = supervisor::recipeToRunAgain(*sweep, configJsons, legacy, why);
    if (!stored) {
        printError(QString("stepscope-cli run: nothing was run: sweep %1 cannot run again here: %2")
                       .arg(sweep->id)
                       .arg(QString::fromStdString(why)));
        return false;
    }
    supervisor::SweepRecipe &recipe = *stored;
    if (legacy)
        printError(QString("stepscope-cli: sweep %1 was recorded before sweeps kept their recipe: running its %2 "
                           "configuration(s) with its repeats and start states; every other setting is the default")
                       .arg(sweep->id)
                       .arg(recipe.list.size()));
    if (!name.isEmpty())
        recipe.settings.name = name;
    recipe.settings.python = python;
    recipe.settings.cacheRoot = cacheRoot;
    std::string error;
    Sweep expanded;
    if (!supervisor::requestOf(recipe, r, error, &expanded)) {
        printError("stepscope-cli run: nothing was run: sweep " + QString::number(sweep->id) + ": " +
                   QString::fromStdString(error));
        return false;
    }
    for (const auto &s : expanded.skipped)
        printError("stepscope-cli: skipped " + QString::fromStdString(s));
    f.devices = recipe.devices;
    printError(QString("stepscope-cli: running sweep %1 again: %2, %3 configuration(s)")
                   .arg(sweep->id)
                   .arg(r.preset)
                   .arg(r.configs.size()));
    return true;
}

// The configurations the flags name: a --config file, --single, or a preset over the flags.
bool sweepConfigs(RunFlags &f, const std::function<int()> &cudaDevices)
{
    supervisor::SweepRequest &r = f.request;
    const auto refuse = [](const std::vector<ConfigError> &problems) {
        printError("stepscope-cli run: nothing was run:\n  " +
                   QString::fromStdString(describe(problems)).replace("\n", "\n  "));
        return false;
    };
    if (!f.configFile.isEmpty()) {
        QString error;
        std::optional<supervisor::StartStates> fileCaches;
        if (!readConfigFile(f.configFile, f.base, r.configs, r.baseline, fileCaches, error)) {
            printError("stepscope-cli run: nothing was run: " + error);
            return false;
        }
        if (!r.starts) // --start overrides the file's
            r.starts = fileCaches;
        // Flags are the defaults of the file's configurations; where one names the field itself, it
        // wins, and that is said.
        std::map<QString, QStringList> overridden; // flag -> the configurations that set another value
        QStringList order;
        for (std::size_t k = 0; k < r.configs.size(); ++k)
            for (const QString &flag : overriddenFlags(f, r.configs[k])) {
                if (!overridden.count(flag))
                    order << flag;
                overridden[flag] << QString::number(k + 1);
            }
        for (const QString &flag : order)
            printError("stepscope-cli: " + flag + " is overridden by " + f.configFile + ": configuration" +
                       (overridden[flag].size() == 1 ? " " : "s ") + overridden[flag].join(", ") +
                       (overridden[flag].size() == 1 ? " sets" : " set") + " it otherwise");
        // A CUDA device the file names that is not there is refused as the flag is, before anything
        // is written (a sweep of runs that can only fail helps nobody).
        for (std::size_t k = 0; k < r.configs.size(); ++k) {
            if (r.configs[k].onCuda() && r.configs[k].cudaIndex() >= cudaDevices()) {
                printError(
                    QString("stepscope-cli run: nothing was run: %1, configuration %2: %3 is not available; "
                            "LibTorch sees %4 CUDA device(s) here. Check nvidia-smi and CUDA_VISIBLE_DEVICES, or "
                            "use \"device\": \"cpu\".")
                        .arg(f.configFile)
                        .arg(k + 1)
                        .arg(QString::fromStdString(r.configs[k].device))
                        .arg(cudaDevices()));
                return false;
            }
        }
        r.preset = "custom";
    } else if (f.single) {
        if (const auto problems = validate(f.base); !problems.empty())
            return refuse(problems);
        r.configs.push_back(f.base);
        r.preset = "single";
    } else {
        if (r.preset.isEmpty())
            r.preset = "ledger";
        // A preset builds every row from its baseline, which keeps the shape and none of the knobs:
        // a knob flag would do nothing, so nothing runs rather than a sweep without it.
        if (const QStringList dropped = overriddenFlags(f, baselineOf(f.base)); !dropped.isEmpty()) {
            printError("stepscope-cli run: nothing was run: the " + r.preset +
                       " preset chooses every row's knobs itself, so " + dropped.join(", ") +
                       " would be dropped. To run one configuration with " + (dropped.size() == 1 ? "it" : "them") +
                       ", add --single; for several, list them in a --config file (see 'stepscope-cli run "
                       "--help').");
            return false;
        }
        if (const auto problems = validate(baselineOf(f.base)); !problems.empty())
            return refuse(problems);
        // The preset is a recipe of its kind with the kind's own knobs (supervisor/sweep_recipe.h):
        // the dashboard's default sweep is this one.
        const std::vector<std::string> &presets = presetNames(); // the presets --help lists
        if (std::find(presets.begin(), presets.end(), r.preset.toStdString()) == presets.end()) {
            QStringList names;
            for (const std::string &p : presets)
                names << QString::fromStdString(p);
            printError("stepscope-cli run: unknown preset '" + r.preset + "'; choose " + names.join(" or "));
            return false;
        }
        const Sweep sweep = supervisor::expand(recipeOf(f)); // the recipe stored with the sweep below
        for (const auto &s : sweep.skipped)
            printError("stepscope-cli: skipped " + QString::fromStdString(s));
        r.configs = sweep.configs;
    }
    if (f.baselineChoice) {
        std::string error;
        r.baseline = findBaseline(r.configs, f.baselineChoice->toStdString(), error);
        if (!r.baseline) {
            printError("stepscope-cli run: nothing was run: --baseline " + QString::fromStdString(error));
            return false;
        }
    }
    r.recipe = supervisor::toJson(recipeOf(f));
    return true;
}

// The service's events as the CLI says them. The worker's own log stays in the database; the
// supervisor's notes about the run are shown. Progress on a terminal redraws one line; every other
// message clears it first and takes a line of its own. Through a pipe or into a file, whole lines.
class SweepPrinter
{
  public:
    SweepPrinter(StatusLine &status, int lanes) : status_(status), lanes_(lanes) {}

    int failed = 0;
    bool cancelled = false, finished = false;
    QString storageError;

    void print(const supervisor::SweepEvent &e)
    {
        using namespace supervisor::event;
        std::visit(supervisor::Overloaded{
                       [&](const RunStarted &x) { showStarted(x); },
                       [&](const Progress &x) { showProgress(x); },
                       [&](const FirstStep &x) {
                           status_.message(label(x.runId) + ": first step " +
                                           QString::fromStdString(report::formatSeconds(x.seconds)));
                       },
                       [&](const Phase &x) { showPhase(x); },
                       [&](const RunFinished &x) { showFinished(x); },
                       [&](const StorageFailed &x) {
                           storageError = x.message;
                           status_.message("stepscope-cli: the database refused a write, the sweep stops: " +
                                           storeMessage(x.message.toStdString()));
                       },
                       [&](const Finished &x) {
                           cancelled = x.cancelled;
                           finished = true;
                           QCoreApplication::quit();
                       },
                       // The worker's own records and log stay in the database.
                       [](const Environment &) {}, [](const CompileInfo &) {}, [](const Log &) {},
                       // The stages and reports core words (supervisor/event_text.h), the Log page's words too.
                       [&](const auto &) { status_.message("stepscope-cli: " + supervisor::describe(e)); },
                   },
                   e);
    }

  private:
    void showStarted(const supervisor::event::RunStarted &e)
    {
        // With lanes several runs go at once: each message names its run's lane.
        current_ = QString("[%1/%2%3] %4")
                       .arg(e.index + 1)
                       .arg(e.total)
                       .arg(e.lane.label.isEmpty() ? QString() : " " + e.lane.label)
                       .arg(e.config);
        labels_[e.runId] = current_;
        lastPhase_.clear();
        // The service's estimate from what each run costs (supervisor/time_left.h): measured runs
        // of the same configuration, or a guess from others, said to be one.
        status_.message(current_ + ": starting" + (e.left.seconds >= 0 ? " (" + timeLeft(e.left) + ")" : QString()));
    }

    void showProgress(const supervisor::event::Progress &e)
    {
        // Re-estimated from the pace of this run's steps as they come (supervisor/time_left.h).
        const QString left = e.left.seconds >= 0 ? ", " + timeLeft(e.left) : QString();
        if (e.steps > 0 && lanes_ > 1)
            status_.progress(QString("%1 of %2 runs done on %3 lanes").arg(e.runsDone).arg(e.total).arg(lanes_) + left);
        else if (e.steps > 0)
            status_.progress(current_ + QString(": step %1/%2").arg(e.step).arg(e.steps) + left);
    }

    // "about 3 min left", rounded as far as an estimate deserves; ", a guess" where runs of another
    // kind stood in for some of it.
    static QString timeLeft(const supervisor::TimeLeftEstimate &left)
    {
        return QString::fromStdString(supervisor::roundedTimeLeft(double(left.seconds))) + " left" +
               (left.guess ? ", a guess" : "");
    }

    // A compile can take minutes without a step: say what the worker is doing, so that it never
    // looks like a hang (a line at most every 15 s when stderr is a file or a pipe).
    void showPhase(const supervisor::event::Phase &e)
    {
        const QString phase = (e.priming ? "priming: " : "") + e.phase;
        const QString text = label(e.runId) + ": " + phase + " " + phaseSeconds(e.seconds);
        if (status_.onTerminal()) {
            status_.progress(text);
        } else if (phase != lastPhase_ || !phasePrinted_.isValid() || phasePrinted_.elapsed() >= 15000) {
            status_.message(text);
            phasePrinted_.start();
        }
        lastPhase_ = phase;
    }

    void showFinished(const supervisor::event::RunFinished &e)
    {
        const QString run = label(e.runId);
        if (e.status == RunStatus::Complete) {
            status_.message(run + ": complete (run " + QString::number(e.runId) + ")");
            return;
        }
        if (e.status == RunStatus::Failed)
            ++failed;
        const QString category =
            e.failure ? QString::fromUtf8(toString(e.failure->category).data()) : QString("internal");
        status_.message(run + ": " + QString::fromUtf8(toString(e.status).data()) + " [" + category + "] " +
                        (e.failure ? QString::fromStdString(e.failure->message) : QString()) +
                        (e.failure ? "\n    fix: " + QString::fromUtf8(fixFor(*e.failure).data()) : QString()) +
                        "\n    detail: stepscope-cli show " + QString::number(e.runId));
    }

    StatusLine &status_;
    // The run an event is about, as RunStarted named it ("[3/21 cuda:1] python cuda b32 ..."); the
    // last one started when the event names no run.
    QString label(qint64 runId) const
    {
        const auto it = labels_.find(runId);
        return it == labels_.end() ? current_ : it->second;
    }

    int lanes_ = 1;
    std::map<qint64, QString> labels_;
    QString current_, lastPhase_;
    QElapsedTimer phasePrinted_;
};

} // namespace

// What the dashboard says above Start (supervisor/sweep_recipe.h preview), as the CLI's first line:
// "7 configuration(s) x 2 repeat(s) into FILE: 14 run(s), about 6 min": the time from this
// database's runs on this host, else the shipped run costs.
QString planText(const supervisor::SweepRequest &request, const QString &db)
{
    const supervisor::SweepPreview preview =
        supervisor::preview(request, supervisor::timeLeftBefore(db.toStdString(), platform::hostName()));
    const QString estimate =
        !preview.estimate ? QString(", time unknown")
                          : ", " + QString::fromStdString(supervisor::roundedTimeLeft(preview.estimate->seconds)) +
                                (preview.estimate->guess ? ", a guess" : "");
    return QString("%1 configuration(s) x %2 repeat(s) into %3: %4 run(s)%5")
        .arg(supervisor::withDefaults(request).configs.size())
        .arg(preview.repeats)
        .arg(db)
        .arg(preview.runs)
        .arg(estimate);
}

// A world size above 1 moves the configurations that would run natively into the Python worker
// (supervisor::withDefaults): said on standard error, never done without a word.
void ddpNote(const supervisor::SweepRequest &request)
{
    const auto ddp = std::find_if(request.worldSizes.begin(), request.worldSizes.end(), [](int w) { return w > 1; });
    if (ddp == request.worldSizes.end())
        return;
    if (std::any_of(request.configs.begin(), request.configs.end(),
                    [](const RunConfig &c) { return c.runtime == Runtime::Native; }))
        printError(QString("stepscope-cli: --world-sizes %1 runs in the Python worker: DDP runs only there, so every "
                           "configuration of this sweep runs in the Python worker (--runtime python), at each world "
                           "size, to compare in one runtime")
                       .arg(*ddp));
    // A pinned configuration of a preset or a --config file (a --cpu-affinity flag was refused): in
    // the sweep as it will run, pinned at world size 1 and not above.
    QStringList pinned;
    for (const RunConfig &c : supervisor::withDefaults(request).configs)
        if (c.worldSize == 1 && c.cpuAffinity != "none")
            pinned << QString::fromStdString(canonicalName(c));
    if (!pinned.isEmpty())
        printError(QString("stepscope-cli: --world-sizes %1 runs unpinned, since every rank would pin itself to the "
                           "same cores: %2 keep%3 the pinning at world size 1 only")
                       .arg(*ddp)
                       .arg(pinned.join(", "))
                       .arg(pinned.size() == 1 ? "s" : ""));
}

// --dry-run: the configurations the sweep would run, one canonical name a line on standard output
// (what a script or a test compares), and the plan's line on standard error; the service's checks
// are made, so a sweep it would refuse is refused here too. The database is read for the estimate,
// never created or written.
int dryRun(const supervisor::SweepRequest &request, const QString &db)
{
    std::vector<ConfigError> problems = supervisor::validate(request);
    const supervisor::SweepRequest full = supervisor::withDefaults(request);
    if (problems.empty() && (!request.batches.empty() || !request.worldSizes.empty()))
        problems = supervisor::validate(full);
    if (!problems.empty()) {
        printError("stepscope-cli run: nothing would run:\n  " +
                   QString::fromStdString(describe(problems)).replace("\n", "\n  "));
        return kUsage;
    }
    for (const RunConfig &c : full.configs)
        std::printf("%s\n", canonicalName(c).c_str());
    printError("stepscope-cli: dry run: " + planText(request, db) + "; nothing was run or written");
    return kOk;
}

int runCommand(const Options &options, const CommandLine &line)
{
    RunFlags flags;
    if (!parseRunFlags(line, flags))
        return kUsage;
    std::optional<int> gpusSeen; // asked of the worker once, when first needed
    const std::function<int()> cudaDevices = [&] {
        if (!gpusSeen)
            gpusSeen = probeNativeWorker(flags.request.python).cudaDevices;
        return *gpusSeen;
    };
    if (flags.again) {
        if (!againRequest(flags, options.db) || !lanesOf(flags.devices, flags.request.python, flags.request))
            return kUsage;
    } else if (!fitToMachine(flags, cudaDevices) || !sweepConfigs(flags, cudaDevices) ||
               !lanesOf(flags.devices, flags.request.python, flags.request))
        return kUsage;
    ddpNote(flags.request);
    if (flags.dryRun)
        return dryRun(flags.request, options.db);
    // The service's own check, made before the database is opened: a refused run leaves no file.
    if (const auto problems = supervisor::validate(flags.request); !problems.empty()) {
        printError("stepscope-cli run: nothing was run:\n  " +
                   QString::fromStdString(describe(problems)).replace("\n", "\n  "));
        return kUsage;
    }

    QDir().mkpath(QFileInfo(options.db).absolutePath());
    std::unique_ptr<store::Database> db;
    try {
        db = store::Database::open(options.db.toStdString());
    } catch (const store::StoreError &e) {
        printError("stepscope-cli: " + storeMessage(e.what()));
        return kDatabase;
    }
    std::optional<supervisor::PreparedSweep> sweep;
    try {
        std::vector<ConfigError> problems;
        sweep = supervisor::SweepService::prepare(*db, flags.request, problems);
        if (!sweep) {
            printError("stepscope-cli run: nothing was run:\n  " +
                       QString::fromStdString(describe(problems)).replace("\n", "\n  "));
            return kUsage;
        }
    } catch (const store::StoreError &e) {
        printError("stepscope-cli: " + storeMessage(e.what()));
        return kDatabase;
    }
    printError(QString("stepscope-cli: sweep %1: %2").arg(sweep->plan.sweepId).arg(planText(flags.request, options.db)));
    if (!sweep->options.lanes.empty()) {
        QStringList lanes;
        for (const auto &lane : sweep->options.lanes)
            lanes << lane.label + (lane.cudaIndex >= 0 ? " (" + lane.model + ")" : QString());
        printError(QString("stepscope-cli: %1 %2, one timed process on each at a time: %3")
                       .arg(lanes.size())
                       .arg(lanes.size() == 1 ? "lane" : "lanes")
                       .arg(lanes.join(", ")));
        if (!sweep->lanesNote.isEmpty())
            printError("stepscope-cli: " + sweep->lanesNote);
        if (!sweep->fitsNote.isEmpty())
            printError("stepscope-cli: " + sweep->fitsNote);
    }
    if (sweep->hasPythonRuns) {
        // Said once up front; each python run then fails python-not-found with the same words.
        const supervisor::WorkerCommand &python = sweep->options.python;
        if (python.program.isEmpty())
            printError("stepscope-cli: python runs will fail: " + python.origin);
        else
            printError("stepscope-cli: python runs use " + python.program + " (" + python.origin + ")");
    }
    // Said once up front too; each native run then fails with the same words.
    supervisor::SweepService::locateTorchFor(*sweep);
    if (const supervisor::TorchLocation &torch = sweep->options.torch; !torch.usable())
        printError("stepscope-cli: native runs will fail: " + supervisor::problemAndFix(torch.problem, torch.fix));

    supervisor::SweepService service(*db);
    StatusLine status;
    const ScopedMessageHandler ownLines(status);
    SweepPrinter printer(status, static_cast<int>(sweep->options.lanes.size()));
    QObject::connect(&service, &supervisor::SweepService::sweepEvent,
                     [&printer](const supervisor::SweepEvent &e) { printer.print(e); });

    // Every interrupt ends a sweep the same way: the running worker is stopped and its run marked
    // cancelled; finished runs stay.
    const InterruptWatch interrupts([&] {
        status.message("stepscope-cli: interrupted: stopping the running configuration");
        service.cancel();
    });

    QTimer::singleShot(0, &service, [&] { service.start(*sweep); });
    QCoreApplication::exec();
    if (!printer.storageError.isEmpty())
        return kDatabase;
    try {
        db->flush();
    } catch (const store::StoreError &e) {
        printError("stepscope-cli: " + storeMessage(e.what()));
        return kDatabase;
    }

    auto reader = store::Reader::open(options.db.toStdString());
    if (sweep->request.maxBatch) {
        // Its runs are tries of many batches, short and untimed: the answer is the sweep's table, no ledger.
        const auto searches = supervisor::maxBatchSearches(*reader, sweep->plan.sweepId);
        std::printf("%s", supervisor::maxBatchMarkdown(searches).c_str());
        if (printer.cancelled)
            return kCancelled;
        // Out-of-memory tries are how a search works; only a search stopped by another failure failed.
        const bool stopped = std::any_of(searches.begin(), searches.end(), [](const supervisor::MaxBatchSearch &s) {
            return s.state.stop == report::MaxBatchState::Stop::Failed;
        });
        return stopped ? kRunsFailed : kOk;
    }
    auto ledger = report::buildLedger(*reader, sweep->plan.sweepId, sweep->request.plannedSteps);
    // Asked for the fewest joules: the verdict is theirs where the rows have energy figures; where
    // none has, the time verdict stays and says why (the sweep ran, so this is no usage error).
    const bool byJoules = flags.byJoules && report::recommendByJoules(ledger);
    std::printf("%s", report::toMarkdown(ledger).c_str());
    if (flags.byJoules && !byJoules)
        std::printf("\nNo verdict by energy: no row has the figures to pick by (%s); the verdict above is by time.\n",
                    ledger.rows.empty() ? "no rows" : report::energyText(ledger.rows.front().energy).c_str());
    // A sweep that settles nowhere (or lost its baseline) ends with why there is no verdict, not
    // with silence after the table.
    if (!ledger.noRecommendationReason.empty())
        std::printf("\nNo recommendation because %s.\n", ledger.noRecommendationReason.c_str());
    // A batch scan: the other batches' ledgers, then the verdict across them.
    for (const int batch : ledger.batches)
        if (batch != ledger.batch)
            std::printf("\n%s",
                        report::toMarkdown(report::buildLedger(*reader, sweep->plan.sweepId,
                                                               sweep->request.plannedSteps, {}, ledger.start, batch))
                            .c_str());
    std::printf(
        "%s",
        report::batchScanText(report::batchScan(*reader, sweep->plan.sweepId, sweep->request.plannedSteps)).c_str());
    if (printer.cancelled)
        return kCancelled;
    return printer.failed > 0 ? kRunsFailed : kOk;
}

} // namespace stepscope::cli
