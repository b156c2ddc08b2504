#pragma once
// The doctor of both front-ends: can this machine run what Stepscope offers? One ordered list of
// rows, shown alike by `stepscope-cli doctor` and the dashboard's Environment page: who asks, which
// Python and LibTorch (torchDoctorItems), what killed sweeps left (leftovers.h), the native worker
// (native_doctor.h), then the Python worker's own --doctor (torch, torchvision, Triton, a C++
// compiler, cache paths, a tiny torch.compile) and its closing verdict (doctorVerdict).
//
// A blocking function, not an asynchronous QObject: the checks are a chain of short processes, each
// deciding the next (the device a run would pick comes from the native worker's answer, the GPU is
// probed only where LibTorch sees one), and locating torch runs the Python itself. Written straight,
// the CLI calls it as it is; the dashboard calls it on a thread of its own (ui/controller/
// doctor_job.h, QtConcurrent as its other background work), which also takes the torch lookup off the
// UI thread. As signals it would be a state machine of four processes for the same rows. Rows are
// handed over as they come (the Python worker's take seconds: its compile), and the stop flag ends
// the process under way within a tenth of a second.
#include "supervisor/doctor_items.h"
#include "supervisor/process_run.h"
#include "supervisor/torch_location.h"
#include "supervisor/worker_command.h"

#include <QList>
#include <QString>

#include <functional>

namespace stepscope::supervisor
{

struct DoctorRequest {
    QString self;         // the first row: the program asking, with its version; none when empty
    TorchLocation torch;  // which Python and LibTorch both workers use (locateTorch)
    WorkerCommand native; // defaultNativeWorker()
    WorkerCommand python; // defaultPythonWorker(): {interpreter, {"-u", script}}; a missing script is a row
    QString device;       // "cpu", "cuda", or empty: what a run would pick (CUDA where LibTorch sees a device)
    // Where killed sweeps may have left folders (leftovers.h): the cache root (defaultCacheRoot()),
    // the database whose traces folder is looked at (empty: none) and the temporary folder. The
    // "leftovers" row says what was found, and what was removed.
    QString cacheRoot = {};
    QString database = {};
};

// The request for the workers a run with `configuredPython` (empty: choosePython's order) would use.
// Locating torch starts that Python: never on a UI thread.
DoctorRequest doctorRequest(const QString &self, const QString &configuredPython, const QString &device);

struct DoctorProgress {
    std::function<void(const DoctorItem &)> item; // each row, in order, once it is known
    // Before the Python worker is asked (seconds to minutes: its tiny compile), with the device.
    std::function<void(const QString &device)> askingPython;
    StopFlag stop; // up: the process under way is killed and no more rows come
};

struct DoctorReport {
    QList<DoctorItem> items;
    QString device;       // the device asked about
    bool stopped = false; // the stop flag ended it: the rows stop short
};

DoctorReport runDoctor(const DoctorRequest &request, const DoctorProgress &progress = {});

} // namespace stepscope::supervisor
