"""The lecturer's copy of a notebook: live slides (RISE) built from the single source.

``lectures/NN_name.ipynb`` comes from ``solutions/src/NN_name.py`` (format and the ``lecture=``/``slide=``
options: :mod:`autograder.notebook_source`). Every cell carries RISE's ``slideshow`` metadata; the notebook's
``rise`` metadata sets the big-type theme (with ``lectures/rise.css``, which RISE loads from beside the
notebook). ``python -m autograder build`` writes the lectures with the other notebooks, and ``--check``
compares them.
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat

from .cells import MARKERS
from .notebook_source import SourceCell, parse

#: RISE's settings for every lecture (jupyterlab-rise merges them over the Lab's settings).
RISE_SETTINGS = {
    "theme": "white",  # reveal.js's white theme brings its fonts; "simple" and most others fetch Google Fonts
    "transition": "none",
    "scroll": True,  # a slide taller than the screen scrolls instead of being cut off
    "center": False,
    "slideNumber": "c/t",
    "start_slideshow_at": "beginning",
    "auto_select": "code",
    "enable_chalkboard": False,
    "width": "100%",
    "height": "100%",
}


#: A code cell that trains (course_lib.train's ``train`` or ``budgeted``) starts with ``lecture_pace(seconds)``:
#: each of its trainings stops after the source cell's ``pace=`` seconds (a moment when it has none), and the
#: line says on the slide what that means for the numbers below it.
TRAINS = re.compile(r"(?<![\w.])(?:train|budgeted)\(")
MOMENT_S = 0.5  # the lecture's moment, in seconds (course_lib.train.FAST_SECONDS)
PACE_IMPORT = "from course_lib.train import lecture_pace"
#: The lecture's first code cell starts with these lines: each training demo runs for a moment.
PACE_LINES = (
    "import os",
    "",
    'os.environ.setdefault("COURSE_FAST", "1")  # lecture pace: each training demo runs for a moment (0: in full)',
    f'os.environ.setdefault("COURSE_FAST_SECONDS", "{MOMENT_S:g}")  # the moment; a training cell may give its own '
    'seconds',
    "",
)


def pace_line(seconds: float) -> str:
    """The first line of a lecture cell that trains."""
    if seconds <= MOMENT_S:
        return (f"lecture_pace({seconds:g})  # a moment per training: what follows shows an early model; "
                "the notebook trains in full (COURSE_FAST=0 here too)")
    return (f"lecture_pace({seconds:g})  # each training here stops after {seconds:g} s if not done sooner; "
            "COURSE_FAST=0 here trains in full")

#: How many lines (at the lecture's big type) fit on one slide; a cell that would pass it starts a subslide.
SLIDE_LINES = 22
#: Lines a figure or widget takes on a slide, and the characters of one line of prose at big type.
FIGURE_LINES = 14
PROSE_WIDTH = 80

HEADING = re.compile(r"^(#{1,6})\s")
LEFT_OUT_KINDS = ("tests", "written")
PLOTTING = re.compile(r"\b(plt\.|viz\.|interact|widgets\.|display\(|\.plot\(|imshow|heatmap|show_)")


def split_at_headings(text: str) -> list[str]:
    """Markdown cut before every heading line (outside fenced code); each piece stripped, none empty."""
    pieces: list[list[str]] = [[]]
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced and HEADING.match(line) and any(s.strip() for s in pieces[-1]):
            pieces.append([])
        pieces[-1].append(line)
    return [t for t in ("\n".join(p).strip() for p in pieces) if t]


#: a paragraph of prose that speaks of the students' exercise machinery is left out of the lecture
EXERCISE_MECHANICS = ("YOUR CODE HERE", "Check my answer", "graded by your instructor")


def without_exercise_mechanics(text: str) -> str:
    """The markdown without its paragraphs about how the exercises are written, checked and graded."""
    paragraphs = re.split(r"\n\s*\n", text)
    return "\n\n".join(p for p in paragraphs if not any(m in p for m in EXERCISE_MECHANICS)).strip()


def heading_slide_type(markdown: str) -> str | None:
    """'slide' for a piece that opens with a # or ## heading, 'subslide' for ### and deeper, else None."""
    match = HEADING.match(markdown)
    if not match:
        return None
    return "slide" if len(match.group(1)) <= 2 else "subslide"


