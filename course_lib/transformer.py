"""The Transformer (Vaswani et al., 2017), built from small pieces and checked against PyTorch.

The pieces, in the order the notebook meets them:

- :func:`positional_encoding`: the fixed sine/cosine position vectors, and
  :func:`positional_shift_matrices`, which shows that moving k positions is a rotation of each
  (sin, cos) pair, the same for every position.
- :class:`MultiHeadAttention`: project to queries, keys and values, split d_model into h heads,
  attend in every head at once, concatenate the heads, project back.
- :class:`FeedForward`: the same two-layer MLP applied to every position on its own.
- :class:`AddNorm`: the residual connection and LayerNorm around each sublayer, after the sum
  (post-norm, the 2017 paper) or before the sublayer (pre-norm, GPT-2 and most models since).
- :class:`EncoderBlock` (self-attention + feed-forward) and :class:`DecoderBlock` (masked
  self-attention + cross-attention over the encoder's output + feed-forward).
- :class:`TransformerLM`: a decoder-only ("GPT") language model: encoder blocks whose
  self-attention is causal, under the course contract ``logits, loss = model(idx, targets=None)``.

Conventions:

- Batch first: sequences are (B, T, d_model). Shape letters: B batch, T (T_q, T_k) positions,
  h heads, d_head = d_model / h, V vocabulary size.
- Masks are bool tensors with True = may attend, as in ``course_lib.attention`` and
  ``F.scaled_dot_product_attention``. PyTorch's ``nn.MultiheadAttention`` and
  ``nn.Transformer*Layer`` use the opposite (True = blocked), so convert with ``~mask``.
- Modules take the device from their inputs and never call ``get_device()`` themselves.
- :func:`copy_from_torch` copies the weights of PyTorch's layers into ours; the tests use it to
  show that both compute the same function.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import torch
import torch.nn.functional as F
from torch import nn

from course_lib.attention import causal_mask, scaled_dot_product_attention
from course_lib.loss import lm_loss
from course_lib.validation import (inputs_checked, require, require_attention_inputs, require_attention_masks,
                                   require_choice, require_config, require_head_split, require_positive_int,
                                   require_probability, require_sequence_ids, require_type)
from course_lib.weights import copy_layer_norm, copy_linear

__all__ = ["positional_encoding", "sinusoid_frequencies", "positional_shift_matrices", "SinusoidalPositions",
           "MultiHeadAttention", "FeedForward", "AddNorm", "BlockConfig", "EncoderBlock", "DecoderBlock",
           "TransformerConfig", "TransformerLM", "copy_from_torch", "set_fast_attention"]

ACTIVATIONS = {"relu": nn.ReLU, "gelu": nn.GELU}
POSITIONALS = ("sinusoidal", "learned")


# ---------------------------------------------------------------------------
# positions


def sinusoid_frequencies(d_model: int) -> torch.Tensor:
    """The d_model / 2 angular frequencies w_i = 1 / 10000^(2i / d_model), in float64."""
    require_positive_int("d_model", d_model)
    require(d_model % 2 == 0, "the sinusoidal encoding pairs a sine with a cosine, so d_model must be even, "
            f"got {d_model}.")
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (d_model/2,): 0, 2, 4, ...
    return torch.exp(-math.log(10000.0) * two_i / d_model)


def positional_encoding(max_len: int, d_model: int, device: torch.device | str | None = None,
                        dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """The (max_len, d_model) sinusoidal table: PE[pos, 2i] = sin(pos w_i), PE[pos, 2i+1] = cos(pos w_i).

    Low dimensions turn fast (wavelength 2 pi), high ones slowly (up to 10000 * 2 pi), so every
    position gets a distinct pattern. Computed in float64 on the CPU, then converted.
    """
    require_positive_int("max_len", max_len)
    frequencies = sinusoid_frequencies(d_model)  # (d_model/2,)
    positions = torch.arange(max_len, dtype=torch.float64)[:, None]  # (max_len, 1)
    angles = positions * frequencies  # (max_len, d_model/2)
    table = torch.stack([angles.sin(), angles.cos()], dim=-1)  # (max_len, d_model/2, 2): (sin, cos) pairs
    return table.flatten(1).to(device=device, dtype=dtype)  # (max_len, d_model): sin, cos, sin, cos, ...


def positional_shift_matrices(offset: int, d_model: int) -> torch.Tensor:
    """(d_model/2, 2, 2): for each frequency w_i the matrix M_i with, for every position pos,

        [PE[pos+k, 2i], PE[pos+k, 2i+1]] = M_i @ [PE[pos, 2i], PE[pos, 2i+1]],
        M_i = [[cos k w_i, sin k w_i], [-sin k w_i, cos k w_i]]      (k = offset, a rotation)

    M_i does not depend on pos, so "k positions later" is a linear map a model can learn;
    ``torch.block_diag(*M)`` is the whole (d_model, d_model) map: PE[pos+k] = that @ PE[pos].
    """
    require(isinstance(offset, int) and not isinstance(offset, bool),
            f"offset must be an integer number of positions, got {offset!r}.", TypeError)
    angles = offset * sinusoid_frequencies(d_model)  # (d_model/2,)
    cos, sin = angles.cos(), angles.sin()
    return torch.stack([torch.stack([cos, sin], -1), torch.stack([-sin, cos], -1)], -2)  # (d_model/2, 2, 2)


class SinusoidalPositions(nn.Module):
    """Like ``nn.Embedding(max_len, d_model)`` for positions, but fixed: positions (T,) -> (T, d_model)."""

    def __init__(self, max_len: int, d_model: int):
        super().__init__()
        self.register_buffer("table", positional_encoding(max_len, d_model), persistent=False)

    def forward(self, positions: torch.Tensor) -> torch.Tensor:
        return self.table[positions]


# ---------------------------------------------------------------------------
# attention


class MultiHeadAttention(nn.Module):
    """h heads of scaled dot-product attention side by side, each on d_head = d_model / h dimensions.

    ``out, weights = mha(query, key, value, mask=None, key_padding_mask=None, need_weights=False)``
    with query (B, T_q, d_model) and key, value (B, T_k, d_model); out is (B, T_q, d_model).

    Masks (bool, True = may attend; combined with "and"; every query must keep at least one key):

    - ``mask``: (T_q, T_k), e.g. ``causal_mask(T)``; (B, T_q, T_k), one per sequence; or
      (B, h, T_q, T_k); any of these dimensions may be 1 and is then broadcast.
    - ``key_padding_mask``: (B, T_k), True for the real tokens and False for padding (the
      opposite of ``nn.MultiheadAttention``'s ``key_padding_mask``). A separate argument because
      a 2-D ``mask`` of shape (B, T_k) could not be told apart from (T_q, T_k) when B == T_q.

    ``weights`` is None unless ``need_weights``; then (B, h, T_q, T_k), or (B, T_q, T_k) averaged
    over the heads with ``average_weights=True`` (what ``nn.MultiheadAttention`` returns by default).

    ``fast`` picks the path: False, the readable ``course_lib.attention.scaled_dot_product_attention``;
    True, PyTorch's fused ``F.scaled_dot_product_attention``, which cannot return weights; None
    (the default), fast unless weights are asked for. Both compute the same function.
    """

    def __init__(self, d_model: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 fast: bool | None = None):
        super().__init__()
        require_head_split(d_model, num_heads)
        require_probability("dropout", dropout)
        self.d_model, self.num_heads, self.d_head = d_model, num_heads, d_model // num_heads
        self.dropout = float(dropout)  # on the attention weights, while training
        self.fast = fast
        self.q_proj = nn.Linear(d_model, d_model, bias=bias)  # all heads' W_Q side by side
        self.k_proj = nn.Linear(d_model, d_model, bias=bias)
        self.v_proj = nn.Linear(d_model, d_model, bias=bias)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)  # W_O: mixes the concatenated heads

    def forward(self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, mask: torch.Tensor | None = None,
                *, key_padding_mask: torch.Tensor | None = None, need_weights: bool = False,
                average_weights: bool = False) -> tuple[torch.Tensor, torch.Tensor | None]:
        require_attention_inputs(query, key, value, "q_proj.weight", self.q_proj.weight)
        batch, t_q, t_k = query.shape[0], query.shape[1], key.shape[1]
        require_attention_masks(mask, key_padding_mask, (batch, self.num_heads, t_q, t_k), query.device)
        fast = (not need_weights) if self.fast is None else self.fast
        require(not (fast and need_weights), "the fast path (F.scaled_dot_product_attention) cannot return attention "
                "weights: set fast=False or None to get them.")
        mask = self._combine_masks(mask, key_padding_mask)  # (B|1, h|1, T_q|1, T_k|1)
        q = self._split_heads(self.q_proj(query))  # (B, h, T_q, d_head)
        k = self._split_heads(self.k_proj(key))  # (B, h, T_k, d_head)
        v = self._split_heads(self.v_proj(value))  # (B, h, T_k, d_head)
        dropout = self.dropout if self.training else 0.0
        weights = None
        if fast:
            heads = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout)  # (B, h, T_q, d_head)
        else:
            heads, weights = scaled_dot_product_attention(q, k, v, mask)  # (B, h, T_q, d_head), (B, h, T_q, T_k)
            if dropout > 0:
                heads = F.dropout(weights, dropout) @ v  # attention dropout: drop some weights, rescale the rest
        out = self.out_proj(self._merge_heads(heads))  # (B, T_q, d_model)
        if not need_weights:
            return out, None
        return out, weights.mean(dim=1) if average_weights else weights  # (B, T_q, T_k) or (B, h, T_q, T_k)

    def _split_heads(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, _ = x.shape  # (B, T, d_model)
        return x.view(batch, length, self.num_heads, self.d_head).transpose(1, 2)  # (B, h, T, d_head)

    def _merge_heads(self, x: torch.Tensor) -> torch.Tensor:
        batch, _, length, _ = x.shape  # (B, h, T, d_head)
        return x.transpose(1, 2).reshape(batch, length, self.d_model)  # (B, T, d_model): heads concatenated

    @staticmethod
    def _combine_masks(mask, key_padding_mask) -> torch.Tensor | None:
        """One bool mask broadcastable to (B, h, T_q, T_k), or None when nothing is masked."""
        if mask is not None and mask.dim() == 3:
            mask = mask[:, None]  # (B, T_q, T_k) -> (B, 1, T_q, T_k): the same for every head
        if key_padding_mask is not None:
            padding = key_padding_mask[:, None, None, :]  # (B, 1, 1, T_k): the same for every head and query
            mask = padding if mask is None else mask & padding
        return mask


def set_fast_attention(model: nn.Module, fast: bool | None) -> nn.Module:
    """Choose the path of every :class:`MultiHeadAttention` inside ``model`` (True, False or None = automatic)."""
    for module in model.modules():
        if isinstance(module, MultiHeadAttention):
            module.fast = fast
    return model


# ---------------------------------------------------------------------------
# blocks


class FeedForward(nn.Module):
    """The position-wise MLP, applied to each position on its own: (B, T, d_model) -> (B, T, d_model).

    expand to d_ff (4 d_model in the paper), ReLU or GELU, dropout, contract back to d_model.
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0, activation: str = "relu"):
        super().__init__()
        require_choice("activation", activation, ACTIVATIONS)
        self.expand = nn.Linear(d_model, d_ff)
        self.activation = ACTIVATIONS[activation]()
        self.dropout = nn.Dropout(dropout)
        self.contract = nn.Linear(d_ff, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = self.dropout(self.activation(self.expand(x)))  # (B, T, d_ff)
        return self.contract(hidden)  # (B, T, d_model)


class AddNorm(nn.Module):
    """"Add & Norm": a residual connection around a sublayer, with a LayerNorm.

        post-norm (norm_first=False, the 2017 paper):  x -> LayerNorm(x + Dropout(sublayer(x)))
        pre-norm  (norm_first=True, GPT-2 onwards):    x -> x + Dropout(sublayer(LayerNorm(x)))

    Pre-norm keeps an untouched path from the input to the output, which makes deep stacks
    train without learning-rate warm-up; it then needs one more LayerNorm after the last block.
    """

    def __init__(self, d_model: int, dropout: float = 0.0, norm_first: bool = False, eps: float = 1e-5):
        super().__init__()
        self.norm = nn.LayerNorm(d_model, eps=eps)  # eps: 1e-5 in PyTorch, 1e-12 in BERT
        self.dropout = nn.Dropout(dropout)
        self.norm_first = norm_first

    def forward(self, x: torch.Tensor, sublayer: Callable[[torch.Tensor], torch.Tensor]) -> torch.Tensor:
        if self.norm_first:
            return x + self.dropout(sublayer(self.norm(x)))
        return self.norm(x + self.dropout(sublayer(x)))


@dataclass
class BlockConfig:
    """The sizes of one encoder or decoder block (norm_first=False: the paper's post-norm)."""

    d_model: int
    num_heads: int
    d_ff: int
    dropout: float = 0.0
    norm_first: bool = False
    activation: str = "relu"
    layer_norm_eps: float = 1e-5  # added to the variance in every LayerNorm (BERT: 1e-12)

    def __post_init__(self):
        require_config(self, activation=ACTIVATIONS)
        require_head_split(self.d_model, self.num_heads)


BLOCK_CONFIG_SENTENCE = "blocks take a BlockConfig (a TransformerConfig has one as .block_config)"


class EncoderBlock(nn.Module):
    """Self-attention, then the feed-forward network, each inside an :class:`AddNorm`.

    ``block(x, mask=None, key_padding_mask=None)``: x (B, T, d_model) -> (B, T, d_model); the masks
    are those of :class:`MultiHeadAttention`. With a causal mask this is a GPT block.
    """

    def __init__(self, config: BlockConfig):
        super().__init__()
        require_type(config, BlockConfig, BLOCK_CONFIG_SENTENCE)
        self.self_attention = MultiHeadAttention(config.d_model, config.num_heads, config.dropout)
        eps = config.layer_norm_eps
        self.attention_add_norm = AddNorm(config.d_model, config.dropout, config.norm_first, eps)
        self.feed_forward = FeedForward(config.d_model, config.d_ff, config.dropout, config.activation)
        self.feed_forward_add_norm = AddNorm(config.d_model, config.dropout, config.norm_first, eps)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None, *,
                key_padding_mask: torch.Tensor | None = None) -> torch.Tensor:
        x = self.attention_add_norm(x, lambda h: self.self_attention(h, h, h, mask,
                                                                     key_padding_mask=key_padding_mask)[0])
        return self.feed_forward_add_norm(x, self.feed_forward)  # (B, T, d_model)


