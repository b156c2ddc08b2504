"""One rank of a data-parallel run (world_size > 1), started by torchrun for the coordinator
(distributed.py). It runs the usual timed run (runner.run) with DistributedDataParallel around
the model and writes its protocol lines to its own file in the run's directory; the coordinator
merges them into the one stream on its stdout. Nothing of a rank reaches the coordinator's stdout.

Beside its stream, a rank keeps a state file of two 64-bit integers, its pid and the last step it
has begun, written through a shared mapping: the coordinator reads them every 50 ms to name a rank
that ended or hung, and the write costs the step no system call.
"""
import mmap
import os
import struct
import sys
import time

from . import processes, protocol
from .failure import WorkerFailure, first_line

RANK_DIR_ENV = "STEPSCOPE_DDP_RANK_DIR"
INIT_TIMEOUT_ENV = "STEPSCOPE_DDP_INIT_TIMEOUT_S"
INIT_TIMEOUT_S = 120.0
STATE_FORMAT = "<qq"  # pid, last step begun (0: setup)

# Test hooks (tests/python/test_worker.py): rank R ends at once with exit code 9, or sleeps for
# ever, before it begins step K. A silent death and a hang, as a crash or a lost peer makes them.
TEST_EXIT_RANK, TEST_EXIT_STEP = "STEPSCOPE_TEST_DDP_EXIT_RANK", "STEPSCOPE_TEST_DDP_EXIT_STEP"
TEST_HANG_RANK, TEST_HANG_STEP = "STEPSCOPE_TEST_DDP_HANG_RANK", "STEPSCOPE_TEST_DDP_HANG_STEP"

# Words of torch.distributed's errors: a collective that failed because a peer went away or the
# backend broke is a distributed failure, whatever step it struck.
_DISTRIBUTED_WORDS = ("torch.distributed", "ProcessGroup", "c10d", "gloo", "Gloo", "NCCL", "nccl",
                      "DistBackendError", "DistNetworkError", "DistStoreError", "rendezvous")


def is_rank():
    return bool(os.environ.get(RANK_DIR_ENV))


def stream_path(directory, rank):
    return os.path.join(directory, f"rank-{rank}.jsonl")


def state_path(directory, rank):
    return os.path.join(directory, f"rank-{rank}.state")


def read_state(path):
    """(pid, last step begun) from a rank's state file, or None before the rank wrote it."""
    try:
        with open(path, "rb") as f:
            data = f.read(struct.calcsize(STATE_FORMAT))
    except OSError:
        return None
    return struct.unpack(STATE_FORMAT, data) if len(data) == struct.calcsize(STATE_FORMAT) else None


def _int_env(name, default=None):
    text = os.environ.get(name, "")
    return int(text) if text.lstrip("-").isdigit() else default


