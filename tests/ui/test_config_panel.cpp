// The configuration panel's torch.compile choices: what a user picks becomes the configurations
// the sweep runs, invalid choices are greyed with validate()'s reason and refused with it.
#include "widgets/compile_options.h"
#include "widgets/config_panel.h"
#include "widgets/model_picker.h"

#include "controller/ledger_job.h"
#include "models/status_colors.h"
#include "config/config_json.h"
#include <QJsonDocument>
#include "config/config_table.h"
#include "config/presets.h"
#include "supervisor/time_left.h"

#include <QAbstractItemModel>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QDoubleSpinBox>
#include <QFile>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProcess>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>

using namespace stepscope;
using namespace stepscope::ui;

namespace
{

constexpr int kFlagsRole = Qt::UserRole - 1; // 0: the combo item is greyed

void chooseMode(ConfigPanel &panel, CompileMode mode)
{
    QComboBox *box = panel.compileOptions()->modeBox();
    box->setCurrentIndex(box->findData(int(mode)));
}

bool greyed(const QComboBox *box, int value)
{
    const QVariant flags = box->itemData(box->findData(value), kFlagsRole);
    return flags.isValid() && flags.toInt() == 0;
}

QString tip(const QComboBox *box, int value)
{
    return box->itemData(box->findData(value), Qt::ToolTipRole).toString();
}

// Enums compared by their JSON names: QCOMPARE prints those on a mismatch.
template <typename Enum> QString name(Enum e)
{
    return QString::fromStdString(stepscope::toString(e));
}

Runtime runtimeOf(const ConfigPanel &panel)
{
    return static_cast<Runtime>(panel.runtimeBox()->currentData().toInt());
}

// `config`'s fields as stepscope-cli run's configuration flags (--batch 8 --image-size 64 ...).
QStringList configFlags(const RunConfig &config)
{
    QStringList flags;
    const QJsonObject json = toJson(config);
    for (auto it = json.begin(); it != json.end(); ++it) {
        const QJsonValue v = it.value();
        flags << "--" + QString(it.key()).replace('_', '-')
              << (v.isBool() ? QString(v.toBool() ? "true" : "false")
                  : v.isDouble() ? QString::number(v.toVariant().toLongLong())
                                 : v.toString());
    }
    return flags;
}

// What `stepscope-cli run --dry-run ARGS` would run: the configurations' canonical names, one a line.
QStringList cliDryRun(const QStringList &args, QString *log)
{
    QTemporaryDir dir;
    QProcess cli;
    cli.start(QStringLiteral(STEPSCOPE_BIN_DIR "/stepscope-cli"),
              QStringList{"--db", dir.filePath("never.sqlite"), "run", "--dry-run"} + args);
    if (!cli.waitForFinished(60000) || cli.exitCode() != 0) {
        *log = QString::fromUtf8(cli.readAllStandardError());
        return {};
    }
    *log = QString::fromUtf8(cli.readAllStandardError());
    if (QFile::exists(dir.filePath("never.sqlite")))
        *log += "\n--dry-run wrote the database";
    return QString::fromUtf8(cli.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
}

// A CPU panel with bf16 autocast ticked and nothing else.
void cpuPanel(ConfigPanel &panel)
{
    panel.setCudaDevices(0);
    panel.setDevice("cpu");
    panel.knobBox("channels-last")->setChecked(false);
    panel.setOptimizer(Optimizer::Foreach);
    panel.knobBox("autocast")->setChecked(true);
}

// A sweep of `recipe` as the dashboard stores it and the history hands it to the panel.
SweepInfo storedSweep(const supervisor::SweepRecipe &recipe, std::int64_t id, const char *sweepName, const char *preset)
{
    SweepRequest request;
    std::string why;
    if (!supervisor::requestOf(recipe, request, why))
        qFatal("the stored sweep's recipe: %s", why.c_str());
    SweepInfo info;
    info.sweep.id = id;
    info.sweep.name = sweepName;
    info.sweep.preset = preset;
    info.sweep.settingsJson = QJsonDocument(QJsonObject{{"repeats", request.repeats},
                                                        {"configurations", int(request.configs.size())},
                                                        {"recipe", request.recipe}})
                                  .toJson(QJsonDocument::Compact)
                                  .toStdString();
    for (const RunConfig &c : request.configs)
        info.configJsons.push_back(QJsonDocument(toJson(c)).toJson(QJsonDocument::Compact).toStdString());
    return info;
}

// What a Python with torchvision and timm but no transformers would list (supervisor/model_listing.h).
supervisor::ModelListing fakeListing()
{
    supervisor::ModelListing listing;
    listing.python = "/opt/venv/bin/python";
    listing.libraries = {
        {"torchvision", "torchvision", "0.26.0", {"torchvision:resnet50", "torchvision:vit_b_16"}, {}, {}},
        {"timm", "timm", "1.0.31", {"timm:test_vit", "timm:resnet50", "timm:vit_tiny_patch16_224"}, {}, {}},
        {"transformers", "hf", {}, {}, "ModuleNotFoundError: No module named 'transformers'",
         "/opt/venv/bin/python -m pip install transformers"}};
    return listing;
}

// The names the picker's completer offers for `typed`.
QStringList offered(ModelPicker *picker, const QString &typed)
{
    picker->completer()->setCompletionPrefix(typed);
    QStringList names;
    const QAbstractItemModel *model = picker->completer()->completionModel();
    for (int row = 0; row < model->rowCount(); ++row)
        names << model->index(row, 0).data().toString();
    return names;
}

} // namespace

class TestConfigPanel : public QObject
{
    Q_OBJECT
  private Q_SLOTS:
    void pickingACompileModeSetsRuntimePython()
    {
        ConfigPanel panel;
        cpuPanel(panel);
        QCOMPARE(name(runtimeOf(panel)), name(Runtime::Native));
        QVERIFY(!panel.compileOptions()->backendBox()->isEnabled()); // nothing to set without a mode
        chooseMode(panel, CompileMode::Default);
        QCOMPARE(name(runtimeOf(panel)), name(Runtime::Python));
        QVERIFY(panel.compileOptions()->backendBox()->isEnabled());
        QVERIFY2(panel.compileOptions()->hint().contains("Python"), qPrintable(panel.compileOptions()->hint()));
        QCOMPARE(name(panel.baseConfig().runtime), name(Runtime::Python));
        // Back to none: no hint, and the runtime stays as the user last saw it.
        chooseMode(panel, CompileMode::None);
        QVERIFY(panel.compileOptions()->hint().isEmpty());
        QCOMPARE(name(runtimeOf(panel)), name(Runtime::Python));
    }

