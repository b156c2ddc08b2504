#include "widgets/panel_run.h"

#include "supervisor/sweep_request.h"
#include "widgets/field_widgets.h"
#include "widgets/model_picker.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QSpinBox>

#include <cstring>

namespace stepscope::ui
{
namespace
{

// A list typed as text: its placeholder shows the form, its tooltip says what it does.
QLineEdit *listEdit(const QString &placeholder, const QString &tip)
{
    auto *edit = new QLineEdit;
    edit->setPlaceholderText(placeholder);
    edit->setToolTip(tip);
    return edit;
}

QCheckBox *check(const QString &text, const QString &tip)
{
    auto *box = new QCheckBox(text);
    box->setToolTip(tip);
    return box;
}

} // namespace

RunGroup::RunGroup(QWidget *parent)
    : QGroupBox(tr("Run"), parent), model(new ModelPicker), batch(fieldSpin(tableField("batch"))),
      imageSize(fieldSpin(tableField("image_size"))), sequenceLength(fieldSpin(tableField("sequence_length"))),
      warmup(fieldSpin(tableField("warmup_steps"))), steps(fieldSpin(tableField("steps"))),
      repeats(limitSpin(supervisor::kRepeatLimit)),
      batches(listEdit(tr("e.g. 16,32,64,128"),
                       tr("A batch scan: every configuration at each of these batch sizes, in one sweep. The ledger "
                          "compares rows of one batch; the Why page shows the verdict across them. Empty: the "
                          "batch above."))),
      maxBatch(check(tr("Largest batch that fits"),
                     tr("Time nothing: find each configuration's largest batch that fits, within 5%, by short "
                        "processes from the batch above (at most 8 tries and 2 minutes a configuration, a compile's own time aside), each answer "
                        "checked by a try 5% above it running out of memory. On the CPU set a memory limit. The "
                        "ledger page shows the answers."))),
      devices(listEdit(tr("one at a time; e.g. cuda:0,cuda:1 or all"),
                       tr("Run on several GPUs at once, one timed process per GPU: the runs are dealt out as GPUs "
                          "come free, and the repeats of a configuration stay on GPUs of one model. Empty: one run "
                          "at a time on the device above. cpu:0,cpu:1 are CPU slots (they share the cores)."))),
      worldSizes(listEdit(tr("e.g. 1,2 (data-parallel)"),
                          tr("Every configuration at each world size: DistributedDataParallel over that many "
                             "processes (the Python worker, through torch.distributed.run), one GPU per rank, gloo on "
                             "the CPU. The ledger then shows the scaling efficiency against world size 1."))),
      profileSteps(limitSpin(supervisor::kProfileStepsLimit)),
      untilCi(check(limitLabel(supervisor::kUntilCiLimit), limitTip(supervisor::kUntilCiLimit))),
      ciHalfWidth(limitReal(supervisor::kUntilCiLimit)), maxProcesses(limitSpin(supervisor::kMaxRepeatsLimit)),
      maxMinutes(limitSpin(supervisor::kMaxMinutesLimit)),
      machineWarmup(check(tr("Discard one warm-up process first"),
                          tr("One unstored one-step process before the timed runs: it warms what no run's own caches "
                             "hold (the driver, the libraries' file cache)"))),
      caches(new QComboBox), form_(new QFormLayout(this))
{
    maxBatch->setObjectName(QStringLiteral("maxBatch"));
    // The start states each configuration runs under (supervisor/start_caches.h). Data: "" =
    // automatic (supervisor::defaultStartStates), else what supervisor::startStatesFromString reads.
    caches->setObjectName("startStates");
    caches->addItem(tr("Automatic (on a GPU: fresh and again, shipped for compiled rows)"), QString());
    caches->addItem(tr("Fresh: every cache empty (a new machine)"), QStringLiteral("fresh"));
    caches->addItem(tr("Fresh and again"), QStringLiteral("fresh,again"));
    caches->addItem(tr("Fresh, shipped and again"), QStringLiteral("all"));
    caches->addItem(tr("Again: as a run of the same configuration left them"), QStringLiteral("again"));
    caches->setToolTip(tr("Every run gets caches of its own, torch.compile's included (CUDA JIT, torch's kernels, "
                          "Triton, inductor). Fresh first steps are what a new machine or container pays; shipped "
                          "ones what a machine built from an image with the configuration's saved caches pays "
                          "(torch.compile's mega-cache, the CUDA JIT folder); again ones what this machine pays once "
                          "it has run the configuration. The ledger switches between them."));

    addFieldRow(form_, tableField("model"), model);
    addFieldRow(form_, tableField("batch"), batch);
    addFieldRow(form_, tableField("image_size"), imageSize);
    addFieldRow(form_, tableField("sequence_length"), sequenceLength);
    addFieldRow(form_, tableField("warmup_steps"), warmup);
    addFieldRow(form_, tableField("steps"), steps);
    addLimitRow(form_, supervisor::kRepeatLimit, repeats);
    form_->addRow(tr("Batch scan"), batches);
    form_->addRow(maxBatch);
    form_->addRow(tr("Devices at once"), devices);
    form_->addRow(tr("World sizes"), worldSizes);
    addLimitRow(form_, supervisor::kProfileStepsLimit, profileSteps);
    // Adaptive repeats: a launch-bound step moves between cold processes, so the figure needs
    // processes, not steps. The checkbox is the flag, the box beside it its value.
    auto *untilRow = new QHBoxLayout;
    untilRow->addWidget(untilCi);
    untilRow->addWidget(ciHalfWidth);
    form_->addRow(untilRow);
    addLimitRow(form_, supervisor::kMaxRepeatsLimit, maxProcesses);
    addLimitRow(form_, supervisor::kMaxMinutesLimit, maxMinutes);
    form_->addRow(machineWarmup);
    form_->addRow(tr("Start states"), caches);
}

void RunGroup::setShape(int batchSize, int image, int warmupSteps, int measured)
{
    batch->setValue(batchSize);
    imageSize->setValue(image);
    warmup->setValue(warmupSteps);
    steps->setValue(measured);
}

void RunGroup::showSequenceLength(bool on)
{
    form_->setRowVisible(sequenceLength, on);
}

QCheckBox *RunGroup::switchOf(const char *option) const
{
    if (std::strcmp(option, supervisor::kUntilCiLimit.option) == 0)
        return untilCi;
    if (std::strcmp(option, "max-batch") == 0)
        return maxBatch;
    return nullptr;
}

void RunGroup::updateEnabled()
{
    // A max-batch search times nothing: one fresh unprofiled process a try, whatever these say.
    caches->setEnabled(!maxBatch->isChecked());
}

} // namespace stepscope::ui
