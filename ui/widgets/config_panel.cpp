#include "widgets/config_panel.h"

#include "config/config_json.h"
#include "config/model_name.h"
#include "config/presets.h"
#include "config/sweep_baseline.h"
#include "controller/ledger_job.h"
#include "supervisor/sweep_plan.h"
#include "supervisor/time_left.h"
#include "widgets/compile_options.h"
#include "widgets/field_widgets.h"
#include "widgets/model_picker.h"
#include "widgets/wheel_guard.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace stepscope::ui
{
namespace
{

// QStandardItemModel's flags role: 0 greys an item of a QComboBox, an invalid QVariant restores it.
constexpr int kFlagsRole = Qt::UserRole - 1;

// What a custom-list entry is called: the knobs, and the runtime when it is not the default one.
QString entryName(const RunConfig &c)
{
    const QString knobs = QString::fromStdString(knobLabel(c));
    return c.runtime == Runtime::Python && c.compile == CompileMode::None ? QStringLiteral("python ") + knobs : knobs;
}

} // namespace

ConfigPanel::ConfigPanel(QWidget *parent)
    : QWidget(parent), banner_(new StoredSweepBanner), sweep_(new SweepGroup), where_(new WhereGroup),
      knobs_(new KnobsGroup), compile_(new CompileOptions), run_(new RunGroup), actions_(new ActionBar)
{
    // What runs and what it is compared with come first, under the stored sweep's banner: the rest
    // of the form details them. The planned run and Start/Stop close the panel, in a bar of their
    // own that a window can pin outside a scrolled panel (actionBar()).
    auto *layout = new QVBoxLayout(this);
    for (QWidget *group : std::initializer_list<QWidget *>{banner_, sweep_, where_, knobs_, compile_, run_, actions_})
        layout->addWidget(group);
    layout->addStretch();

    connect(banner_->runAgain, &QPushButton::clicked, this, &ConfigPanel::runAgainRequested);
    connect(banner_, &StoredSweepBanner::editRequested, this, [this] {
        leaveSweepView();
        Q_EMIT sweepViewLeft(false);
    });
    connect(banner_, &StoredSweepBanner::ownRequested, this, [this] {
        returnToOwnSettings();
        Q_EMIT sweepViewLeft(true);
    });
    connect(actions_->start, &QPushButton::clicked, this, &ConfigPanel::startRequested);
    connect(actions_->stop, &QPushButton::clicked, this, &ConfigPanel::stopRequested);
    connect(actions_->planned, qOverload<int>(&QSpinBox::valueChanged), this,
            [this](int v) { Q_EMIT plannedStepsChanged(v); });
    connect(sweep_->addCustom, &QPushButton::clicked, this, &ConfigPanel::addCustom);
    connect(sweep_->removeCustom, &QPushButton::clicked, this, &ConfigPanel::removeCustom);
    // What enables or greys other rows, and what the compile hint and the baseline's rows name.
    connect(sweep_->sweepKind, &QComboBox::currentIndexChanged, this, &ConfigPanel::updateEnabled);
    connect(where_->runtime, &QComboBox::currentIndexChanged, this, &ConfigPanel::updateEnabled);
    connect(where_->device, &QComboBox::currentTextChanged, this, &ConfigPanel::updateEnabled);
    connect(where_->affinity, &QComboBox::currentIndexChanged, this, &ConfigPanel::updateEnabled);
    for (QCheckBox *b : knobs_->checks())
        connect(b, &QCheckBox::toggled, this, &ConfigPanel::updateEnabled);
    connect(knobs_->optimizer, &QComboBox::currentIndexChanged, this, &ConfigPanel::updateEnabled);
    connect(compile_, &CompileOptions::changed, this, &ConfigPanel::compileModeChanged);
    for (QCheckBox *b : {run_->untilCi, run_->maxBatch})
        connect(b, &QCheckBox::toggled, this, &ConfigPanel::updateEnabled);
    connect(run_->model, &ModelPicker::changed, this, &ConfigPanel::modelChanged);
    // The picker offers the models of the Python that runs Python runs.
    connect(where_->python, &QLineEdit::textChanged, this, [this] { run_->model->setPython(pythonInterpreter()); });
    // What changes the configurations, and so the baseline's rows.
    for (QSpinBox *box : {run_->sequenceLength, where_->threads})
        connect(box, qOverload<int>(&QSpinBox::valueChanged), this, &ConfigPanel::updateBaselineChoices);
    connect(where_->cores, &QLineEdit::textChanged, this, &ConfigPanel::updateBaselineChoices);
    // The rest of what the preview counts: the shape, the repeats, the batch scan, the caches.
    for (QSpinBox *box : {run_->batch, run_->imageSize, run_->warmup, run_->steps, run_->repeats, run_->maxProcesses})
        connect(box, qOverload<int>(&QSpinBox::valueChanged), this, &ConfigPanel::updatePreview);
    for (QLineEdit *edit : {run_->batches, run_->devices, run_->worldSizes})
        connect(edit, &QLineEdit::textChanged, this, &ConfigPanel::updatePreview);
    connect(run_->maxBatch, &QCheckBox::toggled, this, &ConfigPanel::updatePreview);
    connect(run_->caches, &QComboBox::currentIndexChanged, this, &ConfigPanel::updatePreview);
    connect(knobs_->autocastDtype, &QComboBox::currentIndexChanged, this, &ConfigPanel::updatePreview);

    // A wheel over the panel scrolls it: spin boxes and combo boxes change only once clicked.
    installWheelGuard(this);
    // Combo boxes take the panel's width rather than their longest item's, so that the panel stays
    // narrow enough for the views at 1280 px; the open list still shows whole items.
    for (QComboBox *box : findChildren<QComboBox *>()) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(10);
    }
    offeredStarts_ = run_->caches->count();
    settings_ = panelSettings(
        {where_, knobs_, run_, sweep_, actions_},
        [this](const std::optional<supervisor::StartStates> &starts) { return offerStartStates(starts); });
    modelChanged();
    setCudaDevices(0);
    setDevicesUnknown(tr("Looking for CUDA devices…")); // until the window's probe answers
    updatePythonNote();
}

