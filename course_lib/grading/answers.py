"""Answer checks whose messages name the mistake.

An exercise check (see ``course_lib.checks``) does four things, in this order:

1. calls the student's function through :func:`call_answer`, with the course's own
   reference and the matching PyTorch built-ins switched off (:func:`forbidden`);
2. checks the returned value's type, shape, dtype and device (:func:`check_tensor`),
   each with a plain sentence when it is wrong;
3. compares it with an independent reference within a tolerance that holds on the
   CPU and on CUDA (:func:`tolerance`);
4. on a mismatch, tries a catalogue of known wrong answers (:class:`Variant`) and
   says which mistake the answer matches (:func:`compare_answer`).

Failures raise :class:`AnswerError`, an ``AssertionError`` that Jupyter shows as a
short message instead of a traceback (nbgrader still counts it as a failed test).
"""
from __future__ import annotations

import contextlib
import contextvars
import linecache
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Sequence

import torch

from course_lib.grading.argument_changes import first_change, snapshot
from course_lib.grading.diagnosis import Terms, diagnose, list_words, verb
from course_lib.grading.error_terms import error_in_terms, student_line
from course_lib.grading.mutations import changes_that_explain, changes_that_raise
from course_lib.grading.plain_text import one_line, quoted

__all__ = [
    "AnswerError",
    "ForbiddenCallError",
    "Variant",
    "Banned",
    "tolerance",
    "check_tensor",
    "close",
    "compare_answer",
    "call_answer",
    "call_answer_each",
    "call_failure",
    "raised_by_answer",
    "FAILURE_KINDS",
    "forbidden",
    "report_pass",
    "describe_value",
    "Terms",
    "case_note",
    "hidden_cases",
    "in_hidden_case",
    "without_numbers",
    "explain",
    "Probe",
    "zeroed",
    "run_probes",
    "install_notebook_hooks",
]


class AnswerError(AssertionError):
    """A wrong answer, explained in one or two sentences."""

    def __init__(self, exercise: str, message: str):
        self.exercise = exercise
        self.message = message
        super().__init__(f"{exercise}: {message}")

    def _render_traceback_(self) -> list[str]:  # IPython shows this instead of a traceback
        return [f"\x1b[1;31m✘ {self.exercise}\x1b[0m: {self.message}"]


class ForbiddenCallError(RuntimeError):
    """Raised when a switched-off function is called during a graded call."""

    def __init__(self, message: str, label: str = ""):
        super().__init__(message)
        self.label = label


#: how a call of the student's function can fail, as :func:`call_failure` says it
FAILURE_KINDS = ("not_implemented", "forbidden", "raised", "undefined", "changed")


def call_failure(exercise: str, kind: str, *, error_type: str = "", text: str = "", label: str = "",
                 reason: str = "", args: Sequence[Any] = ()) -> AnswerError:
    """The AnswerError for a failed call of the student's function: the one place its sentence is composed.

    What the student's code said (its exception's type and message) is quoted as data, on one line, with the line of
    their code that raised (``label``) and what the message means in their terms (:mod:`.error_terms`); in
    a hidden test case none of these nor the arguments' description is shown, since any could carry the case.
    """
    if kind == "not_implemented":
        message = "is not implemented yet: replace `raise NotImplementedError()` with your code."
    elif kind == "forbidden":
        message = f"{label} is switched off while {exercise} is graded: {reason}"
    elif kind == "undefined":
        message = f"name {quoted(text, 60)} is not defined: run its cell, then this one."
    elif kind == "changed":
        message = _changed_message(label, text, error_type)
    else:
        name = re.sub(r"[^A-Za-z0-9_.]", "", error_type)[:60] or "an error"
        if _HIDDEN.get():  # which exception, even one of Python's own, could carry the case: none is named
            message = "raised an exception."
        else:
            shown = ", ".join(describe_value(a) for a in args)
            line = one_line(label, 120).replace("`", "'")
            at = f" at `{line}`" if line else ""
            meaning = error_in_terms(name, text) or ""
            meaning = f" {meaning[0].upper()}{meaning[1:]}" if meaning else ""
            # other mistakes raise the same words too: a change of the solution is said only for a message the rules
            # do not read; in a batch of calls (thousands of words), only for the first that raised
            batch = _BATCH.get()
            changes = [] if meaning or (batch and batch[0]) else changes_that_raise(exercise, args, name, text)
            if batch:
                batch[0] = True
            if changes and len(changes) <= MOST_CHANGES_SAID:
                meaning += (f" The solution raises the same with one change: {changes[0]}." if len(changes) == 1 else
                            f" The solution raises the same with one of these changes: {'; or '.join(changes)}.")
            message = f"raised {name}{at}: {quoted(text)} (called with {shown}).{meaning}"
    err = AnswerError(exercise, message)
    err.failure = {"kind": kind, "type": error_type, "text": text, "label": label}
    return err