    void singleWithDefaultIsThatConfiguration()
    {
        ConfigPanel panel;
        cpuPanel(panel);
        panel.setSweepKind(ConfigPanel::SweepKind::Single);
        chooseMode(panel, CompileMode::Default);
        SweepRequest request;
        QString error;
        QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
        QCOMPARE(request.preset, QString("single"));
        QCOMPARE(request.configs.size(), std::size_t(1));
        RunConfig want = panel.baseConfig();
        want.runtime = Runtime::Python;
        want.compile = CompileMode::Default;
        QVERIFY(request.configs[0] == want);
        QCOMPARE(name(request.configs[0].autocast), name(Autocast::BF16));
        QCOMPARE(knobLabel(request.configs[0]), std::string("bf16+compile-default"));
    }

    // A compiled configuration is one row whatever the caches: its starts are the sweep's.
    void aCompiledConfigurationIsOneRowRunUnderTheChosenStarts()
    {
        ConfigPanel panel;
        cpuPanel(panel);
        panel.setSweepKind(ConfigPanel::SweepKind::Single);
        chooseMode(panel, CompileMode::MaxAutotuneNoCudagraphs);
        SweepRequest request;
        QString error;
        QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
        QCOMPARE(request.configs.size(), std::size_t(1));
        QVERIFY(!request.starts); // automatic
        panel.cachesBox()->setCurrentIndex(panel.cachesBox()->findData(QStringLiteral("all")));
        QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
        QCOMPARE(request.configs.size(), std::size_t(1));
        QVERIFY(request.starts);
        QCOMPARE(supervisor::toString(*request.starts), std::string("fresh,shipped,again"));
        QVERIFY2(panel.previewText().contains("starts fresh,shipped,again (3 runs)"), qPrintable(panel.previewText()));
    }

    void invalidCombinationIsGreyedAndRefused()
    {
        ConfigPanel panel;
        cpuPanel(panel);
        panel.setSweepKind(ConfigPanel::SweepKind::Single);
        const QComboBox *modes = panel.compileOptions()->modeBox();
        // On the CPU the CUDA-graph modes are greyed, with validate()'s reason in the tooltip.
        QVERIFY(greyed(modes, int(CompileMode::ReduceOverhead)));
        QVERIFY(greyed(modes, int(CompileMode::MaxAutotune)));
        QVERIFY(!greyed(modes, int(CompileMode::Default)));
        QVERIFY(!greyed(modes, int(CompileMode::MaxAutotuneNoCudagraphs)));
        QVERIFY2(tip(modes, int(CompileMode::ReduceOverhead)).contains("uses CUDA graphs"),
                 qPrintable(tip(modes, int(CompileMode::ReduceOverhead))));
        // cudagraphs needs CUDA: greyed as a backend too.
        QVERIFY(greyed(panel.compileOptions()->backendBox(), int(CompileBackend::CudaGraphs)));

        // Selected anyway (settings from a GPU machine): Start refuses with validate()'s message.
        chooseMode(panel, CompileMode::ReduceOverhead);
        SweepRequest request;
        QString error;
        QVERIFY(!panel.buildRequest(request, &error));
        QVERIFY2(error.contains("mode reduce-overhead uses CUDA graphs"), qPrintable(error));
        QVERIFY2(panel.compileOptions()->hint().contains("reduce-overhead"),
                 qPrintable(panel.compileOptions()->hint()));

        // On a GPU it is fine, but a non-inductor backend then needs mode default.
        panel.setCudaDevices(1);
        panel.setDevice("cuda:0");
        QVERIFY(!greyed(modes, int(CompileMode::ReduceOverhead)));
        const QComboBox *backends = panel.compileOptions()->backendBox();
        QVERIFY(greyed(backends, int(CompileBackend::AotEager)));
        QVERIFY2(tip(backends, int(CompileBackend::AotEager)).contains("inductor mode"),
                 qPrintable(tip(backends, int(CompileBackend::AotEager))));
        // A hand-made CUDA graph cannot join a compiled configuration: Single says so.
        panel.knobBox("cuda-graph")->setChecked(true);
        QVERIFY(!panel.buildRequest(request, &error));
        QVERIFY2(error.contains("cuda_graph"), qPrintable(error));
        // And a native runtime cannot hold one: the item is greyed for Single.
        QVERIFY(greyed(panel.runtimeBox(), int(Runtime::Native)));
    }

    // Issue 29.1: on a machine with a GPU, the dashboard's default sweep is stepscope-cli run's, row for
    // row (both expand one recipe, supervisor/sweep_recipe.h); on the CPU too.
    void theDefaultSweepIsTheClisOnTheSameMachine()
    {
        for (const int gpus : {1, 0}) {
            ConfigPanel panel;
            panel.setCudaDevices(gpus);
            SweepRequest request;
            QString error;
            QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
            SweepRequest cli;
            std::string why;
            QVERIFY(supervisor::requestOf(supervisor::defaultRecipe(supervisor::defaultShape(gpus > 0)), cli, why));
            QStringList ours, theirs;
            for (const auto &c : request.configs)
                ours << QString::fromStdString(canonicalName(c));
            for (const auto &c : cli.configs)
                theirs << QString::fromStdString(canonicalName(c));
            QCOMPARE(ours, theirs);
            QCOMPARE(request.preset, cli.preset);
            QCOMPARE(request.repeats, cli.repeats);
            QCOMPARE(request.plannedSteps, cli.plannedSteps);
            QCOMPARE(request.profileSteps, cli.profileSteps);
            QCOMPARE(request.timeoutSeconds, cli.timeoutSeconds);
        }
    }

    // Issue 29.1: every kind of sweep the panel makes is one the CLI makes from the same choices: the
    // kind (--preset), the ticked knobs (--knobs) and the shape, or the one configuration (--single).
    // Both fill one recipe; the CLI's --dry-run says what it would run.
    void everySweepKindIsTheClisFromTheSameChoices()
    {
        using Kind = ConfigPanel::SweepKind;
        for (const Kind kind : {Kind::Ledger, Kind::Each, Kind::Combinations, Kind::Single}) {
            ConfigPanel panel;
            cpuPanel(panel);
            panel.setSweepKind(kind);
            panel.knobBox("channels-last")->setChecked(true); // bf16 is ticked already
            SweepRequest request;
            QString error;
            QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
            const supervisor::SweepRecipe recipe = panel.recipe();
            QStringList args;
            if (kind == Kind::Single) {
                args << "--single" << configFlags(recipe.base);
            } else {
                QStringList knobs;
                for (const std::string &k : *recipe.knobs)
                    knobs << QString::fromStdString(k);
                args << "--preset" << QString::fromLatin1(supervisor::toString(kind)) << "--knobs" << knobs.join(',')
                     << configFlags(baselineOf(recipe.base));
            }
            QString log;
            const QStringList theirs = cliDryRun(args, &log);
            QStringList ours;
            for (const auto &c : request.configs)
                ours << QString::fromStdString(canonicalName(c));
            QVERIFY2(ours.size() >= (kind == Kind::Single ? 1 : 3), qPrintable(ours.join(", ")));
            QVERIFY2(!log.contains("wrote the database"), qPrintable(log));
            QVERIFY2(ours == theirs, qPrintable(QString("%1: dashboard %2\ncli %3\n%4")
                                                    .arg(supervisor::toString(kind), ours.join(", "),
                                                         theirs.join(", "), log)));
        }
    }