def lecture_code(cell: SourceCell) -> str:
    """The cell's code as the lecture shows it: an answer's solution without nbgrader's markers."""
    lines = [line for line in cell.text().split("\n") if line.strip() not in MARKERS]
    return "\n".join(lines).strip("\n")


def slide_height(cell_type: str, text: str) -> int:
    """A rough height of a cell on a slide, in lines of the lecture's type."""
    if cell_type == "markdown":
        return sum(max(1, -(-len(line) // PROSE_WIDTH)) for line in text.split("\n"))
    height = text.count("\n") + 1
    return height + (FIGURE_LINES if PLOTTING.search(text) else 3)


#: a top-level call that draws an interactive widget
WIDGET_CALL = re.compile(r"^(?:\w+\s*=\s*)?(?:widgets\.)?interact\(", re.MULTILINE)


def split_before_widget(code: str) -> list[str]:
    """The code cut before the paragraph (lines after a blank line) whose top-level statement draws a widget,
    when definitions come before it: the widget and its figure then get a slide of their own, instead of
    sitting below the code that defines what they draw."""
    match = WIDGET_CALL.search(code)
    if not match:
        return [code]
    cut = code.rfind("\n\n", 0, match.start())
    if cut < 0 or not code[:cut].strip():
        return [code]
    return [code[:cut].strip("\n"), code[cut:].strip("\n")]


def lecture_cells(cells: list[SourceCell]) -> list[tuple[SourceCell, str, str]]:
    """(source cell, cell type, text) for each cell of the lecture, in order, markdown split at headings and code
    before a widget."""
    out = []
    for cell in cells:
        wanted = cell.options.get("lecture")
        if wanted == "skip" or (cell.kind in LEFT_OUT_KINDS and wanted != "keep"):
            continue
        if cell.kind in ("markdown", "written"):
            prose = without_exercise_mechanics(cell.text())
            out.extend((cell, "markdown", piece) for piece in split_at_headings(prose))
        else:
            code = lecture_code(cell)
            if code.strip():
                out.extend((cell, "code", piece) for piece in split_before_widget(code))
    return out


def build_lecture(source: Path) -> nbformat.NotebookNode:
    """The lecture notebook of a notebook source: slides, demos and worked examples; no exercise scaffolding."""
    _, cells = parse(source.read_text(encoding="utf-8"))
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "rise": dict(RISE_SETTINGS),
        "course": {"lecture_of": source.stem},
    }
    height = 0
    paced = imported = False
    first_part: set[int] = set()
    for index, (cell, cell_type, text) in enumerate(lecture_cells(cells)):
        is_first_part = id(cell) not in first_part
        first_part.add(id(cell))
        if cell_type == "code" and ("pace" in cell.options or TRAINS.search(text)):
            text = pace_line(float(cell.options.get("pace", MOMENT_S))) + "\n" + text
            if not imported:
                text = PACE_IMPORT + "\n" + text
                imported = True
        if cell_type == "code" and not paced:
            text = "\n".join(PACE_LINES) + "\n" + text
            paced = True
        derived = heading_slide_type(text) if cell_type == "markdown" else None
        if cell_type == "code" and not is_first_part and WIDGET_CALL.search(text):
            derived = "subslide"  # the widget and its figure on a slide of their own
        if index == 0:
            derived = "slide"
        cell_height = slide_height(cell_type, text)
        if derived is None and height and height + cell_height > SLIDE_LINES:
            derived = "subslide"
        slide_type = cell.options.get("slide") if is_first_part and "slide" in cell.options else derived or "-"
        if slide_type in ("slide", "subslide"):
            height = 0
        if slide_type != "skip":
            height += cell_height
        new = nbformat.v4.new_markdown_cell(text) if cell_type == "markdown" else nbformat.v4.new_code_cell(text)
        new.id = f"lecture-{index:03d}"
        new.metadata["slideshow"] = {"slide_type": slide_type}
        nb.cells.append(new)
    nbformat.validate(nb)
    return nb
