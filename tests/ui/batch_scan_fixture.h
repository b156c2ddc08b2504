#pragma once
// A batch scan (--batch 2,4) whose every configuration ran fresh and again, written through the
// store as the supervisor would (issue 35.4 and 35.6). Figures known in advance:
//   batch 2  baseline       fresh 2 s, again 0.5 s, steady 10 ms
//            channels-last  fresh 4 s, again 1 s,   steady 8 ms
//   batch 4  baseline       fresh 3 s, again 0.75 s, steady 20 ms
//            channels-last  fresh 6 s, again 1.5 s,  steady 12 ms
#include "compile_sweep_fixture.h"

namespace stepscope::test
{

inline std::int64_t writeBatchScanSweep(store::Database &db)
{
    SweepSpec sweep("batch scan", "ledger", 10000);
    sweep.settingsJson = R"j({"device":"cpu","batch":2,"image_size":64,"steps":60,"warmup_steps":5,"repeats":1})j";
    RunConfig base = cpuShape();
    base.batch = 2;
    sweep.baseline = canonicalName(base);
    const auto sweepId = addSweep(db, sweep);
    std::int64_t position = 0;
    for (const int batch : {2, 4}) {
        for (const bool channelsLast : {false, true}) {
            RunConfig c = cpuShape();
            c.batch = batch;
            c.channelsLast = channelsLast;
            const double scale = batch == 2 ? 1.0 : 1.5;
            const double freshS = (channelsLast ? 4.0 : 2.0) * scale;
            const double steadyMs = batch == 2 ? (channelsLast ? 8.0 : 10.0) : (channelsLast ? 12.0 : 20.0);
            for (const store::StartState state : {store::StartState::Fresh, store::StartState::Again}) {
                RunSpec run = runOf(c, position++);
                run.caches = state;
                run.firstS = state == store::StartState::Fresh ? freshS : freshS / 4;
                run.steps = compiledSteps(*run.firstS, steadyMs);
                addRun(db, sweepId, run);
            }
        }
    }
    db.finishSweep(sweepId, store::SweepStatus::Complete);
    return sweepId;
}

} // namespace stepscope::test