def raised_by_answer(err: AnswerError) -> tuple[str, str] | None:
    """``(exception type name, sentence)`` when ``err`` says the student's function raised, else None.

    A check decides on the type (a hidden case keeps it out of the sentence, not out of the decision); the sentence
    is what the verdict may repeat: "raised ValueError: «...»" for a shown case, "raised an exception" for a hidden one.
    """
    failure = getattr(err, "failure", None)
    if not isinstance(failure, dict) or failure.get("kind") != "raised":
        return None
    return failure.get("type", ""), err.message.split(" (called with")[0].rstrip(".")


def _changed_message(where: str, how: str, kind: str) -> str:
    """The sentence for an argument the student's function changed in place (:mod:`.argument_changes`)."""
    where = re.sub(r"[^\w\[\]'(),. -]", "", where)[:80] or "argument"
    name = re.split(r"[\[.]", where, maxsplit=1)[0]
    if kind == "tensor":
        fix = (f"work on a new tensor (`{name} = {name} - m` rather than `{name} -= m`, `masked_fill` rather than "
               f"`masked_fill_`, or `{name}.clone()` first)")
    elif kind == "module":
        fix = "leave the module's parameters as they are"
    else:
        fix = f"build a new one (or work on a copy: `{name}.copy()`)"
    if _HIDDEN.get():  # what changed, and how, could carry the case
        return f"changed its argument `{name}` in place; the caller's value must stay as it was: {fix}."
    return (f"changed its argument `{where}` in place: {one_line(how, 300)}. The caller's value must stay as it was: "
            f"{fix}.")


# ---------------------------------------------------------------------------
# hidden cases: the grader runs them, and their parameters stay out of the feedback

_HIDDEN = contextvars.ContextVar("hidden_cases", default=False)
#: inside call_answer_each: [whether a raised error of the batch has been explained by the solution's changes]
_BATCH: contextvars.ContextVar[list[bool] | None] = contextvars.ContextVar("call_batch", default=None)
#: set while the grader runs a test cell (remote_answer.calls_to_kernel): given a function and its calls,
#: the handle of the student's kernel they involve, or None; unset, every call is local and nothing is scanned
_KERNEL_ROUTE: contextvars.ContextVar[Callable[[Any, list], Any] | None] = contextvars.ContextVar(
    "kernel_route", default=None)


@contextlib.contextmanager
def kernel_route(route: Callable[[Any, list], Any]) -> Iterator[None]:
    """Inside the block, :func:`call_answer` asks ``route(func, calls)`` for the kernel handle a call involves, and a
    call that involves one runs in the student's kernel (``handle.call_each``)."""
    token = _KERNEL_ROUTE.set(route)
    try:
        yield
    finally:
        _KERNEL_ROUTE.reset(token)


def _kernel_handle(func: Any, calls: list[tuple[tuple, dict]]) -> Any:
    route = _KERNEL_ROUTE.get()
    return None if route is None else route(func, calls)


@contextlib.contextmanager
def hidden_cases() -> Iterator[None]:
    """Inside the block, checks run hidden cases: their lines say that a case failed, not its parameters."""
    token = _HIDDEN.set(True)
    try:
        yield
    finally:
        _HIDDEN.reset(token)


