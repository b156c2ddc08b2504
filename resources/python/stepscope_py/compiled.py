"""torch.compile for a configuration, and what its cost was made of.

The compile cost is read from dynamo's own bookkeeping (compilation_time_metrics and counters), so
the breakdown is what torch measured, not a guess. Whether the run is really compiled is decided
here too: a configuration that fell back to eager, or asked for CUDA graphs that inductor skipped,
is not what its name says, and the runner fails it instead of timing it under that name.

The run's start state (docs/decisions.md, "Start states") comes from the supervisor in the
environment, not from the configuration: STEPSCOPE_START is fresh, shipped or again, and a compiled
run saves (STEPSCOPE_BUNDLE_SAVE) or loads (STEPSCOPE_BUNDLE_LOAD) torch.compile's mega-cache bundle
(torch.compiler.save_cache_artifacts / load_cache_artifacts). A start is checked by the FX graph
cache's hits, not assumed.
"""
import os
import time
import traceback

import torch

from . import toolchain
from .failure import WorkerFailure, first_line

START_ENV = "STEPSCOPE_START"
START_STATES = ("fresh", "shipped", "again")
BUNDLE_SAVE_ENV = "STEPSCOPE_BUNDLE_SAVE"
BUNDLE_LOAD_ENV = "STEPSCOPE_BUNDLE_LOAD"

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


def start_state(environ=None):
    """The run's start state from STEPSCOPE_START: fresh when unset or empty. Any other word is the
    supervisor's mistake, an `internal` failure (a start named wrongly would be reported wrongly)."""
    word = (os.environ if environ is None else environ).get(START_ENV, "").strip()
    if not word:
        return "fresh"
    if word not in START_STATES:
        raise WorkerFailure("internal", f"{START_ENV}={word!r} is not a start state; expected one of "
                                        f"{', '.join(START_STATES)} (or unset: fresh)")
    return word


def _artifact_counts(cache_info):
    """Artifacts by kind ("inductor", "aot_autograd", ...) of a torch CacheInfo; {} when there is
    none or it says nothing (best effort: the class is torch's own and may change)."""
    try:
        return {str(kind): len(keys) for kind, keys in dict(cache_info.artifacts).items() if keys}
    except Exception:  # noqa: BLE001: an older or newer CacheInfo without `artifacts`
        return {}


