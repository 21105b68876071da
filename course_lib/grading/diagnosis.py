"""How a wrong tensor relates to the right one, said in the exercise's own terms.

When an answer differs from the reference and no catalogued mistake matches, a teaching assistant
would still look for the relation between the two: the answer is the right one transposed, times
a constant, shifted, reversed in time, right on some rows and wrong on others, the right values in
the wrong dtype... :func:`diagnose` tries those relations, in that spirit, for any exercise that
returns a tensor, and returns one sentence for the relation that holds (or ``None``).

An exercise names its axes, its sizes and its other inputs in :class:`Terms`, so that the
sentence reads "your scores are the correct ones times 2.0 = sqrt(d_k)" rather than "times 2.0".
Everything here runs only on a wrong answer, in float64 on the CPU, on a copy of both tensors.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import torch

__all__ = ["Terms", "diagnose", "relate_number", "list_words", "express", "verb"]


@dataclass(frozen=True)
class Terms:
    """What an exercise calls things, for the sentences of :func:`diagnose`.

    - ``axes``: a name for each axis of the answer, e.g. ``("batch", "query", "key")``; the names are
      used in the singular ("query 2") and in lists ("queries 0 and 2" is written "query 0, 2").
    - ``sizes``: named numbers a factor or a shift may equal, e.g. ``{"d_k": 4, "sqrt(d_k)": 2.0}``.
    - ``others``: the correct answer computed from other inputs, by what it is, e.g.
      ``{"computed with the keys as the values": tensor}``.
    - ``time_axis``: the axis that is time (reversed or shifted along it is said so).
    - ``sums_to_one``: the axis along which the answer is a distribution.
    - ``parts``: ``(axis, names)``: that axis is cut into ``len(names)`` equal blocks (an LSTM's
      gates i, f, g, o), and a diagnosis says which blocks are right.
    - ``divisor``: ``(name, value)``: the correct answer is divided by this (``("sqrt(d_k)", 2.0)``),
      so a constant factor is said as the number the answer was divided by instead.
    - ``layer_norm``: ``(gamma, beta)``: the answer is a LayerNorm over the last axis with these
      parameters, so a diagnosis can say over which axis, and with which variance, it was normalised.
    """

    axes: Sequence[str] = ()
    sizes: Mapping[str, float] = field(default_factory=dict)
    others: Mapping[str, torch.Tensor] = field(default_factory=dict)
    time_axis: int | None = None
    sums_to_one: int | None = None
    parts: tuple[int, Sequence[str]] | None = None
    divisor: tuple[str, float] | None = None
    layer_norm: tuple[torch.Tensor, torch.Tensor] | None = None

    def axis_name(self, axis: int, ndim: int) -> str:
        axis %= ndim
        if len(self.axes) == ndim and self.axes[axis]:
            return self.axes[axis]
        return f"axis {axis}"


_PLURALS = {"is": "are", "has": "have", "holds": "hold", "differs": "differ", "does": "do", "sums": "sum"}


def verb(subject: str, singular: str) -> str:
    """``singular`` ("is", "has" ...) agreeing with ``subject``: "the returned weights are", "the returned loss is".

    A subject whose last word is a variable name (with an underscore) is one thing, whatever its ending.
    """
    last = subject.split()[-1] if subject.split() else ""
    plural = last.endswith("s") and not last.endswith("ss") and "_" not in last
    return _PLURALS.get(singular, singular) if plural else singular


def list_words(items: Sequence[str], conjunction: str = "and") -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {conjunction} {items[-1]}"


def _positions(indices: Sequence[int], limit: int = 6) -> str:
    shown = [str(i) for i in indices[:limit]]
    if len(indices) > limit:
        shown.append("...")
    return ", ".join(shown)


def relate_number(factor: float, sizes: Mapping[str, float]) -> str:
    """' (= sqrt(d_k))', ' (= 1 / d_k)' or '' for a factor, from the exercise's named sizes."""
    for name, value in sizes.items():
        if value and math.isclose(factor, value, rel_tol=1e-3):
            return f" (= {name})"
        if value and math.isclose(factor, 1 / value, rel_tol=1e-3):
            return f" (= 1 / {name})"
    for name, value in sizes.items():  # one level further: the square and the square root of a size
        if value and value > 0 and math.isclose(factor, value ** 0.5, rel_tol=1e-3):
            return f" (= sqrt({name}))"
        if value and value > 0 and math.isclose(factor, value ** -0.5, rel_tol=1e-3):
            return f" (= 1 / sqrt({name}))"
        if value and math.isclose(factor, value ** 2, rel_tol=1e-3):
            return f" (= {name} squared)"
    return ""