class DecoderBlock(nn.Module):
    """Masked self-attention, cross-attention over the encoder's output ``memory``, feed-forward.

    ``block(x, memory, mask=None, key_padding_mask=None, memory_mask=None, memory_key_padding_mask=None)``:
    x (B, T, d_model) and memory (B, S, d_model) -> (B, T, d_model). ``mask`` (usually
    ``causal_mask(T)``) and ``key_padding_mask`` are for the self-attention over x; ``memory_mask``
    (T, S) and ``memory_key_padding_mask`` (B, S) for the cross-attention, where the queries come
    from x and the keys and values from memory.
    """

    def __init__(self, config: BlockConfig):
        super().__init__()
        require_type(config, BlockConfig, BLOCK_CONFIG_SENTENCE)
        d_model, heads, dropout, norm_first = config.d_model, config.num_heads, config.dropout, config.norm_first
        eps = config.layer_norm_eps
        self.self_attention = MultiHeadAttention(d_model, heads, dropout)
        self.self_attention_add_norm = AddNorm(d_model, dropout, norm_first, eps)
        self.cross_attention = MultiHeadAttention(d_model, heads, dropout)
        self.cross_attention_add_norm = AddNorm(d_model, dropout, norm_first, eps)
        self.feed_forward = FeedForward(d_model, config.d_ff, dropout, config.activation)
        self.feed_forward_add_norm = AddNorm(d_model, dropout, norm_first, eps)

    def forward(self, x: torch.Tensor, memory: torch.Tensor, mask: torch.Tensor | None = None, *,
                key_padding_mask: torch.Tensor | None = None, memory_mask: torch.Tensor | None = None,
                memory_key_padding_mask: torch.Tensor | None = None) -> torch.Tensor:
        return self.forward_with_cross_weights(x, memory, mask, key_padding_mask=key_padding_mask,
                                               memory_mask=memory_mask,
                                               memory_key_padding_mask=memory_key_padding_mask,
                                               need_weights=False)[0]

    def forward_with_cross_weights(self, x: torch.Tensor, memory: torch.Tensor, mask: torch.Tensor | None = None, *,
                                   key_padding_mask: torch.Tensor | None = None,
                                   memory_mask: torch.Tensor | None = None,
                                   memory_key_padding_mask: torch.Tensor | None = None,
                                   need_weights: bool = True) -> tuple[torch.Tensor, torch.Tensor | None]:
        """The block's output (B, T, d_model) and its cross-attention weights (B, h, T, S): where each
        output position looked in the memory (None with ``need_weights=False``)."""
        x = self.self_attention_add_norm(x, lambda h: self.self_attention(h, h, h, mask,
                                                                          key_padding_mask=key_padding_mask)[0])
        cross_weights = None

        def cross_attend(h: torch.Tensor) -> torch.Tensor:
            nonlocal cross_weights
            out, cross_weights = self.cross_attention(h, memory, memory, memory_mask,
                                                      key_padding_mask=memory_key_padding_mask,
                                                      need_weights=need_weights)
            return out

        x = self.cross_attention_add_norm(x, cross_attend)
        return self.feed_forward_add_norm(x, self.feed_forward), cross_weights  # (B, T, d_model), (B, h, T, S)


