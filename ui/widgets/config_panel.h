#pragma once
// The left-hand panel: a checkbox per knob, the run's shape, the sweep builder and the planned run
// length. It turns the form into a SweepRequest; it never starts anything itself.
#include "controller/run_controller.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QSettings;
class QSpinBox;

namespace stepscope::ui
{

class ConfigPanel : public QWidget
{
    Q_OBJECT
  public:
    enum class SweepKind { Ledger, Each, Combinations, Custom, Single };

    explicit ConfigPanel(QWidget *parent = nullptr);

    // Offers cpu and cuda:0..count-1; the default shape follows (224 px on a GPU, small on the CPU).
    void setCudaDevices(int count);
    int cudaDevices() const { return cudaDevices_; }

    RunConfig baseConfig() const;                 // shape, device and every ticked knob
    std::vector<std::string> tickedKnobs() const; // knob names of config/presets.h
    bool buildRequest(SweepRequest &request, QString *error, QStringList *skipped = nullptr) const;
    qint64 plannedSteps() const;
    void setRunning(bool running);

    void saveSettings(QSettings &settings) const;
    void loadSettings(const QSettings &settings);

    // For tests and shortcuts.
    QCheckBox *knobBox(const QString &knob) const;
    void setSweepKind(SweepKind kind);
    void setShape(int batch, int imageSize, int warmup, int steps);
    void setDevice(const QString &device);
    void setRepeats(int repeats);
    QPushButton *startButton() const { return start_; }
    QPushButton *stopButton() const { return stop_; }

  Q_SIGNALS:
    void startRequested();
    void stopRequested();
    void plannedStepsChanged(qint64 steps);

  private:
    void updateEnabled();
    void addCustom();

    int cudaDevices_ = 0;
    QComboBox *device_, *runtime_, *sweepKind_, *autocastDtype_, *compile_;
    QCheckBox *tf32_, *cudnn_, *autocast_, *channelsLast_, *graph_, *fused_, *perParameter_, *freshCache_;
    QSpinBox *batch_, *imageSize_, *warmup_, *steps_, *repeats_, *planned_;
    QListWidget *custom_;
    QPushButton *addCustom_, *removeCustom_, *start_, *stop_;
    QLabel *deviceNote_;
    std::vector<RunConfig> customConfigs_;
};

} // namespace stepscope::ui
