"""The course's single source: a notebook written once, as a text file.

``solutions/src/NN_name.py`` is a percent-format script. Each cell starts with a line
``# %%``, optionally followed by a kind in brackets and ``key=value`` options:

    # %% [markdown]                 prose; every line starts with "# " (a lone "#" is a blank line)
    # %%                            an ordinary code cell (students may edit it)
    # %% [setup]                    a read-only code cell (imports the graded cells rely on)
    # %% [demo]                     an ordinary code cell that autograding skips: training runs, plots,
                                    widgets, anything no check cell needs (keeps grading fast)
    # %% [answer] id=softmax        an autograded answer cell: ### BEGIN SOLUTION / ### END SOLUTION
    # %% [tests] id=test_softmax points=2
                                    a read-only test cell; ### BEGIN HIDDEN TESTS / ### END HIDDEN TESTS
    # %% [written] id=why_scale points=2
                                    a manually graded markdown answer (the model answer is the instructors')

Three options, on any cell's marker line, shape the lecturer's copy (:func:`build_lecture`,
``lectures/NN_name.ipynb``); the build derives them when they are absent:

    lecture=skip | keep             skip: the cell is left out of the lecture; keep: a [tests] or [written]
                                    cell (left out by default) is kept, as an ordinary cell
    slide=slide | subslide | fragment | skip | -
                                    RISE's slide type for the cell (for a markdown cell split at its
                                    headings: for its first part); e.g. ``# %% [demo] slide=subslide``
    pace=SECONDS                    a cell that trains: each of its trainings stops after SECONDS in the
                                    lecture (``course_lib.train.lecture_pace``); without it, after a moment

The lecture is the prose split into slides at its headings (``#``/``##`` start a slide, ``###`` and
deeper a subslide; a cell that would overflow a slide starts a subslide), the demos, the plain and
setup code and the answer cells with their solutions shown (nbgrader's markers taken out); the check
cells, the written answers, prose paragraphs about the exercise machinery and all nbgrader metadata are
left out. Its first code cell starts by setting ``COURSE_FAST=1`` unless the environment says otherwise
(``course_lib.train``), and each cell that trains starts with ``lecture_pace(seconds)``: its trainings
stop after a moment, or after the cell's ``pace=`` seconds where a short run already shows what the prose
says, and the line says so on the slide; a lecture that should show a longer run shows the shipped results
file of that run.

A header before the first cell sets notebook options:

    # ---
    # cell_timeout: 60              seconds each cell may run when it is autograded
    # checks: course_lib.checks.ngrams
    #                               the module of checks the test cells call as ``checks`` (the setup
    #                               cell imports it so); the grader reads it from the notebook's metadata
    # ---

:func:`build_notebook` turns the text into the instructors' nbgrader source notebook
(``solutions/NN_name.ipynb``); ``autograder.course`` turns that into the students' copy.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .cells import BEGIN_SOLUTION, is_grade, is_solution, metadata

CELL_MARKER = re.compile(r"^# %%(?:\s*\[(?P<kind>[a-z]+)\])?(?P<options>.*)$")
KINDS = ("markdown", "code", "demo", "setup", "answer", "tests", "written")
LECTURE_CHOICES = ("skip", "keep")
SLIDE_TYPES = ("slide", "subslide", "fragment", "skip", "-")
DEMO_TAG = "demo"
DEFAULT_CELL_TIMEOUT = 60


class SourceError(ValueError):
    """A notebook source file that does not follow the format above."""


@dataclass
class SourceCell:
    kind: str
    options: dict[str, str]
    lines: list[str] = field(default_factory=list)
    line_no: int = 0

    def text(self) -> str:
        lines = list(self.lines)
        while lines and not lines[-1].strip():
            lines.pop()
        while lines and not lines[0].strip():
            lines.pop(0)
        if self.kind in ("markdown", "written"):
            out = []
            for line in lines:
                if line.startswith("# "):
                    out.append(line[2:])
                elif line.strip() == "#":
                    out.append("")
                else:
                    raise SourceError(f"line {self.line_no}: markdown lines must start with '# ': {line!r}")
            lines = out
        return "\n".join(lines)


def _parse_options(text: str, line_no: int) -> dict[str, str]:
    options = {}
    for token in text.split():
        if "=" not in token:
            raise SourceError(f"line {line_no}: expected key=value, got {token!r}")
        key, value = token.split("=", 1)
        if key == "lecture" and value not in LECTURE_CHOICES:
            raise SourceError(f"line {line_no}: lecture= takes {' or '.join(LECTURE_CHOICES)}, not {value!r}")
        if key == "slide" and value not in SLIDE_TYPES:
            raise SourceError(f"line {line_no}: slide= takes one of {', '.join(SLIDE_TYPES)}, not {value!r}")
        if key == "pace" and not re.fullmatch(r"\d+(\.\d+)?", value):
            raise SourceError(f"line {line_no}: pace= takes the seconds each training of the cell gets in the "
                              f"lecture, e.g. pace=3, not {value!r}")
        options[key] = value
    return options


def parse(text: str) -> tuple[dict[str, str], list[SourceCell]]:
    """Split a source file into its header options and its cells."""
    lines = text.splitlines()
    header: dict[str, str] = {}
    start = 0
    if lines and lines[0].strip() == "# ---":
        for i in range(1, len(lines)):
            if lines[i].strip() == "# ---":
                start = i + 1
                break
            key, _, value = lines[i].lstrip("# ").partition(":")
            header[key.strip()] = value.strip()
        else:
            raise SourceError("the header opened with '# ---' is never closed")
    cells: list[SourceCell] = []
    for number, line in enumerate(lines[start:], start=start + 1):
        match = CELL_MARKER.match(line)
        if match:
            kind = match.group("kind") or "code"
            if kind not in KINDS:
                raise SourceError(f"line {number}: unknown cell kind {kind!r} (known: {', '.join(KINDS)})")
            cells.append(SourceCell(kind, _parse_options(match.group("options"), number), line_no=number))
        elif cells:
            cells[-1].lines.append(line)
        elif line.strip():
            raise SourceError(f"line {number}: text before the first '# %%' cell marker")
    return header, cells


def _checks_module(header: dict[str, str], cells: list[SourceCell]) -> str:
    """The header's ``checks`` module, which a setup cell must import as ``checks``."""
    module = header.get("checks", "")
    package, _, name = module.rpartition(".")
    if package != "course_lib.checks" or not name.isidentifier():
        raise SourceError(f"the header needs 'checks: course_lib.checks.NAME' (got {module!r})")
    wanted = f"from course_lib.checks import {name} as checks"
    if not any(c.kind == "setup" and wanted in (line.strip() for line in c.lines) for c in cells):
        raise SourceError(f"no [setup] cell has the line {wanted!r} that the header's checks module asks for")
    return module


