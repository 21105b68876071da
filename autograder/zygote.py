"""A kernel that starts in milliseconds: forked from a process that has imported torch already.

Starting a grading kernel the plain way costs a new Python, ipykernel, and then the notebook's
first cell importing torch and matplotlib: about 2.5 s of CPU per submission, half of what grading
a notebook costs. Each grading worker therefore starts one *zygote*::

    python -m autograder.zygote --socket PATH --preload torch --preload matplotlib.pyplot ...

It imports ipykernel and what the assignment's notebook imports (:func:`imports_of`): the
course's own modules are read, not imported, for the third-party modules they import, and modules
that look for a running kernel when imported (:data:`KERNEL_HOOKED`) are left to the kernel (what
they import that does not, :data:`HOOKED_LIBRARY_IMPORTS`, is imported for them). Then
it waits on a Unix socket. The sandbox kernel command (``python -m autograder.sandbox ... --
python -m ipykernel_launcher -f CONNECTION``, see :mod:`autograder.sandbox`) is given the socket
(``--zygote-socket``) and, instead of becoming the kernel itself, *hands over*
(:func:`autograder.handover.hand_over`): it sends its arguments, environment, working folder and standard streams;
the zygote forks; the child puts itself under exactly the sandbox's limits (the same
:func:`autograder.sandbox.enter`, then :func:`autograder.jail.confine` for the
identity, namespaces, mounts, capabilities and seccomp filter) and only then runs ipykernel. The sandbox process
stays behind as the kernel's stand-in for nbgrader: it forwards signals (interrupts) to the kernel's process group
and exits when the kernel does, so that nbgrader sees a kernel that dies.

What the child has that a new process would not: the zygote's imported modules, as they were
after import (torch's, NumPy's and ``random``'s generators are seeded afresh in every kernel, as a
new process seeds them), and its hash seed. Nothing of the previous student is there: each kernel
is its own fork of the zygote, which never runs student code. The zygote takes requests only from
its worker's own children (``SO_PEERCRED``), its socket lives in the grading run's folder (hidden
from isolated kernels). An isolated kernel cannot ptrace it or read its memory (it has no
capability outside its own user namespace); the zygote is also not dumpable, so neither can a kernel
that runs without isolation as an ordinary user.

Without ``--zygote-socket``, or when the zygote cannot be reached, the sandbox starts the
kernel the plain way: the zygote is a speed-up, never a requirement (``grade --plain-kernels``).
"""
from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from . import jail, sandbox
from .handover import GO, kernel_kind

if TYPE_CHECKING:
    import nbformat

_ALWAYS = ["ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.zmqshell"]
#: Modules that look for the running kernel when they are imported: ipywidgets registers its comm
#: targets, matplotlib-inline its figure display, tqdm.auto picks the notebook progress bar (and
#: transformers and huggingface_hub import tqdm.auto). Imported in the zygote, where there is no
#: kernel yet, they would behave as outside Jupyter in every kernel forked from it, so the kernel
#: imports them itself. The course's own modules import some of these (the training loop's progress
#: bar, the widgets' views): they are read instead, for what else they import.
KERNEL_HOOKED = ("course_lib", "ipywidgets", "matplotlib_inline", "tqdm.auto", "tqdm.autonotebook", "tqdm.notebook",
                 "transformers", "huggingface_hub")
COURSE_PACKAGES = ("course_lib",)
#: What a hooked library imports that looks for no kernel: the zygote imports these in its place, so that
#: the kernel imports little more than the library itself. For the pinned transformers (``python -X
#: importtime``), these are 2.7 s of its 5 s import; what is left is mostly transformers' and
#: huggingface_hub's own modules (and their small HTTP clients).
HOOKED_LIBRARY_IMPORTS = {"transformers": ("torch.distributed.tensor", "torch.distributed.checkpoint", "torch._dynamo",
                                           "scipy.optimize", "sympy", "safetensors.torch", "jinja2", "yaml")}


def _hooked(module: str) -> bool:
    return any(module == name or module.startswith(name + ".") for name in KERNEL_HOOKED)


