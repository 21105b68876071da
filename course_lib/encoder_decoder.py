"""The whole Transformer of Vaswani et al. (2017): an encoder, a decoder and cross-attention between them.

Notebook 05 trained an encoder-decoder of GRUs whose decoder attends over the encoder's states
(:mod:`course_lib.seq2seq`) to reverse sequences. This is the same task with the recurrences
replaced by Transformer blocks::

    encoder   memory = EncoderBlock^N(embed(source) + PE)                  (B, S, d_model), no mask
    decoder   x      = embed([start, y_0, ..., y_(T-2)]) + PE              (B, T, d_model)
              x      = DecoderBlock^N(x, memory, causal mask)              self-attention over the output so far,
                                                                           cross-attention over the memory
    output    logits = Linear(x)                                           (B, T, V)

The cross-attention's queries come from the output being written and its keys and values from the
source: notebook 05's alignment, now with several heads in every decoder layer.

The encoder blocks are made by ``make_encoder_block()`` (default: :class:`course_lib.transformer.EncoderBlock`),
so a notebook can put in blocks that compute with its own ``encoder_block`` function; any module called as
``block(x, mask)`` with ``mask=None`` for the encoder does. The model follows the course contract
``logits, loss = model(source, targets=None)`` and has ``config.num_symbols`` and ``output``, so
:func:`course_lib.seq2seq.reversal_accuracy` measures it as it measures the GRUs.

:func:`training_flops` counts the floating-point operations of one training step (forward and
backward) with ``torch.utils.flop_counter.FlopCounterMode``, the same way for the GRUs and the
Transformer, so that the two can be compared at equal compute; ``benchmarks/encoder_decoder.py`` does
that, and :func:`load_comparison` reads what it measured.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from course_lib.attention import causal_mask
from course_lib.loss import lm_loss
from course_lib.seq2seq import reversal_batch
from course_lib.transformer import BlockConfig, DecoderBlock, EncoderBlock, SinusoidalPositions
from course_lib.validation import (inputs_checked, require, require_config, require_head_split, require_positive_int,
                                   require_sequence_ids, require_type)

__all__ = ["EncoderDecoderConfig", "TransformerSeq2Seq", "training_flops", "mean_training_flops",
           "ENCODER_DECODER_ASSET", "load_comparison"]

#: what ``benchmarks/encoder_decoder.py`` measured (the GRU and the Transformer at equal compute), for notebook 06
ENCODER_DECODER_ASSET = Path(__file__).resolve().parent / "assets" / "encoder_decoder.json"


@dataclass
class EncoderDecoderConfig:
    num_symbols: int           # output symbols 0 .. num_symbols - 1; the decoder's start symbol is num_symbols
    d_model: int = 32
    num_heads: int = 4
    d_ff: int = 64
    num_layers: int = 2        # encoder blocks, and as many decoder blocks
    max_len: int = 64          # the longest source or output

    def __post_init__(self):
        require_config(self)
        require_head_split(self.d_model, self.num_heads)

    @property
    def block_config(self) -> BlockConfig:
        """Post-norm blocks, as in the 2017 paper and notebook 06's ``encoder_block``."""
        return BlockConfig(self.d_model, self.num_heads, self.d_ff)


