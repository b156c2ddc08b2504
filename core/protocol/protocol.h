#pragma once
// The worker protocol of DESIGN.md: one JSON object per line on the worker's stdout, stderr is the
// log. Both workers (C++ and Python) write it; the supervisor reads it with parseLine().
//
//   {"type":"hello","protocol":1,"env":{"gpu":"...","torch":"...",...}}
//   {"type":"model","description":"timm:resnet50 (25.6 M parameters, ...)","parameters":25557032,
//    "forward_flops":1.3e11,"training_flops":3.9e11,"flops_source":"torch.utils.flop_counter"}
//       (before ready; "flops_problem":"..." instead of the FLOPs when they could not be counted;
//       workers of before issue 30.4 never send it)
//   {"type":"ready","setup_s":1.9}
//   {"type":"first_step","wall_s":0.41}
//   {"type":"steps","first":2,"gpu_ms":[14.1,...],"wall_ms":[14.3,...]}   (gpu_ms empty on CPU)
//   {"type":"rank_steps","rank":1,"first":2,"gpu_ms":[...],"wall_ms":[...]}   (world_size > 1: one rank's
//       own steps; `steps` then holds the slowest rank of each step)
//   {"type":"gpu_state","state":{"sm_clock_mhz":"1980","throttle_reasons":"none",...}}  (CUDA + NVML)
//   {"type":"memory","peak_allocated":123,"peak_reserved":456}
//   {"type":"energy","first_step_j":812.0,"first_step_s":2.41,"block_j":362.9,"block_s":0.914,"block_steps":100}
//   {"type":"energy","problem":"no energy counter: ..."}   (after the timed steps; common/energy.h)
//   {"type":"check","losses":[6.9,6.8,...]}
//   {"type":"phase","phase":"compiling","elapsed_s":12.0}   (life during a long first step)
//   {"type":"compile","info":{"mode":"default","graphs":1,...}}   (python worker, after compiling)
//   {"type":"profile","steps":20,"wall_ms":98.1,"trace":"/path/run-7.json","profiler_gflop":109.2}
//   {"type":"profile","steps":20,"problem":"the profiler failed: ..."}   (after the timed steps)
//   {"type":"memory_snapshot","kind":"step","snapshot":"/path/memory.pickle"}   (CUDA, after the timed
//       steps and before the profile: one step with the allocator's history, the pickle memory_viz opens)
//   {"type":"memory_snapshot","kind":"step","problem":"no memory timeline on the CPU"}
//   {"type":"memory_snapshot","kind":"out-of-memory","snapshot":"/path/memory.pickle"}   (the allocator's
//       state as the run failed out of memory, right before its `error`; profile/memory_timeline.h)
//   {"type":"done","steps":111,"mean_wall_ms":14.2}
//   {"type":"error","category":"out-of-memory","message":"...","detail":"..."}
#include "common/energy.h"
#include "common/failure.h"
#include "common/model_facts.h"
#include "profile/memory_timeline.h"

#include <QByteArray>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stepscope::protocol
{

constexpr int kVersion = 1;

struct Message {
    enum class Type {
        Hello,
        Model,
        Ready,
        FirstStep,
        Steps,
        RankSteps,
        GpuState,
        Memory,
        Energy,
        Check,
        Phase,
        Compile,
        Profile,
        MemorySnapshot,
        Done,
        Error,
        Invalid
    };
    Type type = Type::Invalid;
    int protocolVersion = 0;
    std::vector<std::pair<std::string, std::string>> environment; // hello; gpu_state: the state
    QByteArray environmentJson;                                   // hello, as received
    ModelFacts model;                                             // model
    double seconds = 0;                                           // ready, first_step; phase: elapsed
    std::string phase;                                            // phase: "compiling", "capturing", ...
    QByteArray compileJson;                                       // compile: the info object, compact
    int firstIndex = 0;                                           // steps, rank_steps
    int rank = 0;                                                 // rank_steps
    std::vector<double> gpuMs, wallMs;                            // steps
    std::int64_t peakAllocated = 0, peakReserved = 0;             // memory
    EnergyReading energy;                                         // energy
    std::vector<double> losses;                                   // check
    int steps = 0;                                                // done; profile: profiled steps
    double profileWallMs = 0;                                     // profile: the profiled steps' wall time
    std::string tracePath;                                        // profile: the trace written
    std::optional<double> profilerGflop;                          // profile: FLOP counters per step
    std::string profileProblem;                                   // profile: why there is none
    profile::SnapshotKind snapshotKind = profile::SnapshotKind::Step; // memory_snapshot
    std::string snapshotPath;                                     // memory_snapshot: the pickle written
    std::string snapshotProblem;                                  // memory_snapshot: why there is none
    double meanWallMs = 0;                                        // done
    Failure failure;                                              // error
    std::string problem;                                          // invalid: why the line was refused
};

// Never throws: a line that is not a valid message comes back as Type::Invalid with `problem` set.
Message parseLine(const QByteArray &line);

// Writers (one line each, with the trailing newline).
QByteArray helloLine(const std::vector<std::pair<std::string, std::string>> &environment);
QByteArray modelLine(const ModelFacts &facts);
QByteArray readyLine(double setupSeconds);
QByteArray firstStepLine(double wallSeconds);
QByteArray stepsLine(int firstIndex, const std::vector<double> &gpuMs, const std::vector<double> &wallMs);
QByteArray rankStepsLine(int rank, int firstIndex, const std::vector<double> &gpuMs, const std::vector<double> &wallMs);
QByteArray gpuStateLine(const std::vector<std::pair<std::string, std::string>> &state);
QByteArray memoryLine(std::int64_t peakAllocated, std::int64_t peakReserved);
QByteArray energyLine(const EnergyReading &energy);
QByteArray checkLine(const std::vector<double> &losses);
QByteArray phaseLine(const std::string &phase, double elapsedSeconds);
QByteArray compileLine(const QByteArray &infoJson); // infoJson: a JSON object
QByteArray profileLine(int steps, double wallMs, const std::string &tracePath, std::optional<double> profilerGflop,
                       const std::string &problem);
QByteArray memorySnapshotLine(profile::SnapshotKind kind, const std::string &snapshotPath, const std::string &problem);
QByteArray doneLine(int steps, double meanWallMs);
QByteArray errorLine(const Failure &failure);

} // namespace stepscope::protocol
