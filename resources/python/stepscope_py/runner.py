"""The timed run: setup, the first step (compile, capture), warm-up and measured steps, with the
native runner's timing rules (core/engine/runner.cpp): step 1 alone as synchronized wall time,
then per-step CUDA-event time on the compute stream plus wall time, reported in batches that never
synchronize inside the timed block. The rules are written once, for both runners, in
docs/decisions.md, "Timing rules of both workers" (flush size, warm-up floor, steady-state hand-off).
"""
import os
import threading
import time
import traceback

import torch

from . import compiled as compiled_mod
from . import environment, memory_limit, protocol, toolchain
from .failure import WorkerFailure, first_line, is_out_of_memory
from .training import TrainingStep, apply_global_flags

CHECK_STEPS = 10  # losses kept for the accuracy gate, as the native engine keeps them
PHASE_EVERY_S = 2.0
MIN_PROGRESS_CPU_S = 0.05  # CPU seconds per tick that count as a compile making progress


def _sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


class EnergyWindows:
    """The GPU's energy counter read at the edges of the first step and of the timed block, right
    after a synchronize and outside every timed span (core/engine/runner.cpp's EnergyWindows)."""

    def __init__(self, device):
        self.index = (device.index or 0) if device.type == "cuda" else None
        self.reading = {} if self.index is not None else {"problem": "no energy counter: a CPU run"}
        self.start = None

    def _read(self):
        if self.index is None:
            return None
        from . import gpu_state

        mj, problem = gpu_state.energy_mj(torch, self.index)
        if mj is None and "problem" not in self.reading:
            self.reading["problem"] = problem
        return mj

    def _joules_since_start(self):
        """The window's joules: the counter now against its reading at begin(), when both were read."""
        end = self._read()
        return (end - self.start) / 1000.0 if self.start is not None and end is not None else None

    def begin(self):
        self.start = self._read()

    def end_first_step(self, seconds):
        joules = self._joules_since_start()
        if joules is not None:
            self.reading.update(first_step_j=joules, first_step_s=seconds)

    def end_block(self, seconds, steps):
        joules = self._joules_since_start()
        if joules is not None and steps > 0:
            self.reading.update(block_j=joules, block_s=seconds, block_steps=steps)


class StepTimer:
    """Batches step times; a step's GPU time is handed on once its end event has completed."""

    def __init__(self, cuda):
        self.cuda = cuda
        self.pending = []
        self.spare = []
        self.last_flush = time.perf_counter()
        self.current = None

    def _event(self):
        return self.spare.pop() if self.spare else torch.cuda.Event(enable_timing=True)

    def begin(self, index):
        start = end = None
        if self.cuda:
            start, end = self._event(), self._event()
            start.record()
        self.current = [index, time.perf_counter(), start, end, 0.0]

    def end(self):
        index, wall_start, start, end, _ = self.current
        if self.cuda:
            end.record()
        self.current[4] = (time.perf_counter() - wall_start) * 1000.0
        self.pending.append(self.current)
        if len(self.pending) >= 16 or time.perf_counter() - self.last_flush > 0.25:
            self.flush(False)

    def flush(self, wait):
        gpu, wall = [], []
        first = self.pending[0][0] if self.pending else 0
        while self.pending:
            index, _, start, end, wall_ms = self.pending[0]
            if self.cuda:
                if wait:
                    end.synchronize()
                elif not end.query():
                    break
                gpu.append(start.elapsed_time(end))
                self.spare += [start, end]
            wall.append(wall_ms)
            self.pending.pop(0)
        self.last_flush = time.perf_counter()
        if wall:
            protocol.steps(first, gpu, wall)


def _cpu_seconds():
    """CPU time of this process, its finished children and its live ones (inductor compiles in a
    pool of worker processes)."""
    t = time.process_time()
    times = os.times()
    t += times.children_user + times.children_system
    try:
        tick = os.sysconf("SC_CLK_TCK")
    except (AttributeError, ValueError, OSError):
        return t  # not POSIX: this process's own time still counts
    # Children and their children: inductor's compile pool may run its own workers.
    pending, seen = [str(os.getpid())], set()
    while pending:
        pid = pending.pop()
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as f:
                    for child in f.read().split():
                        if child not in seen:
                            seen.add(child)
                            pending.append(child)
        except OSError:
            continue  # not Linux, or a process that just ended
    for pid in seen:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            t += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, ValueError, IndexError):
            pass
    return t


