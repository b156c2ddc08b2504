#pragma once
// The configuration panel's "Run" group: what is trained and its shape, the repeats, the batch scan
// and the largest batch search, several GPUs, the profile, adaptive repeats and the start states.
// Fields of a configuration come from the configuration table, the sweep's numbers from its limits
// table (widgets/field_widgets.h); the lists and switches that neither table holds are written here.
#include <QGroupBox>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLineEdit;
class QSpinBox;

namespace stepscope::ui
{

class ModelPicker;

class RunGroup : public QGroupBox
{
    Q_OBJECT
  public:
    explicit RunGroup(QWidget *parent = nullptr);

    void setShape(int batch, int imageSize, int warmup, int steps);
    // The sequence length's row is shown for a model that takes token ids only.
    void showSequenceLength(bool on);
    // The checkbox that stands for a flag of the sweep ("until-ci", "max-batch"), which the limits
    // table's enabling rules name; nullptr for another.
    QCheckBox *switchOf(const char *option) const;
    // The start states mean nothing to a largest-batch search (one fresh process a try).
    void updateEnabled();

    ModelPicker *const model;
    QSpinBox *const batch;
    QSpinBox *const imageSize;
    QSpinBox *const sequenceLength;
    QSpinBox *const warmup;
    QSpinBox *const steps;
    QSpinBox *const repeats;
    QLineEdit *const batches;    // a batch scan, "16,32,64,128"; empty: Batch (issue 18.5)
    QCheckBox *const maxBatch;   // the largest batch that fits instead of timing (issue 31.3)
    QLineEdit *const devices;    // several GPUs at once (issue 21)
    QLineEdit *const worldSizes; // data-parallel steps as a dimension
    QSpinBox *const profileSteps;
    QCheckBox *const untilCi; // adaptive repeats, as the CLI's --until-ci/--max-repeats/--max-minutes
    QDoubleSpinBox *const ciHalfWidth;
    QSpinBox *const maxProcesses;
    QSpinBox *const maxMinutes;
    QCheckBox *const machineWarmup;
    QComboBox *const caches; // data: "" (automatic) or --start words

  private:
    QFormLayout *form_;
};

} // namespace stepscope::ui
