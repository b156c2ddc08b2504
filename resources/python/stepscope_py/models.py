"""The model a run trains (issue 30), built from the configuration's `model` name. The grammar is
core/config/model_name.h's (config.py has checked the name against it); this module splits it and
builds: the built-in ResNet18, a torchvision or timm model by name, a transformers architecture from
its config class (random weights, nothing downloaded), or the user's factory. Every one becomes a
Workload: the module, how to make the step's fixed batch, and the loss, so that the training step
(training.py) is the same code for all of them.

A factory is called with the name's ,key=value options as keyword arguments and returns either a
torch.nn.Module (an image classifier: N x 3 x image_size x image_size in, `classes` logits out) or a
dict saying what it takes:
    {"model": m, "input": "image", "image_shape": (3, 64, 64), "classes": 10}
    {"model": m, "input": "tokens", "sequence_length": 256, "vocab": 32000}
    {"model": m, "make_batch": fn(batch, device) -> (inputs, target), "loss": fn(output, target)}
"""
import importlib
import importlib.util
import os
import re
import sys
from dataclasses import dataclass
from typing import Callable

import torch
import torch.nn.functional as F

from .failure import WorkerFailure, first_line

DEFAULT_MODEL = "resnet18"  # kDefaultModel
RESNET18_PARAMETERS = 11_689_512  # torchvision's resnet18 with 1000 classes
_PREFIXES = ("torchvision", "timm", "hf")


@dataclass
class ModelName:
    source: str  # "resnet18", "torchvision", "timm", "hf", "module" or "file"
    name: str  # the model's name; for a factory its module or file
    factory: str = ""
    options: dict = None


@dataclass
class Workload:
    model: torch.nn.Module
    # (batch, device) -> (inputs, target); inputs a tensor, a tuple (positional) or a dict (keywords).
    # Called after the seed for the data is set, so that both runtimes draw the same numbers.
    make_batch: Callable
    loss: Callable  # (model output, target) -> a scalar tensor
    inputs: str  # "image" (N, C, H, W), "tokens" (N, L) or "custom"
    description: str  # for the log and the run's record: "timm:resnet50 (25.6 M parameters, images 3x224x224)"

    @property
    def four_d_inputs(self):
        return self.inputs == "image"


def _value(text):
    """An option's value as the builder wants it: an int, a float, a bool, or the text."""
    if re.fullmatch(r"[+-]?[0-9]+", text):
        return int(text)
    if text in ("true", "false"):
        return text == "true"
    try:
        return float(text)
    except ValueError:
        return text


def parse(text):
    """Splits a model name of the grammar; raises WorkerFailure("invalid-config") on anything else."""
    head, *option_items = text.split(",")
    options = {}
    for item in option_items:
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise WorkerFailure("invalid-config", f"model option '{item}' is not key=value")
        options[key] = _value(value)
    if head == DEFAULT_MODEL and not options:
        return ModelName("resnet18", DEFAULT_MODEL, options={})
    prefix, sep, rest = head.rpartition(":")
    if not sep or not prefix or not rest:
        raise WorkerFailure("invalid-config", f"'{text}' is not a model name; use resnet18, torchvision:NAME, "
                                              "timm:NAME, hf:NAME or module.path:factory")
    if prefix in _PREFIXES:
        return ModelName(prefix, rest, options=options)
    return ModelName("file" if prefix.endswith(".py") else "module", prefix, rest, options)


def _count(model):
    return sum(p.numel() for p in model.parameters())


def _millions(model):
    return f"{_count(model) / 1e6:.1f} M parameters"


def _image_batch(shape, classes, keyword=None):
    """make_batch for images of `shape` (C, H, W) and `classes` targets; `keyword` passes the images
    by that name (transformers' pixel_values)."""
    def make(batch, device):
        inputs = torch.randn(batch, *shape).to(device)
        target = torch.randint(0, classes, (batch,), dtype=torch.long).to(device)
        return ({keyword: inputs} if keyword else inputs), target
    return make


def _logits(output):
    # transformers returns a ModelOutput, timm and torchvision a tensor (inception a namedtuple).
    if isinstance(output, torch.Tensor):
        return output
    logits = getattr(output, "logits", None)
    if logits is not None:
        return logits
    if isinstance(output, (tuple, list)) and output and isinstance(output[0], torch.Tensor):
        return output[0]
    raise WorkerFailure("model-failed", f"the model returned {type(output).__name__}, not logits",
                        "give a factory with a make_batch and a loss that read this output")


