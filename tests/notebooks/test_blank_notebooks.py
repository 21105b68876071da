"""A student's first run: every blank student notebook, top to bottom in a real kernel, shows each error in one line.

Before writing any answer, a student who runs the whole notebook meets every blank exercise at once: the
answer cells themselves, the check cells after them, and the demo cells that use an answer or a value
that a failed cell above never defined. Each must say what is missing in one sentence (the hook in
course_lib.grading.answers), with no traceback, no "<module>" for a name, no warning printed into the
notebook, and no output so long that the student scrolls past a wall of text. The cells run on past errors, as "Run Selected Cell and All Below" does after each one.
"""
from __future__ import annotations

import re

import nbformat
import pytest
from nbclient import NotebookClient
from notebook_runner import LONGEST_OUTPUT, REPO, one_class_per_notebook

pytestmark = pytest.mark.slow  # every blank notebook top to bottom in a kernel, demos included

RELEASES = sorted(p.name for p in (REPO / "notebooks").glob("*.ipynb"))
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_every_notebook_is_covered():
    assert len(RELEASES) == 8, RELEASES


class BlankNotebook:
    """One blank release, run top to bottom (``NOTEBOOK``: one class per notebook, at the end of the file).

    Its demos train with ``COURSE_FAST=1`` (course_lib.train): what is tested is what each cell prints,
    not how far the models learn.
    """

    NOTEBOOK = ""

    def test_blank_notebook_speaks_in_one_line_per_error(self, tmp_path, monkeypatch):
        speaks_in_one_line_per_error(self.NOTEBOOK, tmp_path, monkeypatch)


def speaks_in_one_line_per_error(name, tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_FAST", "1")  # the kernel inherits it
    nb = nbformat.read(REPO / "notebooks" / name, as_version=4)
    NotebookClient(nb, timeout=300, allow_errors=True, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors, noisy, warnings, walls = [], [], [], []
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain", "")
            if len(text) > LONGEST_OUTPUT:
                walls.append(f"cell {index}: {len(text)} characters: {text[:200]}")
            if output.output_type == "error":
                text = ANSI.sub("", "\n".join(output.traceback))
                errors.append(text)
                if len(output.traceback) != 1 or "<module>" in text or "Traceback" in text:
                    noisy.append(f"cell {index}: {output.ename}: {output.evalue}\n{text[:600]}")
            elif output.output_type == "stream" and output.name == "stderr":
                warnings.append(f"cell {index}: {output.text[:300]}")
    assert errors, f"{name}: no cell failed, yet its exercises are blank"
    assert all(e.startswith("✘ ") for e in errors), [e[:120] for e in errors if not e.startswith("✘ ")]
    assert not noisy, f"{name}: errors a blank notebook shows with a traceback:\n" + "\n\n".join(noisy)
    assert not warnings, f"{name}: printed into the notebook on stderr:\n" + "\n".join(warnings)
    assert not walls, f"{name}: outputs longer than {LONGEST_OUTPUT} characters:\n" + "\n".join(walls)


one_class_per_notebook(BlankNotebook, RELEASES, globals())