def imports_of(nb: nbformat.NotebookNode) -> list[str]:
    """Modules (and ``from m import name`` attributes, as ``m:name``) that a notebook's code cells import."""
    found: list[str] = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        lines = [line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!"))]
        try:
            tree = ast.parse("\n".join(lines))
        except SyntaxError:
            continue
        for node in tree.body:  # top-level imports only: those the notebook surely runs
            if isinstance(node, ast.Import):
                found += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found += [f"{node.module}:{alias.name}" for alias in node.names if alias.name != "*"]
    return list(dict.fromkeys(found))


def _source_file(module: str) -> Path | None:
    """Where a module's source is, found without importing it (or its package)."""
    top, *rest = module.split(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.submodule_search_locations:
        return Path(spec.origin) if spec is not None and spec.origin and not rest else None
    folder = Path(spec.origin).parent.joinpath(*rest)
    for path in (folder / "__init__.py", folder.with_suffix(".py")):
        if path.is_file():
            return path
    return None


def _imports_in_source(module: str) -> list[str]:
    """Every module that a module's source imports, anywhere in it (relative imports resolved)."""
    path = _source_file(module)
    if path is None:
        return []
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return []
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            found += [f"{base}:{alias.name}" for alias in node.names if alias.name != "*"] or [base]
    return found


def third_party_imports(names: list[str]) -> list[str]:
    """What of ``names`` the zygote may import: the course's modules replaced by what they import, transitively,
    and a hooked library by its :data:`HOOKED_LIBRARY_IMPORTS`."""
    kept: list[str] = []
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop(0)
        module, _, attribute = name.partition(":")
        if name in seen:
            continue
        seen.add(name)
        if module.split(".")[0] in COURSE_PACKAGES:
            if attribute:  # `from course_lib import viz` may import the module course_lib.viz
                todo.append(f"{module}.{attribute}")
            todo += _imports_in_source(module)
        elif _hooked(module):
            todo += HOOKED_LIBRARY_IMPORTS.get(module.split(".")[0], ())
        else:
            kept.append(name)
    return kept


def preload(names: list[str]) -> list[str]:
    """Import what a kernel will import; returns those that failed (a kernel would fail the same way)."""
    failed = []
    for name in third_party_imports([*_ALWAYS, *names]):
        module, _, attribute = name.partition(":")
        try:
            loaded = importlib.import_module(module)
            if attribute:
                try:
                    importlib.import_module(f"{module}.{attribute}")  # a submodule
                except ImportError:
                    getattr(loaded, attribute)  # or a name (lazy modules load it now)
        except Exception:  # noqa: BLE001 (a module that fails here fails in the kernel, with its message)
            failed.append(name)
    return failed


def hooked_modules_loaded() -> list[str]:
    """Modules of KERNEL_HOOKED that the preloading imported after all (it must not)."""
    return sorted(name for name in sys.modules if _hooked(name))


# -- the worker's side -------------------------------------------------------------------------------


class Zygote:
    """The worker's zygote process: started at once, used once it says it is ready."""

    def __init__(self, socket_path: Path, modules: list[str]):
        self.socket_path = socket_path
        # only what a kernel may inherit: a kernel can read the zygote's first environment (/proc/1/environ)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "autograder.zygote", "--socket", str(socket_path),
             *[arg for name in modules for arg in ("--preload", name)]],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, cwd="/", env=sandbox.inherited_environment())
        self._ready: bool | None = None

    def ready(self, timeout: float = 120) -> bool:
        """True once the zygote listens (waits for it the first time); False if it failed to start."""
        if self._ready is None:
            assert self.process.stdout is not None
            readable, _, _ = select.select([self.process.stdout], [], [], timeout)
            self._ready = bool(readable) and self.process.stdout.readline().strip() == b"ready"
        return self._ready and self.process.poll() is None

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()


# -- the zygote's side -------------------------------------------------------------------------------


