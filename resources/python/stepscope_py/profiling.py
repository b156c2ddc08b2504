"""The profile of a run (core/engine/engine.h, ProfileRequest): K more steps under torch.profiler
after the timed ones, so that the profiler's cost never sits inside a timed step. The steps and a
synchronize after them run inside one annotation, the window the supervisor reads
(core/profile/trace_summary.h). A profile that fails says why and never fails the run."""
import time

import torch

from . import protocol

ANNOTATION = "stepscope::profiled_steps"


def _outermost_flops(events):
    """FLOPs of ops not inside another counted op of their thread: autocast dispatches aten::conv2d
    to aten::conv2d, the same work twice (core/engine/step_profile.cpp does the same)."""
    counted = sorted(((e.thread, e.time_range.start, -e.time_range.end, e.flops) for e in events
                      if getattr(e, "flops", 0)))
    total, covered = 0, None
    for thread, start, neg_end, flops in counted:
        if covered and covered[0] == thread and start < covered[1]:
            continue
        total += flops
        covered = (thread, -neg_end)
    return total


def profile_steps(step, device, steps, trace_path):
    from torch.profiler import ProfilerActivity, profile, record_function

    activities = [ProfilerActivity.CPU]
    if device.type == "cuda":
        activities.append(ProfilerActivity.CUDA)
    try:
        # FLOP counters on: the profile checks the layer count of core/report/compute.h against them.
        with profile(activities=activities, record_shapes=True, with_flops=True) as prof:
            t0 = time.perf_counter()
            with record_function(ANNOTATION):
                for _ in range(steps):
                    step.step()
                if device.type == "cuda":
                    torch.cuda.synchronize(device)
            wall_ms = (time.perf_counter() - t0) * 1000.0
        flops = _outermost_flops(prof.events())
        prof.export_chrome_trace(trace_path)
    except Exception as exc:  # noqa: BLE001: a profile never fails the timed run
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        protocol.profile(steps, problem=f"the profiler failed: {first}")
        return
    protocol.profile(steps, wall_ms=wall_ms, trace=trace_path,
                     profiler_gflop=flops / steps / 1e9 if flops > 0 else None)
