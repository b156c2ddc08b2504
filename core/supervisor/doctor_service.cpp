#include "supervisor/doctor_service.h"

#include "supervisor/leftovers.h"
#include "supervisor/native_doctor.h"
#include "supervisor/start_caches.h"

#include <QFile>
#include <QFileInfo>

#include <algorithm>

namespace stepscope::supervisor
{
namespace
{

// The Python worker's --doctor, its lines rows as they come, then its verdict.
void askPython(const WorkerCommand &python, const QString &device, const DoctorProgress &progress,
               const std::function<void(const DoctorItem &)> &add, DoctorReport &report)
{
    if (python.program.isEmpty()) // the python row says what was tried
        return;
    const QString script = python.arguments.value(1);
    if (!QFileInfo::exists(script)) {
        add({"python worker", DoctorStatus::Fail, script + " is missing",
             "Rebuild (the build copies stepscope_worker.py beside the binaries), reinstall Stepscope (it belongs "
             "in share/stepscope/python beside bin/), or point STEPSCOPE_PYTHON_WORKER at it."});
        return;
    }
    if (progress.askingPython)
        progress.askingPython(device);
    QProcessEnvironment env = workerEnvironment();
    // The worker judges the path budget of the caches runs will use, not a default of torch's.
    env.insert("STEPSCOPE_COMPILE_CACHE_ROOT", defaultCacheRoot());
    QList<DoctorItem> said;
    const ProcessRun run = runProcess(python.program, python.arguments + QStringList{"--doctor", "--device", device},
                                      env, kDoctorLimitMs, progress.stop, [&](const QByteArray &line) {
                                          if (const auto item = parseDoctorLine(line)) {
                                              said.append(*item);
                                              add(*item);
                                          }
                                      });
    report.stopped = run.stopped;
    if (run.stopped)
        return;
    if (const auto verdict = doctorVerdict(said, run))
        add(*verdict);
}

// What killed sweeps left here, cleared as the next sweep would: the doctor is where a user looks
// when a disk fills up.
DoctorItem leftoversItem(const DoctorRequest &request)
{
    const auto found = leftovers::clearLeftovers(leftovers::placesOf(
        QFile::encodeName(request.database).toStdString(), QFile::encodeName(request.cacheRoot).toStdString()));
    const bool failed = std::any_of(found.begin(), found.end(), [](const leftovers::Found &f) {
        return f.owner == leftovers::Owner::Gone && !f.removed;
    });
    const bool unowned = std::any_of(found.begin(), found.end(),
                                     [](const leftovers::Found &f) { return f.owner == leftovers::Owner::Unknown; });
    return {"leftovers", failed || unowned ? DoctorStatus::Warn : DoctorStatus::Ok,
            QString::fromStdString(leftovers::describe(found)),
            failed ? "Remove the folders named by hand (check their permissions)."
            : unowned
                ? "Folders without an owner file come from an older Stepscope: remove them by hand when no sweep runs."
                : QString()};
}

} // namespace

DoctorRequest doctorRequest(const QString &self, const QString &configuredPython, const QString &device)
{
    DoctorRequest request{self, locateTorch(configuredPython), defaultNativeWorker(),
                          defaultPythonWorker(configuredPython), device};
    request.cacheRoot = defaultCacheRoot();
    return request;
}

DoctorReport runDoctor(const DoctorRequest &request, const DoctorProgress &progress)
{
    DoctorReport report;
    const auto add = [&](const DoctorItem &item) {
        report.items.append(item);
        if (progress.item)
            progress.item(item);
    };
    if (!request.self.isEmpty())
        add({"stepscope", DoctorStatus::Ok, request.self, {}});
    for (const DoctorItem &item : torchDoctorItems(request.torch))
        add(item);
    add(leftoversItem(request));
    const NativeDoctor native = nativeDoctor(request.torch, request.native, request.device, progress.stop);
    for (const DoctorItem &item : native.items)
        add(item);
    report.device = native.device;
    report.stopped = native.stopped;
    if (!report.stopped)
        askPython(request.python, report.device, progress, add, report);
    return report;
}

} // namespace stepscope::supervisor