    // Issue 29.1: the panel writes no limit of its own. Every integer field of the configuration
    // table with a box, and every limit of the service's table with one, has that table's range and
    // default.
    void everyBoxTakesItsRangeFromTheCoreTables()
    {
        ConfigPanel panel;
        QStringList boxed;
        const RunConfig defaults;
        for (const FieldInfo &f : fields()) {
            auto *box = panel.findChild<QSpinBox *>(QStringLiteral("field:") + QLatin1String(f.key));
            if (!box)
                continue;
            boxed << QString::fromLatin1(f.key);
            QCOMPARE(qint64(box->minimum()), qint64(f.min));
            QCOMPARE(qint64(box->maximum()), qint64(f.max));
        }
        QCOMPARE(boxed, QStringList({"batch", "image_size", "sequence_length", "warmup_steps", "steps", "threads",
                                     "memory_limit_mib"}));
        QStringList limits;
        for (const supervisor::SweepLimit *limit : supervisor::kSweepLimits) {
            const QString name = QStringLiteral("limit:") + QLatin1String(limit->option);
            if (auto *box = panel.findChild<QSpinBox *>(name)) {
                limits << QString::fromLatin1(limit->option);
                QCOMPARE(double(box->minimum()), limit->min);
                QCOMPARE(double(box->maximum()), limit->max);
                QCOMPARE(double(box->value()), limit->defaultValue);
            } else if (auto *spin = panel.findChild<QDoubleSpinBox *>(name)) {
                limits << QString::fromLatin1(limit->option);
                QVERIFY(spin->minimum() > limit->min); // the table's bound is exclusive: 0 is refused
                QCOMPARE(spin->maximum(), limit->max);
                QCOMPARE(spin->value(), limit->defaultValue);
            }
        }
        // The timeout is the CLI's alone (a dashboard sweep runs under the service's default).
        QCOMPARE(limits, QStringList({"repeat", "planned-steps", "until-ci", "max-repeats", "max-minutes", "profile-steps"}));
    }

    // A stored default GPU sweep shown read-only: the form is the sweep's recipe again (its pinned
    // rows tick the pin), so the line above Start counts what Run again runs.
    void aStoredLedgerShowsItsPinnedRows()
    {
        ConfigPanel panel;
        SweepRequest cli;
        std::string why;
        QVERIFY(supervisor::requestOf(supervisor::defaultRecipe(supervisor::defaultShape(true)), cli, why));
        SweepInfo info;
        info.sweep.id = 7;
        info.sweep.name = "ledger cuda b32 224px";
        info.sweep.preset = "ledger";
        info.sweep.settingsJson = R"({"repeats":1})";
        for (const RunConfig &c : cli.configs)
            info.configJsons.push_back(QJsonDocument(toJson(c)).toJson(QJsonDocument::Compact).toStdString());
        panel.showStoredSweep(info);
        QCOMPARE(panel.cpuAffinityBox()->currentData().toString(), QString("one"));
        SweepRequest shown;
        QString error;
        QVERIFY2(panel.buildRequest(shown, &error), qPrintable(error));
        QCOMPARE(shown.configs.size(), cli.configs.size());
        QVERIFY2(panel.previewText().contains("12 configurations"), qPrintable(panel.previewText()));
    }

    // Issue 35.5: a stored sweep's settings are the sweep's, every one of them: the user's batch
    // scan, devices at once, start states, custom list and compile mode must not stand under its
    // caption, and the line above the buttons counts the stored configurations.
    void aStoredSweepShowsOnlyWhatItStored()
    {
        ConfigPanel panel;
        panel.setCudaDevices(0);
        // The user's own form: things the stored sweep never had.
        panel.batchesEdit()->setText("2,4");
        panel.devicesEdit()->setText("cpu:0,cpu:1");
        panel.worldSizesEdit()->setText("1,2");
        panel.profileStepsBox()->setValue(0);
        panel.cachesBox()->setCurrentIndex(panel.cachesBox()->findData(QStringLiteral("again")));
        panel.untilCiBox()->setChecked(true);
        chooseMode(panel, CompileMode::MaxAutotune);
        panel.setSweepKind(ConfigPanel::SweepKind::Ledger);

        // A custom sweep of two configurations with its recipe, as the dashboard stores it.
        supervisor::SweepRecipe recipe;
        recipe.kind = supervisor::SweepKind::Custom;
        recipe.base = supervisor::defaultShape(true);
        RunConfig fast = recipe.base;
        fast.autocast = Autocast::BF16;
        fast.cudaGraph = true;
        recipe.list = {recipe.base, fast};
        recipe.settings.repeats = 3;
        recipe.settings.profileSteps = 20;
        recipe.settings.starts = supervisor::startStatesFromString("fresh,shipped-compiled");
        SweepInfo info = storedSweep(recipe, 4, "gate A", "custom");
        panel.showStoredSweep(info);

        QCOMPARE(panel.batchesEdit()->text(), QString());
        QCOMPARE(panel.devicesEdit()->text(), QString());
        QCOMPARE(panel.worldSizesEdit()->text(), QString());
        QCOMPARE(panel.profileStepsBox()->value(), 20);
        QCOMPARE(panel.repeatsBox()->value(), 3);
        QVERIFY(!panel.untilCiBox()->isChecked());
        QCOMPARE(panel.cachesBox()->currentData().toString(), QString("fresh,shipped-compiled"));
        QCOMPARE(name(panel.compileChoice().mode), name(CompileMode::None));
        QCOMPARE(panel.customList()->count(), 2);
        QVERIFY2(panel.previewText().contains("2 configurations × 3 repeats"), qPrintable(panel.previewText()));
        QVERIFY2(!panel.previewText().contains("empty"), qPrintable(panel.previewText()));

        // A legacy ledger of 13 configurations (more than today's ledger of the form would make):
        // the line counts the 13 Run again runs.
        std::vector<RunConfig> thirteen;
        for (int steps = 20; thirteen.size() < 13; steps += 10) {
            RunConfig c = supervisor::defaultShape(true);
            c.steps = steps;
            thirteen.push_back(c);
        }
        info.sweep.id = 5;
        info.sweep.preset = "ledger";
        info.sweep.settingsJson = R"({"repeats":1,"configurations":13})";
        info.configJsons.clear();
        for (const RunConfig &c : thirteen)
            info.configJsons.push_back(QJsonDocument(toJson(c)).toJson(QJsonDocument::Compact).toStdString());
        panel.showStoredSweep(info);
        QVERIFY2(panel.previewText().contains("13 configurations"), qPrintable(panel.previewText()));
        QCOMPARE(panel.cachesBox()->currentData().toString(), QString()); // automatic, as stored

        // Back to the user's own: the start state added for the stored sweep goes with it.
        const int offered = panel.cachesBox()->count();
        panel.returnToOwnSettings();
        QVERIFY(panel.cachesBox()->count() < offered);
    }

