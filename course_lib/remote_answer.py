"""Calling a student's code in their kernel, and judging what it returns in the grader.

While a notebook is autograded, its test cells run in the grader's own process, not in the
student's kernel: whatever the student's code replaces in its kernel (the checks, torch,
IPython, the output) changes only the data its functions return.

- In the grader, a :class:`KernelName` stands for a function or class the notebook defines
  (:func:`resolve` makes them, and fetches plain values). A check receives it in place of the
  student's function; :func:`course_lib.grading.call_answer` sees it and hands the call to
  :meth:`KernelName.call`, which sends it to the kernel.
- In the kernel, :func:`serve` runs the call with ``call_answer`` itself, so the same
  references are switched off and the same correct helpers swapped in as when a check runs
  in the notebook, and publishes the result as plain data (:mod:`course_lib.answer_wire`).

The request sent into the kernel is a pickle: it goes from the grader to the student's
process, the direction in which code may travel (the kernel runs the student's code anyway).
Substitute helpers must therefore pickle: module-level functions, or instances of
module-level classes.
"""
from __future__ import annotations

import base64
import contextlib
import io
import json
import pickle
import types
from collections import Counter
from typing import Any, Callable

import torch

from course_lib.answer_wire import (MAX_DEPTH, MIME, KernelHandle, KernelRef, ModuleRef, WireError, encode, read_reply,
                                    tensors_in)
from course_lib.grading import AnswerError, Banned, call_answer

class KernelError(Exception):
    """The kernel gave no usable reply (it stopped, timed out, or broke the reply)."""


#: sends code to the student's kernel and returns the reply text it published (set by the grader)
Channel = Callable[[str], str]


class KernelName(KernelHandle):
    """The grader's handle on a callable the student defined in their kernel."""

    def __init__(self, name: str, channel: Channel, is_class: bool = False):
        self.name, self.channel, self.is_class = name, channel, is_class
        self.__name__ = self.__qualname__ = name

    def __repr__(self) -> str:
        return f"<your {self.name}>"

    def __reduce__(self):  # in a request it becomes a reference to the kernel's own object
        return KernelRef, (self.name,)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return call_answer(self.name, self, *args, **kwargs)

    def call(self, exercise: str, func: Any, args: tuple, kwargs: dict, *, banned, reason: str,
             substitutes: dict | None) -> Any:
        return call_in_kernel(self.channel, exercise, func, args, kwargs, banned=banned, reason=reason,
                              substitutes=substitutes)


def _banned_spec(banned) -> list[tuple[Any, str, str]]:
    return [(ModuleRef(b.owner.__name__) if isinstance(b.owner, types.ModuleType) else b.owner, b.attr, b.label)
            for b in banned]


def call_in_kernel(channel: Channel, exercise: str, func: Any, args: tuple, kwargs: dict, *, banned, reason: str,
                   substitutes: dict | None) -> Any:
    """Run ``call_answer(exercise, func, *args, ...)`` in the student's kernel and return what came back.

    Tensors the call changed in place (their values or ``.grad``) are changed here too.
    Raises :class:`course_lib.grading.AnswerError` with the kernel's message when the call failed.
    """
    sent = tensors_in([args, kwargs])
    request = {"exercise": exercise, "func": func, "args": args, "kwargs": kwargs, "banned": _banned_spec(banned),
               "reason": reason, "substitutes": substitutes or {}, "grads": [t.grad for t in sent]}
    payload = base64.b64encode(pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL)).decode("ascii")
    try:
        text = channel(f"__import__('course_lib.remote_answer').remote_answer.serve({payload!r})")
        reply = read_reply(text, "value", "changed")
    except KernelError as err:
        raise AnswerError(exercise, str(err)) from None
    except WireError as err:
        raise AnswerError(exercise, f"the notebook's code garbled the grader's call ({err}): no points for this check.") \
            from None
    if "error" in reply:
        raise AnswerError(reply["error"]["exercise"] or exercise, reply["error"]["message"])
    _need_reply(isinstance(reply["changed"], list), exercise)
    for change in reply["changed"]:
        _apply_change(sent, change, exercise)
    return reply["value"]


def _need_reply(condition: bool, exercise: str) -> None:
    if not condition:
        raise AnswerError(exercise, "the notebook's code garbled the grader's call: no points for this check.")