class TransformerSeq2Seq(nn.Module):
    """An encoder of ``num_layers`` encoder blocks and a decoder of as many :class:`DecoderBlock`s."""

    def __init__(self, config: EncoderDecoderConfig, make_encoder_block: Callable[[], nn.Module] | None = None):
        super().__init__()
        require_type(config, EncoderDecoderConfig, "TransformerSeq2Seq takes an EncoderDecoderConfig")
        require(make_encoder_block is None or callable(make_encoder_block), "make_encoder_block must be a function "
                f"that returns a new encoder block, got {type(make_encoder_block).__name__}.", TypeError)
        self.config = config
        d_model, make = config.d_model, make_encoder_block or (lambda: EncoderBlock(config.block_config))
        self.source_embedding = nn.Embedding(config.num_symbols, d_model)
        self.target_embedding = nn.Embedding(config.num_symbols + 1, d_model)  # + the start symbol
        self.positions = SinusoidalPositions(config.max_len, d_model)
        self.encoder = nn.ModuleList(make() for _ in range(config.num_layers))
        self.decoder = nn.ModuleList(DecoderBlock(config.block_config) for _ in range(config.num_layers))
        self.output = nn.Linear(d_model, config.num_symbols)

    def embed(self, embedding: nn.Embedding, ids: torch.Tensor) -> torch.Tensor:
        """ids (B, T) -> token embeddings + sinusoidal positions (B, T, d_model)."""
        return embedding(ids) + self.positions(torch.arange(ids.shape[1], device=ids.device))

    def encode(self, source: torch.Tensor) -> torch.Tensor:
        """source (B, S) -> memory (B, S, d_model): every source position attends to every other."""
        x = self.embed(self.source_embedding, source)  # (B, S, d_model)
        for block in self.encoder:
            x = block(x, None)  # no mask: the whole source is known
        return x

    def run_decoder(self, previous: torch.Tensor, memory: torch.Tensor, need_weights: bool = False
                    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """previous (B, T) symbols read so far, memory (B, S, d) -> logits (B, T, V) and, with ``need_weights``,
        every decoder layer's cross-attention weights (num_layers, B, h, T, S)."""
        x = self.embed(self.target_embedding, previous)  # (B, T, d_model)
        mask = causal_mask(previous.shape[1], device=previous.device)  # (T, T): output t sees outputs 0..t
        weights = []
        for block in self.decoder:
            if need_weights:
                x, cross = block.forward_with_cross_weights(x, memory, mask)  # (B, T, d), (B, h, T, S)
                weights.append(cross)
            else:
                x = block(x, memory, mask)
        return self.output(x), torch.stack(weights) if need_weights else None

    def decode(self, source: torch.Tensor, targets: torch.Tensor | None = None, steps: int | None = None,
               need_weights: bool = False) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Logits (B, T, V) and, with ``need_weights``, the cross-attention weights (num_layers, B, h, T, S).

        With ``targets`` (B, T) the decoder reads the true previous symbols (teacher forcing, every
        step at once); without, it writes ``steps`` symbols (default: the source's length) greedily,
        reading back its own choices.
        """
        device, symbols = self.output.weight.device, self.config.num_symbols
        require_sequence_ids("source", source, symbols, device, self.config.max_len)
        if targets is not None:
            require_sequence_ids("targets", targets, symbols, device, self.config.max_len, batch=len(source))
        else:
            steps = source.shape[1] if steps is None else steps
            require_positive_int("steps", steps)
            require(steps <= self.config.max_len, f"steps = {steps} is more than max_len = {self.config.max_len}.")
        start = torch.full((len(source), 1), symbols, dtype=torch.long, device=source.device)  # (B, 1)
        with inputs_checked():  # the blocks take what was checked here
            memory = self.encode(source)  # (B, S, d_model)
            if targets is not None:
                return self.run_decoder(torch.cat([start, targets[:, :-1]], dim=1), memory, need_weights)
            previous = start
            for _ in range(steps - 1):  # greedy: each step reads every choice so far
                logits, _ = self.run_decoder(previous, memory)  # (B, t, V)
                previous = torch.cat([previous, logits[:, -1:].argmax(-1)], dim=1)
            # the causal mask makes each position's logits depend only on the symbols before it, so one
            # last pass over all the choices gives every step's logits (and weights) as the loop saw them
            return self.run_decoder(previous, memory, need_weights)

    def forward(self, source: torch.Tensor, targets: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """``logits, loss = model(source, targets=None)``: teacher forcing with targets, greedy without."""
        logits, _ = self.decode(source, targets)
        return logits, None if targets is None else lm_loss(logits, targets)


def training_flops(model: nn.Module, batch_size: int, length: int) -> int:
    """Floating-point operations of one training step (forward and backward) on a reversal batch of ``length``.

    Counted by ``torch.utils.flop_counter.FlopCounterMode``: every matrix product (mm, addmm, bmm,
    fused attention), 2 operations per multiply-add; element-wise operations (softmax, tanh,
    gates, LayerNorm) are not counted. The gradients are cleared afterwards.
    """
    require_positive_int("batch_size", batch_size)
    require_positive_int("length", length)
    device = model.output.weight.device
    source, target = (t.to(device) for t in reversal_batch(batch_size, length, model.config.num_symbols,
                                                           torch.Generator().manual_seed(0)))
    was_training = model.training
    model.train()
    with FlopCounterMode(display=False) as counter:
        _, loss = model(source, target)
        loss.backward()
    model.zero_grad(set_to_none=True)
    model.train(was_training)
    return int(counter.get_total_flops())


def mean_training_flops(model: nn.Module, batch_size: int, lengths: Sequence[int]) -> float:
    """The mean of :func:`training_flops` over ``lengths``: the expected cost of a step of
    :func:`course_lib.seq2seq.reversal_batches`, which draws each length equally often."""
    lengths = list(lengths)
    require(len(lengths) > 0, "mean_training_flops needs at least one length.")
    return sum(training_flops(model, batch_size, n) for n in lengths) / len(lengths)


def load_comparison(path: str | Path | None = None) -> dict[str, Any]:
    """The results of ``benchmarks/encoder_decoder.py`` (default: the copy in ``course_lib/assets``).

    ``models`` maps "GRU with attention" and "Transformer" to their ``flops_per_step``, ``checkpoints``
    (each with ``flops``, ``steps``, ``seconds`` and the fraction of ``symbols`` and of whole
    ``sequences`` right per test length, keyed by the length as a string) and ``example`` (the
    attention on notebook 05's example input); ``meta`` says where and when it was measured.
    """
    with open(ENCODER_DECODER_ASSET if path is None else path, encoding="utf-8") as f:
        return json.load(f)
