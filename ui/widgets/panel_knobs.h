#pragma once
// The configuration panel's "Optimizations" group: a checkbox per knob of the ledger, the autocast
// precision and the SGD implementation, each made from its row of the configuration table
// (widgets/field_widgets.h). What the table's rules refuse on the form's configuration is greyed:
// the CUDA knobs on the CPU, fp16 there.
#include "config/run_config.h"

#include <QGroupBox>

#include <vector>

class QCheckBox;
class QComboBox;

namespace stepscope::ui
{

class KnobsGroup : public QGroupBox
{
    Q_OBJECT
  public:
    explicit KnobsGroup(QWidget *parent = nullptr);

    // Greys what the table's rules refuse once set on `probe` (the configuration the form holds).
    void updateEnabled(const RunConfig &probe);
    // The knobs' checkboxes, in the form's order.
    std::vector<QCheckBox *> checks() const;

    QCheckBox *const tf32;
    QCheckBox *const cudnn;
    QCheckBox *const autocast;
    QComboBox *const autocastDtype; // "bf16" or "fp16", by text (stored so)
    QCheckBox *const channelsLast;
    QCheckBox *const graph;
    QComboBox *const optimizer; // data: int(Optimizer)
};

} // namespace stepscope::ui
