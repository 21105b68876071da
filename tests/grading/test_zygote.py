"""Kernels forked from a zygote: the same sandbox, the same grades, a fraction of the start-up.

The grader's workers start their kernels by forking a process that has imported torch already
(``autograder.zygote``). These tests start one the way a worker does and run code through the
sandbox command both ways, plain (exec) and forked, and check that what the code sees is the same:
limits, isolation, a fresh process's random generators, its own folder. Then they grade the same
submissions both ways and compare every grade and verdict.
"""
from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

from autograder import cells, jail, sandbox, zygote
from autograder.grade import grade
from notebook_runner import REPO

ISOLATED = not sandbox.isolation_problem()
MEMORY_MB = 3000


@pytest.fixture(scope="module")
def running_zygote():
    folder = Path(tempfile.mkdtemp(prefix="cgz-"))
    zyg = zygote.Zygote(folder / "z.sock", ["torch"])
    assert zyg.ready(), "the zygote did not start"
    yield zyg
    zyg.stop()


def sandbox_command(kdir: Path, pid_dir: Path, code: str, zygote_socket: Path | None = None) -> list[str]:
    return [sys.executable, "-m", "autograder.sandbox", "--memory-mb", str(MEMORY_MB), "--processes", "64",
            "--file-mb", "7", "--isolate", "on" if ISOLATED else "off",
            "--pid-dir", str(pid_dir), "--kernel-dir", str(kdir),
            *(["--zygote-socket", str(zygote_socket)] if zygote_socket else []), "--", sys.executable, "-c", code]


def run_code(code: str, start: str, running_zygote, shell: bool = False):
    """Run ``code`` as the sandbox's kernel would run; (stdout, stderr, kernel folder)."""
    kdir = Path(tempfile.mkdtemp(prefix="cgk-"))
    pid_dir = Path(tempfile.mkdtemp(prefix="cgp-"))
    command = sandbox_command(kdir, pid_dir, code, running_zygote.socket_path if start == "fork" else None)
    if shell:  # started by a shell: a grandchild of the zygote's parent
        command = ["sh", "-c", shlex.join(command) + "; true"]  # `; true`: the shell cannot exec it
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
    sandbox.stop_kernels(pid_dir, kdir)
    return proc.stdout, proc.stderr, kdir.resolve()


PROBE = r"""
import json, os, resource, sys, tempfile
report = {"preloaded_torch": "torch" in sys.modules, "ppid": os.getppid(), "cwd": os.getcwd(),
          "home": os.environ["HOME"], "tmp": tempfile.gettempdir(), "path0": sys.path[:1],
          "memory": resource.getrlimit(resource.RLIMIT_AS)[0]}
import random, numpy, torch
report["torch_rand"] = torch.rand(3).tolist()
report["random"] = random.random()
report["numpy"] = float(numpy.random.rand())
try:
    open("/var/tmp/course-zygote-escape", "w").write("x")
    report["wrote_outside"] = True
except OSError:
    report["wrote_outside"] = False
hidden = sys.argv[1] if len(sys.argv) > 1 else ""
report["hidden_listing"] = sorted(os.listdir(hidden)) if hidden and os.path.isdir(hidden) else None
try:
    import socket
    socket.create_connection(("127.0.0.1", int(os.environ.get("COURSE_TEST_PORT", "9"))), timeout=2).close()
    report["network"] = True
except OSError:
    report["network"] = False
try:
    with open(f"/proc/{os.getppid()}/mem", "rb") as memory:  # the zygote's, when forked
        report["parent_memory"] = True
except OSError:
    report["parent_memory"] = False
print(json.dumps(report))
"""


def probe(start: str, running_zygote, hide: Path, port: int) -> tuple[dict, str]:
    code = f"import sys; sys.argv[1:] = [{str(hide)!r}]\nimport os; os.environ['COURSE_TEST_PORT'] = '{port}'\n" + PROBE
    out, err, kdir = run_code(code, start, running_zygote)
    assert out.strip(), err
    return json.loads(out.strip().splitlines()[-1]), str(kdir)


