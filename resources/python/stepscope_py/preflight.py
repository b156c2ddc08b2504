"""Checks made before anything is measured, each failing with a named category and its fix:
torch present and the version Stepscope was built for, Triton present and in torch's band, and
compile cache paths that will fit.
"""
import importlib
import os
import re
import sys

from .failure import WorkerFailure, first_line

# On Windows torch does not pin Triton; the triton-windows project publishes which release goes
# with which torch. (torch minor -> triton-windows minor; 2.6 wants anything below 3.3.)
WINDOWS_TRITON_BANDS = {(2, 6): "<3.3", (2, 7): "3.3", (2, 8): "3.4", (2, 9): "3.5", (2, 10): "3.6"}

# What inductor and Triton put under a cache directory: a hash directory (Triton's base32 key is
# 52 characters) and a fused kernel's file name, which runs to about 110 characters for ResNet18's
# batch-norm fusions. Windows without long paths fails at 260 characters; POSIX at PATH_MAX.
HASH_DIR_CHARS = 1 + 52 + 1
KERNEL_FILE_CHARS = 110


def version_tuple(text):
    """(2, 11, 0) from '2.11.0+cu130' or '3.6.0'; missing parts are 0."""
    parts = re.findall(r"\d+", str(text).split("+")[0])[:3]
    return tuple(int(p) for p in parts) + (0,) * (3 - len(parts))


def import_torch():
    try:
        import torch  # noqa: F401
    except Exception as exc:  # ImportError, or OSError from a CUDA library that will not load
        raise WorkerFailure(
            "torch-missing",
            f"torch cannot be imported by {sys.executable}: {first_line(exc)}",
            f"{type(exc).__name__}: {exc}\nsys.path: {sys.path}",
        ) from None
    import torch

    return torch


def import_torchvision():
    """torchvision provides the model; one built for another torch fails on import or at first use."""
    try:
        import torchvision
    except Exception as exc:
        raise WorkerFailure(
            "torch-missing",
            f"torchvision cannot be imported by {sys.executable}: {first_line(exc)}; install the torchvision "
            "release that matches torch (0.26 for torch 2.11)",
            f"{type(exc).__name__}: {exc}\nsys.path: {sys.path}",
        ) from None
    return torchvision


def check_torch_version(torch, expected=None):
    """Fails when the worker's torch is not the one Stepscope was built for: the C++ engine and the
    Python worker would then measure different libraries under one label."""
    expected = expected if expected is not None else os.environ.get("STEPSCOPE_EXPECTED_TORCH", "")
    have = torch.__version__
    if expected and version_tuple(have) != version_tuple(expected):
        raise WorkerFailure(
            "torch-version-mismatch",
            f"the worker's torch is {have} but Stepscope was built for {expected} ({sys.executable})",
            f"torch at {getattr(torch, '__file__', '?')}",
        )
    if version_tuple(have) < (2, 4, 0):
        raise WorkerFailure("torch-too-old", f"torch {have} is older than 2.4, which Stepscope needs")


def required_triton(torch_version, platform=None):
    """The Triton version (or band) torch needs here, with where that came from; (None, why) when
    nothing says."""
    platform = platform or sys.platform
    if platform.startswith("win"):
        band = WINDOWS_TRITON_BANDS.get(version_tuple(torch_version)[:2])
        return (band, "triton-windows band for torch " + ".".join(map(str, version_tuple(torch_version)[:2]))) \
            if band else (None, "no known triton-windows band for this torch")
    try:
        from importlib import metadata

        for requirement in metadata.requires("torch") or []:
            m = re.match(r"^triton\s*==\s*([\w.]+)\s*(;(.*))?$", requirement.strip())
            if m and (not m.group(3) or "Linux" in m.group(3)):
                return m.group(1), "torch's package metadata"
    except Exception:  # torch installed without metadata (a source build)
        pass
    return None, "torch's metadata names no Triton (a CPU build of torch)"


def triton_matches(have, wanted):
    if wanted.startswith("<"):
        return version_tuple(have) < version_tuple(wanted[1:])
    want = version_tuple(wanted)
    # A band like "3.6" pins major.minor; an exact pin like "3.6.0" pins all three.
    n = len(re.findall(r"\d+", wanted))
    return version_tuple(have)[:n] == want[:n]


def triton_version():
    """Triton's version as imported (a stub first on PYTHONPATH wins, as it would for torch), or None."""
    try:
        triton = importlib.import_module("triton")
    except ImportError:
        return None
    except Exception as exc:  # a broken install: say so rather than crash later inside inductor
        return f"broken ({first_line(exc)})"
    return str(getattr(triton, "__version__", "unknown"))


def check_triton(torch, config):
    """Triton is needed by inductor on CUDA; where it is importable it must match torch's band
    on any device, because inductor imports it whenever it is there."""
    if not config.compiled or config.compile_backend != "inductor":
        return None
    have = triton_version()
    wanted, source = required_triton(torch.__version__)
    if have is None:
        if config.on_cuda:
            raise WorkerFailure("triton-missing",
                                f"torch.compile with inductor on CUDA needs Triton{' ' + wanted if wanted else ''}, "
                                f"and {sys.executable} has none")
        return None
    if have.startswith("broken"):
        raise WorkerFailure("triton-version-mismatch", f"Triton cannot be imported: {have}")
    if wanted and not triton_matches(have, wanted):
        raise WorkerFailure("triton-version-mismatch",
                            f"Triton {have} is installed but torch {torch.__version__} needs {wanted} ({source})")
    return have


def long_paths_enabled():
    if not sys.platform.startswith("win"):
        return True
    try:
        import winreg

        key = winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, r"SYSTEM\CurrentControlSet\Control\FileSystem")
        return winreg.QueryValueEx(key, "LongPathsEnabled")[0] == 1
    except OSError:
        return False


def path_budget():
    """The longest path the file system takes here."""
    if not long_paths_enabled():
        return 260
    try:
        return os.pathconf("/", "PC_PATH_MAX")
    except (AttributeError, OSError, ValueError):
        return 4096


def cache_dirs():
    """The compile caches in effect, as environment variable -> directory."""
    dirs = {}
    for var in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR"):
        if os.environ.get(var):
            dirs[var] = os.path.abspath(os.environ[var])
    return dirs


def predicted_path_length(directory):
    return len(os.path.abspath(directory)) + HASH_DIR_CHARS + KERNEL_FILE_CHARS


def check_cache_paths(config):
    """Predicts, before anything compiles, whether the kernels' files will fit under the cache
    directories: a compile that fails on a path minutes in is worse than a refusal now."""
    if not config.compiled:
        return
    budget = path_budget()
    for var, directory in cache_dirs().items():
        need = predicted_path_length(directory)
        if need >= budget:
            raise WorkerFailure(
                "cache-path-too-long",
                f"{var} is {len(directory)} characters; with a hash directory and a fused kernel's file "
                f"name the path reaches about {need} of the {budget} this system allows",
                f"{var}={directory}",
            )
