"""Input checks shared by the course's models: a wrong input gets one sentence saying what was expected.

They run before torch would fail deep inside a matmul with a message about strides. A model checks
its inputs once, at its public entry (its ``forward``, or the function a student calls), with one
helper call per argument, and then reads as its maths:

- once: a model runs its layers inside :func:`inputs_checked`, where every helper here returns at
  once; a layer a student calls checks its inputs, the same layer inside a model does not check
  what the model computed. No helper reads a value back from a GPU (a host synchronisation): the
  token range and the values of a padding mask are checked when the tensor is on the CPU;
- a condition: :func:`require` (the compact ``if not ok: raise ValueError(sentence)``);
- what a tensor is: :func:`require_float_tensor` (float, so many dimensions, optionally these
  sizes), :func:`require_shape` (any dtype), :func:`require_bool_mask`, :func:`require_pair`;
- token ids: :func:`require_token_ids` (integer, in [0, vocab_size)), :func:`require_sequence_ids`
  (also (batch, T) and on the model's device), :func:`require_ids_like` (the shape of other ids),
  :func:`require_padding_mask` (1 for real tokens, 0 for padding);
- recurrent networks: :func:`require_recurrent` (the weights, the input and the states of a cell or
  a loop), :func:`require_sequence` (B, T, D) and :func:`require_hidden_state` (B, H);
- attention: :func:`require_attention` (Q, K, V, mask), :func:`require_attention_inputs` and
  :func:`require_attention_masks` (a layer's query, key, value and masks), :func:`require_head_split`;
- agreement between arguments: :func:`require_same_kind` (dtype and device),
  :func:`require_same_device`, :func:`require_same_size` (one dimension), :func:`require_like` (the
  shape and device of another argument);
- settings: :func:`require_config` (a dataclass's fields), :func:`require_type`,
  :func:`require_types`, :func:`require_tuple`, :func:`require_choice`, :func:`require_index`,
  :func:`require_positive_int`, :func:`require_positive_ints`, :func:`require_probability`,
  :func:`require_number`.
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
from contextvars import ContextVar
from typing import Any, Callable, Collection, Iterator, Sequence, TypeVar

import torch

__all__ = ["inputs_checked", "require", "require_float_tensor", "require_shape", "require_bool_mask", "require_pair",
           "require_token_ids", "require_sequence_ids", "require_ids_like", "require_padding_mask",
           "require_recurrent", "require_sequence", "require_hidden_state", "require_attention",
           "require_attention_inputs", "require_attention_masks", "require_head_split", "require_same_kind",
           "require_same_device", "require_same_size", "require_like", "require_config", "require_type",
           "require_types", "require_tuple", "require_choice", "require_index", "require_positive_int",
           "require_positive_ints", "require_probability", "require_number"]

Sizes = Sequence[int | None]  # None: any size in that dimension
Helper = TypeVar("Helper", bound=Callable[..., None])
_CHECKED: ContextVar[bool] = ContextVar("course_lib_inputs_checked", default=False)


# ---------------------------------------------------------------------------
# once


@contextlib.contextmanager
def inputs_checked() -> Iterator[None]:
    """Inside, every helper of this module returns at once: the caller has checked the inputs of what it runs here.

    A model checks its own inputs, then calls its layers inside this block, so that a layer (which checks
    its inputs when a student calls it) does not check again what the model computed.
    """
    token = _CHECKED.set(True)
    try:
        yield
    finally:
        _CHECKED.reset(token)


def _check(helper: Helper) -> Helper:
    """The helper, doing nothing inside :func:`inputs_checked`."""

    @functools.wraps(helper)
    def unless_checked(*args: Any, **kwargs: Any) -> None:
        if not _CHECKED.get():
            helper(*args, **kwargs)

    return unless_checked  # type: ignore[return-value]


@_check
def require(ok: Any, sentence: str, error: type[Exception] = ValueError) -> None:
    """``ok`` must hold; otherwise ``error(sentence)``. The sentence says what was expected and what came."""
    if not ok:
        raise error(sentence)


# ---------------------------------------------------------------------------
# what a tensor is


def _sizes_differ(x: torch.Tensor, sizes: Sizes) -> bool:
    return x.dim() != len(sizes) or any(want is not None and got != want for got, want in zip(x.shape, sizes))


def _shape_sentence(name: str, x: torch.Tensor, shape: str, sizes: Sizes, why: str) -> str:
    if why:
        return f"{name} must have shape {shape}{why}, got shape {tuple(x.shape)}."
    wanted = ", ".join("*" if size is None else str(size) for size in sizes) + ("," if len(sizes) == 1 else "")
    return f"{name} must have shape {shape} = ({wanted}), got {tuple(x.shape)}."


@_check
def require_float_tensor(name: str, x: Any, shape: str, sizes: Sizes | None = None, why: str = "",
                         like: dict[str, torch.Tensor] | None = None, optional: bool = False) -> None:
    """x must be a floating-point tensor with the dimensions ``shape`` names, e.g. "(B, T, D)".

    A shape starting with "..." (e.g. "(..., seq_len, dim)") allows any number of leading dimensions.
    ``sizes`` (None: any) pins the sizes: the message says "= (*, *, 8)", or ``why`` when given
    (e.g. " with D = 8 like U's columns"). ``like`` ({"U": U}): x must have U's dtype and device.
    ``optional``: x may also be None.
    """
    if optional and x is None:
        return
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


@_check
def require_shape(name: str, x: torch.Tensor, shape: str, sizes: Sizes, why: str = "") -> None:
    """x (a tensor of any dtype) must have ``sizes`` (None: any): "idx must have shape (batch, k) = (*, 5), ..."."""
    if _sizes_differ(x, sizes):
        raise ValueError(_shape_sentence(name, x, shape, sizes, why))


@_check
def require_bool_mask(name: str, mask: Any, device: torch.device | None = None, device_of: str = "the query",
                      meaning: str = "True where attention is allowed") -> None:
    """mask must be a bool tensor (True = may attend, or ``meaning``), on ``device`` when given."""
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool:
        got = mask.dtype if isinstance(mask, torch.Tensor) else type(mask).__name__
        raise TypeError(f"{name} must be a bool tensor with {meaning}, got {got}.")
    if device is not None and mask.device != device:
        raise ValueError(f"{name} is on {mask.device} but {device_of} is on {device}.")


@_check
def require_pair(name: str, pair: Any, names: tuple[str, str], shape: str, sizes: Sizes,
                 like: dict[str, torch.Tensor] | None = None) -> None:
    """pair must be a tuple (a, b) of float tensors of ``sizes``, e.g. an LSTM's state (h0, c0), or None."""
    require_tuple(name, pair, 2, f"a pair ({', '.join(names)}) or None", optional=True)
    for part_name, part in zip(names, pair or ()):
        require_float_tensor(part_name, part, shape, sizes, like=like)


