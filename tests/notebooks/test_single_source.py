"""notebooks/ and solutions/*.ipynb are built from solutions/src and committed without outputs."""
import json
import subprocess
import sys

import pytest

from notebook_runner import REPO


def test_committed_notebooks_match_their_source():
    proc = subprocess.run([sys.executable, "-m", "autograder", "build", "--check"], cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("path", sorted((REPO / "notebooks").glob("*.ipynb")) + sorted((REPO / "solutions").glob("*.ipynb")),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_outputs_or_execution_counts_committed(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None


def test_student_notebooks_hold_no_solutions_or_hidden_tests():
    for path in (REPO / "notebooks").glob("*.ipynb"):
        text = path.read_text(encoding="utf-8")
        for marker in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "Model answer (instructors only)"):
            assert marker not in text, f"{path.name} contains {marker!r}"
