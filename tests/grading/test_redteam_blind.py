"""The blind red team's attacks on notebook 05, graded in one batch with a blank and a wrong-answer control.

``tests/grading/redteam_blind/`` was written by a tester who read only the README and the student's notebook,
never the grader: forgeries of marks, reads of secrets (canary files, the instructors' source notebook,
the environment), signals to other processes, persistence, and resource exhaustion. Its runner plants
the canaries, grades, and says for each attack whether anything got out, with the evidence.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from grading_accounts import grading_account
from notebook_runner import REPO
from test_exchange import unreadable_repository, view_script

from autograder.sandbox import isolation_problem

pytestmark = [pytest.mark.pipeline,
              pytest.mark.skipif(os.geteuid() != 0 or bool(isolation_problem()),
                                 reason="the runner plants canaries in /root and needs the isolated sandbox")]

#: attacks that are not contained, by design, with the reason (README: "What is not contained")
ACCEPTED = {
    "f11_stash_switched_off": "it keeps a PyTorch function from before the check switches it off and calls that: "
                              "the switch-off runs in the student's kernel, a teaching aid and not a boundary",
}


@pytest.fixture(params=["root", "account"])
def grader(request):
    """Who grades: root, or an unprivileged account made for the test (what the README recommends)."""
    yield from grading_account(request.param, "rtb", unreadable_repository())


def test_every_blind_attack_is_contained(grader):
    out = Path(tempfile.mkdtemp(prefix="rtblind-"))  # not under pytest's 0700 folders: an account must reach it
    stage = Path(tempfile.mkdtemp(prefix="rtblind-view-"))
    runner = [sys.executable, str(REPO / "tests" / "grading" / "redteam_blind" / "run_attacks.py"), "--repo", str(REPO),
              "--out", str(out), "--python", sys.executable]
    if grader:  # the account grades; where the interpreter lives in a folder it cannot enter, it is shown to it
        view = view_script(stage)
        runner = ["unshare", "--mount", "--propagation", "private", "--", "sh", "-ec", view + '\nexec "$@"', "sh",
                  *runner] if view else runner
        runner += ["--as-user", grader]
    try:
        proc = subprocess.run(runner, capture_output=True, text=True, timeout=1200)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        verdicts = json.loads((out / "verdicts.json").read_text())
        assert len(verdicts) >= 30
        controls = proc.stdout.split("controls:", 1)[-1].splitlines()[0]
        assert "blank 0.0, wrong answers 0.0" in controls, controls  # the batch was graded, as this account
        escaped = {v["attack"]: v["evidence"] for v in verdicts if v["result"] != "CONTAINED"}
        assert set(escaped) <= set(ACCEPTED), escaped
    finally:
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(stage, ignore_errors=True)