# ---------------------------------------------------------------------------
# token ids


def _require_integer(name: str, x: Any, what: str = "token ids") -> None:
    if not isinstance(x, torch.Tensor) or x.dtype not in (torch.int64, torch.int32):
        got = x.dtype if isinstance(x, torch.Tensor) else type(x).__name__
        raise TypeError(f"{name} must be an integer (torch.long) tensor of {what}, got {got}.")


def _require_in_vocabulary(name: str, x: torch.Tensor, vocab_size: int) -> None:
    """On the CPU only: on a GPU, reading the smallest and largest id would wait for the device."""
    if x.numel() and x.device.type == "cpu":
        low, high = torch.stack(torch.aminmax(x)).tolist()  # one read, not two
        if low < 0 or high >= vocab_size:
            raise ValueError(f"{name}: token ids must lie in [0, {vocab_size}), got values from {low} to {high}; "
                             "encode the text with the model's own vocabulary.")


@_check
def require_token_ids(name: str, x: Any, vocab_size: int | None = None) -> None:
    """x must be an integer tensor of token ids (in [0, vocab_size) when vocab_size is given, checked on the CPU)."""
    _require_integer(name, x)
    if vocab_size is not None:
        _require_in_vocabulary(name, x, vocab_size)


@_check
def require_sequence_ids(name: str, x: Any, vocab_size: int, device: torch.device, max_len: int | None = None,
                         max_len_name: str = "block_size", batch: int | None = None) -> None:
    """x must be (batch, T) token ids in [0, vocab_size) on ``device`` (the model's), 1 <= T (<= max_len).

    ``batch``: the number of rows it must have (one per sequence of another argument).
    """
    _require_integer(name, x)
    if x.dim() != 2 or x.shape[1] < 1 or (max_len is not None and x.shape[1] > max_len):
        limit = "" if max_len is None else f" <= {max_len_name}={max_len}"
        crop = "" if max_len is None else f"; crop longer inputs to their last {max_len_name} tokens"
        raise ValueError(f"{name} must be token ids of shape (batch, T) with 1 <= T{limit}, "
                         f"got shape {tuple(x.shape)}{crop}.")
    if batch is not None and x.shape[0] != batch:
        raise ValueError(f"{name} must have shape (B, T) with B = {batch} rows, one per sequence of the input, "
                         f"got shape {tuple(x.shape)}.")
    if x.device != device:
        raise ValueError(f"{name} is on {x.device} but the model is on {device}; move one of them with .to(device).")
    _require_in_vocabulary(name, x, vocab_size)


