"""One ResNet18 SGD training step under a configuration: the same model, data, seed, loss and
update rule as the native engine (core/engine/training_step.cpp), with the knobs as Python calls.
"""
import torch
import torch.nn.functional as F
import torchvision

from .failure import WorkerFailure

LEARNING_RATE = 0.01
MOMENTUM = 0.9
RESNET18_PARAMETERS = 11_689_512  # torchvision's resnet18 with 1000 classes


def apply_global_flags(config):
    # Set both ways on purpose: PyTorch's own default allows TF32 in cuDNN, the native engine does
    # not, and "tf32 off" must mean the same thing in both runtimes.
    torch.backends.cuda.matmul.allow_tf32 = config.tf32
    torch.backends.cudnn.allow_tf32 = config.tf32
    torch.backends.cudnn.benchmark = config.cudnn_benchmark


def build_model(classes):
    model = torchvision.models.resnet18(num_classes=classes)
    count = sum(p.numel() for p in model.parameters())
    # The parameter count pins the architecture: 1000 classes must give torchvision's 11,689,512.
    expected = RESNET18_PARAMETERS - 513 * 1000 + 513 * classes
    if count != expected:
        raise WorkerFailure("internal", f"resnet18 has {count} parameters, expected {expected}",
                            f"torchvision {torchvision.__version__}")
    return model


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
        model = build_model(config.classes)
        if data_seed is not None:
            torch.manual_seed(data_seed)
        inputs = torch.randn(config.batch, 3, config.image_size, config.image_size)
        target = torch.randint(0, config.classes, (config.batch,), dtype=torch.long)
        self.model = model.to(device).train()
        self.input = inputs.to(device)
        self.target = target.to(device)
        if config.channels_last:
            self.model = self.model.to(memory_format=torch.channels_last)
            self.input = self.input.contiguous(memory_format=torch.channels_last)
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
            logits = self.forward_module(self.input)
            return F.cross_entropy(logits, self.target)

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
