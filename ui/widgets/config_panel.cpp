#include "widgets/config_panel.h"

#include "config/config_json.h"
#include "config/model_name.h"
#include "config/presets.h"
#include "config/sweep_baseline.h"
#include "controller/ledger_job.h"
#include "models/status_colors.h"
#include "models/time_left_text.h"
#include "supervisor/sweep_plan.h"
#include "supervisor/time_left.h"
#include "supervisor/worker_command.h"
#include "widgets/compile_options.h"
#include "widgets/model_picker.h"
#include "widgets/panel_settings.h"
#include "widgets/wheel_guard.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
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
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <iterator>

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

// A configuration field's box: its range, default and help from the configuration table
// (config/config_table.h), the one the CLI's flags and JSON files are checked against.
QSpinBox *fieldSpin(const char *key, const QString &suffix = {})
{
    const FieldInfo *field = findField(key);
    const RunConfig defaults;
    QSpinBox *s = spin(int(field->min), int(field->max), QString::fromStdString(valueText(defaults, *field)).toInt(),
                       suffix);
    s->setToolTip(QString::fromUtf8(field->help));
    s->setObjectName(QStringLiteral("field:") + QLatin1String(key));
    return s;
}

// A sweep setting's box: range, default and words from the service's limits table
// (supervisor/sweep_request.h), the one `stepscope-cli run --help` prints.
QSpinBox *limitSpin(const supervisor::SweepLimit &limit, const QString &suffix = {})
{
    QSpinBox *s = spin(int(limit.min), int(limit.max), int(limit.defaultValue), suffix);
    s->setToolTip(QString::fromUtf8(limit.what));
    s->setObjectName(QStringLiteral("limit:") + QLatin1String(limit.option));
    return s;
}

// QStandardItemModel's flags role: 0 greys an item of a QComboBox, an invalid QVariant restores it.
constexpr int kFlagsRole = Qt::UserRole - 1;

// What a custom-list entry is called: the knobs, and the runtime when it is not the default one.
QString entryName(const RunConfig &c)
{
    const QString knobs = QString::fromStdString(knobLabel(c));
    return c.runtime == Runtime::Python && c.compile == CompileMode::None ? QStringLiteral("python ") + knobs : knobs;
}

// The first GPU is the process's default device, which stepscope-cli run and every stored default
// sweep call "cuda": the configuration says cuda for the panel's cuda:0, so that the dashboard's
// default sweep is the CLI's (supervisor/sweep_recipe.h) and their runs are history for each other.
std::string deviceOfItem(const QString &item)
{
    return item == QLatin1String("cuda:0") ? std::string("cuda") : item.toStdString();
}
QString itemOfDevice(const std::string &device)
{
    return device == "cuda" ? QStringLiteral("cuda:0") : QString::fromStdString(device);
}

// "1 repeat", "3 repeats": English plurals without a translation file.
QString counted(int n, const QString &one, const QString &many)
{
    return QString::number(n) + QLatin1Char(' ') + (n == 1 ? one : many);
}

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

