"""A runtime error of the student's own code, said where it happened and why, in the student's terms.

PyTorch's messages name its internals ("mat1 and mat2 shapes cannot be multiplied (5x3 and 4x6)",
"shape '[5, 20]' is invalid for input of size 60"). :func:`student_line` finds the line of the
student's code that raised, and :func:`error_in_terms` says what the message means for that line and
what usually causes it: "a matrix product of a (5, 3) by a (4, 6): the inner sizes 3 and 4 must be
equal; is a weight transposed, or the wrong one used?".
"""
from __future__ import annotations

import math
import os
import re
import sys
import traceback
from typing import Callable

__all__ = ["student_line", "error_in_terms"]

_LIBRARY_FOLDERS = tuple(os.path.normcase(os.path.realpath(p)) + os.sep for p in {
    os.path.dirname(os.path.dirname(os.__file__)),  # the standard library's folder, and site-packages under it
    sys.prefix, sys.base_prefix, os.path.dirname(os.path.dirname(os.path.abspath(__file__))),  # course_lib itself
})


def _is_library(filename: str) -> bool:
    if filename.startswith("<frozen") or not filename:
        return True
    if filename.startswith("<"):  # "<cell>", "<ipython-input-...>", "<string>": code typed in a notebook
        return False
    path = os.path.normcase(os.path.realpath(filename))
    return path.startswith(_LIBRARY_FOLDERS)


def student_line(err: BaseException) -> str:
    """The source of the innermost line of the student's own code (not the libraries') in ``err``'s traceback, or ''."""
    frames = [f for f in traceback.extract_tb(err.__traceback__) if not _is_library(f.filename)]
    return (frames[-1].line or "").strip() if frames else ""


def _shape(text: str) -> str:
    sizes = [s for s in re.split(r"[x, ]+", text.strip("[]()")) if s]
    return "(" + ", ".join(sizes) + (",)" if len(sizes) == 1 else ")")


def _broadcast(m: re.Match) -> str:
    a, b, dim = m.group(1), m.group(2), m.group(3)
    return (f"two tensors whose sizes do not line up: {a} against {b} along dimension {dim}. A reduction that drops "
            "its axis (`sum`, `max`, `mean` without `keepdim=True`) is the usual cause; or an index on the wrong axis "
            "(`x[t]` takes a row of the batch, `x[:, t]` a time step); or an operand that needs a transpose.")


def _reshape(m: re.Match) -> str:
    sizes = [int(s) for s in re.findall(r"-?\d+", m.group(1))]
    wanted = math.prod(s for s in sizes if s != -1)
    need = f"needs {wanted} entries" if -1 not in sizes else f"needs a multiple of {wanted} entries"
    return (f"a reshape to {_shape(m.group(1))} {need}, but the tensor has {m.group(2)}: a size in it is fixed or read "
            "from the wrong axis; compute the sizes from the input's shape (`x.shape`), or leave one of them as -1.")


def _matmul(m: re.Match) -> str:
    rows_a, inner_a, inner_b, cols_b = m.groups()
    return (f"a matrix product of a ({rows_a}, {inner_a}) by a ({inner_b}, {cols_b}): the inner sizes {inner_a} and "
            f"{inner_b} must be equal. Look at where each comes from: a size fixed in the code or taken from a "
            "notebook global rather than from the input's shape, a weight that needs a transpose (`W.T`), or the wrong "
            "weight.")


def _dimension(m: re.Match) -> str:
    low, high, got = (int(g) for g in m.groups())
    return (f"dim {got} of a tensor with {high + 1} dimension{'s' if high else ''} (dims {low} to {high}): the input "
            "has fewer axes than your code expects; `dim=-1` counts from the last.")


def _index(m: re.Match) -> str:
    index, dim, size = m.groups()
    return (f"index {index} along dimension {dim}, which has {size} entries (0 to {int(size) - 1}): off by one, or an "
            "index meant for another axis?")


def _unpack(m: re.Match) -> str:
    return (f"`a, b, ... = ...` unpacks {m.group(2)} values where your code names {m.group(1)}: does the tensor or "
            "tuple have the axes or parts you name?")