    void ledgerAddsPythonRowsLikeThePreset()
    {
        ConfigPanel panel;
        panel.setCudaDevices(1); // GPU defaults: every ledger knob ticked, the CUDA graph too
        panel.setDevice("cuda:0");
        panel.setSweepKind(ConfigPanel::SweepKind::Ledger);
        chooseMode(panel, CompileMode::ReduceOverhead);
        QCOMPARE(name(runtimeOf(panel)), name(Runtime::Python));
        panel.runtimeBox()->setCurrentIndex(panel.runtimeBox()->findData(int(Runtime::Native))); // keep C++ rows
        SweepRequest request;
        QString error;
        QStringList skipped;
        QVERIFY2(panel.buildRequest(request, &error, &skipped), qPrintable(error));
        QCOMPARE(request.preset, QString("ledger"));
        // baseline, +tf32, +cudnn-bench, +bf16, +channels-last, +pin-one-core, +cuda-graph, +sgd-fused
        // (native), then Python eager and reduce-overhead on the knobs compile builds on (one row: its
        // start states are runs of it).
        QCOMPARE(request.configs.size(), std::size_t(10));
        for (std::size_t i = 0; i < 8; ++i)
            QCOMPARE(name(request.configs[i].runtime), name(Runtime::Native));
        const RunConfig &eager = request.configs[8];
        QCOMPARE(name(eager.runtime), name(Runtime::Python));
        QCOMPARE(name(eager.compile), name(CompileMode::None));
        QVERIFY(!eager.cudaGraph);
        QCOMPARE(knobLabel(eager), std::string("tf32+cudnn-bench+bf16+channels-last"));
        QVERIFY2(eager.cpuAffinity == "none", "unpinned: one core would serialize the cold compile");
        QCOMPARE(knobLabel(request.configs[9]),
                 std::string("tf32+cudnn-bench+bf16+channels-last+compile-reduce-overhead"));
        // The same Python rows as the CLI's ledger preset builds for reduce-overhead.
        const Sweep preset = ledgerSweep(panel.baseConfig());
        QVERIFY(std::find(preset.configs.begin(), preset.configs.end(), request.configs[9]) != preset.configs.end());
    }

    void eachAndCombinationsCarryTheCompileKnob()
    {
        ConfigPanel panel;
        cpuPanel(panel);
        chooseMode(panel, CompileMode::Default);
        panel.setSweepKind(ConfigPanel::SweepKind::Each);
        SweepRequest request;
        QString error;
        QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
        QStringList labels;
        for (const auto &c : request.configs)
            labels << QString::fromStdString(knobLabel(c));
        QCOMPARE(labels, QStringList({"baseline", "bf16", "compile-default"}));
        for (const auto &c : request.configs)
            QCOMPARE(name(c.runtime), name(Runtime::Python)); // the runtime the panel shows, for every row

        panel.knobBox("channels-last")->setChecked(true);
        panel.setSweepKind(ConfigPanel::SweepKind::Combinations);
        QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
        QCOMPARE(request.configs.size(), std::size_t(4 + 4)); // 2^2 eager, each compiled once
        int compiled = 0;
        for (const auto &c : request.configs)
            compiled += c.compile != CompileMode::None;
        QCOMPARE(compiled, 4);
    }

