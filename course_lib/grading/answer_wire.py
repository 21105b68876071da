"""The plain data that leaves a student's kernel while it is graded.

:func:`encode` (in the kernel) turns what the student's code returned into JSON: numbers,
strings, lists, tuples, dicts, and tensors and arrays as raw bytes with a dtype from a fixed
list; anything else travels as its type's name only. :func:`decode` (in the grader) checks
every field and builds fresh values from it. Never a pickle and never a live object leaves
the kernel. :mod:`course_lib.grading.remote_answer` sends the calls and reads the replies; what travels into the
kernel with a request refers to the kernel's own objects (:class:`KernelRef`, :class:`ModuleRef`).
"""
from __future__ import annotations

import base64
import contextvars
import json
import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

MIME = "text/x-course-answer"
MAX_DEPTH = 32
MAX_ITEMS = 1_000_000
MAX_REPLY_CHARS = 64 << 20

_TENSOR_DTYPES = {
    "float64": torch.float64, "float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
    "int64": torch.int64, "int32": torch.int32, "int16": torch.int16, "int8": torch.int8, "uint8": torch.uint8,
    "bool": torch.bool,
}
_ARRAY_DTYPES = {"float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"}


class WireError(ValueError):
    """A reply from the kernel that is not plain data of the agreed form."""


