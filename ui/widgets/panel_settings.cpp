#include "widgets/panel_settings.h"

#include "config/model_name.h"
#include "controller/run_controller.h"
#include "widgets/model_picker.h"
#include "widgets/panel_actions.h"
#include "widgets/panel_knobs.h"
#include "widgets/panel_run.h"
#include "widgets/panel_sweep.h"
#include "widgets/panel_where.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSettings>
#include <QSpinBox>

#include <algorithm>

namespace stepscope::ui
{
namespace
{

bool anyOf(const std::vector<RunConfig> &configs, bool RunConfig::*knob)
{
    return std::any_of(configs.begin(), configs.end(), [knob](const RunConfig &c) { return c.*knob; });
}

// The autocast of a stored sweep: the first of its configurations that has one.
Autocast autocastOf(const std::vector<RunConfig> &configs)
{
    for (const RunConfig &c : configs)
        if (c.autocast != Autocast::Off)
            return c.autocast;
    return Autocast::Off;
}

// {16, 32} -> "16,32", as numberList reads it back.
QString listText(const std::vector<int> &numbers)
{
    QStringList parts;
    for (const int n : numbers)
        parts << QString::number(n);
    return parts.join(QLatin1Char(','));
}

// "16, 32,x" -> {16, 32, 0}: a part that is no number stays in the list as 0, for validate() to name
// with the range (the batch scan's and the world sizes' lists).
std::vector<int> numberList(const QString &text)
{
    std::vector<int> out;
    for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const int n = part.trimmed().toInt(&ok);
        out.push_back(ok ? n : 0);
    }
    return out;
}

} // namespace

std::string deviceOfItem(const QString &item)
{
    return item == QLatin1String("cuda:0") ? std::string("cuda") : item.toStdString();
}

QString itemOfDevice(const std::string &device)
{
    return device == "cuda" ? QStringLiteral("cuda:0") : QString::fromStdString(device);
}

QVariant settingValue(const PanelSetting &setting)
{
    QWidget *w = setting.widget;
    if (auto *box = qobject_cast<QCheckBox *>(w))
        return box->isChecked();
    if (auto *spin = qobject_cast<QSpinBox *>(w))
        return spin->value();
    if (auto *real = qobject_cast<QDoubleSpinBox *>(w))
        return real->value();
    if (auto *combo = qobject_cast<QComboBox *>(w))
        return combo->currentData().isValid() ? combo->currentData() : QVariant(combo->currentText());
    if (auto *edit = qobject_cast<QLineEdit *>(w))
        return edit->text();
    return {};
}

void setSettingValue(const PanelSetting &setting, const QVariant &value)
{
    QWidget *w = setting.widget;
    if (auto *box = qobject_cast<QCheckBox *>(w)) {
        box->setChecked(value.toBool());
    } else if (auto *spin = qobject_cast<QSpinBox *>(w)) {
        spin->setValue(value.toInt());
    } else if (auto *real = qobject_cast<QDoubleSpinBox *>(w)) {
        real->setValue(value.toDouble());
    } else if (auto *combo = qobject_cast<QComboBox *>(w)) {
        // Items with data are found by it, compared as the data's type (an ini file reads "2" back).
        const QVariant data = combo->count() > 0 ? combo->itemData(0) : QVariant();
        QVariant wanted = value;
        if (!wanted.isValid() || (data.isValid() && !wanted.convert(data.metaType())))
            return; // nothing stored, or nothing this box offers
        const int index = data.isValid() ? combo->findData(wanted) : combo->findText(value.toString());
        if (index >= 0)
            combo->setCurrentIndex(index);
    } else if (auto *edit = qobject_cast<QLineEdit *>(w)) {
        edit->setText(value.toString());
    }
}

void saveSettingsTable(const PanelSettings &table, QSettings &settings)
{
    for (const PanelSetting &row : table) {
        const QVariant value = settingValue(row);
        settings.setValue(row.key, row.toStored ? row.toStored(value) : value);
    }
}