@_check
def require_ids_like(name: str, x: Any, other_name: str, other: torch.Tensor, vocab_size: int | None = None,
                     why: str = "") -> None:
    """x must be integer ids of ``other``'s shape and device (in [0, vocab_size) when given), e.g. BERT's segments."""
    _require_integer(name, x)
    require_like(name, x, other_name, other, why)
    if vocab_size is not None:
        _require_in_vocabulary(name, x, vocab_size)


@_check
def require_padding_mask(name: str, mask: Any, ids_name: str, ids: torch.Tensor) -> None:
    """Hugging Face's attention mask: ``ids``' shape, 1 (or True) for real tokens, 0 for padding, one real token a row.

    None passes (no padding). The values are read on the CPU only (one read); on a GPU that would wait for the device.
    """
    if mask is None:
        return
    if not isinstance(mask, torch.Tensor) or mask.dtype not in (torch.bool, torch.int64, torch.int32, torch.uint8):
        got = mask.dtype if isinstance(mask, torch.Tensor) else type(mask).__name__
        raise TypeError(f"{name} must be an integer or bool tensor with 1 for real tokens and 0 for padding, "
                        f"got {got}.")
    require_like(name, mask, ids_name, ids)
    if mask.device.type == "cpu":
        keep = mask.bool()
        not_binary, empty_row = torch.stack([(keep != mask).any(), ~keep.any(dim=1).all()]).tolist()  # one read
        if not_binary:
            raise ValueError(f"{name} must hold only 1 (real token) and 0 (padding).")
        if empty_row:
            raise ValueError(f"every sequence needs at least one real token (a 1 in {name}), "
                             "otherwise its attention has nothing to attend to.")


# ---------------------------------------------------------------------------
# recurrent networks' inputs


@_check
def require_recurrent(inputs: dict[str, Any], weights: dict[str, Any], gates: int = 1, step: bool = False) -> None:
    """The arguments of a recurrent cell (``step``) or of its loop over a sequence.

    ``weights``: input-to-hidden (gH, D), hidden-to-hidden (gH, H), then the biases (gH,), of one dtype
    and device, g = ``gates`` (1: the RNN's U, W, b; 4: the LSTM's W_ih, W_hh, b_ih, b_hh, the four
    gates' rows stacked). ``inputs``: the input, x_t (B, D) for one step or x (B, T, D), then the states
    (B, H) of its dtype and device; a state may be None (zeros).
    """
    (w_name, w_in), (hh_name, w_hh), *biases = weights.items()
    g = "" if gates == 1 else str(gates)
    require_float_tensor(w_name, w_in, f"({g}H, D)")
    if w_in.shape[0] % gates:
        raise ValueError(f"{w_name} must have shape ({g}H, D): the four gates' rows stacked, "
                         f"got shape {tuple(w_in.shape)}.")
    hidden, input_dim = w_in.shape[0] // gates, w_in.shape[1]
    like = {w_name: w_in}
    require_float_tensor(hh_name, w_hh, f"({g}H, H)", (gates * hidden, hidden), like=like)
    for name, bias in biases:
        require_float_tensor(name, bias, f"({g}H,)", (gates * hidden,),
                             f" with {g}H = {gates * hidden} entries like {w_name}'s rows", like)
    (x_name, x), *states = inputs.items()
    if step:
        require_float_tensor(x_name, x, "(B, D)", (None, input_dim), f" with D = {input_dim} columns like {w_name}",
                             like)
    else:
        require_sequence(x_name, x, input_dim, w_name, w_in)
    for name, state in states:
        if state is not None:
            require_hidden_state(name, state, x.shape[0], hidden, w_name, w_in)


@_check
def require_sequence(name: str, x: Any, input_dim: int | None = None, weight_name: str = "",
                     weight: torch.Tensor | None = None) -> None:
    """x must be a (B, T, D) float sequence with T >= 1 and D = ``weight``'s columns, of its dtype and device."""
    sizes = None if input_dim is None else (None, None, input_dim)
    require_float_tensor(name, x, "(B, T, D)", sizes, f" with D = {input_dim} like {weight_name}'s columns")
    if x.shape[1] < 1:
        raise ValueError(f"{name} must hold at least one time step, got shape {tuple(x.shape)}.")
    if weight is not None:
        require_same_kind({weight_name: weight, name: x})