# ---------------------------------------------------------------------------
# the language model


@dataclass
class TransformerConfig:
    vocab_size: int
    block_size: int          # the most positions the model sees at once
    d_model: int
    num_heads: int
    num_layers: int
    d_ff: int                # the feed-forward width, usually 4 * d_model
    dropout: float = 0.0
    norm_first: bool = True  # pre-norm, as in GPT-2; False: the paper's post-norm
    positional: str = "sinusoidal"  # or "learned": a trained nn.Embedding(block_size, d_model)
    activation: str = "relu"

    def __post_init__(self):
        require_config(self, positional=POSITIONALS, activation=ACTIVATIONS)
        require_head_split(self.d_model, self.num_heads)
        require(self.positional == "learned" or self.d_model % 2 == 0, "sinusoidal positions need an even d_model, "
                f"got {self.d_model}; use positional='learned' or an even d_model.")

    @property
    def block_config(self) -> BlockConfig:
        return BlockConfig(self.d_model, self.num_heads, self.d_ff, self.dropout, self.norm_first, self.activation)


class TransformerLM(nn.Module):
    """A decoder-only ("GPT") language model: ``logits, loss = model(idx, targets=None)``.

    idx (B, T) token ids, T <= block_size -> logits (B, T, V), position t predicting token t+1.
    Token embedding + position vector -> num_layers encoder blocks with a causal mask (position t
    sees positions 0..t only, so it cannot peek at what it predicts) -> final LayerNorm (pre-norm
    only) -> a linear head. "Decoder-only" although the blocks have no cross-attention: GPT's block
    is the paper's decoder block without it, which is an encoder block with a causal mask.
    Unlike the paper, the embeddings are not multiplied by sqrt(d_model) nor tied to the head.
    """

    def __init__(self, config: TransformerConfig):
        super().__init__()
        require_type(config, TransformerConfig, "TransformerLM takes a TransformerConfig")
        self.config = config
        d_model = config.d_model
        self.token_embedding = nn.Embedding(config.vocab_size, d_model)
        if config.positional == "learned":
            self.position_embedding = nn.Embedding(config.block_size, d_model)
        else:
            self.position_embedding = SinusoidalPositions(config.block_size, d_model)
        self.dropout = nn.Dropout(config.dropout)
        self.blocks = nn.ModuleList(EncoderBlock(config.block_config) for _ in range(config.num_layers))
        self.final_norm = nn.LayerNorm(d_model) if config.norm_first else nn.Identity()
        self.head = nn.Linear(d_model, config.vocab_size)

    @property
    def block_size(self) -> int:
        return self.config.block_size

    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None):
        require_sequence_ids("idx", idx, self.config.vocab_size, self.head.weight.device, self.block_size)
        length = idx.shape[1]
        positions = torch.arange(length, device=idx.device)  # (T,)
        x = self.dropout(self.token_embedding(idx) + self.position_embedding(positions))  # (B, T, d_model)
        mask = causal_mask(length, device=idx.device)  # (T, T): True where key j <= query i
        with inputs_checked():  # the blocks take what was checked here
            for block in self.blocks:
                x = block(x, mask)  # (B, T, d_model)
        logits = self.head(self.final_norm(x))  # (B, T, V)
        loss = None if targets is None else lm_loss(logits, targets)
        return logits, loss