def load_bundle(path):
    """Loads the mega-cache bundle at `path` into inductor's (empty) caches before anything is
    compiled: what makes a shipped start. Returns what the compile record's "bundle" is made from;
    raises WorkerFailure when torch lacks the API (torch-too-old) or the file cannot be read or
    loaded (internal, naming the path)."""
    load = getattr(getattr(torch, "compiler", None), "load_cache_artifacts", None)
    if load is None:
        raise WorkerFailure("torch-too-old", "a shipped start needs torch.compiler.load_cache_artifacts (torch 2.7 "
                                             "or later); upgrade torch or run without the shipped start",
                            f"torch {torch.__version__}; {BUNDLE_LOAD_ENV}={path}")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise WorkerFailure("internal", f"the shipped start's bundle {path} is missing ({BUNDLE_LOAD_ENV})") from None
    except OSError as exc:
        raise WorkerFailure("internal", f"the shipped start's bundle {path} cannot be read ({BUNDLE_LOAD_ENV}): "
                                        f"{exc}") from None
    t0 = time.perf_counter()
    try:
        cache_info = load(data)
    except Exception as exc:  # noqa: BLE001: whatever torch raises, the run cannot start shipped
        raise WorkerFailure("internal", f"torch.compiler.load_cache_artifacts could not load the bundle {path}: "
                                        f"{first_line(exc) or type(exc).__name__}",
                            "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))) from None
    return {"path": path, "bytes": len(data), "load_s": round(time.perf_counter() - t0, 4),
            "loaded": _artifact_counts(cache_info) if cache_info is not None else {}}


def bundle_use(loaded, info, backend):
    """The compile record's "bundle": what was loaded (`loaded`, from load_bundle) and what it made
    of the compile so far (the FX graph and AOTAutograd cache counters in `info`). `missed`: the
    FX graph cache missed or bypassed a graph, or hit none, so this shipped run compiled anyway;
    such a run is not failed here, the supervisor flags it from these fields."""
    fx, aot = info.get("fx_graph_cache", {}), info.get("aot_autograd_cache", {})
    hits, misses, bypasses = (int(fx.get(k, 0)) for k in ("hit", "miss", "bypass"))
    problems = []
    if not loaded.get("loaded"):
        problems.append("torch loaded no artifact from the bundle (a damaged bundle, or one another torch saved)")
    if misses:
        problems.append(f"inductor compiled {misses} graph(s) the bundle lacked")
    if bypasses:
        problems.append(f"inductor compiled {bypasses} graph(s) its FX graph cache bypasses")
    if not hits and not misses and not bypasses:
        problems.append("inductor's FX graph cache hit no graph (the bundle held none of this configuration's)"
                        if backend == "inductor" else
                        f"backend {backend} reads no FX graph cache: the bundle made no hits")
    missed = bool(misses or bypasses or not hits)
    return {**loaded, "hits": hits, "misses": misses, "bypasses": bypasses,
            "aot_hits": int(aot.get("hit", 0)), "aot_misses": int(aot.get("miss", 0)),
            "missed": missed, "problem": "shipped, but " + "; ".join(problems) if problems else ""}


def save_bundle(path):
    """Writes this process's mega-cache bundle (torch.compiler.save_cache_artifacts) to `path`,
    atomically (path.tmp, fsync, rename). Returns the compile record's part: {"bundle_saved": ...},
    or {"bundle_save_problem": why}. A bundle that cannot be saved fails no run: the run's figures
    stand, only the configuration's shipped runs lack their bundle."""
    save = getattr(getattr(torch, "compiler", None), "save_cache_artifacts", None)
    if save is None:
        return {"bundle_save_problem": f"torch {torch.__version__} has no torch.compiler.save_cache_artifacts "
                                       "(torch 2.7 or later): no bundle for shipped starts"}
    t0 = time.perf_counter()
    try:
        saved = save()
    except Exception as exc:  # noqa: BLE001
        return {"bundle_save_problem": f"torch.compiler.save_cache_artifacts failed: "
                                       f"{first_line(exc) or type(exc).__name__}"}
    if saved is None:
        return {"bundle_save_problem": "torch.compiler.save_cache_artifacts returned nothing: this process "
                                       "recorded no cache artifact (no graph went through inductor's caches?)"}
    try:
        data, cache_info = saved
        data = bytes(data)
    except (TypeError, ValueError):
        return {"bundle_save_problem": f"torch.compiler.save_cache_artifacts returned {type(saved).__name__}, "
                                       "not (bytes, CacheInfo): this worker does not know that torch's bundle"}
    tmp = path + ".tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.remove(tmp)
        except OSError:
            pass
        return {"bundle_save_problem": f"cannot write the bundle to {path}: {exc}"}
    try:  # the rename itself durable too; best effort (not every system opens a folder)
        fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass
    return {"bundle_saved": {"path": path, "bytes": len(data), "artifacts": _artifact_counts(cache_info),
                             "save_s": round(time.perf_counter() - t0, 4)}}


def collect(config, skips, start="fresh", bundle=None):
    """The compile record of the run so far (sent after step 1 and again at the end). `start`: the
    run's start state; `bundle`: what load_bundle loaded (a shipped run), or None."""
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
        # "cache" is the start state under the key the record had when it said cold or warm.
        "cache": start,
        "start": start,
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
    info["cache_problem"] = warm_cache_problem(config, info, start)
    if bundle is not None:
        info["bundle"] = bundle_use(bundle, info, config.compile_backend)
    return info


def warm_cache_problem(config, info, start):
    """Why a run labelled again compiled afresh ("" when the label holds): a kept cache that lacks
    this configuration's graphs (deleted, or filled by another torch) makes a first step that is not
    an again one, and its break-even would be reported under the wrong label. (A shipped run that
    missed is not failed: its "bundle" record says so, and the supervisor flags it.)"""
    if start != "again" or config.compile_backend != "inductor":
        return ""
    if os.environ.get("STEPSCOPE_PRIMING") == "1":
        return ""  # the supervisor's priming run fills the again caches: it compiles afresh by design
    missed = int(info.get("fx_graph_cache", {}).get("miss", 0))
    if missed:
        return (f"labelled again (a start on caches this configuration filled), but inductor's FX graph cache "
                f"missed {missed} graph(s): this compile ran fresh (delete the again cache directory so that "
                "Stepscope primes it again)")
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
        toolchain.keep_headers_in_cache_dir()  # with the run's other caches, as its start state says
        try:
            return torch.compile(fn, **kwargs)
        except Exception as exc:  # torch.compile itself refused the arguments
            raise WorkerFailure("compile-failed", f"torch.compile refused {kwargs}: {exc}") from exc

    return apply