def _fmt(x: float) -> str:
    return f"{x:.4g}"


class _Pair:
    """The answer and the reference in float64 on the CPU, and the tolerance to compare them with."""

    def __init__(self, answer: torch.Tensor, expected: torch.Tensor):
        self.a = answer.detach().to("cpu", torch.float64)
        self.e = expected.detach().to("cpu", torch.float64)
        finite = self.e[torch.isfinite(self.e)]
        self.scale = float(finite.abs().max()) if finite.numel() else 1.0
        precise = expected.dtype == torch.float64 and answer.dtype == torch.float64
        self.rtol = 1e-7 if precise else 1e-3
        self.atol = self.rtol * max(self.scale, 1e-3)

    def near(self, x: torch.Tensor, y: torch.Tensor) -> bool:
        if x.shape != y.shape:
            return False
        return bool(torch.allclose(x, y, rtol=self.rtol, atol=self.atol, equal_nan=False))

    def is_right(self, x: torch.Tensor) -> bool:
        return self.near(x, self.e)


def _interesting(pair: _Pair) -> bool:
    """False when the reference is too plain for relations to mean anything (all zero, one value)."""
    finite = pair.e[torch.isfinite(pair.e)]
    return finite.numel() > 0 and float(finite.abs().max()) > 0


# ---------------------------------------------------------------------------
# relations, each a function (pair, terms, what) -> sentence or None


def _wrong_shape(answer: torch.Tensor, expected: torch.Tensor, pair: _Pair, terms: Terms, what: str) -> str | None:
    a, e = pair.a, pair.e
    want, got = tuple(e.shape), tuple(a.shape)
    if a.dim() == e.dim() and a.dim() <= 5 and sorted(got) == sorted(want):
        for perm in itertools.permutations(range(a.dim())):
            if (perm != tuple(range(a.dim())) and tuple(a.permute(perm).shape) == want
                    and pair.is_right(a.permute(perm))):
                moved = [i for i in range(a.dim()) if perm[i] != i]
                names = [terms.axis_name(i, e.dim()) for i in moved]
                return (f"{what} {verb(what, 'has')} the right values with its axes in the wrong order: shape {got} "
                        f"where {want} is expected (the {list_words(names)} axes are swapped).")
    if a.numel() == e.numel() and a.numel() > 0 and pair.is_right(a.reshape(want)):
        if [s for s in got if s != 1] == [s for s in want if s != 1]:
            return (f"{what} {verb(what, 'has')} the right values but shape {got} instead of {want}: an axis of size 1 "
                    f"is {'extra' if a.dim() > e.dim() else 'missing'}.")
        return (f"{what} {verb(what, 'holds')} the right numbers laid out as shape {got}; they belong in shape {want} "
                "(a reshape or view where a transpose was needed, or the other way round).")
    if a.dim() == e.dim():  # one axis of another size: is it another size of the exercise?
        differ = [i for i in range(a.dim()) if got[i] != want[i]]
        if len(differ) == 1:
            axis = differ[0]
            name = terms.axis_name(axis, a.dim())
            named = [n for n, v in terms.sizes.items() if v == got[axis]]
            right = [n for n, v in terms.sizes.items() if v == want[axis]]
            if abs(got[axis] - want[axis]) == 1:  # two readings: say both
                also = f", or {named[0]} where {want[axis]}{' = ' + right[0] if right else ''} belongs" if named else ""
                return (f"{what} {verb(what, 'has')} {got[axis]} entries along the {name} axis, one "
                        f"{'fewer' if got[axis] < want[axis] else 'more'} than the {want[axis]} expected (shape "
                        f"{want}): off by one, a range that stops one step early or late{also}?")
            if named:
                return (f"{what} {verb(what, 'has')} {got[axis]} entries along the {name} axis, which is {named[0]}, "
                        f"where {want[axis]}{' = ' + right[0] if right else ''} is expected (shape {want}).")
    if a.dim() + 1 == e.dim():  # one axis too few: a single slice of it, or a sum or mean over it
        for axis in range(e.dim()):
            name = terms.axis_name(axis, e.dim())
            for index, which in ((0, "first"), (-1, "last")):
                if e.shape[axis] > 1 and pair.near(a, e.select(axis, index)):
                    return (f"{what} {verb(what, 'is')} only the {which} {name} (shape {got}); return every {name}: "
                            f"shape {want}.")
            if pair.near(a, e.sum(axis)):
                return (f"{what} {verb(what, 'is')} summed over the {name} axis (shape {got}); keep that axis: "
                        f"shape {want}.")
            if pair.near(a, e.mean(axis)):
                return (f"{what} {verb(what, 'is')} averaged over the {name} axis (shape {got}); keep that axis: "
                        f"shape {want}.")
    if a.dim() == e.dim() + 1:  # one axis too many
        for axis in range(a.dim()):
            for reduce, word in ((a.sum, "sum"), (a.mean, "average")):
                if pair.is_right(reduce(axis)):
                    return (f"{what} {verb(what, 'has')} an extra axis {axis} of size {got[axis]} (shape {got}): its "
                            f"{word} over that axis is the right answer, shape {want}.")
    return None


