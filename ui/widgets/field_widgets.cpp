#include "widgets/field_widgets.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QSpinBox>
#include <QStringList>

#include <algorithm>
#include <cstdlib>

namespace stepscope::ui
{
namespace
{

// QStandardItemModel's flags role: 0 greys an item of a QComboBox, an invalid QVariant restores it.
constexpr int kFlagsRole = Qt::UserRole - 1;
// Where an item keeps its own tooltip, so that a refusal can stand in front of it and go again.
constexpr int kBaseTipRole = Qt::UserRole + 1;

QString text(const char *utf8)
{
    return QString::fromUtf8(utf8);
}

// A spin box that accelerates, with the unit after the number and the words that stand for 0.
template <typename Spin> void dress(Spin *spin, const char *unit, const char *zero)
{
    spin->setSuffix(text(unit));
    spin->setSpecialValueText(text(zero));
    spin->setAccelerated(true);
}

// The name of the choice item `i` of `box` stands for: the table's choice of its data, else its text.
std::string itemName(const QComboBox *box, const FieldInfo &field, int i)
{
    const QVariant data = box->itemData(i);
    if (field.kind == FieldKind::Choice && data.isValid())
        return field.choices.at(static_cast<std::size_t>(data.toInt()));
    return (data.isValid() ? data.toString() : box->itemText(i)).toStdString();
}

} // namespace

const FieldInfo &tableField(const char *key)
{
    const FieldInfo *field = findField(key);
    if (!field)
        std::abort(); // a key the panel names that the table lacks: fix the panel
    return *field;
}

QString fieldLabel(const FieldInfo &field)
{
    return text(field.form.label);
}

QString fieldTip(const FieldInfo &field)
{
    return QString::fromStdString(explanation(field));
}

QString limitLabel(const SweepLimit &limit)
{
    return text(limit.form.label);
}

QString limitTip(const SweepLimit &limit)
{
    return QString::fromStdString(supervisor::explanation(limit));
}

QSpinBox *fieldSpin(const FieldInfo &field)
{
    auto *spin = new QSpinBox;
    // Every integer field with a widget fits an int: the table's wider ones (the seed) have none.
    spin->setRange(int(field.min), int(field.max));
    spin->setValue(int(field.get(RunConfig{}).number));
    dress(spin, field.form.unit, field.form.zero);
    spin->setToolTip(fieldTip(field));
    spin->setObjectName(QStringLiteral("field:") + QLatin1String(field.key));
    return spin;
}

QCheckBox *fieldCheck(const FieldInfo &field, const QString &objectName)
{
    auto *box = new QCheckBox(fieldLabel(field));
    box->setChecked(field.get(RunConfig{}).number != 0);
    box->setToolTip(fieldTip(field));
    box->setObjectName(objectName);
    return box;
}

QComboBox *fieldCombo(const FieldInfo &field, bool data)
{
    auto *box = new QComboBox;
    const QString tip = fieldTip(field);
    const auto add = [&](const std::string &name, const std::string &words) {
        QVariant value;
        if (data && field.kind == FieldKind::Choice) {
            const auto at = std::find(field.choices.begin(), field.choices.end(), name);
            value = int(at - field.choices.begin());
        } else if (data) {
            value = QString::fromStdString(name);
        }
        box->addItem(QString::fromStdString(words), value);
        box->setItemData(box->count() - 1, tip, kBaseTipRole);
    };
    if (field.form.offered.empty())
        for (const std::string &name : field.choices)
            add(name, name);
    for (const auto &[name, words] : field.form.offered)
        add(name, words);
    box->setToolTip(tip);
    box->setObjectName(QStringLiteral("field:") + QLatin1String(field.key));
    return box;
}

QSpinBox *limitSpin(const SweepLimit &limit)
{
    auto *spin = new QSpinBox;
    spin->setRange(int(limit.min), int(limit.max));
    spin->setValue(int(limit.defaultValue));
    spin->setSingleStep(int(limit.form.step));
    dress(spin, limit.form.unit, limit.form.zero);
    spin->setPrefix(text(limit.form.prefix));
    spin->setToolTip(limitTip(limit));
    spin->setObjectName(QStringLiteral("limit:") + QLatin1String(limit.option));
    return spin;
}

QDoubleSpinBox *limitReal(const SweepLimit &limit)
{
    auto *spin = new QDoubleSpinBox;
    // As many decimals as the step has: 0.5 needs one.
    int decimals = 0;
    for (double step = limit.form.step; step != double(qint64(step)) && decimals < 6; step *= 10)
        ++decimals;
    spin->setDecimals(decimals);
    spin->setSingleStep(limit.form.step);
    spin->setRange(limit.minExclusive ? limit.min + limit.form.step : limit.min, limit.max);
    spin->setValue(limit.defaultValue);
    dress(spin, limit.form.unit, limit.form.zero);
    spin->setPrefix(text(limit.form.prefix));
    spin->setToolTip(limitTip(limit));
    spin->setObjectName(QStringLiteral("limit:") + QLatin1String(limit.option));
    return spin;
}

void addFieldRow(QFormLayout *form, const FieldInfo &field, QWidget *widget)
{
    form->addRow(fieldLabel(field), widget);
}

void addLimitRow(QFormLayout *form, const SweepLimit &limit, QWidget *widget)
{
    form->addRow(limitLabel(limit), widget);
}

QString refusal(RunConfig probe, const char *key, const std::string &value)
{
    ConfigError error;
    if (!setField(probe, key, value, error))
        return QString::fromStdString(error.message);
    // The rules' own words, without describe()'s "key: ": the tooltip stands on the field already.
    QStringList why;
    for (const ConfigError &e : validate(probe))
        if (e.field == key)
            why << QString::fromStdString(e.message);
    return why.join(QLatin1Char('\n'));
}

void greyRefusedChoices(QComboBox *box, const FieldInfo &field, const RunConfig &probe)
{
    int firstAllowed = -1;
    bool currentRefused = false;
    for (int i = 0; i < box->count(); ++i) {
        const QString why = refusal(probe, field.key, itemName(box, field, i));
        const QString base = box->itemData(i, kBaseTipRole).toString();
        box->setItemData(i, why.isEmpty() ? QVariant() : QVariant(0), kFlagsRole);
        box->setItemData(i, why.isEmpty() ? base : why + QStringLiteral("\n\n") + base, Qt::ToolTipRole);
        if (why.isEmpty() && firstAllowed < 0)
            firstAllowed = i;
        if (!why.isEmpty() && i == box->currentIndex())
            currentRefused = true;
    }
    if (currentRefused && firstAllowed >= 0)
        box->setCurrentIndex(firstAllowed);
}

void enableLimitBoxes(QWidget *root, const std::function<QCheckBox *(const char *option)> &switchOf)
{
    const auto on = [&](const char *option) {
        const QCheckBox *box = *option ? switchOf(option) : nullptr;
        return box && box->isChecked();
    };
    for (const SweepLimit *limit : supervisor::kSweepLimits) {
        const QString name = QStringLiteral("limit:") + QLatin1String(limit->option);
        for (QAbstractSpinBox *box : root->findChildren<QAbstractSpinBox *>(name))
            box->setEnabled((!*limit->form.onlyWith || on(limit->form.onlyWith)) && !on(limit->form.unusedWith));
    }
}

} // namespace stepscope::ui
