#include "supervisor/device_probe.h"

#include "supervisor/torch_location.h"
#include "supervisor/worker_command.h"

#include <QEventLoop>
#include <QProcess>

namespace stepscope::supervisor
{
namespace
{

// The end of the worker's stderr: enough to say why it failed.
QString stderrTail(QProcess &p)
{
    const QString text = QString::fromUtf8(p.readAllStandardError().right(2000)).trimmed();
    return text.isEmpty() ? QStringLiteral("(nothing on stderr)") : text;
}

} // namespace

DeviceProbe::DeviceProbe(QObject *parent) : QObject(parent)
{
    limit_.setParent(this);
    limit_.setSingleShot(true);
    connect(&limit_, &QTimer::timeout, this, [this] {
        if (!process_)
            return;
        process_->disconnect(this);
        process_->kill();
        process_->waitForFinished(5000);
        process_->deleteLater();
        NativeProbe probe;
        probe.started = true;
        probe.error = QStringLiteral("no answer within %1 s").arg(kProbeLimitSeconds);
        finish(probe);
    });
}

DeviceProbe::~DeviceProbe()
{
    if (process_) {
        process_->disconnect(this);
        process_->kill();
        process_->waitForFinished(2000); // a killed process ends at once; never a zombie behind us
    }
}

void DeviceProbe::finish(NativeProbe probe)
{
    limit_.stop();
    process_ = nullptr;
    Q_EMIT answered(probe);
    if (probe.torchMissing) {
        Q_EMIT torchMissing(probe.error);
        return;
    }
    if (!probe.started)
        Q_EMIT failedToStart(probe.error);
    Q_EMIT found(probe.cudaDevices);
}

void DeviceProbe::start(const QString &configuredPython)
{
    if (process_)
        return;
    const TorchLocation torch = locateTorch(configuredPython);
    if (!torch.usable()) {
        NativeProbe probe;
        probe.torchMissing = true;
        probe.error = problemAndFix(torch.problem, torch.fix);
        finish(probe);
        return;
    }
    auto *p = new QProcess(this);
    p->setProcessEnvironment(nativeWorkerEnvironment(torch));
    process_ = p;
    connect(p, &QProcess::finished, this, [this, p](int code, QProcess::ExitStatus status) {
        const NativeProbe probe =
            cudaDevicesAnswer(status == QProcess::NormalExit ? code : -1, p->readAllStandardOutput(), stderrTail(*p));
        p->deleteLater();
        finish(probe);
    });
    connect(p, &QProcess::errorOccurred, this, [this, p](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart)
            return;
        NativeProbe probe;
        probe.error = tr("could not start the native worker %1: %2").arg(p->program(), p->errorString());
        p->deleteLater();
        finish(probe);
    });
    limit_.start(kProbeLimitSeconds * 1000);
    p->start(defaultNativeWorker().program, {"--cuda-devices"});
}

NativeProbe probeNativeWorker(const QString &configuredPython)
{
    DeviceProbe probe;
    NativeProbe answer;
    QEventLoop loop;
    QObject::connect(&probe, &DeviceProbe::answered, &loop, [&](const NativeProbe &a) {
        answer = a;
        loop.quit();
    });
    probe.start(configuredPython);
    if (probe.isRunning())
        loop.exec();
    return answer;
}

NativeProbe cudaDevicesAnswer(int exitCode, const QByteArray &output, const QString &log)
{
    NativeProbe probe;
    probe.started = probe.finished = true;
    probe.exitCode = exitCode;
    if (exitCode != 0) {
        probe.error = QStringLiteral("exit code %1: %2").arg(exitCode).arg(log);
        return probe;
    }
    // The count, then a line per device (index, name, UUID, PCI bus id): sweep_lanes.h.
    const QString out = QString::fromUtf8(output);
    probe.cudaDevices = out.section('\n', 0, 0).trimmed().toInt();
    probe.gpus = parseFoundGpus(out);
    return probe;
}

} // namespace stepscope::supervisor