# ---------------------------------------------------------------------------
# copying PyTorch's weights into ours


def copy_from_torch(ours: nn.Module, theirs: nn.Module) -> nn.Module:
    """Copy the weights of a PyTorch layer into our module of the same sizes; returns ``ours``.

    Pairs: MultiHeadAttention <- nn.MultiheadAttention (its in_proj_weight is W_Q, W_K, W_V stacked),
    EncoderBlock <- nn.TransformerEncoderLayer, DecoderBlock <- nn.TransformerDecoderLayer.
    Afterwards both compute the same function (with the masks converted: PyTorch's True = blocked).
    """
    copiers = [(MultiHeadAttention, nn.MultiheadAttention, _copy_attention),
               (EncoderBlock, nn.TransformerEncoderLayer, _copy_encoder_block),
               (DecoderBlock, nn.TransformerDecoderLayer, _copy_decoder_block)]
    for our_type, their_type, copy in copiers:
        if isinstance(ours, our_type) and isinstance(theirs, their_type):
            with torch.no_grad():
                copy(ours, theirs)
            return ours
    raise TypeError("copy_from_torch copies nn.MultiheadAttention into MultiHeadAttention, "
                    "nn.TransformerEncoderLayer into EncoderBlock or nn.TransformerDecoderLayer into DecoderBlock, "
                    f"got {type(theirs).__name__} into {type(ours).__name__}.")