_NUMBER = re.compile(r"(?<![\w.])[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?(?![\w])")
_QUOTED = re.compile(r"\u00ab[^\u00bb]*\u00bb|(?<!\w)'[^'\n]*'(?!\w)|(?<!\w)\"[^\"\n]*\"(?!\w)")


def without_numbers(message: str) -> str:
    """A hidden case's verdict with every number and every quoted text left out: a shape, an offset, a count or a
    string the student's code returned could carry the case."""
    return _NUMBER.sub("\u2026", _QUOTED.sub("\u2026", message))


def in_hidden_case() -> bool:
    """True inside :func:`hidden_cases`."""
    return _HIDDEN.get()


def case_note(case: str) -> str:
    """' (test case: ...)' after a failure's sentence; for a hidden case only that it was one."""
    if not case:
        return ""
    return " (a hidden test case)" if _HIDDEN.get() else f" (test case: {case})"


# ---------------------------------------------------------------------------
# tolerances and tensor checks


def tolerance(dtype: torch.dtype) -> tuple[float, float]:
    """(rtol, atol) for comparing with a reference, valid on the CPU and on CUDA.

    float32 kernels on a GPU sum in a different order than on the CPU, so the float32
    tolerance is a few hundred ulps, far below the size of any real mistake.
    """
    if dtype == torch.float64:
        return 1e-9, 1e-10
    if dtype in (torch.float16, torch.bfloat16):
        return 1e-2, 1e-2
    return 1e-4, 1e-5


def describe_value(x: Any) -> str:
    """A short description of a value for messages: 'a float32 tensor of shape (2, 3) on cpu'."""
    if isinstance(x, torch.Tensor):
        return f"a {str(x.dtype).replace('torch.', '')} tensor of shape {tuple(x.shape)} on {x.device}"
    if isinstance(x, (tuple, list)):
        return f"{_article(type(x).__name__)} {type(x).__name__} of {len(x)} items"
    return f"{_article(type(x).__name__)} {type(x).__name__}"


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def check_tensor(
    exercise: str,
    value: Any,
    *,
    what: str = "your answer",
    shape: Sequence[int] | None = None,
    dtype: torch.dtype | None = None,
    device: torch.device | None = None,
) -> torch.Tensor:
    """Check type, shape, dtype and device; return the tensor or raise AnswerError."""
    if value is None:
        raise AnswerError(exercise, f"{what} {verb(what, 'is')} None: did you forget a `return` statement?")
    if not isinstance(value, torch.Tensor):
        hint = ""
        if type(value).__module__ == "numpy":
            hint = " Convert a numpy array back with torch.from_numpy(...)."
        elif isinstance(value, (float, int, list)):
            hint = " Build a tensor (for example with torch.tensor(...)) instead."
        raise AnswerError(exercise, f"{what} should be a torch.Tensor, but it is {describe_value(value)}.{hint}")
    if shape is not None and tuple(value.shape) != tuple(shape):
        raise AnswerError(exercise, f"{what} should have shape {tuple(shape)}, but it has shape {tuple(value.shape)}.")
    if dtype is not None and value.dtype != dtype:
        raise AnswerError(
            exercise,
            f"{what} should have dtype {dtype} (the same as the inputs), but it has dtype {value.dtype}.",
        )
    if device is not None and value.device != torch.device(device):
        raise AnswerError(
            exercise,
            f"{what} {verb(what, 'is')} on {value.device}, but the inputs were on {device}: "
            "create new tensors on the inputs' device (for example device=Q.device).",
        )
    return value


def close(a: torch.Tensor, b: torch.Tensor) -> bool:
    """True when two tensors have the same shape and agree within :func:`tolerance` (NaNs never agree)."""
    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor) or a.shape != b.shape:
        return False
    if a.dtype == torch.bool or b.dtype == torch.bool:
        return a.dtype == b.dtype and bool(torch.equal(a.cpu(), b.cpu()))
    rtol, atol = tolerance(b.dtype)
    return bool(torch.allclose(a.detach().to(b.device, b.dtype), b.detach(), rtol=rtol, atol=atol))


