#pragma once
// The doctor's rows about the native worker (doctor_service.h puts them after the python and
// libtorch rows): whether it starts with the located LibTorch and how many CUDA devices that sees
// (--cuda-devices), and on CUDA the GPU as a run finds it (--probe: driver, clocks, throttling).
#include "supervisor/doctor_items.h"
#include "supervisor/process_run.h"
#include "supervisor/torch_location.h"
#include "supervisor/worker_command.h"

#include <QList>
#include <QString>

namespace stepscope::supervisor
{

struct NativeDoctor {
    QList<DoctorItem> items;
    QString device;       // the one asked about: as requested, else CUDA where LibTorch sees a device
    bool stopped = false; // the stop flag went up: the rows stop short
};

// `device`: "cpu", "cuda", or empty for what a run would pick. Without a usable torch the worker is
// not started (the python or libtorch row says why); its row says so.
NativeDoctor nativeDoctor(const TorchLocation &torch, const WorkerCommand &native, const QString &device,
                          const StopFlag &stop = {});

} // namespace stepscope::supervisor
