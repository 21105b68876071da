"""The instructor's commands that need no grading run: release, feedback, report; and the sandbox's limits."""
import csv
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import nbformat
import pytest
import setuptools

from autograder import report, sandbox
from autograder.__main__ import main
from notebook_runner import REPO


def test_release_is_clean_and_complete(tmp_path):
    out = tmp_path / "bundle"
    assert main(["release", "05", "01", "--out", str(out)]) == 0
    assert (out / "notebooks" / "05_self_attention.ipynb").exists() and (out / "notebooks" / "01_ngrams.ipynb").exists()
    assert (out / "course_lib" / "checks" / "self_attention.py").exists()
    assert not (out / "solutions").exists() and not (out / "tests").exists() and not (out / "autograder" / "grade.py").exists()
    assert (out / "Makefile").exists() and (out / "lab" / "overrides.json").exists()
    assert (out / "lab" / "page_config.json").exists()
    assert (out / "pyproject.toml").read_text() == (REPO / "pyproject.toml").read_text()  # shipped as it is
    found = setuptools.find_packages(out, include=tomllib.loads((out / "pyproject.toml").read_text())
                                     ["tool"]["setuptools"]["packages"]["find"]["include"])
    assert sorted(found) == ["course_lib", "course_lib.checks", "course_lib.grading"]  # the bundle installs course_lib only


def test_release_fails_when_a_solution_leaks(tmp_path, capsys):
    out = tmp_path / "bundle"
    from autograder.release import build_bundle, leaks

    build_bundle(["05_self_attention"], out)
    source = nbformat.read(REPO / "solutions" / "05_self_attention.ipynb", as_version=4)
    nbformat.write(source, out / "notebooks" / "05_self_attention.ipynb")  # the instructors' notebook by mistake
    found = leaks(out)
    assert any("BEGIN HIDDEN TESTS" in f for f in found) and any("hidden test" in f for f in found)
    (out / "notebooks" / "05_self_attention.ipynb").unlink()
    answer = next(c.source for c in source.cells if c.get("id") == "softmax")
    body = answer.split("### BEGIN SOLUTION")[1].split("### END SOLUTION")[0]
    (out / "notebooks" / "notes.py").write_text(body)  # solution code without markers
    assert any("solution of 05_self_attention" in f for f in leaks(out))


def fake_run(folder, assignment="05_self_attention"):
    rows = [
        {"student_id": "ann", "assignment": assignment, "score": 15.0, "max_score": 17.0, "manual_points_pending": 2.0,
         "status": "graded", "reason": "", "cells": {"check_softmax": 2.0, "check_self_attention": 3.0}, "failures": {}},
        {"student_id": "bob", "assignment": assignment, "score": 12.0, "max_score": 17.0, "manual_points_pending": 2.0,
         "status": "graded", "reason": "", "cells": {"check_softmax": 0.0, "check_self_attention": 3.0},
         "failures": {"check_softmax": "softmax: the largest difference is 0.31 (test case: x of shape (3, 4))"}},
        {"student_id": "cy", "assignment": assignment, "score": 12.0, "max_score": 17.0, "manual_points_pending": 2.0,
         "status": "graded", "reason": "", "cells": {"check_softmax": 0.0, "check_self_attention": 3.0},
         "failures": {"check_softmax": "softmax: the largest difference is 2.5 (test case: x of shape (2, 5))"}},
        {"student_id": "dee", "assignment": assignment, "score": 0.0, "max_score": 17.0, "manual_points_pending": 0.0,
         "status": "error", "reason": "the file is empty", "cells": {}, "failures": {}},
    ]
    folder.mkdir()
    (folder / "results.json").write_text(json.dumps(rows))
    return rows


def test_report_writes_lms_csv_markdown_and_plot(tmp_path):
    fake_run(tmp_path / "grades")
    assert main(["report", str(tmp_path / "grades"), "--to", str(tmp_path / "report")]) == 0
    with open(tmp_path / "report" / "lms_grades.csv", newline="") as handle:
        rows = {r["student_id"]: r for r in csv.DictReader(handle)}
    assert rows["ann"]["score"] == "15" and rows["ann"]["max_score"] == "17" and rows["ann"]["percent"] == "88.2"
    assert rows["dee"]["percent"] == "0.0"
    text = (tmp_path / "report" / "report.md").read_text()
    assert "| 2 | check_softmax | softmax: the largest difference is # |" in text  # numbers merged
    assert "dee: the file is empty" in text
    assert (tmp_path / "report" / "05_self_attention.png").read_bytes()[:4] == b"\x89PNG"


