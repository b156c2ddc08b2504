#include "widgets/config_panel.h"

#include "config/config_json.h"
#include "config/presets.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

namespace stepscope::ui
{
namespace
{

QSpinBox *spin(int lo, int hi, int value, const QString &suffix = {})
{
    auto *s = new QSpinBox;
    s->setRange(lo, hi);
    s->setValue(value);
    s->setSuffix(suffix);
    s->setAccelerated(true);
    return s;
}

} // namespace

ConfigPanel::ConfigPanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);

    auto *where = new QGroupBox(tr("Where"));
    auto *whereForm = new QFormLayout(where);
    device_ = new QComboBox;
    device_->addItem("cpu");
    runtime_ = new QComboBox;
    runtime_->addItem(tr("native (LibTorch C++)"), "native");
    runtime_->addItem(tr("python (not in this build)"), "python");
    // The Python worker (torch.compile, Python eager) has not landed: the item is shown disabled
    // (Qt::UserRole - 1 is QStandardItemModel's flags role) instead of failing at run time.
    runtime_->setItemData(1, 0, Qt::UserRole - 1);
    deviceNote_ = new QLabel;
    deviceNote_->setWordWrap(true);
    whereForm->addRow(tr("Device"), device_);
    whereForm->addRow(tr("Runtime"), runtime_);
    whereForm->addRow(deviceNote_);
    layout->addWidget(where);

    auto *knobs = new QGroupBox(tr("Optimizations"));
    auto *knobForm = new QVBoxLayout(knobs);
    tf32_ = new QCheckBox(tr("TF32 matmuls and convolutions"));
    cudnn_ = new QCheckBox(tr("cuDNN autotuning (benchmark)"));
    autocast_ = new QCheckBox(tr("Autocast"));
    autocastDtype_ = new QComboBox;
    autocastDtype_->addItems({"bf16", "fp16"});
    auto *autocastRow = new QHBoxLayout;
    autocastRow->addWidget(autocast_);
    autocastRow->addWidget(autocastDtype_);
    autocastRow->addStretch();
    channelsLast_ = new QCheckBox(tr("channels_last memory format"));
    graph_ = new QCheckBox(tr("CUDA graph of the whole step"));
    fused_ = new QCheckBox(tr("Fused SGD"));
    perParameter_ = new QCheckBox(tr("Per-parameter SGD loop (for comparison)"));
    compile_ = new QComboBox;
    compile_->addItems({"none", "default", "reduce-overhead", "max-autotune"});
    compile_->setEnabled(false);
    compile_->setToolTip(tr("torch.compile runs in the Python worker, which is not part of this build yet."));
    auto *compileRow = new QHBoxLayout;
    compileRow->addWidget(new QLabel(tr("torch.compile")));
    compileRow->addWidget(compile_);
    compileRow->addStretch();
    tf32_->setObjectName("knob:tf32");
    cudnn_->setObjectName("knob:cudnn-bench");
    autocast_->setObjectName("knob:autocast");
    channelsLast_->setObjectName("knob:channels-last");
    graph_->setObjectName("knob:cuda-graph");
    fused_->setObjectName("knob:sgd-fused");
    perParameter_->setObjectName("knob:sgd-per-parameter");
    for (QWidget *w : {static_cast<QWidget *>(tf32_), static_cast<QWidget *>(cudnn_)})
        knobForm->addWidget(w);
    knobForm->addLayout(autocastRow);
    for (QWidget *w : {static_cast<QWidget *>(channelsLast_), static_cast<QWidget *>(graph_),
                       static_cast<QWidget *>(fused_), static_cast<QWidget *>(perParameter_)})
        knobForm->addWidget(w);
    knobForm->addLayout(compileRow);
    layout->addWidget(knobs);

    auto *shape = new QGroupBox(tr("Run"));
    auto *shapeForm = new QFormLayout(shape);
    batch_ = spin(1, 4096, 32);
    imageSize_ = spin(32, 1024, 224, " px");
    warmup_ = spin(0, 100000, 10);
    steps_ = spin(1, 1000000, 100);
    repeats_ = spin(1, 100, 1);
    repeats_->setToolTip(tr("Cold processes per configuration, interleaved A B C A B C"));
    freshCache_ = new QCheckBox(tr("Fresh CUDA JIT cache per run (truly cold first step)"));
    shapeForm->addRow(tr("Batch"), batch_);
    shapeForm->addRow(tr("Image size"), imageSize_);
    shapeForm->addRow(tr("Warm-up steps"), warmup_);
    shapeForm->addRow(tr("Measured steps"), steps_);
    shapeForm->addRow(tr("Repeats"), repeats_);
    shapeForm->addRow(freshCache_);
    layout->addWidget(shape);

    auto *sweep = new QGroupBox(tr("Sweep"));
    auto *sweepLayout = new QVBoxLayout(sweep);
    sweepKind_ = new QComboBox;
    sweepKind_->addItem(tr("Ledger: ticked options added one by one"), int(SweepKind::Ledger));
    sweepKind_->addItem(tr("Each ticked option alone vs the baseline"), int(SweepKind::Each));
    sweepKind_->addItem(tr("Every combination of the ticked options"), int(SweepKind::Combinations));
    sweepKind_->addItem(tr("Custom list"), int(SweepKind::Custom));
    sweepKind_->addItem(tr("Only the ticked combination"), int(SweepKind::Single));
    custom_ = new QListWidget;
    custom_->setMaximumHeight(90);
    addCustom_ = new QPushButton(tr("Add ticked combination"));
    removeCustom_ = new QPushButton(tr("Remove"));
    auto *customButtons = new QHBoxLayout;
    customButtons->addWidget(addCustom_);
    customButtons->addWidget(removeCustom_);
    planned_ = spin(1, 2000000000, 10000, tr(" steps"));
    planned_->setToolTip(tr("The training run you plan: the recommendation is the fastest way to finish it"));
    auto *plannedForm = new QFormLayout;
    plannedForm->addRow(tr("Planned run"), planned_);
    sweepLayout->addWidget(sweepKind_);
    sweepLayout->addWidget(custom_);
    sweepLayout->addLayout(customButtons);
    sweepLayout->addLayout(plannedForm);
    layout->addWidget(sweep);

    start_ = new QPushButton(tr("Start"));
    stop_ = new QPushButton(tr("Stop"));
    start_->setDefault(true);
    stop_->setEnabled(false);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(start_);
    buttons->addWidget(stop_);
    layout->addLayout(buttons);
    layout->addStretch();

    connect(start_, &QPushButton::clicked, this, &ConfigPanel::startRequested);
    connect(stop_, &QPushButton::clicked, this, &ConfigPanel::stopRequested);
    connect(addCustom_, &QPushButton::clicked, this, &ConfigPanel::addCustom);
    connect(removeCustom_, &QPushButton::clicked, this, [this] {
        const int row = custom_->currentRow();
        if (row >= 0) {
            delete custom_->takeItem(row);
            customConfigs_.erase(customConfigs_.begin() + row);
        }
    });
    connect(planned_, qOverload<int>(&QSpinBox::valueChanged), this, [this](int v) { Q_EMIT plannedStepsChanged(v); });
    connect(device_, &QComboBox::currentTextChanged, this, &ConfigPanel::updateEnabled);
    connect(sweepKind_, &QComboBox::currentIndexChanged, this, &ConfigPanel::updateEnabled);
    connect(autocast_, &QCheckBox::toggled, this, &ConfigPanel::updateEnabled);
    connect(fused_, &QCheckBox::toggled, this, [this](bool on) {
        if (on)
            perParameter_->setChecked(false); // one optimizer implementation per configuration
    });
    connect(perParameter_, &QCheckBox::toggled, this, [this](bool on) {
        if (on)
            fused_->setChecked(false);
    });
    setCudaDevices(0);
}

