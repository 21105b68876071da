"""Calling a student's code in their kernel, and judging what it returns in the grader.

While a notebook is autograded, its test cells run in the grader's own process, not in the
student's kernel: whatever the student's code replaces in its kernel (the checks, torch,
IPython, the output) changes only the data its functions return.

- In the grader, a :class:`KernelName` stands for a function or class the notebook defines
  (:func:`resolve` makes them, and fetches plain values). A check receives it in place of the
  student's function. While a test cell runs (:func:`calls_to_kernel`, set by the grader's
  ``autograder.verdict``), :func:`course_lib.grading.call_answer` asks this module which handle a call
  involves (the function, or one of its arguments) and hands the call to :meth:`KernelName.call_each`,
  which sends it to the kernel (:func:`call_in_kernel`). Outside a test cell nothing is scanned.
- In the kernel, :func:`serve` runs the call with ``call_answer`` itself, so the same
  references are switched off and the same correct helpers swapped in as when a check runs
  in the notebook, and publishes the result as plain data (:mod:`course_lib.grading.answer_wire`).

The request sent into the kernel is a pickle: it goes from the grader to the student's
process, the direction in which code may travel (the kernel runs the student's code anyway).
Substitute helpers must therefore pickle: module-level functions, or instances of
module-level classes.
"""
from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import json
import pickle
import types
from collections import Counter
from typing import Any

import torch

from course_lib.grading.answer_wire import (
    MAX_DEPTH,
    MIME,
    KernelRef,
    ModuleRef,
    OneShot,
    WireError,
    encode,
    read_reply,
    tensors_in,
)
from course_lib.grading.answers import (
    FAILURE_KINDS,
    AnswerError,
    Banned,
    call_answer,
    call_failure,
    in_hidden_case,
    kernel_route,
)


class KernelError(Exception):
    """The kernel gave no usable reply (it stopped, timed out, or broke the reply)."""


#: values at least this large (items of a container, elements of a tensor) go to a kernel once, then by digest
LARGE = 1024


class Channel:
    """The grader's line to one kernel (the grader subclasses it).

    :meth:`send` runs ``remote_answer.<entry>(argument)`` in the kernel and returns the reply text it
    published; ``stored`` holds the digests of the large values the kernel already keeps.
    """

    def __init__(self) -> None:
        self.stored: set[str] = set()
        self.pinned = ""  # calls resolve the notebook's names as they were pinned under this key ('' : as they are now)

    def send(self, entry: str, argument: str) -> str:
        raise NotImplementedError

    def pin(self, key: str, names: list[str]) -> None:
        """Have the kernel keep what ``names`` are now, under ``key`` (:func:`pin` there)."""
        read_reply(self.send("pin", key + "|" + ",".join(names)))


class _RequestPickler(pickle.Pickler):
    """Pickles a request; a large value becomes its digest, and its bytes go along only the first time."""

    def __init__(self, file, stored: set[str], blobs: dict[str, bytes]):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.stored, self.blobs = stored, blobs

    def persistent_id(self, obj: Any) -> str | None:
        large = (isinstance(obj, (frozenset, set, dict, list, tuple)) and len(obj) >= LARGE) or \
            (type(obj) is torch.Tensor and obj.numel() >= 16 * LARGE and obj.grad is None)
        if not large:
            return None
        blob = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        digest = hashlib.sha256(blob).hexdigest()[:32]
        if digest not in self.stored:
            self.blobs[digest] = blob
        return digest


def _pack(request: dict, channel: Channel) -> tuple[str, dict[str, bytes]]:
    blobs: dict[str, bytes] = {}
    buffer = io.BytesIO()
    _RequestPickler(buffer, channel.stored, blobs).dump(request)
    packed = pickle.dumps({"request": buffer.getvalue(), "blobs": blobs}, protocol=pickle.HIGHEST_PROTOCOL)
    return base64.b64encode(packed).decode("ascii"), blobs


class KernelName:
    """The grader's handle on a callable the student defined in their kernel."""

    def __init__(self, name: str, channel: Channel, is_class: bool = False):
        self.name, self.channel, self.is_class = name, channel, is_class
        self.__name__ = self.__qualname__ = name

    def __repr__(self) -> str:
        return f"<your {self.name}>"

    def __reduce__(self):  # in a request it becomes a reference to the kernel's own object
        return KernelRef, (self.name,)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with calls_to_kernel():
            return call_answer(self.name, self, *args, **kwargs)

    def call_each(self, exercise: str, func: Any, calls: list[tuple[tuple, dict]], *, banned, reason: str,
                  substitutes: dict | None) -> list[Any]:
        """``call_answer`` for each ``(args, kwargs)``, in one trip: each result, or the AnswerError it raised."""
        return call_in_kernel(self.channel, exercise, func, calls, banned=banned, reason=reason,
                              substitutes=substitutes)