@pytest.fixture(scope="module")
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    yield server.getsockname()[1]
    server.close()


@pytest.mark.parametrize("start", ["plain", "fork"])
def test_the_kernel_sees_the_same_sandbox_either_way(start, running_zygote, listener, tmp_path):
    secret = tmp_path / "hidden"
    secret.mkdir()
    (secret / "solution.ipynb").write_text("{}")
    report, kdir = probe(start, running_zygote, secret, listener)
    assert report["preloaded_torch"] == (start == "fork")
    if not ISOLATED:  # isolated, the kernel is the first process of its own PID namespace
        assert (report["ppid"] == running_zygote.process.pid) == (start == "fork")
    else:
        assert report["ppid"] == 0
    home = jail.JAIL_HOME if ISOLATED else str(Path(kdir) / "home")  # a tmpfs of --disk-mb where isolated
    assert report["cwd"] == home and report["home"] == home and report["tmp"] == home
    assert report["memory"] == MEMORY_MB << 20
    assert "/" not in report["path0"], "the zygote's own folder is on the kernel's sys.path"
    if ISOLATED:
        assert report["wrote_outside"] is False
        assert report["network"] is False, "the kernel reached a port of the grading machine"
        assert report["hidden_listing"] is None, report["hidden_listing"]  # not there at all
        if start == "fork":  # what the next kernels start from cannot be read or changed
            assert report["parent_memory"] is False
    assert not Path("/var/tmp/course-zygote-escape").exists()


def test_every_forked_kernel_seeds_its_generators_afresh(running_zygote, listener, tmp_path):
    """As two new Pythons would: torch, random and NumPy draw differently in two kernels of one zygote."""
    first, _ = probe("fork", running_zygote, tmp_path, listener)
    second, _ = probe("fork", running_zygote, tmp_path, listener)
    for generator in ("torch_rand", "random", "numpy"):
        assert first[generator] != second[generator], generator


def test_a_process_that_is_not_the_workers_child_is_refused(running_zygote):
    """Only the worker's own children may ask for a kernel; anyone else gets a plain one (or none)."""
    out, err, _ = run_code("import os, sys; print(os.getppid(), 'torch' in sys.modules)", "fork", running_zygote,
                           shell=True)
    ppid, preloaded = out.split()
    assert int(ppid) != running_zygote.process.pid and preloaded == "False"
    assert "starting it here" in err
    assert running_zygote.process.poll() is None, "a refused request stopped the zygote"