ConfigPanel::ConfigPanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    buildSweepBanner(layout);

    auto *where = new QGroupBox(tr("Where"));
    auto *whereForm = new QFormLayout(where);
    device_ = new QComboBox;
    device_->addItem("cpu");
    runtime_ = new QComboBox;
    runtime_->addItem(tr("native (LibTorch C++)"), int(Runtime::Native));
    runtime_->addItem(tr("Python (same knobs, torch.compile)"), int(Runtime::Python));
    runtime_->setToolTip(tr("Which worker runs the eager configurations. torch.compile exists only in Python: "
                            "compiled configurations always run there."));
    python_ = new QLineEdit;
    python_->setPlaceholderText(tr("automatic"));
    python_->setToolTip(tr("The interpreter for Python runs. Empty: STEPSCOPE_PYTHON, else the build's virtual "
                           "environment, else python3 on PATH."));
    python_->setClearButtonEnabled(true);
    auto *browse = new QToolButton;
    browse->setText(QStringLiteral("…"));
    browse->setToolTip(tr("Choose the Python interpreter"));
    auto *pythonRow = new QHBoxLayout;
    pythonRow->addWidget(python_, 1);
    pythonRow->addWidget(browse);
    pythonNote_ = new QLabel;
    pythonNote_->setWordWrap(true);
    pythonNote_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    deviceNote_ = new QLabel;
    deviceNote_->setWordWrap(true);
    affinity_ = new QComboBox;
    affinity_->addItem(tr("none (the scheduler's choice)"), QStringLiteral("none"));
    affinity_->addItem(tr("one core"), QStringLiteral("one"));
    affinity_->addItem(tr("cores:"), QStringLiteral("list"));
    cores_ = new QLineEdit;
    cores_->setPlaceholderText(tr("e.g. 2,3 or 4-7"));
    const QString pinWhy =
        tr("Pins the worker to CPU cores before CUDA starts. An eager GPU step that waits on kernel launches (wall "
           "time well above GPU time, common on VMs whose vCPUs move between host cores) can get faster and "
           "steadier on one core; GPU-bound and graph-replayed steps do not move, and a CPU step wants its cores.\n"
           "One core: the first core the worker may use other than core 0. The pin is a knob: in a ledger it is a "
           "row after channels_last, Each runs it alone, Combinations combines it; a core list stands in for one "
           "core.");
    affinity_->setToolTip(pinWhy);
    cores_->setToolTip(pinWhy);
    auto *affinityRow = new QHBoxLayout;
    affinityRow->addWidget(affinity_);
    affinityRow->addWidget(cores_, 1);
    threads_ = fieldSpin("threads");
    threads_->setSpecialValueText(tr("library default"));
    threads_->setToolTip(tr("Intra-op CPU threads of the worker (at::set_num_threads, torch.set_num_threads); every "
                            "configuration of the sweep runs with it. More threads rarely help a launch-bound GPU "
                            "step: pinning does."));
    whereForm->addRow(tr("Device"), device_);
    whereForm->addRow(tr("Runtime"), runtime_);
    whereForm->addRow(tr("Python"), pythonRow);
    whereForm->addRow(pythonNote_);
    whereForm->addRow(tr("CPU affinity"), affinityRow);
    whereForm->addRow(tr("CPU threads"), threads_);
    memoryLimit_ = fieldSpin("memory_limit_mib", tr(" MiB"));
    memoryLimit_->setSpecialValueText(tr("the device's own"));
    memoryLimit_->setToolTip(tr("The memory each run may use: on CUDA the caching allocator's cap (will it fit on a "
                                "smaller card?), on the CPU the worker's peak resident memory. Past it a run fails "
                                "out of memory. The largest batch search on the CPU needs it."));
    whereForm->addRow(tr("Memory limit"), memoryLimit_);
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
    // One control for the SGD implementation: a configuration has exactly one.
    optimizer_ = new QComboBox;
    optimizer_->setObjectName("knob:sgd");
    optimizer_->addItem(tr("foreach (PyTorch's default)"), int(Optimizer::Foreach));
    optimizer_->addItem(tr("fused"), int(Optimizer::Fused));
    optimizer_->addItem(tr("per-parameter loop (for comparison)"), int(Optimizer::PerParameter));
    optimizer_->setToolTip(
        tr("How SGD updates the weights. foreach: a few multi-tensor kernels per step (PyTorch's default). "
           "fused: one kernel per step; it helps launch-bound steps and costs nothing. per-parameter: one "
           "small kernel per weight, the slow path, to see what the others save.\nIn a ledger, fused is the "
           "last row; per-parameter runs alone vs the baseline."));
    auto *optimizerRow = new QHBoxLayout;
    optimizerRow->addWidget(new QLabel(tr("SGD")));
    optimizerRow->addWidget(optimizer_, 1);
    tf32_->setToolTip(tr("TensorFloat-32 for matmuls and convolutions on Ampere and newer GPUs: about 2x on fp32 "
                         "convolutions, with a 10-bit mantissa inside the multiply (the accuracy gate checks the "
                         "losses). No first-step cost."));
    cudnn_->setToolTip(tr("cudnn.benchmark: cuDNN times its algorithms for each new shape and keeps the fastest. "
                          "It costs seconds in the first step (more on a machine's first process) and pays off "
                          "when shapes stay fixed."));
    autocast_->setToolTip(tr("Mixed precision: matmuls and convolutions in 16 bits. bf16 needs no loss scaling; "
                             "fp16 uses dynamic loss scaling (GPU only). Helps a GPU-bound step; a launch-bound "
                             "step (small batch) may not move."));
    autocastDtype_->setToolTip(autocast_->toolTip());
    channelsLast_->setToolTip(tr("NHWC memory layout for inputs and 4-D weights: tensor cores want it, so it "
                                 "mostly pays together with autocast. Costs a layout change in the first step."));
    graph_->setToolTip(tr("Captures the whole training step (forward, backward, optimizer) in one CUDA graph and "
                          "replays it: the CPU launches one graph instead of hundreds of kernels. Large gains on "
                          "launch-bound steps; capture costs time in the first step, and shapes must stay fixed."));
    tf32_->setObjectName("knob:tf32");
    cudnn_->setObjectName("knob:cudnn-bench");
    autocast_->setObjectName("knob:autocast");
    channelsLast_->setObjectName("knob:channels-last");
    graph_->setObjectName("knob:cuda-graph");
    for (QWidget *w : {static_cast<QWidget *>(tf32_), static_cast<QWidget *>(cudnn_)})
        knobForm->addWidget(w);
    knobForm->addLayout(autocastRow);
    for (QWidget *w : {static_cast<QWidget *>(channelsLast_), static_cast<QWidget *>(graph_)})
        knobForm->addWidget(w);
    knobForm->addLayout(optimizerRow);
    layout->addWidget(knobs);
    compile_ = new CompileOptions;
    layout->addWidget(compile_);

    auto *shape = new QGroupBox(tr("Run"));
    auto *shapeForm = new QFormLayout(shape);
    shapeForm_ = shapeForm;
    model_ = new ModelPicker;
    sequenceLength_ = fieldSpin("sequence_length", tr(" tokens"));
    batch_ = fieldSpin("batch");
    imageSize_ = fieldSpin("image_size", " px");
    warmup_ = fieldSpin("warmup_steps");
    steps_ = fieldSpin("steps");
    repeats_ = limitSpin(supervisor::kRepeatLimit);
    repeats_->setToolTip(tr("Cold processes per configuration, interleaved A B C A B C"));
    // The start states each configuration runs under (supervisor/start_caches.h). Data: "" =
    // automatic (supervisor::defaultStartStates), else what supervisor::startStatesFromString reads.
    caches_ = new QComboBox;
    caches_->setObjectName("startStates");
    caches_->addItem(tr("Automatic (on a GPU: fresh and again, shipped for compiled rows)"), QString());
    caches_->addItem(tr("Fresh: every cache empty (a new machine)"), QStringLiteral("fresh"));
    caches_->addItem(tr("Fresh and again"), QStringLiteral("fresh,again"));
    caches_->addItem(tr("Fresh, shipped and again"), QStringLiteral("all"));
    caches_->addItem(tr("Again: as a run of the same configuration left them"), QStringLiteral("again"));
    caches_->setToolTip(tr("Every run gets caches of its own, torch.compile's included (CUDA JIT, torch's kernels, "
                           "Triton, inductor). Fresh first steps are what a new machine or container pays; shipped "
                           "ones what a machine built from an image with the configuration's saved caches pays "
                           "(torch.compile's mega-cache, the CUDA JIT folder); again ones what this machine pays "
                           "once it has run the configuration. The ledger switches between them."));
    shapeForm->addRow(tr("Model"), model_);
    shapeForm->addRow(tr("Batch"), batch_);
    shapeForm->addRow(tr("Image size"), imageSize_);
    shapeForm->addRow(tr("Sequence length"), sequenceLength_);
    shapeForm->addRow(tr("Warm-up steps"), warmup_);
    shapeForm->addRow(tr("Measured steps"), steps_);
    shapeForm->addRow(tr("Repeats"), repeats_);
    // A list typed as text: its placeholder shows the form, its tooltip says what it does.
    const auto listRow = [shapeForm](const QString &label, const QString &placeholder, const QString &tip) {
        auto *edit = new QLineEdit;
        edit->setPlaceholderText(placeholder);
        edit->setToolTip(tip);
        shapeForm->addRow(label, edit);
        return edit;
    };
    batches_ = listRow(tr("Batch scan"), tr("e.g. 16,32,64,128"),
                       tr("A batch scan: every configuration at each of these batch sizes, in one sweep. The "
                          "ledger compares rows of one batch; the Why page shows the verdict across them. Empty: "
                          "the batch above."));
    maxBatch_ = new QCheckBox(tr("Largest batch that fits"));
    maxBatch_->setObjectName(QStringLiteral("maxBatch"));
    maxBatch_->setToolTip(tr("Time nothing: find each configuration's largest batch that fits, within 5%, by short "
                             "processes from the batch above (at most 8 tries and 2 minutes a configuration), each "
                             "answer checked by a try 5% above it running out of memory. On the CPU set a memory "
                             "limit. The ledger page shows the answers."));
    shapeForm->addRow(maxBatch_);
    // Several GPUs (issue 21): lanes run at once, and data-parallel steps as a dimension.
    devices_ = listRow(tr("Devices at once"), tr("one at a time; e.g. cuda:0,cuda:1 or all"),
                       tr("Run on several GPUs at once, one timed process per GPU: the runs are dealt out as GPUs "
                          "come free, and the repeats of a configuration stay on GPUs of one model. Empty: one "
                          "run at a time on the device above. cpu:0,cpu:1 are CPU slots (they share the cores)."));
    worldSizes_ = listRow(tr("World sizes"), tr("e.g. 1,2 (data-parallel)"),
                          tr("Every configuration at each world size: DistributedDataParallel over that many "
                             "processes (the Python worker, through torch.distributed.run), one GPU per rank, gloo "
                             "on the CPU. The ledger then shows the scaling efficiency against world size 1."));
    profileSteps_ = limitSpin(supervisor::kProfileStepsLimit);
    profileSteps_->setSpecialValueText(tr("off"));
    profileSteps_->setToolTip(tr("Steps profiled after each run's timed steps (never during them), for the Why page: "
                                 "GPU busy and waiting, kernels, the kernel diff. 0: no profile."));
    shapeForm->addRow(tr("Profile steps"), profileSteps_);
    // Adaptive repeats, as the CLI's --until-ci/--max-repeats/--max-minutes: a launch-bound step
    // moves between cold processes, so the figure needs processes, not steps.
    untilCi_ = new QCheckBox(tr("Until the 95% CI is within"));
    untilCi_->setToolTip(tr("After the planned repeats, add cold processes to every configuration whose steady "
                            "figure's 95% CI is wider than this share of its median (at least 2 processes each)"));
    ciHalfWidth_ = new QDoubleSpinBox;
    // The table's range is (0, 50]: 0.5 is the finest step the box offers.
    ciHalfWidth_->setObjectName(QStringLiteral("limit:") + QLatin1String(supervisor::kUntilCiLimit.option));
    ciHalfWidth_->setRange(0.5, supervisor::kUntilCiLimit.max);
    ciHalfWidth_->setDecimals(1);
    ciHalfWidth_->setSingleStep(0.5);
    ciHalfWidth_->setValue(supervisor::kUntilCiLimit.defaultValue);
    ciHalfWidth_->setPrefix(QStringLiteral("\u00b1"));
    ciHalfWidth_->setSuffix(QStringLiteral(" %"));
    auto *untilRow = new QHBoxLayout;
    untilRow->addWidget(untilCi_);
    untilRow->addWidget(ciHalfWidth_);
    shapeForm->addRow(untilRow);
    maxProcesses_ = limitSpin(supervisor::kMaxRepeatsLimit, tr(" processes"));
    maxProcesses_->setToolTip(tr("Cap of cold processes per configuration while adding them"));
    maxMinutes_ = limitSpin(supervisor::kMaxMinutesLimit, tr(" min"));
    maxMinutes_->setSpecialValueText(tr("no time limit"));
    maxMinutes_->setToolTip(tr("No new process after this many minutes of the sweep"));
    shapeForm->addRow(tr("At most"), maxProcesses_);
    shapeForm->addRow(tr("Stop adding after"), maxMinutes_);
    machineWarmup_ = new QCheckBox(tr("Discard one warm-up process first"));
    machineWarmup_->setChecked(false);
    machineWarmup_->setToolTip(tr("One unstored one-step process before the timed runs: it warms what no run's own "
                                  "caches hold (the driver, the libraries' file cache)"));
    shapeForm->addRow(machineWarmup_);
    shapeForm->addRow(tr("Start states"), caches_);
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
    planned_ = limitSpin(supervisor::kPlannedStepsLimit, tr(" steps"));
    planned_->setToolTip(tr("The training run you plan: the recommendation is the fastest way to finish it"));
    // The row every other is compared with (speed-ups, break-even, the accuracy gate). The list
    // follows the sweep the form would run; automatic is defaultBaseline's rule.
    baseline_ = new QComboBox;
    baseline_->setToolTip(tr("The configuration every other is compared with: speed-ups, break-even and the accuracy "
                             "gate. Automatic: fp32 eager in the same runtime and shape when the sweep has it, "
                             "else its first configuration. The sweep stores the choice."));
    auto *plannedForm = new QFormLayout;
    plannedForm->addRow(tr("Baseline"), baseline_);
    sweepLayout->addWidget(sweepKind_);
    sweepLayout->addWidget(custom_);
    sweepLayout->addLayout(customButtons);
    sweepLayout->addLayout(plannedForm);
    // What runs and what it is compared with come first, under the stored sweep's banner: the rest
    // of the form details them.
    layout->insertWidget(layout->indexOf(sweepBanner_) + 1, sweep);

    start_ = new QPushButton(tr("Start"));
    stop_ = new QPushButton(tr("Stop"));
    start_->setDefault(true);
    stop_->setEnabled(false);
    // The sweep's progress and time left beside Start/Stop, where the eye is after pressing Start.
    progress_ = new QProgressBar;
    progress_->setRange(0, 1000);
    progress_->setTextVisible(true);
    progress_->setVisible(false);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(start_);
    buttons->addWidget(stop_);
    buttons->addWidget(progress_, 1);
    // What Start would run, and for how long, from this machine's earlier runs (setRunTimes).
    preview_ = new QLabel;
    preview_->setObjectName(QStringLiteral("sweepPreview"));
    preview_->setWordWrap(true);
    preview_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // The planned run and Start/Stop in a bar of their own, which a window can pin outside a
    // scrolled panel (actionBar()).
    actions_ = new QWidget;
    auto *actionsLayout = new QVBoxLayout(actions_);
    actionsLayout->setContentsMargins(0, 0, 0, 0);
    auto *plannedRow = new QFormLayout;
    plannedRow->addRow(tr("Planned run"), planned_);
    actionsLayout->addLayout(plannedRow);
    actionsLayout->addWidget(preview_);
    actionsLayout->addLayout(buttons);
    layout->addWidget(actions_);
    layout->addStretch();

    connect(start_, &QPushButton::clicked, this, &ConfigPanel::startRequested);
    connect(stop_, &QPushButton::clicked, this, &ConfigPanel::stopRequested);
    connect(addCustom_, &QPushButton::clicked, this, &ConfigPanel::addCustom);
    connect(removeCustom_, &QPushButton::clicked, this, [this] {
        const int row = custom_->currentRow();
        if (row >= 0) {
            delete custom_->takeItem(row);
            customConfigs_.erase(customConfigs_.begin() + row);
            updateBaselineChoices();
        }
    });
    connect(planned_, qOverload<int>(&QSpinBox::valueChanged), this, [this](int v) { Q_EMIT plannedStepsChanged(v); });
    connect(untilCi_, &QCheckBox::toggled, this, &ConfigPanel::updateEnabled);
    connect(maxBatch_, &QCheckBox::toggled, this, &ConfigPanel::updateEnabled);
    connect(maxBatch_, &QCheckBox::toggled, this, &ConfigPanel::updatePreview);
    connect(browse, &QToolButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Python interpreter for Python runs"),
                                                          python_->text().isEmpty() ? QString() : python_->text());
        if (!path.isEmpty())
            setPythonInterpreter(path);
    });
    connect(python_, &QLineEdit::textChanged, this, &ConfigPanel::updatePythonNote);
    // The picker offers the models of the Python that runs Python runs.
    connect(python_, &QLineEdit::textChanged, this, [this] { model_->setPython(pythonInterpreter()); });
    connect(model_, &ModelPicker::changed, this, &ConfigPanel::modelChanged);
    connect(sequenceLength_, qOverload<int>(&QSpinBox::valueChanged), this, &ConfigPanel::updateBaselineChoices);
    connect(compile_, &CompileOptions::changed, this, &ConfigPanel::compileModeChanged);
    connect(runtime_, &QComboBox::currentIndexChanged, this, &ConfigPanel::updateEnabled);
    connect(device_, &QComboBox::currentTextChanged, this, &ConfigPanel::updateEnabled);
    connect(sweepKind_, &QComboBox::currentIndexChanged, this, &ConfigPanel::updateEnabled);
    connect(affinity_, &QComboBox::currentIndexChanged, this, &ConfigPanel::updateEnabled);
    for (QCheckBox *b : {tf32_, cudnn_, autocast_, channelsLast_, graph_})
        connect(b, &QCheckBox::toggled, this, &ConfigPanel::updateEnabled);
    connect(optimizer_, &QComboBox::currentIndexChanged, this, &ConfigPanel::updateEnabled);
    connect(threads_, qOverload<int>(&QSpinBox::valueChanged), this, &ConfigPanel::updateBaselineChoices);
    // The rest of what the preview counts: the shape, the repeats, the batch scan, the caches.
    for (QSpinBox *box : {batch_, imageSize_, warmup_, steps_, repeats_, maxProcesses_})
        connect(box, qOverload<int>(&QSpinBox::valueChanged), this, &ConfigPanel::updatePreview);
    connect(batches_, &QLineEdit::textChanged, this, &ConfigPanel::updatePreview);
    connect(devices_, &QLineEdit::textChanged, this, &ConfigPanel::updatePreview);
    connect(worldSizes_, &QLineEdit::textChanged, this, &ConfigPanel::updatePreview);
    connect(caches_, &QComboBox::currentIndexChanged, this, &ConfigPanel::updatePreview);
    connect(autocastDtype_, &QComboBox::currentIndexChanged, this, &ConfigPanel::updatePreview);
    connect(cores_, &QLineEdit::textChanged, this, &ConfigPanel::updateBaselineChoices);
    // A wheel over the panel scrolls it: spin boxes and combo boxes change only once clicked.
    installWheelGuard(this);
    // Combo boxes take the panel's width rather than their longest item's, so that the panel stays
    // narrow enough for the views at 1280 px; the open list still shows whole items.
    for (QComboBox *box : findChildren<QComboBox *>()) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(10);
    }
    offeredStarts_ = caches_->count();
    buildSettingsTable();
    modelChanged();
    setCudaDevices(0);
    setDevicesUnknown(tr("Looking for CUDA devices…")); // until the window's probe answers
    updatePythonNote();
}

