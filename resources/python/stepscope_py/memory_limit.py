"""The memory_limit_mib setting (issue 31.3; the native worker's is core/engine/memory_limit.cpp): the
memory a run may use, so that a run asks "will it fit on a 40 GB card" on a larger one, and the
max-batch search can be tested on the CPU.

On CUDA the caching allocator is capped at that share of the card
(torch.cuda.set_per_process_memory_fraction): an allocation past it raises torch's own out-of-memory
error. The CPU allocator keeps no figures, so on the CPU the limit holds the worker's peak resident
memory, read after the first step and after the timed block: a high-water mark, so two reads see
every step's peak, and no read costs a timed step anything.
"""
import sys

from .failure import WorkerFailure

MIB = 1 << 20


def apply(config, device):
    """Caps the CUDA allocator of `device`; a limit above the card is invalid-config (a smaller card
    can be asked for, a larger one cannot). Nothing without a limit or on the CPU."""
    limit = config.memory_limit_mib
    if not limit or device.type != "cuda":
        return
    import torch

    total = torch.cuda.get_device_properties(device).total_memory
    if limit * MIB > total:
        raise WorkerFailure("invalid-config", f"memory_limit_mib {limit} is more than {device} has "
                                              f"({total // MIB} MiB); give at most that, or 0 for the whole card")
    torch.cuda.set_per_process_memory_fraction(limit * MIB / total, device)


def peak_resident_bytes():
    """This process's peak resident memory in bytes; None where the system does not say (Windows)."""
    try:
        import resource
    except ImportError:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # bytes on macOS, KiB elsewhere


def check(config, device, when):
    """On the CPU with a limit: out-of-memory, naming the limit and the peak, once the worker's peak
    resident memory has passed it; `when` says at which read ("after the first step")."""
    limit = config.memory_limit_mib
    if not limit or device.type == "cuda":
        return
    peak = peak_resident_bytes()
    if peak is None:
        raise WorkerFailure("invalid-config", f"memory_limit_mib {limit} on the CPU needs the worker's peak resident "
                                              "memory, which this system does not give", "set memory_limit_mib to 0 "
                                                                                          "on this system")
    if peak > limit * MIB:
        raise WorkerFailure("out-of-memory", f"out of memory at batch {config.batch} under the memory limit: the "
                                             f"worker's peak resident memory {peak // MIB} MiB passed memory_limit_mib "
                                             f"{limit} {when}",
                            "On the CPU the limit holds the worker process's peak resident memory (its high-water "
                            "mark, Python, torch and the model included), read after the first step and after the "
                            "timed steps.")