# ---------------------------------------------------------------------------
# catalogue of wrong answers


#: more changes of the solution than this that explain an answer say too little to be worth a sentence
MOST_CHANGES_SAID = 3


@dataclass(frozen=True)
class Variant:
    """A known wrong answer: ``compute(*inputs)`` gives what that mistake returns."""

    name: str
    message: str
    compute: Callable[..., Any]


def _max_abs_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    if a.dtype == torch.bool or b.dtype == torch.bool:  # masks: 1 where they differ
        a, b = a.to(torch.float64), b.to(torch.float64)
    diff = (a.detach().to(b.device, b.dtype) - b.detach()).abs()
    finite = torch.isfinite(diff)
    if not bool(finite.all()):
        return math.inf
    return float(diff.max()) if diff.numel() else 0.0


def compare_answer(
    exercise: str,
    answer: Any,
    expected: torch.Tensor,
    *,
    inputs: Sequence[Any] = (),
    variants: Iterable[Variant] = (),
    what: str = "your answer",
    case: str = "",
    pick: Callable[[Any], Any] | None = None,
    terms: Terms | None = None,
    locate: Callable[[], str | None] | None = None,
) -> torch.Tensor:
    """Compare ``answer`` with ``expected``; on a mismatch, name the mistake.

    First the catalogue: each variant's ``compute(*inputs)`` gives the wrong answer for that mistake;
    ``pick`` selects the relevant part of a variant's result (e.g. ``lambda r: r[1]`` for weights).
    It is consulted before the shape check, so an answer whose shape is wrong *because of* a known
    mistake is told about the mistake, not only the shape. Then, for mistakes nobody catalogued,
    the general diagnosis (:func:`course_lib.grading.diagnosis.diagnose`, in the exercise's ``terms``) and
    the exercise's ``locate``: a function of no arguments that says where the answer goes wrong, as a
    sentence naming the part that is wrong, or None (most run the student's code on :class:`Probe` inputs,
    built to isolate one part of it, through :func:`run_probes`).
    """
    where = case_note(case)
    if isinstance(answer, torch.Tensor) and close(answer, expected):
        return check_tensor(exercise, answer, what=what, dtype=expected.dtype, device=expected.device)
    if isinstance(answer, torch.Tensor):
        matched = []
        for variant in variants:
            try:
                wrong = variant.compute(*inputs)
                if pick is not None:
                    wrong = pick(wrong)
            except Exception:  # noqa: BLE001 (a mistake that cannot happen for these inputs)
                continue
            if close(answer, wrong) and not close(wrong, expected):
                matched.append(variant.message)
        matched = list(dict.fromkeys(matched))
        if len(matched) == 1:
            raise AnswerError(exercise, f"{matched[0]}{where}")
        if matched:  # on this case several known mistakes give the same answer: none is said as the one
            listed = " Or: ".join(m[0].upper() + m[1:] for m in matched)
            raise AnswerError(exercise, f"{len(matched)} known mistakes give this answer{where}, so it is one of them. "
                                        f"{listed[0].upper()}{listed[1:]}")
        changes = changes_that_explain(exercise, inputs, answer, expected, same=close, pick=pick)
        if changes and len(changes) <= MOST_CHANGES_SAID:
            raise AnswerError(exercise, f"{_changes_sentence(what, changes)}{where}")
    found = explain(answer, expected, terms=terms, what=what, locate=locate)
    if found:
        raise AnswerError(exercise, f"{found}{where}")
    answer = check_tensor(exercise, answer, what=what, shape=expected.shape, device=expected.device)
    raise AnswerError(
        exercise,
        f"{what} {verb(what, 'has')} the right shape but the wrong values{where}: the largest difference from the "
        f"correct answer is {_max_abs_diff(answer, expected):.3g}.",
    )


def _changes_sentence(what: str, changes: Sequence[str]) -> str:
    if len(changes) == 1:
        return f"{what} {verb(what, 'is')} what the solution gives with one change: {changes[0]}."
    return (f"{what} {verb(what, 'is')} what the solution gives with one small change, and {len(changes)} different "
            f"changes give it; yours is one of: {'; or '.join(changes)}.")