def classification_loss(output, target):
    """Cross-entropy of class logits (N, K), or of token logits (N, L, V) against (N, L) tokens."""
    logits = _logits(output)
    if logits.dim() == 3:
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), target.reshape(-1))
    return F.cross_entropy(logits, target)


def _image_workload(model, config, label, shape=None, classes=None, keyword=None):
    shape = tuple(shape or (3, config.image_size, config.image_size))
    classes = classes or config.classes
    c, h, w = shape
    return Workload(model, _image_batch(shape, classes, keyword), classification_loss, "image",
                    f"{label} ({_millions(model)}, images {c}x{h}x{w}, {classes} classes)")


def _token_workload(model, config, label, vocab, sequence_length=None, classes=None):
    """Token ids in; the target is random tokens (a language model) or, with `classes`, a class per
    sequence: as random as the image target, so the step costs what it costs on real text and needs
    no tokenizer or data."""
    length = sequence_length or config.sequence_length

    def make(batch, device):
        tokens = torch.randint(0, vocab, (batch, length), dtype=torch.long).to(device)
        shape = (batch,) if classes else (batch, length)
        target = torch.randint(0, classes or vocab, shape, dtype=torch.long).to(device)
        return {"input_ids": tokens}, target
    return Workload(model, make, classification_loss, "tokens",
                    f"{label} ({_millions(model)}, {length} tokens of a {vocab}-word vocabulary)")


def _install_command(package):
    """The pip command that installs `package` into this Python (the worker's), to copy as it is."""
    return f"{sys.executable} -m pip install {package}"


def _import(module, what):
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise WorkerFailure("model-failed", f"{what} needs the Python package '{module}', which {sys.executable} "
                                            f"cannot import ({first_line(exc)})",
                            f"install it into that Python: {_install_command(module)}") from exc


def _build_resnet18(config):
    torchvision = _import("torchvision", "resnet18")
    model = torchvision.models.resnet18(num_classes=config.classes)
    # The parameter count pins the architecture: 1000 classes must give torchvision's 11,689,512,
    # the native engine's ResNet18 (core/engine/resnet.cpp).
    expected = RESNET18_PARAMETERS - 513 * 1000 + 513 * config.classes
    if _count(model) != expected:
        raise WorkerFailure("internal", f"resnet18 has {_count(model)} parameters, expected {expected}",
                            f"torchvision {torchvision.__version__}")
    return _image_workload(model, config, "resnet18")


def _build_torchvision(spec, config):
    torchvision = _import("torchvision", f"torchvision:{spec.name}")
    if spec.name not in torchvision.models.list_models():
        raise WorkerFailure("invalid-config", f"torchvision {torchvision.__version__} has no model '{spec.name}'",
                            "stepscope-cli models lists the ones it has")
    options = dict(spec.options)
    options.setdefault("num_classes", config.classes)
    model = torchvision.models.get_model(spec.name, weights=None, **options)
    return _image_workload(model, config, f"torchvision:{spec.name}", classes=options["num_classes"])


def _build_timm(spec, config):
    timm = _import("timm", f"timm:{spec.name}")
    if not timm.is_model(spec.name):
        raise WorkerFailure("invalid-config", f"timm {timm.__version__} has no model '{spec.name}'",
                            "stepscope-cli models lists the ones it has")
    options = dict(spec.options)
    options.setdefault("num_classes", config.classes)
    model = timm.create_model(spec.name, pretrained=False, **options)
    # timm knows the input a model was built for (a ViT's patch grid is fixed at build time).
    shape = (3, config.image_size, config.image_size)
    fixed = getattr(model, "pretrained_cfg", {}) or {}
    if "img_size" in options:
        size = options["img_size"]
        shape = (3, size, size) if isinstance(size, int) else shape
    elif getattr(getattr(model, "patch_embed", None), "strict_img_size", False) and "input_size" in fixed:
        shape = tuple(fixed["input_size"])  # a ViT's own size: another image_size would not run
    return _image_workload(model, config, f"timm:{spec.name}", shape, classes=options["num_classes"])