void ConfigPanel::buildSettingsTable()
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
    settings_ = {
        {"device", device_, V(),
         [](const V &v, RunConfig &c, SweepRequest &) { c.device = deviceOfItem(v.toString()); },
         [](const Stored &sweep) { return std::optional<V>(QString::fromStdString(sweep.configs.front().device)); }},
        {"tf32", tf32_, false, [](const V &v, RunConfig &c, SweepRequest &) { c.tf32 = c.onCuda() && v.toBool(); },
         any(&RunConfig::tf32)},
        {"cudnn", cudnn_, false,
         [](const V &v, RunConfig &c, SweepRequest &) { c.cudnnBenchmark = c.onCuda() && v.toBool(); },
         any(&RunConfig::cudnnBenchmark)},
        {"autocastChecked", autocast_, false,
         [](const V &v, RunConfig &c, SweepRequest &) {
             if (v.toBool())
                 c.autocast = Autocast::BF16;
         },
         [](const Stored &sweep) { return std::optional<V>(autocastOf(sweep.configs) != Autocast::Off); }},
        {"autocastDtype", autocastDtype_, QStringLiteral("bf16"),
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
        {"channelsLast", channelsLast_, false,
         [](const V &v, RunConfig &c, SweepRequest &) { c.channelsLast = v.toBool(); }, any(&RunConfig::channelsLast)},
        {"graph", graph_, false,
         [](const V &v, RunConfig &c, SweepRequest &) { c.cudaGraph = c.onCuda() && v.toBool(); },
         any(&RunConfig::cudaGraph)},
        {"optimizer", optimizer_, V(),
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
        {"model", model_->edit(), QString::fromLatin1(kDefaultModel),
         [this](const V &, RunConfig &c, SweepRequest &) { c.model = model_->model().toStdString(); },
         [](const Stored &sweep) { return std::optional<V>(QString::fromStdString(sweep.configs.front().model)); }},
        // Only a model that may take token ids has one; resnet18 refuses any other than the default.
        {"sequenceLength", sequenceLength_, RunConfig{}.sequenceLength,
         [](const V &v, RunConfig &c, SweepRequest &) {
             if (ModelPicker::takesTokens(QString::fromStdString(c.model)))
                 c.sequenceLength = v.toInt();
         },
         first(&RunConfig::sequenceLength)},
        {"batch", batch_, V(), intField(&RunConfig::batch), first(&RunConfig::batch)},
        {"imageSize", imageSize_, V(), intField(&RunConfig::imageSize), first(&RunConfig::imageSize)},
        {"warmup", warmup_, V(), intField(&RunConfig::warmupSteps), first(&RunConfig::warmupSteps)},
        {"steps", steps_, V(), intField(&RunConfig::steps), first(&RunConfig::steps)},
        {"repeats", repeats_, 1, [](const V &v, RunConfig &, SweepRequest &r) { r.repeats = v.toInt(); },
         stored([](const SweepRequest &r) { return V(r.repeats); })},
        {"planned", planned_, qint64(kDefaultPlannedSteps),
         [](const V &v, RunConfig &, SweepRequest &r) { r.plannedSteps = v.toLongLong(); }},
        {"sweepKind", sweepKind_, 0, nullptr,
         [](const Stored &sweep) -> std::optional<V> {
             if (const auto kind = supervisor::sweepKindFromString(sweep.preset))
                 return V(int(*kind));
             return std::nullopt;
         }},
        {"caches", caches_, QString(),
         [](const V &v, RunConfig &, SweepRequest &r) { r.starts = supervisor::startStatesFromString(v.toString()); },
         [this](const Stored &sweep) { return std::optional<V>(offerStartStates(sweep.recipe.settings.starts)); }},
        {"machineWarmup", machineWarmup_, false,
         [](const V &v, RunConfig &, SweepRequest &r) { r.machineWarmup = v.toBool(); },
         stored([](const SweepRequest &r) { return V(r.machineWarmup.value_or(false)); })},
        {"untilCi", untilCi_, false, [](const V &v, RunConfig &, SweepRequest &r) { r.adaptive = v.toBool(); },
         stored([](const SweepRequest &r) { return V(r.adaptive); })},
        {"ciHalfWidth", ciHalfWidth_, 2.0,
         [](const V &v, RunConfig &, SweepRequest &r) { r.adaptiveHalfWidth = v.toDouble() / 100.0; },
         stored([](const SweepRequest &r) { return V(r.adaptiveHalfWidth * 100.0); })},
        {"maxProcesses", maxProcesses_, 10,
         [](const V &v, RunConfig &, SweepRequest &r) { r.adaptiveMaxProcesses = v.toInt(); },
         stored([](const SweepRequest &r) { return V(r.adaptiveMaxProcesses); })},
        {"maxMinutes", maxMinutes_, 0,
         [](const V &v, RunConfig &, SweepRequest &r) { r.adaptiveMaxMinutes = v.toInt(); },
         stored([](const SweepRequest &r) { return V(r.adaptiveMaxMinutes); })},
        {"runtime", runtime_, V(),
         [](const V &v, RunConfig &c, SweepRequest &) { c.runtime = static_cast<Runtime>(v.toInt()); },
         [](const Stored &sweep) { return std::optional<V>(int(sweep.configs.front().runtime)); },
         [](const V &v) { return V(QString::fromStdString(toString(static_cast<Runtime>(v.toInt())))); },
         [](const V &v) {
             return V(int(v.toString() == QLatin1String("python") ? Runtime::Python : Runtime::Native));
         }},
        {"pythonInterpreter", python_, QString(), nullptr, nullptr,
         [](const V &v) { return V(v.toString().trimmed()); }, nullptr},
        // A stored sweep's pin is a knob of some of its rows: the form ticks it when any row has it.
        {"cpuAffinity", affinity_, QStringLiteral("none"),
         [](const V &v, RunConfig &c, SweepRequest &) { c.cpuAffinity = v.toString().toStdString(); },
         [](const Stored &sweep) -> std::optional<V> {
             for (const RunConfig &c : sweep.configs)
                 if (c.cpuAffinity != "none")
                     return V(c.cpuAffinity == "one" ? QStringLiteral("one") : QStringLiteral("list"));
             return V(QStringLiteral("none"));
         }},
        {"cpuCores", cores_, QString(),
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
        {"threads", threads_, 0, intField(&RunConfig::threads), first(&RunConfig::threads)},
        {"memoryLimitMib", memoryLimit_, 0, intField(&RunConfig::memoryLimitMib), first(&RunConfig::memoryLimitMib)},
        {"maxBatch", maxBatch_, false, [](const V &v, RunConfig &, SweepRequest &r) { r.maxBatch = v.toBool(); },
         stored([](const SweepRequest &r) { return V(r.maxBatch); })},
        {"batches", batches_, QString(),
         [](const V &v, RunConfig &, SweepRequest &r) { r.batches = numberList(v.toString()); },
         stored([](const SweepRequest &r) { return V(listText(r.batches)); })},
        {"devices", devices_, QString(), nullptr,
         [](const Stored &sweep) { return std::optional<V>(sweep.recipe.devices); },
         [](const V &v) { return V(v.toString().trimmed()); }, nullptr},
        {"worldSizes", worldSizes_, QString(),
         [](const V &v, RunConfig &, SweepRequest &r) { r.worldSizes = numberList(v.toString()); },
         stored([](const SweepRequest &r) { return V(listText(r.worldSizes)); })},
        {"profileSteps", profileSteps_, int(supervisor::kProfileStepsLimit.defaultValue),
         [](const V &v, RunConfig &, SweepRequest &r) { r.profileSteps = v.toInt(); },
         stored([](const SweepRequest &r) { return V(r.profileSteps); })},
    };
}

void ConfigPanel::setGpus(std::vector<supervisor::FoundGpu> gpus)
{
    gpus_ = std::move(gpus);
    QStringList names;
    for (const auto &g : gpus_)
        names << QString("cuda:%1 %2").arg(g.index).arg(g.name);
    devices_->setToolTip(devices_->toolTip().section(QStringLiteral("\n\n"), 0, 0) +
                         (names.isEmpty() ? QString() : QStringLiteral("\n\n") + names.join('\n')));
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
        const RunConfig shape = supervisor::defaultShape(true);
        setShape(shape.batch, shape.imageSize, shape.warmupSteps, shape.steps);
        // Every knob of the ledger preset, the pin on a GPU too: the dashboard's default sweep is
        // stepscope-cli run's (supervisor/sweep_recipe.h).
        for (auto *b : {tf32_, cudnn_, autocast_, channelsLast_, graph_})
            b->setChecked(true);
        affinity_->setCurrentIndex(affinity_->findData(QStringLiteral("one")));
        setOptimizer(Optimizer::Fused);
        // The shape it set, not the model: the Model field says what is trained (issue 30).
        deviceNote_->setText(tr("%n CUDA device(s) found: %1x%1 images, batch %2 by default.", nullptr, count)
                                 .arg(shape.imageSize)
                                 .arg(shape.batch));
    } else {
        const RunConfig shape = supervisor::defaultShape(false);
        setShape(shape.batch, shape.imageSize, shape.warmupSteps, shape.steps);
        autocast_->setChecked(true);
        channelsLast_->setChecked(true);
        setOptimizer(Optimizer::Fused);
        deviceNote_->setText(tr("No CUDA device found: the sweep runs on the CPU with small 64x64 images. "
                                "TF32, cuDNN, fp16 and CUDA graphs need a GPU."));
    }
    updateEnabled();
}

void ConfigPanel::setDevicesUnknown(const QString &note)
{
    deviceNote_->setText(note);
}

void ConfigPanel::updateEnabled()
{
    const bool cuda = device_->currentText().startsWith("cuda");
    for (auto *b : {tf32_, cudnn_, graph_})
        b->setEnabled(cuda);
    autocastDtype_->setEnabled(autocast_->isChecked());
    if (!cuda)
        autocastDtype_->setCurrentText("bf16");
    autocastDtype_->setItemData(1, cuda ? QVariant() : QVariant(0), Qt::UserRole - 1);
    cores_->setEnabled(affinity_->currentData().toString() == QLatin1String("list"));
    for (QWidget *w : std::initializer_list<QWidget *>{ciHalfWidth_, maxProcesses_, maxMinutes_})
        w->setEnabled(untilCi_->isChecked());
    // A max-batch search times nothing: one fresh unprofiled process a try, whatever these say.
    for (QWidget *w : std::initializer_list<QWidget *>{repeats_, caches_, profileSteps_, planned_})
        w->setEnabled(!maxBatch_->isChecked());
    const bool custom = sweepKind_->currentData().toInt() == int(SweepKind::Custom);
    custom_->setVisible(custom);
    addCustom_->setVisible(custom);
    removeCustom_->setVisible(custom);
    updateCompile();
    updateBaselineChoices();
}

void ConfigPanel::compileModeChanged()
{
    // torch.compile has no C++ training path: choosing a mode moves the runtime to Python (the
    // hint says so), and the rows it is compared with run there too unless the user goes back.
    const bool on = compile_->choice().enabled();
    if (on && !compileWasOn_)
        runtime_->setCurrentIndex(runtime_->findData(int(Runtime::Python)));
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
    runtime_->setItemData(0, nativeRefused ? QVariant(0) : QVariant(), kFlagsRole);
    runtime_->setItemData(
        0, nativeRefused ? tr("torch.compile has no C++ training path; set runtime to python") : QVariant(),
        Qt::ToolTipRole);

    if (!choice.enabled()) {
        compile_->setHint({}, false);
        return;
    }
    if (alone) {
        // Say now what Start would refuse: validate()'s own words for the configuration.
        const auto problems = validate(choice.applyTo(base).front());
        if (!problems.empty()) {
            compile_->setHint(QString::fromStdString(describe(problems)), true);
            return;
        }
    }
    const bool python = base.runtime == Runtime::Python;
    QString hint = python ? tr("torch.compile runs in the Python worker, so the runtime is Python") : QString();
    switch (kind) {
    case SweepKind::Ledger:
        hint = python ? tr("%1: the whole ledger runs there, so compile is measured against Python eager. Choose "
                           "native to keep the C++ rows; the compiled rows stay in Python.")
                            .arg(hint)
                      : tr("The native ledger gets Python rows: eager on the knobs compile builds on, then "
                           "compiled.");
        break;
    case SweepKind::Each:
    case SweepKind::Combinations:
        hint = python ? tr("%1, for the baseline and every row.").arg(hint)
                      : tr("Eager rows run native, compiled rows in the Python worker.");
        break;
    default:
        hint = python ? hint + QLatin1Char('.') : tr("Compiled configurations run in the Python worker.");
        break;
    }
    compile_->setHint(hint, false);
}

void ConfigPanel::modelChanged()
{
    shapeForm_->setRowVisible(sequenceLength_, ModelPicker::takesTokens(model_->model()));
    updateEnabled(); // the compile hint, the baseline's rows and the preview name the model
}

void ConfigPanel::updatePythonNote()
{
    // Resolved now, as a sweep would: the user sees which interpreter (and so which torch) runs.
    const auto worker = supervisor::defaultPythonWorker(pythonInterpreter());
    if (worker.program.isEmpty()) {
        pythonNote_->setText(worker.origin);
        pythonNote_->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(failureColor().name()));
    } else {
        pythonNote_->setText(tr("Python runs use %1 (%2).").arg(worker.program, worker.origin));
        pythonNote_->setStyleSheet(QString());
    }
}