def _apply_change(sent: list[torch.Tensor], change: Any, exercise: str) -> None:
    _need_reply(isinstance(change, dict) and isinstance(change.get("index"), int)
                and 0 <= change["index"] < len(sent), exercise)
    original = sent[change["index"]]
    if "data" in change:
        data = change["data"]
        _need_reply(isinstance(data, torch.Tensor), exercise)
        with torch.no_grad():
            if data.shape == original.shape:
                original.copy_(data.to(original.dtype))
            else:
                original.data = data.to(original.device, original.dtype)
    if "grad" in change:
        grad = change["grad"]
        _need_reply(grad is None or (isinstance(grad, torch.Tensor) and grad.shape == original.shape), exercise)
        original.grad = None if grad is None else grad.to(original.device, original.dtype)


def resolve(names: list[str], channel: Channel) -> dict[str, Any]:
    """The grader's namespace entries for ``names``, as the notebook defines them now (missing ones are left out)."""
    reply = read_reply(channel(f"__import__('course_lib.remote_answer').remote_answer.describe_names({names!r})"), "names")
    described = reply.get("names")
    if not isinstance(described, dict) or not all(n in names and isinstance(e, dict) for n, e in described.items()):
        raise WireError("names")
    out = {}
    for name, entry in described.items():
        if entry.get("kind") == "callable":
            out[name] = KernelName(name, channel, is_class=entry.get("class") is True)
        elif entry.get("kind") == "value":
            out[name] = entry.get("value")
    return out


# ---------------------------------------------------------------------------
# the kernel's end


def _publish(reply: dict) -> None:
    from IPython.display import publish_display_data

    publish_display_data({MIME: json.dumps({k: encode(v) if k != "error" else v for k, v in reply.items()})})


def _user_namespace() -> dict:
    from IPython import get_ipython

    shell = get_ipython()
    return shell.user_ns if shell is not None else {}


def describe_names(names: list[str]) -> None:
    """Say for each name whether the notebook defines it, as a function or class, or as a value."""
    ns = _user_namespace()
    out = {}
    for name in names:
        if name not in ns:
            continue
        value = ns[name]
        if callable(value) and not isinstance(value, torch.Tensor):
            out[name] = {"kind": "callable", "class": isinstance(value, type)}
        else:
            out[name] = {"kind": "value", "value": value}
    _publish({"names": out})


def _resolve_refs(value: Any, ns: dict, depth: int = 0) -> Any:
    if isinstance(value, KernelRef):
        if value.name not in ns:
            raise NameError(f"name '{value.name}' is not defined")
        return ns[value.name]
    if depth > MAX_DEPTH:
        return value
    if isinstance(value, list):
        return [_resolve_refs(v, ns, depth + 1) for v in value]
    if isinstance(value, tuple):
        return tuple(_resolve_refs(v, ns, depth + 1) for v in value)
    if isinstance(value, dict) and not isinstance(value, Counter):
        return {k: _resolve_refs(v, ns, depth + 1) for k, v in value.items()}
    return value


def _owner(ref: Any) -> Any:
    import importlib

    return importlib.import_module(ref.name) if isinstance(ref, ModuleRef) else ref


def serve(payload: str) -> None:
    """Run one call the grader asked for (see :func:`call_in_kernel`) and publish the reply."""
    request = pickle.loads(base64.b64decode(payload))
    ns = _user_namespace()
    exercise = request["exercise"]
    try:
        func = _resolve_refs(request["func"], ns)
        args = _resolve_refs(request["args"], ns)
        kwargs = _resolve_refs(request["kwargs"], ns)
        sent = tensors_in([args, kwargs])
        for tensor, grad in zip(sent, request["grads"]):
            tensor.grad = grad
        before = [(t.detach().clone(), None if t.grad is None else t.grad.detach().clone()) for t in sent]
        banned = [Banned(_owner(owner), attr, label) for owner, attr, label in request["banned"]]
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            value = call_answer(exercise, func, *args, banned=banned, reason=request["reason"],
                                substitutes=request["substitutes"] or None, **kwargs)
        changed = []
        for index, (tensor, (data, grad)) in enumerate(zip(sent, before)):
            change: dict[str, Any] = {"index": index}
            if tensor.shape != data.shape or not torch.equal(tensor.detach(), data):
                change["data"] = tensor.detach()
            if (tensor.grad is None) != (grad is None) or (grad is not None and not torch.equal(tensor.grad, grad)):
                change["grad"] = tensor.grad
            if len(change) > 1:
                changed.append(change)
        _publish({"value": value, "changed": changed})
    except AnswerError as err:
        _publish({"error": {"exercise": err.exercise, "message": err.message}})
    except NameError as err:
        _publish({"error": {"exercise": exercise, "message": f"{err}: run its cell, then this one."}})
