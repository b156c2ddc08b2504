"""The worker protocol (core/protocol/protocol.h): one JSON object per line on stdout.

stdout is the protocol and nothing else: the worker points sys.stdout at stderr once it holds the
real stream, so a stray print() in a library lands in the log instead of corrupting a line.
"""
import json
import math
import sys
import threading

PROTOCOL_VERSION = 1

_out = sys.stdout
_lock = threading.Lock()  # the compile heartbeat thread writes too


def claim_stdout():
    """Keeps the real stdout for protocol lines and sends everything else printed to stderr."""
    global _out
    _out = sys.stdout
    sys.stdout = sys.stderr


def write_to(path):
    """Sends protocol lines to the file at `path`, a line at a time: a data-parallel rank's stream,
    which the coordinator tails and merges into the one stream on its stdout (distributed.py)."""
    global _out
    _out = open(path, "w", buffering=1, encoding="utf-8")


def _clean(value):
    # JSON has no NaN or infinity; the supervisor refuses such lines, so they travel as null.
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def emit(message):
    line = json.dumps(_clean(message), separators=(",", ":"), allow_nan=False)
    with _lock:
        _out.write(line + "\n")
        _out.flush()


def hello(env):
    emit({"type": "hello", "protocol": PROTOCOL_VERSION, "env": {k: str(v) for k, v in env.items()}})


def ready(setup_s):
    emit({"type": "ready", "setup_s": setup_s})


def model_facts(facts):
    """The run's model (model_facts.py): description, parameters, and its training FLOPs per step
    with their source, or flops_problem when they could not be counted."""
    emit({"type": "model", **facts})


def first_step(wall_s):
    emit({"type": "first_step", "wall_s": wall_s})


def steps(first, gpu_ms, wall_ms):
    emit({"type": "steps", "first": first, "gpu_ms": list(gpu_ms), "wall_ms": list(wall_ms)})


def rank_steps(rank, first, gpu_ms, wall_ms):
    """One rank's own `steps` line under world_size > 1; `steps` then holds the slowest rank."""
    emit({"type": "rank_steps", "rank": rank, "first": first, "gpu_ms": list(gpu_ms), "wall_ms": list(wall_ms)})


def gpu_state(state):
    emit({"type": "gpu_state", "state": {k: str(v) for k, v in state.items()}})


def memory(peak_allocated, peak_reserved):
    emit({"type": "memory", "peak_allocated": peak_allocated, "peak_reserved": peak_reserved})


def energy(reading):
    """The GPU's energy over the first step and the timed steps (runner.EnergyWindows), or its
    problem: {"first_step_j", "first_step_s", "block_j", "block_s", "block_steps"} or {"problem"}."""
    emit({"type": "energy", **reading})


def check(losses):
    emit({"type": "check", "losses": list(losses)})


def memory_snapshot(kind, snapshot="", problem=""):
    """kind "step" (a step's timeline) or "out-of-memory"; the pickle written, or why there is none."""
    message = {"type": "memory_snapshot", "kind": kind}
    if problem:
        message["problem"] = problem
    else:
        message["snapshot"] = snapshot
    emit(message)


def profile(steps_run, wall_ms=0.0, trace="", profiler_gflop=None, problem=""):
    message = {"type": "profile", "steps": steps_run}
    if problem:
        message["problem"] = problem
    else:
        message.update({"wall_ms": wall_ms, "trace": trace})
        if profiler_gflop is not None:
            message["profiler_gflop"] = profiler_gflop
    emit(message)


def done(steps_run, mean_wall_ms):
    emit({"type": "done", "steps": steps_run, "mean_wall_ms": mean_wall_ms})


def phase(name, elapsed_s):
    emit({"type": "phase", "phase": name, "elapsed_s": elapsed_s})


def compile_info(info):
    emit({"type": "compile", "info": info})


def error(category, message, detail=""):
    emit({"type": "error", "category": category, "message": message, "detail": detail})


def doctor(item, status, value, fix=""):
    emit({"type": "doctor", "item": item, "status": status, "value": str(value), "fix": fix})
