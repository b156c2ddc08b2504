#pragma once
// The configuration panel's settings as one table: each row is a QSettings key (under config/),
// the widget that holds it, the stored value when the key is absent, how the value goes into the
// sweep (the configuration every row builds on, or the request), and how a stored sweep gives it
// back for the read-only view. Saving, loading, the stored view and the request all walk this
// table, so a setting is written down once.
#include "config/run_config.h"
#include "supervisor/sweep_recipe.h"
#include "supervisor/sweep_request.h"

#include <QString>
#include <QVariant>

#include <functional>
#include <optional>
#include <utility>
#include <vector>

class QSettings;
class QWidget;

namespace stepscope::ui
{

class ActionBar;
class KnobsGroup;
class RunGroup;
class SweepGroup;
class WhereGroup;

using supervisor::SweepRequest; // supervisor/sweep_request.h

// A stored sweep as the panel shows it: its configurations (in the sweep's order), the recipe Run
// again runs (supervisor::recipeToRunAgain: every setting the sweep stored, the defaults for one of
// before recipes) and its kind as stored.
struct StoredSweepSettings {
    const std::vector<RunConfig> &configs; // never empty
    const supervisor::SweepRecipe &recipe;
    QString preset;
};

struct PanelSetting {
    using Into = std::function<void(const QVariant &value, RunConfig &base, SweepRequest &request)>;
    using From = std::function<std::optional<QVariant>(const StoredSweepSettings &sweep)>;
    using Codec = std::function<QVariant(const QVariant &)>;
    PanelSetting(QString k, QWidget *w, QVariant absent, Into in = {}, From out = {}, Codec encode = {},
                 Codec decode = {})
        : key(std::move(k)), widget(w), fallback(std::move(absent)), into(std::move(in)), from(std::move(out)),
          toStored(std::move(encode)), fromStored(std::move(decode))
    {
    }

    QString key;
    QWidget *widget; // a QCheckBox, QSpinBox, QDoubleSpinBox, QComboBox or QLineEdit
    QVariant fallback;
    // Into the sweep; earlier rows have filled the configuration already (the device decides
    // whether a CUDA knob counts). Empty: not part of a sweep.
    Into into;
    // From a stored sweep; empty: the row is no setting of a sweep (the interpreter, the planned
    // run) and keeps what it shows; nullopt: the sweep leaves the row as it is (autocast's dtype
    // when no row has autocast).
    From from;
    // Between the widget's value and what QSettings keeps, where they differ (an enum kept by name).
    Codec toStored, fromStored;
};

using PanelSettings = std::vector<PanelSetting>;

// The widget's value: checked, number, the combo box's item data (its text where items have none),
// or text.
QVariant settingValue(const PanelSetting &setting);
// Shows `value` in the widget; a combo box without such an item keeps its choice.
void setSettingValue(const PanelSetting &setting, const QVariant &value);

// Every row, inside the caller's group.
void saveSettingsTable(const PanelSettings &table, QSettings &settings);
// One row, from its key under "config/" (or its fallback).
void loadSettingRow(const PanelSetting &setting, const QSettings &settings);
// Every row the stored sweep gives a value, in table order.
void showStoredRows(const PanelSettings &table, const StoredSweepSettings &sweep);
// The base configuration and the request's own fields, as the form holds them.
void fillSweep(const PanelSettings &table, RunConfig &base, SweepRequest &request);

// The configuration panel's groups, whose widgets the table's rows hold.
struct PanelGroups {
    WhereGroup *where;
    KnobsGroup *knobs;
    RunGroup *run;
    SweepGroup *sweep;
    ActionBar *actions;
};
// The panel's table: every setting its groups hold, in load order (the device before what it
// enables, the autocast before its precision; ConfigPanel::loadSettings loads the compile options
// before the runtime). `offerStartStates` gives the start-state box's item for a stored sweep's
// states, adding one the box lacks.
PanelSettings panelSettings(const PanelGroups &groups,
                            std::function<QString(const std::optional<supervisor::StartStates> &)> offerStartStates);

// The first GPU is the process's default device, which stepscope-cli run and every stored default
// sweep call "cuda": the configuration says cuda for the panel's cuda:0, so that the dashboard's
// default sweep is the CLI's (supervisor/sweep_recipe.h) and their runs are history for each other.
std::string deviceOfItem(const QString &item);
QString itemOfDevice(const std::string &device);

} // namespace stepscope::ui
