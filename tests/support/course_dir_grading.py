"""A course directory's submissions, and `python -m autograder grade` over them as the instructor runs it.

The grade runs in a process of its own: a grader's pool forked from a test process that runs threads (an xdist
worker's, Chromium's drivers, an earlier test's server) may inherit a lock held at the fork and hang.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import nbformat

from autograder import course

STAMP = "2026-11-20 10:00:00.000000 UTC"
#: the grader's command line, the course's sources perhaps taken from another folder (a changed check)
GRADE = """
import sys
from pathlib import Path
from autograder import __main__ as cli, course
if sys.argv[1]:
    course.SOURCES = Path(sys.argv[1])
sys.exit(cli.main(sys.argv[2:]))
"""


def submit(course_dir: Path, name: str, student: str, nb: nbformat.NotebookNode | str) -> None:
    """A submission as nbgrader's collect leaves it: the notebook (or raw text), its timestamp and secret."""
    folder = course_dir / "submitted" / student / name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.ipynb"
    path.write_text(nb, encoding="utf-8") if isinstance(nb, str) else nbformat.write(nb, path)
    (folder / "timestamp.txt").write_text(STAMP, encoding="utf-8")
    (folder / "submission_secret.txt").write_text(f"secret-of-{student}", encoding="utf-8")


def grade_course(course_dir: Path, name: str, *options: str, sources: Path | None = None, out: Path | None = None,
                 expect_failure: bool = False) -> dict[str, SimpleNamespace]:
    """Grade COURSE_DIR/submitted (20 s a cell, 300 s a submission, 2 jobs); the results by student, from
    results.json (with ``expect_failure``: {"output": what the failed command said})."""
    argv = ["grade", name, str(course_dir / "submitted"), "--jobs", "2", "--timeout", "20", "--wall-seconds", "300",
            *options, *(["--out", str(out)] if out else [])]
    proc = subprocess.run([sys.executable, "-c", GRADE, str(sources or ""), *argv], capture_output=True, text=True,
                          env=course.nbgrader_env(), timeout=600)
    if expect_failure:
        assert proc.returncode != 0, proc.stdout
        return {"output": SimpleNamespace(text=proc.stdout + proc.stderr)}
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = json.loads(((out or course_dir / "autograder" / name) / "results.json").read_text(encoding="utf-8"))
    return {row["student_id"]: SimpleNamespace(**row) for row in rows}
