"""The coordinator of a data-parallel run (world_size > 1): the process the supervisor started.

It launches the ranks through torch.distributed's own launcher (torchrun) and speaks for them:

    coordinator (this process; stdout is the protocol)
      └── python -m torch.distributed.run ... stepscope_worker.py --config JSON   (stdout and
            └── rank 0 .. W-1 (rank.py)                                           stderr: our log)
                  each writes its protocol lines to <run dir>/rank-R.jsonl

and merges the ranks' lines into one stream (rank_streams.py). It names every failure, and ends
every rank of a run that fails: a rank's own error (its category kept, the message prefixed with
its rank), a rank or torchrun that ends without a word, or a hang, where one rank stays behind the
others' step in silence. A cancel (SIGTERM, SIGINT) is passed to the ranks, which stop and say so.

No process of a run outlives it: torchrun and each rank die with their parent (processes.py), and
the coordinator signals torchrun and the ranks it knows by pid, SIGTERM and then SIGKILL.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

from . import processes
from . import rank as rank_mod
from .failure import WorkerFailure, first_line
from .rank_streams import RankStreams

LAUNCHER = "torch.distributed.run"
POLL_S = 0.05
HANG_ENV = "STEPSCOPE_DDP_HANG_S"
HANG_S = 120.0
SETTLE_S = 0.5  # after a first failure, the others' words are awaited: the cause may come second
END_GRACE_S = 5.0  # SIGTERM to SIGKILL when a failed run is ended
CANCEL_GRACE_S = 2.0  # the supervisor's SIGKILL follows its SIGTERM 3 s on
LEAVE_S = 10.0  # after done, the time torchrun and the ranks have to leave before they are ended
GONE_S = 2.0  # after SIGKILL, the wait for the processes to be gone

# Which failure names the run when several came (lower first): a rank's own error is the cause,
# a silent death or a hang next; the errors of the peers a death leaves behind are consequences.
OWN_ERROR, SILENT_END, HANG, DISTRIBUTED_ERROR, LAUNCHER_END, RANK_CANCELLED = range(6)


def backend(config):
    return "nccl" if config.on_cuda else "gloo"


def rank_devices(config):
    return ["cuda:%d" % r if config.on_cuda else "cpu" for r in range(config.world_size)]


def preflight(torch, config):
    """What the ranks need, checked once here, before anything starts."""
    import torch.distributed as dist

    if not dist.is_available():
        raise WorkerFailure("distributed-failed", f"this torch ({torch.__version__}) was built without "
                                                  "torch.distributed; world_size > 1 needs it")
    if not config.on_cuda:
        return
    if not torch.cuda.is_available():
        raise WorkerFailure("cuda-unavailable", "CUDA is not available to torch in this Python",
                            f"torch {torch.__version__}, device {config.device}, world_size {config.world_size}")
    count = torch.cuda.device_count()
    if count < config.world_size:
        raise WorkerFailure("cuda-unavailable", f"world_size {config.world_size} needs {config.world_size} CUDA "
                                                f"devices, one a rank; {count} are visible",
                            f"CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES', '(unset)')}")
    if not dist.is_nccl_available():
        raise WorkerFailure("distributed-failed", f"this torch ({torch.__version__}) has no NCCL; "
                                                  "data-parallel steps on CUDA need it")


class _Tail:
    """The complete lines written so far to a rank's stream, as they come."""

    def __init__(self, path):
        self.path = path
        self.file = None
        self.partial = b""

    def lines(self):
        if self.file is None:
            try:
                self.file = open(self.path, "rb")
            except FileNotFoundError:
                return []
        data = self.partial + self.file.read()
        *complete, self.partial = data.split(b"\n")
        return [line.decode("utf-8", "replace") for line in complete if line.strip()]

    def close(self):
        if self.file:
            self.file.close()