QString ConfigPanel::pythonInterpreter() const
{
    return python_->text().trimmed();
}

void ConfigPanel::setPythonInterpreter(const QString &path)
{
    python_->setText(path);
}

QString ConfigPanel::device() const
{
    return device_->currentText();
}

CompileChoice ConfigPanel::compileChoice() const
{
    return compile_->choice();
}

ConfigPanel::SweepKind ConfigPanel::sweepKind() const
{
    return static_cast<SweepKind>(sweepKind_->currentData().toInt());
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
    r.baseline = baseline_ ? baseline_->currentData().toString() : QString();
    r.devices = devices_ ? devices_->text().trimmed() : QString();
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
    return planned_->value();
}

void ConfigPanel::setRunning(bool running)
{
    start_->setEnabled(!running && !viewingSweep_);
    stop_->setEnabled(running);
    runAgain_->setEnabled(!running);
    progress_->setVisible(running);
    if (running)
        setProgress(0, -1, false);
}

void ConfigPanel::addCustom()
{
    // With a compile mode, one entry per ticked cache state, as Single would run them.
    for (const RunConfig &c : compile_->choice().applyTo(baseConfig())) {
        customConfigs_.push_back(c);
        custom_->addItem(entryName(c));
    }
    updateBaselineChoices();
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
        runtime_->setCurrentIndex(runtime_->findData(int(config.runtime)));
    setShape(config.batch, config.imageSize, config.warmupSteps, config.steps);
    model_->setModel(QString::fromStdString(config.model));
    sequenceLength_->setValue(config.sequenceLength);
    threads_->setValue(config.threads);
    if (std::find(customConfigs_.begin(), customConfigs_.end(), config) == customConfigs_.end()) {
        customConfigs_.push_back(config);
        custom_->addItem(entryName(config));
    }
    custom_->setCurrentRow(static_cast<int>(
        std::find(customConfigs_.begin(), customConfigs_.end(), config) - customConfigs_.begin()));
    updateBaselineChoices();
}