def test_feedback_indexes_pages_and_writes_missing_ones(tmp_path):
    fake_run(tmp_path / "grades")
    (tmp_path / "grades" / "feedback").mkdir()
    (tmp_path / "grades" / "feedback" / "ann.html").write_text("<html>ann</html>")
    assert main(["feedback", str(tmp_path / "grades")]) == 0
    index = (tmp_path / "grades" / "feedback" / "index.html").read_text()
    assert all(f"{s}.html" in index for s in ("ann", "bob", "cy", "dee"))
    assert "the file is empty" in (tmp_path / "grades" / "feedback" / "dee.html").read_text()
    assert (tmp_path / "grades" / "feedback" / "ann.html").read_text() == "<html>ann</html>"


def test_mistakes_merge_across_numbers():
    assert report.mistake("x: off by 0.25 (test case: n=3)") == report.mistake("x: off by 1e-3 (test case: n=7)")


def test_torch_and_the_checks_import_under_the_default_memory_limit():
    code = ("import resource; resource.setrlimit(resource.RLIMIT_AS, ({0}, {0}));"
            "import torch, matplotlib, ipykernel; from course_lib.checks import self_attention;"
            "x = torch.randn(512, 512); print(float((x @ x).sum()) == float((x @ x).sum()))").format(
        sandbox.Limits().memory_mb << 20)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "True", proc.stderr[-2000:]


def test_sandbox_limits_are_set_before_the_kernel_starts(tmp_path):
    isolate = "off" if sandbox.isolation_problem() else "on"
    if isolate == "off" and sandbox.refusal(sandbox.Limits(isolate=False)):
        pytest.skip(sandbox.refusal(sandbox.Limits(isolate=False)))
    probe = ("import resource; print(resource.getrlimit(resource.RLIMIT_AS)[0] >> 20,"
             " resource.getrlimit(resource.RLIMIT_FSIZE)[0] >> 20)")
    proc = subprocess.run([sys.executable, "-m", "autograder.sandbox", "--memory-mb", "1500", "--processes", "32",
                           "--file-mb", "7", "--isolate", isolate, "--pid-dir", str(tmp_path), "--kernel-dir", str(tmp_path),
                           "--",
                           sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["1500", "7"], proc.stderr
    assert list(tmp_path.glob("kernel-*.pid"))


@pytest.mark.skipif(bool(sandbox.isolation_problem()), reason="unprivileged user namespaces are not allowed here")
def test_isolated_kernel_has_no_network_and_a_read_only_world(tmp_path):
    kdir, hidden = tmp_path / "kernel", tmp_path / "hidden"
    kdir.mkdir(), hidden.mkdir()
    (hidden / "secret.txt").write_text("secret")
    probe = ("import os, socket\n"
             "try:\n    socket.create_connection(('1.1.1.1', 80), timeout=2); print('net')\n"
             "except OSError:\n    print('no-net')\n"
             f"print('absent' if not os.path.exists({str(hidden)!r}) else os.listdir({str(hidden)!r}))\n"
             "try:\n    open('/written_by_kernel.txt', 'w'); print('wrote')\n"
             "except OSError:\n    print('read-only')\n"
             "open('inside.txt', 'w').write('ok'); print('inside')\n"
             f"try:\n    open({str(REPO / 'written_by_kernel.txt')!r}, 'w')\nexcept OSError:\n    pass\n")
    proc = subprocess.run([sys.executable, "-m", "autograder.sandbox", "--memory-mb", "2048", "--processes", "32",
                           "--file-mb", "7", "--isolate", "on", "--pid-dir", str(tmp_path), "--kernel-dir", str(kdir),
                           "--", sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert proc.stdout.split("\n")[:4] == ["no-net", "absent", "read-only", "inside"], proc.stdout + proc.stderr
    # a clone under /tmp lies in the kernel's private /tmp: what it writes there never reaches this one
    assert not (REPO / "written_by_kernel.txt").exists() and not Path("/written_by_kernel.txt").exists()
    assert not (kdir / "inside.txt").exists()  # its home is a tmpfs of its own, gone with it


@pytest.mark.skipif(bool(sandbox.isolation_problem()) or __import__("os").geteuid() != 0,
                    reason="needs root and unprivileged user namespaces")
def test_a_hidden_folder_inside_another_users_private_home(tmp_path):
    """Root grading `/home/teacher/.../submitted` (0700 home): the kernel starts, and the folder is not in its world."""
    import os

    home, kdir = tmp_path / "home", tmp_path / "kernel"
    hidden = home / "submitted"
    hidden.mkdir(parents=True), kdir.mkdir()
    (hidden / "alice.ipynb").write_text("{}")
    os.chown(home, 12345, 12345)
    os.chmod(home, 0o700)
    probe = f"import os\ntry:\n    print(os.listdir({str(hidden)!r}))\nexcept OSError as e:\n    print(type(e).__name__)\n"
    proc = subprocess.run([sys.executable, "-m", "autograder.sandbox", "--memory-mb", "2048", "--processes", "32",
                           "--file-mb", "7", "--isolate", "on", "--pid-dir", str(tmp_path), "--kernel-dir", str(kdir),
                           "--", sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "FileNotFoundError", proc.stdout + proc.stderr
