"""The sandbox's process limit when the grader runs as root: the kernel's own uid, and a cgroup per kernel.

A kernel started by root runs as a uid of its own, so RLIMIT_NPROC counts exactly its processes; it also
gets its own cgroup (``pids.max`` = 3 + ``--processes``: the sandbox, the process that waits outside the
kernel's namespaces, the kernel and N more): a fork past the limit fails with EAGAIN, and the grader kills
every process in the cgroup (children that left the kernel's process group too) and removes it.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest

from autograder import cgroups, jail, sandbox
from autograder.sandbox import Limits
from running_processes import running

REPO = Path(__file__).resolve().parents[2]

AS_ROOT = os.geteuid() == 0
needs_cgroup = pytest.mark.skipif(not AS_ROOT or bool(AS_ROOT and cgroups.problem()),
                                  reason="needs root and a cgroup per kernel: "
                                         + (cgroups.problem() if AS_ROOT else "not root"))
#: without its jail, a root kernel runs as a uid that owns nothing: it must be able to run this Python where it is
UNJAILED = "Python cannot be run by other users here" if AS_ROOT and jail.unreachable_python() else ""

#: starts up to 500 detached `sleep 30` (each in its own session: out of the kernel's process group)
SPAWN = (
    "import subprocess\nkids = []\ntry:\n    for _ in range(500):\n"
    "        kids.append(subprocess.Popen(['sleep', '30'], start_new_session=True, stdout=subprocess.DEVNULL,\n"
    "                                     stderr=subprocess.DEVNULL))\n"
    "except OSError as err:\n    print('refused', len(kids), repr(err))\nelse:\n    print('started', len(kids))\n"
    "print('pids', *[k.pid for k in kids])\n"
)


def run_sandbox(kdir: Path, pid_dir: Path, processes: int, isolate: str, code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder.sandbox", "--memory-mb", "2048",
                           "--processes", str(processes), "--file-mb", "7", "--isolate", isolate,
                           "--cgroup", "on", "--pid-dir", str(pid_dir), "--kernel-dir", str(kdir),
                           "--", sys.executable, "-c", code],
                          capture_output=True, text=True, timeout=120)


def alive(pids: list[int]) -> list[int]:
    """Those of ``pids`` that still run ``sleep`` (zombies and reused pids do not count)."""
    running = []
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        if "\nState:\tZ" not in status and Path(f"/proc/{pid}/comm").read_text().strip() == "sleep":
            running.append(pid)
    return running


@needs_cgroup
@pytest.mark.parametrize("isolate", ["on", "off"])
def test_root_kernel_may_start_20_processes_and_no_more(isolate):
    if isolate == "on" and sandbox.isolation_problem():
        pytest.skip(f"the kernel cannot be isolated here ({sandbox.isolation_problem()})")
    if isolate == "off" and UNJAILED:
        pytest.skip(UNJAILED)
    kdir, pid_dir = Path(tempfile.mkdtemp(prefix="cgk-")), Path(tempfile.mkdtemp(prefix="pids-"))
    try:
        proc = run_sandbox(kdir, pid_dir, 20, isolate, SPAWN)
        first = proc.stdout.splitlines()[0] if proc.stdout else ""
        assert first.startswith("refused 20 BlockingIOError(11,"), proc.stdout[:500] + proc.stderr[-2000:]
        pids = [int(p) for p in proc.stdout.splitlines()[1].split()[1:]]
        [pid_file] = pid_dir.glob("kernel-*.pid")
        folder, *lines = pid_file.read_text().splitlines()
        cgroup = cgroups.KernelCgroup.from_lines(lines)
        assert Path(folder) == kdir.resolve() and cgroup.folders["pids"].name == f"{cgroups.PREFIX}{pid_file.stem[7:]}"
        left = [int(p) for p in (cgroup.folders["pids"] / "cgroup.procs").read_text().split()]
        if isolate == "on":  # the kernel was process 1 of its PID namespace: its exit took them along
            assert left == []
        else:  # detached: the kernel's exit did not take them along; the grader's stop does
            assert len(alive(pids)) == 20 and len(left) == 20
        assert sandbox.stop_kernels(pid_dir, kdir.resolve()) == 1
        assert alive(left) == [] and not any(folder.exists() for folder in cgroup.folders.values())
    finally:
        sandbox.stop_kernels(pid_dir, kdir.resolve())
        subprocess.run(["rm", "-rf", str(kdir), str(pid_dir)])


@needs_cgroup
def test_isolated_root_kernel_cannot_reach_the_cgroups():
    if sandbox.isolation_problem():
        pytest.skip(f"the kernel cannot be isolated here ({sandbox.isolation_problem()})")
    mounts = sorted({str(point) for point, _, _ in cgroups.mounts()} | {"/sys/fs/cgroup"})
    code = f"import os\nprint([p for p in {mounts!r} if os.path.isdir(p) and os.listdir(p)])\n"
    kdir, pid_dir = Path(tempfile.mkdtemp(prefix="cgk-")), Path(tempfile.mkdtemp(prefix="pids-"))
    try:
        proc = run_sandbox(kdir, pid_dir, 20, "on", code)
        assert proc.stdout.strip() == "[]", proc.stdout + proc.stderr[-2000:]
    finally:
        sandbox.stop_kernels(pid_dir, kdir.resolve())
        subprocess.run(["rm", "-rf", str(kdir), str(pid_dir)])


@needs_cgroup
@pytest.mark.skipif(bool(UNJAILED), reason=UNJAILED)
def test_fork_past_the_limit_fails_inside_the_kernel_not_the_kernel():
    code = ("import os\nkids = 0\nfor _ in range(500):\n    try:\n        pid = os.fork()\n"
            "    except OSError as err:\n        print('refused', kids, err.errno)\n        break\n"
            "    if pid == 0:\n        import time; time.sleep(2); os._exit(0)\n    kids += 1\nprint('still here')\n")
    kdir, pid_dir = Path(tempfile.mkdtemp(prefix="cgk-")), Path(tempfile.mkdtemp(prefix="pids-"))
    try:
        proc = run_sandbox(kdir, pid_dir, 20, "off", code)
        assert proc.stdout.split("\n")[:2] == ["refused 20 11", "still here"], proc.stdout + proc.stderr[-2000:]
    finally:
        sandbox.stop_kernels(pid_dir, kdir.resolve())
        subprocess.run(["rm", "-rf", str(kdir), str(pid_dir)])


@needs_cgroup
def test_a_stale_cgroup_of_the_same_name_is_replaced():
    """A grader that died leaves its kernels' cgroups; a later sandbox with the same pid takes the name over."""
    name = f"{cgroups.PREFIX}test-{os.getpid()}"
    stale, _ = cgroups.make(name, 1 << 30, 5)
    sleeper = subprocess.Popen(["sleep", "30"])
    stale.join(sleeper.pid)
    fresh, missing = cgroups.make(name, 1 << 30, 7)
    try:
        assert missing == [] and fresh.folders == stale.folders
        assert (fresh.folders["pids"] / "pids.max").read_text().strip() == "7"
        assert sleeper.wait(timeout=10) == -9  # what was left in it is gone
    finally:
        fresh.kill_and_remove()
    assert not any(folder.exists() for folder in fresh.folders.values())


