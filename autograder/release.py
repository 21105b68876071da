"""``python -m autograder release ASSIGNMENT... --out DIR``: the students' bundle, checked for leaks.

The bundle holds what a student needs to run the released notebooks with ``make lab``: the
student notebooks (``notebooks/``, built from the single source), ``course_lib`` (the checks
and the course's helpers), the install files, and a short README. It never holds
``solutions/``, ``tests/`` or ``benchmarks/``.

After writing it, :func:`leaks` reads every file of the bundle back and reports
nbgrader's solution and hidden-test markers, any line of a hidden test, and any solution
block (two or more code lines) of any notebook of the course.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import nbformat

from . import course, feedback
from .cells import BEGIN_SOLUTION, END_SOLUTION, MARKERS, marked_regions

# lab/: the Lab's settings of `make lab`
SHIPPED = ["pyproject.toml", "environment.yml", "Makefile", "course_lib", "lab"]
README = """# From n-grams to BERT: the notebooks

Open the course in JupyterLab (Python 3.11 and `make`; nothing is downloaded at run time
except the packages, once):

    make lab

Then open a notebook in `notebooks/` and run it from the top. Cells with `# YOUR CODE HERE`
are yours; the read-only "Check my answer" cell after each exercise says whether it is right
and, if not, what is wrong. Submit the notebook file as your instructor asks.

Notebooks in this bundle: {names}
"""


def _ignore(folder: str, names: list[str]) -> set[str]:
    return {n for n in names if n in ("__pycache__", ".ipynb_checkpoints") or n.endswith((".pyc", ".egg-info"))}


def build_bundle(names: list[str], out: Path) -> Path:
    """Write the students' bundle for ``names`` into ``out`` (which must be empty or absent)."""
    if out.exists() and any(out.iterdir()):
        raise SystemExit(f"{out} is not empty; give a new folder")
    out.mkdir(parents=True, exist_ok=True)
    for item in SHIPPED:
        source = course.REPO / item
        if source.is_dir():
            shutil.copytree(source, out / item, ignore=_ignore)
        elif source.exists():
            (out / item).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, out / item)
    (out / "notebooks").mkdir()
    for name in names:
        shutil.copy2(course.NOTEBOOKS / f"{name}.ipynb", out / "notebooks" / f"{name}.ipynb")
    (out / "README.md").write_text(README.format(names=", ".join(names)), encoding="utf-8")
    return out


def _solution_blocks(nb: nbformat.NotebookNode) -> list[str]:
    """Each solution region with two or more code lines, as its stripped lines joined by newlines."""
    blocks = []
    for cell in nb.cells:
        for lines in marked_regions(cell.source, BEGIN_SOLUTION, END_SOLUTION):
            code = [ln.strip() for ln in lines if ln.strip() and not ln.strip().startswith("#")]
            if len(code) >= 2:
                blocks.append("\n".join(code))
    return blocks


def _normalized(text: str) -> str:
    return "\n".join(line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#"))


def leaks(bundle: Path, notes: list[str] | None = None) -> list[str]:
    """Every leak of solutions or hidden tests in the bundle, one line each.

    course_lib holds the course's reference implementations by design (the checks switch
    them off during a graded call); a solution found there goes to ``notes``, not to the leaks.
    """
    blocks, hidden = [], []
    for name in course.assignments():
        source = nbformat.read(course.SOLUTIONS / f"{name}.ipynb", as_version=4)
        blocks += [(name, b) for b in _solution_blocks(source)]
        hidden += [(name, h) for h in feedback.hidden_lines(source)]
    found = []
    for path in sorted(p for p in bundle.rglob("*") if p.is_file()):
        rel = path.relative_to(bundle)
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if path.suffix == ".ipynb":  # the code as a student sees it, not JSON-escaped
            try:
                text = "\n".join(c.source for c in nbformat.reads(text, as_version=4).cells)
            except Exception:  # noqa: BLE001 (a notebook nbformat cannot read is scanned as its raw text)
                pass
        for marker in MARKERS:
            if marker in text:
                found.append(f"{rel}: contains {marker!r}")
        flat = _normalized(text)
        for name, line in hidden:
            if line in text:
                found.append(f"{rel}: contains a hidden test of {name}: {line[:60]!r}")
        for name, block in blocks:
            if block in flat:
                line = f"{rel}: contains a solution of {name}: {block.splitlines()[0][:60]!r}"
                if rel.parts[0] == "course_lib" and path.suffix == ".py" and notes is not None:
                    notes.append(line + " (course_lib's reference implementation)")
                else:
                    found.append(line)
    for forbidden in ("solutions", "tests"):
        if (bundle / forbidden).exists():
            found.append(f"{forbidden}/ is in the bundle")
    return found


def release(names: list[str], out: Path, notes: list[str] | None = None) -> list[str]:
    """Build the bundle and return its leaks (empty when it is clean)."""
    build_bundle([course.resolve_assignment(n) for n in names], out)
    return leaks(out, notes)