    void compileChoiceAndInterpreterPersist()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath("s.ini"), QSettings::IniFormat);
        {
            ConfigPanel panel;
            cpuPanel(panel);
            chooseMode(panel, CompileMode::MaxAutotuneNoCudagraphs);
            auto *target = panel.compileOptions()->targetBox();
            target->setCurrentIndex(target->findData(int(CompileTarget::Step)));
            panel.setPythonInterpreter("/opt/venv/bin/python3");
            panel.saveSettings(settings);
        }
        QCOMPARE(settings.value("config/pythonInterpreter").toString(), QString("/opt/venv/bin/python3"));
        QCOMPARE(settings.value("config/compileMode").toString(), QString("max-autotune-no-cudagraphs"));
        ConfigPanel again;
        again.setCudaDevices(0);
        again.loadSettings(settings);
        const CompileChoice c = again.compileChoice();
        QCOMPARE(name(c.mode), name(CompileMode::MaxAutotuneNoCudagraphs));
        QCOMPARE(name(c.target), name(CompileTarget::Step));
        QCOMPARE(again.pythonInterpreter(), QString("/opt/venv/bin/python3"));
        QCOMPARE(name(runtimeOf(again)), name(Runtime::Python));
    }

    // The settings table keeps the keys a user's saved settings already have, and every value the
    // request carries survives a save and a load into another panel.
    void everySettingKeepsItsKeyAndRoundTrips()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath("s.ini"), QSettings::IniFormat);
        {
            ConfigPanel panel;
            cpuPanel(panel);
            panel.setShape(4, 48, 3, 21);
            panel.setRepeats(3);
            panel.plannedBox()->setValue(25000);
            panel.setSweepKind(ConfigPanel::SweepKind::Each);
            panel.machineWarmupBox()->setChecked(false);
            panel.untilCiBox()->setChecked(true);
            panel.ciHalfWidthBox()->setValue(3.5);
            panel.maxProcessesBox()->setValue(7);
            panel.maxMinutesBox()->setValue(45);
            panel.setOptimizer(Optimizer::PerParameter);
            panel.threadsBox()->setValue(3);
            panel.batchesEdit()->setText("2, 4,8");
            panel.profileStepsBox()->setValue(7);
            panel.devicesEdit()->setText("cpu:0,cpu:1");
            panel.worldSizesEdit()->setText("1,2");
            panel.modelPicker()->setModel("hf:gpt2,n_layer=2");
            panel.sequenceLengthBox()->setValue(48);
            panel.saveSettings(settings);
        }
        settings.beginGroup("config");
        QStringList keys = settings.childKeys();
        settings.endGroup();
        keys.sort();
        QStringList expected{
            "autocastChecked", "autocastDtype", "channelsLast", "ciHalfWidth",  "compileBackend",
            "compileMode",     "compileTarget", "cpuAffinity",  "cpuCores",       "cudnn",
            "custom",          "device",        "batch",        "caches",       "graph",          "imageSize",
            "machineWarmup",   "maxMinutes",    "maxProcesses", "optimizer",    "planned",        "pythonInterpreter",
            "repeats",         "runtime",       "steps",        "sweepKind",    "tf32",           "threads",
            "untilCi",         "warmup",        "batches",      "profileSteps", "devices",        "worldSizes",
            "model",           "sequenceLength", "maxBatch",     "memoryLimitMib"};
        expected.sort();
        QCOMPARE(keys, expected);
        QCOMPARE(settings.value("config/optimizer").toString(), QString("per-parameter"));
        QCOMPARE(settings.value("config/runtime").toString(), QString("native"));

        ConfigPanel again;
        again.setCudaDevices(0);
        again.loadSettings(settings);
        SweepRequest request;
        QString error;
        QVERIFY2(again.buildRequest(request, &error), qPrintable(error));
        QCOMPARE(request.preset, QString("each"));
        QCOMPARE(request.repeats, 3);
        QCOMPARE(request.plannedSteps, qint64(25000));
        QCOMPARE(request.machineWarmup, std::optional<bool>(false));
        QVERIFY(request.adaptive);
        QCOMPARE(request.adaptiveHalfWidth, 0.035);
        QCOMPARE(request.adaptiveMaxProcesses, 7);
        QCOMPARE(request.adaptiveMaxMinutes, 45);
        QVERIFY(!request.starts); // automatic: fresh on the CPU, more on a GPU (withDefaults)
        QCOMPARE(request.batches, (std::vector<int>{2, 4, 8})); // a batch scan
        QCOMPARE(request.profileSteps, 7);
        QCOMPARE(request.worldSizes, (std::vector<int>{1, 2}));
        QCOMPARE(int(request.lanes.size()), 2); // two CPU slots
        QCOMPARE(request.lanes[1].label, QString("cpu slot 1"));
        const RunConfig base = again.baseConfig();
        QCOMPARE(base.batch, 4);
        QCOMPARE(base.imageSize, 48);
        QCOMPARE(base.warmupSteps, 3);
        QCOMPARE(base.steps, 21);
        QCOMPARE(base.threads, 3);
        QCOMPARE(name(base.optimizer), name(Optimizer::PerParameter));
        QCOMPARE(name(base.autocast), name(Autocast::BF16));
        QCOMPARE(base.model, std::string("hf:gpt2,n_layer=2"));
        QCOMPARE(base.sequenceLength, 48);
    }

    void devicesAtOnceNameGpusTheProbeListed()
    {
        ConfigPanel panel;
        panel.setCudaDevices(2);
        panel.setGpus({{0, "NVIDIA H200", "GPU-a", "00000000:19:00.0", 143771},
                       {1, "NVIDIA H200", "GPU-b", "00000000:3B:00.0", 143771}});
        QVERIFY(panel.devicesEdit()->toolTip().contains("cuda:1 NVIDIA H200"));
        panel.devicesEdit()->setText("all");
        SweepRequest request;
        QString error;
        QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
        QCOMPARE(int(request.lanes.size()), 2);
        QCOMPARE(request.lanes[1].uuid, QString("GPU-b"));
        QVERIFY2(panel.previewText().contains("on 2 devices at once"), qPrintable(panel.previewText()));
        panel.devicesEdit()->setText("cuda:0,cuda:2");
        QVERIFY(!panel.buildRequest(request, &error));
        QVERIFY2(error.startsWith("Devices at once: cuda:2 is not here"), qPrintable(error));
        QVERIFY2(panel.previewText().contains("cuda:2 is not here"), qPrintable(panel.previewText()));
    }

    void cpuAffinityAndThreadsAreKnobsOfTheSweep()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath("s.ini"), QSettings::IniFormat);
        {
            ConfigPanel panel;
            panel.setCudaDevices(1);
            panel.setDevice("cuda:0");
            QVERIFY(panel.cpuAffinityBox()->toolTip().contains("launch"));
            QVERIFY(!panel.cpuCoresEdit()->isEnabled());
            panel.cpuAffinityBox()->setCurrentIndex(panel.cpuAffinityBox()->findData("one"));
            panel.threadsBox()->setValue(2);
            panel.setSweepKind(ConfigPanel::SweepKind::Ledger);
            chooseMode(panel, CompileMode::None); // the native rows alone
            SweepRequest request;
            QString error;
            QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
            // baseline .. +channels-last, +pin-one-core, +cuda-graph, +sgd-fused; threads in every row.
            QCOMPARE(request.configs.size(), std::size_t(8));
            QCOMPARE(knobLabel(request.configs[5]),
                     std::string("tf32+cudnn-bench+bf16+channels-last+pin-one-core+threads-2"));
            QCOMPARE(request.configs[4].cpuAffinity, std::string("none"));
            for (const auto &c : request.configs)
                QCOMPARE(c.threads, 2);

            // A core list stands in for the one core; a bad list is refused with validate()'s reason.
            panel.cpuAffinityBox()->setCurrentIndex(panel.cpuAffinityBox()->findData("list"));
            QVERIFY(panel.cpuCoresEdit()->isEnabled());
            panel.cpuCoresEdit()->setText("3,2");
            panel.setSweepKind(ConfigPanel::SweepKind::Each);
            QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
            QStringList pinned;
            for (const auto &c : request.configs)
                if (c.cpuAffinity != "none")
                    pinned << QString::fromStdString(knobLabel(c));
            QCOMPARE(pinned, QStringList({"pin-2-3+threads-2"}));
            panel.cpuCoresEdit()->setText("3-1");
            QVERIFY(!panel.buildRequest(request, &error));
            QVERIFY2(error.contains("cpu_affinity"), qPrintable(error));
            panel.cpuCoresEdit()->setText("4-7");
            panel.saveSettings(settings);
        }
        ConfigPanel again;
        again.setCudaDevices(1);
        again.loadSettings(settings);
        QCOMPARE(again.baseConfig().cpuAffinity, std::string("4-7"));
        QCOMPARE(again.baseConfig().threads, 2);
    }

    // One SGD control: a configuration has one implementation, every knob explains itself, and the
    // choice survives a restart (old settings with the two checkboxes still load).
    void sgdIsOneControlAndKnobsExplainThemselves()
    {
        ConfigPanel panel;
        cpuPanel(panel);
        for (const char *knob : {"tf32", "cudnn-bench", "autocast", "channels-last", "cuda-graph"})
            QVERIFY2(panel.knobBox(knob)->toolTip().size() > 60, knob);
        QVERIFY(panel.optimizerBox()->toolTip().contains("fused"));
        QVERIFY(!panel.knobBox("sgd-fused")); // no second checkbox to untick the first
        panel.setOptimizer(Optimizer::PerParameter);
        QCOMPARE(name(panel.baseConfig().optimizer), name(Optimizer::PerParameter));
        panel.setSweepKind(ConfigPanel::SweepKind::Each);
        SweepRequest request;
        QString error;
        QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
        QVERIFY(std::any_of(request.configs.begin(), request.configs.end(),
                            [](const RunConfig &c) { return c.optimizer == Optimizer::PerParameter; }));

        QTemporaryDir dir;
        QSettings settings(dir.filePath("s.ini"), QSettings::IniFormat);
        panel.saveSettings(settings);
        ConfigPanel again;
        again.setCudaDevices(0);
        again.loadSettings(settings);
        QCOMPARE(name(again.baseConfig().optimizer), name(Optimizer::PerParameter));
        settings.remove("config/optimizer");
        settings.setValue("config/fused", false);
        settings.setValue("config/perParameter", false);
        again.loadSettings(settings);
        QCOMPARE(name(again.baseConfig().optimizer), name(Optimizer::Foreach));
    }

    // A wheel over an unfocused spin box scrolls the panel and leaves the value alone; once the
    // user clicks into the box, the wheel changes it.
    void wheelScrollsThePanelNotTheSpinBoxes()
    {
        QScrollArea area;
        auto *panel = new ConfigPanel;
        cpuPanel(*panel);
        area.setWidget(panel);
        area.setWidgetResizable(true);
        area.resize(420, 300);
        area.show();
        QVERIFY(QTest::qWaitForWindowExposed(&area));
        QSpinBox *batch = panel->threadsBox();
        batch->setValue(5);
        const int before = batch->value();
        const int scrolled = area.verticalScrollBar()->value();
        const QPointF at(batch->width() / 2.0, batch->height() / 2.0);
        auto wheel = [&] {
            QWheelEvent event(at, batch->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                              Qt::NoScrollPhase, false);
            QApplication::sendEvent(batch, &event);
        };
        QVERIFY(!batch->hasFocus());
        wheel();
        QCOMPARE(batch->value(), before);
        QVERIFY(area.verticalScrollBar()->value() > scrolled);
        batch->setFocus();
        QTRY_VERIFY(batch->hasFocus());
        wheel();
        QVERIFY(batch->value() != before);
    }

    // The baseline list follows the sweep the form would run; a picked row reaches the request as
    // its index, survives changes that keep it, and automatic leaves the rule to the planner.
    void baselineIsPickedFromTheSweep()
    {
        ConfigPanel panel;
        cpuPanel(panel); // bf16 ticked
        panel.knobBox("channels-last")->setChecked(true);
        panel.setSweepKind(ConfigPanel::SweepKind::Ledger);
        SweepRequest request;
        QString error;
        QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
        QVERIFY(!request.baseline); // automatic
        QVERIFY2(panel.baselineBox()->itemText(0).contains("baseline"), qPrintable(panel.baselineBox()->itemText(0)));
        QCOMPARE(panel.baselineBox()->count(), int(request.configs.size()) + 1);

        const QString bf16 = QString::fromStdString(canonicalName(request.configs[1]));
        QVERIFY(panel.setBaseline(bf16));
        QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
        QVERIFY(request.baseline.has_value());
        QCOMPARE(int(*request.baseline), 1);
        panel.setRepeats(3); // not a label: the choice stays
        QCOMPARE(panel.baselineBox()->currentData().toString(), bf16);

        // A change that drops the row falls back to automatic instead of a stale choice.
        panel.knobBox("autocast")->setChecked(false);
        QCOMPARE(panel.baselineBox()->currentIndex(), 0);
        QVERIFY(!panel.setBaseline(bf16));
    }

    // Above Start, what it would run and for how long (issue 19.5): the words follow the form, and
    // the time is supervisor/time_left.h's estimate from this host's runs, said to be a guess when
    // it comes from other configurations' runs.
    void previewFollowsThePanelAndEstimatesFromRunTimes()
    {
        ConfigPanel panel;
        cpuPanel(panel); // bf16 ticked
        panel.knobBox("channels-last")->setChecked(true);
        panel.setSweepKind(ConfigPanel::SweepKind::Ledger);
        panel.setRepeats(1);
        QVERIFY2(panel.previewText().startsWith(QString::fromUtf8("ledger, 3 configurations × 1 repeat, time unknown")),
                 qPrintable(panel.previewText()));
        panel.setRepeats(2);
        QVERIFY2(panel.previewText().startsWith(QString::fromUtf8("ledger, 3 configurations × 2 repeats")),
                 qPrintable(panel.previewText()));
        panel.setSweepKind(ConfigPanel::SweepKind::Single);
        QVERIFY2(panel.previewText().startsWith(QString::fromUtf8("single, 1 configuration × 2 repeats")),
                 qPrintable(panel.previewText()));
        panel.batchesEdit()->setText("8,16");
        QVERIFY2(
            panel.previewText().startsWith(QString::fromUtf8("single at 2 batch sizes, 2 configurations × 2 repeats")),
            qPrintable(panel.previewText()));
        panel.untilCiBox()->setChecked(true);
        QVERIFY2(panel.previewText().contains(QString::fromUtf8("× at least 2 repeats")),
                 qPrintable(panel.previewText()));
        panel.untilCiBox()->setChecked(false);

        // This host ran both configurations for 30 s each: 2 configurations × 2 repeats, 2 min.
        SweepRequest request;
        QString error;
        QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
        const SweepRequest planned = supervisor::withDefaults(request);
        QCOMPARE(int(planned.configs.size()), 2);
        auto times = std::make_shared<supervisor::TimeLeft>();
        for (const RunConfig &c : planned.configs)
            times->addHistory(supervisor::runKey(c, store::StartState::Fresh), 30.0);
        panel.setRunTimes(times);
        QVERIFY2(panel.previewText().endsWith(QStringLiteral(", about 2 min")), qPrintable(panel.previewText()));
        panel.setRepeats(3); // 6 runs of 30 s
        QVERIFY2(panel.previewText().endsWith(QStringLiteral(", about 3 min")), qPrintable(panel.previewText()));
        // Another image size: no run of these configurations, only of their kind: a guess.
        panel.setShape(8, 48, 5, 30);
        QVERIFY2(panel.previewText().contains(QStringLiteral("(a guess")), qPrintable(panel.previewText()));

        // What Start would refuse, it says instead.
        panel.setSweepKind(ConfigPanel::SweepKind::Custom);
        QVERIFY2(panel.previewText().startsWith(QStringLiteral("Start would refuse: The custom list is empty")),
                 qPrintable(panel.previewText()));
    }

    // The sweep kind and the baseline come first in the panel, above where it runs and the knobs.
    void sweepKindAndBaselineStandAtTheTop()
    {
        ConfigPanel panel;
        panel.resize(400, 2000);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const int kind = panel.baselineBox()->mapTo(&panel, QPoint(0, 0)).y();
        for (QWidget *below :
             {static_cast<QWidget *>(panel.runtimeBox()), static_cast<QWidget *>(panel.knobBox("autocast")),
              static_cast<QWidget *>(panel.optimizerBox())})
            QVERIFY(below->mapTo(&panel, QPoint(0, 0)).y() > kind);
    }

    // Adaptive repeats and the discarded warm-up process reach the request as the user set them,
    // the caps are greyed while adaptive repeats are off, and the choice survives a restart.
    void aModelTypedReachesEveryConfiguration()
    {
        ConfigPanel panel;
        cpuPanel(panel);
        QCOMPARE(panel.baseConfig().model, std::string("resnet18")); // the field empty: the built-in one
        QTest::keyClicks(panel.modelPicker()->edit(), "timm:test_vit");
        QVERIFY(panel.modelPicker()->valid());
        QVERIFY(panel.modelPicker()->hint()->styleSheet().isEmpty());
        using Kind = ConfigPanel::SweepKind;
        for (const Kind kind : {Kind::Ledger, Kind::Each, Kind::Combinations, Kind::Single}) {
            panel.setSweepKind(kind);
            if (kind == Kind::Single) // on its own the ticked configuration keeps the runtime chosen
                panel.runtimeBox()->setCurrentIndex(panel.runtimeBox()->findData(int(Runtime::Python)));
            SweepRequest request;
            QString error;
            QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
            QVERIFY(!request.configs.empty());
            int native = 0;
            for (const RunConfig &c : request.configs) {
                QCOMPARE(c.model, std::string("timm:test_vit"));
                native += c.runtime == Runtime::Native;
            }
            // Another model runs in Python, but for the ledger's one native twin (TorchScript, 30.3).
            QCOMPARE(native, kind == Kind::Ledger ? 1 : 0);
        }
        panel.setSweepKind(Kind::Ledger);
        QVERIFY2(panel.previewText().startsWith("ledger of timm:test_vit, "), qPrintable(panel.previewText()));
        // The custom list: an entry added takes the form's model, as every entry takes its shape.
        panel.setSweepKind(Kind::Custom);
        const RunConfig entry = panel.baseConfig();
        panel.addConfig(entry);
        panel.modelPicker()->setModel("torchvision:resnet50");
        SweepRequest request;
        QString error;
        QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
        QCOMPARE(int(request.configs.size()), 1);
        QCOMPARE(request.configs.front().model, std::string("torchvision:resnet50"));
        // Emptied, the field means the built-in model again.
        panel.modelPicker()->edit()->clear();
        QCOMPARE(panel.baseConfig().model, std::string("resnet18"));
    }

    void anInvalidModelShowsTheGrammarAndStartRefuses()
    {
        ConfigPanel panel;
        cpuPanel(panel);
        QTest::keyClicks(panel.modelPicker()->edit(), "timm:");
        QVERIFY(!panel.modelPicker()->valid());
        const QString hint = panel.modelPicker()->hint()->text();
        QVERIFY2(hint.contains("timm:NAME") && hint.contains("module.path:factory"), qPrintable(hint));
        QVERIFY2(panel.modelPicker()->hint()->styleSheet().contains(failureColor().name()),
                 qPrintable(panel.modelPicker()->hint()->styleSheet()));
        SweepRequest request;
        QString error;
        QVERIFY(!panel.buildRequest(request, &error));
        QVERIFY2(error.contains("is not a model name"), qPrintable(error));
        QVERIFY2(panel.previewText().startsWith("Start would refuse: ") && panel.previewText().contains("timm:NAME"),
                 qPrintable(panel.previewText()));
        // Finished, the hint is gone and Start would run it.
        QTest::keyClicks(panel.modelPicker()->edit(), "test_vit");
        QVERIFY(panel.buildRequest(request, &error));
        QVERIFY(!panel.modelPicker()->hint()->text().contains("timm:NAME"));
    }

    void anotherModelOnNativeAloneRunsFromTorchScript()
    {
        // Issue 30.3: the native runtime takes another model (the sweep exports it first).
        ConfigPanel panel;
        cpuPanel(panel);
        panel.setSweepKind(ConfigPanel::SweepKind::Single);
        panel.runtimeBox()->setCurrentIndex(panel.runtimeBox()->findData(int(Runtime::Native)));
        panel.modelPicker()->setModel("timm:test_vit");
        SweepRequest request;
        QString error;
        QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
        QCOMPARE(request.configs.size(), std::size_t(1));
        QVERIFY(request.configs.front().runtime == Runtime::Native);
        QCOMPARE(QString::fromStdString(request.configs.front().model), QString("timm:test_vit"));
    }

    void theCompleterOffersTheListingByAnyPart()
    {
        ConfigPanel panel;
        ModelPicker *picker = panel.modelPicker();
        picker->setListing(fakeListing());
        QCOMPARE(offered(picker, "vit"),
                 (QStringList{"torchvision:vit_b_16", "timm:test_vit", "timm:vit_tiny_patch16_224"}));
        QCOMPARE(offered(picker, "RESNET"), (QStringList{"resnet18", "torchvision:resnet50", "timm:resnet50"}));
        QVERIFY2(picker->completer()->filterMode() == Qt::MatchContains, "a substring search");
        // What the listing says about the name typed: the library's version, a missing library's pip
        // command, a name its library does not list.
        picker->setModel("resnet18");
        QVERIFY2(picker->hint()->text().contains("timm 1.0.31 (3)") &&
                     picker->hint()->text().contains("pip install transformers"),
                 qPrintable(picker->hint()->text()));
        picker->setModel("hf:gpt2");
        QVERIFY2(picker->hint()->text().startsWith("transformers is not installed in this Python: /opt/venv/bin/python -m "
                                                   "pip install transformers"),
                 qPrintable(picker->hint()->text()));
        picker->setModel("timm:no_such_net,img_size=64");
        QVERIFY2(picker->hint()->text().contains("timm 1.0.31 lists no model 'no_such_net'"),
                 qPrintable(picker->hint()->text()));
        // Another Python: its listing is not this one.
        panel.setPythonInterpreter("/elsewhere/python");
        QCOMPARE(offered(picker, "vit"), QStringList());
    }

    void aFactoryFileOffersItsFunctions()
    {
        QTemporaryDir dir;
        const QString two = dir.filePath("nets.py"), one = dir.filePath("one.py");
        for (const auto &[path, text] : {std::pair{two, QByteArray("import torch\ndef small(width=4):\n    pass\n"
                                                                     "def _helper():\n    pass\n\ndef large():\n"
                                                                     "    def inner():\n        pass\n")},
                                         std::pair{one, QByteArray("def only(**options):\n    return None\n")}}) {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(text);
        }
        ConfigPanel panel;
        ModelPicker *picker = panel.modelPicker();
        picker->useFactoryFile(one);
        QCOMPARE(picker->model(), one + ":only");
        QVERIFY(picker->valid());
        picker->useFactoryFile(two);
        QCOMPARE(picker->edit()->text(), two + ":"); // to pick from, the cursor after the colon
        QCOMPARE(picker->edit()->cursorPosition(), int(picker->edit()->text().size()));
        QCOMPARE(offered(picker, two + ":"), (QStringList{two + ":small", two + ":large"}));
        QVERIFY(!picker->valid());
    }

    void aTokenModelShowsItsSequenceLength()
    {
        ConfigPanel panel;
        cpuPanel(panel);
        QVERIFY(!panel.sequenceLengthBox()->isVisibleTo(&panel)); // resnet18 takes images
        panel.modelPicker()->setModel("hf:gpt2,n_layer=2");
        QVERIFY(panel.sequenceLengthBox()->isVisibleTo(&panel));
        panel.sequenceLengthBox()->setValue(64);
        SweepRequest request;
        QString error;
        QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
        for (const RunConfig &c : request.configs)
            QCOMPARE(c.sequenceLength, 64);
        // Back to an image model: the length stays in the box but not in the configuration, which
        // resnet18 would refuse with another length.
        panel.modelPicker()->setModel("resnet18");
        QVERIFY(!panel.sequenceLengthBox()->isVisibleTo(&panel));
        QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
        QCOMPARE(request.configs.front().sequenceLength, RunConfig{}.sequenceLength);
    }

    void aStoredSweepShowsItsModel()
    {
        ConfigPanel panel;
        cpuPanel(panel);
        supervisor::SweepRecipe recipe;
        recipe.kind = supervisor::SweepKind::Single;
        recipe.base = supervisor::defaultShape(false);
        recipe.base.runtime = Runtime::Python;
        recipe.base.model = "hf:gpt2,n_layer=2";
        recipe.base.sequenceLength = 32;
        const SweepInfo info = storedSweep(recipe, 7, "gpt2", "single");
        panel.showStoredSweep(info);
        QCOMPARE(panel.modelPicker()->model(), QString("hf:gpt2,n_layer=2"));
        QCOMPARE(panel.sequenceLengthBox()->value(), 32);
        QVERIFY(!panel.modelPicker()->isEnabled() || !panel.modelPicker()->isEnabledTo(&panel)); // read-only
        QVERIFY2(panel.previewText().contains("of hf:gpt2,n_layer=2"), qPrintable(panel.previewText()));
        panel.returnToOwnSettings();
    }

    // Issue 31.3: "Largest batch that fits" and the memory limit reach the request; the settings a
    // search sets itself (repeats, start states, profile, planned steps) are greyed out while it is on.
    void theLargestBatchSearchReachesTheRequest()
    {
        ConfigPanel panel;
        cpuPanel(panel);
        auto *maxBatch = panel.findChild<QCheckBox *>(QStringLiteral("maxBatch"));
        auto *limit = panel.findChild<QSpinBox *>(QStringLiteral("field:memory_limit_mib"));
        QVERIFY(maxBatch && limit);
        QVERIFY(panel.cachesBox()->isEnabled());
        SweepRequest request;
        QString error;
        QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
        QVERIFY(!request.maxBatch);
        QCOMPARE(request.configs.front().memoryLimitMib, 0);
        maxBatch->setChecked(true);
        limit->setValue(512);
        QVERIFY(!panel.cachesBox()->isEnabled());
        QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
        QVERIFY(request.maxBatch);
        for (const RunConfig &c : request.configs)
            QCOMPARE(c.memoryLimitMib, 512);
        QVERIFY(supervisor::validate(request).empty());
        // Without a limit a CPU search is refused by the service, in the words the CLI gives.
        limit->setValue(0);
        QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
        const auto problems = supervisor::validate(request);
        QVERIFY(!problems.empty());
        QVERIFY2(QString::fromStdString(problems.front().message).contains("give --memory-limit-mib"),
                 problems.front().message.c_str());
    }

    void adaptiveRepeatsAndWarmupReachTheRequest()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath("s.ini"), QSettings::IniFormat);
        {
            ConfigPanel panel;
            cpuPanel(panel);
            SweepRequest request;
            QString error;
            QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
            QVERIFY(!request.adaptive);
            QVERIFY(request.machineWarmup.has_value() && !*request.machineWarmup); // off unless asked
            QVERIFY(!request.starts);
            QVERIFY(!panel.maxProcessesBox()->isEnabled());

            panel.untilCiBox()->setChecked(true);
            QVERIFY(panel.maxProcessesBox()->isEnabled() && panel.ciHalfWidthBox()->isEnabled());
            panel.ciHalfWidthBox()->setValue(5);
            panel.maxProcessesBox()->setValue(4);
            panel.maxMinutesBox()->setValue(7);
            panel.machineWarmupBox()->setChecked(true);
            panel.cachesBox()->setCurrentIndex(panel.cachesBox()->findData(QStringLiteral("again")));
            QVERIFY2(panel.buildRequest(request, &error), qPrintable(error));
            QVERIFY(request.adaptive);
            QVERIFY(request.starts && *request.starts == *supervisor::startStatesFromString("again"));
            QCOMPARE(request.adaptiveHalfWidth, 0.05);
            QCOMPARE(request.adaptiveMaxProcesses, 4);
            QCOMPARE(request.adaptiveMaxMinutes, 7);
            QVERIFY(request.machineWarmup.has_value() && *request.machineWarmup);
            panel.saveSettings(settings);
        }
        ConfigPanel again;
        again.setCudaDevices(0);
        again.loadSettings(settings);
        QVERIFY(again.untilCiBox()->isChecked());
        QCOMPARE(again.maxProcessesBox()->value(), 4);
        QVERIFY(again.machineWarmupBox()->isChecked());
        QCOMPARE(again.cachesBox()->currentData().toString(), QString("again"));

        // Settings of before start states said "warm": the same choice, by its new name.
        settings.setValue("config/caches", "warm");
        ConfigPanel old;
        old.setCudaDevices(0);
        old.loadSettings(settings);
        QCOMPARE(old.cachesBox()->currentData().toString(), QString("again"));
    }
};

QTEST_MAIN(TestConfigPanel)
#include "test_config_panel.moc"