def _dtype_or_device(answer: torch.Tensor, expected: torch.Tensor, pair: _Pair, terms: Terms, what: str) -> str | None:
    if (answer.dtype == expected.dtype and answer.device == expected.device) or not pair.is_right(pair.a):
        return None
    parts = []
    if answer.dtype != expected.dtype:
        parts.append(f"dtype {str(answer.dtype).replace('torch.', '')} where "
                     f"{str(expected.dtype).replace('torch.', '')} is expected (the inputs' dtype: create new tensors "
                     "with dtype=<an input>.dtype)")
    if answer.device != expected.device:
        parts.append(f"on {answer.device} where {expected.device} is expected (create new tensors on the inputs' "
                     "device)")
    return f"{what} {verb(what, 'has')} the right values, but {' and '.join(parts)}."


def _not_finite(pair: _Pair, terms: Terms, what: str) -> str | None:
    bad = ~torch.isfinite(pair.a) & torch.isfinite(pair.e)
    if not bool(bad.any()):
        return None
    kinds = [word for word, mask in (("NaN", torch.isnan(pair.a)), ("inf", torch.isinf(pair.a)))
             if bool((mask & bad).any())]
    count, total = int(bad.sum()), bad.numel()
    first = [int(i) for i in bad.nonzero()[0]]
    where = ", ".join(f"{terms.axis_name(k, pair.a.dim())} {i}" for k, i in enumerate(first)) or "the value"
    rest = pair.a[~bad]
    fine = rest.numel() and pair.near(rest, pair.e[~bad])
    tail = " The other entries are right." if fine else ""
    hint = (" Where does it come from? exp of a large number overflows to inf, and inf - inf or 0 * inf is NaN "
            "(subtract the maximum before exp); a row whose scores are all -inf (every position masked) gives NaN "
            "after the softmax; and the log of 0 is -inf.")
    return (f"{what} {verb(what, 'has')} {' and '.join(kinds)} in {count} of {total} entries (the first at {where}) "
            f"where the correct answer is finite.{tail}{hint}")


def _should_be_infinite(pair: _Pair, terms: Terms, what: str) -> str | None:
    missing = torch.isinf(pair.e) & torch.isfinite(pair.a)
    if not bool(missing.any()):
        return None
    sign = "-inf" if float(pair.e[missing][0]) < 0 else "inf"
    if pair.a.numel() == 1:
        return (f"{what} {verb(what, 'is')} {_fmt(float(pair.a.reshape(-1)[0]))}, but the correct answer is {sign}: a "
                "probability of 0 somewhere makes the log -inf; return that instead of skipping or clamping it.")
    first = [int(i) for i in missing.nonzero()[0]]
    where = ", ".join(f"{terms.axis_name(k, pair.a.dim())} {i}" for k, i in enumerate(first))
    return (f"{what} {verb(what, 'is')} finite where the correct answer is {sign} (the first at {where}): those "
            f"entries must stay {sign}.")


