#!/usr/bin/env python3
"""Issue 31's memory check on a CUDA machine: the peak allocated memory Stepscope stores for a run
against what plain PyTorch reports for the same training step (torch.cuda.max_memory_allocated over
the same number of steps, in a process of its own). Stepscope's workers hold a few tensors of their
own besides the step (the losses of the accuracy check, the step timer's events): they should cost
under 1%.

    python3 bench/peak_memory_check.py STEPSCOPE_CLI [BATCH] [STEPS]

Runs ResNet18 at BATCH (default 32) x 224 x 224, bf16 autocast + channels-last, SGD with momentum
(Stepscope's step), for STEPS steps (default 20): once in plain PyTorch (this file, a child process),
then as one Stepscope run in each worker (`stepscope-cli run --single`). Prints the three peaks and
their ratios; exits 1 when a worker's peak is more than 1% from plain PyTorch's.
"""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

PLAIN = r"""
import sys, torch, torchvision
batch, steps = int(sys.argv[1]), int(sys.argv[2])
torch.manual_seed(0)
device = torch.device("cuda")
model = torchvision.models.resnet18(num_classes=1000).to(device).train().to(memory_format=torch.channels_last)
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x = torch.randn(batch, 3, 224, 224, device=device).contiguous(memory_format=torch.channels_last)
y = torch.randint(0, 1000, (batch,), device=device)
for _ in range(steps):
    opt.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
torch.cuda.synchronize()
print(torch.cuda.max_memory_allocated(device), torch.cuda.max_memory_reserved(device))
"""


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    cli = sys.argv[1]
    batch = int(sys.argv[2]) if len(sys.argv) > 2 else 32
    steps = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    plain = subprocess.run([sys.executable, "-c", PLAIN, str(batch), str(steps)], capture_output=True, text=True)
    if plain.returncode != 0:
        print("plain PyTorch failed:", plain.stderr[-2000:])
        return 1
    plain_alloc, plain_reserved = (int(v) for v in plain.stdout.split()[-2:])
    mib = 1024.0 * 1024.0
    print(f"plain PyTorch: peak allocated {plain_alloc / mib:.1f} MiB, reserved {plain_reserved / mib:.1f} MiB")
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "peak.sqlite")
        for runtime in ("python", "native"):
            cmd = [cli, "--db", db, "run", "--single", "--runtime", runtime, "--device", "cuda", "--batch", str(batch),
                   "--steps", str(steps), "--autocast", "bf16", "--channels-last", "--no-profile", "--start", "fresh"]
            done = subprocess.run(cmd, capture_output=True, text=True)
            row = sqlite3.connect(db).execute(
                "SELECT peak_allocated, peak_reserved, status, message FROM runs ORDER BY id DESC LIMIT 1").fetchone()
            if done.returncode != 0 or not row or row[0] is None:
                print(f"{runtime}: no figure (rc {done.returncode}): {row[3] if row else done.stderr[-1000:]}")
                worst = float("inf")
                continue
            ratio = row[0] / plain_alloc
            worst = max(worst, abs(ratio - 1))
            print(f"{runtime} worker: peak allocated {row[0] / mib:.1f} MiB ({ratio:.4f}x plain), "
                  f"reserved {row[1] / mib:.1f} MiB ({row[1] / plain_reserved:.4f}x)")
    print(json.dumps({"batch": batch, "steps": steps, "worst_allocated_difference": worst}))
    return 0 if worst <= 0.01 else 1


if __name__ == "__main__":
    sys.exit(main())