void ConfigPanel::setGpus(std::vector<supervisor::FoundGpu> gpus)
{
    gpus_ = std::move(gpus);
    QStringList names;
    for (const auto &g : gpus_)
        names << QString("cuda:%1 %2").arg(g.index).arg(g.name);
    run_->devices->setToolTip(run_->devices->toolTip().section(QStringLiteral("\n\n"), 0, 0) +
                              (names.isEmpty() ? QString() : QStringLiteral("\n\n") + names.join('\n')));
}

void ConfigPanel::setCudaDevices(int count)
{
    cudaDevices_ = count;
    where_->offerDevices(count);
    if (count > 0) {
        const RunConfig shape = supervisor::defaultShape(true);
        setShape(shape.batch, shape.imageSize, shape.warmupSteps, shape.steps);
        // Every knob of the ledger preset, the pin on a GPU too: the dashboard's default sweep is
        // stepscope-cli run's (supervisor/sweep_recipe.h).
        for (QCheckBox *b : knobs_->checks())
            b->setChecked(true);
        where_->affinity->setCurrentIndex(where_->affinity->findData(QStringLiteral("one")));
        setOptimizer(Optimizer::Fused);
        // The shape it set, not the model: the Model field says what is trained (issue 30).
        where_->deviceNote->setText(tr("%n CUDA device(s) found: %1x%1 images, batch %2 by default.", nullptr, count)
                                        .arg(shape.imageSize)
                                        .arg(shape.batch));
    } else {
        const RunConfig shape = supervisor::defaultShape(false);
        setShape(shape.batch, shape.imageSize, shape.warmupSteps, shape.steps);
        knobs_->autocast->setChecked(true);
        knobs_->channelsLast->setChecked(true);
        setOptimizer(Optimizer::Fused);
        where_->deviceNote->setText(tr("No CUDA device found: the sweep runs on the CPU with small 64x64 images. "
                                       "TF32, cuDNN, fp16 and CUDA graphs need a GPU."));
    }
    updateEnabled();
}

void ConfigPanel::setDevicesUnknown(const QString &note)
{
    where_->deviceNote->setText(note);
}

void ConfigPanel::updateEnabled()
{
    // Each group greys its own rows; the table's rules decide about the knobs, the limits table's
    // enabling rules about the sweep's numbers (the planned run's box too, wherever the bar is).
    knobs_->updateEnabled(baseConfig());
    where_->updateEnabled();
    run_->updateEnabled();
    sweep_->updateEnabled();
    const auto switchOf = [this](const char *option) { return run_->switchOf(option); };
    enableLimitBoxes(this, switchOf);
    enableLimitBoxes(actions_, switchOf);
    updateCompile();
    updateBaselineChoices();
}