def _same_shape_transpose(pair: _Pair, terms: Terms, what: str) -> str | None:
    a = pair.a
    for i, j in itertools.combinations(range(a.dim()), 2):
        if a.shape[i] == a.shape[j] > 1 and pair.is_right(a.transpose(i, j)):
            names = list_words([terms.axis_name(i, a.dim()), terms.axis_name(j, a.dim())])
            return f"{what} {verb(what, 'is')} transposed: the {names} axes are swapped."
    return None


def _factor(pair: _Pair, terms: Terms, what: str) -> str | None:
    a, e = pair.a, pair.e
    if not bool(torch.isfinite(e).all() and torch.isfinite(a).all()):
        return None
    denominator = float((e * e).sum())
    if denominator == 0:
        return None
    c = float((a * e).sum()) / denominator
    # a factor within 0.1% of 1 is rounding (a GPU kernel's TF32, say), not a mistake worth naming as "times 1"
    if abs(c) < 1e-12 or math.isclose(c, 1.0, rel_tol=1e-3) or not pair.near(a, c * e):
        return None
    named = relate_number(c, terms.sizes)
    # one or two numbers are always a multiple of each other: say it only when it means something
    if a.numel() < 3 and not named:
        return None
    if math.isclose(c, -1.0, rel_tol=1e-3):
        return f"{what} {verb(what, 'has')} the right size but the opposite sign everywhere: a sign is flipped."
    if terms.divisor is not None:
        name, value = terms.divisor
        used = value / c
        return (f"{what} {verb(what, 'is')} the correct answer times {_fmt(c)}{named}: you divided by {_fmt(used)} "
                f"where the division is by {name} = {_fmt(value)}.")
    hint = ""
    if named.startswith(" (= 1 / the number of"):
        hint = " A mean where a sum belongs?"
    elif named.startswith(" (= the number of"):
        hint = " A sum where a mean belongs?"
    elif named:
        hint = " Look at where that number enters (or should leave) your computation."
    return f"{what} {verb(what, 'is')} the correct answer times {_fmt(c)}{named}, everywhere.{hint}"


def _shift(pair: _Pair, terms: Terms, what: str) -> str | None:
    a, e = pair.a, pair.e
    if not bool(torch.isfinite(e).all() and torch.isfinite(a).all()):
        return None
    d = a - e
    c = float(d.mean())
    named = relate_number(abs(c), terms.sizes)
    if a.numel() < 3 and not named:
        return None
    if pair.near(a, e + c):
        return (f"{what} {verb(what, 'is')} the correct answer {'plus' if c > 0 else 'minus'} {_fmt(abs(c))}{named}, "
                "everywhere: a constant term is off.")
    if a.dim() >= 2 and a.shape[-1] > 1:
        per_row = d.mean(-1, keepdim=True)
        if pair.near(a, e + per_row):  # d is the same along the last axis: one number per row is off
            name = terms.axis_name(-1, a.dim())
            return (f"{what} {verb(what, 'differs')} from the correct answer by one number per row (the same all along "
                    f"the {name} axis, different from row to row): something you add or subtract per row, such as a "
                    "normaliser (the log of a sum) or a maximum, is left out or computed over the wrong axis.")
    return None


_ELEMENTWISE: list[tuple[str, Callable[[torch.Tensor], torch.Tensor]]] = [
    ("the log of the correct answer", torch.log),
    ("exp of the correct answer", torch.exp),
    ("the square of the correct answer", torch.square),
    ("the square root of the correct answer", torch.sqrt),
    ("the absolute value of the correct answer", torch.abs),
    ("1 minus the correct answer", lambda t: 1 - t),
    ("1 / the correct answer", torch.reciprocal),
]


def _elementwise(pair: _Pair, terms: Terms, what: str) -> str | None:
    for name, fn in _ELEMENTWISE:
        with torch.no_grad():
            candidate = fn(pair.e)
        if bool(torch.isfinite(candidate).all()) and not pair.near(candidate, pair.e) and pair.near(pair.a, candidate):
            return f"{what} {verb(what, 'is')} {name}."
    return None