def _parent_of(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    """The request of a worker's child: its arguments, environment, folder and standard streams."""
    pid, _, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    fds: list[int] = []
    try:
        if _parent_of(pid) != os.getppid():
            raise PermissionError(f"process {pid} is not one of the grading worker's children")
        data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
        if len(data) < 4 or len(fds) != 3:
            raise ValueError("a request needs its length and three streams")
        (length,) = struct.unpack("!I", data[:4])
        data = data[4:]
        while len(data) < length:
            chunk = conn.recv(length - len(data))
            if not chunk:
                raise ValueError("the request was cut short")
            data += chunk
        return json.loads(data), fds
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise


def _fresh_process_state(start_dir: str) -> None:
    """What a new Python would have that the zygote's fork does not."""
    import random
    import tempfile

    random.seed()
    tempfile.tempdir = None  # TMPDIR is the kernel's folder now
    if sys.path and sys.path[0] in ("", start_dir):
        del sys.path[0]  # the zygote's own folder; the kernel puts its working folder there
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()
    if "torch" in sys.modules:
        torch = sys.modules["torch"]
        torch.seed()  # a new process seeds its default generator at random


def _become(conn: socket.socket, request: dict, fds: list[int], start_dir: str) -> int:
    """In the forked child: the sandbox's limits, then the kernel (or the test code). Returns an exit code."""
    _prctl(_PR_SET_DUMPABLE, 1)  # as any process: its /proc files are its own (uid_map is written there)
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)  # dies with the zygote, as the zygote with its worker (killed or not)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    # an interrupt raises KeyboardInterrupt in the kernel, as in a new Python, whatever the zygote inherited (a
    # grader started in the background by a shell ignores SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    conn.settimeout(30)
    if conn.recv(1) != GO:
        return 1
    conn.close()
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    args = sandbox.parse_args(request["argv"])
    plan, command, env = sandbox.enter(args)
    jail.confine(plan)  # returns in the confined kernel only
    os.environ.clear()
    os.environ.update(env)
    os.chdir(plan.home)
    _fresh_process_state(start_dir)
    if kernel_kind(command) == "code":
        sys.argv = ["-c", *command[3:]]
        exec(compile(command[2], "<string>", "exec"), {"__name__": "__main__"})  # noqa: S102 (tests)
        return 0
    from ipykernel import kernelapp

    sys.argv = ["ipykernel_launcher", *command[3:]]
    if os.environ.get("JPY_PARENT_PID", "").isdigit():  # the class read it when the zygote imported ipykernel
        sys.argv.append(f"--IPKernelApp.parent_handle={os.environ['JPY_PARENT_PID']}")
    kernelapp.launch_new_instance()
    return 0


def _run_child(listener: socket.socket, conn: socket.socket, request: dict, fds: list[int], start_dir: str) -> None:
    import atexit
    import traceback

    code = 1
    try:
        listener.close()
        code = _become(conn, request, fds, start_dir)
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:  # noqa: BLE001 (the child must never return into the zygote's loop)
        traceback.print_exc()
    finally:
        try:
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE = 1, 4


def _prctl(option: int, value: int) -> None:
    import ctypes

    ctypes.CDLL(None).prctl(option, value, 0, 0, 0)


def serve(socket_path: Path, modules: list[str]) -> None:
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)  # dies with its worker
    if os.getppid() == 1:
        return
    # Not dumpable: a kernel of the same (ordinary) user cannot ptrace it or read its memory to
    # change what the next kernels start from.
    _prctl(_PR_SET_DUMPABLE, 0)
    start_dir = sys.path[0] if sys.path else ""
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")  # as ipykernel sets it
    failed = preload(modules)
    if failed:
        print(f"zygote: could not preload {', '.join(failed)}", file=sys.stderr)
    hooked = hooked_modules_loaded()
    if hooked:  # its kernels would miss these modules' hooks: start kernels the plain way
        print(f"zygote: preloading imported {', '.join(hooked)}; not forking kernels", file=sys.stderr)
        sys.exit(1)
    import gc

    gc.freeze()  # the imported modules stay shared with every kernel (copy-on-write)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(socket_path))
    os.chmod(socket_path, 0o600)
    listener.listen(8)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # kernels are reaped as they exit
    print("ready", flush=True)
    while True:
        conn, _ = listener.accept()
        conn.settimeout(10)
        try:
            request, fds = _receive(conn)
        except (OSError, ValueError) as err:
            print(f"zygote: request refused ({err})", file=sys.stderr)
            conn.close()
            continue
        pid = os.fork()
        if pid == 0:
            _run_child(listener, conn, request, fds, start_dir)
        for fd in fds:
            os.close(fd)
        try:
            conn.sendall(f"{pid}\n".encode())
        except OSError:
            pass
        conn.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m autograder.zygote")
    parser.add_argument("--socket", type=Path, required=True)
    parser.add_argument("--preload", action="append", default=[], help="a module (or module:name) to import now")
    args = parser.parse_args(argv)
    serve(args.socket, args.preload)


if __name__ == "__main__":
    main()