void ConfigPanel::compileModeChanged()
{
    // torch.compile has no C++ training path: choosing a mode moves the runtime to Python (the
    // hint says so), and the rows it is compared with run there too unless the user goes back.
    const bool on = compile_->choice().enabled();
    if (on && !compileWasOn_)
        where_->runtime->setCurrentIndex(where_->runtime->findData(int(Runtime::Python)));
    compileWasOn_ = on;
    updateEnabled();
}

void ConfigPanel::updateCompile()
{
    const RunConfig base = baseConfig();
    const CompileChoice choice = compile_->choice();
    const SweepKind kind = sweepKind();
    // The configuration compile joins: the ticked one for Single and the custom list, the
    // baseline's device and shape for the sweeps (sweep_recipe.h adds the knobs per row).
    const bool alone = kind == SweepKind::Single || kind == SweepKind::Custom;
    compile_->updateValidity(alone ? base : baselineOf(base));

    // A compiled configuration needs Python; only where the form is that one configuration is
    // native then impossible (the sweeps keep native eager rows beside Python compiled ones).
    const bool nativeRefused = choice.enabled() && alone;
    where_->runtime->setItemData(0, nativeRefused ? QVariant(0) : QVariant(), kFlagsRole);
    where_->runtime->setItemData(
        0, nativeRefused ? tr("torch.compile has no C++ training path; set runtime to python") : QVariant(),
        Qt::ToolTipRole);

    compile_->explain(base, kind);
}

void ConfigPanel::modelChanged()
{
    run_->showSequenceLength(ModelPicker::takesTokens(run_->model->model()));
    updateEnabled(); // the compile hint, the baseline's rows and the preview name the model
}

void ConfigPanel::updatePythonNote()
{
    where_->updatePythonNote();
}

QString ConfigPanel::pythonInterpreter() const
{
    return where_->pythonInterpreter();
}

void ConfigPanel::setPythonInterpreter(const QString &path)
{
    where_->python->setText(path);
}

QString ConfigPanel::device() const
{
    return where_->device->currentText();
}

CompileChoice ConfigPanel::compileChoice() const
{
    return compile_->choice();
}

ConfigPanel::SweepKind ConfigPanel::sweepKind() const
{
    return sweep_->kind();
}

RunConfig ConfigPanel::baseConfig() const
{
    RunConfig c;
    SweepRequest unused;
    fillSweep(settings_, c, unused);
    return c;
}

std::vector<std::string> ConfigPanel::tickedKnobs() const
{
    return knobNames(baseConfig());
}

supervisor::SweepRecipe ConfigPanel::recipe() const
{
    supervisor::SweepRecipe r;
    fillSweep(settings_, r.base, r.settings);
    r.kind = sweepKind();
    r.knobs = knobNames(r.base);
    r.compile = compile_->recipeChoice();
    // The list keeps the knobs (and the compile settings); the shape comes from the form now.
    for (const RunConfig &c : customConfigs_)
        r.list.push_back(withShapeOf(c, r.base));
    r.baseline = sweep_->baseline->currentData().toString();
    r.devices = run_->devices->text().trimmed();
    return r;
}

bool ConfigPanel::buildRequest(SweepRequest &request, QString *error, QStringList *skipped) const
{
    auto fail = [&](const QString &message) {
        if (error)
            *error = message;
        return false;
    };
    const supervisor::SweepRecipe form = recipe();
    Sweep sweep;
    std::string problem;
    if (!supervisor::requestOf(form, request, problem, &sweep))
        return fail(tr("The chosen baseline is not in this sweep any more: pick another or automatic."));
    if (skipped)
        for (const auto &s : sweep.skipped)
            skipped->append(QString::fromStdString(s));
    if (sweep.configs.empty())
        return fail(form.kind == SweepKind::Custom
                        ? tr("The custom list is empty: tick options and press \"Add ticked combination\".")
                        : tr("The sweep has no configuration."));
    for (const auto &c : sweep.configs) {
        const auto problems = validate(c);
        if (!problems.empty())
            return fail(QString::fromStdString(knobLabel(c) + ": " + describe(problems)));
    }
    request.lanes.clear();
    if (!form.devices.isEmpty()) {
        QString why;
        request.lanes = supervisor::parseLanes(form.devices, gpus_, why);
        if (!why.isEmpty())
            return fail(tr("Devices at once: %1").arg(why.section(QStringLiteral(": "), 1)));
    }
    return true;
}