void ConfigPanel::setCudaDevices(int count)
{
    cudaDevices_ = count;
    const QString previous = device_->currentText();
    device_->clear();
    for (int i = 0; i < count; ++i)
        device_->addItem(QString("cuda:%1").arg(i));
    device_->addItem("cpu");
    const int keep = device_->findText(previous);
    device_->setCurrentIndex(count > 0 ? 0 : device_->findText("cpu"));
    if (keep >= 0 && previous != "cpu")
        device_->setCurrentIndex(keep);
    if (count > 0) {
        setShape(32, 224, 10, 100);
        for (auto *b : {tf32_, cudnn_, autocast_, channelsLast_, graph_, fused_})
            b->setChecked(true);
        deviceNote_->setText(tr("%n CUDA device(s) found: ResNet18 at 224x224.", nullptr, count));
    } else {
        // A CPU step at 224 px takes seconds: the CPU default keeps a sweep to a minute or so.
        setShape(8, 64, 5, 30);
        autocast_->setChecked(true);
        channelsLast_->setChecked(true);
        fused_->setChecked(true);
        deviceNote_->setText(tr("No CUDA device found: the sweep runs on the CPU with small 64x64 images. "
                                "TF32, cuDNN, fp16 and CUDA graphs need a GPU."));
    }
    updateEnabled();
}

