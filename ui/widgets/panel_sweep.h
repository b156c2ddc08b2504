#pragma once
// The configuration panel's "Sweep" group: which sweep the ticked knobs make (the ledger, each alone,
// every combination, a custom list, the ticked combination), the custom list with its buttons, and
// the baseline every row is compared with. It holds the choices; the panel fills the baseline's list
// from the sweep the form would run.
#include "supervisor/sweep_recipe.h"

#include <QGroupBox>

class QComboBox;
class QListWidget;
class QPushButton;

namespace stepscope::ui
{

class SweepGroup : public QGroupBox
{
    Q_OBJECT
  public:
    explicit SweepGroup(QWidget *parent = nullptr);

    supervisor::SweepKind kind() const;
    void setKind(supervisor::SweepKind kind);
    // The custom list and its buttons are shown for the custom kind only.
    void updateEnabled();

    QComboBox *const sweepKind; // data: int(SweepKind)
    QListWidget *const custom;  // the custom kind's entries
    QPushButton *const addCustom;
    QPushButton *const removeCustom;
    QComboBox *const baseline; // data: canonical name, "" = automatic
};

} // namespace stepscope::ui
