"""Process bookkeeping for data-parallel runs: children that die with their parents, and reading
another process's state from /proc (Linux; elsewhere the answers are "unknown" and nothing fails).

The supervisor stops a worker by signalling its pid alone, SIGTERM then SIGKILL three seconds on
(core/supervisor/worker_process.cpp), never its process group; and torchrun starts each rank in a
session of its own. So no group signal reaches every process of a run: each process asks the
kernel to kill it when its parent dies (PR_SET_PDEATHSIG), the chain coordinator -> torchrun ->
ranks, and the coordinator also signals the ranks it knows by pid.
"""
import ctypes
import ctypes.util
import os
import signal
import socket
import sys
import tempfile
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def _prctl():
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def die_with_parent():
    """Asks for SIGKILL when the parent ends; True if the kernel took it (False elsewhere)."""
    prctl = _prctl()
    return prctl is not None and prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0


def adopt_orphans():
    """Makes this process the parent of its descendants' orphans (PR_SET_CHILD_SUBREAPER): ranks
    left by a torchrun that was killed come here to be reaped, not to an init that may never reap
    them (a container's first process often does not). True if the kernel took it."""
    prctl = _prctl()
    return prctl is not None and prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def reap_children():
    """Reaps every child that has ended (adopted orphans among them), without waiting."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def death_with_parent_hook():
    """A preexec_fn for Popen: the child dies with this process. The libc function is looked up
    here, before the fork, so that the child only makes the call. A parent that died between the
    fork and the call never sends the signal, hence the check of the parent's pid after it."""
    prctl = _prctl()
    parent = os.getpid()
    if prctl is None:
        return None

    def hook():
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)

    return hook


def free_loopback_port():
    """A TCP port free on 127.0.0.1 just now (torchrun's store binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stat_fields(pid):
    """The fields of /proc/PID/stat after the command name (field 3 onwards), or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def running(pid):
    """Whether `pid` is a process that has not ended (a zombie has ended)."""
    fields = _stat_fields(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def zombie_status(pid):
    """The wait status of an ended, not yet reaped process (field 52 of /proc/PID/stat, Linux 3.5
    on), or None: read before its parent reaps it, it says how a process we are not the parent of
    ended."""
    fields = _stat_fields(pid)
    if fields is None or fields[0] != "Z" or len(fields) < 50:
        return None
    try:
        return int(fields[49])
    except ValueError:
        return None


def describe_status(status):
    """'exit code 9' or 'signal 9 (SIGKILL)' for a wait status."""
    if os.WIFSIGNALED(status):
        return describe_signal(os.WTERMSIG(status))
    return f"exit code {os.WEXITSTATUS(status)}"


def describe_signal(number):
    try:
        return f"signal {number} ({signal.Signals(number).name})"
    except ValueError:
        return f"signal {number}"


def has_env(pid, name, value):
    """Whether process `pid` was started with name=value in its environment: a pid read from a file
    is signalled only if it is still that process, not one that reused the number."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return f"{name}={value}".encode() in f.read().split(b"\0")
    except OSError:
        return False


def signal_group_or_process(pid, sig):
    """`sig` to the process group led by `pid` (a rank leads its own: torchrun starts each in a new
    session, and whatever it starts stays in it), or to `pid` alone if it leads none."""
    try:
        if os.getpgid(pid) == pid:
            os.killpg(pid, sig)
        else:
            os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


OWNER_FILE = "owner"


def make_owned_folder(prefix, parent=None):
    """A private folder <parent>/<prefix><pid>-<random> (parent: TMPDIR when None, made when missing)
    with the owner file that core/supervisor/leftovers.h defines ("pid N", "host NAME", "made
    SECONDS"): a process that is killed cannot remove its folder, and the next sweep on this host
    removes it once this pid is gone."""
    if parent:
        os.makedirs(parent, exist_ok=True)
    folder = tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=parent)
    with open(os.path.join(folder, OWNER_FILE), "w", encoding="utf-8") as owner:
        owner.write(f"pid {os.getpid()}\nhost {socket.gethostname()}\nmade {int(time.time())}\n")
    return folder
