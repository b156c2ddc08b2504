"""Factories for the model tests (issue 30): each shape of the contract README.md documents, and the
ways a factory goes wrong. Imported by the worker as tiny_factories:NAME (with this folder on the
Python path) or by file, tests/data/models/tiny_factories.py:NAME."""
import time

import torch
from torch import nn


def image_net(width=8):
    """A bare module: an image classifier on the run's image size and classes (10 in the tests)."""
    return nn.Sequential(nn.Conv2d(3, width, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(width, 10))


def gray_images():
    """An image classifier on its own input: 1 x 28 x 28, 5 classes."""
    model = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 5))
    return {"model": model, "input": "image", "image_shape": (1, 28, 28), "classes": 5}


class _TinyLanguageModel(nn.Module):
    def __init__(self, vocab, width):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.out = nn.Linear(width, vocab)

    def forward(self, input_ids):
        return self.out(torch.relu(self.embed(input_ids)))


def tokens(vocab=50, width=16):
    return {"model": _TinyLanguageModel(vocab, width), "input": "tokens", "sequence_length": 12, "vocab": vocab}


def regression():
    """Its own batch and loss: a regression, no classes at all."""
    def make_batch(batch, device):
        return torch.randn(batch, 4, device=device), torch.randn(batch, 1, device=device)

    return {"model": nn.Linear(4, 1), "make_batch": make_batch, "loss": nn.functional.mse_loss}


class _Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 1)

    def forward(self, x, scale):
        return self.linear(x) * scale


def flagged():
    """A batch with a number among its tensors: the Python worker runs it, a TorchScript trace cannot
    take it (the native worker's rows are n/a)."""
    def make_batch(batch, device):
        return {"x": torch.randn(batch, 4, device=device), "scale": 2.0}, torch.randn(batch, 1, device=device)

    return {"model": _Scaled(), "make_batch": make_batch, "loss": nn.functional.mse_loss}


def raises():
    raise RuntimeError("the factory could not find its weights")


def wrong_type():
    return "not a model"


def hangs():
    time.sleep(3600)