class _LauncherLog:
    """Copies torchrun's output (and the ranks', which share it) to our stderr, and keeps what its
    failure summary says of each rank: "rank : 1 (local_rank: 1)" then "exitcode : 9 (pid: 123)"."""

    _RANK = re.compile(rb"^\s*rank\s*:\s*(\d+)")
    _EXIT = re.compile(rb"^\s*exitcode\s*:\s*(-?\d+)")

    def __init__(self, stream):
        self.stream = stream
        self.exit_codes = {}  # rank -> exit code as torchrun gives it (negative: the signal)
        self.last_error = ""  # the last line that names an exception, for a torchrun that failed alone
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        last_rank = None
        out = sys.stderr.buffer if hasattr(sys.stderr, "buffer") else None
        for line in iter(self.stream.readline, b""):
            if out:
                out.write(line)
                out.flush()
            if re.match(rb"^[\w.]*(Error|Exception)\b", line):
                self.last_error = line.decode("utf-8", "replace").strip()[:500]
            m = self._RANK.match(line)
            if m:
                last_rank = int(m.group(1))
            m = self._EXIT.match(line)
            if m and last_rank is not None:
                self.exit_codes[last_rank] = int(m.group(1))
        self.stream.close()

    def join(self, timeout):
        self.thread.join(timeout)


def _how(code):
    """torchrun's exit code of a rank in words: negative codes are signals."""
    return processes.describe_signal(-code) if code < 0 else f"exit code {code}"