def _copy_attention(ours: MultiHeadAttention, theirs: nn.MultiheadAttention) -> None:
    if theirs.num_heads != ours.num_heads:
        raise ValueError(f"cannot copy attention with {theirs.num_heads} heads into one with {ours.num_heads}.")
    if not theirs._qkv_same_embed_dim or theirs.bias_k is not None or theirs.add_zero_attn:
        raise ValueError("only a plain nn.MultiheadAttention (kdim = vdim = embed_dim, no add_bias_kv, "
                         "no add_zero_attn) can be copied.")
    weights = theirs.in_proj_weight.chunk(3)  # W_Q, W_K, W_V, each (d_model, d_model)
    biases = (None,) * 3 if theirs.in_proj_bias is None else theirs.in_proj_bias.chunk(3)
    for name, weight, bias in zip(("q_proj", "k_proj", "v_proj"), weights, biases):
        copy_linear(getattr(ours, name), weight, bias, name)
    copy_linear(ours.out_proj, theirs.out_proj.weight, theirs.out_proj.bias, "out_proj")


def _activation_name(fn) -> str:
    if fn is F.relu or isinstance(fn, nn.ReLU):
        return "relu"
    if fn is F.gelu or (isinstance(fn, nn.GELU) and fn.approximate == "none"):
        return "gelu"
    return repr(fn)


