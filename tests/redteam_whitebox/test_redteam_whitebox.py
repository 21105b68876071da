"""The white-box red team's attacks, graded as root and as an ordinary account: nothing may get out.

``tests/redteam_whitebox/`` was written by a tester who read the grader (autograder/, course_lib's
remote_answer, answer_wire, grading): host root through writable /proc/sys values, namespaces the kernel
shares with the host (IPC, UTS, keyrings, cgroups), limits that sample instead of enforce, output the caps
do not see, the grader writing into the kernel's folder, hidden cases read back, pages and files people open,
crashes that should cost one grade, and the jail's gaps (other system-call ABIs, vsock, inherited files). Its
runner plants canaries, grades one batch per notebook (05 and 01), looks at the host, the pages (in headless
Chromium) and the files, puts back what changed, and says per attack ESCAPED or CONTAINED with the evidence,
or NOT RUN: each attack's first cell proves that its code ran, and one without that proof fails the test.

This test fails until the grader contains them all: ACCEPTED lists the escapes that are accepted by design
(none yet), ACCEPTED_AS_ACCOUNT those accepted only where an ordinary account grades (README, "What is not
contained": no cgroup per kernel without root).
"""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from grading_accounts import grading_account

from autograder.sandbox import isolation_problem

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

pytestmark = [pytest.mark.pipeline, pytest.mark.slow,
              pytest.mark.skipif(os.geteuid() != 0 or bool(isolation_problem()),
                                 reason="the runner reads and restores host state as root and needs the isolated sandbox")]

#: attacks that are not contained, by design, with the reason (README: "What is not contained"); none yet
ACCEPTED: dict[str, str] = {}
#: attacks that are not contained when an ordinary account grades, by design (README: "What is not contained": only
#: root can make a cgroup per kernel, so memory and CPU time are limited per process)
ACCEPTED_AS_ACCOUNT: dict[str, str] = {
    "c03_memfd_memory": "no cgroup per kernel without root: memfds count against no limit but the host's memory "
                        "(RLIMIT_AS does not see memory written with write(2) and never mapped)",
    "c04_cpu_in_children": "no cgroup per kernel without root: RLIMIT_CPU is per process, so each child the kernel "
                           "starts has a CPU budget of its own",
    "r01_replay_cpu_twice": "no cgroup per kernel without root: RLIMIT_CPU is per process, so the kernel that runs the "
                            "hidden cases again after a stop has a CPU budget of its own (as root the cgroup's CPU time "
                            "of the first kernel is carried into it)",
}


def _unreadable_repository() -> str:
    """'' when other users can read the repository's code and the venv, else why not."""
    for path in (REPO / "autograder" / "grade.py", REPO / "course_lib" / "__init__.py",
                 REPO / "notebooks" / "05_self_attention.ipynb", Path(sys.executable).parent / "nbgrader"):
        if not path.exists():
            continue
        if not os.stat(path).st_mode & stat.S_IROTH:
            return f"{path} is not readable by other users (use a world-readable checkout)"
        for parent in path.parents:
            if parent == REPO.parent:
                break
            if not os.stat(parent).st_mode & stat.S_IXOTH:
                return f"{parent} cannot be entered by other users (use a world-readable checkout)"
    return ""


@pytest.fixture(params=["root", "account"])
def grader(request):
    """Who grades: root, or an unprivileged account made for the test (what the README recommends)."""
    yield from grading_account(request.param, "rtw", _unreadable_repository())


def test_every_whitebox_attack_is_contained(grader):
    out = Path(tempfile.mkdtemp(prefix="rtwb-"))  # not under pytest's 0700 folders: an account must reach it
    out.chmod(0o755)
    runner = [sys.executable, str(HERE / "run_attacks.py"), "--repo", str(REPO), "--out", str(out),
              "--python", sys.executable]
    if grader:  # the runner shows the account the interpreter's folder itself when it must (view_script)
        runner += ["--as-user", grader]
    try:
        proc = subprocess.run(runner, capture_output=True, text=True, timeout=1500)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        verdicts = json.loads((out / "verdicts.json").read_text())
        assert len(verdicts) >= 54
        for notebook in ("05", "01"):  # the batch was graded, as this account
            line = proc.stdout.split(f"controls {notebook}:", 1)[-1].splitlines()[0]
            assert "blank 0.0, wrong answers 0.0" in line and "lost" not in line, line
        # CONTAINED needs proof that the attack's code ran (its first cell's marker on its page, or its kernel seen):
        # an attack whose code never ran proves nothing, and fails here as NOT RUN (x04 runs no code by design)
        not_run = {v["attack"]: v["evidence"] for v in verdicts if v["result"] == "NOT RUN"}
        assert not not_run, "attacks whose code never ran: " + json.dumps(not_run, indent=1, ensure_ascii=False)
        escaped = {v["attack"]: v["evidence"] for v in verdicts if v["result"] != "CONTAINED"}
        accepted = set(ACCEPTED) | (set(ACCEPTED_AS_ACCOUNT) if grader else set())
        assert set(escaped) <= accepted, json.dumps({k: v for k, v in escaped.items() if k not in accepted}, indent=1,
                                                    ensure_ascii=False)
    finally:
        shutil.rmtree(out, ignore_errors=True)