def _rounded(pair: _Pair, terms: Terms, what: str) -> str | None:
    for decimals in range(0, 5):
        rounded = torch.round(pair.e, decimals=decimals)
        if not pair.near(rounded, pair.e) and bool(torch.allclose(pair.a, rounded, rtol=0,
                                                                  atol=1e-12 + 0.5 * 10 ** -(decimals + 3))):
            if decimals == 0:
                saturated = (", or a softmax saturates to 0s and 1s because its scores are too large (not scaled down)"
                             if terms.sums_to_one is not None else "")
                return (f"{what} {verb(what, 'holds')} whole numbers where the correct values have fractions: an "
                        f"integer division (//) or int() cuts them off{saturated}.")
            return (f"{what} {verb(what, 'is')} the correct answer rounded to {decimals} "
                    f"decimal{'s' if decimals != 1 else ''}: keep full precision (compute it; do not copy rounded "
                    "numbers).")
    return None


def _layer_norm(pair: _Pair, terms: Terms, what: str) -> str | None:
    if terms.layer_norm is None or pair.a.dim() < 2:
        return None
    gamma, beta = (t.detach().to("cpu", torch.float64) for t in terms.layer_norm)
    if bool((gamma.abs() < 1e-6).any()):
        return None
    z = (pair.a - beta) / gamma  # what the answer normalised to, if it is a LayerNorm with these parameters
    last = pair.a.dim() - 1
    name = terms.axis_name(last, pair.a.dim())

    def standard(axis: int, correction: int = 0) -> bool:
        mean, var = z.mean(axis), z.var(axis, correction=correction)
        return bool(torch.allclose(mean, torch.zeros_like(mean), atol=1e-3)) and \
            bool(torch.allclose(var, torch.ones_like(var), atol=2e-2))

    if standard(last, correction=1) and not standard(last):
        return (f"{what} {verb(what, 'is')} normalised over the right axis, but with the unbiased variance (divided by "
                "n - 1): LayerNorm divides by n (unbiased=False, or correction=0).")
    for axis in range(pair.a.dim() - 1):
        if pair.a.shape[axis] > 1 and standard(axis) and not standard(last):
            return (f"{what} {verb(what, 'is')} normalised over the {terms.axis_name(axis, pair.a.dim())} axis; "
                    f"LayerNorm takes the mean and the variance over the {name} axis (dim=-1), each position on its "
                    "own.")
    return None


def _along_axis(pair: _Pair, terms: Terms, what: str) -> str | None:
    a, e = pair.a, pair.e
    axes = list(range(a.dim()))
    if terms.time_axis is not None:
        axes.remove(terms.time_axis % a.dim())
        axes.insert(0, terms.time_axis % a.dim())
    for axis in axes:
        n = a.shape[axis]
        if n < 2:
            continue
        name = terms.axis_name(axis, a.dim())
        if pair.is_right(a.flip(axis)) and not pair.near(e.flip(axis), e):
            return f"{what} {verb(what, 'is')} in reverse order along the {name} axis."
        for step in (1, -1):
            if pair.is_right(a.roll(step, axis)) and not pair.near(e.roll(step, axis), e):
                later = "one position later" if step == -1 else "one position earlier"
                return (f"{what} {verb(what, 'is')} shifted by one along the {name} axis: each {name} holds what "
                        f"belongs {later} (wrapped around).")
        if n > 2:
            head, tail = a.narrow(axis, 0, n - 1), a.narrow(axis, 1, n - 1)
            e_head, e_tail = e.narrow(axis, 0, n - 1), e.narrow(axis, 1, n - 1)
            if pair.near(tail, e_head) and not pair.near(e_tail, e_head):
                return (f"{what} {verb(what, 'is')} shifted by one step along the {name} axis: {name} t holds the "
                        f"value that belongs at {name} t-1 (one step behind).")
            if pair.near(head, e_tail) and not pair.near(e_tail, e_head):
                return (f"{what} {verb(what, 'is')} shifted by one step along the {name} axis: {name} t holds the "
                        f"value that belongs at {name} t+1 (one step ahead).")
    return None


def _other_inputs(pair: _Pair, terms: Terms, what: str) -> str | None:
    for name, other in terms.others.items():
        if not isinstance(other, torch.Tensor):
            continue
        other = other.detach().to("cpu", torch.float64)
        if other.shape == pair.a.shape and pair.near(pair.a, other) and not pair.near(other, pair.e):
            return f"{what} {verb(what, 'is')} what the correct computation gives {name}."
    return None


