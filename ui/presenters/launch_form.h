#pragma once
// What the launcher (launcher.h) asks of the form the user fills in to start a sweep: the request it
// builds, the Python it names, and the state the launcher hands back (running, progress, the devices
// the probe found). The configuration panel is that form; the launcher sees only this, so the
// presenters floor never includes a widget and a test can hand the launcher a form of its own.
#include "supervisor/sweep_lanes.h"
#include "supervisor/sweep_request.h"

#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

class QSettings;

namespace stepscope::supervisor
{
class TimeLeft;
}

namespace stepscope::ui
{

class LaunchForm
{
  public:
    virtual ~LaunchForm() = default;

    // The sweep the form asks for; false with `error` when it cannot be built. `skipped` lists the
    // configurations it left out and why.
    virtual bool buildRequest(supervisor::SweepRequest &request, QString *error,
                              QStringList *skipped = nullptr) const = 0;
    virtual QString pythonInterpreter() const = 0;
    // A sweep runs (the form locks and shows Stop), or none does.
    virtual void setRunning(bool running) = 0;
    // The running sweep's fraction done and time left (< 0: not known yet).
    virtual void setProgress(double fraction, qint64 secondsLeft, bool guess) = 0;
    // Earlier runs' times, for the planned run's estimate.
    virtual void setRunTimes(std::shared_ptr<const supervisor::TimeLeft> times) = 0;
    // What the device probe found: the CUDA devices and GPUs, or why nothing is known of them.
    virtual void setCudaDevices(int count) = 0;
    virtual void setDevicesUnknown(const QString &note) = 0;
    virtual void setGpus(std::vector<supervisor::FoundGpu> gpus) = 0;
    virtual int cudaDevices() const = 0;
    virtual const std::vector<supervisor::FoundGpu> &gpus() const = 0;
    // The form's settings of last time, once the devices are known.
    virtual void loadSettings(const QSettings &settings) = 0;
    // A stored sweep's settings shown read-only, and leaving that view for the form's own.
    virtual bool viewingSweep() const = 0;
    virtual void leaveSweepView() = 0;
};

} // namespace stepscope::ui
