"""What the worker says about its machine in `hello`: the native worker's keys
(core/engine/environment.cpp) plus what only the Python side has (torchvision, Triton, caches)."""
import os
import platform
import socket
import sys

from . import affinity, preflight
from . import gpu_state as gpu_state_reader


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def gpu_state(torch, index):
    """Clocks, temperature, power and throttle reasons, as the native worker reports them."""
    return gpu_state_reader.read(torch, index)


def probe(torch, config, start="fresh"):
    import torchvision

    env = {
        "worker": "python",
        "host": socket.gethostname(),
        "cpu": _cpu_model(),
        "cpu_threads": torch.get_num_threads(),
        # What was asked for and what the process got: "one" names no core, the read-back mask does.
        "cpu_affinity": config.cpu_affinity,
        "cpu_cores": affinity.format_core_list(affinity.allowed_cores()),
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "python": f"{platform.python_version()} ({sys.executable})",
        "triton": preflight.triton_version() or "none",
        "device": config.device,
        "cuda_module_loading": os.environ.get("CUDA_MODULE_LOADING", "unset (torch default: LAZY)"),
        "cuda_cache_path": os.environ.get("CUDA_CACHE_PATH", "unset (default ~/.nv/ComputeCache)"),
    }
    if config.compiled:
        env["start"] = start  # STEPSCOPE_START (it replaced the configuration's compile_cache)
        for var in ("STEPSCOPE_BUNDLE_LOAD", "STEPSCOPE_BUNDLE_SAVE"):
            if os.environ.get(var):
                env[var.lower()] = os.environ[var]
        for var, directory in preflight.cache_dirs().items():
            env[var.lower()] = directory
    if torch.cuda.is_available():
        env["cuda_runtime"] = torch.version.cuda or "unknown"
        driver_api = gpu_state_reader.cuda_driver_api()
        if driver_api:
            env["cuda_driver_api"] = driver_api
        env["cudnn"] = dotted_cudnn(torch.backends.cudnn.version())
        index = (torch.device(config.device).index or 0) if config.on_cuda else 0
        if index < torch.cuda.device_count():
            p = torch.cuda.get_device_properties(index)
            env["gpu"] = p.name
            env["gpu_sms"] = p.multi_processor_count
            env["gpu_memory_mib"] = p.total_memory >> 20
            env["gpu_cc"] = f"{p.major}.{p.minor}"
            # Which card of a several-GPU host ran it, whatever CUDA_VISIBLE_DEVICES did to the index.
            env["gpu_index"] = index
            env["gpu_uuid"] = _uuid_text(getattr(p, "uuid", ""))
            env["gpu_pci_bus_id"] = _pci_bus_id(torch, index)
            for key, value in gpu_state(torch, index).items():
                env["driver" if key == "nvidia_driver" else "before_" + key] = value
    else:
        env["gpu"] = "none (CUDA not available)"
    return env


def _uuid_text(uuid):
    # torch prints the UUID without nvidia-smi's "GPU-" prefix; the store keeps nvidia-smi's spelling.
    text = str(uuid)
    return text if not text or text.startswith("GPU-") else "GPU-" + text


def _pci_bus_id(torch, index):
    try:
        p = torch.cuda.get_device_properties(index)
        return f"{p.pci_domain_id:08x}:{p.pci_bus_id:02x}:{p.pci_device_id:02x}.0".upper()
    except (AttributeError, RuntimeError):
        return "unknown"


def dotted_cudnn(v):
    # 91900 -> 9.19.0, as the native worker writes it.
    if not v:
        return "none"
    return f"{v // 10000}.{(v % 10000) // 100}.{v % 100}"