def explain(answer: Any, expected: torch.Tensor, *, terms: Terms | None = None, what: str = "your answer",
            locate: Callable[[], str | None] | None = None) -> str | None:
    """The general diagnosis of a wrong tensor, and where ``locate`` says the answer goes wrong, as one or two
    sentences."""
    if not isinstance(answer, torch.Tensor):
        return locate() if locate is not None else None
    found = diagnose(answer, expected, terms, what, partial=False)
    if found and "NaN" in found and locate is not None:  # where the NaN comes from, if the exercise can tell
        return " ".join(s for s in (found, locate()) if s)
    if found:
        return found
    return (locate() if locate is not None else None) or diagnose(answer, expected, terms, what)


# ---------------------------------------------------------------------------
# calling the student's function with references switched off


@dataclass(frozen=True)
class Banned:
    """An attribute switched off during a graded call: ``owner.attr`` (owner is a module or class)."""

    owner: Any
    attr: str
    label: str


@contextlib.contextmanager
def forbidden(exercise: str, banned: Sequence[Banned], reason: str, namespaces: Sequence[dict] = ()) -> Iterator[None]:
    """Switch off ``banned`` (and any name bound to them in ``namespaces``) inside the block.

    A call to one of them raises :class:`ForbiddenCallError` with a sentence that says
    what is off and why. Everything is restored on exit, even after an error.
    """
    restore: list[Callable[[], None]] = []

    def make_stub(label: str) -> Callable[..., Any]:
        def stub(*args: Any, **kwargs: Any) -> Any:
            raise ForbiddenCallError(f"{label} is switched off while {exercise} is graded: {reason}", label)

        return stub

    originals: dict[int, str] = {}
    try:
        for item in banned:
            if not hasattr(item.owner, item.attr):
                continue
            original = getattr(item.owner, item.attr)
            originals[id(original)] = item.label
            had_own = item.attr in vars(item.owner)
            setattr(item.owner, item.attr, make_stub(item.label))
            if had_own:
                restore.append(lambda o=item.owner, a=item.attr, v=original: setattr(o, a, v))
            else:  # inherited (e.g. Tensor.softmax from TensorBase): remove the shadowing attribute
                restore.append(lambda o=item.owner, a=item.attr: delattr(o, a))
        for namespace in namespaces:
            for name, value in list(namespace.items()):
                label = originals.get(id(value))
                if label is not None:
                    namespace[name] = make_stub(label)
                    restore.append(lambda ns=namespace, n=name, v=value: ns.__setitem__(n, v))
        yield
    finally:
        for undo in reversed(restore):
            undo()


def call_answer(
    exercise: str,
    func: Callable[..., Any],
    *args: Any,
    banned: Sequence[Banned] = (),
    reason: str = "",
    substitutes: dict[str, Callable[..., Any]] | None = None,
    **kwargs: Any,
) -> Any:
    """Call the student's ``func`` with ``banned`` switched off; turn failures into AnswerError.

    ``substitutes`` temporarily replaces the student's own helpers (by name, in the
    function's globals) with correct ones, so that a mistake in an earlier exercise is
    not charged again in a later one that builds on it; a helper that is not defined at
    all (its cell failed or timed out) is supplied the same way.
    """
    if not callable(func):
        raise AnswerError(exercise, f"expected a function named {exercise}, but got {describe_value(func)}.")
    handle = _kernel_handle(func, [(args, kwargs)])
    if handle is not None:  # the student's code lives in another process (autograding): run it there
        [result] = handle.call_each(exercise, func, [(args, kwargs)], banned=banned, reason=reason,
                                    substitutes=substitutes)
        if isinstance(result, AnswerError):
            raise result
        return result
    namespace = getattr(func, "__globals__", {})
    saved = {name: namespace[name] for name in (substitutes or {}) if callable(namespace.get(name))}
    missing = [name for name in (substitutes or {}) if name not in namespace]  # e.g. its cell timed out
    try:
        namespace.update({name: substitutes[name] for name in [*saved, *missing]})
        kept = snapshot(args, kwargs)
        with forbidden(exercise, banned, reason, [namespace]):
            result = func(*args, **kwargs)
        change = first_change(func, args, kwargs, kept)
        if change is not None:
            raise call_failure(exercise, "changed", label=change.where, text=change.how, error_type=change.kind)
        return result
    except NotImplementedError:
        raise call_failure(exercise, "not_implemented") from None
    except ForbiddenCallError as err:
        raise call_failure(exercise, "forbidden", label=err.label, reason=reason) from None
    except AnswerError:
        raise
    except Exception as err:  # noqa: BLE001 (the student's own error, said plainly)
        raise call_failure(exercise, "raised", error_type=type(err).__name__, text=str(err), label=student_line(err),
                           args=args) from None
    finally:
        namespace.update(saved)
        for name in missing:
            namespace.pop(name, None)