def _copy_feed_forward(ours: FeedForward, theirs: nn.Module) -> None:
    ours_name, theirs_name = _activation_name(ours.activation), _activation_name(theirs.activation)
    if ours_name != theirs_name:
        raise ValueError(f"cannot copy a layer with activation {theirs_name} into a block with {ours_name}.")
    copy_linear(ours.expand, theirs.linear1.weight, theirs.linear1.bias, "feed_forward.expand")
    copy_linear(ours.contract, theirs.linear2.weight, theirs.linear2.bias, "feed_forward.contract")


def _check_norm_first(add_norm: AddNorm, theirs: nn.Module) -> None:
    if add_norm.norm_first != theirs.norm_first:
        raise ValueError(f"cannot copy a layer with norm_first={theirs.norm_first} into a block with "
                         f"norm_first={add_norm.norm_first}: the LayerNorms sit in different places.")


def _copy_encoder_block(ours: EncoderBlock, theirs: nn.TransformerEncoderLayer) -> None:
    _check_norm_first(ours.attention_add_norm, theirs)
    _copy_attention(ours.self_attention, theirs.self_attn)
    _copy_feed_forward(ours.feed_forward, theirs)
    copy_layer_norm(ours.attention_add_norm.norm, theirs.norm1, "norm1")
    copy_layer_norm(ours.feed_forward_add_norm.norm, theirs.norm2, "norm2")


def _copy_decoder_block(ours: DecoderBlock, theirs: nn.TransformerDecoderLayer) -> None:
    _check_norm_first(ours.self_attention_add_norm, theirs)
    _copy_attention(ours.self_attention, theirs.self_attn)
    _copy_attention(ours.cross_attention, theirs.multihead_attn)
    _copy_feed_forward(ours.feed_forward, theirs)
    copy_layer_norm(ours.self_attention_add_norm.norm, theirs.norm1, "norm1")
    copy_layer_norm(ours.cross_attention_add_norm.norm, theirs.norm2, "norm2")
    copy_layer_norm(ours.feed_forward_add_norm.norm, theirs.norm3, "norm3")