@_check
def require_hidden_state(name: str, h: Any, batch: int, hidden: int, weight_name: str, weight: torch.Tensor) -> None:
    """h must be (batch, hidden), of the dtype and device of ``weight``."""
    require_float_tensor(name, h, "(B, H)", (batch, hidden),
                         f" with B = {batch} rows, one per sequence of the input, and H = {hidden} columns",
                         like={weight_name: weight})


# ---------------------------------------------------------------------------
# attention


@_check
def require_attention(Q: Any = None, K: Any = None, V: Any = None, mask: Any = None, same_dim: bool = True) -> None:
    """What is given of attention's Q (..., n_q, d), K (..., n_k, d), V (..., n_k, d_v) and a bool mask.

    Q and K: float tensors of one dtype and device, of the same last size d (unless not ``same_dim``);
    V: of K's dtype and device and number of positions; mask: bool, on K's device.
    """
    shape = "(..., seq_len, dim)"
    if Q is not None:
        require_float_tensor("Q", Q, shape)
        require_float_tensor("K", K, shape, like={"Q": Q})
        if same_dim:
            require_same_size("Q", Q, "K", K, -1, "share their last dimension d_k")
    if V is not None:
        require_float_tensor("V", V, shape, like={"K": K})
        require_same_size("K", K, "V", V, -2, "have the same number of positions")
    if mask is not None:
        require_bool_mask("mask", mask, K.device, "Q and K")


@_check
def require_attention_inputs(query: Any, key: Any, value: Any, weight_name: str, weight: torch.Tensor) -> None:
    """query (B, T_q, d_model), key and value (B, T_k, d_model) with d_model = ``weight``'s columns, of its dtype
    (any under autocast) and device."""
    d_model = weight.shape[1]
    shape = f"(batch, seq_len, d_model={d_model})"
    for name, x in (("query", query), ("key", key), ("value", value)):
        require_float_tensor(name, x, shape, (None, None, d_model), " with the layer's d_model")
        require_same_kind({weight_name: weight, name: x}, allow_autocast=True)
    if key.shape[:2] != value.shape[:2] or key.shape[0] != query.shape[0]:
        raise ValueError(f"query, key and value must share the batch size and key and value the length, got "
                         f"query {tuple(query.shape)}, key {tuple(key.shape)}, value {tuple(value.shape)}.")


@_check
def require_attention_masks(mask: Any, key_padding_mask: Any, full: tuple[int, int, int, int],
                            device: torch.device) -> None:
    """Bool masks (True = may attend) on ``device``, or None: ``mask`` (T_q, T_k), (B, T_q, T_k) or
    (B, h, T_q, T_k), broadcastable to ``full`` = (B, h, T_q, T_k); ``key_padding_mask`` (B, T_k)."""
    if mask is not None:
        require_bool_mask("mask", mask, device)
        sizes = mask.shape[:1] + (1,) + mask.shape[1:] if mask.dim() == 3 else mask.shape  # one mask for every head
        if not 2 <= mask.dim() <= 4 or any(m not in (1, n) for m, n in zip(sizes[::-1], full[::-1])):
            raise ValueError(f"mask must be (T_q, T_k), (batch, T_q, T_k) or (batch, heads, T_q, T_k) = "
                             f"{full} (or broadcastable to it), got shape {tuple(mask.shape)}.")
    if key_padding_mask is not None:
        require_bool_mask("key_padding_mask", key_padding_mask, device)
        if key_padding_mask.shape != (full[0], full[3]):
            raise ValueError(f"key_padding_mask must be (batch, T_k) = {(full[0], full[3])} with True for real "
                             f"tokens, got shape {tuple(key_padding_mask.shape)}.")


@_check
def require_head_split(d_model: Any, num_heads: Any) -> None:
    """d_model and num_heads positive integers, each head getting d_model // num_heads dimensions."""
    require_positive_int("d_model", d_model)
    require_positive_int("num_heads", num_heads)
    if d_model % num_heads:
        raise ValueError(f"d_model={d_model} must be divisible by num_heads={num_heads}, "
                         "because each head gets d_model // num_heads dimensions.")


# ---------------------------------------------------------------------------
# agreement between arguments


@_check
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


@_check
def require_same_device(name: str, x: torch.Tensor, other_name: str, other: torch.Tensor) -> None:
    if x.device != other.device:
        raise ValueError(f"{name} is on {x.device} but {other_name} is on {other.device}; "
                         "move one of them with .to(device).")


@_check
def require_same_size(name: str, x: torch.Tensor, other_name: str, other: torch.Tensor, dim: int, what: str) -> None:
    """x.shape[dim] must equal other.shape[dim]; ``what`` says why, e.g. "share their last dimension d_k"."""
    if x.shape[dim] != other.shape[dim]:
        raise ValueError(f"{name} and {other_name} must {what}, got {name} {tuple(x.shape)} and "
                         f"{other_name} {tuple(other.shape)}.")


