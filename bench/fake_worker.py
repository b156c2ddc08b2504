#!/usr/bin/env python3
"""A stand-in worker for dashboard_bench: speaks the worker protocol and streams many steps fast,
so the dashboard's whole path (supervisor thread, sample buffer, UI drain, live chart) is loaded
harder than a real ResNet18 step would load it.

    STEPSCOPE_FAKE_STEPS=100000 STEPSCOPE_FAKE_BATCH=16 fake_worker.py --config '{...}'
"""
import json
import math
import os
import sys
import time

steps = int(os.environ.get("STEPSCOPE_FAKE_STEPS", "100000"))
batch = int(os.environ.get("STEPSCOPE_FAKE_BATCH", "16"))
interval = float(os.environ.get("STEPSCOPE_FAKE_INTERVAL_S", "0.001"))


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


emit({"type": "hello", "protocol": 1, "env": {"worker": "fake (dashboard_bench)", "gpu": "none (fake)",
                                              "torch": "none", "device": "cpu"}})
emit({"type": "ready", "setup_s": 0.01})
emit({"type": "first_step", "wall_s": 0.5})
emit({"type": "steps", "first": 1, "gpu_ms": [], "wall_ms": [500.0]})
index = 2
while index <= steps:
    n = min(batch, steps - index + 1)
    # A warm-up that decays, then a noisy plateau: something for the steady-state detection to do.
    wall = [7.0 + 5.0 * math.exp(-(index + i) / 50.0) + 0.3 * math.sin(index + i) for i in range(n)]
    emit({"type": "steps", "first": index, "gpu_ms": [], "wall_ms": wall})
    index += n
    time.sleep(interval)
emit({"type": "check", "losses": [6.9] * 10})
emit({"type": "done", "steps": steps, "mean_wall_ms": 7.0})
