#!/usr/bin/env python3
"""Checks the memory timeline (issue 31.2) on a CUDA machine: one ResNet18 training step recorded
the way the Python worker records it (resources/python/stepscope_py/memory_snapshot.py), its
snapshot summarised by Stepscope's own reader (bench/memory_snapshot_summary, the supervisor's code),
and the summary's peak allocated and reserved held against torch.cuda.max_memory_allocated and
max_memory_reserved over the same step (the peaks reset right before it). They should agree within
1%; the pickle should also load with Python's own pickle, as memory_viz's reader needs.

    python3 bench/memory_timeline_check.py BUILD_BIN_DIR [BATCH] [IMAGE]

BUILD_BIN_DIR holds memory_snapshot_summary (a build with benches: build/bin or build-gpu/bin).
Prints the figures and the biggest blocks; exits 1 when a peak differs by more than 1%.
"""
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "resources", "python"))

import torch  # noqa: E402
import torchvision  # noqa: E402

from stepscope_py import memory_snapshot  # noqa: E402


class Step:
    """ResNet18, SGD with momentum, cross-entropy: the worker's default step (training.py)."""

    def __init__(self, batch, image):
        self.model = torchvision.models.resnet18().cuda()
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.01, momentum=0.9)
        self.x = torch.randn(batch, 3, image, image, device="cuda")
        self.y = torch.randint(0, 1000, (batch,), device="cuda")

    def step(self):
        self.opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(self.model(self.x), self.y)
        loss.backward()
        self.opt.step()


class Said:
    """Catches the worker's protocol line instead of printing it."""

    def __init__(self):
        self.lines = []

    def __call__(self, kind, snapshot="", problem=""):
        self.lines.append({"kind": kind, "snapshot": snapshot, "problem": problem})


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    tool = os.path.join(sys.argv[1], "memory_snapshot_summary")
    batch = int(sys.argv[2]) if len(sys.argv) > 2 else 32
    image = int(sys.argv[3]) if len(sys.argv) > 3 else 224
    if not torch.cuda.is_available():
        print("no CUDA device: nothing to check", file=sys.stderr)
        return 1
    device = torch.device("cuda", 0)
    step = Step(batch, image)
    for _ in range(3):  # warm: the allocator's segments, cuDNN's plans, the optimizer's momentum
        step.step()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    said = Said()
    memory_snapshot.protocol.memory_snapshot = said  # the worker's line, kept here
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "memory.pickle")
        t0 = time.perf_counter()
        memory_snapshot.record_step(step, device, path)
        seconds = time.perf_counter() - t0
        reference_allocated = torch.cuda.max_memory_allocated()
        reference_reserved = torch.cuda.max_memory_reserved()
        if not said.lines or said.lines[-1]["problem"]:
            print(f"the worker's pass failed: {said.lines}", file=sys.stderr)
            return 1
        with open(path, "rb") as f:
            raw = f.read()
        pickle.loads(raw)  # memory_viz's reader takes what Python's takes (protocol 4)
        out = subprocess.run([tool, path], capture_output=True, text=True, check=False)
        if out.returncode != 0:
            print(f"memory_snapshot_summary failed: {out.stderr}", file=sys.stderr)
            return 1
        summary = json.loads(out.stdout)["summary"]
    mib = 1 << 20
    print(f"ResNet18 b{batch} {image}px on {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
    print(f"pass: {seconds:.2f} s, snapshot {len(raw) / mib:.1f} MiB, {summary['events']} allocator events, "
          f"{len(summary['points'])} points")
    failed = False
    for name, ours, theirs in (("allocated", summary["peak_allocated"], reference_allocated),
                               ("reserved", summary["peak_reserved"], reference_reserved)):
        diff = (ours - theirs) / theirs * 100 if theirs else float("inf")
        bad = abs(diff) > 1.0
        failed = failed or bad
        print(f"peak {name}: summary {ours / mib:.1f} MiB, torch.cuda.max_memory_{name} {theirs / mib:.1f} MiB, "
              f"{diff:+.2f}%{'  OVER 1%' if bad else ''}")
    if summary.get("note"):
        print(f"note: {summary['note']}")
    print(f"biggest blocks at the peak ({summary['live_blocks']} live):")
    for block in summary["blocks"][:5]:
        print(f"  {block['bytes'] / mib:8.1f} MiB  {' < '.join(block['frames']) or 'no stack'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