void loadSettingRow(const PanelSetting &row, const QSettings &settings)
{
    const QVariant stored = settings.value(QStringLiteral("config/") + row.key, row.fallback);
    setSettingValue(row, row.fromStored ? row.fromStored(stored) : stored);
}

void showStoredRows(const PanelSettings &table, const StoredSweepSettings &sweep)
{
    for (const PanelSetting &row : table)
        if (row.from)
            if (const auto value = row.from(sweep))
                setSettingValue(row, *value);
}

void fillSweep(const PanelSettings &table, RunConfig &base, SweepRequest &request)
{
    for (const PanelSetting &row : table)
        if (row.into)
            row.into(settingValue(row), base, request);
}

PanelSettings panelSettings(const PanelGroups &g,
                            std::function<QString(const std::optional<supervisor::StartStates> &)> offerStartStates)
{
    using Stored = StoredSweepSettings;
    using V = QVariant;
    auto first = [](auto field) {
        return [field](const Stored &sweep) { return std::optional<V>(sweep.configs.front().*field); };
    };
    auto any = [](bool RunConfig::*knob) {
        return [knob](const Stored &sweep) { return std::optional<V>(anyOf(sweep.configs, knob)); };
    };
    auto intField = [](int RunConfig::*field) {
        return [field](const V &v, RunConfig &c, SweepRequest &) { c.*field = v.toInt(); };
    };
    // A setting of the request as the stored sweep kept it (its recipe's settings).
    auto stored = [](V (*of)(const SweepRequest &)) {
        return [of](const Stored &sweep) { return std::optional<V>(of(sweep.recipe.settings)); };
    };
    // In load order: the device before what it enables, the autocast before its dtype, and the
    // compile options (loaded before the runtime, see loadSettings) before the runtime.
    return {
        {"device", g.where->device, V(),
         [](const V &v, RunConfig &c, SweepRequest &) { c.device = deviceOfItem(v.toString()); },
         [](const Stored &sweep) { return std::optional<V>(QString::fromStdString(sweep.configs.front().device)); }},
        {"tf32", g.knobs->tf32, false,
         [](const V &v, RunConfig &c, SweepRequest &) { c.tf32 = c.onCuda() && v.toBool(); }, any(&RunConfig::tf32)},
        {"cudnn", g.knobs->cudnn, false,
         [](const V &v, RunConfig &c, SweepRequest &) { c.cudnnBenchmark = c.onCuda() && v.toBool(); },
         any(&RunConfig::cudnnBenchmark)},
        {"autocastChecked", g.knobs->autocast, false,
         [](const V &v, RunConfig &c, SweepRequest &) {
             if (v.toBool())
                 c.autocast = Autocast::BF16;
         },
         [](const Stored &sweep) { return std::optional<V>(autocastOf(sweep.configs) != Autocast::Off); }},
        {"autocastDtype", g.knobs->autocastDtype, QStringLiteral("bf16"),
         [](const V &v, RunConfig &c, SweepRequest &) {
             if (c.autocast != Autocast::Off)
                 c.autocast = v.toString() == QLatin1String("fp16") ? Autocast::FP16 : Autocast::BF16;
         },
         [](const Stored &sweep) -> std::optional<V> {
             const Autocast a = autocastOf(sweep.configs);
             if (a == Autocast::Off)
                 return std::nullopt;
             return V(a == Autocast::FP16 ? QStringLiteral("fp16") : QStringLiteral("bf16"));
         }},
        {"channelsLast", g.knobs->channelsLast, false,
         [](const V &v, RunConfig &c, SweepRequest &) { c.channelsLast = v.toBool(); }, any(&RunConfig::channelsLast)},
        {"graph", g.knobs->graph, false,
         [](const V &v, RunConfig &c, SweepRequest &) { c.cudaGraph = c.onCuda() && v.toBool(); },
         any(&RunConfig::cudaGraph)},
        {"optimizer", g.knobs->optimizer, V(),
         [](const V &v, RunConfig &c, SweepRequest &) { c.optimizer = static_cast<Optimizer>(v.toInt()); },
         [](const Stored &sweep) {
             return std::optional<V>(int(sweep.configs.back().optimizer));
         }, // a ledger's last row has them all
         [](const V &v) { return V(QString::fromStdString(toString(static_cast<Optimizer>(v.toInt())))); },
         [](const V &v) {
             for (Optimizer o : {Optimizer::Foreach, Optimizer::Fused, Optimizer::PerParameter})
                 if (v.toString() == QString::fromStdString(toString(o)))
                     return V(int(o));
             return V();
         }},
        // What every configuration trains (issue 30); another than resnet18 runs its rows in Python
        // (withShapeOf), and Single on native is refused by validate() with the table's words.
        {"model", g.run->model->edit(), QString::fromLatin1(kDefaultModel),
         [model = g.run->model](const V &, RunConfig &c, SweepRequest &) { c.model = model->model().toStdString(); },
         [](const Stored &sweep) { return std::optional<V>(QString::fromStdString(sweep.configs.front().model)); }},
        // Only a model that may take token ids has one; resnet18 refuses any other than the default.
        {"sequenceLength", g.run->sequenceLength, RunConfig{}.sequenceLength,
         [](const V &v, RunConfig &c, SweepRequest &) {
             if (ModelPicker::takesTokens(QString::fromStdString(c.model)))
                 c.sequenceLength = v.toInt();
         },
         first(&RunConfig::sequenceLength)},
        {"batch", g.run->batch, V(), intField(&RunConfig::batch), first(&RunConfig::batch)},
        {"imageSize", g.run->imageSize, V(), intField(&RunConfig::imageSize), first(&RunConfig::imageSize)},
        {"warmup", g.run->warmup, V(), intField(&RunConfig::warmupSteps), first(&RunConfig::warmupSteps)},
        {"steps", g.run->steps, V(), intField(&RunConfig::steps), first(&RunConfig::steps)},
        {"repeats", g.run->repeats, 1, [](const V &v, RunConfig &, SweepRequest &r) { r.repeats = v.toInt(); },
         stored([](const SweepRequest &r) { return V(r.repeats); })},
        {"planned", g.actions->planned, qint64(kDefaultPlannedSteps),
         [](const V &v, RunConfig &, SweepRequest &r) { r.plannedSteps = v.toLongLong(); }},
        {"sweepKind", g.sweep->sweepKind, 0, nullptr,
         [](const Stored &sweep) -> std::optional<V> {
             if (const auto kind = supervisor::sweepKindFromString(sweep.preset))
                 return V(int(*kind));
             return std::nullopt;
         }},
        {"caches", g.run->caches, QString(),
         [](const V &v, RunConfig &, SweepRequest &r) { r.starts = supervisor::startStatesFromString(v.toString()); },
         [offerStartStates](const Stored &sweep) {
             return std::optional<V>(offerStartStates(sweep.recipe.settings.starts));
         }},
        {"machineWarmup", g.run->machineWarmup, false,
         [](const V &v, RunConfig &, SweepRequest &r) { r.machineWarmup = v.toBool(); },
         stored([](const SweepRequest &r) { return V(r.machineWarmup.value_or(false)); })},
        {"untilCi", g.run->untilCi, false, [](const V &v, RunConfig &, SweepRequest &r) { r.adaptive = v.toBool(); },
         stored([](const SweepRequest &r) { return V(r.adaptive); })},
        {"ciHalfWidth", g.run->ciHalfWidth, 2.0,
         [](const V &v, RunConfig &, SweepRequest &r) { r.adaptiveHalfWidth = v.toDouble() / 100.0; },
         stored([](const SweepRequest &r) { return V(r.adaptiveHalfWidth * 100.0); })},
        {"maxProcesses", g.run->maxProcesses, 10,
         [](const V &v, RunConfig &, SweepRequest &r) { r.adaptiveMaxProcesses = v.toInt(); },
         stored([](const SweepRequest &r) { return V(r.adaptiveMaxProcesses); })},
        {"maxMinutes", g.run->maxMinutes, 0,
         [](const V &v, RunConfig &, SweepRequest &r) { r.adaptiveMaxMinutes = v.toInt(); },
         stored([](const SweepRequest &r) { return V(r.adaptiveMaxMinutes); })},
        {"runtime", g.where->runtime, V(),
         [](const V &v, RunConfig &c, SweepRequest &) { c.runtime = static_cast<Runtime>(v.toInt()); },
         [](const Stored &sweep) { return std::optional<V>(int(sweep.configs.front().runtime)); },
         [](const V &v) { return V(QString::fromStdString(toString(static_cast<Runtime>(v.toInt())))); },
         [](const V &v) {
             return V(int(v.toString() == QLatin1String("python") ? Runtime::Python : Runtime::Native));
         }},
        {"pythonInterpreter", g.where->python, QString(), nullptr, nullptr,
         [](const V &v) { return V(v.toString().trimmed()); }, nullptr},
        // A stored sweep's pin is a knob of some of its rows: the form ticks it when any row has it.
        {"cpuAffinity", g.where->affinity, QStringLiteral("none"),
         [](const V &v, RunConfig &c, SweepRequest &) { c.cpuAffinity = v.toString().toStdString(); },
         [](const Stored &sweep) -> std::optional<V> {
             for (const RunConfig &c : sweep.configs)
                 if (c.cpuAffinity != "none")
                     return V(c.cpuAffinity == "one" ? QStringLiteral("one") : QStringLiteral("list"));
             return V(QStringLiteral("none"));
         }},
        {"cpuCores", g.where->cores, QString(),
         [](const V &v, RunConfig &c, SweepRequest &) {
             if (c.cpuAffinity != "list")
                 return;
             // A list setField refuses stays as typed: buildRequest reports validate()'s reason.
             ConfigError ignored;
             const std::string cores = v.toString().trimmed().toStdString();
             if (!setField(c, "cpu_affinity", cores, ignored))
                 c.cpuAffinity = cores;
         },
         [](const Stored &sweep) -> std::optional<V> {
             for (const RunConfig &c : sweep.configs)
                 if (c.cpuAffinity != "none" && c.cpuAffinity != "one")
                     return V(QString::fromStdString(c.cpuAffinity));
             return V(QString());
         }},
        {"threads", g.where->threads, 0, intField(&RunConfig::threads), first(&RunConfig::threads)},
        {"memoryLimitMib", g.where->memoryLimit, 0, intField(&RunConfig::memoryLimitMib),
         first(&RunConfig::memoryLimitMib)},
        {"maxBatch", g.run->maxBatch, false, [](const V &v, RunConfig &, SweepRequest &r) { r.maxBatch = v.toBool(); },
         stored([](const SweepRequest &r) { return V(r.maxBatch); })},
        {"batches", g.run->batches, QString(),
         [](const V &v, RunConfig &, SweepRequest &r) { r.batches = numberList(v.toString()); },
         stored([](const SweepRequest &r) { return V(listText(r.batches)); })},
        {"devices", g.run->devices, QString(), nullptr,
         [](const Stored &sweep) { return std::optional<V>(sweep.recipe.devices); },
         [](const V &v) { return V(v.toString().trimmed()); }, nullptr},
        {"worldSizes", g.run->worldSizes, QString(),
         [](const V &v, RunConfig &, SweepRequest &r) { r.worldSizes = numberList(v.toString()); },
         stored([](const SweepRequest &r) { return V(listText(r.worldSizes)); })},
        {"profileSteps", g.run->profileSteps, int(supervisor::kProfileStepsLimit.defaultValue),
         [](const V &v, RunConfig &, SweepRequest &r) { r.profileSteps = v.toInt(); },
         stored([](const SweepRequest &r) { return V(r.profileSteps); })},
    };
}

} // namespace stepscope::ui