bool ConfigPanel::storedRequest(SweepRequest &request, QString *error) const
{
    std::string why;
    if (!storedRecipe_ || !supervisor::requestOf(*storedRecipe_, request, why)) {
        *error = storedRecipe_ ? QString::fromStdString(why) : storedProblem_;
        return false;
    }
    // Its lanes as this machine would deal them; counted only (Run again says what is missing).
    if (!storedRecipe_->devices.isEmpty()) {
        QString problem;
        request.lanes = supervisor::parseLanes(storedRecipe_->devices, gpus_, problem);
    }
    return true;
}

qint64 ConfigPanel::plannedSteps() const
{
    return actions_->planned->value();
}

void ConfigPanel::setRunning(bool running)
{
    actions_->start->setEnabled(!running && !viewingSweep_);
    actions_->stop->setEnabled(running);
    banner_->runAgain->setEnabled(!running);
    actions_->progress->setVisible(running);
    if (running)
        setProgress(0, -1, false);
}

void ConfigPanel::addCustom()
{
    // With a compile mode, one entry per ticked cache state, as Single would run them.
    for (const RunConfig &c : compile_->choice().applyTo(baseConfig())) {
        customConfigs_.push_back(c);
        sweep_->custom->addItem(entryName(c));
    }
    updateBaselineChoices();
}

void ConfigPanel::removeCustom()
{
    const int row = sweep_->custom->currentRow();
    if (row >= 0) {
        delete sweep_->custom->takeItem(row);
        customConfigs_.erase(customConfigs_.begin() + row);
        updateBaselineChoices();
    }
}

void ConfigPanel::addConfig(const RunConfig &config)
{
    if (viewingSweep_) {
        leaveSweepView();
        Q_EMIT sweepViewLeft(false);
    }
    setSweepKind(SweepKind::Custom);
    setDevice(itemOfDevice(config.device));
    if (config.compile == CompileMode::None)
        where_->runtime->setCurrentIndex(where_->runtime->findData(int(config.runtime)));
    setShape(config.batch, config.imageSize, config.warmupSteps, config.steps);
    run_->model->setModel(QString::fromStdString(config.model));
    run_->sequenceLength->setValue(config.sequenceLength);
    where_->threads->setValue(config.threads);
    if (std::find(customConfigs_.begin(), customConfigs_.end(), config) == customConfigs_.end()) {
        customConfigs_.push_back(config);
        sweep_->custom->addItem(entryName(config));
    }
    sweep_->custom->setCurrentRow(
        static_cast<int>(std::find(customConfigs_.begin(), customConfigs_.end(), config) - customConfigs_.begin()));
    updateBaselineChoices();
}

void ConfigPanel::updateBaselineChoices()
{
    if (settings_.empty())
        return; // during construction
    // Keyed by canonical name: the choice survives a change of the form that keeps its row.
    const QString kept = sweep_->baseline->currentData().toString();
    supervisor::SweepRecipe form = recipe();
    form.baseline.clear();
    const Sweep sweep = supervisor::expand(form);
    const QSignalBlocker block(sweep_->baseline);
    sweep_->baseline->clear();
    const std::size_t automatic = defaultBaseline(sweep.configs);
    sweep_->baseline->addItem(sweep.configs.empty() ? tr("automatic")
                                                    : tr("automatic: %1").arg(entryName(sweep.configs[automatic])),
                              QString());
    for (const RunConfig &c : sweep.configs)
        sweep_->baseline->addItem(entryName(c), QString::fromStdString(canonicalName(c)));
    const int index = kept.isEmpty() ? 0 : sweep_->baseline->findData(kept);
    sweep_->baseline->setCurrentIndex(index >= 0 ? index : 0);
    updatePreview();
}

void ConfigPanel::setRunTimes(std::shared_ptr<const supervisor::TimeLeft> times)
{
    runTimes_ = std::move(times);
    updatePreview();
}

QString ConfigPanel::previewText() const
{
    return actions_->preview->text();
}

void ConfigPanel::updatePreview()
{
    if (settings_.empty())
        return; // during construction
    SweepRequest request;
    QString error;
    // A stored sweep on show: what Run again runs. The form under it shows the same settings, but a
    // sweep of before recipes, or one of rules that changed since, may expand differently.
    const bool ok = viewingSweep_ ? storedRequest(request, &error) : buildRequest(request, &error);
    if (!ok) {
        actions_->setPreview(
            (viewingSweep_ ? tr("Run again would refuse: %1") : tr("Start would refuse: %1")).arg(error), true);
        return;
    }
    const supervisor::TimeLeft none;
    actions_->showPlan(request, supervisor::preview(request, runTimes_ ? *runTimes_ : none), viewingSweep_);
}