def _build_hf(spec, config):
    transformers = _import("transformers", f"hf:{spec.name}")
    try:
        hf_config = transformers.AutoConfig.for_model(spec.name, **spec.options)
    except ValueError as exc:
        raise WorkerFailure("invalid-config", f"transformers {transformers.__version__} has no architecture "
                                              f"'{spec.name}': {first_line(exc)}",
                            "hf: takes a model type (gpt2, bert, llama, vit, ...): stepscope-cli models lists them") from exc
    # The head: a language model where the architecture has one (its logits over the vocabulary are
    # the step's cost), else an image or sequence classifier with the run's classes.
    heads = [("causal", transformers.AutoModelForCausalLM), ("masked", transformers.AutoModelForMaskedLM),
             ("image", transformers.AutoModelForImageClassification),
             ("sequence", transformers.AutoModelForSequenceClassification)]
    decoder_only = type(hf_config) not in transformers.AutoModelForMaskedLM._model_mapping
    if not decoder_only:  # an encoder (bert): its masked-language-model head, not a decoder bolted on
        heads = heads[1:]
    for kind, auto in heads:
        if type(hf_config) not in auto._model_mapping:
            continue
        if kind in ("image", "sequence"):
            hf_config.num_labels = config.classes
        if kind == "image" and hasattr(hf_config, "image_size") and "image_size" not in spec.options:
            hf_config.image_size = config.image_size
        model = auto.from_config(hf_config)
        label = f"hf:{spec.name}"
        if kind == "image":
            shape = (getattr(hf_config, "num_channels", 3), hf_config.image_size, hf_config.image_size)
            return _image_workload(model, config, label, shape, keyword="pixel_values")
        if kind == "sequence":
            return _token_workload(model, config, label, hf_config.vocab_size, classes=config.classes)
        limit = getattr(hf_config, "max_position_embeddings", None) or getattr(hf_config, "n_positions", None)
        if limit and config.sequence_length > limit:
            raise WorkerFailure("invalid-config", f"sequence_length {config.sequence_length} is longer than "
                                                  f"hf:{spec.name}'s {limit} positions",
                                f"use --sequence-length {limit} or less")
        return _token_workload(model, config, label, hf_config.vocab_size)
    raise WorkerFailure("invalid-config", f"hf:{spec.name} has no language-model or classification head to train",
                        "give a factory of your own with a make_batch and a loss")


def _import_factory_module(spec):
    if spec.source == "module":
        return importlib.import_module(spec.name)
    path = os.path.abspath(spec.name)
    if not os.path.isfile(path):
        raise WorkerFailure("invalid-config", f"the factory file {path} does not exist")
    name = "stepscope_user_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    found = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(found)
    sys.modules[name] = module  # dataclasses and pickling look a module up by its name
    found.loader.exec_module(module)
    return module


def _load_factory(spec):
    try:
        module = _import_factory_module(spec)
    except WorkerFailure:
        raise
    except Exception as exc:  # the user's module: anything it raises is its failure, named
        raise WorkerFailure("model-failed", f"importing {spec.name} failed: {type(exc).__name__}: {first_line(exc)}",
                            _traceback(exc)) from exc
    factory = getattr(module, spec.factory, None)
    if not callable(factory):
        raise WorkerFailure("invalid-config", f"{spec.name} has no function '{spec.factory}'")
    return factory


def _traceback(exc):
    import traceback
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-4000:]


