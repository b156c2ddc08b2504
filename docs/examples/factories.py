"""Two model factories of the kind README.md's "Your own model" describes, measured on the GPU in
docs/results (issue 30). Run one with, from the repository's root:
    stepscope-cli run --model docs/examples/factories.py:transformer_lm --device cuda
    stepscope-cli run --model docs/examples/factories.py:segmenter,width=32 --device cuda
"""
import torch
from torch import nn


class _CausalLM(nn.Module):
    """A decoder-only language model from PyTorch's own layers: embeddings, pre-norm blocks with a
    causal mask, tied output projection."""

    def __init__(self, vocab, width, layers, heads, length):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.position = nn.Parameter(torch.zeros(1, length, width))
        block = nn.TransformerEncoderLayer(width, heads, 4 * width, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(block, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(width)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(length), persistent=False)

    def forward(self, input_ids):
        x = self.embed(input_ids) + self.position[:, : input_ids.shape[1]]
        x = self.blocks(x, mask=self.mask, is_causal=True)
        return self.norm(x) @ self.embed.weight.t()


def transformer_lm(layers=6, width=512, heads=8, vocab=32000, length=256):
    """Token ids in, next-token logits out: Stepscope makes the batch (random ids) and the loss."""
    model = _CausalLM(vocab, width, layers, heads, length)
    return {"model": model, "input": "tokens", "sequence_length": length, "vocab": vocab}


def segmenter(width=32, classes=21, size=256):
    """A small encoder-decoder that labels every pixel: its own batch (per-pixel targets) and loss."""
    def stage(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    model = nn.Sequential(
        stage(3, width), nn.MaxPool2d(2), stage(width, 2 * width), nn.MaxPool2d(2), stage(2 * width, 4 * width),
        nn.Upsample(scale_factor=2), stage(4 * width, 2 * width), nn.Upsample(scale_factor=2), stage(2 * width, width),
        nn.Conv2d(width, classes, 1))

    def make_batch(batch, device):
        images = torch.randn(batch, 3, size, size, device=device)
        labels = torch.randint(0, classes, (batch, size, size), device=device)
        return images, labels

    return {"model": model, "make_batch": make_batch, "loss": nn.functional.cross_entropy}
