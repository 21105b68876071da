"""Checks for notebook 04's tagger and classifier: ``tag_logits`` (a Bi-LSTM's two directions -> per-token logits),
``tag_loss`` (the per-token loss that ignores padding) and ``last_states`` (each padded sequence's last real state).

The references are PyTorch's, computed here: the inputs of ``tag_logits`` are the two halves of an
``nn.LSTM(bidirectional=True)``'s outputs and the logits ``F.linear`` of the whole; the loss is ``F.cross_entropy``
with the padding's tags set to its ``ignore_index``; the last real states are the ``h_n`` of the same ``nn.LSTM``
run on the batch packed with ``pack_padded_sequence`` (which stops each sequence at its length).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

from course_lib.checks.common import check_gradients_reach, device_for_checks, random_tensor
from course_lib.grading.answers import AnswerError, Terms, Variant, call_answer, compare_answer, report_pass

IGNORE = -100


def _lstm(input_dim: int, hidden: int, bidirectional: bool, seed: int, dtype: torch.dtype, device) -> nn.LSTM:
    torch.manual_seed(seed)
    return nn.LSTM(input_dim, hidden, batch_first=True, bidirectional=bidirectional).to(device=device, dtype=dtype)


# ---------------------------------------------------------------------------
# tag_logits(forward_states, backward_states, W, b)


def _logits_variants() -> list[Variant]:
    def lin(x, W, b):
        return x @ W.T + b

    def half(W, k):
        H = W.shape[1] // 2
        return W[:, k * H:(k + 1) * H]
    return [
        Variant("backward_first", "you concatenated [backward; forward]: the first H columns of W read the forward "
                "state, as in nn.LSTM(bidirectional=True)'s outputs [forward h_t; backward h_t].",
                lambda f, r, W, b: lin(torch.cat([r, f], -1), W, b)),
        Variant("forward_only", "only the forward states reach your logits: a Bi-LSTM tagger reads both, "
                "[forward h_t; backward h_t] (B, T, 2H), times W^T, plus b.",
                lambda f, r, W, b: lin(f, half(W, 0), b)),
        Variant("backward_only", "only the backward states reach your logits: a Bi-LSTM tagger reads both, "
                "[forward h_t; backward h_t] (B, T, 2H), times W^T, plus b.",
                lambda f, r, W, b: lin(r, half(W, 1), b)),
        Variant("backward_flipped", "you flipped the backward states in time: they are already in time order "
                "(backward_states[:, t] has read x_t .. x_T), so flipping them gives token t the state of another "
                "token.", lambda f, r, W, b: lin(torch.cat([f, r.flip(1)], -1), W, b)),
        Variant("no_bias", "the bias b is missing: logits = [forward h_t; backward h_t] W^T + b.",
                lambda f, r, W, b: torch.cat([f, r], -1) @ W.T),
        Variant("time_major", "your logits are (T, B, C), time first: return (B, T, C), batch first like the inputs.",
                lambda f, r, W, b: lin(torch.cat([f, r], -1), W, b).transpose(0, 1)),
        Variant("flattened_wrongly", "your logits are in the wrong places: you flattened (B, T) in one order and "
                "unflattened in the other, so token t of sequence b got another token's logits. Reshape back with "
                "the order you flattened, or multiply the (B, T, 2H) tensor directly.",
                lambda f, r, W, b: lin(torch.cat([f, r], -1).transpose(0, 1).reshape(-1, W.shape[1]), W, b)
                .reshape(f.shape[0], f.shape[1], -1)),
        Variant("same_half", "the backward states are multiplied by the first H columns of W, like the forward ones: "
                "the last H columns of W read the backward state.",
                lambda f, r, W, b: lin(f, half(W, 0), 0) + lin(r, half(W, 0), b)),
        Variant("interleaved", "you interleaved the two directions' units (stacking on a new last axis and reshaping "
                "alternates them): concatenate the blocks, torch.cat([forward, backward], dim=-1), so that the first "
                "H columns of W read the forward state.",
                lambda f, r, W, b: lin(torch.stack([f, r], -1).reshape(*f.shape[:-1], -1), W, b)),
        Variant("bias_twice", "the bias b is added twice (once per direction): add it once, "
                "[forward h_t; backward h_t] W^T + b.", lambda f, r, W, b: lin(torch.cat([f, r], -1), W, 2 * b)),
        Variant("backward_first_position", "every token gets the backward state of position 0 (the backward LSTM's "
                "summary of the whole sequence): each token needs the backward state at its own position, "
                "backward_states[:, t].",
                lambda f, r, W, b: lin(torch.cat([f, r[:, :1].expand_as(r)], -1), W, b)),
        Variant("backward_last_position", "every token gets the backward state of the last position: each token "
                "needs the backward state at its own position, backward_states[:, t].",
                lambda f, r, W, b: lin(torch.cat([f, r[:, -1:].expand_as(r)], -1), W, b)),
        Variant("softmax", "you returned probabilities (a softmax over the tags): return the logits; the loss takes "
                "the log-softmax itself.", lambda f, r, W, b: torch.softmax(lin(torch.cat([f, r], -1), W, b), -1)),
    ]


def check_tag_logits(tag_logits: Callable, *, sizes: Sequence[tuple[int, int, int, int]] = ((2, 5, 3, 4),),
                     seed: int = 0, dtype: torch.dtype = torch.float32, device: Any = None) -> None:
    """For each (B, T, H, C): an nn.LSTM(bidirectional=True) reads a random (B, T, 4) batch; its outputs' two halves
    are the inputs, and the logits must be F.linear(outputs, W, b)."""
    ex = "tag_logits"
    device = device_for_checks(device)
    for number, (B, T, H, C) in enumerate(sizes):
        g = torch.Generator().manual_seed(seed + number)
        x = random_tensor((B, T, 4), dtype, device, g)
        with torch.no_grad():
            outputs, _ = _lstm(4, H, True, seed + number, dtype, device)(x)  # (B, T, 2H)
        forward_states, backward_states = outputs[..., :H].contiguous(), outputs[..., H:].contiguous()  # (B, T, H)
        W, b = random_tensor((C, 2 * H), dtype, device, g), random_tensor((C,), dtype, device, g)
        expected = F.linear(outputs, W, b)  # (B, T, C)
        inputs = (forward_states, backward_states, W, b)
        got = call_answer(ex, tag_logits, *(t.clone() for t in inputs))
        compare_answer(ex, got, expected, inputs=inputs, variants=_logits_variants(), what="the returned logits",
                       case=f"B={B}, T={T}, H={H}, C={C}", terms=Terms(axes=("sequence", "token", "tag"), time_axis=1))
    report_pass(ex, f"equals F.linear of nn.LSTM(bidirectional=True)'s outputs for (B, T, H, C) in {list(sizes)}")


# ---------------------------------------------------------------------------
# tag_loss(logits, tags, lengths)


def _real(tags: torch.Tensor, lengths: torch.Tensor, shift: int = 0) -> torch.Tensor:
    """(B, T) bool: True at the real tokens (position < length + shift)."""
    return torch.arange(tags.shape[1], device=tags.device)[None] < (lengths[:, None] + shift)


def _ce(logits, tags, mask, reduction="mean"):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tags.masked_fill(~mask, IGNORE).reshape(-1),
                           ignore_index=IGNORE, reduction=reduction)


def _per_token(logits, tags):
    return F.cross_entropy(logits.transpose(1, 2), tags, reduction="none")  # (B, T)


def _loss_variants() -> list[Variant]:
    everywhere = "the padding's tags are placeholders, not answers"
    return [
        Variant("mean_over_pads", f"your loss averages over the padding too ({everywhere}): average only over the "
                "real tokens, the first lengths[b] of each row.",
                lambda z, y, n: F.cross_entropy(z.reshape(-1, z.shape[-1]), y.reshape(-1))),
        Variant("divided_by_all", "you left the padding's losses out of the sum but divided by B * T, which counts "
                "the pads: divide by the number of real tokens, lengths.sum().",
                lambda z, y, n: _ce(z, y, _real(y, n), "sum") / y.numel()),
        Variant("sum", "your loss is the sum over the real tokens: take their mean (divide by lengths.sum()).",
                lambda z, y, n: _ce(z, y, _real(y, n), "sum")),
        Variant("mean_of_means", "you averaged each sequence's tokens and then the sequences, so a short line weighs "
                "as much as a long one: average over all real tokens at once.",
                lambda z, y, n: ((_per_token(z, y) * _real(y, n)).sum(1) / n).mean()),
        Variant("mask_one_short", "your mask leaves out each sequence's last real token: the real tokens are "
                "positions 0 .. lengths[b] - 1 (t < lengths[b]).", lambda z, y, n: _ce(z, y, _real(y, n, -1))),
        Variant("mask_one_long", "your mask takes one token past each sequence's end, the first padding position (off "
                "by one: the real tokens are positions 0 .. lengths[b] - 1, t < lengths[b], not t <= lengths[b]).",
                lambda z, y, n: _ce(z, y, _real(y, n, 1))),
        Variant("ignore_tag_zero", "you left out the tokens whose tag is 0: the padding is found from lengths, not "
                "from a tag value (the padding's tags are placeholders, and real tokens can have tag 0 too).",
                lambda z, y, n: F.cross_entropy(z.reshape(-1, z.shape[-1]), y.reshape(-1), ignore_index=0)),
        Variant("divided_by_batch", "you divided the sum over the real tokens by the batch size B: divide by the "
                "number of real tokens, lengths.sum().", lambda z, y, n: _ce(z, y, _real(y, n), "sum") / y.shape[0]),
        Variant("softmax_first", "you applied a softmax before F.cross_entropy, which takes raw logits (it applies the "
                "log-softmax itself), so the softmax is taken twice.",
                lambda z, y, n: _ce(torch.softmax(z, -1), y, _real(y, n))),
        Variant("left_padding", "your mask takes the last lengths[b] positions of each row, as if the padding came "
                "first: here the padding is at the end of the row, and the real tokens are the first lengths[b].",
                lambda z, y, n: _ce(z, y, torch.arange(y.shape[1], device=y.device)[None]
                                    >= y.shape[1] - n[:, None])),
        Variant("no_log_softmax", "you took minus the logit of the right tag: the loss is minus its log-probability "
                "(log_softmax of the logits first).",
                lambda z, y, n: -z.gather(-1, y[..., None])[..., 0][_real(y, n)].mean()),
        Variant("flattened_wrongly", "your logits and tags are paired wrongly: you flattened the logits time first "
                "and the tags batch first (or the other way round); flatten both the same way, (B * T, C) and "
                "(B * T,).",
                lambda z, y, n: _ce(z.transpose(0, 1).reshape(y.shape[0], y.shape[1], -1), y, _real(y, n))),
    ]


def check_tag_loss(tag_loss: Callable, *, batch: int = 4, steps: int = 6, num_tags: int = 5, seed: int = 0,
                   lengths: Sequence[int] | None = None, dtype: torch.dtype = torch.float32,
                   device: Any = None) -> None:
    """Random logits (B, T, C) and tags (B, T) whose padding holds random tags too; the loss must equal
    F.cross_entropy with the padding's tags set to ignore_index."""
    ex = "tag_loss"
    device = device_for_checks(device)
    g = torch.Generator().manual_seed(seed)
    logits = random_tensor((batch, steps, num_tags), dtype, device, g) * 2  # (B, T, C)
    tags = torch.randint(num_tags, (batch, steps), generator=g).to(device)  # (B, T): pads hold a tag too
    if lengths is None:
        lengths = [steps, *torch.randint(1, steps, (batch - 1,), generator=g).tolist()]
    lengths_t = torch.tensor(list(lengths)).to(device)  # (B,)
    expected = _ce(logits, tags, _real(tags, lengths_t))
    inputs = (logits, tags, lengths_t)
    got = call_answer(ex, tag_loss, *(t.clone() for t in inputs))
    if isinstance(got, torch.Tensor) and got.numel() == 1 and got.dim() > 0:
        raise AnswerError(ex, f"the returned loss has shape {tuple(got.shape)}: return one number, a tensor of shape "
                              "() (the mean over the real tokens).")
    compare_answer(ex, got, expected, inputs=inputs, variants=_loss_variants(), what="the returned loss",
                   case=f"B={batch}, T={steps}, C={num_tags}, lengths {list(lengths)}")
    check_gradients_reach(ex, tag_loss, lambda z, y, n: _ce(z, y, _real(y, n)), inputs, {0: "logits"},
                          why="The loss is what training backpropagates from, so it must be computed from the logits "
                              "with torch operations.")
    report_pass(ex, f"equals F.cross_entropy with ignore_index on the padding for lengths {list(lengths)}")


