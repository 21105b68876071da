"""Catch student code that patches the checks (or what they rely on) to pass.

Student code and the checks share one Python process, so a submission can replace
``checks.check_softmax``, ``torch.allclose``, a builtin or IPython's ``run_cell``. Before
grading, :func:`add_guards` inserts grader cells into the submission:

- at the top, a cell that records the originals of everything the checks rely on, and reads
  a one-time token from a file in the kernel's folder (then deletes it: the token is never in
  any cell's source, so student code cannot print a fake "all is well");
- before each test cell, a cell that puts every original back;
- after each test cell, a cell that reports, with the token, whether anything was replaced
  while the test ran.

:func:`verdicts` reads the reports: a test cell whose report says "changed" or is missing
(cells were redirected, or the report was silenced) earns no points. :func:`remove_guards`
takes the grader cells out again before feedback is rendered.

This is a tripwire, not a wall: code that finds the recorded originals in memory (``gc``)
could still defeat it. Isolating the checks in their own process would be the real fix.
"""
from __future__ import annotations

import nbformat

GUARD_TAG = "course-guard"
TOKEN_FILE = ".course-guard-token"

_SETUP = r'''
def __course_guard_make():
    import builtins, math, os, sys, importlib
    token = open(%(token)r).read().strip()
    os.remove(%(token)r)
    targets = [builtins, math]
    for name in ("torch", "torch.testing", "torch.nn.functional", "numpy", "numpy.testing",
                 "course_lib.grading", "course_lib.checks.builtins", %(checks)r):
        try:
            targets.append(importlib.import_module(name))
        except Exception:
            pass
    try:
        import torch
        targets.append(torch.Tensor)
    except Exception:
        pass
    shell = get_ipython()
    targets.append(type(shell))
    # ipykernel rebinds these for every cell it runs
    volatile = {"input", "raw_input", "excepthook", "displayhook", "exit", "quit", "get_ipython"}
    saved = [(t, {k: v for k, v in vars(t).items() if k not in volatile}) for t in targets]
    saved.append((sys, {"modules": sys.modules}))
    saved_dict = {id(t): a for t, a in saved}
    watched = [t for t in targets if getattr(t, "__name__", "").startswith("course_lib") or t is builtins]
    saved_dict = {t: saved_dict[id(t)] for t in watched}
    shell_saved = dict(vars(shell))
    shell_names = [k for k in ("run_cell", "run_cell_async", "showtraceback", "_showtraceback", "run_ast_nodes",
                               "run_code", "transform_cell") if k in shell_saved or hasattr(shell, k)]
    _vars, _setattr, _delattr = vars, setattr, delattr
    out = sys.stdout

    def changed():
        names = []
        for t, attrs in saved:
            now = _vars(t)
            for key, value in attrs.items():
                if now.get(key, names) is not value and not key.startswith("__course"):
                    names.append(f"{getattr(t, '__name__', t)}.{key}")
        for t in watched:  # a name added to the checks' modules shadows a builtin they use
            names.extend(f"{t.__name__}.{key}" for key in _vars(t) if key not in saved_dict[t] and key not in volatile)
        for key in shell_names:
            if key in _vars(shell) and _vars(shell)[key] is not shell_saved.get(key, shell_names):
                names.append(f"IPython shell.{key}")
        return names

    def restore():
        for t, attrs in saved:
            now = _vars(t)
            for key, value in attrs.items():
                if now.get(key, restore) is not value and not key.startswith("__course"):
                    try:
                        _setattr(t, key, value)
                    except (AttributeError, TypeError):
                        pass
        for t in watched:
            for key in [k for k in _vars(t) if k not in saved_dict[t] and k not in volatile]:
                _delattr(t, key)
        for key in shell_names:
            if key in _vars(shell) and _vars(shell)[key] is not shell_saved.get(key, shell_names):
                if key in shell_saved:
                    _setattr(shell, key, shell_saved[key])
                else:
                    _delattr(shell, key)
        sys.stdout = out

    def report(label):
        names = changed()
        restore()
        verdict = "changed " + ", ".join(sorted(set(names))[:5]) if names else "ok"
        out.write(f"COURSE-GUARD {token} {label} {verdict}\n")
        out.flush()

    return restore, report

__course_guard_restore, __course_guard_report = __course_guard_make()
del __course_guard_make
'''


def _cell(source: str, role: str, label: str = "") -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata[GUARD_TAG] = {"role": role, "label": label}
    return cell


def _grade_id(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def _is_test(cell) -> bool:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return cell.get("cell_type") == "code" and bool(meta.get("grade")) and not meta.get("solution")


def add_guards(nb: nbformat.NotebookNode, token_path: str, checks_module: str) -> None:
    """Insert the grader cells (in place); ids are fresh, so they never clash with the student's."""
    for cell in nb.cells:  # a student cannot bring their own guard cells
        cell.metadata.pop(GUARD_TAG, None)
        if str(cell.get("id", "")).startswith("course-guard"):
            cell.id = "student-" + cell.id
    cells = [_cell(_SETUP % {"token": token_path, "checks": checks_module}, "setup")]
    for cell in nb.cells:
        if _is_test(cell):
            gid = _grade_id(cell)
            cells.append(_cell("__course_guard_restore()", "restore", gid))
            cells.append(cell)
            cells.append(_cell(f"__course_guard_report({gid!r})", "report", gid))
        else:
            cells.append(cell)
    for index, cell in enumerate(cells):
        if GUARD_TAG in cell.metadata:
            cell.id = f"course-guard-{index:03d}"
    nb.cells = cells


def verdicts(nb: nbformat.NotebookNode, token: str) -> dict[str, str]:
    """Test cells (by grade_id) that must earn nothing, with the reason."""
    bad: dict[str, str] = {}
    for cell in nb.cells:
        meta = cell.metadata.get(GUARD_TAG)
        if not meta or meta.get("role") != "report":
            continue
        label = meta["label"]
        text = "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")
        line = next((ln for ln in text.splitlines() if ln.startswith(f"COURSE-GUARD {token} {label} ")), None)
        if line is None:
            bad[label] = ("the grader could not confirm that this check ran unaltered "
                          "(the notebook's code changed how cells run or what they print)")
        elif not line.endswith(" ok"):
            what = line.split(" changed ", 1)[-1]
            bad[label] = f"the notebook's code replaced what the checks rely on ({what}): no points for this check"
    return bad


def remove_guards(nb: nbformat.NotebookNode) -> None:
    nb.cells = [c for c in nb.cells if GUARD_TAG not in c.metadata]


def checks_module(release_nb: nbformat.NotebookNode) -> str:
    """The notebook's module of checks (``from course_lib.checks import X as checks``)."""
    import re

    for cell in release_nb.cells:
        match = re.search(r"from course_lib\.checks import (\w+) as checks", cell.source)
        if match:
            return f"course_lib.checks.{match.group(1)}"
    return "course_lib.checks"
