"""Limits for student code: the Jupyter kernel that autograding starts, wrapped.

While grading, nbgrader starts the kernel ``course-sandbox`` (written by :func:`install_kernel`),
whose command is this module::

    python -m autograder.sandbox --memory-mb M --processes N --file-mb F --disk-mb D --tmp-mb T \
        --cpu-seconds C --isolate on --cgroup on --pid-dir P --kernel-dir K --own-output [--zygote-socket S] \
        -- python -m ipykernel_launcher -f CONNECTION_FILE

The grader writes that command line for each submission (:func:`kernel_argv`, :func:`for_submission`):
its kernel's own folder ``K`` (:func:`make_kernel_dir`), and the socket of the worker's zygote
(:mod:`autograder.zygote`) when it has one.

:func:`enter` puts this process under the limits, and :func:`autograder.jail.confine` into the jail;
then it *becomes* the kernel (``exec``), so every limit holds for the student's code and anything it starts:

- memory: ``RLIMIT_AS`` (address space); an allocation past it raises ``MemoryError`` in the cell; as
  root, also the kernel's cgroup (:mod:`autograder.cgroups`), which counts tmpfs, shared memory and memfd;
- CPU time: ``RLIMIT_CPU`` for the kernel process; as root, the cgroup counts the whole tree's CPU time
  (the grader's watchdog stops the kernel past ``--cpu-seconds``) and lets it use one core at most;
- processes: ``RLIMIT_NPROC``: the kernel's processes and threads, counted for its own uid (as root, or
  with subordinate uids), or beyond what the grading account already runs; as root also ``pids.max``;
- file size: ``RLIMIT_FSIZE``; writing past it raises ``OSError`` (EFBIG);
- disk: the kernel's home is a tmpfs of ``--disk-mb`` (isolated), where open-but-unlinked files and
  inodes count; the grader's watchdog samples the folder where the kernel is not isolated;
- the jail (:mod:`autograder.jail`): a uid that owns nothing, every namespace, a root of allowed paths
  only, no capability, ``no_new_privs`` and a seccomp filter. Where namespaces are not allowed,
  :func:`isolation_problem` says why and the kernel runs with the limits, its own uid (root) and the filter;
- the environment: only :data:`KERNEL_VARIABLES` are inherited; with ``--own-output`` (the grader's
  kernels), stdout and stderr go to a file in the kernel's home;
- the pid file lets the grader stop the kernel and its children (the kernel's process group; with a
  cgroup, every process in it) when a submission runs past its wall-clock limit, and after it.
"""
from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import cgroups, handover, jail, relay

KERNEL_NAME = "course-sandbox"


@dataclass(frozen=True)
class Limits:
    """What student code may use; every default can be changed on the command line."""

    cell_timeout: int | None = None   # seconds per cell (None: calibrated on the instructors' solution)
    wall_seconds: int | None = None   # seconds for a whole submission (None: calibrated on the instructors' solution)
    memory_mb: int = 4096             # address space of the kernel (torch + the course import in ~0.8 GB)
    processes: int = 64               # new processes/threads the kernel may start
    file_mb: int = 256                # largest file the kernel may write
    disk_mb: int = 512                # everything the kernel may write into its home
    tmp_mb: int = 64                  # its private /tmp (and /dev/shm)
    cpu_seconds: int = 300            # CPU time of the kernel (as root: of everything it starts)
    isolate: bool = True              # no network, no other process, a root of allowed paths only
    output_mb: int = 64               # everything the kernel may send the grader; past it the kernel is stopped


@functools.lru_cache(maxsize=1)
def isolation_problem() -> str:
    """'' when the kernel can be isolated here (every namespace type), else one sentence saying why not."""
    if any(shutil.which(tool, path=TOOL_PATH) is None for tool in ("unshare", "mount", "pivot_root")):
        return "the unshare, mount and pivot_root commands (util-linux) are not installed"
    try:
        stage = _stage([])
        probe = (f"mount -t tmpfs none {stage} && mkdir {stage}/proc && mount -t proc proc {stage}/proc"
                 " && unshare -rm true")
        proc = subprocess.run(
            ["unshare", "-rnm", "--ipc", "--uts", "--cgroup", "--pid", "--fork", "--", "sh", "-c", probe],
            capture_output=True, text=True, timeout=20, env={**os.environ, "PATH": TOOL_PATH})
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"unshare failed ({err})"
    if proc.returncode != 0:
        return ("user, mount, network, PID, IPC, UTS and cgroup namespaces are not allowed here"
                f" ({proc.stderr.strip()[:120]})")
    return ""