def call_answer_each(
    exercise: str,
    func: Callable[..., Any],
    calls: Sequence[tuple[tuple, dict]],
    *,
    banned: Sequence[Banned] = (),
    reason: str = "",
    substitutes: dict[str, Callable[..., Any]] | None = None,
) -> list[Any]:
    """:func:`call_answer` for each ``(args, kwargs)`` in ``calls``: each result, or the AnswerError it raised.

    While grading, all of them travel to the student's kernel in one trip (thousands of words, say).
    """
    calls = list(calls)
    token = _BATCH.set([False])
    try:
        handle = _kernel_handle(func, calls)
        if handle is not None:
            return handle.call_each(exercise, func, calls, banned=banned, reason=reason, substitutes=substitutes)
        results: list[Any] = []
        for args, kwargs in calls:
            try:
                results.append(call_answer(exercise, func, *args, banned=banned, reason=reason, substitutes=substitutes,
                                           **kwargs))
            except AnswerError as err:
                results.append(err)
        return results
    finally:
        _BATCH.reset(token)


def call_answer_all(exercise: str, func: Callable[..., Any], calls: Sequence[tuple[tuple, dict]],
                    **options: Any) -> list[Any]:
    """Each call's result, as a loop of :func:`call_answer` would give them, raising the first AnswerError.

    ``options`` are :func:`call_answer_each`'s (banned, reason, substitutes). While grading, the calls travel
    to the student's kernel in one trip instead of one trip each.
    """
    results = call_answer_each(exercise, func, calls, **options)
    for result in results:
        if isinstance(result, AnswerError):
            raise result
    return results


# ---------------------------------------------------------------------------
# probes: the student's function on inputs built to isolate one part of it


@dataclass(frozen=True)
class Probe:
    """Inputs that isolate one part of an exercise; ``label`` says what is special about them ("with one head")."""

    label: str
    args: tuple
    kwargs: dict = field(default_factory=dict)
    hint: str = ""     # where to look when the answer is right only on these inputs


def zeroed(names: Sequence[str], args: Sequence[Any], kwargs: dict | None = None,
           only: Sequence[str] | None = None, hints: dict[str, str] | None = None) -> list[Probe]:
    """One probe per tensor argument (or those named in ``only``), that argument set to zero.

    A mistake that lives only in how one input is used disappears when that input is zero.
    """
    probes = []
    for index, (name, value) in enumerate(zip(names, args)):
        if not isinstance(value, torch.Tensor) or not value.is_floating_point() or (only and name not in only):
            continue
        changed = list(args)
        changed[index] = torch.zeros_like(value)
        hint = (hints or {}).get(name, f"look at how {name} enters your computation")
        probes.append(Probe(f"when {name} is zero", tuple(changed), dict(kwargs or {}), hint))
    return probes