@_check
def require_like(name: str, x: torch.Tensor, other_name: str, other: torch.Tensor, why: str = "") -> None:
    """x must have the shape of ``other`` and sit on its device, e.g. a mask for input_ids."""
    if x.shape != other.shape:
        raise ValueError(f"{name} must have the shape of {other_name} {tuple(other.shape)}{why}, "
                         f"got {tuple(x.shape)}.")
    require_same_device(name, x, other_name, other)


# ---------------------------------------------------------------------------
# settings


@_check
def require_config(config: Any, **choices: Collection[str]) -> None:
    """The fields of the dataclass ``config``, named "RNNConfig.hidden_dim" in the sentences.

    Each ``int`` field a positive integer; each ``float`` field a probability in [0, 1) when its name
    says dropout, a positive number otherwise; each keyword's field one of its choices (or None when
    its type allows None).
    """
    owner = type(config).__name__
    for field in dataclasses.fields(config):
        name, value = f"{owner}.{field.name}", getattr(config, field.name)
        if field.type in ("int", int):
            require_positive_int(name, value)
        elif field.type in ("float", float) and "dropout" in field.name:
            require_probability(name, value)
        elif field.type in ("float", float):
            require_number(name, value, positive=True)
        if field.name in choices and not (value is None and "None" in str(field.type)):
            require_choice(name, value, choices[field.name])


@_check
def require_type(value: Any, kind: type | tuple[type, ...], sentence: str) -> None:
    """value must be a ``kind``; ``sentence`` says so, e.g. "RNNLanguageModel takes an RNNConfig"."""
    if not isinstance(value, kind):
        raise TypeError(f"{sentence}, got {type(value).__name__}.")


def _type_name(kind: type) -> str:
    return f"nn.{kind.__name__}" if kind.__module__.startswith("torch.nn") else kind.__name__


@_check
def require_types(owner: str, values: Sequence[Any], kinds: Sequence[type]) -> None:
    """values[i] must be a kinds[i]: "load_from_torch takes (nn.Embedding, nn.RNN, nn.Linear), got (...)"."""
    if not all(isinstance(value, kind) for value, kind in zip(values, kinds)):
        raise TypeError(f"{owner} takes ({', '.join(map(_type_name, kinds))}), got "
                        f"({', '.join(type(value).__name__ for value in values)}).")


@_check
def require_tuple(name: str, value: Any, length: int, what: str, optional: bool = False) -> None:
    """value must be a tuple (or list) of ``length`` items (or None when ``optional``); ``what`` says which,
    e.g. "a pair (h0, c0) or None"."""
    if (value is not None or not optional) and (not isinstance(value, (tuple, list)) or len(value) != length):
        got = type(value).__name__ + (f" of length {len(value)}" if isinstance(value, (tuple, list)) else "")
        raise TypeError(f"{name} must be {what}, got {got}.")


@_check
def require_index(name: str, value: Any, size: int) -> None:
    """value must be an integer in [0, size), e.g. a layer of a stack of ``size`` layers."""
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < size:
        raise ValueError(f"{name} must be an integer in [0, {size}), got {value!r}.")


@_check
def require_choice(name: str, value: Any, choices: Collection[str]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, got {value!r}.")


@_check
def require_positive_int(name: str, value: Any) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}.")


@_check
def require_positive_ints(owner: str, **sizes: Any) -> None:
    """Each keyword must be a positive integer; errors name it as ``owner.name``."""
    for name, value in sizes.items():
        require_positive_int(f"{owner}.{name}", value)


@_check
def require_probability(name: str, value: Any, closed: bool = False) -> None:
    """A probability in [0, 1) (dropout-style), or in [0, 1] when ``closed``."""
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not is_number or not (0.0 <= value <= 1.0 if closed else 0.0 <= value < 1.0):
        raise ValueError(f"{name} must be a probability in [0, 1{']' if closed else ')'}, got {value!r}.")


@_check
def require_number(name: str, value: Any, non_negative: bool = False, positive: bool = False) -> None:
    """A finite int or float (and >= 0 when ``non_negative``, > 0, "a positive float", when ``positive``)."""
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if positive and not (is_number and value > 0):
        raise ValueError(f"{name} must be a positive float, got {value!r}.")
    if not is_number or (non_negative and value < 0):
        raise ValueError(f"{name} must be a {'non-negative' if non_negative else 'finite'} number, got {value!r}.")