def refusal(limits: Limits) -> str:
    """'' when kernels can be started under these limits here, else why grading must not start.

    As root, a kernel always runs as a uid of its own, never as root; outside a jail that uid must be able to
    run the Python installation where it is.
    """
    isolated = limits.isolate and not isolation_problem()
    if os.geteuid() == 0 and not isolated and jail.unreachable_python():
        return (f"kernels run as a uid that owns nothing, and without isolation that uid cannot enter "
                f"{jail.unreachable_python()}, where Python is installed: install it where other users can read it "
                "(e.g. /usr/local or /opt), allow user namespaces, or grade as an ordinary account")
    return ""


def confinement(limits: Limits) -> list[str]:
    """One line for each part of the confinement that does not hold here, for the grader to print."""
    notes = []
    if limits.isolate and isolation_problem():
        notes.append(f"kernels are not isolated ({isolation_problem()}): no namespaces, no private root, "
                     "the disk limit is sampled (README, 'What is not contained')")
    if os.geteuid() != 0:
        isolated = limits.isolate and not isolation_problem()
        who = jail.identity(os.getpid(), isolated, not jail.subordinate_problem())
        if not who.own_uid:
            notes.append(f"the kernel runs as this account's own uid, with no capability "
                         f"({jail.subordinate_problem() if isolated else 'not isolated'}): "
                         "it can replace the sockets it binds in its folder")
        notes.append("no cgroup per kernel (only root can make one): memory is limited per process (RLIMIT_AS), "
                     "CPU time per process (RLIMIT_CPU), tmpfs and shared memory count only against their size")
    elif cgroups.problem():
        notes.append(f"no cgroup limit for {cgroups.problem()}")
    if jail.SECCOMP_PROBLEM:
        notes.append(jail.SECCOMP_PROBLEM)
    return notes


def kernel_argv(limits: Limits, pid_dir: Path) -> tuple[list[str], bool]:
    """The sandbox kernel's command line for these limits, and whether its kernels are isolated."""
    isolate = limits.isolate and not isolation_problem()
    argv = [
        sys.executable, "-m", "autograder.sandbox",
        "--memory-mb", str(limits.memory_mb), "--processes", str(limits.processes),
        "--file-mb", str(limits.file_mb), "--disk-mb", str(limits.disk_mb), "--tmp-mb", str(limits.tmp_mb),
        "--cpu-seconds", str(limits.cpu_seconds), "--isolate", "on" if isolate else "off",
        "--cgroup", "on" if os.geteuid() == 0 and not cgroups.problem() else "off",
        "--subordinate", "on" if os.geteuid() != 0 and isolate and not jail.subordinate_problem() else "off",
        "--pid-dir", str(pid_dir), "--",
        sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}",
    ]
    return argv, isolate


def for_submission(argv: list[str], kernel_dir: Path, zygote_socket: Path | None = None) -> list[str]:
    """``argv`` for one submission's kernel: its own folder, its output kept there, its zygote if any."""
    cut = argv.index("--")
    extra = ["--kernel-dir", str(kernel_dir), "--own-output"]
    extra += ["--zygote-socket", str(zygote_socket)] if zygote_socket is not None else []
    return [*argv[:cut], *extra, *argv[cut:]]


def write_kernelspec(jupyter_path: Path, argv: list[str]) -> None:
    """Write the ``course-sandbox`` kernelspec that runs ``argv`` under JUPYTER_PATH ``jupyter_path``."""
    folder = jupyter_path / "kernels" / KERNEL_NAME
    folder.mkdir(parents=True, exist_ok=True)
    spec = {"argv": argv, "display_name": "Python 3 (course sandbox)", "language": "python",
            "metadata": {"debugger": False}}
    (folder / "kernel.json").write_text(json.dumps(spec, indent=1), encoding="utf-8")


def install_kernel(jupyter_path: Path, limits: Limits, pid_dir: Path) -> bool:
    """Write the ``course-sandbox`` kernelspec under JUPYTER_PATH; True when the kernel is isolated."""
    argv, isolate = kernel_argv(limits, pid_dir)
    write_kernelspec(jupyter_path, argv)
    return isolate


# A kernel's folder, made by the grader: the kernel may write only into SOCKETS (until it has bound its
# sockets: :func:`lock_sockets`) and read REQUESTS; the grader writes the connection file and the requests.
SOCKETS, REQUESTS, CONNECTION = "sockets", "requests", "connection.json"