void ConfigPanel::setProgress(double fraction, qint64 secondsLeft, bool guess)
{
    actions_->setProgress(fraction, secondsLeft, guess);
}

QString ConfigPanel::progressText() const
{
    return actions_->progressText();
}

bool ConfigPanel::setBaseline(const QString &canonical)
{
    const int index = canonical.isEmpty() ? 0 : sweep_->baseline->findData(canonical);
    if (index < 0)
        return false;
    sweep_->baseline->setCurrentIndex(index);
    return true;
}

QCheckBox *ConfigPanel::knobBox(const QString &knob) const
{
    return findChild<QCheckBox *>("knob:" + knob);
}

void ConfigPanel::setOptimizer(Optimizer optimizer)
{
    knobs_->optimizer->setCurrentIndex(knobs_->optimizer->findData(int(optimizer)));
}

void ConfigPanel::setSweepKind(SweepKind kind)
{
    sweep_->setKind(kind);
}

void ConfigPanel::setShape(int batch, int imageSize, int warmup, int steps)
{
    run_->setShape(batch, imageSize, warmup, steps);
}

void ConfigPanel::setDevice(const QString &device)
{
    const int i = where_->device->findText(device);
    if (i >= 0)
        where_->device->setCurrentIndex(i);
}

void ConfigPanel::setRepeats(int repeats)
{
    run_->repeats->setValue(repeats);
}

void ConfigPanel::saveSettings(QSettings &s) const
{
    s.beginGroup("config");
    saveSettingsTable(settings_, s);
    compile_->saveSettings(s);
    QStringList custom;
    for (const auto &c : customConfigs_)
        custom << QString::fromUtf8(QJsonDocument(toJson(c)).toJson(QJsonDocument::Compact));
    s.setValue("custom", custom);
    s.endGroup();
}

void ConfigPanel::loadSettings(const QSettings &s)
{
    if (!s.contains("config/batch"))
        return; // first start: keep the machine's defaults
    for (const PanelSetting &row : settings_) {
        // Compile first: choosing a mode moves the runtime to Python, and the saved runtime wins.
        if (row.widget == where_->runtime)
            compile_->loadSettings(s, QStringLiteral("config/"));
        loadSettingRow(row, s);
    }
    // Settings of before start states kept the old cache words: the same choices by their new names.
    const QString caches = s.value("config/caches").toString();
    if (caches == "cold" || caches == "warm" || caches == "both")
        run_->caches->setCurrentIndex(run_->caches->findData(caches == "cold"   ? QStringLiteral("fresh")
                                                             : caches == "warm" ? QStringLiteral("again")
                                                                                : QStringLiteral("fresh,again")));
    if (!s.contains("config/optimizer")) // settings of before the one SGD control
        setOptimizer(s.value("config/fused").toBool()          ? Optimizer::Fused
                     : s.value("config/perParameter").toBool() ? Optimizer::PerParameter
                                                               : Optimizer::Foreach);
    customConfigs_.clear();
    sweep_->custom->clear();
    for (const auto &json : s.value("config/custom").toStringList()) {
        RunConfig c;
        std::vector<ConfigError> errors;
        if (parseStoredConfig(json.toUtf8(), c, errors)) {
            customConfigs_.push_back(c);
            sweep_->custom->addItem(entryName(c));
        }
    }
    updateEnabled();
}