class PhaseTicker:
    """Says "compiling, 12 s" every two seconds while step 1 runs and the compile makes progress:
    the dashboard and the CLI show it, and the supervisor's silence timeout counts it as life (a
    3-minute max-autotune compile is not a hang). Progress is CPU time spent by the worker and its
    compile processes; a compiler that hangs without spending any goes quiet, and the timeout
    fires as it should."""

    def __init__(self, name):
        self.name = name
        self.stop = threading.Event()
        self.start = time.perf_counter()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        protocol.phase(self.name, 0.0)
        last = _cpu_seconds()
        while not self.stop.wait(PHASE_EVERY_S):
            now = _cpu_seconds()
            if now - last >= MIN_PROGRESS_CPU_S:
                protocol.phase(self.name, time.perf_counter() - self.start)
            last = now

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


def classify(exc, config, during):
    """The failure category of an exception raised while `during` ("setup", "first step", ...)."""
    detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    if isinstance(exc, WorkerFailure):
        return exc
    if is_out_of_memory(exc):
        return WorkerFailure("out-of-memory", f"out of memory during {during} at batch {config.batch}, image "
                                              f"{config.image_size}: {first_line(exc)}", detail + _peak_rss())
    if config.compiled and during != "setup":
        return WorkerFailure("compile-failed", f"torch.compile ({config.compile}, {config.compile_backend}, "
                                               f"{config.compile_target}) failed during {during}: {toolchain.describe(exc)}",
                             detail)
    if config.cuda_graph and during == "first step":
        return WorkerFailure("graph-capture-failed", f"CUDA graph capture failed: {first_line(exc)}", detail)
    return WorkerFailure("internal", first_line(exc) or type(exc).__name__, detail)


def _peak_rss():
    try:
        import resource

        return f"\npeak resident memory of the worker: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB"
    except Exception:
        return ""


def _device(config):
    device = torch.device(config.device)
    if device.type != "cuda":
        return device
    if not torch.cuda.is_available():
        raise WorkerFailure("cuda-unavailable", "CUDA is not available to torch in this Python",
                            f"torch {torch.__version__}, device {config.device}")
    index = device.index or 0
    if index >= torch.cuda.device_count():
        raise WorkerFailure("cuda-unavailable",
                            f"{config.device} does not exist; this machine has {torch.cuda.device_count()} CUDA device(s)")
    torch.cuda.set_device(index)
    return torch.device("cuda", index)


def _check_compiled(config, skips, when, start, bundle, save_to=None):
    """Sends the compile record and fails a run that is not what it is named. `save_to`: the file
    of the mega-cache bundle to save first (the record after the measured steps says how it went);
    a run that failed the checks saves none."""
    info = compiled_mod.collect(config, skips, start, bundle)
    if save_to:
        if not info["compiled"]:
            info["bundle_save_problem"] = f"not saved: the run did not compile as asked ({info['fallback_reason']})"
        elif info["cache_problem"]:
            info["bundle_save_problem"] = f"not saved: {info['cache_problem']}"
        else:
            info.update(compiled_mod.save_bundle(save_to))
    protocol.compile_info(info)
    if not info["compiled"]:
        raise WorkerFailure("compile-failed", f"not compiled as asked ({when}): {info['fallback_reason']}",
                            "The run is not reported as the compiled configuration. Compile record: " + str(info))
    if info["cache_problem"]:
        raise WorkerFailure("compile-failed", f"not the {start} start it is named ({when}): {info['cache_problem']}",
                            "Compile record: " + str(info))
    return info