def _build_factory(spec, config):
    label = f"{spec.name}:{spec.factory}"
    factory = _load_factory(spec)
    try:
        made = factory(**spec.options)
    except Exception as exc:
        raise WorkerFailure("model-failed", f"the factory {label} raised {type(exc).__name__}: {first_line(exc)}",
                            _traceback(exc)) from exc
    if isinstance(made, torch.nn.Module):
        return _image_workload(made, config, label)
    if not isinstance(made, dict) or not isinstance(made.get("model"), torch.nn.Module):
        raise WorkerFailure("model-failed", f"the factory {label} returned {type(made).__name__}; it must return a "
                                            "torch.nn.Module or a dict with one under \"model\"",
                            "README.md, 'Your own model', shows what a factory returns")
    model = made["model"]
    if "make_batch" in made or "loss" in made:
        if not callable(made.get("make_batch")) or not callable(made.get("loss")):
            raise WorkerFailure("model-failed", f"the factory {label} must give both make_batch(batch, device) "
                                                "and loss(output, target), or neither")
        return Workload(model, made["make_batch"], made["loss"], "custom", f"{label} ({_millions(model)}, its own batch)")
    kind = made.get("input", "image")
    if kind == "image":
        shape = tuple(made.get("image_shape", (3, config.image_size, config.image_size)))
        if len(shape) != 3:
            raise WorkerFailure("model-failed", f"the factory {label} gave image_shape {shape}; it is (C, H, W)")
        return _image_workload(model, config, label, shape, classes=made.get("classes"))
    if kind == "tokens":
        if not isinstance(made.get("vocab"), int):
            raise WorkerFailure("model-failed", f"the factory {label} takes tokens but gives no integer \"vocab\"")
        return _token_workload(model, config, label, made["vocab"], made.get("sequence_length"))
    raise WorkerFailure("model-failed", f"the factory {label} says input {kind!r}; use \"image\" or \"tokens\"")


def build(config):
    """The Workload of `config.model`. Raises WorkerFailure, named, for a name that builds nothing."""
    spec = parse(getattr(config, "model", DEFAULT_MODEL))
    builders = {"resnet18": lambda s, c: _build_resnet18(c), "torchvision": _build_torchvision,
                "timm": _build_timm, "hf": _build_hf, "module": _build_factory, "file": _build_factory}
    return builders[spec.source](spec, config)


def check_knobs(workload, config):
    """Knobs that cannot apply to this model, refused by name (issue 30.2) before any step runs."""
    if config.channels_last and not workload.four_d_inputs:
        raise WorkerFailure("invalid-config", f"channels_last needs 4-D image inputs; {workload.description} "
                                              f"takes {'token ids' if workload.inputs == 'tokens' else 'its own batch'}",
                            "drop channels_last for this model")
    if config.optimizer == "fused":
        odd = [p.dtype for p in workload.model.parameters() if p.requires_grad and not p.dtype.is_floating_point]
        if odd:
            raise WorkerFailure("invalid-config", f"fused SGD takes floating-point parameters; this model has {odd[0]}",
                                "use optimizer foreach")


# The transformers model types hf: can train: those with one of the heads _build_hf picks, read from
# the auto classes' name tables (model type -> class name), which import no model code.
_HF_HEAD_TABLES = ("MODEL_FOR_CAUSAL_LM_MAPPING_NAMES", "MODEL_FOR_MASKED_LM_MAPPING_NAMES",
                   "MODEL_FOR_IMAGE_CLASSIFICATION_MAPPING_NAMES", "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES")


def _hf_model_types(transformers):
    from transformers.models.auto import modeling_auto
    types = set()
    for table in _HF_HEAD_TABLES:
        types.update(getattr(modeling_auto, table, {}))
    return types


def available_models():
    """What `build` can make by name in this Python, as one dict per library in the grammar's order:
    {"library", "prefix", "version", "models": [names as --model takes them]}, or for a library this
    Python cannot import {"library", "prefix", "missing": why, "install": the pip command}. Imports
    each library (timm's takes about two seconds) but builds nothing and never starts CUDA: the
    dashboard's model picker and `stepscope-cli models` show it (core/supervisor/model_listing.h)."""
    # torchvision's classifiers only: its detection, segmentation and video models return what the
    # image workload's loss cannot read.
    listers = (("torchvision", "torchvision", lambda m: m.models.list_models(module=m.models)),
               ("timm", "timm", lambda m: m.list_models()),
               ("transformers", "hf", _hf_model_types))
    libraries = []
    for library, prefix, names_of in listers:
        entry = {"library": library, "prefix": prefix}
        try:
            module = importlib.import_module(library)
            entry["version"] = str(getattr(module, "__version__", ""))
            entry["models"] = [f"{prefix}:{name}" for name in sorted(names_of(module))]
        except Exception as exc:  # ImportError, or a broken install that fails on import
            entry["missing"] = f"{type(exc).__name__}: {first_line(exc)}"
            entry["install"] = _install_command(library)
        libraries.append(entry)
    return libraries