def handle_in(func: Any, calls: list[tuple[tuple, dict]]) -> KernelName | None:
    """The kernel handle calls involve (the function, or one of their arguments), if any."""
    for value in (func, *(v for args, kwargs in calls for v in (*args, *kwargs.values()))):
        if isinstance(value, KernelName):
            return value
    return None


def calls_to_kernel() -> contextlib.AbstractContextManager:
    """Inside the block, a check's call of a :class:`KernelName` (or with one among its arguments) runs in the
    kernel."""
    return kernel_route(handle_in)


def _one_shot(value: Any) -> Any:
    """A generator or other one-pass iterator travels as its items and arrives as a fresh iterator."""
    if isinstance(value, types.GeneratorType) or (hasattr(value, "__next__") and hasattr(value, "__iter__")):
        return OneShot(list(value))
    return value


def _banned_spec(banned) -> list[tuple[Any, str, str]]:
    return [(ModuleRef(b.owner.__name__) if isinstance(b.owner, types.ModuleType) else b.owner, b.attr, b.label)
            for b in banned]


GARBLED = "the notebook's code garbled the grader's call: no points for this check."


def call_in_kernel(channel: Channel, exercise: str, func: Any, calls: list[tuple[tuple, dict]], *, banned,
                   reason: str, substitutes: dict | None) -> list[Any]:
    """Run ``call_answer(exercise, func, *args, **kwargs)`` for each call in the student's kernel, in one trip.

    Returns each call's value, or the :class:`course_lib.grading.AnswerError` it raised there. Tensors a call
    changed in place (their values or ``.grad``) are changed here too.
    """
    calls = [(tuple(_one_shot(a) for a in args), {k: _one_shot(v) for k, v in kwargs.items()})
             for args, kwargs in calls]
    sent = [tensors_in([args, kwargs]) for args, kwargs in calls]
    request = {"exercise": exercise, "func": func, "calls": calls, "banned": _banned_spec(banned), "reason": reason,
               "substitutes": substitutes or {}, "grads": [[t.grad for t in tensors] for tensors in sent],
               "pinned": channel.pinned}
    payload, blobs = _pack(request, channel)
    hidden = in_hidden_case()
    try:
        reply = read_reply(channel.send("serve", payload), anonymous=hidden)
        channel.stored.update(blobs)
    except KernelError as err:
        raise AnswerError(exercise, str(err)) from None
    except WireError as err:
        raise AnswerError(exercise, GARBLED if hidden else f"{GARBLED[:-1]} ({err}).") from None
    if not isinstance(reply, list) or len(reply) != len(calls) or not all(isinstance(r, dict) for r in reply):
        raise AnswerError(exercise, GARBLED)
    labels = {b.label for b in banned}
    return [_result(r, tensors, exercise, args, labels, reason) for r, tensors, (args, _) in zip(reply, sent, calls)]


def _failure(error: Any, exercise: str, args: tuple, labels: set[str], reason: str) -> AnswerError:
    """The grader's sentence for a call that failed in the kernel: the kernel names only the kind and the data."""
    if not (isinstance(error, dict) and error.get("kind") in FAILURE_KINDS
            and all(isinstance(error.get(key, ""), str) for key in ("type", "text", "label"))):
        return AnswerError(exercise, GARBLED)
    if error["kind"] == "forbidden" and error.get("label") not in labels:
        return AnswerError(exercise, GARBLED)
    return call_failure(exercise, error["kind"], error_type=error.get("type", ""), text=error.get("text", "")[:4000],
                        label=error.get("label", ""), reason=reason, args=args)


def _result(reply: dict, sent: list[torch.Tensor], exercise: str, args: tuple, labels: set[str], reason: str) -> Any:
    if "error" in reply:
        return _failure(reply["error"], exercise, args, labels, reason)
    if "value" not in reply or not isinstance(reply.get("changed"), list):
        raise AnswerError(exercise, GARBLED)
    for change in reply["changed"]:
        _apply_change(sent, change, exercise)
    return reply["value"]


def _need_reply(condition: bool, exercise: str) -> None:
    if not condition:
        raise AnswerError(exercise, GARBLED)


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
    described = read_reply(channel.send("describe_names", ",".join(names)))
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


