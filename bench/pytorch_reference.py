"""Plain-PyTorch reference for the native ledger: the same ResNet18 step in eager Python, one
configuration per process, median of CUDA-event step times. Used on the GPU machine to check the
native engine against PyTorch on the same card in the same session (docs/results/).

    python3 bench/pytorch_reference.py --batch 32 --knobs tf32,cudnn,bf16,cl,graph
    TORCHINDUCTOR_CACHE_DIR=$(mktemp -d) TRITON_CACHE_DIR=$(mktemp -d) \
        python3 bench/pytorch_reference.py --batch 32 --knobs tf32,cudnn,bf16,cl --compile reduce-overhead

With --compile the model is compiled (torch.compile(model, mode=...)), as Stepscope's default
compile target does; give fresh cache directories for a cold first step.
"""
import argparse
import json
import time

import torch
import torchvision


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--image-size", type=int, default=224)
    ap.add_argument("--knobs", default="", help="comma list of tf32,cudnn,bf16,cl,graph,fused")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--compile", default="", help="torch.compile mode for the model (default, reduce-overhead, ...)")
    a = ap.parse_args()
    knobs = set(k for k in a.knobs.split(",") if k)
    t_start = time.perf_counter()
    torch.backends.cuda.matmul.allow_tf32 = "tf32" in knobs
    torch.backends.cudnn.allow_tf32 = "tf32" in knobs
    torch.backends.cudnn.benchmark = "cudnn" in knobs
    dev = torch.device("cuda")
    torch.manual_seed(0)
    model = torchvision.models.resnet18().to(dev).train()
    x = torch.randn(a.batch, 3, a.image_size, a.image_size, device=dev)
    y = torch.randint(0, 1000, (a.batch,), device=dev)
    if "cl" in knobs:
        model = model.to(memory_format=torch.channels_last)
        x = x.to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9,
                          foreach="fused" not in knobs, fused="fused" in knobs)
    dtype = torch.bfloat16 if "bf16" in knobs else None
    fwd = torch.compile(model, mode=a.compile) if a.compile else model

    def step():
        # None, as the engine does: inside a graph, backward then writes fresh gradients from the
        # graph's pool instead of a zeroing and accumulating kernel per parameter on every replay.
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=dtype or torch.float32, enabled=dtype is not None,
                            cache_enabled="graph" not in knobs):
            loss = torch.nn.functional.cross_entropy(fwd(x), y)
        loss.backward()
        opt.step()
        return loss

    torch.cuda.synchronize()
    setup = time.perf_counter() - t_start
    t0 = time.perf_counter()
    if "graph" in knobs:
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                step()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            step()
        run = g.replay
    else:
        run = step
    run()
    torch.cuda.synchronize()
    first = time.perf_counter() - t0
    for _ in range(a.warmup):
        run()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(a.steps)]
    for s_, e_ in ev:
        s_.record()
        run()
        e_.record()
    torch.cuda.synchronize()
    ms = sorted(s_.elapsed_time(e_) for s_, e_ in ev)
    print(json.dumps({"knobs": a.knobs or "baseline", "compile": a.compile or "none", "batch": a.batch, "setup_s": round(setup, 3),
                      "first_step_s": round(first, 3), "median_ms": round(ms[len(ms) // 2], 3),
                      "p10_ms": round(ms[len(ms) // 10], 3), "p90_ms": round(ms[9 * len(ms) // 10], 3)}))


if __name__ == "__main__":
    main()