void ConfigPanel::updateEnabled()
{
    const bool cuda = device_->currentText().startsWith("cuda");
    for (auto *b : {tf32_, cudnn_, graph_, freshCache_})
        b->setEnabled(cuda);
    autocastDtype_->setEnabled(autocast_->isChecked());
    if (!cuda)
        autocastDtype_->setCurrentText("bf16");
    autocastDtype_->setItemData(1, cuda ? QVariant() : QVariant(0), Qt::UserRole - 1);
    const bool custom = sweepKind_->currentData().toInt() == int(SweepKind::Custom);
    custom_->setVisible(custom);
    addCustom_->setVisible(custom);
    removeCustom_->setVisible(custom);
}

RunConfig ConfigPanel::baseConfig() const
{
    RunConfig c;
    c.device = device_->currentText().toStdString();
    c.batch = batch_->value();
    c.imageSize = imageSize_->value();
    c.warmupSteps = warmup_->value();
    c.steps = steps_->value();
    const bool cuda = c.onCuda();
    c.tf32 = cuda && tf32_->isChecked();
    c.cudnnBenchmark = cuda && cudnn_->isChecked();
    if (autocast_->isChecked())
        c.autocast = autocastDtype_->currentText() == "fp16" ? Autocast::FP16 : Autocast::BF16;
    c.channelsLast = channelsLast_->isChecked();
    c.cudaGraph = cuda && graph_->isChecked();
    c.optimizer = fused_->isChecked()          ? Optimizer::Fused
                  : perParameter_->isChecked() ? Optimizer::PerParameter
                                               : Optimizer::Foreach;
    return c;
}

std::vector<std::string> ConfigPanel::tickedKnobs() const
{
    return knobNames(baseConfig());
}

bool ConfigPanel::buildRequest(SweepRequest &request, QString *error, QStringList *skipped) const
{
    const RunConfig base = baseConfig();
    const auto kind = static_cast<SweepKind>(sweepKind_->currentData().toInt());
    Sweep sweep;
    switch (kind) {
    case SweepKind::Ledger:
        sweep = cumulativeSweep(base, tickedKnobs());
        request.preset = "ledger";
        break;
    case SweepKind::Each:
        sweep = eachSweep(base, tickedKnobs());
        request.preset = "each";
        break;
    case SweepKind::Combinations:
        sweep = combinationSweep(base, tickedKnobs());
        request.preset = "combinations";
        break;
    case SweepKind::Custom:
        // The list keeps the knobs; the shape comes from the form now.
        for (const RunConfig &c : customConfigs_)
            sweep.configs.push_back(withShapeOf(c, base));
        request.preset = "custom";
        break;
    case SweepKind::Single:
        sweep.configs.push_back(base);
        request.preset = "single";
        break;
    }
    if (skipped)
        for (const auto &s : sweep.skipped)
            skipped->append(QString::fromStdString(s));
    if (sweep.configs.empty()) {
        if (error)
            *error = tr("The custom list is empty: tick options and press \"Add ticked combination\".");
        return false;
    }
    for (const auto &c : sweep.configs) {
        const auto problems = validate(c);
        if (!problems.empty()) {
            if (error)
                *error = QString::fromStdString(knobLabel(c) + ": " + describe(problems));
            return false;
        }
    }
    request.configs = sweep.configs;
    request.repeats = repeats_->value();
    request.plannedSteps = planned_->value();
    request.freshCudaCache = freshCache_->isChecked() && base.onCuda();
    return true;
}

