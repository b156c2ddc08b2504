#include "widgets/panel_settings.h"

#include "controller/run_controller.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSettings>
#include <QSpinBox>

namespace stepscope::ui
{

QVariant settingValue(const PanelSetting &setting)
{
    QWidget *w = setting.widget;
    if (auto *box = qobject_cast<QCheckBox *>(w))
        return box->isChecked();
    if (auto *spin = qobject_cast<QSpinBox *>(w))
        return spin->value();
    if (auto *real = qobject_cast<QDoubleSpinBox *>(w))
        return real->value();
    if (auto *combo = qobject_cast<QComboBox *>(w))
        return combo->currentData().isValid() ? combo->currentData() : QVariant(combo->currentText());
    if (auto *edit = qobject_cast<QLineEdit *>(w))
        return edit->text();
    return {};
}

void setSettingValue(const PanelSetting &setting, const QVariant &value)
{
    QWidget *w = setting.widget;
    if (auto *box = qobject_cast<QCheckBox *>(w)) {
        box->setChecked(value.toBool());
    } else if (auto *spin = qobject_cast<QSpinBox *>(w)) {
        spin->setValue(value.toInt());
    } else if (auto *real = qobject_cast<QDoubleSpinBox *>(w)) {
        real->setValue(value.toDouble());
    } else if (auto *combo = qobject_cast<QComboBox *>(w)) {
        // Items with data are found by it, compared as the data's type (an ini file reads "2" back).
        const QVariant data = combo->count() > 0 ? combo->itemData(0) : QVariant();
        QVariant wanted = value;
        if (!wanted.isValid() || (data.isValid() && !wanted.convert(data.metaType())))
            return; // nothing stored, or nothing this box offers
        const int index = data.isValid() ? combo->findData(wanted) : combo->findText(value.toString());
        if (index >= 0)
            combo->setCurrentIndex(index);
    } else if (auto *edit = qobject_cast<QLineEdit *>(w)) {
        edit->setText(value.toString());
    }
}

void saveSettingsTable(const PanelSettings &table, QSettings &settings)
{
    for (const PanelSetting &row : table) {
        const QVariant value = settingValue(row);
        settings.setValue(row.key, row.toStored ? row.toStored(value) : value);
    }
}

void loadSettingRow(const PanelSetting &row, const QSettings &settings)
{
    const QVariant stored = settings.value(QStringLiteral("config/") + row.key, row.fallback);
    setSettingValue(row, row.fromStored ? row.fromStored(stored) : stored);
}

void showStoredRows(const PanelSettings &table, const StoredSweepSettings &sweep)
{
    for (const PanelSetting &row : table)
        if (row.from)
            if (const auto value = row.from(sweep))
                setSettingValue(row, *value);
}

void fillSweep(const PanelSettings &table, RunConfig &base, SweepRequest &request)
{
    for (const PanelSetting &row : table)
        if (row.into)
            row.into(settingValue(row), base, request);
}

} // namespace stepscope::ui
