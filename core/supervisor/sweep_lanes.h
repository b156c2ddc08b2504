#pragma once
// The devices of a sweep over several GPUs (issue 21): which ones `--devices` names, and how a host
// with GPUs of more than one model is split, since the repeats of a configuration are only repeats
// on one model. The runner (sweep_runner.h) runs one lane per device.
#include <QString>
#include <QStringList>

#include <vector>

namespace stepscope::supervisor
{

// One device of a sweep over several (RunnerOptions::lanes).
struct LaneDevice {
    QString device;     // what the worker is given: "cuda:1"; "cpu" for a CPU slot (tests, CPU-only hosts)
    QString label;      // how people see it: "cuda:1", "cpu slot 2"
    QString model;      // repeats of a configuration stay on one model ("NVIDIA H200"; "cpu")
    QString uuid;       // the GPU's UUID; empty for a CPU slot
    int cudaIndex = -1; // N of cuda:N as the probe saw it; -1 for a CPU slot
};

// A GPU as the native worker's probe lists it (`stepscope-worker --cuda-devices`).
struct FoundGpu {
    int index = 0;
    QString name, uuid, pciBusId;
    long long memoryMib = 0;
};

// The probe's output: the count, then one tab-separated line per device. Lines it cannot read are
// skipped; a worker of an older build prints the count alone (devices then named "GPU N").
std::vector<FoundGpu> parseFoundGpus(const QString &probeOutput);

// The lanes `text` names: "cuda:0,cuda:1", "all" (every GPU found), "cpu:0,cpu:1" (CPU slots: a
// test's or a CPU-only host's; they share the cores, so their figures are not independent). Empty
// with `problem` set when the text names a device twice, one that is not there, or mixes the CPU
// with GPUs.
std::vector<LaneDevice> parseLanes(const QString &text, const std::vector<FoundGpu> &found, QString &problem);

// The lanes grouped by model, the largest group first (ties: the first device's). A sweep runs on
// one group; the others are said plainly (splitNote) and left to a sweep of their own.
std::vector<std::vector<LaneDevice>> groupByModel(const std::vector<LaneDevice> &lanes);
// "cuda:2 (NVIDIA A100) left out: ..." for every group after the first; empty for one group.
QString splitNote(const std::vector<std::vector<LaneDevice>> &groups);

// "cuda:0,cuda:1", as --devices takes it back.
QString lanesText(const std::vector<LaneDevice> &lanes);

} // namespace stepscope::supervisor