def run_probes(exercise: str, func: Callable[..., Any], reference: Callable[..., Any], probes: Sequence[Probe], *,
               what: str = "your answer", pick: Callable[[Any], Any] | None = None, banned: Sequence[Banned] = (),
               reason: str = "", substitutes: dict[str, Callable[..., Any]] | None = None) -> str | None:
    """Run ``func`` on each probe's inputs (one trip to the student's kernel) and compare with ``reference``.

    Returns a sentence when the answer is right on one or two of the probes and wrong on the
    others, which is where the mistake hides; otherwise None.
    """
    results = call_answer_each(exercise, func, [(p.args, p.kwargs) for p in probes], banned=banned, reason=reason,
                               substitutes=substitutes)
    right, wrong = [], []
    for item, result in zip(probes, results):
        try:
            got = result if pick is None or isinstance(result, AnswerError) else pick(result)
            expected = reference(*item.args, **item.kwargs)
            expected = expected if pick is None else pick(expected)
        except Exception:  # noqa: BLE001 (the answer's structure is wrong; other messages say so)
            got, expected = None, None
        ok = isinstance(got, torch.Tensor) and isinstance(expected, torch.Tensor) and close(got, expected)
        (right if ok else wrong).append(item)
    if not right or len(right) > 2 or not wrong:
        return None
    hint = right[0].hint if len(right) == 1 and right[0].hint else "the mistake is in what those inputs leave out"
    otherwise = list_words([p.label for p in wrong], "or") if len(wrong) == 1 else "otherwise"
    where_right = list_words([p.label for p in right], "and")
    return f"{what} {verb(what, 'is')} right {where_right} but wrong {otherwise}: {hint}."


def report_pass(exercise: str, detail: str = "") -> None:
    """Print the success line of a "check my answer" cell (a hidden case's line keeps its parameters to itself)."""
    if _HIDDEN.get():
        print(f"\u2714 {exercise}: correct on a hidden case.")
        return
    suffix = f" ({detail})" if detail else ""
    print(f"\u2714 {exercise}: correct{suffix}.")


def _missing_answer_handler(shell, etype, value, tb, tb_offset=None):
    """IPython handler for answers not written yet.

    A bare NotImplementedError raised by the cell itself means it is an answer cell still blank; raised
    in a function, that the cell called an exercise function that is still the blank stub. A NameError
    in a check cell means the answer cell above has not run; one in a cell's own top-level code, that a
    cell above which defines the name has not run (or stopped with an error). Anything else, including a
    NameError inside the student's own function, keeps its full traceback.
    """
    last = tb
    while last.tb_next is not None:
        last = last.tb_next
    function = last.tb_frame.f_code.co_name
    in_cell_itself = function == "<module>"
    if issubclass(etype, NotImplementedError) and not str(value):
        if in_cell_itself:
            message = ("\x1b[1;31m✘ this answer is not implemented yet\x1b[0m: replace `raise NotImplementedError()` "
                       "in this cell with your code, then run the cell again.")
        else:
            message = (f"\x1b[1;31m✘ {function} is not implemented yet\x1b[0m: this cell uses your {function}; "
                       "write it in its exercise cell above (and run that cell), then run this one again.")
        shell._showtraceback(etype, value, [message])
        return
    line = linecache.getline(last.tb_frame.f_code.co_filename, last.tb_lineno)
    name = re.search(r"'(\w+)'", str(value))
    if "check_" in line and name:
        message = (f"\x1b[1;31m✘ {name.group(1)} is not defined yet\x1b[0m: run your answer cell above this one "
                   "(after replacing `raise NotImplementedError()` with your code).")
        shell._showtraceback(etype, value, [message])
    elif issubclass(etype, NameError) and name and in_cell_itself:
        message = (f"\x1b[1;31m✘ {name.group(1)} is not defined yet\x1b[0m (line {last.tb_lineno}: {line.strip()}): "
                   f"a cell above defines it. Run the cells above this one first; one that stops with an error "
                   f"(an answer not written yet, say) defines nothing.")
        shell._showtraceback(etype, value, [message])
    else:
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)


def install_notebook_hooks() -> None:
    """In a Jupyter kernel, show one line instead of a traceback for answers not written yet."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None and hasattr(shell, "set_custom_exc"):
        shell.set_custom_exc((NameError, NotImplementedError), _missing_answer_handler)
