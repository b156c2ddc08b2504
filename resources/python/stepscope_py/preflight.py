"""Checks made before anything is measured, each failing with a named category and its fix:
torch present and the version Stepscope was built for, Triton present and in torch's band, and
compile cache paths that will fit.
"""
import getpass
import importlib
import ntpath
import os
import posixpath
import re
import sys
import tempfile

from . import triton_windows
from .failure import WorkerFailure, first_line



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
        band = triton_windows.BANDS.get(version_tuple(torch_version)[:2])
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


def triton_install_hint(wanted, platform=None):
    """The pip command that installs the Triton `wanted` (a band on Windows, a pin elsewhere)."""
    if (platform or sys.platform).startswith("win"):
        return f'pip install "{triton_windows.requirement(wanted)}"'
    return f"pip install triton=={wanted.lstrip('<')}"


def triton_mismatch(have, torch_version, platform=None):
    """Why Triton `have` does not go with torch here, naming the fix, or None when it does (or when
    nothing says which Triton torch needs)."""
    wanted, source = required_triton(torch_version, platform)
    if not wanted or triton_matches(have, wanted):
        return None
    why = f"Triton {have} is installed but torch {torch_version} needs {wanted} ({source})"
    torch_minor = version_tuple(torch_version)[:2]
    if (torch_minor <= triton_windows.LAST_TORCH_WITH_ATTRS_DESCRIPTOR
            and version_tuple(have)[:2] >= triton_windows.FIRST_TRITON_WITHOUT_ATTRS_DESCRIPTOR):
        why += f": inductor fails on import with {triton_windows.ATTRS_DESCRIPTOR_ERROR}"
    return f"{why}; {triton_install_hint(wanted, platform)}"


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
    wanted, _ = required_triton(torch.__version__)
    if have is None:
        if config.on_cuda:
            raise WorkerFailure("triton-missing",
                                f"torch.compile with inductor on CUDA needs Triton{' ' + wanted if wanted else ''}, "
                                f"and {sys.executable} has none")
        return None
    if have.startswith("broken"):
        raise WorkerFailure("triton-version-mismatch", f"Triton cannot be imported: {have}")
    mismatch = triton_mismatch(have, torch.__version__)
    if mismatch:
        raise WorkerFailure("triton-version-mismatch", mismatch)
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


def path_budget(platform=None, long_paths=None):
    """The longest path the file system takes here: MAX_PATH on Windows without LongPathsEnabled."""
    if (platform or sys.platform).startswith("win"):
        enabled = long_paths_enabled() if long_paths is None else long_paths
        return 32767 if enabled else triton_windows.MAX_PATH
    try:
        return os.pathconf("/", "PC_PATH_MAX")
    except (AttributeError, OSError, ValueError):
        return 4096


def cache_dirs():
    """The compile caches set in the environment, as environment variable -> directory."""
    dirs = {}
    for var in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR"):
        if os.environ.get(var):
            dirs[var] = os.path.abspath(os.environ[var])
    return dirs


def _path_module(platform):
    return ntpath if (platform or sys.platform).startswith("win") else posixpath


def triton_cache_dir(environ=None, platform=None, temp_dir=None, user=None):
    """Where Triton's kernels go: TRITON_CACHE_DIR, else inductor's <cache>/triton/0, whose cache is
    TORCHINDUCTOR_CACHE_DIR or <temp folder>/torchinductor_<user> (inductor's default)."""
    environ = os.environ if environ is None else environ
    path = _path_module(platform)
    if environ.get("TRITON_CACHE_DIR"):
        return path.abspath(environ["TRITON_CACHE_DIR"])
    inductor = environ.get("TORCHINDUCTOR_CACHE_DIR")
    if not inductor:
        user = user if user is not None else getpass.getuser()
        inductor = path.join(temp_dir or tempfile.gettempdir(), "torchinductor_" + user)
    return path.join(path.abspath(inductor), *triton_windows.INDUCTOR_TRITON_SUBDIR)


def predicted_path_length(triton_dir, platform=None):
    """The longest path a compile writes below a Triton cache directory (triton_windows.py's layout)."""
    return (len(_path_module(platform).abspath(triton_dir)) + 1 + triton_windows.TRITON_KEY_CHARS + 1
            + triton_windows.TRITON_TEMP_DIR_CHARS + 1 + triton_windows.KERNEL_FILE_CHARS)


def cache_path_problem(environ=None, platform=None, long_paths=None, temp_dir=None, user=None):
    """Why a compile's kernel files will not fit here, naming the fix, or None when they will."""
    budget = path_budget(platform, long_paths)
    directory = triton_cache_dir(environ, platform, temp_dir, user)
    need = predicted_path_length(directory, platform)
    if need < budget:
        return None
    fix = ("set short TORCHINDUCTOR_CACHE_DIR and TRITON_CACHE_DIR (Stepscope's --compile-cache-dir), or set "
           "LongPathsEnabled (HKLM\\SYSTEM\\CurrentControlSet\\Control\\FileSystem) to 1"
           if budget == triton_windows.MAX_PATH else "choose a shorter compile cache directory")
    return (f"Triton's kernels go to {directory} ({len(directory)} characters); with its key folder, its "
            f"temporary folder and a fused kernel's file name a path reaches about {need} of the {budget} "
            f"this system allows: {fix}")


def check_cache_paths(config):
    """Predicts, before anything compiles, whether the kernels' files will fit under the cache
    directories: a compile that fails on a path minutes in is worse than a refusal now."""
    if not config.compiled:
        return
    problem = cache_path_problem()
    if problem:
        raise WorkerFailure("cache-path-too-long", problem,
                            "; ".join(f"{v}={os.environ.get(v, '')}" for v in ("TORCHINDUCTOR_CACHE_DIR",
                                                                               "TRITON_CACHE_DIR")))