def test_kernelspec_asks_for_a_cgroup_only_where_one_works(tmp_path):
    sandbox.install_kernel(tmp_path, Limits(processes=20), tmp_path / "pids")
    argv = json.loads((tmp_path / "kernels" / sandbox.KERNEL_NAME / "kernel.json").read_text())["argv"]
    wanted = "on" if AS_ROOT and not cgroups.problem() else "off"
    assert argv[argv.index("--cgroup") + 1] == wanted
    assert argv[argv.index("--processes") + 1] == "20"


def test_a_cgroup_that_cannot_be_made_leaves_the_kernel_running(tmp_path):
    """No cgroup file system (a container, another user): the kernel still starts, with a note why."""
    code = "print('ran')"
    proc = subprocess.run([sys.executable, "-c",
                           "import sys, autograder.cgroups as c, autograder.sandbox as s\n"
                           "c.parents = lambda: {}\n"
                           "s.main(sys.argv[1:])\n",
                           "--memory-mb", "2048", "--processes", "20", "--file-mb", "7",
                           "--isolate", "off" if sandbox.isolation_problem() else "on",
                           "--cgroup", "on", "--pid-dir", str(tmp_path), "--kernel-dir", str(tmp_path / "k"),
                           "--", sys.executable, "-c", code],
                          capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "ran", proc.stderr[-2000:]
    if AS_ROOT:
        assert "no cgroup limit for memory" in proc.stderr
    [pid_file] = tmp_path.glob("kernel-*.pid")
    assert pid_file.read_text().splitlines() == [str((tmp_path / "k").resolve())]


def running_with(mark: str) -> dict[int, str]:
    """Processes whose command line holds ``mark``: pid -> command line."""
    return running(lambda entry: mark.encode() in (entry / "cmdline").read_bytes())


def left_after_killing(parent: subprocess.Popen, mark: str, seconds: float) -> dict[int, str]:
    """Kill ``parent`` outright; what still runs with ``mark`` in its command line ``seconds`` later (what dies with
    its parent dies in a chain, which takes a moment on a loaded machine)."""
    parent.kill()
    parent.wait(timeout=10)
    deadline = time.monotonic() + seconds
    while (left := running_with(mark)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def kill_running_with(mark: str) -> None:
    for pid in running_with(mark):
        try:
            os.kill(pid, 9)
        except OSError:
            pass


@pytest.mark.parametrize("isolate", ["on", "off"])
def test_a_grader_killed_outright_takes_its_kernel_with_it(isolate, tmp_path):
    """A grader (or a Dask worker) killed with SIGKILL runs no clean-up: the sandbox, the processes of its jail
    and the kernel must die with it, not wait on as orphans."""
    if isolate == "on" and sandbox.isolation_problem():
        pytest.skip(f"the kernel cannot be isolated here ({sandbox.isolation_problem()})")
    if isolate == "off" and UNJAILED:
        pytest.skip(UNJAILED)
    mark = f"orphan-check-{os.getpid()}-{isolate}"
    cgroup = "on" if AS_ROOT and not cgroups.problem() else "off"
    kernel = [sys.executable, "-c", f"import time\nprint('started', flush=True)\ntime.sleep(60)  # {mark}"]
    sandbox_command = [sys.executable, "-m", "autograder.sandbox", "--memory-mb", "2048", "--processes", "20",
                       "--file-mb", "7", "--isolate", isolate, "--cgroup", cgroup, "--pid-dir", str(tmp_path / "pids"),
                       "--kernel-dir", str(tmp_path / "kernel"), "--", *kernel]
    grader_code = ("import subprocess, sys, time\n"
                   f"subprocess.Popen({sandbox_command!r}, start_new_session=True)\n"  # as jupyter_client does
                   "time.sleep(120)\n")
    grader = subprocess.Popen([sys.executable, "-c", grader_code], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert grader.stdout.readline().strip() == "started", "the kernel did not start"
        assert running_with(mark), "no process of the sandbox was seen"
        left = left_after_killing(grader, mark, 10)
        assert left == {}, f"still running 10 s after their grader was killed: {left}"
    finally:
        grader.kill()
        kill_running_with(mark)
        sandbox.stop_kernels(tmp_path / "pids", (tmp_path / "kernel").resolve())


def test_a_batch_killed_outright_leaves_no_process(tmp_path):
    """``autograder grade`` killed with SIGKILL mid-batch: its pool's workers, their zygotes, the sandboxes and the
    kernels all die with it (the workers would otherwise wait for work for ever, each holding its zygote)."""
    subs, run_dir = tmp_path / "submissions", tmp_path / "run"
    mark = str(tmp_path)  # in the command line of every process of the batch (its workers', its submissions folder)
    subs.mkdir()
    run_dir.mkdir()
    slow = nbformat.read(REPO / "solutions" / "05_self_attention.ipynb", as_version=4)
    slow.cells.append(nbformat.v4.new_code_cell("import time\ntime.sleep(60)"))  # still grading when it is killed
    for student in ("ann", "bob", "cat"):
        nbformat.write(slow, subs / f"{student}.ipynb")
    env = {**os.environ, "TMPDIR": str(run_dir), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    batch = subprocess.Popen([sys.executable, "-m", "autograder", "grade", "05_self_attention", str(subs),
                              "--out", str(tmp_path / "out"), "--jobs", "2"], cwd=REPO, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        # until a submission's kernel runs (its worker's zygote too, unless a loaded machine made it late)
        while not any("autograder.sandbox" in c for c in running_with(mark).values()):
            assert batch.poll() is None and time.monotonic() < deadline, "no kernel started"
            time.sleep(0.2)
        left = left_after_killing(batch, mark, 20)
        assert left == {}, f"still running 20 s after the batch was killed: {left}"
    finally:
        batch.kill()
        kill_running_with(mark)
