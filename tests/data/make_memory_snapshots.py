"""Writes the memory snapshot fixtures of the tests (tests/core/test_memory_timeline.cpp, the
supervisor's): a small snapshot in the shape torch.cuda.memory._snapshot() gives, pickled as
Python's pickle.dump does (protocol 4, what the Python worker writes) and at protocol 2 (the memo
opcodes LibTorch's pickler uses). Plain Python, no torch:

    python3 tests/data/make_memory_snapshots.py tests/data

The step it holds, in MiB: parameters (5, allocated before history was recorded, so without frames)
in a 20 MiB segment; then +4 (conv1), +8 (layer1), a 2 MiB segment, +1 (a gradient, still live at
the end), -4, +2 (the loss), -8, -2. Allocated: 5 9 17 17 18 14 16 8 6, peak 18 after the gradient;
reserved 20 then 22. Live at the peak: 8 (layer1), 5 (parameters), 4 (conv1), 1 (the gradient).
"""
import pickle
import sys

MIB = 1 << 20
BASE = 0x7F0000000000  # above 2**31: addresses take LONG1, as real ones do
SEG2 = BASE + 0x2000000


def frame(filename, line, name):
    return {"filename": filename, "line": line, "name": name}


TORCH = "/venv/lib/python3.11/site-packages/torch/nn/modules/module.py"
RESNET = "/venv/lib/python3.11/site-packages/torchvision/models/resnet.py"
CONV1 = [frame(TORCH, 1775, "_call_impl"), frame(RESNET, 268, "_forward_impl")]
LAYER1 = [frame(RESNET, 270, "_forward_impl"), frame("/work/train.py", 12, "step")]
GRAD = [frame("??", 0, "??"), frame("/work/train.py", 40, "step")]
LOSS = [frame("/work/train.py", 30, "loss")]


def event(action, addr, size, t, frames=()):
    return {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": t, "frames": list(frames),
            "compile_context": "", "user_metadata": ""}


def snapshot():
    params = {"address": BASE, "size": 5 * MIB, "requested_size": 5 * MIB, "state": "active_allocated", "frames": []}
    free1 = {"address": BASE + 5 * MIB, "size": 15 * MIB, "requested_size": 0, "state": "inactive", "frames": []}
    grad = {"address": SEG2, "size": 1 * MIB, "requested_size": 1 * MIB, "state": "active_allocated", "frames": GRAD}
    free2 = {"address": SEG2 + MIB, "size": 1 * MIB, "requested_size": 0, "state": "inactive", "frames": []}
    segments = [
        {"device": 0, "address": BASE, "total_size": 20 * MIB, "allocated_size": 5 * MIB, "active_size": 5 * MIB,
         "requested_size": 5 * MIB, "stream": 0, "segment_type": "large", "segment_pool_id": (0, 0),
         "is_expandable": False, "frames": [], "blocks": [params, free1]},
        {"device": 0, "address": SEG2, "total_size": 2 * MIB, "allocated_size": MIB, "active_size": MIB,
         "requested_size": MIB, "stream": 0, "segment_type": "large", "segment_pool_id": (0, 0),
         "is_expandable": False, "frames": [], "blocks": [grad, free2]},
    ]
    x1, x2, x3 = BASE + 5 * MIB, BASE + 9 * MIB, BASE + 5 * MIB
    trace = [
        event("alloc", x1, 4 * MIB, 1000, CONV1),
        event("alloc", x2, 8 * MIB, 1100, LAYER1),
        event("segment_alloc", SEG2, 2 * MIB, 1200),
        event("alloc", SEG2, 1 * MIB, 1250, GRAD),
        # Frees carry where they happened, not where the block came from: autograd frees from its C++
        # thread, with no Python frames (the summary must name a block by its alloc's frames).
        event("free_requested", x1, 4 * MIB, 1300),
        event("free_completed", x1, 4 * MIB, 1301),
        event("alloc", x3, 2 * MIB, 1400, LOSS),
        event("free_completed", x2, 8 * MIB, 1500),
        event("free_completed", x3, 2 * MIB, 1600, LOSS),
    ]
    return {"segments": segments, "device_traces": [trace], "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": ""},
            "external_annotations": [], "categories": []}


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    for protocol, name in ((4, "memory-snapshot-step.pickle"), (2, "memory-snapshot-step-p2.pickle")):
        with open(f"{out}/{name}", "wb") as f:
            pickle.dump(snapshot(), f, protocol=protocol)