# ---------------------------------------------------------------------------
# last_states(outputs, lengths)


def _last_variants() -> list[Variant]:
    return [
        Variant("position_minus_one", "you took position -1 of every row: in a padded batch that is the state after "
                "the padding for every sequence shorter than T. Take each row's last real position, "
                "outputs[b, lengths[b] - 1].", lambda o, n: o[:, -1]),
        Variant("at_length", "you took position lengths[b], one past the end (off by one): the last real token of row "
                "b is at lengths[b] - 1 (positions count from 0).",
                lambda o, n: o[torch.arange(len(n), device=o.device), n.clamp(max=o.shape[1] - 1)]),
        Variant("one_hot_at_length", "you picked position lengths[b], one past the end (off by one), which is zero "
                "for a row with no padding: the last real token of row b is at lengths[b] - 1.",
                lambda o, n: (o * (torch.arange(o.shape[1], device=o.device)[None] == n[:, None])[..., None]).sum(1)),
        Variant("from_the_end", "you indexed position -lengths[b], which counts from the end of the padded row: the "
                "last real token is at position lengths[b] - 1, counted from the start.",
                lambda o, n: o[torch.arange(len(n), device=o.device), -n]),
        Variant("max_pool", "you took the maximum over the positions (max-pooling): a many-to-one model reads the "
                "state after the last real token, outputs[b, lengths[b] - 1].", lambda o, n: o.max(1).values),
        Variant("sorted_rows", "your rows are in another order (sorted by length, as pack_padded_sequence sorts "
                "them): return row b's state in row b, in the same order as the inputs.",
                lambda o, n: o[torch.argsort(n, descending=True), n[torch.argsort(n, descending=True)] - 1]),
        Variant("flat_no_offset", "you flattened outputs to (B * T, H) and indexed lengths - 1 without the offset "
                "b * T of row b, so every index lands in the first row.",
                lambda o, n: o.reshape(-1, o.shape[-1])[n - 1]),
        Variant("flat_other_layout", "your flat index b * T + t is for the batch-major layout, but you flattened a "
                "transposed (time-major) tensor, where position t of row b is at t * B + b: reshape without the "
                "transpose, or index in the layout you made.",
                lambda o, n: o.transpose(0, 1).reshape(-1, o.shape[-1])[torch.arange(len(n), device=o.device)
                                                                          * o.shape[1] + n - 1]),
        Variant("first", "you took position 0, the state after the first token: take each row's last real position, "
                "outputs[b, lengths[b] - 1].", lambda o, n: o[:, 0]),
        Variant("all_rows", "outputs[:, lengths - 1] picks every row's state at every row's length, (B, B, H): pair "
                "row b with its own length, outputs[torch.arange(B), lengths - 1].", lambda o, n: o[:, n - 1]),
        Variant("mean", "you averaged the states over the real positions: a many-to-one model reads the state after "
                "the last real token, outputs[b, lengths[b] - 1].",
                lambda o, n: (o * _real(o[..., 0], n)[..., None]).sum(1) / n[:, None]),
    ]