void ConfigPanel::updateBaselineChoices()
{
    if (!baseline_)
        return; // during construction
    // Keyed by canonical name: the choice survives a change of the form that keeps its row.
    const QString kept = baseline_->currentData().toString();
    supervisor::SweepRecipe form = recipe();
    form.baseline.clear();
    const Sweep sweep = supervisor::expand(form);
    const QSignalBlocker block(baseline_);
    baseline_->clear();
    const std::size_t automatic = defaultBaseline(sweep.configs);
    baseline_->addItem(sweep.configs.empty() ? tr("automatic")
                                             : tr("automatic: %1").arg(entryName(sweep.configs[automatic])),
                       QString());
    for (const RunConfig &c : sweep.configs)
        baseline_->addItem(entryName(c), QString::fromStdString(canonicalName(c)));
    const int index = kept.isEmpty() ? 0 : baseline_->findData(kept);
    baseline_->setCurrentIndex(index >= 0 ? index : 0);
    updatePreview();
}

void ConfigPanel::setRunTimes(std::shared_ptr<const supervisor::TimeLeft> times)
{
    runTimes_ = std::move(times);
    updatePreview();
}

QString ConfigPanel::previewText() const
{
    return preview_ ? preview_->text() : QString();
}

void ConfigPanel::updatePreview()
{
    if (!preview_ || settings_.empty())
        return; // during construction
    SweepRequest request;
    QString error;
    // A stored sweep on show: what Run again runs. The form under it shows the same settings, but a
    // sweep of before recipes, or one of rules that changed since, may expand differently.
    const bool ok = viewingSweep_ ? storedRequest(request, &error) : buildRequest(request, &error);
    if (!ok) {
        preview_->setText((viewingSweep_ ? tr("Run again would refuse: %1") : tr("Start would refuse: %1")).arg(error));
        preview_->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(failureColor().name()));
        return;
    }
    preview_->setStyleSheet(QString());
    const supervisor::TimeLeft none;
    const supervisor::SweepPreview p = supervisor::preview(request, runTimes_ ? *runTimes_ : none);
    QString text = viewingSweep_ ? tr("Run again: %1").arg(request.preset) : request.preset;
    // The model, where it is not the built-in one every sweep trains unless told otherwise.
    if (!request.configs.empty() && request.configs.front().model != kDefaultModel)
        text += tr(" of %1").arg(QString::fromStdString(request.configs.front().model));
    if (p.batchSizes > 0)
        text += tr(" at %1").arg(counted(p.batchSizes, tr("batch size"), tr("batch sizes")));
    text += QStringLiteral(", ") + counted(p.configurations, tr("configuration"), tr("configurations"));
    const QString repeats = counted(p.repeats, tr("repeat"), tr("repeats"));
    text += p.adaptive ? tr(" × at least %1").arg(repeats) : tr(" × %1").arg(repeats);
    if (p.startsChosen)
        text += tr(", starts %1 (%2)")
                    .arg(QString::fromStdString(supervisor::toString(p.starts)), counted(p.runs, tr("run"), tr("runs")));
    if (p.lanes > 1)
        text += tr(", on %1 devices at once").arg(p.lanes);
    // The estimate the running sweep starts from: the same runs of this host, else a guess.
    if (!p.estimate)
        text += tr(", time unknown: no run on this machine to go by yet");
    else if (p.estimate->guess)
        text += tr(", %1 (a guess from runs of other configurations or another machine)")
                    .arg(QString::fromStdString(supervisor::roundedTimeLeft(p.estimate->seconds)));
    else
        text += QStringLiteral(", ") + QString::fromStdString(supervisor::roundedTimeLeft(p.estimate->seconds));
    preview_->setText(text);
}

