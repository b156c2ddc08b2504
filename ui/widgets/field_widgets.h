#pragma once
// Widgets made from one row of core's tables: a configuration field (config/config_table.h, whose
// `form` says how a form shows it) or a sweep limit (supervisor/sweep_request.h, its `form` likewise).
// Range, default, unit, what 0 means, label, tooltip and object name all come from the row, so the
// panel holds no limit, default or description of its own; the CLI's --help reads the same rows.
#include "config/config_table.h"
#include "config/run_config.h"
#include "supervisor/sweep_request.h"

#include <QString>

#include <functional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QSpinBox;
class QWidget;

namespace stepscope::ui
{

using supervisor::SweepLimit;

// The row of `key`, which must be a field of the table (a typo is a programming error).
const FieldInfo &tableField(const char *key);

// The form's words: the row's label, and its explanation (help, then the form's details).
QString fieldLabel(const FieldInfo &field);
QString fieldTip(const FieldInfo &field);
QString limitLabel(const SweepLimit &limit);
QString limitTip(const SweepLimit &limit);

// An Integer field: the table's range and default (RunConfig's), its unit and the words for 0.
// Object name "field:<key>".
QSpinBox *fieldSpin(const FieldInfo &field);
// A Flag field: the label as its text, unticked. `objectName` names it for the knob it is
// ("knob:cudnn-bench"): the sweep builders' names, not the table's.
QCheckBox *fieldCheck(const FieldInfo &field, const QString &objectName);
// A Choice (or CoreList) field: the items the form offers in its order, with its words; the data of
// an item is the enum (the choice's index) for a Choice, the word for a CoreList. Without `data`,
// the items carry none (a box stored by its text).
QComboBox *fieldCombo(const FieldInfo &field, bool data = true);
// A limit of the sweep: its range, default, unit, words for 0 and step. Object name "limit:<option>".
QSpinBox *limitSpin(const SweepLimit &limit);
// A limit that is no whole number: a bound the table excludes is one step inside it.
QDoubleSpinBox *limitReal(const SweepLimit &limit);

// The row "label: widget" of `field` or `limit`.
void addFieldRow(QFormLayout *form, const FieldInfo &field, QWidget *widget);
void addLimitRow(QFormLayout *form, const SweepLimit &limit, QWidget *widget);

// What the table's rules say against setting `key` to `value` (its text, as rules compare it) on
// `probe`, the configuration the form holds: empty when nothing. The form greys what this refuses,
// so that an enabling rule is the refusal itself, written once in rules().
QString refusal(RunConfig probe, const char *key, const std::string &value);

// Greys the choices of `box` (data: the enum, as fieldCombo gives it) that refusal() refuses on
// `probe`, with the reason in front of the item's tooltip; a refused current choice moves to the
// first allowed one.
void greyRefusedChoices(QComboBox *box, const FieldInfo &field, const RunConfig &probe);

// Enables the limit boxes under `root` (object names "limit:<option>") as their rows' enabling rules
// say: only with their flag on (form.onlyWith), never under the flag that makes them mean nothing
// (form.unusedWith). `switchOf` gives the checkbox of a flag; a flag without one counts as off.
void enableLimitBoxes(QWidget *root, const std::function<QCheckBox *(const char *option)> &switchOf);

} // namespace stepscope::ui