_RULES: tuple[tuple[str, Callable[[re.Match], str] | str], ...] = (
    (r"The size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at non-singleton dimension (\d+)",
     _broadcast),
    (r"The expanded size of the tensor \((\d+)\) must match the existing size \((\d+)\) "
     r"at non-singleton dimension (\d+)", _broadcast),
    (r"shape '(\[[-\d, ]*\])' is invalid for input of size (\d+)", _reshape),
    (r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)", _matmul),
    (r"size mismatch, got input \((\d+)\), mat \((\d+)x(\d+)\)",
     "a matrix-vector product whose sizes do not fit: the vector's length must be the matrix's number of columns."),
    (r"Expected size for first two dimensions of batch2 tensor|inconsistent tensor size|"
     r"both arguments to matmul need to be at least 1D",
     "a product of batched matrices whose sizes do not fit: the last axis of the first must be the second-to-last of "
     "the second (`K.transpose(-2, -1)`)."),
    (r"Expected all tensors to be on the same device",
     "tensors on different devices meet: make new tensors with `device=x.device` (or `torch.zeros_like(x)`), so they "
     "follow the input wherever it is."),
    (r"expected (?:m1 and m2|mat1 and mat2|both vectors|self and mask|scalar type) .*(?:same dtype|to have the same)|"
     r"expected scalar type \w+ but found \w+|found dtype \w+ but expected \w+|"
     r"result type \w+ can't be cast to the desired output type",
     "tensors of different dtypes meet (float32 and float64, or integers and floats): make new tensors with "
     "`dtype=x.dtype`, or `torch.zeros_like(x)`."),
    (r"Dimension out of range \(expected to be in range of \[(-?\d+), (-?\d+)\], but got (-?\d+)\)", _dimension),
    (r"index (-?\d+) is out of bounds for dimension (\d+) with size (\d+)", _index),
    (r"too many indices for tensor of dimension (\d+)",
     "more indices than the tensor has axes: it has fewer dimensions than your code expects."),
    (r"tensors used as indices must be long, int, byte or bool tensors|"
     r"only integer tensors of a single element can be converted to an index",
     "an index that is a float tensor: indices must be integers (`.long()`), or a bool mask."),
    (r"a leaf Variable that requires grad is being used in an in-place operation",
     "an in-place change (`+=`, `-=`, `.mul_()`) of a tensor that requires a gradient: do it inside "
     "`with torch.no_grad():`, or build a new tensor."),
    (r"one of the variables needed for gradient computation has been modified by an inplace operation",
     "a tensor that the gradient needs was changed in place afterwards (`+=`, `x[...] = ...`): build a new tensor "
     "instead."),
    (r"Boolean value of Tensor with more than one (?:value|element) is ambiguous",
     "`if`, `and`, `or` or `not` on a tensor of several values: use `.any()` or `.all()` for a test, and `&`, `|`, `~` "
     "for element-wise logic."),
    (r"Can't call numpy\(\) on Tensor that requires grad",
     "`.numpy()` of a tensor that requires a gradient: `.detach()` it first (or stay in torch)."),
    (r"can't convert (?:cuda|mps).* to numpy",
     "`.numpy()` of a tensor on the GPU: `.cpu()` it first (or stay in torch)."),
    (r"stack expects each tensor to be equal size, but got (\[[\d, ]*\]) at entry 0 and (\[[\d, ]*\]) at entry (\d+)",
     lambda m: f"`torch.stack` needs tensors of one shape: entry 0 is {_shape(m.group(1))}, entry {m.group(3)} is "
               f"{_shape(m.group(2))}."),
    (r"Sizes of tensors must match except in dimension (\d+)",
     lambda m: f"`torch.cat` along dimension {m.group(1)} needs the same sizes on every other axis."),
    (r"not enough values to unpack \(expected (\d+), got (\d+)\)", _unpack),
    (r"too many values to unpack \(expected (\d+)(?:, got (\d+))?\)",
     lambda m: f"`a, b, ... = ...` names {m.group(1)} values where there are more: does the tensor or tuple have the "
               "axes or parts you name?"),
    (r"'NoneType' object (?:is not subscriptable|has no attribute|is not iterable)|unsupported operand type\(s\) for .*"
     r"'NoneType'",
     "a value is None: a function that ends without `return` gives None (yours, or one it calls)."),
    (r"^division by zero$|float division by zero",
     "a division by zero: can the count or the norm you divide by be 0 here (an unseen context, an empty list)?"),
)


def error_in_terms(error_type: str, text: str) -> str | None:
    """What ``text`` (the exception's message) means in the student's terms, with its usual cause; None if unknown."""
    if error_type == "KeyError":
        return ("a lookup of a key the dictionary does not have: was it stored, and under this very key (a tuple, not "
                "a list; the same spelling)?")
    for pattern, say in _RULES:
        m = re.search(pattern, text)
        if m:
            return say(m) if callable(say) else say
    return None
