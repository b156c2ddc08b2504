"""`--doctor`: what this environment can run, one protocol `doctor` line per item, each ok / warn /
fail with the fix. stepscope-cli doctor and the dashboard's Environment view show them."""
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

from . import environment, preflight, processes, protocol, toolchain

# The tiny compile's folder under Stepscope's cache root (leftovers.h: kDoctorPrefix).
DOCTOR_FOLDER_PREFIX = "doctor-"


def _line(item, status, value, fix=""):
    protocol.doctor(item, status, value, fix)
    return status != "fail"


def _tiny_compile(torch, device):
    """A 5-second compile of a tiny function: proves dynamo, inductor and the code generator
    (a C++ compiler on the CPU, Triton on CUDA) work end to end. Its caches, precompiled headers
    included, go to a folder of its own under Stepscope's cache root (STEPSCOPE_COMPILE_CACHE_ROOT,
    which the front-ends pass), removed afterwards; one a killed doctor leaves names its owner, and
    the next sweep or doctor removes it (core/supervisor/leftovers.h)."""
    root = os.environ.get("STEPSCOPE_COMPILE_CACHE_ROOT") or None
    cache = processes.make_owned_folder(DOCTOR_FOLDER_PREFIX, parent=root)
    env_before = {k: os.environ.get(k) for k in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR", "TMPDIR")}
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(cache, "inductor")
    os.environ["TRITON_CACHE_DIR"] = os.path.join(cache, "triton")
    # inductor also makes <temp folder>/torchinductor_<user> (default_cache_dir()) whatever the
    # variables say, and the compiler writes its scratch files there: the doctor's go with its folder.
    os.environ["TMPDIR"] = os.path.join(cache, "tmp")
    os.makedirs(os.environ["TMPDIR"])
    tempdir_before, tempfile.tempdir = tempfile.tempdir, os.environ["TMPDIR"]
    try:
        toolchain.keep_headers_in_cache_dir()
        fn = torch.compile(lambda x: (x.sin() + x.cos()).relu().sum())
        t0 = time.perf_counter()
        x = torch.randn(64, device=device)
        got = fn(x)
        want = (x.sin() + x.cos()).relu().sum()
        if not torch.allclose(got, want, rtol=1e-4, atol=1e-4):
            raise RuntimeError(f"compiled result {got.item()} differs from eager {want.item()}")
        return time.perf_counter() - t0
    finally:
        tempfile.tempdir = tempdir_before
        for k, v in env_before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(cache, ignore_errors=True)


def _toolchain_lines(device):
    """The C++ compiler and the Python headers inductor's generated code needs: a fail on the CPU
    (every compile there is C++), a warning on CUDA. True when both are there."""
    missing_status = "warn" if device.startswith("cuda") else "fail"
    name, path = toolchain.cxx_compiler()
    have_compiler = path is not None
    if have_compiler:
        try:
            version = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10).stdout
            _line("c++ compiler", "ok", f"{path}: {preflight.first_line(version)}")
        except Exception as exc:  # noqa: BLE001
            _line("c++ compiler", "warn", f"{path} does not answer: {exc}")
    else:
        source = "CXX" if os.environ.get("CXX") else "CXX is unset, so inductor runs g++"
        _line("c++ compiler", missing_status, f"{name} is not on PATH ({source})",
              f"torch.compile builds C++ with it: {toolchain.INSTALL_HINT}, or set CXX to a C++ compiler.")
    folder, have_headers = toolchain.python_headers()
    if have_headers:
        _line("python headers", "ok", os.path.join(folder, "Python.h"))
    else:
        _line("python headers", missing_status, f"no Python.h in {folder}",
              f"torch.compile's C++ includes it: {toolchain.INSTALL_HINT} (the headers of this Python, "
              f"{platform.python_version()}).")
    return (have_compiler and have_headers) or missing_status == "warn"


def run(device):
    """Each problem is a fail line, never a traceback."""
    if device not in ("cpu", "cuda") and not (device.startswith("cuda:") and device[5:].isdigit()):
        return 0 if _line("device", "fail", device, "Use --device cpu, cuda or cuda:N.") else 1
    try:
        return _run(device)
    except Exception as exc:  # noqa: BLE001
        _line("doctor", "fail", f"{type(exc).__name__}: {preflight.first_line(exc)}",
              "Run the worker's --doctor by hand to see the whole trace.")
        return 1


