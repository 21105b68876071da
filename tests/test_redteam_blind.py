"""The blind red team's attacks on notebook 05, graded in one batch with a blank and a wrong-answer control.

``tests/redteam_blind/`` was written by a tester who read only the README and the student's notebook,
never the grader: forgeries of marks, reads of secrets (canary files, the instructors' source notebook,
the environment), signals to other processes, persistence, and resource exhaustion. Its runner plants
the canaries, grades, and says for each attack whether anything got out, with the evidence.
"""
import json
import os
import subprocess
import sys

import pytest

from autograder.sandbox import isolation_problem
from notebook_runner import REPO

pytestmark = [pytest.mark.pipeline,
              pytest.mark.skipif(os.geteuid() != 0 or bool(isolation_problem()),
                                 reason="the runner plants canaries in /root and needs the isolated sandbox")]

#: attacks that are not contained, by design, with the reason (README: "What is not contained")
ACCEPTED = {
    "f11_stash_switched_off": "it keeps a PyTorch function from before the check switches it off and calls that: "
                              "the switch-off runs in the student's kernel, a teaching aid and not a boundary",
}


def test_every_blind_attack_is_contained(tmp_path):
    proc = subprocess.run([sys.executable, str(REPO / "tests" / "redteam_blind" / "run_attacks.py"), "--repo", str(REPO),
                           "--out", str(tmp_path), "--python", sys.executable], capture_output=True, text=True,
                          timeout=1200)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    verdicts = json.loads((tmp_path / "verdicts.json").read_text())
    assert len(verdicts) >= 30
    escaped = {v["attack"]: v["evidence"] for v in verdicts if v["result"] != "CONTAINED"}
    assert set(escaped) <= set(ACCEPTED), escaped