def make_kernel_dir(folder: Path | None = None) -> Path:
    """A kernel's folder (a new one, or ``folder`` completed), as the grader hands it to the sandbox."""
    kdir = Path(folder) if folder is not None else Path(tempfile.mkdtemp(prefix="cgk-"))
    kdir.mkdir(parents=True, exist_ok=True)
    kdir.chmod(0o711)  # the kernel (another uid) passes through to its sockets and the requests; it lists nothing
    (kdir / SOCKETS).mkdir(exist_ok=True)
    (kdir / SOCKETS).chmod(0o777)
    (kdir / REQUESTS).mkdir(exist_ok=True)
    (kdir / REQUESTS).chmod(0o755)
    return kdir.resolve()


def lock_sockets(kernel_dir: Path) -> None:
    """Once the kernel has bound its sockets: it may no longer add, remove or replace anything in their folder."""
    (Path(kernel_dir) / SOCKETS).chmod(0o755)


def unlock_sockets(kernel_dir: Path) -> None:
    """Before a new kernel starts in the folder (the old one stopped): it binds its sockets there again."""
    (Path(kernel_dir) / SOCKETS).chmod(0o777)


def kernel_config(isolated: bool, kernel_dir: Path) -> dict:
    """nbgrader settings that route execution through the sandbox kernel, its connection file in ``kernel_dir``.

    Unix sockets (TCP on 127.0.0.1 cannot cross network namespaces): the grader's client connects to the relay's
    (:mod:`autograder.relay`, in a folder only the grader writes), the kernel binds its own in ``sockets/``
    (:func:`kernel_socket_prefix`; its copy of the connection file says so).
    """
    return {"Execute": {"kernel_name": KERNEL_NAME},
            "KernelManager": {"connection_file": str(kernel_dir / CONNECTION), "transport": "ipc",
                              "ip": str(kernel_dir / relay.RELAY / "k")}}


def kernel_socket_prefix(kernel_dir: Path) -> str:
    """Where the kernel binds its sockets (ZeroMQ adds ``-N`` per channel)."""
    return str(Path(kernel_dir) / SOCKETS / "k")


def _user_tasks() -> int:
    """Processes and threads this user runs now (RLIMIT_NPROC counts both, per user)."""
    uid, count = os.getuid(), 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry.name}/task"))
            except OSError:
                continue
    return count


def _limit(which: int, value: int) -> None:
    soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))


def apply_limits(memory_mb: int, processes: int | None, file_mb: int, cpu_seconds: int = 0) -> None:
    """The resource limits of this process and all it starts (``processes`` None: the kernel's own uid counts them)."""
    _limit(resource.RLIMIT_AS, memory_mb << 20)
    _limit(resource.RLIMIT_DATA, memory_mb << 20)  # the worker's own, lower one is not the kernel's
    if cpu_seconds:
        _limit(resource.RLIMIT_CPU, cpu_seconds)
    if processes is not None:
        _limit(resource.RLIMIT_NPROC, _user_tasks() + processes)
    _limit(resource.RLIMIT_FSIZE, file_mb << 20)
    _limit(resource.RLIMIT_CORE, 0)


#: where the isolation's tools are looked for (pivot_root is in sbin, off an ordinary account's PATH)
TOOL_PATH = os.pathsep.join([os.environ.get("PATH", os.defpath), "/usr/sbin", "/sbin"])
#: what a kernel sees besides the Python environment, course_lib and its own folder (read-only, where present)
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc/ld.so.cache", "/etc/ld.so.conf",
                "/etc/ld.so.conf.d", "/etc/localtime", "/etc/nsswitch.conf", "/etc/passwd", "/etc/group",
                "/sys/devices/system/cpu")
#: where the new root is put together (an existing folder that holds nothing the kernel needs)
STAGES = ("/mnt", "/media", "/srv", "/boot", "/opt", "/home")
#: the only variables a kernel inherits from the grader (its own HOME, TMPDIR ... are added)
KERNEL_VARIABLES = ("PATH", "LANG", "LANGUAGE", "TZ", "PYTHONPATH", "PYTHONHASHSEED", "OMP_NUM_THREADS",
                    "MKL_NUM_THREADS", "COURSE_DEVICE", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE",
                    "CUDA_VISIBLE_DEVICES", "MPLBACKEND", "JPY_PARENT_PID", "JPY_SESSION_NAME",
                    "PYDEVD_DISABLE_FILE_VALIDATION")


def inherited_environment() -> dict[str, str]:
    """The variables of this process that a kernel (or the zygote it forks from) may have."""
    return {k: v for k, v in os.environ.items() if k in KERNEL_VARIABLES or k.startswith("LC_")}


