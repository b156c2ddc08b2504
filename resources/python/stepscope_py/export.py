"""A model other than ResNet18 for the native worker (issue 30.3): the Python side builds the run's
workload once, exactly as a Python run would (same seed, so the same weights and the same batch),
and traces its forward and loss into one TorchScript module that the native worker loads and trains
(core/engine/scripted_step.cpp): forward, loss, backward, the chosen SGD, autocast and CUDA graphs.

What the file holds, and why:
- The module's forward(*batch) returns the step's loss, so the native worker needs to know nothing
  of the model's inputs, head or loss: it calls forward with the batch tensors and backpropagates.
- The batch itself, as buffers named stepscope_batch_0..N (the target last), made from the run's
  seed on the CPU as a Python run makes it: both runtimes start from the same numbers, which is what
  makes "C++ against Python" a fair pair and lets a test compare their losses.
- Traced on the run's own device: a model that makes a tensor inside forward (position ids, masks)
  records that device in the trace, so a trace made on the CPU would not run on the GPU.
- Beside it, PATH.model.json: the run's `model` protocol line (model_facts.py: description,
  parameters, FLOPs), which the native worker sends as its own; it has no model code to count with.

Tracing, not scripting: scripting needs annotations most model code lacks. A trace records one path
through forward; a model whose forward branches on data would be recorded wrongly, and a batch that
is not all tensors cannot be traced: both are refused here by name (model-failed), and the sweep's
Python rows measure the model.
"""
import json
import time

import torch

from . import model_facts, models, protocol
from .failure import WorkerFailure, first_line

BATCH_PREFIX = "stepscope_batch_"  # engine/scripted_step.cpp reads the same names


def _flatten(inputs):
    """The batch's tensors in order, and how to put the model's arguments back together."""
    if isinstance(inputs, torch.Tensor):
        return [inputs], ("tensor", None)
    if isinstance(inputs, dict):
        keys = list(inputs)
        return [inputs[k] for k in keys], ("dict", keys)
    if isinstance(inputs, (tuple, list)):
        return list(inputs), ("tuple", len(inputs))
    return [inputs], ("tensor", None)


class _StepLoss(torch.nn.Module):
    """forward(*batch) -> the loss: the model and its loss as one module, for the trace."""

    def __init__(self, workload, layout, tensors):
        super().__init__()
        self.model = workload.model
        self.loss_of = workload.loss
        self.layout = layout
        for i, t in enumerate(tensors):
            self.register_buffer(f"{BATCH_PREFIX}{i}", t, persistent=True)

    def forward(self, *batch):
        *inputs, target = batch
        kind, shape = self.layout
        if kind == "dict":
            output = self.model(**dict(zip(shape, inputs)))
        elif kind == "tuple":
            output = self.model(*inputs)
        else:
            output = self.model(inputs[0])
        return self.loss_of(output, target)


def export(config, path, device):
    """Writes PATH (the traced module) and PATH.model.json; raises WorkerFailure("model-failed"),
    named, for a model that cannot be traced."""
    start = time.perf_counter()
    torch.manual_seed(config.seed)  # weights, then data: the order of training.TrainingStep
    workload = models.build(config)
    models.check_knobs(workload, config)
    inputs, target = workload.make_batch(config.batch, torch.device("cpu"))
    facts, _ = model_facts.facts(workload, inputs, target)
    facts["description"] += ", traced to TorchScript"
    tensors, layout = _flatten(inputs)
    odd = [type(t).__name__ for t in tensors if not isinstance(t, torch.Tensor)]
    if odd or not isinstance(target, torch.Tensor):
        raise WorkerFailure("model-failed",
                            f"{workload.description} cannot be traced to TorchScript: its batch holds a "
                            f"{(odd or [type(target).__name__])[0]} (a trace takes tensors only)",
                            "its Python rows measure it")
    batch = [t.to(device) for t in tensors] + [target.to(device)]
    module = _StepLoss(workload, layout, batch).to(device).train()
    try:
        traced = torch.jit.trace(module, tuple(batch), check_trace=False, strict=False)
        traced.save(path)
    except Exception as exc:  # noqa: BLE001: whatever tracing raises names why this model cannot go native
        raise WorkerFailure("model-failed",
                            f"{workload.description} could not be traced to TorchScript: {first_line(exc)}",
                            "its Python rows measure it; a factory of your own can return a model "
                            "torch.jit.trace takes (no data-dependent branches, tensors in and out)") from exc
    with open(path + ".model.json", "w", encoding="utf-8") as out:
        out.write(json.dumps(protocol._clean({"type": "model", **facts}), separators=(",", ":"), allow_nan=False))
        out.write("\n")
    return time.perf_counter() - start
