"""torch.compile for a configuration, and what its cost was made of.

The compile cost is read from dynamo's own bookkeeping (compilation_time_metrics and counters), so
the breakdown is what torch measured, not a guess. Whether the run is really compiled is decided
here too: a configuration that fell back to eager, or asked for CUDA graphs that inductor skipped,
is not what its name says, and the runner fails it instead of timing it under that name.
"""
import os

import torch

from .failure import WorkerFailure

# Coarse phases from dynamo's timers (seconds summed over all frames), in the order they happen.
# Names are those of torch 2.11; a timer that is not there is simply left out.
_TIMERS = {
    "compile_inner": "_compile.compile_inner",
    "backend": "OutputGraph.call_user_compiler",
    "aot": "create_aot_dispatcher_function",
    "inductor_forward": "compile_fx.<locals>.fw_compiler_base",
    "inductor_backward": "compile_fx.<locals>.bw_compiler",
    "backward_total": "backward._backward_impl",
    "codegen_wait": "async_compile.wait",
}


def compile_kwargs(config):
    kwargs = {"backend": config.compile_backend}
    # mode belongs to inductor; other backends refuse it.
    if config.compile_backend == "inductor":
        kwargs["mode"] = config.compile
    return kwargs


class SkipRecorder:
    """Collects the reasons inductor gives when it skips CUDA graphs. They go to an artifact logger
    that is silent by default, so its warning method is wrapped rather than a handler attached."""

    def __init__(self):
        self.reasons = []
        try:
            from torch._inductor import cudagraph_utils

            log = cudagraph_utils.cudagraphs_log
            original = log.warning

            def warning(msg, *args, **kwargs):
                text = str(msg) % args if args else str(msg)
                if "skip" in text and text not in self.reasons:
                    self.reasons.append(text)
                return original(msg, *args, **kwargs)

            log.warning = warning
        except Exception:  # an older torch without this module: the counter alone remains
            pass


def _timers():
    try:
        from torch._dynamo.utils import compilation_time_metrics
    except ImportError:
        return {}
    return {name: sum(values) for name, values in compilation_time_metrics.items()}


def phases_of(timers):
    """Seconds per phase: dynamo tracing, AOT autograd, inductor (forward, backward), autotuning,
    CUDA-graph recording, as far as torch's timers separate them."""
    t = {key: timers.get(name, 0.0) for key, name in _TIMERS.items()}
    phases = {}
    if t["compile_inner"]:
        phases["dynamo_tracing_s"] = max(0.0, t["compile_inner"] - t["backend"])
    if t["aot"]:
        phases["aot_autograd_s"] = max(0.0, t["aot"] - t["inductor_forward"])
    if t["inductor_forward"]:
        phases["inductor_forward_s"] = t["inductor_forward"]
    if t["inductor_backward"]:
        phases["inductor_backward_s"] = t["inductor_backward"]
    if t["codegen_wait"]:
        phases["kernel_compile_wait_s"] = t["codegen_wait"]  # inside the inductor phases above
    autotune = sum(v for k, v in timers.items() if "autotun" in k.lower() or "select_algorithm" in k.lower())
    if autotune:
        phases["autotuning_s"] = autotune
    record = sum(v for k, v in timers.items() if "cudagraph" in k.lower())
    if record:
        phases["cudagraph_recording_s"] = record
    if not phases and t["backend"]:
        phases["backend_s"] = t["backend"]
    return {k: round(v, 4) for k, v in phases.items()}


def collect(config, skips):
    """The compile record of the run so far (sent after step 1 and again at the end)."""
    from torch._dynamo.utils import counters

    timers = _timers()
    breaks = dict(counters["graph_break"])
    try:
        from torch._dynamo.utils import guard_failures

        recompiles = sum(len(v) for v in guard_failures.values())
    except ImportError:
        recompiles = max(0, counters["frames"].get("ok", 0) - 1)
    graphs = int(counters["stats"].get("unique_graphs", 0))
    skip_count = int(counters["inductor"].get("cudagraph_skips", 0))
    skip_reasons = list(skips.reasons)
    if skip_count and not skip_reasons:
        skip_reasons = [f"inductor disabled CUDA graphs for {skip_count} graph(s) (device {config.device})"]
    compile_s = timers.get(_TIMERS["compile_inner"], 0.0) + timers.get(_TIMERS["backward_total"], 0.0)
    info = {
        "mode": config.compile,
        "backend": config.compile_backend,
        "target": config.compile_target,
        "cache": config.compile_cache,
        "compile_s": round(compile_s, 4),
        "phases": phases_of(timers),
        "graphs": graphs,
        "graph_breaks": sum(breaks.values()),
        # Whole: a reason cut short hides the line of user code it names (the first 20 kinds).
        "break_reasons": [str(r) for r in list(breaks)[:20]],
        "recompiles": recompiles,
        "frames_total": int(counters["frames"].get("total", 0)),
        "frames_ok": int(counters["frames"].get("ok", 0)),
        "cudagraph_skips": skip_reasons if config.uses_cudagraphs else [],
        "fx_graph_cache": {k[len("fxgraph_cache_"):]: v for k, v in counters["inductor"].items()
                           if k.startswith("fxgraph_cache_")},
        "aot_autograd_cache": {k[len("autograd_cache_"):]: v for k, v in counters["aot_autograd"].items()
                               if k.startswith("autograd_cache_")},
    }
    reason = fallback_reason(config, info)
    info["compiled"] = not reason
    info["fallback_reason"] = reason
    info["cache_problem"] = warm_cache_problem(config, info)
    return info


def warm_cache_problem(config, info):
    """Why a run labelled warm compiled cold ("" when the label holds): a kept cache that lacks this
    configuration's graphs (deleted, or filled by another torch) makes a first step that is not a
    warm one, and its break-even would be reported under the wrong label."""
    if config.compile_cache != "warm" or config.compile_backend != "inductor":
        return ""
    if os.environ.get("STEPSCOPE_PRIMING") == "1":
        return ""  # the supervisor's priming run fills the warm cache: it compiles cold by design
    missed = int(info.get("fx_graph_cache", {}).get("miss", 0))
    if missed:
        return (f"labelled warm, but inductor's FX graph cache missed {missed} graph(s): this compile ran cold "
                "(delete the warm cache directory so that Stepscope primes it again)")
    return ""


def fallback_reason(config, info):
    """Why this run is not the configuration it is named after ("" when it is)."""
    if info["graphs"] == 0:
        if info["frames_total"] and info["frames_ok"] < info["frames_total"]:
            return (f"dynamo compiled {info['frames_ok']} of {info['frames_total']} frames and captured no graph: "
                    "the step ran eager (errors suppressed?)")
        return "dynamo captured no graph: the step ran eager"
    if config.uses_cudagraphs and info["cudagraph_skips"]:
        return "CUDA graphs were skipped: " + "; ".join(info["cudagraph_skips"])[:500]
    return ""


def compile_function(config):
    """The callable TrainingStep.use_compiled applies to the model or the whole step."""
    kwargs = compile_kwargs(config)

    def apply(fn):
        try:
            return torch.compile(fn, **kwargs)
        except Exception as exc:  # torch.compile itself refused the arguments
            raise WorkerFailure("compile-failed", f"torch.compile refused {kwargs}: {exc}") from exc

    return apply