def _home_environment(home: Path) -> dict[str, str]:
    """HOME, TMPDIR and tool caches inside the kernel's home (the only writable place besides /tmp)."""
    env = inherited_environment()
    env.update(HOME=str(home), TMPDIR=str(home), MPLCONFIGDIR=str(home / "matplotlib"),
               IPYTHONDIR=str(home / "ipython"))
    return env


def _font_caches() -> dict[str, bytes]:
    """matplotlib's font cache of the grader, for the kernel's home: rebuilding it costs seconds."""
    folder = os.environ.get("MPLCONFIGDIR")
    caches = {}
    for cache in Path(folder).glob("fontlist*.json") if folder and Path(folder).is_dir() else []:
        try:
            caches[f"matplotlib/{cache.name}"] = cache.read_bytes()
        except OSError:
            continue
    return caches


def _paths_the_kernel_needs(command: list[str]) -> list[Path]:
    """The Python installation, the environment and course_lib itself (not the folder around it)."""
    spec = importlib.util.find_spec("course_lib")
    paths = [Path(sys.prefix), Path(sys.base_prefix), Path(shutil.which(command[0]) or command[0]).parent]
    if spec is not None and spec.origin:
        paths.append(Path(spec.origin).parent)
    paths = sorted({path.resolve() for path in paths})
    return [path for path in paths if not any(other in path.parents for other in paths)]  # outermost only


