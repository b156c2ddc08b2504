"""The ranks' protocol streams merged into the one stream a worker speaks (world_size > 1).

What the supervisor reads is what one worker says, in the order one worker says it, with the run's
figures those of the whole job: a data-parallel step is as slow as its slowest rank.

- hello: rank 0's environment and the job's ("world_size", "ddp_backend", ...); model: rank 0's
  (every rank counts the same model at the same per-rank batch);
- ready once every rank is ready; first_step: the slowest rank's;
- rank_steps: each rank's own steps, as they come; steps: for each step every rank has reported,
  the slowest rank's wall and GPU time, from step 1 on, in order;
- phase: as any rank says it (a rank that still compiles keeps the supervisor's silence timeout
  alive while the others wait for it in a collective), never going back in time within a phase,
  and not before ready;
- compile, gpu_state, check: rank 0's, once the steps it had reported before them are out;
- memory: the largest peaks of all ranks; done: once every rank is done, the slowest mean.

Errors are not merged here: the coordinator decides which failure names the run.
"""
from . import protocol


class RankStreams:
    def __init__(self, world_size, hello_extra, setup_seconds, profile_problem=""):
        """`setup_seconds()`: the job's setup time when every rank is ready (the coordinator's
        process start to then: the ranks' own clocks start later)."""
        self.world_size = world_size
        self.setup_seconds = setup_seconds
        self.hello_extra = {k: str(v) for k, v in hello_extra.items()}
        self.profile_problem = profile_problem  # said before done when a profile was asked for
        self.ready = set()
        self.first_step = {}
        self.steps = [{} for _ in range(world_size)]  # rank -> {step index: (gpu_ms or None, wall_ms)}
        self.memory = {}
        self.done = {}
        self.next_step = 1  # the first step not yet in the merged `steps`
        # Rank 0's messages in its order, each said when every rank has said its own: the merged
        # stream keeps the order of one worker's (a `steps` entry lets the merged steps up to its last).
        self.spine = []
        self.phase = None  # (name, elapsed_s) last said, or held until ready is out
        self.ready_said = False
        self.finished = False

    # -- input ------------------------------------------------------------------------------
    def feed(self, rank, message):
        """One line of `rank`'s stream, in its order; errors and unknown lines are the caller's."""
        kind = message.get("type")
        if kind == "steps":
            first, gpu, wall = message["first"], message.get("gpu_ms") or [], message["wall_ms"]
            protocol.rank_steps(rank, first, gpu, wall)
            for i, wall_ms in enumerate(wall):
                self.steps[rank][first + i] = (gpu[i] if gpu else None, wall_ms)
        elif kind == "phase":
            self._phase(message)
        elif kind == "ready":
            self.ready.add(rank)
        elif kind == "first_step":
            self.first_step[rank] = message["wall_s"]
        elif kind == "memory":
            self.memory[rank] = (message["peak_allocated"], message["peak_reserved"])
        elif kind == "done":
            self.done[rank] = message
        if rank == 0 and kind in ("hello", "model", "ready", "first_step", "steps", "compile", "gpu_state", "memory", "check",
                                  "done"):
            self.spine.append(message)

    def _phase(self, message):
        name, elapsed = message["phase"], message["elapsed_s"]
        if self.phase is None or self.phase[0] != name or elapsed > self.phase[1]:
            self.phase = (name, elapsed)
            # A rank that is ready may start compiling while another still sets up: a worker says
            # ready before any phase, so the latest is held until then.
            if self.ready_said:
                protocol.phase(name, elapsed)

    # -- output -----------------------------------------------------------------------------
    def pump(self):
        """Writes whatever the ranks' lines so far allow, in a worker's order."""
        while self.spine and self._say(self.spine[0]):
            self.spine.pop(0)

    def _merged_steps(self, last):
        """The merged `steps` up to step `last`, as far as every rank has reported them."""
        run = []  # consecutive steps complete on every rank: (gpu_ms or None, wall_ms)
        while self.next_step <= last and all(self.next_step in steps for steps in self.steps):
            per_rank = [steps.pop(self.next_step) for steps in self.steps]
            gpu = [g for g, _ in per_rank]
            run.append((max(gpu) if None not in gpu else None, max(w for _, w in per_rank)))
            self.next_step += 1
        first = self.next_step - len(run)
        # One line per stretch with or without GPU times (step 1 has none): a line's gpu_ms is
        # empty or as long as its wall_ms.
        while run:
            has_gpu = run[0][0] is not None
            n = next((i for i, (g, _) in enumerate(run) if (g is not None) != has_gpu), len(run))
            protocol.steps(first, [g for g, _ in run[:n]] if has_gpu else [], [w for _, w in run[:n]])
            first += n
            run = run[n:]

    def _say(self, message):
        """Writes `message` of rank 0 if its turn has come; False to wait."""
        kind = message["type"]
        if kind == "steps":
            last = message["first"] + len(message["wall_ms"]) - 1
            self._merged_steps(last)
            return self.next_step > last
        if kind == "hello":
            protocol.hello({**message.get("env", {}), **self.hello_extra})
        elif kind == "ready":
            if len(self.ready) < self.world_size:
                return False
            protocol.ready(self.setup_seconds())
            self.ready_said = True
            if self.phase:
                protocol.phase(*self.phase)
        elif kind == "first_step":
            if len(self.first_step) < self.world_size:
                return False
            protocol.first_step(max(self.first_step.values()))
        elif kind == "memory":
            if len(self.memory) < self.world_size:
                return False
            protocol.memory(max(a for a, _ in self.memory.values()), max(r for _, r in self.memory.values()))
        elif kind == "done":
            if len(self.done) < self.world_size:
                return False
            if self.profile_problem:
                protocol.profile(0, problem=self.profile_problem)
            protocol.done(message["steps"], max(m["mean_wall_ms"] for m in self.done.values()))
            self.finished = True
        else:
            protocol.emit(message)  # model, compile, gpu_state, check: rank 0's as it said them
        return True
