"""The run's CUDA memory snapshot (core/profile/memory_timeline.h): after the timed steps, one more
training step with the caching allocator's history recorded, written as the pickle that
pytorch.org/memory_viz opens; the supervisor reads it once into the summary Stepscope draws. Never
during the timed steps: recording each allocation's stack costs time on every one of them. A run
that fails out of memory writes the allocator's state at the failure instead, without history
(none was recorded). A snapshot that fails says why and never fails the run."""
import pickle

import torch

from . import protocol
from .failure import first_line

# Trace entries kept: a ResNet18 step makes a few thousand allocator events, a large model tens of
# thousands; older entries go first, and the supervisor's summary says the trace does not add up.
MAX_ENTRIES = 200_000
# memory_viz reads pickle protocols 2 to 4 (its unpickler refuses 5, Python 3.14's default).
PICKLE_PROTOCOL = 4


def _write(path):
    with open(path, "wb") as f:
        pickle.dump(torch.cuda.memory._snapshot(), f, protocol=PICKLE_PROTOCOL)


def record_step(step, device, path):
    """One step with history, its snapshot to `path`, and the `memory_snapshot` line."""
    if device.type != "cuda":
        protocol.memory_snapshot("step", problem="no memory timeline on the CPU")
        return
    try:
        torch.cuda.synchronize(device)
        # Python frames only: C++ frames are symbolized address by address as the snapshot is
        # taken, seconds to minutes for one step, for frames of torch's own machinery.
        torch.cuda.memory._record_memory_history(max_entries=MAX_ENTRIES, stacks="python")
        try:
            step.step()
            torch.cuda.synchronize(device)
            _write(path)
        finally:
            torch.cuda.memory._record_memory_history(enabled=None)
    except Exception as exc:  # noqa: BLE001: a snapshot never fails the timed run
        protocol.memory_snapshot("step", problem=f"the memory timeline failed: {first_line(exc) or type(exc).__name__}")
        return
    protocol.memory_snapshot("step", snapshot=path)


def keep_out_of_memory_state(device, path):
    """Called while the out-of-memory exception is still alive (its frames hold the step's tensors),
    before the `error` line: the supervisor points the failure's text at the kept file."""
    if device is None or device.type != "cuda" or not torch.cuda.is_initialized():
        return
    try:
        _write(path)
    except Exception as exc:  # noqa: BLE001: the run's own failure is what is reported
        protocol.memory_snapshot("out-of-memory", problem=f"the allocator's state could not be written: "
                                                          f"{first_line(exc) or type(exc).__name__}")
        return
    protocol.memory_snapshot("out-of-memory", snapshot=path)
