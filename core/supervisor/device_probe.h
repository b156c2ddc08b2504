#pragma once
// Asks the native worker how many CUDA devices LibTorch sees (`stepscope-worker --cuda-devices`),
// for both front-ends, with one limit: a worker that does not answer within kProbeLimitSeconds is
// killed and counts as none (a driver stuck in initialisation must not hang the CLI nor leave the
// dashboard waiting forever). Asynchronous (DeviceProbe, signals only: nothing it does waits on the
// caller's thread, the dashboard's UI thread), or blocking for the CLI (probeNativeWorker, the same
// object in a local event loop).
#include "supervisor/process_runner.h"
#include "supervisor/sweep_lanes.h"

#include <QByteArray>
#include <QObject>
#include <QString>

namespace stepscope::supervisor
{

inline constexpr int kProbeLimitSeconds = 120;

struct TorchLocation;

// What the probe learnt: whether the worker ran, and the CUDA devices LibTorch sees.
struct NativeProbe {
    bool started = false, finished = false;
    // No usable torch: the worker, which runs on torch's LibTorch, was not asked, and nothing is
    // known of CUDA (`error` says why and what to do).
    bool torchMissing = false;
    int exitCode = -1;
    int cudaDevices = 0;
    std::vector<FoundGpu> gpus; // each of them: a sweep over several GPUs groups them by model
    QString error;              // why it did not answer
};

class DeviceProbe : public QObject
{
    Q_OBJECT
  public:
    explicit DeviceProbe(QObject *parent = nullptr);
    ~DeviceProbe() override;

    // Starts the probe with the LibTorch of the torch locateTorch(configuredPython) finds (the one runs
    // will use) and returns at once: the lookup, which starts a Python, runs on a thread of its own.
    // A probe under way is left to finish. Without a usable torch the worker is not started: the
    // answer says why and what to do. Every signal comes from the event loop, never from start().
    void start(const QString &configuredPython = {});
    bool isRunning() const { return running_; }

  Q_SIGNALS:
    // The whole answer, then its parts: the devices found (0 when the worker answered nothing
    // usable), and, when the worker did not start or answer, why. Without a usable torch only
    // torchMissing follows the answer: no count, since none was asked for.
    void answered(const stepscope::supervisor::NativeProbe &probe);
    void found(int count);
    void failedToStart(const QString &message);
    void torchMissing(const QString &problemAndFix);

  private:
    void startWorker(const TorchLocation &torch);
    void onEnded(const ProcessEnd &end);
    void finish(NativeProbe probe);

    ProcessRunner *const runner_;
    bool running_ = false; // from start() until answered
    QByteArray output_;    // the worker's stdout: the count and a line per device
};

// The same probe, waited for.
NativeProbe probeNativeWorker(const QString &configuredPython = {});

// What a `--cuda-devices` run that ended with `exitCode` (-1: by a signal) says: the count, then a
// line per device; or why it says nothing (`log`: the end of its stderr). Read the same way by the
// probe and by the doctor (native_doctor.h).
NativeProbe cudaDevicesAnswer(int exitCode, const QByteArray &output, const QString &log);

} // namespace stepscope::supervisor