def _publish(reply: Any) -> None:
    from IPython.display import publish_display_data

    publish_display_data({MIME: json.dumps(encode(reply))})


def _user_namespace() -> dict:
    from IPython import get_ipython

    shell = get_ipython()
    return shell.user_ns if shell is not None else {}


def describe_names(names: str) -> None:
    """Say for each of the comma-separated names whether the notebook defines it, as a function or class, or a value."""
    ns = _user_namespace()
    out = {}
    for name in names.split(","):
        if name not in ns:
            continue
        value = ns[name]
        if callable(value) and not isinstance(value, torch.Tensor):
            out[name] = {"kind": "callable", "class": isinstance(value, type)}
        else:
            out[name] = {"kind": "value", "value": value}
    _publish(out)


def _resolve_refs(value: Any, ns: dict, depth: int = 0) -> Any:
    if isinstance(value, KernelRef):
        if value.name not in ns:
            raise NameError(f"name '{value.name}' is not defined")
        return ns[value.name]
    if isinstance(value, OneShot):
        return iter(_resolve_refs(value.items, ns, depth + 1))
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


#: the large values this kernel was sent (see ``_RequestPickler``), as bytes: each call gets a fresh copy
_STORE: dict[str, bytes] = {}
#: the notebook's names as they were when a test cell ran, by key: its hidden cases run later, against these
_PINNED: dict[str, dict[str, Any]] = {}


def pin(argument: str) -> None:
    """Keep what the names are now (``KEY|name,name``), so that a later call sees the notebook as it was then."""
    key, _, names = argument.partition("|")
    ns = _user_namespace()
    _PINNED[key] = {name: ns[name] for name in names.split(",") if name in ns}
    _publish(sorted(_PINNED[key]))


def serve(payload: str) -> None:
    """Run the calls the grader asked for (see :func:`call_in_kernel`) and publish their results.

    ``payload`` is the request, or ``@PATH``: a file holding it (large requests), in a folder only the grader
    writes (it removes the file after the call).
    """
    if payload.startswith("@"):
        with open(payload[1:], encoding="ascii") as handle:
            payload = handle.read()
    packed = pickle.loads(base64.b64decode(payload))
    _STORE.update(packed["blobs"])
    loaded: dict[str, Any] = {}  # one copy per request: a value passed twice stays one object

    def load(digest: str) -> Any:
        if digest not in loaded:
            loaded[digest] = pickle.loads(_STORE[digest])
        return loaded[digest]

    unpickler = pickle.Unpickler(io.BytesIO(packed["request"]))
    unpickler.persistent_load = load
    request = unpickler.load()
    ns = {**_user_namespace(), **_PINNED.get(request.get("pinned", ""), {})}
    exercise = request["exercise"]
    banned = [Banned(_owner(owner), attr, label) for owner, attr, label in request["banned"]]
    results = []
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for (args, kwargs), grads in zip(request["calls"], request["grads"]):
            results.append(_serve_one(exercise, request, banned, args, kwargs, grads, ns))
    _publish(results)


def _serve_one(exercise: str, request: dict, banned: list, args: tuple, kwargs: dict, grads: list, ns: dict) -> dict:
    try:
        sent = tensors_in([args, kwargs])  # before one-shot iterators are made
        for tensor, grad in zip(sent, grads):
            tensor.grad = grad
        before = [(t.detach().clone(), None if t.grad is None else t.grad.detach().clone()) for t in sent]
        func = _resolve_refs(request["func"], ns)
        args, kwargs = _resolve_refs(args, ns), _resolve_refs(kwargs, ns)
        value = call_answer(exercise, func, *args, banned=banned, reason=request["reason"],
                            substitutes=request["substitutes"] or None, **kwargs)
    except AnswerError as err:  # the kind and the student's data; the grader writes the sentence
        failure = getattr(err, "failure", None) or {"kind": "raised", "type": "AnswerError", "text": err.message}
        return {"error": failure}
    except NameError as err:
        return {"error": {"kind": "undefined", "text": getattr(err, "name", None) or str(err)}}
    changed = []
    for index, (tensor, (data, grad)) in enumerate(zip(sent, before)):
        change: dict[str, Any] = {"index": index}
        if tensor.shape != data.shape or not torch.equal(tensor.detach(), data):
            change["data"] = tensor.detach()
        if (tensor.grad is None) != (grad is None) or (grad is not None and not torch.equal(tensor.grad, grad)):
            change["grad"] = tensor.grad
        if len(change) > 1:
            changed.append(change)
    return {"value": value, "changed": changed}