def test_an_interrupt_reaches_the_forked_kernel(running_zygote):
    kdir, pid_dir = Path(tempfile.mkdtemp(prefix="cgk-")), Path(tempfile.mkdtemp(prefix="cgp-"))
    # 'ready' is printed inside the try: an interrupt that arrives before sleep starts is still caught
    code = ("import time\ntry:\n    print('ready', flush=True)\n    time.sleep(60)\n"
            "except KeyboardInterrupt:\n    print('interrupted', flush=True)\n")
    proc = subprocess.Popen(sandbox_command(kdir, pid_dir, code, running_zygote.socket_path), stdout=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        os.killpg(proc.pid, signal.SIGINT)  # as jupyter_client interrupts a kernel
        assert proc.stdout.readline().strip() == "interrupted"
        assert proc.wait(timeout=30) == 0  # the stand-in exits with the kernel
    finally:
        proc.kill()
        sandbox.stop_kernels(pid_dir, kdir)


def test_the_stand_in_exits_when_the_kernel_is_killed(running_zygote):
    out, _, _ = run_code("import os, signal\nprint(os.getpid(), flush=True)\nos.kill(os.getpid(), signal.SIGKILL)",
                         "fork", running_zygote)
    assert out.strip().isdigit()  # and run_code returned: the stand-in did not wait for anything else


def test_preloading_takes_only_modules_that_do_not_look_for_a_kernel():
    names = zygote.third_party_imports(["course_lib.checks:self_attention", "ipywidgets", "torch"])
    assert "torch" in names and "torch.nn.functional" in names
    assert not [n for n in names if n.startswith(("course_lib", "ipywidgets", "tqdm.auto", "transformers"))]


def test_a_hooked_library_is_left_to_the_kernel_but_its_heavy_imports_are_preloaded():
    names = zygote.third_party_imports(["transformers:BertModel", "tqdm.auto"])
    assert names == list(zygote.HOOKED_LIBRARY_IMPORTS["transformers"])
    # what 07's kernel still imports after the zygote's preloading: transformers and the hooked, nothing heavy
    code = ("import sys\nfrom autograder import zygote\nassert not zygote.preload(sys.argv[1:])\n"
            "before = set(sys.modules)\nfrom transformers import BertModel, AlbertModel, DistilBertModel\n"
            "print(' '.join(sorted(set(sys.modules) - before)))")
    modules = zygote.imports_of(nbformat.read(REPO / "notebooks" / "07_bert.ipynb", as_version=4))
    proc = subprocess.run([sys.executable, "-c", code, *modules], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    left = proc.stdout.split()
    heavy = [m for m in left if m.split(".")[0] in {"torch", "scipy", "sympy", "safetensors", "jinja2", "yaml"}]
    assert "transformers" in left
    assert len(heavy) < 20, heavy  # 1,175 modules of these packages without HOOKED_LIBRARY_IMPORTS


@pytest.mark.parametrize("name", sorted(p.stem for p in (REPO / "notebooks").glob("0*.ipynb")))
def test_preloading_a_course_notebooks_imports_leaves_out_every_kernel_hook(name):
    modules = zygote.imports_of(nbformat.read(REPO / "notebooks" / f"{name}.ipynb", as_version=4))
    code = ("import json, sys\nfrom autograder import zygote\nfailed = zygote.preload(sys.argv[1:])\n"
            "print(json.dumps([failed, zygote.hooked_modules_loaded(), 'torch' in sys.modules]))")
    proc = subprocess.run([sys.executable, "-c", code, *modules], capture_output=True, text=True, timeout=300)
    failed, hooked, torch_loaded = json.loads(proc.stdout.strip().splitlines()[-1])
    assert failed == [] and hooked == [] and torch_loaded


def test_imports_of_reads_the_notebooks_top_level_imports():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("%matplotlib inline\nimport torch, math\nfrom course_lib import viz as v"),
        nbformat.v4.new_code_cell("def later():\n    import scipy\n"),
        nbformat.v4.new_markdown_cell("import nothing"),
        nbformat.v4.new_code_cell("this is not python"),
    ])
    assert zygote.imports_of(nb) == ["torch", "math", "course_lib:viz"]


def _class(folder: Path) -> None:
    source = nbformat.read(REPO / "solutions" / "05_self_attention.ipynb", as_version=4)
    release = nbformat.read(REPO / "notebooks" / "05_self_attention.ipynb", as_version=4)
    answers = cells.answers(source)
    first = next(gid for gid, text in answers.items() if "def " in text)
    kinds = {"solution": answers, "mistake": {**answers, first: answers[first].replace("return ", "return 2 * ", 1)},
             "blank": {}, "exits": {**answers, first: "import os\nos._exit(0)"}}
    for kind, chosen in kinds.items():
        nbformat.write(cells.with_answers(release, chosen), folder / f"{kind}.ipynb")


def test_forked_and_plain_kernels_give_the_same_grades(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    _class(subs)
    runs = {}
    for fork in (True, False):
        results = grade("05", subs, tmp_path / f"out-{fork}", jobs=2, fork_kernels=fork)
        runs[fork] = [{k: v for k, v in vars(r).items() if k not in ("seconds", "slowest_cell")} for r in results]
    assert runs[True] == runs[False]
    by_student = {r["student_id"]: r for r in runs[True]}
    assert by_student["solution"]["score"] > by_student["mistake"]["score"] > by_student["blank"]["score"]
    exits = by_student["exits"]  # it keeps what it earned before its kernel stopped: here nothing
    assert exits["status"] == "graded" and exits["score"] == 0 and "stopped" in exits["reason"], exits