def _stage(avoid: list[Path]) -> str:
    for folder in STAGES:
        path = Path(folder)
        if path.is_dir() and not path.is_symlink() and not any(path == a or path in a.parents for a in avoid):
            return folder
    raise OSError("no folder to build the kernel's root in (none of " + ", ".join(STAGES) + " is free)")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m autograder.sandbox")
    parser.add_argument("--memory-mb", type=int, required=True)
    parser.add_argument("--processes", type=int, required=True)
    parser.add_argument("--file-mb", type=int, required=True)
    parser.add_argument("--disk-mb", type=int, default=512, help="size of the kernel's home (a tmpfs, isolated)")
    parser.add_argument("--tmp-mb", type=int, default=64, help="size of the kernel's private /tmp and /dev/shm")
    parser.add_argument("--cpu-seconds", type=int, default=0, help="CPU time the kernel may use (0: no limit)")
    parser.add_argument("--isolate", choices=("on", "off"), default="on",
                        help="the jail's namespaces: no network, no other process, a root of allowed paths only")
    parser.add_argument("--cgroup", choices=("on", "off"), default="off",
                        help="started as root: a cgroup of its own (memory, processes, CPU)")
    parser.add_argument("--subordinate", choices=("on", "off"), default="off",
                        help="started by an ordinary account: the kernel takes one of its subordinate uids")
    parser.add_argument("--pid-dir", type=Path, required=True)
    parser.add_argument("--kernel-dir", type=Path, help="the kernel's folder (default: a new one)")
    parser.add_argument("--own-output", action="store_true",
                        help="the kernel's stdout and stderr into a file in its home")
    parser.add_argument("--zygote-socket", type=Path, help="start the kernel from this zygote (autograder.zygote)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    args.command = args.command[1:] if args.command[:1] == ["--"] else args.command
    return args


def _kernel_cgroup(args: argparse.Namespace) -> cgroups.KernelCgroup | None:
    """As root: this process in a cgroup of its own, with the kernel's memory, process and CPU limits."""
    if args.cgroup != "on" or os.geteuid() != 0:
        return None
    memory = (args.memory_mb + args.disk_mb + 2 * args.tmp_mb) << 20  # its processes, its home, /tmp and /dev/shm
    # itself, the two processes that wait outside the kernel (isolated), the kernel and N more
    cgroup, missing = cgroups.make(f"{cgroups.PREFIX}{os.getpid()}", memory, 3 + args.processes)
    if missing:
        print(f"sandbox: no cgroup limit for {'; '.join(missing)}", file=sys.stderr)
    try:
        cgroup.join(os.getpid())
    except OSError as err:
        print(f"sandbox: the kernel could not join its cgroup ({err})", file=sys.stderr)
        cgroup.kill_and_remove()
        return None
    return cgroup if cgroup.folders else None


def enter(args: argparse.Namespace) -> tuple[jail.Plan, list[str], dict[str, str]]:
    """Put this process under the limits, before it becomes the kernel (both ways of starting one).

    Leads its own process group, joins its cgroup (root), writes the pid file, and sets the resource
    limits. Returns the jail's plan for :func:`autograder.jail.confine`, the kernel's command (its
    connection file in its home) and its environment.
    """
    if os.getpgid(0) != os.getpid():
        os.setsid()  # the kernel leads its own group: the grader can stop it with all its children
    args.pid_dir.mkdir(parents=True, exist_ok=True)
    kdir = make_kernel_dir(args.kernel_dir)
    isolate = args.isolate == "on"
    cgroup = _kernel_cgroup(args)
    # the pid file: the kernel's folder, and its cgroup when it has one
    (args.pid_dir / f"kernel-{os.getpid()}.pid").write_text(
        "\n".join([str(kdir), *(cgroup.lines() if cgroup else [])]), encoding="utf-8")
    who = jail.identity(os.getpid(), isolate, args.subordinate == "on")
    home = Path(jail.JAIL_HOME) if isolate else kdir / "home"
    if not isolate:
        home.mkdir(mode=0o700, exist_ok=True)
    seeds = _font_caches()
    command = list(args.command)
    if "-f" in command[:-1]:  # the connection file the grader wrote: the kernel reads its own copy, with its sockets
        connection = json.loads(Path(command[command.index("-f") + 1]).read_text(encoding="utf-8"))
        if connection.get("transport") == "ipc":
            connection["ip"] = kernel_socket_prefix(kdir)
        seeds[CONNECTION] = json.dumps(connection).encode()
        command[command.index("-f") + 1] = str(home / CONNECTION)
    apply_limits(args.memory_mb, None if who.own_uid else args.processes, args.file_mb, args.cpu_seconds)
    mount_args = []
    if isolate:
        keep = [str(path) for path in _paths_the_kernel_needs(command)] + list(SYSTEM_PATHS)
        stage = _stage([kdir, *map(Path, keep)])
        mount_args = [stage, ":".join(keep), str(args.tmp_mb), str(kdir / SOCKETS), str(kdir / REQUESTS), str(home),
                      str(args.disk_mb), str(jail.HOME_INODES), str(who.inner_id)]
    plan = jail.Plan(isolate, who, kdir, home, mount_args, seeds, args.processes, args.own_output)
    return plan, command, _home_environment(home)


def main(argv: list[str] | None = None) -> None:
    # dies with the grader that started it, even one killed outright (its jail's processes die in a chain after
    # it, and a kernel from a zygote dies with the zygote): no kernel outlives its grader
    grader = os.getppid()
    jail.die_with_parent()
    if os.getppid() != grader:  # the grader died before that was set
        sys.exit(1)
    args = parse_args(argv)
    command = args.command
    if args.zygote_socket and handover.hand_over(args.zygote_socket, sys.argv[1:] if argv is None else argv, command):
        return  # a kernel forked from the worker's zygote ran, and has exited
    plan, command, env = enter(args)
    jail.confine(plan)
    os.chdir(plan.home)
    # an interrupt is the kernel's to handle, whatever this process inherited (a grader started in the background
    # by a shell ignores SIGINT, and a new Python keeps an ignored SIGINT ignored)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.execvpe(command[0], command, env)


def stop_kernels(pid_dir: Path, under: Path) -> int:
    """Kill (with their process groups and cgroups) the kernels started in ``under``; returns how many."""
    stopped = 0
    for pid_file in pid_dir.glob("kernel-*.pid"):
        try:
            lines = pid_file.read_text(encoding="utf-8").splitlines()
            kdir = Path(lines[0])
            pid = int(pid_file.stem.split("-", 1)[1])
        except (OSError, ValueError, IndexError):
            continue
        if kdir != under and under not in kdir.parents:
            continue
        for kill in (os.killpg, os.kill):
            try:
                kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        cgroups.KernelCgroup.from_lines(lines[1:]).kill_and_remove()  # with the children that left the group
        pid_file.unlink(missing_ok=True)
        stopped += 1
    return stopped


def kernel_cgroup(pid_dir: Path, kernel_dir: Path) -> cgroups.KernelCgroup | None:
    """The cgroup of the kernel started in ``kernel_dir`` (None before it has started, or without one)."""
    for pid_file in pid_dir.glob("kernel-*.pid"):
        try:
            lines = pid_file.read_text(encoding="utf-8").splitlines()
        except OSError:
            continue
        if lines and Path(lines[0]) == Path(kernel_dir).resolve():
            cgroup = cgroups.KernelCgroup.from_lines(lines[1:])
            return cgroup if cgroup.folders else None
    return None


if __name__ == "__main__":
    main()
