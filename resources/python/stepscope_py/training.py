"""One SGD training step under a configuration, with the knobs as Python calls. For ResNet18 the
same model, data, seed, loss and update rule as the native engine (core/engine/training_step.cpp);
another model (models.py) brings its own batch and loss.
"""
import torch

from . import model_facts, models

LEARNING_RATE = 0.01
MOMENTUM = 0.9
def apply_global_flags(config):
    # Set both ways on purpose: PyTorch's own default allows TF32 in cuDNN, the native engine does
    # not, and "tf32 off" must mean the same thing in both runtimes.
    torch.backends.cuda.matmul.allow_tf32 = config.tf32
    torch.backends.cudnn.allow_tf32 = config.tf32
    torch.backends.cudnn.benchmark = config.cudnn_benchmark


def _to(inputs, device):
    if isinstance(inputs, torch.Tensor):
        return inputs.to(device)
    if isinstance(inputs, dict):
        return {k: _to(v, device) for k, v in inputs.items()}
    if isinstance(inputs, (tuple, list)):
        return tuple(_to(v, device) for v in inputs)
    return inputs  # a number or a flag a factory's batch may carry


def _channels_last(inputs):
    if isinstance(inputs, torch.Tensor):
        return inputs.contiguous(memory_format=torch.channels_last) if inputs.dim() == 4 else inputs
    if isinstance(inputs, dict):
        return {k: _channels_last(v) for k, v in inputs.items()}
    if isinstance(inputs, (tuple, list)):
        return tuple(_channels_last(v) for v in inputs)
    return inputs


class TrainingStep:
    """Holds the model, the fixed batch and the optimizer; step() runs one training step.

    A data-parallel rank (rank.py) passes `wrap`, which turns the model on its device into the
    module the step runs (DistributedDataParallel), and `data_seed`, its own batch's seed."""

    def __init__(self, config, device, wrap=None, data_seed=None):
        self.config = config
        self.device = device
        # Weights, then data, from the CPU generator seeded once: the order the native engine uses,
        # so both runtimes start from the same numbers for the same seed.
        torch.manual_seed(config.seed)
        self.workload = models.build(config)
        models.check_knobs(self.workload, config)
        if data_seed is not None:
            torch.manual_seed(data_seed)
        # On the CPU, then moved: the generator's order is the native engine's (images, then targets).
        self.input, self.target = self.workload.make_batch(config.batch, torch.device("cpu"))
        # Counted here, before anything reaches the run's device (model_facts.py says how and why).
        self.model_facts, self.count_seconds = model_facts.facts(self.workload, self.input, self.target)
        self.input, self.target = _to(self.input, device), self.target.to(device)
        self.model = self.workload.model.to(device).train()
        if config.channels_last:
            self.model = self.model.to(memory_format=torch.channels_last)
            self.input = _channels_last(self.input)
        self.optimizer = torch.optim.SGD(
            self.model.parameters(), lr=LEARNING_RATE, momentum=MOMENTUM,
            foreach=config.optimizer == "foreach", fused=config.optimizer == "fused")
        self.dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(config.autocast)
        self.scaler = torch.amp.GradScaler(device.type, init_scale=65536.0) if config.autocast == "fp16" else None
        self.forward_module = wrap(self.model) if wrap else self.model
        # PyTorch's recipe for capturing DDP: at least 11 DDP-enabled eager iterations first
        # (DDP settles its buckets over the first ones); 3 suffice for a plain model.
        self.capture_warmup = 11 if wrap else 3
        self.loss = None
        self.graph = None
        self._step_fn = self._eager_step

    # -- the step ---------------------------------------------------------------------------
    def _forward_loss(self):
        with torch.autocast(self.device.type, dtype=self.dtype, enabled=self.dtype is not None):
            if isinstance(self.input, dict):
                output = self.forward_module(**self.input)
            elif isinstance(self.input, tuple):
                output = self.forward_module(*self.input)
            else:
                output = self.forward_module(self.input)
            return self.workload.loss(output, self.target)

    def _update(self, loss):
        if self.scaler is None:
            loss.backward()
            self.optimizer.step()
        else:
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()

    def _eager_step(self):
        self.optimizer.zero_grad(set_to_none=True)
        loss = self._forward_loss()
        self._update(loss)
        return loss

    def use_compiled(self, compile_fn):
        """compile_fn(callable) -> compiled callable; applies it to the module the step runs (the
        DDP module on a rank) or to the whole step."""
        if self.config.compile_target == "model":
            self.forward_module = compile_fn(self.forward_module)
        else:
            self._step_fn = compile_fn(self._eager_step)

    def step(self):
        if self.config.cuda_graph:
            if self.graph is None:
                self._capture()
            self.graph.replay()
            return
        self.loss = self._step_fn()

    # -- whole-step CUDA graph (PyTorch's whole-network capture recipe) -----------------------
    def _capture(self):
        # Warm-up on a side stream with lr 0, as the native engine does: lazy initialisation
        # happens before capture, the weights stay where eager starts, and the momentum the
        # warm-up touched is reset.
        side = torch.cuda.Stream(self.device)
        side.wait_stream(torch.cuda.current_stream(self.device))
        for group in self.optimizer.param_groups:
            group["lr"] = 0.0
        with torch.cuda.stream(side):
            for _ in range(self.capture_warmup):
                self._eager_step()
        torch.cuda.current_stream(self.device).wait_stream(side)
        torch.cuda.synchronize(self.device)
        with torch.no_grad():
            for group in self.optimizer.param_groups:
                group["lr"] = LEARNING_RATE
            for state in self.optimizer.state.values():
                if state.get("momentum_buffer") is not None:
                    state["momentum_buffer"].zero_()
            if self.scaler is not None:
                self.scaler._scale.fill_(65536.0)
                self.scaler._growth_tracker.zero_()
        # Gradients None before capture: backward inside the graph writes fresh ones from the
        # graph's pool instead of zeroing and accumulating into old ones on every replay.
        self.optimizer.zero_grad(set_to_none=True)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.loss = self._forward_loss()
            self._update(self.loss)
