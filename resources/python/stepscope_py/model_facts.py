"""What a run's model is, for the supervisor's record (issue 30.4): its description, its parameter
count, and the FLOPs of one training step at the run's batch, counted by PyTorch's own counter
(torch.utils.flop_counter), so that TFLOP/s and the share of the GPU's peak hold for any model and
not for ResNet18 alone.

The count runs on the "meta" device, never on the run's device: the first step is a measured figure,
and a count on the GPU would warm what it pays for (CUDA's lazily loaded modules, cuDNN's plans and
autotuning, the caching allocator, inductor's caches). Meta tensors carry shapes and no data, so the
count allocates nothing and computes nothing whatever the batch: it takes the run's own batch, not a
small one scaled up (a model's FLOPs need not be linear in the batch: attention over a sequence is
not in its length, and a batch-dependent branch would be missed). Nor does it copy the model: the
real module runs once under torch.func.functional_call with meta stand-ins for its parameters and
buffers, so its weights, its batch-norm statistics and the random generators (the data comes after
the weights from the same seeded generator) are as they were.

A model whose forward or loss reads a value (`.item()`, a data-dependent branch) cannot run on meta:
the count then fails, and the record says why and carries no figure rather than a guess.
"""
import time

import torch

# Where a figure came from, as the store keeps it (FlopsSource in core/common/model_facts.h).
FLOP_COUNTER = "torch.utils.flop_counter"


def _meta(value):
    if isinstance(value, torch.Tensor):
        return value.to("meta")
    if isinstance(value, dict):
        return {k: _meta(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(_meta(v) for v in value)
    return value


def parameter_count(model):
    return sum(p.numel() for p in model.parameters())


def count_training_flops(workload, inputs, target):
    """(forward FLOPs, training FLOPs, problem) of one step of `workload` on `inputs` and `target`
    (the run's batch, on any device: only their shapes are read). The training figure is forward,
    loss and backward, as torch.utils.flop_counter counts them (a multiply-add is two; matmuls,
    convolutions and attention, not element-wise work). FLOPs are None with a problem when the
    count failed."""
    from torch.func import functional_call
    from torch.utils.flop_counter import FlopCounterMode

    model = workload.model
    stand_ins = {name: torch.empty_like(p, device="meta").requires_grad_(p.requires_grad)
                 for name, p in model.named_parameters()}
    stand_ins.update({name: torch.empty_like(b, device="meta") for name, b in model.named_buffers()})
    meta_inputs, meta_target = _meta(inputs), _meta(target)
    try:
        # fork_rng: dropout draws nothing on meta, but a model's own code might; the CPU generator
        # (the one the data is drawn from) is left as it was. devices=[]: CUDA's is never touched.
        with torch.random.fork_rng(devices=[]), FlopCounterMode(display=False) as counter:
            if isinstance(meta_inputs, dict):
                output = functional_call(model, stand_ins, (), meta_inputs)
            elif isinstance(meta_inputs, tuple):
                output = functional_call(model, stand_ins, meta_inputs)
            else:
                output = functional_call(model, stand_ins, (meta_inputs,))
            loss = workload.loss(output, meta_target)
            forward = counter.get_total_flops()
            loss.backward()
            training = counter.get_total_flops()
    except Exception as exc:  # any model's code: whatever it raises on meta tensors is the reason
        return None, None, f"the model cannot run on the meta device ({type(exc).__name__}: {str(exc)[:200]})"
    if training <= 0:
        return None, None, "torch.utils.flop_counter counted no FLOPs in this model's step"
    return float(forward), float(training), ""


def facts(workload, inputs, target):
    """The `model` message's fields (protocol.model_facts), and the seconds the count took (outside
    the run's setup figure: it is Stepscope's work, not the model's)."""
    start = time.perf_counter()
    forward, training, problem = count_training_flops(workload, inputs, target)
    message = {"description": workload.description, "parameters": parameter_count(workload.model)}
    if problem:
        message["flops_problem"] = problem
    else:
        message.update({"forward_flops": forward, "training_flops": training, "flops_source": FLOP_COUNTER})
    return message, time.perf_counter() - start