def _run(device):
    # Read before torch is imported: inductor sets TORCHINDUCTOR_CACHE_DIR for its own subprocesses.
    user_env = {k: os.environ.get(k) for k in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR")}
    ok = _line("python version", "ok", f"{platform.python_version()} ({sys.executable})")
    try:
        torch = preflight.import_torch()
    except preflight.WorkerFailure as failure:
        _line("torch", "fail", failure.message,
              "Run `stepscope-cli setup` for an environment of Stepscope's own, or point STEPSCOPE_PYTHON at a Python that has torch.")
        return 1
    try:
        preflight.check_torch_version(torch)
        ok &= _line("torch", "ok", torch.__version__)
    except preflight.WorkerFailure as failure:
        ok &= _line("torch", "fail", failure.message,
                    "Run `stepscope-cli setup` to install the torch Stepscope was built for into an environment of its own.")
    try:
        import torchvision

        ok &= _line("torchvision", "ok", torchvision.__version__)
    except ImportError as exc:
        ok &= _line("torchvision", "fail", str(exc), "pip install the torchvision release that matches torch "
                                                     "(0.26 for torch 2.11).")

    cuda = torch.cuda.is_available()
    if device.startswith("cuda"):
        index = torch.device(device).index or 0
        if cuda and index >= torch.cuda.device_count():
            ok &= _line("gpu", "fail", f"{device} does not exist; torch sees {torch.cuda.device_count()} device(s)",
                        "Pick an existing device, and check CUDA_VISIBLE_DEVICES.")
        elif cuda:
            p = torch.cuda.get_device_properties(index)
            ok &= _line("gpu", "ok", f"{p.name} (cc {p.major}.{p.minor}, {p.total_memory >> 20} MiB)")
            ok &= _line("cuda", "ok", f"runtime {torch.version.cuda}, cuDNN {environment.dotted_cudnn(torch.backends.cudnn.version())}")
            state = {}
            try:
                state = {"sm_clock_mhz": torch.cuda.clock_rate(), "temperature_c": torch.cuda.temperature()}
                _line("clocks", "ok", f"SM {state['sm_clock_mhz']} MHz, {state['temperature_c']} C")
            except Exception as exc:
                _line("clocks", "warn", f"not readable ({preflight.first_line(exc)})",
                      "pip install nvidia-ml-py to let Stepscope record clocks and throttling.")
        else:
            ok &= _line("gpu", "fail", "CUDA is not available to torch",
                        "Check nvidia-smi and the driver, or run on --device cpu.")
    else:
        _line("gpu", "ok" if cuda else "warn", "CUDA available" if cuda else "none: CPU only",
              "" if cuda else "Figures on the CPU answer the CPU's question; use a GPU machine for GPU figures.")

    have = preflight.triton_version()
    wanted, source = preflight.required_triton(torch.__version__)
    mismatch = preflight.triton_mismatch(have, torch.__version__) if have else None
    if have is None:
        status = "fail" if device.startswith("cuda") else "warn"
        ok &= _line("triton", status, f"missing (torch wants {wanted or 'none'}: {source})",
                    "pip install the Triton that torch requires; inductor needs it on CUDA.")
    elif mismatch:
        ok &= _line("triton", "fail", mismatch, "Install the Triton it names.")
    else:
        _line("triton", "ok", f"{have}" + (f" (torch wants {wanted})" if wanted else ""))

    toolchain_ok = _toolchain_lines(device)
    ok &= toolchain_ok

    budget = preflight.path_budget()
    root = os.environ.get("STEPSCOPE_COMPILE_CACHE_ROOT")
    if root:
        # The deepest Triton cache a run gets (core/supervisor/start_caches.cpp): the sweep's folder,
        # then again-<16 hex> (longer than fresh-<run id> or shipped-<run id>), then triton.
        need = preflight.predicted_path_length(os.path.join(root, "sweep-XXXXXX", "again-" + "0" * 16, "triton"))
        status = "ok" if need < budget else "fail"
        ok &= _line("start caches", status,
                    f"{root}: one sweep-* folder per sweep (removed with it); longest kernel path about "
                    f"{need} of {budget}",
                    "" if status == "ok" else "Choose a shorter --cache-dir.")
    for var in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR"):
        if user_env.get(var):
            _line(var.lower(), "warn", f"{user_env[var]} is set, and Stepscope replaces it for compiled runs",
                  "Nothing to do for Stepscope; other programs in this shell share that cache.")
    _line("path budget", "ok" if budget > 260 else "warn", f"{budget} characters",
          "" if budget > 260 else "Enable long paths on Windows, or keep cache directories short.")

    try:
        seconds = _tiny_compile(torch, device if (device.startswith("cuda") and cuda) else "cpu")
        ok &= _line("compile readiness", "ok", f"a tiny torch.compile took {seconds:.1f} s")
    except Exception as exc:  # noqa: BLE001
        ok &= _line("compile readiness", "fail", f"a tiny torch.compile failed: {toolchain.describe(exc)}",
                    "Install what the rows above say is missing first." if not toolchain_ok else
                    f"A missing header or library is the usual cause on the CPU ({toolchain.INSTALL_HINT}), "
                    "a broken Triton on CUDA.")
    return 0 if ok else 1