void ConfigPanel::setProgress(double fraction, qint64 secondsLeft, bool guess)
{
    progress_->setValue(static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 1000));
    progress_->setFormat(
        QStringLiteral("%1% · %2").arg(static_cast<int>(fraction * 100)).arg(timeLeftText(secondsLeft, guess)));
}

QString ConfigPanel::progressText() const
{
    return progress_->isVisible() ? progress_->format() : QString();
}

bool ConfigPanel::setBaseline(const QString &canonical)
{
    const int index = canonical.isEmpty() ? 0 : baseline_->findData(canonical);
    if (index < 0)
        return false;
    baseline_->setCurrentIndex(index);
    return true;
}

QCheckBox *ConfigPanel::knobBox(const QString &knob) const
{
    return findChild<QCheckBox *>("knob:" + knob);
}

void ConfigPanel::setOptimizer(Optimizer optimizer)
{
    optimizer_->setCurrentIndex(optimizer_->findData(int(optimizer)));
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
        if (row.widget == runtime_)
            compile_->loadSettings(s, QStringLiteral("config/"));
        loadSettingRow(row, s);
    }
    // Settings of before start states kept the old cache words: the same choices by their new names.
    const QString caches = s.value("config/caches").toString();
    if (caches == "cold" || caches == "warm" || caches == "both")
        caches_->setCurrentIndex(caches_->findData(caches == "cold"   ? QStringLiteral("fresh")
                                                   : caches == "warm" ? QStringLiteral("again")
                                                                      : QStringLiteral("fresh,again")));
    if (!s.contains("config/optimizer")) // settings of before the one SGD control
        setOptimizer(s.value("config/fused").toBool()          ? Optimizer::Fused
                     : s.value("config/perParameter").toBool() ? Optimizer::PerParameter
                                                               : Optimizer::Foreach);
    customConfigs_.clear();
    custom_->clear();
    for (const auto &json : s.value("config/custom").toStringList()) {
        RunConfig c;
        std::vector<ConfigError> errors;
        if (parseStoredConfig(json.toUtf8(), c, errors)) {
            customConfigs_.push_back(c);
            custom_->addItem(entryName(c));
        }
    }
    updateEnabled();
}

