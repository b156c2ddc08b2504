"""Entry point: arguments, preflight, one run, the exit code (0 done, 1 failed, 2 bad config,
130 cancelled), as the native worker does."""
import signal
import sys
import threading
import time

from . import protocol
from . import rank as rank_mod
from .failure import WorkerFailure

USAGE = """usage: stepscope_worker.py [--profile-steps K --trace PATH] [--memory-snapshot PATH] --config JSON
       stepscope_worker.py --doctor [--device cpu|cuda]
       stepscope_worker.py --list-models
       stepscope_worker.py --export-torchscript PATH --config JSON
Runs one configuration (JSON lines on stdout, the log on stderr), checks this environment, or lists
the models this Python can build by name (one `models` line). With --profile-steps, K more steps
after the timed ones run under the profiler, their trace to PATH. With --memory-snapshot, a CUDA run
records one step's allocator history before that (or its state when it fails out of memory) as the
pickle pytorch.org/memory_viz opens. --export-torchscript traces the
configuration's model and loss for the native worker (export.py) instead of running it."""


def _report(failure):
    protocol.error(failure.category, failure.message, failure.detail)
    print(f"stepscope_worker: [{failure.category}] {failure.message}", file=sys.stderr)
    if failure.category == "invalid-config":
        return 2
    return 130 if failure.category == "cancelled" else 1


def _list_models():
    """--list-models: one line {"type": "models", "python", "libraries": models.available_models()}.
    Without torch nothing can be built, and models.py cannot even be imported: that is the error."""
    from . import preflight

    try:
        preflight.import_torch()
    except WorkerFailure as failure:
        return _report(failure)
    from . import models

    protocol.emit({"type": "models", "python": sys.executable, "libraries": models.available_models()})
    return 0


def _export(config, path):
    """--export-torchscript: a phase line, the file, then `done` with no steps (the supervisor's
    judgement of a finished process); a model that cannot be traced is a model-failed error line."""
    import torch

    from . import export

    protocol.phase("exporting to TorchScript", 0.0)
    seconds = export.export(config, path, torch.device(config.device))
    protocol.phase("exported to TorchScript", seconds)
    protocol.done(0, 0.0)
    return 0


def main(argv):
    """Never ends in a bare traceback: whatever escapes is an `internal` error line (exit 1)."""
    try:
        return _main(argv)
    except Exception as exc:  # noqa: BLE001: the last line of defence of the protocol
        import traceback

        return _report(WorkerFailure("internal", f"{type(exc).__name__}: {exc}".splitlines()[0],
                                     traceback.format_exc()))


def _main(argv):
    process_start = time.perf_counter()
    protocol.claim_stdout()
    # A data-parallel rank (started by the coordinator's torchrun): its lines go to its own file
    # from the first one on; the coordinator speaks for the job.
    rank = rank_mod.Rank() if rank_mod.is_rank() else None
    if rank:
        rank.begin()
    config_json, doctor, device, list_models = None, False, "cpu", False
    profile_steps, trace, export_path, memory_path = 0, "", "", ""
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--config" and args:
            config_json = args.pop(0)
        elif arg == "--profile-steps" and args:
            value = args.pop(0)
            if not value.isdigit() or int(value) > 10000:
                return _report(WorkerFailure("invalid-config", f"--profile-steps: '{value}' is not a step count 0..10000"))
            profile_steps = int(value)
        elif arg == "--trace" and args:
            trace = args.pop(0)
        elif arg == "--memory-snapshot" and args:
            memory_path = args.pop(0)
        elif arg == "--doctor":
            doctor = True
        elif arg == "--list-models":
            list_models = True
        elif arg == "--export-torchscript" and args:
            export_path = args.pop(0)
        elif arg == "--device" and args:
            device = args.pop(0)
        elif arg in ("-h", "--help"):
            print(USAGE, file=sys.stderr)
            return 0
        else:
            return _report(WorkerFailure("invalid-config", f"unknown argument '{arg}'", USAGE))
    if doctor:
        from . import doctor as doctor_mod

        return doctor_mod.run(device)
    if list_models:
        return _list_models()
    if profile_steps > 0 and not trace:
        return _report(WorkerFailure("invalid-config", "--profile-steps needs --trace PATH", USAGE))
    if config_json is None:
        return _report(WorkerFailure("invalid-config", "config: missing --config JSON", USAGE))

    try:
        from . import config as config_mod
        from . import preflight

        # As the native worker: the table's rules first (core/config via config_schema.json), then
        # whether this is the worker for the runtime. Left out, the runtime is this worker's.
        config, errors = config_mod.parse_config(config_json, base={"runtime": "python"})
        # An export is for the native worker: its configuration says runtime native.
        if not errors and config.runtime != "python" and not export_path:
            errors = [("runtime", "this is the Python worker; runtime native runs in stepscope-worker")]
        if errors:
            raise config_mod.refusal(errors)
        # First, before torch starts CUDA or its thread pools: their threads inherit the mask.
        from . import affinity

        problem = affinity.pin(config.cpu_affinity)
        if problem:
            raise WorkerFailure("invalid-config", f"cpu_affinity: {problem}")
        torch = preflight.import_torch()
        if config.threads:
            torch.set_num_threads(config.threads)  # before hello, which reports the count
        elif config.cpu_affinity != "none":
            # One thread per pinned core, as the native worker sets it (core/engine/cpu_affinity.cpp).
            torch.set_num_threads(max(1, len(affinity.allowed_cores()) or 1))
        preflight.check_torch_version(torch)
        preflight.check_triton(torch, config)
        preflight.check_cache_paths(config)
        preflight.import_torchvision()
        from .runner import run
        if config.world_size > 1 and not rank:
            from . import distributed

            distributed.preflight(torch, config)
        if export_path:
            return _export(config, export_path)
    except WorkerFailure as failure:
        return _report(failure)

    cancel = threading.Event()
    # SIGTERM from the supervisor's Stop: finish the current step and say `cancelled`.
    signal.signal(signal.SIGTERM, lambda *_: cancel.set())
    signal.signal(signal.SIGINT, lambda *_: cancel.set())

    if rank:
        failure = rank_mod.run(config, cancel, process_start, rank)
    elif config.world_size > 1:
        # The coordinator: the ranks run the steps, this process speaks for them (distributed.py).
        if memory_path:
            protocol.memory_snapshot("step", problem="no memory timeline for a data-parallel run: its ranks "
                                                     "keep no snapshot")
        failure = distributed.coordinate(config, config_json, cancel, process_start, profile_steps)
    else:
        failure = run(config, cancel, process_start, (profile_steps, trace), memory_path=memory_path)
    if failure is not None:
        return _report(failure)
    return 0
