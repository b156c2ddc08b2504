"""What inductor's C++ compiles need from the machine, what they say when it is missing, and where
they leave their files. The doctor checks the first before its tiny compile, and shows the second
when that compile fails; the worker and the doctor both call keep_headers_in_cache_dir().

On Linux inductor runs $CXX, else g++ (torch 2.11, torch._inductor.config.cpp.cxx), and every C++
file it writes includes Python.h from this interpreter's include folder (sysconfig's "include"):
Debian's g++ and python3-dev packages. Only torch.compile needs them, so the .deb recommends them
(installer/Packaging.cmake) rather than depending on them, and the doctor names what is missing.
"""
import os
import re
import shutil
import sysconfig

from .failure import first_line

INSTALL_HINT = "apt install g++ python3-dev"


def cxx_compiler(environ=None):
    """(name, path): the compiler inductor will run, and where PATH finds it (None: nowhere)."""
    environ = os.environ if environ is None else environ
    name = environ.get("CXX") or "g++"
    return name, shutil.which(name, path=environ.get("PATH"))


def python_headers(include_dir=None):
    """(folder, present): the folder inductor includes Python.h from, and whether it holds it."""
    folder = include_dir or sysconfig.get_paths()["include"]
    return folder, os.path.isfile(os.path.join(folder, "Python.h"))


# A compiler's diagnostic: "file:line:col: fatal error: Python.h: No such file or directory",
# "collect2: error: ld returned 1 exit status".
_ERROR = re.compile(r"\b(fatal error|error)\b:")


def compiler_error(exc):
    """The compiler's own first error line when `exc` is (or wraps) inductor's CppCompileError, else
    "". Its message opens with "C++ compile error" and the whole command; what went wrong is in the
    compiler's output below, and that is what a person needs to read."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        output = getattr(exc, "output", None)
        if type(exc).__name__ == "CppCompileError" and isinstance(output, str):
            return _first_error(output)
        exc = getattr(exc, "inner_exception", None) or exc.__cause__ or exc.__context__
    return ""


def _first_error(output):
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return next((line for line in lines if _ERROR.search(line)), lines[0] if lines else "no output")


def describe(exc):
    """One line for a failed compile: the compiler's first error, else the exception's first line."""
    return compiler_error(exc) or first_line(exc) or type(exc).__name__


def keep_headers_in_cache_dir():
    """Moves inductor's precompiled headers (over 100 MB with g++) into TORCHINDUCTOR_CACHE_DIR.
    torch 2.11 keeps them in <temp folder>/torchinductor_<user>/precompiled_headers whatever that
    variable says (codecache._HEADER_DIR, fixed when the module is first imported), so without this
    a compile fills the system's temporary folder, and a fresh start would find the headers an
    earlier process precompiled. Nothing happens when the variable is unset or torch has no such
    folder any more."""
    cache = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    if not cache:
        return
    from torch._inductor import codecache

    if hasattr(codecache, "_HEADER_DIR"):
        codecache._HEADER_DIR = os.path.join(cache, "precompiled_headers")
        codecache._HEADER_LOCK_DIR = os.path.join(codecache._HEADER_DIR, "locks")
