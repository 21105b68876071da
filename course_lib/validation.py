"""Input checks shared by the course's models: a wrong input gets one sentence saying what was expected.

They run before torch would fail deep inside a matmul with a message about strides. There is one
helper per kind of check, so that a model states each argument's contract in one line and then
reads as its maths:

- what a tensor is: :func:`require_float_tensor` (float, so many dimensions, optionally these
  sizes), :func:`require_shape` (any dtype), :func:`require_bool_mask`;
- token ids: :func:`require_token_ids` (integer, in [0, vocab_size)) and
  :func:`require_sequence_ids` (also (batch, T) and on the model's device); the range check reads
  the smallest and largest id from the device once;
- recurrent inputs: :func:`require_sequence` (B, T, D) and :func:`require_hidden_state` (B, H);
- agreement between arguments: :func:`require_same_kind` (dtype and device),
  :func:`require_same_device`, :func:`require_same_size` (one dimension), :func:`require_like` (the
  shape and device of another argument);
- settings: :func:`require_type`, :func:`require_types`, :func:`require_tuple`,
  :func:`require_choice`, :func:`require_index`, :func:`require_positive_int`,
  :func:`require_positive_ints`, :func:`require_probability`, :func:`require_number`.
"""
from __future__ import annotations

import math
from typing import Any, Collection, Sequence

import torch

__all__ = ["require_float_tensor", "require_shape", "require_bool_mask", "require_token_ids", "require_sequence_ids",
           "require_sequence", "require_hidden_state", "require_same_kind", "require_same_device", "require_same_size",
           "require_like", "require_type", "require_types", "require_tuple", "require_choice", "require_index",
           "require_positive_int", "require_positive_ints", "require_probability", "require_number"]

Sizes = Sequence[int | None]  # None: any size in that dimension


# ---------------------------------------------------------------------------
# what a tensor is


def _sizes_differ(x: torch.Tensor, sizes: Sizes) -> bool:
    return x.dim() != len(sizes) or any(want is not None and got != want for got, want in zip(x.shape, sizes))


def _shape_sentence(name: str, x: torch.Tensor, shape: str, sizes: Sizes, why: str) -> str:
    if why:
        return f"{name} must have shape {shape}{why}, got shape {tuple(x.shape)}."
    wanted = ", ".join("*" if size is None else str(size) for size in sizes) + ("," if len(sizes) == 1 else "")
    return f"{name} must have shape {shape} = ({wanted}), got {tuple(x.shape)}."


def require_float_tensor(name: str, x: Any, shape: str, sizes: Sizes | None = None, why: str = "",
                         like: dict[str, torch.Tensor] | None = None) -> None:
    """x must be a floating-point tensor with the dimensions ``shape`` names, e.g. "(B, T, D)".

    A shape starting with "..." (e.g. "(..., seq_len, dim)") allows any number of leading dimensions.
    ``sizes`` (None: any) pins the sizes: the message says "= (*, *, 8)", or ``why`` when given
    (e.g. " with D = 8 like U's columns"). ``like`` ({"U": U}): x must have U's dtype and device.
    """
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor of shape {shape}, got {type(x).__name__}.")
    if not x.is_floating_point():
        raise TypeError(f"{name} must hold floating-point numbers, got dtype {x.dtype}; try {name}.float().")
    parts = [part.strip() for part in shape.strip("()").split(",") if part.strip()]
    leading = bool(parts) and parts[0] == "..."
    if (x.dim() < len(parts) - 1) if leading else (x.dim() != len(parts)):
        raise ValueError(f"{name} must have shape {shape}, got shape {tuple(x.shape)}.")
    if sizes is not None and _sizes_differ(x, sizes):
        raise ValueError(_shape_sentence(name, x, shape, sizes, why))
    if like is not None:
        require_same_kind({**like, name: x})


def require_shape(name: str, x: torch.Tensor, shape: str, sizes: Sizes, why: str = "") -> None:
    """x (a tensor of any dtype) must have ``sizes`` (None: any): "idx must have shape (batch, k) = (*, 5), ..."."""
    if _sizes_differ(x, sizes):
        raise ValueError(_shape_sentence(name, x, shape, sizes, why))


