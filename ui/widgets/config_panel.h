#pragma once
// The left-hand panel: the sweep builder, where the step runs (device, runtime, Python interpreter),
// a checkbox per knob, torch.compile, the run's shape and the planned run length. Each group box is a
// file of its own (panel_sweep.h, panel_where.h, panel_knobs.h, compile_options.h, panel_run.h), its
// widgets made from core's tables (field_widgets.h); the panel arranges them, ties them together and
// turns the form into a SweepRequest (supervisor/sweep_recipe.h says how each sweep kind carries the
// compile choice); it never starts anything itself.
#include "controller/run_controller.h"
#include "presenters/launch_form.h"
#include "supervisor/sweep_recipe.h"
#include "widgets/panel_actions.h"
#include "widgets/panel_knobs.h"
#include "widgets/panel_run.h"
#include "widgets/panel_settings.h"
#include "widgets/panel_stored_sweep.h"
#include "widgets/panel_sweep.h"
#include "widgets/panel_where.h"

#include <QWidget>

#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSettings;
class QSpinBox;

namespace stepscope::supervisor
{
class TimeLeft;
}

namespace stepscope::ui
{

class CompileOptions;
class ModelPicker;
struct SweepInfo;
using supervisor::CompileChoice;

// The launcher starts sweeps from it through LaunchForm (presenters/launch_form.h).
class ConfigPanel : public QWidget, public LaunchForm
{
    Q_OBJECT
  public:
    using SweepKind = supervisor::SweepKind;

    explicit ConfigPanel(QWidget *parent = nullptr);

    // Offers cpu and cuda:0..count-1; the default shape follows (224 px on a GPU, small on the CPU).
    void setCudaDevices(int count) override;
    // Nothing is known of the CUDA devices (yet): `note` says why where the device count would be;
    // the devices and defaults stay as they are.
    void setDevicesUnknown(const QString &note) override;
    // The GPUs the probe listed (model, UUID), for "Devices at once" (sweep_lanes.h).
    void setGpus(std::vector<supervisor::FoundGpu> gpus) override;
    QLineEdit *devicesEdit() const { return run_->devices; }
    QLineEdit *worldSizesEdit() const { return run_->worldSizes; }
    int cudaDevices() const override { return cudaDevices_; }
    const std::vector<supervisor::FoundGpu> &gpus() const override { return gpus_; }

    RunConfig baseConfig() const;                 // runtime, shape, device and every ticked knob (no compile)
    std::vector<std::string> tickedKnobs() const; // knob names of config/presets.h
    CompileChoice compileChoice() const;
    // What the form asks for (supervisor/sweep_recipe.h); buildRequest expands it.
    supervisor::SweepRecipe recipe() const;
    bool buildRequest(SweepRequest &request, QString *error, QStringList *skipped = nullptr) const override;
    qint64 plannedSteps() const;
    void setRunning(bool running) override;
    QString device() const;

    // The interpreter for Python runs; empty: automatic (STEPSCOPE_PYTHON, the build's virtual
    // environment, python3 on PATH). Stored as QSettings "config/pythonInterpreter"; the window
    // hands it to the controller when a sweep starts and to the doctor.
    QString pythonInterpreter() const override;
    void setPythonInterpreter(const QString &path);
    // Says again which interpreter runs would use (after a setup made the managed environment).
    void updatePythonNote();

    void saveSettings(QSettings &settings) const;
    void loadSettings(const QSettings &settings) override;

    // For tests and shortcuts.
    QCheckBox *knobBox(const QString &knob) const; // "tf32", "cudnn-bench", "autocast", "channels-last", "cuda-graph"
    QComboBox *optimizerBox() const { return knobs_->optimizer; } // data: int(Optimizer)
    void setOptimizer(Optimizer optimizer);
    QComboBox *baselineBox() const { return sweep_->baseline; } // data: canonical name, "" = automatic
    bool setBaseline(const QString &canonical);                 // "" = automatic; false when not offered
    CompileOptions *compileOptions() const { return compile_; }
    ModelPicker *modelPicker() const { return run_->model; }             // what every configuration trains
    QSpinBox *sequenceLengthBox() const { return run_->sequenceLength; } // shown for models that take tokens
    QComboBox *runtimeBox() const { return where_->runtime; }
    QComboBox *cpuAffinityBox() const { return where_->affinity; } // data: "none", "one", "list"
    QLineEdit *cpuCoresEdit() const { return where_->cores; }      // the list, for "list"
    QSpinBox *threadsBox() const { return where_->threads; }
    QCheckBox *untilCiBox() const { return run_->untilCi; }
    QDoubleSpinBox *ciHalfWidthBox() const { return run_->ciHalfWidth; }
    QSpinBox *maxProcessesBox() const { return run_->maxProcesses; }
    QSpinBox *maxMinutesBox() const { return run_->maxMinutes; }
    QCheckBox *machineWarmupBox() const { return run_->machineWarmup; }
    QLineEdit *batchesEdit() const { return run_->batches; }
    QSpinBox *profileStepsBox() const { return run_->profileSteps; }
    QSpinBox *repeatsBox() const { return run_->repeats; }
    QListWidget *customList() const { return sweep_->custom; } // the custom kind's entries
    QComboBox *cachesBox() const { return run_->caches; }      // data: "" (automatic) or --start words
    void setSweepKind(SweepKind kind);
    void setShape(int batch, int imageSize, int warmup, int steps);
    void setDevice(const QString &device);
    void setRepeats(int repeats);
    QPushButton *startButton() const { return actions_->start; }
    QPushButton *stopButton() const { return actions_->stop; }
    // The planned run and Start/Stop: part of the panel until a window puts it elsewhere (pinned
    // under a scrolled panel, so that both stay in view on a small screen).
    QWidget *actionBar() const { return actions_; }
    QSpinBox *plannedBox() const { return actions_->planned; }

