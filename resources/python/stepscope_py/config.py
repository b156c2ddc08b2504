"""The run configuration as the supervisor sends it (core/config/run_config.h, toJson()).

The supervisor validates before it starts a worker; this module checks again what a wrong value
would turn into a misleading measurement, so that the worker run by hand says invalid-config too.
"""
from dataclasses import dataclass

from . import affinity
from .failure import WorkerFailure

CHOICES = {
    "runtime": ("native", "python"),
    "autocast": ("off", "bf16", "fp16"),
    "optimizer": ("per-parameter", "foreach", "fused"),
    "compile": ("none", "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"),
    "compile_backend": ("inductor", "cudagraphs", "aot_eager"),
    "compile_target": ("model", "step"),
    "compile_cache": ("cold", "warm"),
}
FLAGS = ("tf32", "cudnn_benchmark", "channels_last", "cuda_graph")
INTS = {
    "batch": (1, 4096),
    "image_size": (32, 1024),
    "classes": (1, 100000),
    "warmup_steps": (0, 100000),
    "steps": (1, 1000000),
    "seed": (0, 2**63 - 1),
    "threads": (0, 256),
}


@dataclass
class Config:
    runtime: str = "python"
    device: str = "cpu"
    tf32: bool = False
    cudnn_benchmark: bool = False
    autocast: str = "off"
    channels_last: bool = False
    cuda_graph: bool = False
    optimizer: str = "foreach"
    compile: str = "none"
    compile_backend: str = "inductor"
    compile_target: str = "model"
    compile_cache: str = "cold"
    batch: int = 32
    image_size: int = 224
    classes: int = 1000
    warmup_steps: int = 10
    steps: int = 100
    seed: int = 0
    cpu_affinity: str = "none"  # none, one or a normalized core list (affinity.py)
    threads: int = 0  # intra-op threads; 0 keeps torch's default

    @property
    def on_cuda(self):
        return self.device.startswith("cuda")

    @property
    def compiled(self):
        return self.compile != "none"

    @property
    def total_steps(self):
        return 1 + self.warmup_steps + self.steps

    @property
    def uses_cudagraphs(self):
        """Whether what was asked for replays CUDA graphs (so a skip means it is not what was asked)."""
        if self.compile_backend == "cudagraphs":
            return True
        return self.compile_backend == "inductor" and self.compile in ("reduce-overhead", "max-autotune")


def _invalid(field, message):
    return WorkerFailure("invalid-config", f"{field}: {message}")


def _as_bool(key, value):
    if isinstance(value, bool):
        return value
    if str(value).lower() in ("true", "1", "on", "yes"):
        return True
    if str(value).lower() in ("false", "0", "off", "no"):
        return False
    raise _invalid(key, f"'{value}' is not allowed; allowed: true, false")


def parse(obj):
    """A Config from the decoded JSON object; raises WorkerFailure(invalid-config)."""
    if not isinstance(obj, dict):
        raise _invalid("config", "expected a JSON object of settings")
    c = Config()
    for key, value in obj.items():
        if key in CHOICES:
            if value not in CHOICES[key]:
                raise _invalid(key, f"'{value}' is not allowed; allowed: {', '.join(CHOICES[key])}")
            setattr(c, key, value)
        elif key in FLAGS:
            setattr(c, key, _as_bool(key, value))
        elif key in INTS:
            lo, hi = INTS[key]
            try:
                n = int(value)  # the seed travels as text (JSON doubles lose bits above 2^53)
            except (TypeError, ValueError):
                raise _invalid(key, f"'{value}' is not an integer") from None
            if not lo <= n <= hi:
                raise _invalid(key, f"{n} is outside {lo}..{hi}")
            setattr(c, key, n)
        elif key == "cpu_affinity":
            try:
                c.cpu_affinity = affinity.normalize(value)
            except ValueError as exc:
                raise _invalid(key, f"{exc}; allowed: none, one or a core list") from None
        elif key == "device":
            value = str(value)
            index = value[5:] if value.startswith("cuda:") else "0"
            if value not in ("cpu", "cuda") and not (value.startswith("cuda:") and index.isdigit()):
                raise _invalid("device", f"'{value}' is not a device; use cpu, cuda or cuda:N")
            c.device = value
        else:
            raise _invalid(key, "unknown setting")
    if c.runtime != "python":
        raise _invalid("runtime", "this is the Python worker; runtime native runs in stepscope-worker")
    if not c.on_cuda:
        for flag in ("tf32", "cudnn_benchmark", "cuda_graph"):
            if getattr(c, flag):
                raise _invalid(flag, "exists only on CUDA devices; untick it or use a CUDA device")
        if c.autocast == "fp16":
            raise _invalid("autocast", "fp16 autocast is a CUDA feature here; use bf16 on the CPU")
    if c.compiled and c.cuda_graph:
        raise _invalid("cuda_graph", "combine torch.compile with CUDA graphs through mode reduce-overhead")
    if c.compiled and c.compile_backend != "inductor" and c.compile != "default":
        raise _invalid("compile", f"mode {c.compile} is an inductor mode; use compile default with backend "
                                  f"{c.compile_backend}")
    if c.cuda_graph and c.autocast == "fp16" and c.optimizer != "fused":
        raise _invalid("optimizer", "fp16 under a CUDA graph needs optimizer fused")
    return c
