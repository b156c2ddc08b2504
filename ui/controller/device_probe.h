#pragma once
// Asks the native worker how many CUDA devices LibTorch sees (`stepscope-worker --cuda-devices`),
// without blocking the UI thread: an asynchronous QProcess, signals only. A worker that cannot
// start counts as none, and says why.
#include <QObject>
#include <QPointer>
#include <QString>

class QProcess;

namespace stepscope::ui
{

class DeviceProbe : public QObject
{
    Q_OBJECT
  public:
    explicit DeviceProbe(QObject *parent = nullptr);
    ~DeviceProbe() override;

    // Starts the probe; a probe under way is left to finish.
    void start();
    bool isRunning() const { return process_ != nullptr; }

  Q_SIGNALS:
    // CUDA devices found (0 when the worker answered nothing usable).
    void found(int count);
    // The worker did not start; found(0) follows.
    void failedToStart(const QString &message);

  private:
    QPointer<QProcess> process_;
};

} // namespace stepscope::ui
