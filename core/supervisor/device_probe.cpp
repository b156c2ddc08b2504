#include "supervisor/device_probe.h"

#include "common/blocking_call.h"
#include "supervisor/process_run.h"
#include "supervisor/torch_location.h"
#include "supervisor/worker_command.h"

#include <QEventLoop>
#include <QThread>

#include <memory>

namespace stepscope::supervisor
{
namespace
{

constexpr qsizetype kKeptAnswer = 64 * 1024; // a line per device: far more than any machine has

} // namespace

DeviceProbe::DeviceProbe(QObject *parent) : QObject(parent), runner_(new ProcessRunner(this))
{
    connect(runner_, &ProcessRunner::stdoutLine, this, [this](const QByteArray &line) {
        if (output_.size() < kKeptAnswer)
            output_ += line + '\n';
    });
    connect(runner_, &ProcessRunner::finished, this, &DeviceProbe::onEnded);
}

// A probe still running is killed by its runner, reaped without a wait on the dashboard's thread.
DeviceProbe::~DeviceProbe() = default;

void DeviceProbe::finish(NativeProbe probe)
{
    running_ = false;
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
    if (running_)
        return;
    running_ = true;
    // locateTorch starts a Python and waits for its answer (a tenth of a second, seconds on a cold
    // disk): on a thread of its own, since the caller may be the dashboard's UI thread. The thread
    // answers through its finished signal, which a probe deleted meanwhile no longer hears.
    auto located = std::make_shared<TorchLocation>();
    QThread *lookup = QThread::create([located, configuredPython] { *located = locateTorch(configuredPython); });
    connect(lookup, &QThread::finished, this, [this, located] { startWorker(*located); });
    connect(lookup, &QThread::finished, lookup, &QObject::deleteLater);
    lookup->start();
}

void DeviceProbe::startWorker(const TorchLocation &torch)
{
    if (!torch.usable()) {
        NativeProbe probe;
        probe.torchMissing = true;
        probe.error = problemAndFix(torch.problem, torch.fix);
        finish(probe);
        return;
    }
    output_.clear();
    ProcessLaunch launch;
    launch.program = defaultNativeWorker().program;
    launch.arguments = QStringList{"--cuda-devices"};
    launch.environment = nativeWorkerEnvironment(torch);
    launch.limitMs = kProbeLimitSeconds * 1000;
    launch.graceMs = 0; // a probe stuck in the driver is killed outright
    runner_->start(launch);
}

void DeviceProbe::onEnded(const ProcessEnd &end)
{
    NativeProbe probe;
    if (!end.started()) {
        probe.error = tr("could not start the native worker %1").arg(end.startProblem());
    } else if (end.how == ProcessEnd::How::OverLimit) {
        probe.started = true;
        probe.error = QStringLiteral("no answer within %1 s").arg(kProbeLimitSeconds);
    } else {
        const ProcessRun run = processRun(end, output_);
        probe = cudaDevicesAnswer(run.exitCode, run.output, run.log());
    }
    output_.clear();
    finish(probe);
}

NativeProbe probeNativeWorker(const QString &configuredPython)
{
    blockingCall("probing the native worker for CUDA devices");
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
