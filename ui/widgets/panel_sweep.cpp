#include "widgets/panel_sweep.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace stepscope::ui
{

using supervisor::SweepKind;

SweepGroup::SweepGroup(QWidget *parent)
    : QGroupBox(tr("Sweep"), parent), sweepKind(new QComboBox), custom(new QListWidget),
      addCustom(new QPushButton(tr("Add ticked combination"))), removeCustom(new QPushButton(tr("Remove"))),
      baseline(new QComboBox)
{
    sweepKind->addItem(tr("Ledger: ticked options added one by one"), int(SweepKind::Ledger));
    sweepKind->addItem(tr("Each ticked option alone vs the baseline"), int(SweepKind::Each));
    sweepKind->addItem(tr("Every combination of the ticked options"), int(SweepKind::Combinations));
    sweepKind->addItem(tr("Custom list"), int(SweepKind::Custom));
    sweepKind->addItem(tr("Only the ticked combination"), int(SweepKind::Single));
    custom->setMaximumHeight(90);
    auto *customButtons = new QHBoxLayout;
    customButtons->addWidget(addCustom);
    customButtons->addWidget(removeCustom);
    // The row every other is compared with (speed-ups, break-even, the accuracy gate). The list
    // follows the sweep the form would run; automatic is defaultBaseline's rule.
    baseline->setToolTip(tr("The configuration every other is compared with: speed-ups, break-even and the accuracy "
                            "gate. Automatic: fp32 eager in the same runtime and shape when the sweep has it, else "
                            "its first configuration. The sweep stores the choice."));
    auto *baselineForm = new QFormLayout;
    baselineForm->addRow(tr("Baseline"), baseline);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(sweepKind);
    layout->addWidget(custom);
    layout->addLayout(customButtons);
    layout->addLayout(baselineForm);
}

SweepKind SweepGroup::kind() const
{
    return static_cast<SweepKind>(sweepKind->currentData().toInt());
}

void SweepGroup::setKind(SweepKind k)
{
    sweepKind->setCurrentIndex(sweepKind->findData(int(k)));
}

void SweepGroup::updateEnabled()
{
    const bool list = kind() == SweepKind::Custom;
    custom->setVisible(list);
    addCustom->setVisible(list);
    removeCustom->setVisible(list);
}

} // namespace stepscope::ui