class Opaque:
    """Something the student's code returned that is not plain data (only its type's name travels)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} from the notebook>"


#: set while a reply of a hidden case is read: the type names the kernel sends are not kept (they could carry the case)
_ANONYMOUS = contextvars.ContextVar("anonymous_types", default=False)


def _opaque(type_name: str) -> Opaque:
    name = "" if _ANONYMOUS.get() else "".join(ch for ch in str(type_name) if ch.isalnum() or ch == "_")[:60]
    return type(name or "object", (Opaque,), {})()


# ---------------------------------------------------------------------------
# plain data


def _tensor_bytes(t: torch.Tensor) -> bytes:
    t = t.detach().cpu().contiguous()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    return t.numpy().tobytes()


def encode(value: Any, depth: int = 0) -> Any:
    """A JSON-able description of ``value`` (what leaves the kernel)."""
    if depth > MAX_DEPTH:
        return {"__opaque__": "deeply nested value"}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return {"__int__": str(int(value))} if abs(value) > 2**53 else int(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else {"__float__": repr(float(value))}
    if isinstance(value, torch.Tensor):
        dtype = str(value.dtype).replace("torch.", "")
        if dtype not in _TENSOR_DTYPES:
            return {"__opaque__": f"{dtype} tensor"}
        return {"__tensor__": {"dtype": dtype, "shape": list(value.shape), "device": str(value.device),
                               "requires_grad": bool(value.requires_grad),
                               "data": base64.b64encode(_tensor_bytes(value)).decode("ascii")}}
    if isinstance(value, np.ndarray):
        if value.dtype.name not in _ARRAY_DTYPES:
            return {"__opaque__": f"{value.dtype.name} array"}
        return {"__ndarray__": {"dtype": value.dtype.name, "shape": list(value.shape),
                                "data": base64.b64encode(np.ascontiguousarray(value).tobytes()).decode("ascii")}}
    if isinstance(value, np.generic):
        return encode(value.item(), depth)
    if isinstance(value, torch.dtype):
        return {"__dtype__": str(value).replace("torch.", "")}
    if isinstance(value, torch.device):
        return {"__device__": str(value)}
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v, depth + 1) for v in value]}
    if isinstance(value, list):
        return [encode(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {"__dict__": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()],
                "counter": isinstance(value, Counter)}
    return {"__opaque__": type(value).__name__}


def _need(condition: bool, what: str) -> None:
    if not condition:
        raise WireError(what)


def _decode_tensor(spec: Any) -> torch.Tensor:
    _need(isinstance(spec, dict), "tensor spec")
    dtype = _TENSOR_DTYPES.get(spec.get("dtype"))
    shape = spec.get("shape")
    _need(dtype is not None, "tensor dtype")
    _need(isinstance(shape, list) and all(isinstance(n, int) and 0 <= n for n in shape) and len(shape) <= 16,
          "tensor shape")
    raw = base64.b64decode(spec.get("data", ""), validate=True)
    numel = math.prod(shape)
    item = torch.empty((), dtype=dtype).element_size()
    _need(len(raw) == numel * item, "tensor size")
    storage_dtype = torch.int16 if dtype == torch.bfloat16 else dtype
    t = torch.frombuffer(bytearray(raw), dtype=storage_dtype) if raw else torch.empty(0, dtype=storage_dtype)
    t = t.view(dtype) if dtype == torch.bfloat16 else t
    t = t.reshape(shape).clone()
    device = spec.get("device", "cpu")
    _need(isinstance(device, str) and len(device) < 20, "tensor device")
    try:
        t = t.to(device)
    except (RuntimeError, AssertionError, ValueError):  # a device this process does not have: it stays on the CPU
        pass
    if spec.get("requires_grad") is True and t.is_floating_point():
        t.requires_grad_(True)
    return t


def _decode_array(spec: Any) -> np.ndarray:
    _need(isinstance(spec, dict) and spec.get("dtype") in _ARRAY_DTYPES, "array dtype")
    shape = spec.get("shape")
    _need(isinstance(shape, list) and all(isinstance(n, int) and 0 <= n for n in shape), "array shape")
    raw = base64.b64decode(spec.get("data", ""), validate=True)
    dtype = np.dtype(spec["dtype"])
    _need(len(raw) == math.prod(shape) * dtype.itemsize, "array size")
    return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()


def decode(obj: Any, depth: int = 0) -> Any:
    """The value that :func:`encode` described; :class:`WireError` for anything else."""
    _need(depth <= MAX_DEPTH + 1, "nesting")
    if obj is None or isinstance(obj, (bool, str, int, float)):
        return obj
    if isinstance(obj, list):
        _need(len(obj) <= MAX_ITEMS, "list length")
        return [decode(v, depth + 1) for v in obj]
    _need(isinstance(obj, dict) and len(obj) in (1, 2), "value")
    (key, spec), *rest = obj.items()
    if key == "__int__":
        _need(isinstance(spec, str) and len(spec) < 400, "int")
        return int(spec)
    if key == "__float__":
        _need(spec in ("nan", "inf", "-inf"), "float")
        return float(spec)
    if key == "__tensor__":
        return _decode_tensor(spec)
    if key == "__ndarray__":
        return _decode_array(spec)
    if key == "__dtype__":
        _need(spec in _TENSOR_DTYPES, "dtype")
        return _TENSOR_DTYPES[spec]
    if key == "__device__":
        _need(isinstance(spec, str) and len(spec) < 20, "device")
        return torch.device(spec) if spec.split(":")[0] in ("cpu", "cuda", "mps", "meta") else _opaque("device")
    if key == "__tuple__":
        _need(isinstance(spec, list), "tuple")
        return tuple(decode(v, depth + 1) for v in spec)
    if key == "__dict__":
        _need(isinstance(spec, list) and all(isinstance(p, list) and len(p) == 2 for p in spec), "dict")
        pairs = [(decode(k, depth + 1), decode(v, depth + 1)) for k, v in spec]
        try:
            out = {k: v for k, v in pairs}
        except TypeError:  # an unhashable key (a list): not a dict the student could have built
            raise WireError("dict key") from None
        return Counter(out) if rest and rest[0] == ("counter", True) else out
    if key == "__opaque__":
        return _opaque(spec)
    raise WireError("unknown field")


def read_reply(text: Any, anonymous: bool = False) -> Any:
    """The value a reply describes; :class:`WireError` for a reply that is too large or not of the agreed form.

    ``anonymous``: the reply of a hidden case: the kernel's type names are not kept. A reply with more containers
    than :data:`MAX_ITEMS` is refused before it is parsed (a few bytes per empty list would cost gigabytes).
    """
    _need(isinstance(text, str) and len(text) <= MAX_REPLY_CHARS, "reply size")
    _need(text.count("[") + text.count("{") <= MAX_ITEMS, "reply structure")
    token = _ANONYMOUS.set(anonymous)
    try:
        return decode(json.loads(text))
    except (json.JSONDecodeError, RecursionError, ValueError, TypeError, OverflowError) as err:
        raise WireError(type(err).__name__) from None
    finally:
        _ANONYMOUS.reset(token)


# ---------------------------------------------------------------------------
# tensors an argument holds (a call may change them in place: clipping, say)


@dataclass
class OneShot:
    """An iterator argument (``model.parameters()``, say) as it travels: its items, handed over as a fresh iterator."""

    items: list


def tensors_in(value: Any, found: list[torch.Tensor] | None = None, depth: int = 0) -> list[torch.Tensor]:
    """Every tensor inside lists, tuples, dict values and one-shot iterators, in a fixed order (the same on both
    ends)."""
    found = [] if found is None else found
    if depth > MAX_DEPTH:
        return found
    if isinstance(value, torch.Tensor):
        found.append(value)
    elif isinstance(value, OneShot):
        tensors_in(value.items, found, depth + 1)
    elif isinstance(value, (list, tuple)):
        for v in value:
            tensors_in(v, found, depth + 1)
    elif isinstance(value, dict):
        for v in value.values():
            tensors_in(v, found, depth + 1)
    return found


# ---------------------------------------------------------------------------
# what travels into the kernel with a request


@dataclass(frozen=True)
class KernelRef:
    """A name in the student's kernel, as it travels in a request."""

    name: str


@dataclass(frozen=True)
class ModuleRef:
    """A module, by name (modules do not pickle)."""

    name: str
