#include "controller/device_probe.h"

#include "supervisor/worker_command.h"

#include <QProcess>

namespace stepscope::ui
{

DeviceProbe::DeviceProbe(QObject *parent) : QObject(parent) {}

DeviceProbe::~DeviceProbe()
{
    if (process_) {
        process_->disconnect(this);
        process_->kill();
        process_->waitForFinished(2000); // a killed process ends at once; never a zombie behind us
    }
}

void DeviceProbe::start()
{
    if (process_)
        return;
    auto *probe = new QProcess(this);
    process_ = probe;
    connect(probe, &QProcess::finished, this, [this, probe](int code, QProcess::ExitStatus) {
        const int count = code == 0 ? probe->readAllStandardOutput().trimmed().toInt() : 0;
        probe->deleteLater();
        process_ = nullptr;
        Q_EMIT found(count);
    });
    connect(probe, &QProcess::errorOccurred, this, [this, probe](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart)
            return;
        const QString message =
            tr("Could not start the native worker %1: %2").arg(probe->program(), probe->errorString());
        probe->deleteLater();
        process_ = nullptr;
        Q_EMIT failedToStart(message);
        Q_EMIT found(0);
    });
    probe->start(supervisor::defaultNativeWorker().program, {"--cuda-devices"});
}

} // namespace stepscope::ui