def _sums(pair: _Pair, terms: Terms, what: str) -> str | None:
    if terms.sums_to_one is None or pair.a.dim() == 0:
        return None
    axis = terms.sums_to_one % pair.a.dim()
    name = terms.axis_name(axis, pair.a.dim())
    sums = pair.a.sum(axis)
    ones = torch.ones_like(sums)
    if pair.near(sums, ones):
        return None
    if bool((pair.a < -pair.atol).any()):
        return (f"{what} {verb(what, 'has')} negative entries, so it is not a probability distribution along the "
                f"{name} axis.")
    for other in range(pair.a.dim()):
        if other != axis and pair.a.shape[other] > 1 and pair.near(pair.a.sum(other),
                                                                   torch.ones_like(pair.a.sum(other))):
            return (f"{what} {verb(what, 'sums')} to 1 along the {terms.axis_name(other, pair.a.dim())} axis instead "
                    f"of along the {name} axis.")
    low, high = float(sums.min()), float(sums.max())
    return (f"{what} {verb(what, 'does')} not sum to 1 along the {name} axis (the sums go from {_fmt(low)} to "
            f"{_fmt(high)}): normalise by the sum along that axis.")


def _parts(pair: _Pair, terms: Terms, what: str, right: torch.Tensor) -> str | None:
    if terms.parts is None:
        return None
    axis, names = terms.parts
    axis %= pair.a.dim()
    if pair.a.shape[axis] % len(names):
        return None
    blocks = right.chunk(len(names), dim=axis)
    good = [n for n, block in zip(names, blocks) if bool(block.all())]
    bad = [n for n, block in zip(names, blocks) if not bool(block.all())]
    if good and bad:
        return (f"{what} {verb(what, 'is')} right in the {list_words(good)} part and wrong in the {list_words(bad)} "
                "part.")
    return None


def _triangle(pair: _Pair, terms: Terms, what: str, right: torch.Tensor) -> str | None:
    a = pair.a
    if a.dim() < 2 or a.shape[-1] != a.shape[-2] or a.shape[-1] < 2:
        return None
    n = a.shape[-1]
    wrong = ~right
    regions = {"above the diagonal": torch.ones(n, n, dtype=torch.bool).triu(1),
               "on the diagonal": torch.eye(n, dtype=torch.bool),
               "below the diagonal": torch.ones(n, n, dtype=torch.bool).tril(-1)}
    hit = [name for name, region in regions.items() if bool((wrong & region).any())]
    if hit and len(hit) < 3 and not bool((wrong & ~sum(regions[h] for h in hit).bool()).any()):
        rows, cols = terms.axis_name(-2, a.dim()), terms.axis_name(-1, a.dim())
        ahead = " (where a later position is looked at)" if hit == ["above the diagonal"] else ""
        return (f"{what} {verb(what, 'is')} right except {list_words(hit, 'and')}{ahead}, in the ({rows}, {cols}) "
                "entries.")
    return None


def _some_slices(pair: _Pair, terms: Terms, what: str, right: torch.Tensor) -> str | None:
    a = pair.a
    best = None
    for axis in range(a.dim()):
        if a.shape[axis] < 2:
            continue
        flat = right.movedim(axis, 0).reshape(a.shape[axis], -1)
        whole = flat.all(1)
        partial = flat.any(1) & ~whole
        good = [i for i in range(a.shape[axis]) if bool(whole[i])]
        bad = [i for i in range(a.shape[axis]) if not bool(whole[i])]
        if good and bad:
            clean = not bool(partial.any())
            score = (clean, len(good))
            if best is None or score > best[0]:
                best = (score, axis, good, bad)
    if best is None:
        return None
    (clean, _), axis, good, bad = best
    name = terms.axis_name(axis, a.dim())
    how = "" if clean else " (partly)"
    return (f"{what} {verb(what, 'is')} right for {name} {_positions(good)} and wrong{how} for {name} "
            f"{_positions(bad)}: look at what differs for those.")


def _fraction(pair: _Pair, terms: Terms, what: str, right: torch.Tensor) -> str | None:
    count, total = int(right.sum()), right.numel()
    if 0 < count < total and total > 1:
        return f"{what} {verb(what, 'is')} right in {count} of {total} entries and wrong in the others."
    return None


