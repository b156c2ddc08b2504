#!/usr/bin/env python3
"""Checks the GPU's total-energy counter, which both workers read (issue 31.4), against its power
draw polled every 10 ms and integrated over the same window (trapezoids): the figures should agree
within 2%. The GPU runs a matmul loop for the window so that power is high and moving.

    python3 bench/energy_counter_check.py [SECONDS] [MATRIX]

Prints one line per window (counter joules, integrated joules, their difference in %) and exits 1
when a window differs by more than 2%. Needs a CUDA GPU with NVML (Volta or later).
"""
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "resources", "python"))

import torch  # noqa: E402

from stepscope_py import gpu_state  # noqa: E402


def window(seconds, size, index=0):
    a = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
    samples = []
    stop = threading.Event()

    def poll():
        while not stop.is_set():
            samples.append((time.perf_counter(), gpu_state.power_mw(torch, index)))
            time.sleep(0.01)

    torch.cuda.synchronize()
    poller = threading.Thread(target=poll)
    start_mj, problem = gpu_state.energy_mj(torch, index)
    if start_mj is None:
        sys.exit(f"no figure: {problem}")
    t0 = time.perf_counter()
    poller.start()
    while time.perf_counter() - t0 < seconds:
        for _ in range(20):
            a = (a @ b).tanh_()
        torch.cuda.synchronize()
    end_mj, _ = gpu_state.energy_mj(torch, index)
    t1 = time.perf_counter()
    stop.set()
    poller.join()
    inside = [(t, p) for t, p in samples if p is not None and t0 <= t <= t1]
    integrated = sum((t2 - t1_) * (p1 + p2) / 2 for (t1_, p1), (t2, p2) in zip(inside, inside[1:])) / 1000.0
    covered = inside[-1][0] - inside[0][0] if len(inside) > 1 else 0
    # The polls cover a little less than the window: scale to its length (the power at its edges is
    # the loop's, as in the middle).
    integrated *= (t1 - t0) / covered if covered else 0
    counter = (end_mj - start_mj) / 1000.0
    return counter, integrated, t1 - t0, len(inside)


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 8192
    print(f"GPU: {torch.cuda.get_device_name(0)}; torch {torch.__version__}; {seconds:.0f} s windows, {size}x{size} bf16 matmuls")
    worst = 0.0
    for i in range(3):
        counter, integrated, length, polls = window(seconds, size)
        diff = 100.0 * (counter - integrated) / integrated
        worst = max(worst, abs(diff))
        print(f"window {i + 1}: counter {counter:.1f} J, polled power integrated {integrated:.1f} J "
              f"({polls} polls over {length:.2f} s, mean {counter / length:.0f} W): {diff:+.2f}%")
    print(f"largest difference {worst:.2f}% ({'within' if worst <= 2 else 'beyond'} 2%)")
    return 0 if worst <= 2 else 1


if __name__ == "__main__":
    sys.exit(main())
