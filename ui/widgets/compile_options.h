#pragma once
// The torch.compile part of the configuration panel: mode, backend and target (the caches a compile
// finds are the run's start state, the panel's "Start states"). Choices that validate() refuses for the configuration they would join are greyed,
// with validate()'s reason as their tooltip.
#include "supervisor/sweep_recipe.h"

#include <QGroupBox>

class QCheckBox;
class QComboBox;
class QLabel;
class QSettings;

namespace stepscope::ui
{
using supervisor::CompileChoice;
using supervisor::compileProblems;

class CompileOptions : public QGroupBox
{
    Q_OBJECT
  public:
    explicit CompileOptions(QWidget *parent = nullptr);

    CompileChoice choice() const; // "none" while the preset's rows are chosen
    // The recipe's compile choice (supervisor/sweep_recipe.h): unset for the first mode, the rows
    // the kind's preset brings (the ledger's Python rows), else choice().
    std::optional<CompileChoice> recipeChoice() const;
    void setChoice(const std::optional<CompileChoice> &choice);
    // Greys what validate() refuses once applied to `probe` (the configuration the compile would
    // stand on), item by item, and enables the dependent rows only with a compile mode.
    void updateValidity(const RunConfig &probe);
    // The note under the options for the form's configuration `base` (no compile mode) in a sweep
    // of `kind`: what Start would refuse where the form is one configuration, else where the
    // compiled rows and the rows they are compared with run. None without a compile mode.
    void explain(const RunConfig &base, supervisor::SweepKind kind);
    // A note under the options (why the runtime changed, or what is wrong); `problem` paints it red.
    void setHint(const QString &text, bool problem);
    QString hint() const;

    void saveSettings(QSettings &settings) const; // inside the caller's group
    void loadSettings(const QSettings &settings, const QString &prefix);

    QComboBox *modeBox() const { return mode_; }
    QComboBox *backendBox() const { return backend_; }
    QComboBox *targetBox() const { return target_; }

  Q_SIGNALS:
    void changed();

  private:
    QComboBox *mode_, *backend_, *target_;
    QLabel *hint_;
};

} // namespace stepscope::ui
