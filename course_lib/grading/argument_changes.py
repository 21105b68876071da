"""What a student's function did to the arguments it was given: a check's caller must find them as they were.

:func:`snapshot` keeps a copy of the arguments before the call (tensors' values, lists, tuples, dicts, sets,
Counters, modules' parameters and buffers, nested a few levels); :func:`first_change` compares them after it and
says which argument changed and how, in the words a student would recognise (``-=``, ``append``, a key added).
Gradients (``.grad``) are not an argument's value: a function may compute or clip them.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable

import torch

#: how deep containers are followed; deeper values are not compared
MAX_DEPTH = 4
_PLAIN = (str, bytes, int, float, bool, complex, type(None))


@dataclass(frozen=True)
class Change:
    """One argument the call changed: ``where`` names it (``logits``, ``weights['W_q']``), ``how`` says what happened
    to it, ``kind`` what it is (tensor, list, dict, Counter, module, ...)."""

    where: str
    how: str
    kind: str


@dataclass(frozen=True)
class _Kept:
    """A container's copy: its type, and each item's identity and copy (by key for a dict, by position for a list)."""

    kind: type
    items: dict | list | set
    ids: dict | list


def _copy(value: Any, depth: int) -> Any:
    if isinstance(value, torch.nn.Module):
        return {name: t.detach().clone() for name, t in value.state_dict(keep_vars=True).items()}
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if depth >= MAX_DEPTH or isinstance(value, _PLAIN):
        return value
    if isinstance(value, dict):
        return _Kept(type(value), {k: _copy(v, depth + 1) for k, v in value.items()},
                     {k: id(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return _Kept(type(value), [_copy(v, depth + 1) for v in value], [id(v) for v in value])
    if isinstance(value, (set, frozenset)):
        return _Kept(type(value), set(value), [])
    return value


def snapshot(args: tuple, kwargs: dict) -> tuple[list, dict]:
    """A copy of the call's arguments, as :func:`first_change` compares them."""
    return [_copy(a, 0) for a in args], {k: _copy(v, 0) for k, v in kwargs.items()}


def _tensor_change(before: torch.Tensor, after: torch.Tensor) -> str | None:
    if after.shape != before.shape:
        return f"its shape went from {tuple(before.shape)} to {tuple(after.shape)} (an in-place reshape or resize)"
    now, was = after.detach().to(before.device), before
    same = (now == was) | (torch.isnan(now) & torch.isnan(was)) if now.is_floating_point() else now == was
    if bool(same.all()):
        return None
    if now.numel() > 1 and len(torch.unique(now)) == 1:
        return f"every entry was set to {now.flatten()[0].item():g} (`x[:] = ...`, `zero_`, `fill_`)"
    if bool(same.any()):
        changed = torch.unique(now[~same])
        if len(changed) == 1:
            return f"some of its entries were set to {changed.item():g} (`x[...] = ...` or `masked_fill_`)"
        return "some of its entries were changed (`x[...] = ...`, `masked_fill_`, or a method ending in `_`)"
    now, was = now.double(), was.double()
    if bool(torch.isfinite(now).all()) and bool(torch.isfinite(was).all()) and now.dim():
        step = now - was
        if bool(torch.allclose(step, step[..., :1].expand_as(step), atol=1e-6)):
            return "a number was subtracted from or added to its values (`-=` or `+=`)"
        if bool((was != 0).all()):
            ratio = now / was
            if bool(torch.allclose(ratio, ratio[..., :1].expand_as(ratio), rtol=1e-5)):
                return "its values were divided or multiplied (`/=` or `*=`)"
    return "its values were changed (an in-place operation: `-=`, `/=`, `x[...] = ...`, or a method ending in `_`)"


def _same_plain(was: Any, now: Any) -> bool:
    return was is now or was == now or (was != was and now != now)  # NaN stays NaN


def _container_change(kept: _Kept, after: Any, where: str) -> str | None:
    """How the container itself changed (members, keys, length, order, a plain item), or None."""
    items = kept.items
    if isinstance(items, set):
        return None if set(after) == items else "its members changed (`add`, `discard`, `update`)"
    if isinstance(items, dict):
        added = [k for k in after if k not in items]
        removed = [k for k in items if k not in after]
        if added:
            return f"the key {added[0]!r} was added to it (an assignment, or `+=` on a Counter's missing key)"
        if removed:
            return f"its key {removed[0]!r} was removed (`del`, `pop`)"
        pairs = [(items[k], after[k], kept.ids[k], f"{where}[{k!r}]") for k in items]
    else:
        if len(after) != len(items):
            verbs = "`append`, `extend`, `insert` or `+=`" if len(after) > len(items) else "`pop`, `remove` or `del`"
            return f"its length went from {len(items)} to {len(after)} ({verbs})"
        pairs = [(was, now, ident, f"{where}[{i}]") for i, (was, now, ident) in enumerate(zip(items, after, kept.ids))]
    plain = [(was, now, at) for was, now, _, at in pairs if isinstance(was, _PLAIN) and not _same_plain(was, now)]
    if plain and isinstance(items, list) and sorted(map(repr, items)) == sorted(map(repr, after)):
        return "its items were reordered (`sort`, `reverse`)"
    if plain:
        was, now, at = plain[0]
        return f"{at} went from {was!r} to {now!r} (an assignment into it)"
    for was, now, ident, at in pairs:
        if not isinstance(was, _PLAIN) and id(now) != ident:
            return f"{at} was replaced by another value (an assignment into it)"
    return None


def _compare(before: Any, after: Any, where: str, depth: int) -> Change | None:
    if isinstance(after, torch.nn.Module) and isinstance(before, dict):
        state = after.state_dict(keep_vars=True)
        for name, was in before.items():
            how = _tensor_change(was, state[name]) if name in state else None
            if how:
                return Change(f"{where}.{name}", how, "module")
        return None
    if isinstance(before, torch.Tensor):
        how = _tensor_change(before, after) if isinstance(after, torch.Tensor) else None
        return Change(where, how, "tensor") if how else None
    if not isinstance(before, _Kept) or not isinstance(after, before.kind):
        return None
    how = _container_change(before, after, where)
    if how:
        return Change(where, how, before.kind.__name__)
    if isinstance(before.items, set):
        return None
    keys = before.items.keys() if isinstance(before.items, dict) else range(len(before.items))
    for key in keys:
        inner = _compare(before.items[key], after[key], f"{where}[{key!r}]", depth + 1)
        if inner:
            return inner
    return None


def _names(func: Callable, count: int) -> list[str]:
    """The parameter names the first ``count`` positional arguments are bound to (``argument N`` otherwise)."""
    names = [f"argument {i + 1}" for i in range(count)]
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return names
    for i, param in enumerate(params[:count]):
        if param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
            names[i] = param.name
    return names


def first_change(func: Callable, args: tuple, kwargs: dict, before: tuple[list, dict]) -> Change | None:
    """The first argument the call changed, compared with :func:`snapshot`'s copy, or None."""
    was_args, was_kwargs = before
    pairs = [*zip(_names(func, len(args)), was_args, args), *((k, was_kwargs[k], v) for k, v in kwargs.items())]
    for name, was, now in pairs:
        change = _compare(was, now, name, 0)
        if change:
            return change
    return None