def build_notebook(source: Path) -> nbformat.NotebookNode:
    """Build the instructors' nbgrader source notebook from a text source."""
    header, cells = parse(source.read_text(encoding="utf-8"))
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "course": {"cell_timeout": int(header.get("cell_timeout", DEFAULT_CELL_TIMEOUT)),
                   "checks": _checks_module(header, cells)},
    }
    seen: set[str] = set()
    for index, cell in enumerate(cells):
        cell_id = cell.options.get("id") or f"{cell.kind}-{index:03d}"
        if not re.fullmatch(r"[A-Za-z0-9_-]+", cell_id):
            raise SourceError(f"line {cell.line_no}: cell id {cell_id!r} may only use letters, digits, - and _")
        if cell_id in seen:
            raise SourceError(f"line {cell.line_no}: duplicate cell id {cell_id!r}")
        seen.add(cell_id)
        points = None
        if cell.kind in ("tests", "written"):
            if "points" not in cell.options:
                raise SourceError(f"line {cell.line_no}: a [{cell.kind}] cell needs points=N")
            points = float(cell.options["points"])
        text = cell.text()
        if cell.kind == "answer" and BEGIN_SOLUTION not in text:
            raise SourceError(f"line {cell.line_no}: an [answer] cell needs ### BEGIN SOLUTION / ### END SOLUTION")
        if cell.kind in ("markdown", "written"):
            new = nbformat.v4.new_markdown_cell(text)
        else:
            new = nbformat.v4.new_code_cell(text)
        new.id = cell_id
        meta = metadata(cell.kind, cell_id, points)
        if meta is not None:
            new.metadata["nbgrader"] = meta
        if cell.kind == "tests":
            new.metadata["tags"] = ["check-answer"]
        if cell.kind == "demo":
            new.metadata["tags"] = [DEMO_TAG]
        nb.cells.append(new)
    nbformat.validate(nb)
    return nb


def is_demo(cell: nbformat.NotebookNode, demo_ids: set[str] = frozenset()) -> bool:
    """A code cell that autograding may skip: tagged demo (or a demo in the release), never a graded cell."""
    if cell.cell_type != "code" or is_grade(cell) or is_solution(cell):
        return False
    return DEMO_TAG in cell.metadata.get("tags", []) or cell.get("id") in demo_ids


def cell_timeout(nb: nbformat.NotebookNode) -> int:
    """The per-cell autograding timeout a notebook asks for."""
    return int(nb.metadata.get("course", {}).get("cell_timeout", DEFAULT_CELL_TIMEOUT))
