#include "supervisor/native_doctor.h"

#include "supervisor/device_probe.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace stepscope::supervisor
{
namespace
{

constexpr const char *kNative = "native worker";

// What the native worker reads of the GPU before a run: driver, clocks and throttle reasons through
// NVML. Clocks that sit low while idle are normal; a throttle reason other than idle is not.
bool gpuRows(const TorchLocation &torch, const WorkerCommand &native, const StopFlag &stop, QList<DoctorItem> &rows)
{
    const ProcessRun run = runProcess(native.program, native.arguments + QStringList{"--probe", "cuda:0"},
                                      nativeWorkerEnvironment(torch), kProbeLimitSeconds * 1000, stop);
    if (run.stopped)
        return false;
    if (!run.succeeded()) {
        rows.append({"gpu state", DoctorStatus::Warn, "the native worker's --probe gave no answer: " + run.log(), {}});
        return true;
    }
    const QJsonObject env = QJsonDocument::fromJson(run.output.trimmed()).object().value("env").toObject();
    auto field = [&](const char *key) { return env.value(key).toString(); };
    if (field("driver").isEmpty())
        rows.append({"driver", DoctorStatus::Warn,
                     "CUDA driver API " + field("cuda_driver_api") + "; NVML not readable",
                     "Install the NVIDIA driver's NVML (libnvidia-ml) so clocks and throttling are recorded."});
    else
        rows.append(
            {"driver", DoctorStatus::Ok, field("driver") + " (CUDA driver API " + field("cuda_driver_api") + ")", {}});
    rows.append(
        {"cuda (LibTorch)", DoctorStatus::Ok, "runtime " + field("cuda_runtime") + ", cuDNN " + field("cudnn"), {}});
    if (field("before_sm_clock_mhz").isEmpty())
        return true;
    const QString reasons = field("before_throttle_reasons");
    const bool throttled = !reasons.isEmpty() && reasons != "none" && reasons != "idle";
    rows.append({"gpu clocks", throttled ? DoctorStatus::Warn : DoctorStatus::Ok,
                 QString("SM %1 of %2 MHz, %3 C, throttle reasons: %4")
                     .arg(field("before_sm_clock_mhz"), field("before_sm_clock_max_mhz"), field("before_temperature_c"),
                          reasons.isEmpty() ? "unknown" : reasons),
                 throttled ? "The GPU is held back (power, heat or set clocks): figures taken now are lower than the "
                             "card can give; check nvidia-smi -q -d PERFORMANCE."
                           : QString()});
    return true;
}

} // namespace

NativeDoctor nativeDoctor(const TorchLocation &torch, const WorkerCommand &native, const QString &device,
                          const StopFlag &stop)
{
    NativeDoctor out;
    out.device = device.isEmpty() ? QStringLiteral("cpu") : device;
    if (!torch.usable()) { // not started: the python or libtorch row says why
        out.items.append({kNative, DoctorStatus::Fail,
                          "not started: " + native.program + " loads LibTorch from the located torch", torch.fix});
        return out;
    }
    const QString fix = "Build it (scripts/build.sh puts it beside stepscope-cli), reinstall Stepscope, or point "
                        "STEPSCOPE_NATIVE_WORKER at it.";
    const ProcessRun run = runProcess(native.program, native.arguments + QStringList{"--cuda-devices"},
                                      nativeWorkerEnvironment(torch), kProbeLimitSeconds * 1000, stop);
    out.stopped = run.stopped;
    if (run.stopped)
        return out;
    if (!run.started) {
        out.items.append({kNative, DoctorStatus::Fail, "cannot start " + native.program + ": " + run.startError, fix});
        return out;
    }
    const QString failed = native.program + " --cuda-devices failed: ";
    if (run.timedOut) {
        out.items.append(
            {kNative, DoctorStatus::Fail, failed + QString("no answer within %1 s").arg(kProbeLimitSeconds), fix});
        return out;
    }
    const NativeProbe probe = cudaDevicesAnswer(run.exitCode, run.output, run.log());
    if (probe.exitCode != 0) {
        out.items.append({kNative, DoctorStatus::Fail, failed + probe.error, fix});
        return out;
    }
    if (device.isEmpty()) // what `run` would pick: CUDA where the native worker sees a device
        out.device = probe.cudaDevices > 0 ? "cuda" : "cpu";
    const QString value = QString("%1 CUDA device(s) seen by LibTorch (%2)").arg(probe.cudaDevices).arg(native.program);
    if (out.device == "cuda" && probe.cudaDevices == 0)
        out.items.append(
            {kNative, DoctorStatus::Warn, value, "No CUDA device: check nvidia-smi and CUDA_VISIBLE_DEVICES."});
    else
        out.items.append({kNative, DoctorStatus::Ok, value, {}});
    if (out.device == "cuda" && probe.cudaDevices > 0)
        out.stopped = !gpuRows(torch, native, stop, out.items);
    return out;
}

} // namespace stepscope::supervisor