    // Above Start, what it would run and for how long: "ledger, 4 configurations × 1 repeat, about
    // 2 min". The time is supervisor/time_left.h's estimate from `times` (this host's runs of the
    // open database), said to be a guess when it is one; or Start's refusal, when it would refuse.
    void setRunTimes(std::shared_ptr<const supervisor::TimeLeft> times) override;
    QString previewText() const;
    // The running sweep's progress beside Start/Stop: `fraction` in [0, 1] and the time left
    // (< 0: not known yet). Shown while setRunning(true).
    void setProgress(double fraction, qint64 secondsLeft, bool guess) override;
    QString progressText() const; // "42% · about 3 min left"; empty when hidden
    QProgressBar *progressBar() const { return actions_->progress; }

    // Shows a stored sweep's settings read-only: the shape and device of its first configuration,
    // every knob its configurations used, its repeats and kind, under a caption naming it, with
    // "Run again with these settings" (runAgainRequested), "Edit these" and "My settings"
    // (sweepViewLeft). A device this machine lacks is listed for the sight of it. The user's own
    // settings are saved first, for "My settings" to bring back.
    void showStoredSweep(const SweepInfo &info);
    void leaveSweepView() override; // editable again, with the values shown
    // Leaves the stored sweep's settings for the user's own, as saved when it was shown.
    void returnToOwnSettings();
    bool viewingSweep() const override { return viewingSweep_; }
    // Puts `config` into the custom list (once) with the form set to its shape, device and runtime,
    // which every entry of the list takes (withShapeOf): the sweep Start runs then holds it as it is.
    // A stored sweep on show is left for its settings, as "Edit these" does.
    void addConfig(const RunConfig &config);
    QPushButton *runAgainButton() const { return banner_->runAgain; }
    QString sweepCaption() const; // empty unless a stored sweep is shown

  Q_SIGNALS:
    void startRequested();
    void stopRequested();
    void plannedStepsChanged(qint64 steps);
    void runAgainRequested();
    // The user left the stored sweep's settings: to edit them, or back to their own (`ownSettings`).
    void sweepViewLeft(bool ownSettings);

  private:
    SweepKind sweepKind() const;
    void updateEnabled();
    void updateCompile();
    void compileModeChanged();
    void addCustom();
    void removeCustom();
    void setSweepView(bool on);
    // The item of the start-state box for a stored sweep's `starts`; one the box does not offer is
    // added for it (returnToOwnSettings removes it).
    QString offerStartStates(const std::optional<supervisor::StartStates> &starts);
    // The request of the stored sweep on show, as Run again runs it.
    bool storedRequest(SweepRequest &request, QString *error) const;
    void updateBaselineChoices();
    void updatePreview();
    void modelChanged();

    // The groups, top to bottom; the action bar may live outside the panel (actionBar()).
    StoredSweepBanner *banner_;
    SweepGroup *sweep_;
    WhereGroup *where_;
    KnobsGroup *knobs_;
    CompileOptions *compile_;
    RunGroup *run_;
    ActionBar *actions_;

    int cudaDevices_ = 0;
    std::vector<supervisor::FoundGpu> gpus_;
    std::vector<RunConfig> customConfigs_;
    bool compileWasOn_ = false;
    bool viewingSweep_ = false;
    std::optional<supervisor::SweepRecipe> storedRecipe_; // while viewing: what Run again runs
    QString storedProblem_;                               // why there is none
    int offeredStarts_ = 0;                               // the start-state box's own items
    PanelSettings settings_; // every setting the form holds, read and written only through it
    std::shared_ptr<const supervisor::TimeLeft> runTimes_;
};

} // namespace stepscope::ui