def diagnose(answer: torch.Tensor, expected: torch.Tensor, terms: Terms | None = None,
             what: str = "your answer", partial: bool = True) -> str | None:
    """One sentence on how ``answer`` relates to the correct ``expected``, or None if no relation holds.

    Both are tensors; ``answer`` may have another shape, dtype or device than ``expected``. With
    ``partial=False`` only whole relations are tried, not "right on these rows, wrong on those".
    """
    if not isinstance(answer, torch.Tensor) or not isinstance(expected, torch.Tensor):
        return None
    terms = terms or Terms()
    if answer.dtype == torch.bool or expected.dtype == torch.bool or answer.is_complex():
        answer, expected = answer.to(torch.float64), expected.to(torch.float64)
    pair = _Pair(answer, expected)
    if answer.shape != expected.shape:
        return _wrong_shape(answer, expected, pair, terms, what)
    infinite = _should_be_infinite(pair, terms, what)
    if infinite or not _interesting(pair):
        return infinite
    for relation in (lambda: _dtype_or_device(answer, expected, pair, terms, what),
                     lambda: _not_finite(pair, terms, what),
                     lambda: _same_shape_transpose(pair, terms, what),
                     lambda: _other_inputs(pair, terms, what),
                     lambda: _factor(pair, terms, what),
                     lambda: _shift(pair, terms, what),
                     lambda: _elementwise(pair, terms, what),
                     lambda: _rounded(pair, terms, what),
                     lambda: _layer_norm(pair, terms, what),
                     lambda: _along_axis(pair, terms, what),
                     lambda: _sums(pair, terms, what)):
        sentence = relation()
        if sentence:
            return sentence
    if not partial:
        return None
    right = torch.isclose(pair.a, pair.e, rtol=pair.rtol, atol=pair.atol)
    for relation in (_parts, _triangle, _some_slices, _fraction):
        sentence = relation(pair, terms, what, right)
        if sentence:
            return sentence
    return None


_UNARY: list[tuple[str, Callable[[float], float]]] = [
    ("{}", lambda v: v), ("tanh({})", math.tanh), ("sigmoid({})", lambda v: 1 / (1 + math.exp(-v))),
    ("(1 - {})", lambda v: 1 - v), ("exp({})", math.exp), ("log({})", lambda v: math.log(v)),
    ("sqrt({})", math.sqrt), ("2 * {}", lambda v: 2 * v), ("-{}", lambda v: -v),
]
_BINARY: list[tuple[str, Callable[[float, float], float]]] = [
    ("{} * {}", lambda a, b: a * b), ("{} + {}", lambda a, b: a + b), ("{} - {}", lambda a, b: a - b),
    ("{} / {}", lambda a, b: a / b),
]


def _unary_forms(quantities: Mapping[str, float]) -> list[tuple[str, float, str]]:
    forms = []
    for name, value in quantities.items():
        for pattern, fn in _UNARY:
            try:
                forms.append((pattern.format(name), float(fn(value)), name))
            except (ValueError, OverflowError, ZeroDivisionError):
                continue
    return forms


def express(value: float, quantities: Mapping[str, float], *, rel_tol: float = 1e-7) -> str | None:
    """The simplest formula of the exercise's named ``quantities`` that gives ``value``, or None.

    Tried in order of size: one quantity with one function (``tanh(f_t)``, ``(1 - f_t)``), two
    quantities joined by an operation, and a function of that (``tanh(f_t * c_(t-1))``).
    """
    def hit(candidate: float) -> bool:
        return math.isfinite(candidate) and math.isclose(candidate, value, rel_tol=rel_tol, abs_tol=1e-9)

    unary = _unary_forms(quantities)
    for text, candidate, _ in unary:
        if hit(candidate):
            return text
    pairs = []
    for (left, a, base_a), (right, b, base_b) in itertools.permutations(unary, 2):
        if base_a == base_b or right.startswith("-"):
            continue
        for pattern, op in _BINARY:
            try:
                pairs.append((pattern.format(left, right), op(a, b)))
            except ZeroDivisionError:
                continue
    for text, candidate in pairs:
        if hit(candidate):
            return text
    for text, candidate in pairs:
        for pattern, fn in _UNARY[1:]:
            try:
                if hit(float(fn(candidate))):
                    return pattern.format(f"({text})" if pattern == "-{}" else text)
            except (ValueError, OverflowError, ZeroDivisionError):
                continue
    return None