void ConfigPanel::showStoredSweep(const SweepInfo &info)
{
    if (!viewingSweep_) {
        QSettings own;
        saveSettings(own);
    }
    std::vector<RunConfig> configs;
    for (const auto &json : info.configJsons) {
        RunConfig c;
        std::vector<ConfigError> errors;
        if (parseStoredConfig(QByteArray::fromStdString(json), c, errors) &&
            std::find(configs.begin(), configs.end(), c) == configs.end())
            configs.push_back(c);
    }
    if (configs.empty())
        return;
    // Every setting as the sweep stored it, from the recipe Run again runs: nothing of the user's
    // own form (a batch scan, devices, a custom list) may stand under the stored sweep's caption.
    bool legacy = false;
    std::string why;
    storedRecipe_ = supervisor::recipeToRunAgain(info.sweep, info.configJsons, legacy, why);
    storedProblem_ = QString::fromStdString(why);
    supervisor::SweepRecipe recipe = storedRecipe_.value_or(supervisor::SweepRecipe{});
    if (!storedRecipe_)
        recipe.settings.repeats = QJsonDocument::fromJson(QByteArray::fromStdString(info.sweep.settingsJson))
                                      .object()
                                      .value("repeats")
                                      .toInt(1);
    // A sweep of before recipes stored its configurations only: the compile choice is its first
    // configuration's (a single compiled one), else the rows its preset brings.
    if (legacy || !storedRecipe_)
        recipe.compile =
            configs.front().compile == CompileMode::None
                ? std::nullopt
                : std::optional<CompileChoice>(CompileChoice{configs.front().compile, configs.front().compileBackend,
                                                             configs.front().compileTarget});
    const QString preset = QString::fromStdString(info.sweep.preset);
    if (preset == QLatin1String("custom"))
        recipe.list = recipe.kind == SweepKind::Custom && !recipe.list.empty() ? recipe.list : configs;
    banner_->caption->setText(tr("Sweep %1, \"%2\": its settings, read-only.")
                                  .arg(info.sweep.id)
                                  .arg(QString::fromStdString(info.sweep.name)));
    // The shape and where it ran from the first configuration, every knob any configuration used.
    // A stored "cuda" is this machine's cuda:0 where there is one; elsewhere it is shown as stored.
    const QString stored = QString::fromStdString(configs.front().device);
    const QString device = where_->device->findText(itemOfDevice(configs.front().device)) >= 0
                               ? itemOfDevice(configs.front().device)
                               : stored;
    if (where_->device->findText(device) < 0)
        where_->device->addItem(device); // not on this machine: shown, not offered
    // The list and the compile choice before the rows: the kind's row expands them, and the
    // runtime's row must win over the runtime a compile mode chooses.
    if (preset == QLatin1String("custom")) {
        customConfigs_ = recipe.list;
        sweep_->custom->clear();
        for (const RunConfig &c : customConfigs_)
            sweep_->custom->addItem(entryName(c));
    }
    compile_->setChoice(recipe.compile);
    showStoredRows(settings_, {configs, recipe, preset});
    where_->device->setCurrentIndex(where_->device->findText(device));
    setBaseline(recipe.baseline);
    setSweepView(true);
}

void ConfigPanel::returnToOwnSettings()
{
    leaveSweepView();
    setCudaDevices(cudaDevices_); // drops a device listed only for the stored sweep
    while (run_->caches->count() > offeredStarts_)
        run_->caches->removeItem(run_->caches->count() - 1); // start states listed only for the stored sweep
    loadSettings(QSettings());
}

QString ConfigPanel::offerStartStates(const std::optional<supervisor::StartStates> &starts)
{
    if (!starts)
        return QString(); // automatic
    for (int i = 0; i < run_->caches->count(); ++i) {
        const QString words = run_->caches->itemData(i).toString();
        if (const auto offered = supervisor::startStatesFromString(words);
            !words.isEmpty() && offered && *offered == *starts)
            return words;
    }
    // Not one of the panel's choices (the CLI's --starts takes any): shown as stored, not offered.
    const QString words = QString::fromStdString(supervisor::toString(*starts));
    run_->caches->addItem(tr("As stored: %1").arg(words), words);
    return words;
}

void ConfigPanel::leaveSweepView()
{
    setSweepView(false);
}

QString ConfigPanel::sweepCaption() const
{
    return viewingSweep_ ? banner_->caption->text() : QString();
}

void ConfigPanel::setSweepView(bool on)
{
    viewingSweep_ = on;
    if (!on)
        storedRecipe_.reset();
    banner_->setVisible(on);
    // Read-only: the form shows the stored sweep; the planned run stays the user's reading choice.
    for (QGroupBox *box : findChildren<QGroupBox *>(QString(), Qt::FindDirectChildrenOnly))
        if (box != banner_)
            box->setEnabled(!on);
    compile_->setEnabled(!on);
    where_->deviceNote->setVisible(!on); // it speaks of this machine, not of the stored sweep
    actions_->start->setEnabled(!on && !actions_->stop->isEnabled());
    actions_->start->setToolTip(on ? tr("Showing a stored sweep: Run again, or Edit these / My settings first")
                                   : QString());
    updatePreview(); // the stored sweep's runs while it is on show, the form's afterwards
}

} // namespace stepscope::ui