def check_last_states(last_states: Callable, *, lengths: Sequence[int] = (6, 3, 1, 4), hidden: int = 3, seed: int = 0,
                      dtype: torch.dtype = torch.float32, device: Any = None) -> None:
    """An nn.LSTM reads a padded random batch (padding vectors random too); the answer must equal the h_n of the same
    LSTM on the batch packed with pack_padded_sequence."""
    ex = "last_states"
    device = device_for_checks(device)
    B, T = len(lengths), max(lengths)
    g = torch.Generator().manual_seed(seed)
    x = random_tensor((B, T, 4), dtype, device, g)  # (B, T, 4): the padding is random vectors, not zeros
    lengths_t = torch.tensor(list(lengths)).to(device)  # (B,)
    lstm = _lstm(4, hidden, False, seed, dtype, device)
    with torch.no_grad():
        outputs, _ = lstm(x)  # (B, T, H): the states go on through the padding
        _, (h_n, _) = lstm(pack_padded_sequence(x, lengths_t.cpu(), batch_first=True, enforce_sorted=False))
    expected = h_n[-1]  # (B, H): each sequence's state after its last real token
    inputs = (outputs, lengths_t)
    got = call_answer(ex, last_states, *(t.clone() for t in inputs))
    compare_answer(ex, got, expected, inputs=inputs, variants=_last_variants(), what="the returned states",
                   case=f"outputs {tuple(outputs.shape)}, lengths {list(lengths)}",
                   terms=Terms(axes=("sequence", "hidden unit")))
    report_pass(ex, f"equals nn.LSTM's h_n over the packed batch for lengths {list(lengths)}")