def require_bool_mask(name: str, mask: Any, device: torch.device | None = None, device_of: str = "the query") -> None:
    """mask must be a bool tensor (True = may attend), on ``device`` when given."""
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool:
        got = mask.dtype if isinstance(mask, torch.Tensor) else type(mask).__name__
        raise TypeError(f"{name} must be a bool tensor with True where attention is allowed, got {got}.")
    if device is not None and mask.device != device:
        raise ValueError(f"{name} is on {mask.device} but {device_of} is on {device}.")


# ---------------------------------------------------------------------------
# token ids


def _require_integer(name: str, x: Any) -> None:
    if not isinstance(x, torch.Tensor) or x.dtype not in (torch.int64, torch.int32):
        got = x.dtype if isinstance(x, torch.Tensor) else type(x).__name__
        raise TypeError(f"{name} must be an integer (torch.long) tensor of token ids, got {got}.")


def _require_in_vocabulary(name: str, x: torch.Tensor, vocab_size: int) -> None:
    if x.numel():
        low, high = torch.stack(torch.aminmax(x)).tolist()  # one read from the device, not two
        if low < 0 or high >= vocab_size:
            raise ValueError(f"{name}: token ids must lie in [0, {vocab_size}), got values from {low} to {high}; "
                             "encode the text with the model's own vocabulary.")


def require_token_ids(name: str, x: Any, vocab_size: int | None = None) -> None:
    """x must be an integer tensor of token ids (in [0, vocab_size) when vocab_size is given)."""
    _require_integer(name, x)
    if vocab_size is not None:
        _require_in_vocabulary(name, x, vocab_size)


def require_sequence_ids(name: str, x: Any, vocab_size: int, device: torch.device, max_len: int | None = None,
                         max_len_name: str = "block_size") -> None:
    """x must be (batch, T) token ids in [0, vocab_size) on ``device`` (the model's), 1 <= T (<= max_len)."""
    _require_integer(name, x)
    if x.dim() != 2 or x.shape[1] < 1 or (max_len is not None and x.shape[1] > max_len):
        limit = "" if max_len is None else f" <= {max_len_name}={max_len}"
        crop = "" if max_len is None else f"; crop longer inputs to their last {max_len_name} tokens"
        raise ValueError(f"{name} must be token ids of shape (batch, T) with 1 <= T{limit}, "
                         f"got shape {tuple(x.shape)}{crop}.")
    if x.device != device:
        raise ValueError(f"{name} is on {x.device} but the model is on {device}; move one of them with .to(device).")
    _require_in_vocabulary(name, x, vocab_size)


# ---------------------------------------------------------------------------
# recurrent networks' inputs


def require_sequence(name: str, x: Any, input_dim: int | None = None, weight_name: str = "",
                     weight: torch.Tensor | None = None) -> None:
    """x must be a (B, T, D) float sequence with T >= 1 and D = ``weight``'s columns, of its dtype and device."""
    sizes = None if input_dim is None else (None, None, input_dim)
    require_float_tensor(name, x, "(B, T, D)", sizes, f" with D = {input_dim} like {weight_name}'s columns")
    if x.shape[1] < 1:
        raise ValueError(f"{name} must hold at least one time step, got shape {tuple(x.shape)}.")
    if weight is not None:
        require_same_kind({weight_name: weight, name: x})


def require_hidden_state(name: str, h: Any, batch: int, hidden: int, weight_name: str, weight: torch.Tensor) -> None:
    """h must be (batch, hidden), of the dtype and device of ``weight``."""
    require_float_tensor(name, h, "(B, H)", (batch, hidden),
                         f" with B = {batch} rows, one per sequence of the input, and H = {hidden} columns",
                         like={weight_name: weight})


# ---------------------------------------------------------------------------
# agreement between arguments


def require_same_kind(tensors: dict[str, torch.Tensor], allow_autocast: bool = False) -> None:
    """All tensors must share one dtype and one device (torch would otherwise fail inside a matmul).

    ``allow_autocast``: under ``torch.autocast`` the dtypes may differ (autocast converts them).
    """
    (first, reference), *rest = tensors.items()
    autocast = allow_autocast and torch.is_autocast_enabled(reference.device.type)
    for name, x in rest:
        if x.dtype != reference.dtype and not autocast:
            raise TypeError(f"{name} has dtype {x.dtype} but {first} has {reference.dtype}; "
                            f"convert them to one dtype, e.g. {name}.to({reference.dtype}).")
        require_same_device(name, x, first, reference)


