#pragma once
// A sweep with torch.compile runs, written through the store as the supervisor would: a native
// baseline, Python eager, compile default with a cold and a warm cache, and a compile that fell
// back to eager (compiled=false, failed compile-failed). Every figure is known in advance:
//   native baseline  first 0.5 s, steady 10 ms
//   python eager     first 0.6 s, steady 10.5 ms
//   compile cold     first 30 s,  steady 8 ms  -> break-even vs baseline 1 + 29.5 / 0.002 = 14751
//   compile warm     first 3 s,   steady 8 ms  -> 1 + 2.5 / 0.002 = 1251
#include "config/config_json.h"
#include "store/store.h"
#include "stored_sweep.h"

#include <optional>
#include <string>
#include <vector>

namespace stepscope::test
{

inline const char *kNotCompiledReason = "dynamo captured no graph: the step ran eager";

struct CompiledSpec {
    RunConfig config;
    double firstS = 0, steadyMs = 0;
    std::string compileJson;
    store::StartState start = store::StartState::Unrecorded; // the run's start state
    std::string cacheDirs;
    std::optional<Failure> failure;
};

inline RunConfig cpuShape()
{
    RunConfig c;
    c.device = "cpu";
    c.batch = 8;
    c.imageSize = 64;
    c.classes = 10;
    c.warmupSteps = 5;
    c.steps = 60;
    return c;
}

inline RunConfig compiledConfig(CompileMode mode)
{
    RunConfig c = cpuShape();
    c.runtime = Runtime::Python;
    c.compile = mode;
    return c;
}

// Step 1, five warm-up steps far from the steady time, then 60 steady steps with a small
// symmetric wobble: the detected window is exactly the 60, their median exactly `steadyMs`.
inline std::vector<store::StepRow> compiledSteps(double firstS, double steadyMs)
{
    std::vector<store::StepRow> rows;
    std::int64_t index = 1;
    rows.push_back({index++, std::nullopt, firstS * 1000});
    for (double w : {3.0, 2.5, 2.0, 1.6, 1.3})
        rows.push_back({index++, std::nullopt, steadyMs * w});
    const double pattern[] = {-1.0, -0.5, 0.0, 0.5, 1.0};
    for (int i = 0; i < 60; ++i)
        rows.push_back({index++, std::nullopt, steadyMs * (1.0 + 0.01 * pattern[(i * 3) % 5])});
    return rows;
}

inline std::vector<CompiledSpec> compiledSpecs()
{
    const std::string coldInfo =
        R"j({"mode":"default","backend":"inductor","target":"model","cache":"cold","compile_s":28.5,)j"
        R"j("phases":{"dynamo_tracing_s":2.25,"aot_autograd_s":3.5,"inductor_backward_s":12.75},)j"
        R"j("graphs":1,"graph_breaks":1,"break_reasons":["Unsupported: call_function print"],"recompiles":0,)j"
        R"j("cudagraph_skips":[],"fx_graph_cache":{"miss":2},"compiled":true,"fallback_reason":""})j";
    const std::string warmInfo =
        R"j({"mode":"default","backend":"inductor","target":"model","cache":"warm","compile_s":1.25,)j"
        R"j("phases":{"dynamo_tracing_s":0.5},"graphs":1,"graph_breaks":0,"break_reasons":[],"recompiles":0,)j"
        R"j("cudagraph_skips":[],"fx_graph_cache":{"hit":2},"compiled":true,"fallback_reason":""})j";
    const std::string eagerInfo =
        std::string(R"j({"mode":"max-autotune-no-cudagraphs","backend":"inductor","target":"model","cache":"cold",)j") +
        R"j("compile_s":0.5,"phases":{},"graphs":0,"graph_breaks":0,"break_reasons":[],"recompiles":0,)j" +
        R"j("cudagraph_skips":[],"compiled":false,"fallback_reason":")j" + kNotCompiledReason + R"j("})j";
    RunConfig eager = cpuShape();
    eager.runtime = Runtime::Python;
    return {
        {cpuShape(), 0.5, 10.0, {}, {}, {}, std::nullopt},
        {eager, 0.6, 10.5, {}, {}, {}, std::nullopt},
        {compiledConfig(CompileMode::Default), 30.0, 8.0, coldInfo, store::StartState::Fresh,
         R"j({"TORCHINDUCTOR_CACHE_DIR":"/nonexistent/cc/cold-a1/inductor","TRITON_CACHE_DIR":"/nonexistent/cc/cold-a1/triton"})j",
         std::nullopt},
        {compiledConfig(CompileMode::Default), 3.0, 8.0, warmInfo, store::StartState::Again,
         R"j({"TORCHINDUCTOR_CACHE_DIR":"/nonexistent/cc/warm/inductor","TRITON_CACHE_DIR":"/nonexistent/cc/warm/triton"})j",
         std::nullopt},
        {compiledConfig(CompileMode::MaxAutotuneNoCudagraphs), 0, 0, eagerInfo, store::StartState::Fresh, "{}",
         Failure{FailureCategory::CompileFailed, std::string("torch.compile fell back to eager: ") + kNotCompiledReason,
                 "compile log: dynamo counters frames ok 0"}},
    };
}

inline std::int64_t writeCompileSweep(store::Database &db)
{
    SweepSpec sweep("compile sweep", "ledger", 10000);
    sweep.settingsJson = R"j({"device":"cpu","batch":8,"image_size":64,"steps":60,"warmup_steps":5,"repeats":1})j";
    sweep.status = store::SweepStatus::Running;
    const auto sweepId = addSweep(db, sweep);
    std::int64_t position = 0;
    for (const auto &spec : compiledSpecs()) {
        RunSpec run = runOf(spec.config, position++);
        run.setupS = 2.5;
        run.caches = spec.start;
        run.cacheDirs = spec.cacheDirs;
        run.compileJson = spec.compileJson;
        if (spec.failure) {
            run.status = RunStatus::Failed;
            run.failure = spec.failure;
        } else {
            run.firstS = spec.firstS;
            run.steps = compiledSteps(spec.firstS, spec.steadyMs);
        }
        addRun(db, sweepId, run);
    }
    db.finishSweep(sweepId, store::SweepStatus::Complete);
    db.flush();
    return sweepId;
}

} // namespace stepscope::test
