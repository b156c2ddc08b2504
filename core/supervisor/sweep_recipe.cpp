#include "supervisor/sweep_recipe.h"

#include "config/config_json.h"
#include "config/model_name.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <map>

namespace stepscope::supervisor
{
namespace
{

constexpr const char *kKindWords[] = {"ledger", "each", "combinations", "custom", "single"};

bool contains(const Sweep &sweep, const RunConfig &c)
{
    return std::find(sweep.configs.begin(), sweep.configs.end(), c) != sweep.configs.end();
}

// Adds `c` unless it is already there; an invalid one is skipped with validate()'s first reason.
void add(Sweep &sweep, const RunConfig &c, std::map<std::string, int> *grouped = nullptr)
{
    if (contains(sweep, c))
        return;
    const auto errors = validate(c);
    if (errors.empty()) {
        sweep.configs.push_back(c);
        return;
    }
    const std::string why = errors.front().field + ": " + errors.front().message;
    if (grouped)
        ++(*grouped)[why];
    else
        sweep.skipped.push_back(knobLabel(c) + " (" + why + ")");
}

void addCompiled(Sweep &sweep, const RunConfig &eager, const CompileChoice &compile,
                 std::map<std::string, int> *grouped = nullptr)
{
    if (!compile.enabled())
        return;
    for (const RunConfig &c : compile.applyTo(eager))
        add(sweep, c, grouped);
}

Sweep expandKind(const SweepRecipe &recipe, const RunConfig &base, const std::vector<std::string> &knobs)
{
    const CompileChoice compile = recipe.compile.value_or(CompileChoice{});
    Sweep sweep;
    switch (recipe.kind) {
    case SweepKind::Single:
        for (const RunConfig &c : compile.applyTo(base))
            sweep.configs.push_back(c); // invalid ones too: the caller reports validate()'s message
        break;
    case SweepKind::Custom:
        sweep.configs = recipe.list;
        break;
    case SweepKind::Ledger: {
        sweep = cumulativeSweep(base, knobs);
        if (!recipe.compile) {
            addLedgerPythonRows(sweep, base);
            break;
        }
        if (!compile.enabled())
            break;
        RunConfig eager = sweep.configs.back(); // every knob that applied
        eager.cudaGraph = false;
        eager.optimizer = Optimizer::Foreach;
        eager.runtime = Runtime::Python;
        // Unpinned, as in the preset: inductor sizes its compile workers by the allowed cores, and
        // one core would serialize the cold compile.
        eager.cpuAffinity = "none";
        add(sweep, eager);
        addCompiled(sweep, eager, compile);
        break;
    }
    case SweepKind::Each:
        // With no knob but compile, the baseline and compile alone (eachSweep with no names would
        // run every knob).
        if (knobs.empty() && compile.enabled())
            sweep.configs.push_back(baselineOf(base));
        else
            sweep = eachSweep(base, knobs);
        addCompiled(sweep, baselineOf(base), compile);
        break;
    case SweepKind::Combinations: {
        sweep = combinationSweep(base, knobs);
        const auto eager = sweep.configs;
        std::map<std::string, int> grouped;
        for (const RunConfig &c : eager)
            addCompiled(sweep, c, compile, &grouped);
        for (const auto &[why, n] : grouped)
            sweep.skipped.push_back("compile on " + std::to_string(n) + " combination(s) (" + why + ")");
        break;
    }
    }
    return sweep;
}

QJsonArray numbers(const std::vector<int> &values)
{
    QJsonArray a;
    for (const int v : values)
        a.append(v);
    return a;
}

std::vector<int> numbersOf(const QJsonValue &v)
{
    std::vector<int> out;
    for (const QJsonValue &n : v.toArray())
        out.push_back(n.toInt());
    return out;
}

} // namespace

const char *toString(SweepKind kind)
{
    return kKindWords[static_cast<int>(kind)];
}

std::optional<SweepKind> sweepKindFromString(const QString &word)
{
    for (int k = 0; k < static_cast<int>(std::size(kKindWords)); ++k)
        if (word == QLatin1String(kKindWords[k]))
            return static_cast<SweepKind>(k);
    return std::nullopt;
}

std::vector<RunConfig> CompileChoice::applyTo(const RunConfig &eager) const
{
    if (!enabled())
        return {eager};
    RunConfig c = eager;
    c.runtime = Runtime::Python; // torch.compile has no C++ training path
    c.compile = mode;
    c.compileBackend = backend;
    c.compileTarget = target;
    return {c};
}

RunConfig defaultShape(bool cuda)
{
    RunConfig c;
    c.device = cuda ? "cuda" : "cpu";
    if (!cuda) {
        c.batch = 8;
        c.imageSize = 64;
        c.warmupSteps = 5;
        c.steps = 30;
    }
    return c;
}

SweepRecipe defaultRecipe(const RunConfig &shape)
{
    SweepRecipe recipe;
    recipe.base = baselineOf(shape);
    return recipe;
}

std::vector<std::string> defaultKnobs(SweepKind kind, const RunConfig &base)
{
    if (kind == SweepKind::Ledger)
        return ledgerKnobNames(base);
    return {}; // Each: every knob (eachSweep's own set); the others take none of their own
}

Sweep expand(const SweepRecipe &recipe)
{
    // A core list is the pin knob with other cores: the presets know pin-one-core, so the sweep is
    // built with it and the list put back in its place at the end.
    RunConfig base = recipe.base;
    const bool coreList = base.cpuAffinity != "none" && base.cpuAffinity != "one";
    const bool rows = recipe.kind != SweepKind::Single && recipe.kind != SweepKind::Custom;
    if (coreList && rows)
        base.cpuAffinity = "one";
    std::vector<std::string> knobs = recipe.knobs ? *recipe.knobs : defaultKnobs(recipe.kind, base);
    if (coreList && rows && std::find(knobs.begin(), knobs.end(), "pin-one-core") == knobs.end())
        knobs.push_back("pin-one-core");
    // The thread count and the memory limit come with the shape into every row (withShapeOf), not as knobs.
    knobs.erase(std::remove_if(knobs.begin(), knobs.end(),
                               [](const std::string &k) { return k.rfind("threads-", 0) == 0 || k.rfind("mem-", 0) == 0; }),
                knobs.end());
    Sweep sweep = expandKind(recipe, base, knobs);
    // Issue 30.3: a sweep of rows builds them with withShapeOf, which moves another model's rows to
    // the Python worker (the recipe's base is already there). The ledger adds one native row, on the
    // model's TorchScript export; the other kinds say where their native rows went.
    if (rows && base.model != kDefaultModel && recipe.kind != SweepKind::Ledger)
        sweep.skipped.push_back("the native C++ runtime for " + base.model +
                                " (its rows run in the Python worker; the ledger, or a row with runtime native, runs "
                                "it in the native worker from a TorchScript export)");
    if (base.cpuAffinity != recipe.base.cpuAffinity)
        for (RunConfig &c : sweep.configs)
            if (c.cpuAffinity == "one")
                c.cpuAffinity = recipe.base.cpuAffinity;
    return sweep;
}

bool requestOf(const SweepRecipe &recipe, SweepRequest &out, std::string &error, Sweep *expanded)
{
    Sweep sweep = expand(recipe);
    out = recipe.settings;
    out.configs = sweep.configs;
    out.preset = QString::fromLatin1(toString(recipe.kind));
    out.baseline.reset();
    if (!recipe.baseline.isEmpty()) {
        for (std::size_t i = 0; i < sweep.configs.size(); ++i)
            if (QString::fromStdString(canonicalName(sweep.configs[i])) == recipe.baseline)
                out.baseline = i;
        if (!out.baseline) {
            error = "the baseline " + recipe.baseline.toStdString() + " is not a configuration of this sweep";
            return false;
        }
    }
    out.recipe = toJson(recipe);
    if (expanded)
        *expanded = std::move(sweep);
    return true;
}

std::optional<SweepRecipe> recipeToRunAgain(const store::SweepRecord &sweep,
                                            const std::vector<std::string> &configJsons, bool &legacy,
                                            std::string &error)
{
    const QJsonObject settings = QJsonDocument::fromJson(QByteArray::fromStdString(sweep.settingsJson)).object();
    legacy = !settings.contains("recipe");
    std::optional<SweepRecipe> recipe;
    if (!legacy) {
        recipe = recipeFromJson(settings.value("recipe").toObject(), error);
        if (!recipe)
            return std::nullopt;
    } else {
        // An older sweep's compile_cache key is the runs' start state now (docs/decisions.md "Start
        // states"): its cold and warm rows are one configuration again, run under the sweep's starts.
        recipe.emplace();
        recipe->kind = SweepKind::Custom;
        for (const std::string &json : configJsons) {
            RunConfig c;
            std::vector<ConfigError> errors;
            if (!parseStoredConfig(QByteArray::fromStdString(json), c, errors)) {
                error = "a configuration of it does not read: " + describe(errors);
                return std::nullopt;
            }
            if (std::find(recipe->list.begin(), recipe->list.end(), c) == recipe->list.end())
                recipe->list.push_back(c);
        }
        recipe->settings.repeats = settings.value("repeats").toInt(1);
        // Unset: automatic. Sweeps before start states kept the old words under "caches".
        recipe->settings.starts = startStatesFromString(settings.contains("starts") ? settings.value("starts").toString()
                                                                                    : settings.value("caches").toString());
        recipe->settings.plannedSteps = sweep.plannedSteps;
        recipe->baseline = QString::fromStdString(sweep.baselineConfig);
    }
    const QString before = QString::fromStdString(sweep.name);
    recipe->settings.name = before.endsWith(QLatin1String(" (again)")) ? before : before + " (again)";
    return recipe;
}

SweepPreview preview(const SweepRequest &request, const TimeLeft &history)
{
    SweepPreview p;
    p.batchSizes = static_cast<int>(request.batches.size());
    // As the service will run it: automatic starts resolved, a batch scan's configurations made,
    // adaptive repeats at their least.
    const SweepRequest r = withDefaults(request);
    p.configurations = static_cast<int>(r.configs.size());
    p.repeats = r.repeats;
    p.adaptive = r.adaptive;
    p.starts = r.starts.value_or(StartStates{});
    p.startsChosen = !(p.starts == StartStates{});
    const auto runs = orderRuns(r.configs, r.repeats, p.starts);
    p.runs = static_cast<int>(runs.size());
    // Lanes share the runs (sweep_service.cpp divides the estimate the same way).
    p.lanes = std::max(1, static_cast<int>(r.lanes.size()));
    p.estimate = history.left(runKeys(runs), 0, 0);
    if (p.estimate)
        p.estimate->seconds /= p.lanes;
    return p;
}

std::string compileProblems(const RunConfig &config)
{
    std::vector<ConfigError> mine;
    for (const auto &e : validate(config))
        if (e.field.rfind("compile", 0) == 0)
            mine.push_back(e);
    return describe(mine);
}

QJsonObject toJson(const SweepRecipe &r)
{
    QJsonObject o;
    o.insert("version", SweepRecipe::kVersion);
    o.insert("kind", QString::fromLatin1(toString(r.kind)));
    o.insert("base", toJson(r.base));
    if (r.knobs) {
        QJsonArray knobs;
        for (const std::string &k : *r.knobs)
            knobs.append(QString::fromStdString(k));
        o.insert("knobs", knobs);
    }
    if (r.compile) {
        RunConfig c;
        c.compile = r.compile->mode;
        c.compileBackend = r.compile->backend;
        c.compileTarget = r.compile->target;
        const QJsonObject all = toJson(c);
        o.insert("compile", QJsonObject{{"compile", all.value("compile")},
                                        {"compile_backend", all.value("compile_backend")},
                                        {"compile_target", all.value("compile_target")}});
    }
    if (r.kind == SweepKind::Custom) {
        QJsonArray list;
        for (const RunConfig &c : r.list)
            list.append(toJson(c));
        o.insert("list", list);
    }
    if (!r.baseline.isEmpty())
        o.insert("baseline", r.baseline);
    if (!r.devices.isEmpty())
        o.insert("devices", r.devices);
    const SweepRequest &s = r.settings;
    o.insert("repeats", s.repeats);
    o.insert("planned_steps", static_cast<double>(s.plannedSteps));
    if (!s.name.isEmpty())
        o.insert("name", s.name);
    o.insert("timeout_s", s.timeoutSeconds);
    if (s.starts)
        o.insert("starts", QString::fromStdString(toString(*s.starts)));
    if (s.machineWarmup)
        o.insert("warmup_process", *s.machineWarmup);
    if (s.adaptive)
        o.insert("adaptive", QJsonObject{{"half_width", s.adaptiveHalfWidth},
                                         {"max_processes", s.adaptiveMaxProcesses},
                                         {"max_minutes", s.adaptiveMaxMinutes}});
    o.insert("profile_steps", s.profileSteps);
    if (!s.batches.empty())
        o.insert("batches", numbers(s.batches));
    if (!s.worldSizes.empty())
        o.insert("world_sizes", numbers(s.worldSizes));
    if (s.maxBatch)
        o.insert("max_batch", true);
    return o;
}

std::optional<SweepRecipe> recipeFromJson(const QJsonObject &o, std::string &error)
{
    const int version = o.value("version").toInt(0);
    if (version < 1 || version > SweepRecipe::kVersion) {
        error = "its recipe is of version " + std::to_string(version) + "; this Stepscope reads version " +
                std::to_string(SweepRecipe::kVersion) + (version > SweepRecipe::kVersion ? ": use a newer Stepscope" : "");
        return std::nullopt;
    }
    SweepRecipe r;
    const auto kind = sweepKindFromString(o.value("kind").toString());
    if (!kind) {
        error = "its recipe has the unknown kind '" + o.value("kind").toString().toStdString() + "'";
        return std::nullopt;
    }
    r.kind = *kind;
    const auto config = [&](const QJsonValue &v, RunConfig &c, const char *what) {
        std::vector<ConfigError> errors;
        if (parseStoredConfig(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact), c, errors))
            return true;
        error = std::string("its recipe's ") + what + " does not read: " + describe(errors);
        return false;
    };
    if (!config(o.value("base"), r.base, "base configuration"))
        return std::nullopt;
    if (o.contains("knobs")) {
        r.knobs.emplace();
        for (const QJsonValue &k : o.value("knobs").toArray())
            r.knobs->push_back(k.toString().toStdString());
    }
    if (o.contains("compile")) {
        RunConfig c;
        const QJsonObject compile = o.value("compile").toObject();
        for (auto it = compile.begin(); it != compile.end(); ++it) {
            ConfigError e;
            if (!setField(c, it.key().toStdString(), it.value().toString().toStdString(), e)) {
                error = "its recipe's compile choice does not read: " + e.message;
                return std::nullopt;
            }
        }
        r.compile = CompileChoice{c.compile, c.compileBackend, c.compileTarget};
    }
    for (const QJsonValue &v : o.value("list").toArray()) {
        RunConfig c;
        if (!config(v, c, "list"))
            return std::nullopt;
        r.list.push_back(c);
    }
    r.baseline = o.value("baseline").toString();
    r.devices = o.value("devices").toString();
    SweepRequest &s = r.settings;
    s.repeats = o.value("repeats").toInt(s.repeats);
    s.plannedSteps = static_cast<qint64>(o.value("planned_steps").toDouble(static_cast<double>(s.plannedSteps)));
    s.name = o.value("name").toString();
    s.timeoutSeconds = o.value("timeout_s").toInt(s.timeoutSeconds);
    if (o.contains("starts")) {
        std::string why;
        s.starts = startStatesFromString(o.value("starts").toString(), &why);
        if (!s.starts) {
            error = "its recipe's start states do not read: " + why;
            return std::nullopt;
        }
    }
    if (o.contains("warmup_process"))
        s.machineWarmup = o.value("warmup_process").toBool();
    if (o.contains("adaptive")) {
        const QJsonObject a = o.value("adaptive").toObject();
        s.adaptive = true;
        s.adaptiveHalfWidth = a.value("half_width").toDouble(s.adaptiveHalfWidth);
        s.adaptiveMaxProcesses = a.value("max_processes").toInt(s.adaptiveMaxProcesses);
        s.adaptiveMaxMinutes = a.value("max_minutes").toInt(s.adaptiveMaxMinutes);
    }
    s.profileSteps = o.value("profile_steps").toInt(s.profileSteps);
    s.batches = numbersOf(o.value("batches"));
    s.worldSizes = numbersOf(o.value("world_sizes"));
    s.maxBatch = o.value("max_batch").toBool(false);
    return r;
}

} // namespace stepscope::supervisor
