// `doctor`: can this machine run what Stepscope offers? The CLI checks what it owns (itself, the
// native worker, which Python it would use); the Python worker's `--doctor` checks torch,
// torchvision, Triton, the compiler and a tiny torch.compile, one JSON line per item.
#include "cli.h"
#include "cli_options.h"

#include "common/failure.h"
#include "supervisor/start_caches.h"
#include "supervisor/device_probe.h"
#include "supervisor/doctor_items.h"
#include "supervisor/torch_location.h"
#include "supervisor/worker_command.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace stepscope::cli
{
namespace
{

constexpr qsizetype kStderrTail = 2000;

struct Check {
    QString status; // "ok", "warn", "fail"
    QString item, value, fix;
};

QString tail(const QByteArray &bytes)
{
    const QString text = QString::fromUtf8(bytes.right(kStderrTail)).trimmed();
    return text.isEmpty() ? "(nothing on stderr)" : text;
}

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

Check nativeWorkerCheck(const NativeProbe &probe, const QString &device, const supervisor::TorchLocation &torch)
{
    const auto worker = supervisor::defaultNativeWorker();
    if (!torch.usable()) // it was not started: the python or libtorch row says why
        return {"fail", "native worker", "not started: " + worker.program + " loads LibTorch from the located torch",
                torch.fix};
    const QString fix = "Build it (scripts/build.sh puts it beside stepscope-cli), reinstall Stepscope, or point "
                        "STEPSCOPE_NATIVE_WORKER at it.";
    if (!probe.started)
        return {"fail", "native worker", "cannot start " + worker.program + ": " + probe.error, fix};
    if (!probe.finished || probe.exitCode != 0)
        return {"fail", "native worker", worker.program + " --cuda-devices failed: " + probe.error, fix};
    const QString value = QString("%1 CUDA device(s) seen by LibTorch (%2)").arg(probe.cudaDevices).arg(worker.program);
    if (device == "cuda" && probe.cudaDevices == 0)
        return {"warn", "native worker", value, "No CUDA device: check nvidia-smi and CUDA_VISIBLE_DEVICES."};
    return {"ok", "native worker", value, {}};
}

// What the native worker reads of the GPU before a run: driver, clocks and throttle reasons through
// NVML. Clocks that sit low while idle are normal; a throttle reason other than idle is not.
void gpuChecks(int cudaIndex, const supervisor::TorchLocation &torch, std::vector<Check> &checks)
{
    QProcess p;
    p.setProcessEnvironment(supervisor::nativeWorkerEnvironment(torch));
    p.start(supervisor::defaultNativeWorker().program, {"--probe", QString("cuda:%1").arg(cudaIndex)});
    if (!p.waitForFinished(120000) || p.exitCode() != 0) {
        checks.push_back(
            {"warn", "gpu state", "the native worker's --probe gave no answer: " + tail(p.readAllStandardError()), {}});
        return;
    }
    const QJsonObject env =
        QJsonDocument::fromJson(p.readAllStandardOutput().trimmed()).object().value("env").toObject();
    auto field = [&](const char *key) { return env.value(key).toString(); };
    if (field("driver").isEmpty())
        checks.push_back({"warn", "driver", "CUDA driver API " + field("cuda_driver_api") + "; NVML not readable",
                          "Install the NVIDIA driver's NVML (libnvidia-ml) so clocks and throttling are recorded."});
    else
        checks.push_back({"ok", "driver", field("driver") + " (CUDA driver API " + field("cuda_driver_api") + ")", {}});
    checks.push_back({"ok", "cuda (LibTorch)", "runtime " + field("cuda_runtime") + ", cuDNN " + field("cudnn"), {}});
    if (field("before_sm_clock_mhz").isEmpty())
        return;
    const QString reasons = field("before_throttle_reasons");
    const bool throttled = !reasons.isEmpty() && reasons != "none" && reasons != "idle";
    checks.push_back({throttled ? "warn" : "ok", "gpu clocks",
                      QString("SM %1 of %2 MHz, %3 C, throttle reasons: %4")
                          .arg(field("before_sm_clock_mhz"), field("before_sm_clock_max_mhz"),
                               field("before_temperature_c"), reasons.isEmpty() ? "unknown" : reasons),
                      throttled ? "The GPU is held back (power, heat or set clocks): figures taken now are lower "
                                  "than the card can give; check nvidia-smi -q -d PERFORMANCE."
                                : QString()});
}

// Runs the Python worker's --doctor and turns its lines into checks; a silent or broken script is
// a fail line of its own with the end of its log.
void pythonDoctor(const supervisor::WorkerCommand &python, const QString &device, std::vector<Check> &checks)
{
    QProcess p;
    QProcessEnvironment env = supervisor::workerEnvironment();
    // The worker judges the path budget of the caches runs will use, not a default of torch's.
    env.insert("STEPSCOPE_COMPILE_CACHE_ROOT", supervisor::defaultCacheRoot());
    p.setProcessEnvironment(env);
    p.start(python.program, python.arguments + QStringList{"--doctor", "--device", device});
    const bool started = p.waitForStarted(30000);
    const bool finished = started && p.waitForFinished(supervisor::kDoctorLimitMs);
    if (started && !finished) {
        p.kill();
        p.waitForFinished(5000);
    }
    if (!started) {
        checks.push_back({"fail", "python worker", "cannot start " + python.program + ": " + p.errorString(),
                          qs(fixFor(FailureCategory::PythonNotFound))});
        return;
    }
    // The same reading of the worker's lines, and the same closing verdict, as the dashboard's.
    QList<supervisor::DoctorItem> items;
    for (const QByteArray &line : p.readAllStandardOutput().split('\n'))
        if (const auto item = supervisor::parseDoctorLine(line))
            items.append(*item);
    supervisor::DoctorExit exit;
    exit.timedOut = !finished;
    exit.crashed = finished && p.exitStatus() != QProcess::NormalExit;
    exit.exitCode = p.exitCode();
    exit.logTail = tail(p.readAllStandardError());
    exit.command = python.program + " " + python.arguments.join(' ') + " --doctor --device " + device;
    if (const auto verdict = supervisor::doctorVerdict(items, exit))
        items.append(*verdict);
    for (const supervisor::DoctorItem &i : items)
        checks.push_back({i.status, i.item, i.value, i.fix});
}

void printTable(const std::vector<Check> &checks)
{
    int itemWidth = 4;
    for (const auto &c : checks)
        itemWidth = std::max(itemWidth, static_cast<int>(c.item.size()));
    std::printf("%-6s  %-*s  %s\n", "STATUS", itemWidth, "ITEM", "VALUE");
    for (const auto &c : checks) {
        std::printf("%-6s  %-*s  %s\n", qPrintable(c.status), itemWidth, qPrintable(c.item), qPrintable(c.value));
        if (c.status != "ok" && !c.fix.isEmpty())
            std::printf("%-6s  %-*s  fix: %s\n", "", itemWidth, "", qPrintable(c.fix));
    }
}

} // namespace

int doctorCommand(const Options &, const CommandLine &line)
{
    QString device = line.value("device");
    const QString python = line.value("python");
    if (!device.isEmpty() && device != "cpu" && device != "cuda") {
        std::fprintf(stderr, "stepscope-cli doctor: device '%s' is not allowed; use cpu or cuda\n", qPrintable(device));
        return kUsage;
    }

    std::vector<Check> checks;
    checks.push_back({"ok", "stepscope", QString("stepscope-cli %1").arg(STEPSCOPE_VERSION), {}});
    // Which Python and which LibTorch both workers use, and why those (torch_location.h).
    const supervisor::TorchLocation torch = supervisor::locateTorch(python);
    for (const supervisor::DoctorItem &i : supervisor::torchDoctorItems(torch))
        checks.push_back({i.status, i.item, i.value, i.fix});
    const NativeProbe probe = probeNativeWorker(python);
    if (device.isEmpty()) // what `run` would pick: CUDA where the native worker sees a device
        device = probe.cudaDevices > 0 ? "cuda" : "cpu";
    checks.push_back(nativeWorkerCheck(probe, device, torch));
    if (device == "cuda" && probe.cudaDevices > 0)
        gpuChecks(0, torch, checks);

    const supervisor::WorkerCommand worker = supervisor::defaultPythonWorker(python);
    if (!worker.program.isEmpty()) { // else the python row above says what was tried
        const QString script = worker.arguments.value(1);
        if (!QFileInfo::exists(script))
            checks.push_back({"fail", "python worker", script + " is missing",
                              "Rebuild (the build copies stepscope_worker.py beside the binaries), reinstall "
                              "Stepscope (it belongs in share/stepscope/python beside bin/), or point "
                              "STEPSCOPE_PYTHON_WORKER at it."});
        else {
            // Said before the wait, so that a silent minute does not look like a hang, and after it.
            std::fprintf(stderr,
                         "stepscope-cli doctor: asking the Python worker on %s: it imports torch and times a tiny "
                         "torch.compile, 5 s to a minute or two on a cold start (stopped after %d min)...\n",
                         qPrintable(device), supervisor::kDoctorLimitMs / 60000);
            QElapsedTimer clock;
            clock.start();
            pythonDoctor(worker, device, checks);
            std::fprintf(stderr, "stepscope-cli doctor: the Python worker answered in %.1f s\n",
                         static_cast<double>(clock.elapsed()) / 1000.0);
        }
    }
    printTable(checks);
    const bool failed = std::any_of(checks.begin(), checks.end(), [](const Check &c) { return c.status == "fail"; });
    return failed ? kRunsFailed : kOk;
}

} // namespace stepscope::cli