class Coordinator:
    def __init__(self, config, config_json, cancel, process_start, profile_steps=0):
        self.config = config
        self.config_json = config_json
        self.cancel = cancel
        self.process_start = process_start
        self.world = config.world_size
        self.hang_s = float(os.environ.get(HANG_ENV) or HANG_S)
        self.dir = None
        self.torchrun = None
        self.log = None
        self.port = None
        problem = ""
        if profile_steps > 0:
            problem = f"profiles of data-parallel steps are not taken (world_size {self.world})"
        self.profile_problem = problem
        self.streams = None
        self.tails = []
        self.pids = [None] * self.world  # from the ranks' state files
        self.begun = [0] * self.world  # the last step each rank has begun
        self.heard = [0.0] * self.world  # when each rank last said or did something (monotonic)
        self.behind_since = [None] * self.world
        self.said = [None] * self.world  # "done" or "error" once a rank has said its last word
        # (priority, time, rank, the failure if it is known now, the wait status or exit code of a
        # process that ended without a word)
        self.events = []

    # -- the run ------------------------------------------------------------------------------
    def run(self):
        """None when the run is done (the stream said so), else the failure that names it."""
        # Owned (core/supervisor/leftovers.h): a coordinator killed here leaves it to the next sweep.
        self.dir = processes.make_owned_folder("stepscope-ddp-")
        try:
            self._launch()
            return self._watch()
        finally:
            self._end(END_GRACE_S)
            for tail in self.tails:
                tail.close()
            shutil.rmtree(self.dir, ignore_errors=True)

    def _launch(self):
        self.port = processes.free_loopback_port()
        script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "stepscope_worker.py")
        # Its log directory in the run's, which goes with the run (left to itself, torchrun leaves a
        # torchelastic_* directory in the temp directory on every run).
        command = [sys.executable, "-m", LAUNCHER, "--nnodes=1", f"--nproc-per-node={self.world}",
                   "--master-addr=127.0.0.1", f"--master-port={self.port}", "--max-restarts=0",
                   "--monitor-interval=0.5", f"--log-dir={os.path.join(self.dir, 'launcher')}",
                   script, "--config", self.config_json]
        env = {**os.environ, rank_mod.RANK_DIR_ENV: self.dir, "PYTHONUNBUFFERED": "1"}
        processes.adopt_orphans()
        # Not a new session or group: the supervisor signals the worker's pid only, and torchrun
        # dies with us (preexec_fn); a terminal's Ctrl-C reaches it as it reaches us.
        self.torchrun = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=subprocess.STDOUT, preexec_fn=processes.death_with_parent_hook())
        self.log = _LauncherLog(self.torchrun.stdout)
        self.tails = [_Tail(rank_mod.stream_path(self.dir, r)) for r in range(self.world)]
        now = time.monotonic()
        self.heard = [now] * self.world
        hello = {"world_size": self.world, "ddp_backend": backend(self.config), "ddp_launcher": LAUNCHER,
                 "ddp_master_port": self.port, "ddp_rank_devices": ",".join(rank_devices(self.config))}
        self.streams = RankStreams(self.world, hello, lambda: time.perf_counter() - self.process_start,
                                   self.profile_problem)

    def _watch(self):
        settle_until = None
        while True:
            self._read()
            self.streams.pump()
            if self.streams.finished:
                self._leave()
                return None
            if self.cancel.is_set():
                return self._cancelled()
            now = time.monotonic()
            self._check_ends(now)
            hang = self._check_hang(now)
            if self.events and settle_until is None:
                settle_until = now + (0 if hang else SETTLE_S)
            if settle_until is not None and now >= settle_until:
                break
            time.sleep(POLL_S)
        self._end(END_GRACE_S)
        self._read()
        return self._failure()

    # -- what the ranks say and do ------------------------------------------------------------
    def _read(self, ranks=None):
        for r in (range(self.world) if ranks is None else ranks):
            state = rank_mod.read_state(rank_mod.state_path(self.dir, r))
            if state:
                self.pids[r] = state[0]
                if state[1] != self.begun[r]:
                    self.begun[r] = state[1]
                    self.heard[r] = time.monotonic()
            for line in self.tails[r].lines():
                try:
                    message = json.loads(line)
                except ValueError:
                    print(f"stepscope_worker: rank {r} wrote a line that is not JSON: {line[:200]}", file=sys.stderr)
                    continue
                self.heard[r] = time.monotonic()
                self._take(r, message)

    def _take(self, r, message):
        kind = message.get("type")
        if kind == "error":
            self.said[r] = self.said[r] or "error"
            category = message.get("category", "internal")
            priority = (RANK_CANCELLED if category == "cancelled" else
                        DISTRIBUTED_ERROR if category == "distributed-failed" else OWN_ERROR)
            failure = WorkerFailure(category, f"rank {r}: {message.get('message', '')}", message.get("detail", ""))
            self.events.append((priority, time.monotonic(), r, failure, None))
            return
        if kind == "done":
            self.said[r] = "done"
        self.streams.feed(r, message)

    def _check_ends(self, now):
        """Ranks, or torchrun, that ended without saying done or error."""
        for r, pid in enumerate(self.pids):
            if pid is None or self.said[r] or self._event_of(r):
                continue
            status = processes.zombie_status(pid)
            if status is None and processes.running(pid):
                continue
            self._read([r])  # its last lines may have come after this round's reading
            if not self.said[r]:
                self.events.append((SILENT_END, now, r, None, status))
        if self.torchrun.poll() is not None and not self.streams.finished:
            self._read()
            silent = [r for r in range(self.world) if not self.said[r] and not self._event_of(r)]
            if silent and not self.events:
                self.events.append((LAUNCHER_END, now, silent[0], None, self.torchrun.returncode))

    def _event_of(self, r):
        return any(e[2] == r for e in self.events)

    def _check_hang(self, now):
        """A rank behind another's step, in silence, for hang_s: True once one is found."""
        top = max(self.begun)
        for r in range(self.world):
            if self.said[r] or self.begun[r] >= top:
                self.behind_since[r] = None
                continue
            if self.behind_since[r] is None:
                self.behind_since[r] = now
            silent = now - self.heard[r]
            if now - self.behind_since[r] >= self.hang_s and silent >= self.hang_s:
                ahead = self.begun.index(top)
                failure = WorkerFailure(
                    "distributed-failed",
                    f"rank {r} silent for {silent:.0f} s at step {self.begun[r]} while rank {ahead} reached step "
                    f"{top} (a hang in a collective?); all ranks were ended",
                    f"steps begun by rank: {self.begun}; {HANG_ENV}={self.hang_s:g}")
                self.events.append((HANG, now, r, failure, None))
                return True
        return False

    # -- how it ends ----------------------------------------------------------------------------
    def _failure(self):
        """The failure that names the run, from the events seen (the lowest priority first)."""
        priority, _, r, failure, status = min(self.events, key=lambda e: (e[0], e[1]))
        if failure is not None:
            return failure
        if priority == SILENT_END:
            # The wait status read while it was a zombie, else what torchrun's summary said.
            how = (processes.describe_status(status) if status is not None else
                   _how(self.log.exit_codes[r]) if r in self.log.exit_codes else "exit status unknown")
            return self._silent_end(r, how)
        # torchrun ended first: its summary names the rank that failed, when it got to write it.
        named = sorted(rank for rank in self.log.exit_codes if rank < self.world and not self.said[rank])
        if named:
            return self._silent_end(named[0], _how(self.log.exit_codes[named[0]]))
        if not any(self.pids):
            said = f": {self.log.last_error}" if self.log.last_error else " (its log is in the worker's log)"
            return WorkerFailure("distributed-failed",
                                 f"{LAUNCHER} ended ({_how(status)}) before any rank started{said}",
                                 self._facts())
        return WorkerFailure("distributed-failed",
                             f"{LAUNCHER} ended ({_how(status)}) while rank {r} had said nothing {self._at(r)}; "
                             "the other ranks were ended (its log is in the worker's log)", self._facts())

    def _at(self, r):
        return f"at step {self.begun[r]}" if self.begun[r] else "before its first step"

    def _silent_end(self, r, how):
        return WorkerFailure("distributed-failed",
                             f"rank {r} ended without a word ({how}) {self._at(r)}; the other ranks were ended",
                             self._facts())

    def _facts(self):
        return (f"world_size {self.world}, backend {backend(self.config)}, master port {self.port}; "
                f"pids {self.pids}; steps begun {self.begun}; last words {self.said}; torchrun's exit codes "
                f"{self.log.exit_codes if self.log else {}}")

    def _cancelled(self):
        """Passes the cancel on: the ranks stop between steps and say so, or are ended."""
        self._signal_all(signal.SIGTERM)
        deadline = time.monotonic() + CANCEL_GRACE_S
        while time.monotonic() < deadline and not all(self.said):
            self._read()
            self.streams.pump()
            if self.streams.finished:  # done before the cancel reached the steps: a complete run
                self._leave()
                return None
            time.sleep(POLL_S)
        self._end(0)
        words = [e[3].message for e in self.events if e[3] is not None and e[3].category == "cancelled"]
        return WorkerFailure("cancelled", words[0] if words else "cancelled", self._facts())

    def _leave(self):
        """After done: torchrun and the ranks leave on their own, or are ended."""
        try:
            self.torchrun.wait(LEAVE_S)
        except subprocess.TimeoutExpired:
            print(f"stepscope_worker: torchrun still running {LEAVE_S:.0f} s after done; ending it", file=sys.stderr)

    def _our_ranks(self):
        return [pid for pid in self.pids
                if pid is not None and processes.has_env(pid, rank_mod.RANK_DIR_ENV, self.dir)]

    def _signal_all(self, sig):
        if self.torchrun and self.torchrun.poll() is None:
            self.torchrun.send_signal(sig)
        for pid in self._our_ranks():
            processes.signal_group_or_process(pid, sig)

    def _all_gone(self):
        return (self.torchrun is None or self.torchrun.poll() is not None) and \
            not any(processes.running(pid) for pid in self._our_ranks())

    def _wait_gone(self, seconds):
        deadline = time.monotonic() + seconds
        while not self._all_gone() and time.monotonic() < deadline:
            time.sleep(POLL_S)
        return self._all_gone()

    def _end(self, grace):
        """SIGTERM to torchrun and the ranks, SIGKILL `grace` seconds on, and their going awaited."""
        if self.torchrun is None:
            return
        if not self._all_gone() and grace > 0:
            self._signal_all(signal.SIGTERM)
            self._wait_gone(grace)
        if not self._all_gone():
            self._signal_all(signal.SIGKILL)
            self._wait_gone(GONE_S)
        try:
            self.torchrun.wait(GONE_S)
        except subprocess.TimeoutExpired:
            print("stepscope_worker: torchrun did not end after SIGKILL", file=sys.stderr)
        processes.reap_children()  # after torchrun's own wait: it must not be reaped by another
        if self.log:
            self.log.join(GONE_S)


def coordinate(config, config_json, cancel, process_start, profile_steps=0):
    """The data-parallel run of `config`: None when done, else the failure to report."""
    try:
        return Coordinator(config, config_json, cancel, process_start, profile_steps).run()
    except OSError as exc:
        return WorkerFailure("distributed-failed", f"could not launch the ranks with {LAUNCHER}: {first_line(exc)}")