class Rank:
    """This process as rank RANK of WORLD_SIZE (torchrun's variables); the runner's `parallel`."""

    def __init__(self):
        self.directory = os.environ[RANK_DIR_ENV]
        self.rank = _int_env("RANK", 0)
        self.local_rank = _int_env("LOCAL_RANK", self.rank)
        self.world_size = _int_env("WORLD_SIZE", 1)
        self.config = None
        self.data_seed = None
        self.dist = None
        self._state = None
        self._test_exit = self._test_step(TEST_EXIT_RANK, TEST_EXIT_STEP)
        self._test_hang = self._test_step(TEST_HANG_RANK, TEST_HANG_STEP)

    def _test_step(self, rank_var, step_var):
        return _int_env(step_var) if _int_env(rank_var) == self.rank else None

    def begin(self):
        """First thing in the process: die with torchrun, and the stream and state files."""
        processes.die_with_parent()
        # torchrun gone before the call above: then no signal comes, and a rank that went on would
        # wait for its peers until the init timeout. Its parent is then no longer torchrun.
        if not _parent_is_torchrun():
            os._exit(1)
        protocol.write_to(stream_path(self.directory, self.rank))
        path = state_path(self.directory, self.rank)
        with open(path + ".tmp", "wb") as f:
            f.write(struct.pack(STATE_FORMAT, os.getpid(), 0))
        os.replace(path + ".tmp", path)  # the coordinator never reads half a file
        with open(path, "r+b") as f:
            self._state = mmap.mmap(f.fileno(), struct.calcsize(STATE_FORMAT))

    # -- what the runner calls ----------------------------------------------------------------
    def configure(self, config):
        """This rank's device and seeds, before the runner reads the configuration."""
        self.config = config
        if config.on_cuda:
            # The visible devices, one a rank; the supervisor may have narrowed them.
            config.device = f"cuda:{self.local_rank}"
        # Rank 0 keeps the single-process batch (its losses are the run's check); the others draw
        # their own batch from seed + rank after the same weights.
        self.data_seed = None if self.rank == 0 else (config.seed + self.rank) % 2**63

    def join(self, device):
        """init_process_group: nccl on CUDA, gloo on the CPU, with a timeout."""
        import datetime

        import torch.distributed as dist

        self.dist = dist
        backend = "nccl" if device.type == "cuda" else "gloo"
        if self.config.cuda_graph:
            # A captured NCCL collective cannot be watched by the async error handler (PyTorch's
            # CUDA graphs notes, "Usage with DistributedDataParallel").
            os.environ["TORCH_NCCL_ASYNC_ERROR_HANDLING"] = "0"
        timeout = float(os.environ.get(INIT_TIMEOUT_ENV) or INIT_TIMEOUT_S)
        try:
            kwargs = {"device_id": device} if backend == "nccl" else {}
            dist.init_process_group(backend=backend, timeout=datetime.timedelta(seconds=timeout), **kwargs)
        except Exception as exc:
            raise WorkerFailure("distributed-failed", f"init_process_group ({backend}) failed: {first_line(exc)}",
                                _traceback(exc)) from None

    def wrap(self, model):
        from torch.nn.parallel import DistributedDataParallel

        config = self.config
        kwargs = dict(device_ids=[model_device_index(model)] if config.on_cuda else None,
                      bucket_cap_mb=config.ddp_bucket_cap_mb,
                      gradient_as_bucket_view=config.ddp_gradient_as_bucket_view,
                      static_graph=config.ddp_static_graph)
        if not config.cuda_graph:
            return DistributedDataParallel(model, **kwargs)
        # Captured DDP is built on a side stream (the same PyTorch notes).
        import torch

        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            ddp = DistributedDataParallel(model, **kwargs)
        torch.cuda.current_stream().wait_stream(side)
        return ddp

    def before_step(self, index):
        if self._test_hang == index:
            while True:
                time.sleep(3600)
        if self._test_exit == index:
            os._exit(9)
        struct.pack_into("<q", self._state, 8, index)

    def leave(self):
        if self.dist is not None and self.dist.is_initialized():
            try:
                self.dist.destroy_process_group()
            except Exception as exc:  # noqa: BLE001: the run has been reported; only the log hears
                print(f"stepscope_worker: rank {self.rank}: destroy_process_group: {first_line(exc)}",
                      file=sys.stderr)


def model_device_index(model):
    return next(model.parameters()).device.index


def _traceback(exc):
    import traceback

    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def _parent_is_torchrun():
    try:
        with open(f"/proc/{os.getppid()}/cmdline", "rb") as f:
            command = f.read()
        return b"torch.distributed.run" in command or b"torchrun" in command
    except OSError:
        return True  # no /proc: nothing to tell by


def distributed_cause(failure, cancelled):
    """The failure this rank reports: a cancel is a cancel (a step cut short by the peers' going is
    part of it), and an error of torch.distributed is distributed-failed, not internal."""
    if failure is None:
        return None
    if cancelled and failure.category != "cancelled":
        return WorkerFailure("cancelled", f"cancelled ({failure.message})", failure.detail)
    # The message and the exception's own line (the last of the traceback), not the frames: the
    # DDP module's frames are in every traceback of a rank.
    said = failure.message + "\n" + (failure.detail.strip().splitlines() or [""])[-1]
    if failure.category in ("internal", "compile-failed", "graph-capture-failed") and \
            any(word in said for word in _DISTRIBUTED_WORDS):
        return WorkerFailure("distributed-failed", failure.message, failure.detail)
    return failure


def run(config, cancel, process_start, rank):
    """The rank's timed run; the failure to report, or None."""
    from .runner import run as run_steps

    rank.configure(config)
    try:
        failure = run_steps(config, cancel, process_start, parallel=rank)
    finally:
        rank.leave()
    return distributed_cause(failure, cancel.is_set())