qint64 ConfigPanel::plannedSteps() const
{
    return planned_->value();
}

void ConfigPanel::setRunning(bool running)
{
    start_->setEnabled(!running);
    stop_->setEnabled(running);
}

void ConfigPanel::addCustom()
{
    const RunConfig c = baseConfig();
    customConfigs_.push_back(c);
    custom_->addItem(QString::fromStdString(knobLabel(c)));
}

QCheckBox *ConfigPanel::knobBox(const QString &knob) const
{
    return findChild<QCheckBox *>("knob:" + knob);
}

void ConfigPanel::setSweepKind(SweepKind kind)
{
    sweepKind_->setCurrentIndex(sweepKind_->findData(int(kind)));
}

void ConfigPanel::setShape(int batch, int imageSize, int warmup, int steps)
{
    batch_->setValue(batch);
    imageSize_->setValue(imageSize);
    warmup_->setValue(warmup);
    steps_->setValue(steps);
}

void ConfigPanel::setDevice(const QString &device)
{
    const int i = device_->findText(device);
    if (i >= 0)
        device_->setCurrentIndex(i);
}

void ConfigPanel::setRepeats(int repeats)
{
    repeats_->setValue(repeats);
}

void ConfigPanel::saveSettings(QSettings &s) const
{
    s.beginGroup("config");
    s.setValue("device", device_->currentText());
    s.setValue("autocastChecked", autocast_->isChecked());
    s.setValue("autocastDtype", autocastDtype_->currentText());
    s.setValue("channelsLast", channelsLast_->isChecked());
    s.setValue("tf32", tf32_->isChecked());
    s.setValue("cudnn", cudnn_->isChecked());
    s.setValue("graph", graph_->isChecked());
    s.setValue("fused", fused_->isChecked());
    s.setValue("perParameter", perParameter_->isChecked());
    s.setValue("batch", batch_->value());
    s.setValue("imageSize", imageSize_->value());
    s.setValue("warmup", warmup_->value());
    s.setValue("steps", steps_->value());
    s.setValue("repeats", repeats_->value());
    s.setValue("planned", planned_->value());
    s.setValue("sweepKind", sweepKind_->currentData().toInt());
    s.setValue("freshCache", freshCache_->isChecked());
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
    setDevice(s.value("config/device").toString());
    tf32_->setChecked(s.value("config/tf32").toBool());
    cudnn_->setChecked(s.value("config/cudnn").toBool());
    autocast_->setChecked(s.value("config/autocastChecked").toBool());
    autocastDtype_->setCurrentText(s.value("config/autocastDtype", "bf16").toString());
    channelsLast_->setChecked(s.value("config/channelsLast").toBool());
    graph_->setChecked(s.value("config/graph").toBool());
    fused_->setChecked(s.value("config/fused").toBool());
    perParameter_->setChecked(s.value("config/perParameter").toBool());
    setShape(s.value("config/batch").toInt(), s.value("config/imageSize").toInt(), s.value("config/warmup").toInt(),
             s.value("config/steps").toInt());
    repeats_->setValue(s.value("config/repeats", 1).toInt());
    planned_->setValue(s.value("config/planned", 10000).toInt());
    setSweepKind(static_cast<SweepKind>(s.value("config/sweepKind", 0).toInt()));
    freshCache_->setChecked(s.value("config/freshCache").toBool());
    customConfigs_.clear();
    custom_->clear();
    for (const auto &json : s.value("config/custom").toStringList()) {
        RunConfig c;
        std::vector<ConfigError> errors;
        if (parseConfig(json.toUtf8(), c, errors)) {
            customConfigs_.push_back(c);
            custom_->addItem(QString::fromStdString(knobLabel(c)));
        }
    }
    updateEnabled();
}

} // namespace stepscope::ui