def require_same_device(name: str, x: torch.Tensor, other_name: str, other: torch.Tensor) -> None:
    if x.device != other.device:
        raise ValueError(f"{name} is on {x.device} but {other_name} is on {other.device}; "
                         "move one of them with .to(device).")


def require_same_size(name: str, x: torch.Tensor, other_name: str, other: torch.Tensor, dim: int, what: str) -> None:
    """x.shape[dim] must equal other.shape[dim]; ``what`` says why, e.g. "share their last dimension d_k"."""
    if x.shape[dim] != other.shape[dim]:
        raise ValueError(f"{name} and {other_name} must {what}, got {name} {tuple(x.shape)} and "
                         f"{other_name} {tuple(other.shape)}.")


def require_like(name: str, x: torch.Tensor, other_name: str, other: torch.Tensor, why: str = "") -> None:
    """x must have the shape of ``other`` and sit on its device, e.g. a mask for input_ids."""
    if x.shape != other.shape:
        raise ValueError(f"{name} must have the shape of {other_name} {tuple(other.shape)}{why}, "
                         f"got {tuple(x.shape)}.")
    require_same_device(name, x, other_name, other)


# ---------------------------------------------------------------------------
# settings


def require_type(value: Any, kind: type, sentence: str) -> None:
    """value must be a ``kind``; ``sentence`` says so, e.g. "RNNLanguageModel takes an RNNConfig"."""
    if not isinstance(value, kind):
        raise TypeError(f"{sentence}, got {type(value).__name__}.")


def _type_name(kind: type) -> str:
    return f"nn.{kind.__name__}" if kind.__module__.startswith("torch.nn") else kind.__name__


def require_types(owner: str, values: Sequence[Any], kinds: Sequence[type]) -> None:
    """values[i] must be a kinds[i]: "load_from_torch takes (nn.Embedding, nn.RNN, nn.Linear), got (...)"."""
    if not all(isinstance(value, kind) for value, kind in zip(values, kinds)):
        raise TypeError(f"{owner} takes ({', '.join(map(_type_name, kinds))}), got "
                        f"({', '.join(type(value).__name__ for value in values)}).")


def require_tuple(name: str, value: Any, length: int, what: str) -> None:
    """value must be a tuple (or list) of ``length`` items; ``what`` says which, e.g. "a pair (h0, c0) or None"."""
    if not isinstance(value, (tuple, list)) or len(value) != length:
        got = type(value).__name__ + (f" of length {len(value)}" if isinstance(value, (tuple, list)) else "")
        raise TypeError(f"{name} must be {what}, got {got}.")


def require_index(name: str, value: Any, size: int) -> None:
    """value must be an integer in [0, size), e.g. a layer of a stack of ``size`` layers."""
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < size:
        raise ValueError(f"{name} must be an integer in [0, {size}), got {value!r}.")


def require_choice(name: str, value: Any, choices: Collection[str]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, got {value!r}.")


def require_positive_int(name: str, value: Any) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}.")


def require_positive_ints(owner: str, **sizes: Any) -> None:
    """Each keyword must be a positive integer; errors name it as ``owner.name``."""
    for name, value in sizes.items():
        require_positive_int(f"{owner}.{name}", value)


def require_probability(name: str, value: Any, closed: bool = False) -> None:
    """A probability in [0, 1) (dropout-style), or in [0, 1] when ``closed``."""
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not is_number or not (0.0 <= value <= 1.0 if closed else 0.0 <= value < 1.0):
        raise ValueError(f"{name} must be a probability in [0, 1{']' if closed else ')'}, got {value!r}.")


def require_number(name: str, value: Any, non_negative: bool = False) -> None:
    """A finite int or float (and >= 0 when ``non_negative``)."""
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not is_number or (non_negative and value < 0):
        raise ValueError(f"{name} must be a {'non-negative' if non_negative else 'finite'} number, got {value!r}.")