def run(config, cancel, process_start, profile=(0, ""), parallel=None, memory_path=""):
    """`profile`: (steps, trace path) profiled after the timed steps; 0 steps profiles nothing.
    `memory_path`: where the memory snapshot goes (memory_snapshot.py), "" for none: a step's
    timeline after the timed steps, or the allocator's state when the run fails out of memory.
    `parallel`: a data-parallel rank's part (rank.Rank), or None for a plain step: it joins the
    process group after hello, wraps the model, seeds this rank's batch and hears of each step."""
    during = "setup"
    before_step = parallel.before_step if parallel else (lambda index: None)
    device = None
    try:
        start = compiled_mod.start_state()
        device = _device(config)
        memory_limit.apply(config, device)
        apply_global_flags(config)
        protocol.hello(environment.probe(torch, config, start))
        if parallel:
            parallel.join(device)
            step = TrainingStep(config, device, wrap=parallel.wrap, data_seed=parallel.data_seed)
        else:
            step = TrainingStep(config, device)
        skips = bundle = save_to = None
        if config.compiled:
            # A shipped start: the bundle goes into inductor's empty caches before anything compiles,
            # outside the first step (its seconds are in setup, and in the compile record).
            if os.environ.get(compiled_mod.BUNDLE_LOAD_ENV):
                bundle = compiled_mod.load_bundle(os.environ[compiled_mod.BUNDLE_LOAD_ENV])
            # One rank saves for a data-parallel job: every rank compiled the same graphs.
            if not parallel or getattr(parallel, "rank", 0) == 0:
                save_to = os.environ.get(compiled_mod.BUNDLE_SAVE_ENV) or None
            skips = compiled_mod.SkipRecorder()
            step.use_compiled(compiled_mod.compile_function(config))
        _sync(device)
        protocol.model_facts(step.model_facts)
        # Setup is the process's start to the model on its device: the FLOP count is Stepscope's own
        # work on the meta device, left out so that setup compares with the native worker's.
        protocol.ready(time.perf_counter() - process_start - step.count_seconds)

        check_steps = min(CHECK_STEPS, config.total_steps)
        losses = torch.zeros(check_steps, device=device, dtype=torch.float32)

        # Step 1 alone, synchronized: compilation, autotuning and graph capture land here.
        during = "first step"
        phase = "compiling" if config.compiled else "capturing" if config.cuda_graph else None
        before_step(1)
        _sync(device)
        energy = EnergyWindows(device)
        energy.begin()
        t0 = time.perf_counter()
        if phase:
            with PhaseTicker(phase):
                step.step()
                losses[0].copy_(step.loss.detach().float().reshape(()))
                _sync(device)
        else:
            step.step()
            losses[0].copy_(step.loss.detach().float().reshape(()))
            _sync(device)
        first_ms = (time.perf_counter() - t0) * 1000.0
        energy.end_first_step(first_ms / 1000.0)
        protocol.first_step(first_ms / 1000.0)
        protocol.steps(1, [], [first_ms])
        memory_limit.check(config, device, "after the first step")
        if config.compiled:
            _check_compiled(config, skips, "after the first step", start, bundle)

        during = "the measured steps"
        timer = StepTimer(device.type == "cuda")
        total = config.total_steps
        timed_from = 2 + config.warmup_steps
        block_start = time.perf_counter()
        for index in range(2, total + 1):
            if cancel.is_set():
                timer.flush(True)
                raise WorkerFailure("cancelled", f"cancelled after step {index - 1}")
            if index == timed_from:
                _sync(device)
                energy.begin()
                block_start = time.perf_counter()
            before_step(index)
            timer.begin(index)
            step.step()
            timer.end()
            if index <= check_steps:
                # Copied at once: a CUDA-graph output is overwritten by the next replay.
                losses[index - 1].copy_(step.loss.detach().float().reshape(()))
        _sync(device)
        block_ms = (time.perf_counter() - block_start) * 1000.0
        timed = total - timed_from + 1
        energy.end_block(block_ms / 1000.0, timed)
        timer.flush(True)
        memory_limit.check(config, device, "after the timed steps")
        if config.compiled:
            # Recompiles or a late fallback after step 1 also change what was measured. The bundle
            # is saved here, after the timed steps and before any profiling pass.
            _check_compiled(config, skips, "after the measured steps", start, bundle, save_to)

        if device.type == "cuda":
            state = environment.gpu_state(torch, device.index or 0)
            if state:
                protocol.gpu_state(state)
            protocol.memory(torch.cuda.max_memory_allocated(device), torch.cuda.max_memory_reserved(device))
        protocol.energy(energy.reading)
        protocol.check(losses.cpu().tolist())
        # After every reading of the timed steps: a worker that dies in the profiler has said all
        # its run is (core/engine/runner.cpp does the same). The memory timeline comes first: the
        # supervisor reads its pickle from the folder the profile's end clears.
        profiling = profile[0] > 0 and profile[1]
        if profiling or memory_path:
            protocol.phase("profiling", 0.0)
        if memory_path:
            from .memory_snapshot import record_step

            during = "the memory timeline"
            record_step(step, device, memory_path)
        if profiling:
            from .profiling import profile_steps

            during = "the profile"
            profile_steps(step, device, profile[0], profile[1])
        protocol.done(total, block_ms / timed if timed > 0 else 0.0)
        return None
    except BaseException as exc:  # noqa: B902: KeyboardInterrupt becomes `cancelled` too
        if isinstance(exc, KeyboardInterrupt):
            return WorkerFailure("cancelled", "interrupted")
        failure = classify(exc, config, during)
        if failure.category == "out-of-memory" and memory_path:
            from .memory_snapshot import keep_out_of_memory_state

            keep_out_of_memory_state(device, memory_path)
        return failure