void ConfigPanel::buildSweepBanner(QVBoxLayout *layout)
{
    sweepBanner_ = new QGroupBox(tr("Stored sweep"));
    auto *bannerLayout = new QVBoxLayout(sweepBanner_);
    sweepCaption_ = new QLabel;
    sweepCaption_->setWordWrap(true);
    runAgain_ = new QPushButton(tr("Run again with these settings"));
    runAgain_->setToolTip(tr("Starts a new sweep of exactly the stored sweep's configurations, repeats and baseline"));
    auto *edit = new QPushButton(tr("Edit these"));
    edit->setToolTip(tr("Keeps these settings in the panel and lets you change them before Start"));
    auto *own = new QPushButton(tr("My settings"));
    own->setToolTip(tr("Back to the settings you had before the stored sweep was shown"));
    auto *row = new QHBoxLayout;
    row->addWidget(edit);
    row->addWidget(own);
    bannerLayout->addWidget(sweepCaption_);
    bannerLayout->addWidget(runAgain_);
    bannerLayout->addLayout(row);
    sweepBanner_->setVisible(false);
    layout->addWidget(sweepBanner_);
    connect(runAgain_, &QPushButton::clicked, this, &ConfigPanel::runAgainRequested);
    connect(edit, &QPushButton::clicked, this, [this] {
        leaveSweepView();
        Q_EMIT sweepViewLeft(false);
    });
    connect(own, &QPushButton::clicked, this, [this] {
        returnToOwnSettings();
        Q_EMIT sweepViewLeft(true);
    });
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
        recipe.settings.repeats =
            QJsonDocument::fromJson(QByteArray::fromStdString(info.sweep.settingsJson)).object().value("repeats").toInt(1);
    // A sweep of before recipes stored its configurations only: the compile choice is its first
    // configuration's (a single compiled one), else the rows its preset brings.
    if (legacy || !storedRecipe_)
        recipe.compile = configs.front().compile == CompileMode::None
                             ? std::nullopt
                             : std::optional<CompileChoice>(CompileChoice{
                                   configs.front().compile, configs.front().compileBackend, configs.front().compileTarget});
    const QString preset = QString::fromStdString(info.sweep.preset);
    if (preset == QLatin1String("custom"))
        recipe.list = recipe.kind == SweepKind::Custom && !recipe.list.empty() ? recipe.list : configs;
    sweepCaption_->setText(tr("Sweep %1, \"%2\": its settings, read-only.")
                               .arg(info.sweep.id)
                               .arg(QString::fromStdString(info.sweep.name)));
    // The shape and where it ran from the first configuration, every knob any configuration used.
    // A stored "cuda" is this machine's cuda:0 where there is one; elsewhere it is shown as stored.
    const QString stored = QString::fromStdString(configs.front().device);
    const QString device = device_->findText(itemOfDevice(configs.front().device)) >= 0
                               ? itemOfDevice(configs.front().device)
                               : stored;
    if (device_->findText(device) < 0)
        device_->addItem(device); // not on this machine: shown, not offered
    // The list and the compile choice before the rows: the kind's row expands them, and the
    // runtime's row must win over the runtime a compile mode chooses.
    if (preset == QLatin1String("custom")) {
        customConfigs_ = recipe.list;
        custom_->clear();
        for (const RunConfig &c : customConfigs_)
            custom_->addItem(entryName(c));
    }
    compile_->setChoice(recipe.compile);
    showStoredRows(settings_, {configs, recipe, preset});
    device_->setCurrentIndex(device_->findText(device));
    setBaseline(recipe.baseline);
    setSweepView(true);
}

void ConfigPanel::returnToOwnSettings()
{
    leaveSweepView();
    setCudaDevices(cudaDevices_); // drops a device listed only for the stored sweep
    while (caches_->count() > offeredStarts_)
        caches_->removeItem(caches_->count() - 1); // start states listed only for the stored sweep
    loadSettings(QSettings());
}

QString ConfigPanel::offerStartStates(const std::optional<supervisor::StartStates> &starts)
{
    if (!starts)
        return QString(); // automatic
    for (int i = 0; i < caches_->count(); ++i) {
        const QString words = caches_->itemData(i).toString();
        if (const auto offered = supervisor::startStatesFromString(words); !words.isEmpty() && offered && *offered == *starts)
            return words;
    }
    // Not one of the panel's choices (the CLI's --starts takes any): shown as stored, not offered.
    const QString words = QString::fromStdString(supervisor::toString(*starts));
    caches_->addItem(tr("As stored: %1").arg(words), words);
    return words;
}

void ConfigPanel::leaveSweepView()
{
    setSweepView(false);
}

QString ConfigPanel::sweepCaption() const
{
    return viewingSweep_ ? sweepCaption_->text() : QString();
}

void ConfigPanel::setSweepView(bool on)
{
    viewingSweep_ = on;
    if (!on)
        storedRecipe_.reset();
    sweepBanner_->setVisible(on);
    // Read-only: the form shows the stored sweep; the planned run stays the user's reading choice.
    for (QGroupBox *box : findChildren<QGroupBox *>(QString(), Qt::FindDirectChildrenOnly))
        if (box != sweepBanner_)
            box->setEnabled(!on);
    compile_->setEnabled(!on);
    deviceNote_->setVisible(!on); // it speaks of this machine, not of the stored sweep
    start_->setEnabled(!on && !stop_->isEnabled());
    start_->setToolTip(on ? tr("Showing a stored sweep: Run again, or Edit these / My settings first") : QString());
    updatePreview(); // the stored sweep's runs while it is on show, the form's afterwards
}

} // namespace stepscope::ui
