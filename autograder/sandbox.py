"""Limits for student code: the Jupyter kernel that autograding starts, wrapped.

While grading, nbgrader starts the kernel ``course-sandbox`` (written by :func:`install_kernel`),
whose command is this module::

    python -m autograder.sandbox --memory-mb M --processes N --file-mb F --tmp-mb T --cpu-seconds C \
        --isolate on --pids-cgroup on --pid-dir P --kernel-dir K --own-output [--zygote-socket S] \
        -- python -m ipykernel_launcher -f CONNECTION_FILE

The grader writes that command line for each submission (:func:`kernel_argv`, :func:`for_submission`):
its kernel's own folder ``K``, and the socket of the worker's zygote (:mod:`autograder.zygote`) when it has one.

It sets the limits on itself and then *becomes* the kernel (``exec``), so every limit holds
for the student's code and anything it starts:

- memory: ``RLIMIT_AS`` (address space); an allocation past it raises ``MemoryError`` in the cell;
- CPU time: ``RLIMIT_CPU``; past it the kernel is killed;
- processes: ``RLIMIT_NPROC``, as this many processes/threads beyond what the user already runs.
  Linux does not enforce it for root, so a kernel started by root (``--pids-cgroup on``) also gets
  its own pids cgroup (``pids.max``: itself and this many more processes/threads; cgroup v1's
  pids hierarchy or cgroup v2 with the pids controller), where a fork past the limit fails with
  EAGAIN (``BlockingIOError`` in the cell). Where root cannot make such a cgroup,
  :func:`pids_cgroup_problem` says why and a root kernel has no process limit;
- file size: ``RLIMIT_FSIZE``; writing past it raises ``OSError`` (EFBIG);
- isolation: new user, mount, network and PID namespaces and a root that holds only what the
  kernel may see (``_MOUNT_SCRIPT``: an allow-list, not a list of things to hide); the kernel is
  process 1 of its PID namespace, so everything it starts dies with it. Where those namespaces are
  not allowed, :func:`isolation_problem` says why and the kernel runs with the limits only;
- the environment: only :data:`KERNEL_VARIABLES` are inherited; with ``--own-output`` (the grader's
  kernels), stdout and stderr go to a file in the kernel's folder;
- the pid file lets the grader stop the kernel and its children (the kernel leads its own
  process group; with a pids cgroup, every process in it, those that left the group too) when a
  submission runs past its wall-clock limit, and after it.
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
import time
from dataclasses import dataclass
from pathlib import Path

from . import handover

KERNEL_NAME = "course-sandbox"
CGROUP_PREFIX = "course-kernel-"  # a kernel's pids cgroup: CGROUP_PREFIX + the sandbox's pid


@dataclass(frozen=True)
class Limits:
    """What student code may use; every default can be changed on the command line."""

    cell_timeout: int | None = None   # seconds per cell (None: the notebook's own cell_timeout)
    wall_seconds: int = 600           # seconds for a whole submission (kernel start to last cell)
    memory_mb: int = 4096             # address space of the kernel (torch + the course import in ~0.8 GB)
    processes: int = 64               # new processes/threads the kernel may start
    file_mb: int = 256                # largest file the kernel may write
    disk_mb: int = 512                # everything the kernel may write into its own folder
    tmp_mb: int = 64                  # its private /tmp (and /dev/shm)
    cpu_seconds: int = 300            # CPU time of the kernel process
    isolate: bool = True              # no network, no other process, a root of allowed paths only


@functools.lru_cache(maxsize=1)
def isolation_problem() -> str:
    """'' when the kernel can be isolated here (``unshare -rnm``), else one sentence saying why not."""
    if any(shutil.which(tool, path=TOOL_PATH) is None for tool in ("unshare", "mount", "pivot_root")):
        return "the unshare, mount and pivot_root commands (util-linux) are not installed"
    try:
        stage = _stage([])
        probe = f"mount -t tmpfs none {stage} && mkdir {stage}/proc && mount -t proc proc {stage}/proc && unshare -rm true"
        proc = subprocess.run(["unshare", "-rnm", "--pid", "--fork", "--", "sh", "-c", probe],
                              capture_output=True, text=True, timeout=20, env={**os.environ, "PATH": TOOL_PATH})
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"unshare failed ({err})"
    if proc.returncode != 0:
        return f"user, mount, network and PID namespaces are not allowed here ({proc.stderr.strip()[:120]})"
    return ""


def cgroup_mounts() -> list[tuple[Path, str, str]]:
    """(mount point, file system type, options) of every cgroup (v1) and cgroup2 mount this process sees."""
    mounts = []
    try:
        lines = Path("/proc/self/mountinfo").read_text(encoding="utf-8").splitlines()
    except OSError:
        return mounts
    for line in lines:
        fields = line.split()
        if " - " not in line or len(fields) < 5:
            continue
        after = line.split(" - ", 1)[1].split()
        if after and after[0] in ("cgroup", "cgroup2"):
            point = fields[4].replace("\\040", " ")
            mounts.append((Path(point), after[0], after[2] if len(after) > 2 else ""))
    return mounts


def _pids_roots() -> list[Path]:
    """Folders in which a cgroup gets a ``pids.max``: cgroup v1's pids hierarchy, cgroup v2 with the pids controller."""
    roots = []
    for point, kind, options in cgroup_mounts():
        if kind == "cgroup" and "pids" in options.split(","):
            roots.append(point)
        elif kind == "cgroup2":
            try:
                if "pids" in (point / "cgroup.controllers").read_text().split():
                    roots.append(point)
            except OSError:
                continue
    return roots


def make_pids_cgroup(name: str, max_tasks: int) -> Path:
    """A new cgroup ``name`` that holds at most ``max_tasks`` processes and threads (root only); OSError if none can be made."""
    problem: OSError = FileNotFoundError("no cgroup file system with the pids controller is mounted")
    for root in _pids_roots():
        cgroup = root / name
        try:
            if cgroup.exists():  # left by a sandbox that had our pid and died with the grader: stale
                remove_cgroup(cgroup)
            cgroup.mkdir()
        except OSError as err:
            problem = err
            continue
        try:
            if not (cgroup / "pids.max").exists():  # cgroup v2: the parent must hand the controller down
                (root / "cgroup.subtree_control").write_text("+pids")
            (cgroup / "pids.max").write_text(str(max_tasks))
            return cgroup
        except OSError as err:
            problem = err
            remove_cgroup(cgroup)
    raise problem


def remove_cgroup(cgroup: Path) -> None:
    """Kill every process in the cgroup, then remove it (its processes can no longer escape: they are many at most)."""
    for _ in range(200):
        try:
            (cgroup / "cgroup.kill").write_text("1")  # cgroup v2, 5.14+: all at once
        except OSError:
            pass
        try:
            pids = [int(pid) for pid in (cgroup / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return  # gone already
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            cgroup.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.02)  # the killed ones are still exiting


@functools.lru_cache(maxsize=1)
def pids_cgroup_problem() -> str:
    """'' when a kernel started by this user (root) can get its own pids cgroup, else one sentence saying why not."""
    try:
        cgroup = make_pids_cgroup(f"course-probe-{os.getpid()}", 1)
    except OSError as err:
        return f"root cannot make a pids cgroup here ({err})"
    code = ("import os, sys\nopen(sys.argv[1], 'w').write(str(os.getpid()))\ntry:\n    pid = os.fork()\n"
            "except BlockingIOError:\n    sys.exit(0)\nif pid == 0:\n    os._exit(0)\nsys.exit(3)\n")
    try:
        proc = subprocess.run([sys.executable, "-I", "-S", "-c", code, str(cgroup / "cgroup.procs")],
                              capture_output=True, text=True, timeout=30)
        if proc.returncode != 0:
            return f"a pids cgroup did not stop a fork here ({proc.stderr.strip()[-120:] or proc.returncode})"
        return ""
    except (OSError, subprocess.SubprocessError) as err:
        return f"a pids cgroup could not be tried here ({err})"
    finally:
        remove_cgroup(cgroup)


def kernel_argv(limits: Limits, pid_dir: Path) -> tuple[list[str], bool]:
    """The sandbox kernel's command line for these limits, and whether its kernels are isolated."""
    isolate = limits.isolate and not isolation_problem()
    argv = [
        sys.executable, "-m", "autograder.sandbox",
        "--memory-mb", str(limits.memory_mb), "--processes", str(limits.processes),
        "--file-mb", str(limits.file_mb), "--tmp-mb", str(limits.tmp_mb), "--cpu-seconds", str(limits.cpu_seconds),
        "--isolate", "on" if isolate else "off",
        "--pids-cgroup", "on" if os.geteuid() == 0 and not pids_cgroup_problem() else "off",
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


def kernel_config(isolated: bool, kernel_dir: Path) -> dict:
    """nbgrader settings that route execution through the sandbox kernel, its connection file in ``kernel_dir``."""
    config = {"Execute": {"kernel_name": KERNEL_NAME},
              "KernelManager": {"connection_file": str(kernel_dir / "connection.json")}}
    if isolated:  # TCP on 127.0.0.1 cannot cross network namespaces; Unix sockets can
        config["KernelManager"].update(transport="ipc", ip=str(kernel_dir / "k"))
    return config


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


def apply_limits(memory_mb: int, processes: int, file_mb: int, cpu_seconds: int = 0) -> None:
    _limit(resource.RLIMIT_AS, memory_mb << 20)
    if cpu_seconds:
        _limit(resource.RLIMIT_CPU, cpu_seconds)
    _limit(resource.RLIMIT_NPROC, _user_tasks() + processes)
    _limit(resource.RLIMIT_FSIZE, file_mb << 20)
    _limit(resource.RLIMIT_CORE, 0)


# Run inside new user, mount, network and PID namespaces, before the kernel starts: build a new root
# that holds only what the kernel may see (an allow-list), pivot into it, then enter a nested user
# namespace so that the kernel cannot undo these mounts (they are locked). The new root: the Python
# installation, the environment and course_lib, read-only; the system's libraries (/usr, /lib ...) and a
# few files of /etc, read-only; the kernel's own folder, writable; a private /tmp and /dev/shm of capped
# size; a /dev of null, zero, full, random, urandom and tty (and the GPUs' devices when there are some);
# a /proc of the new PID namespace, where no other process is. Nothing else exists there.
_MOUNT_SCRIPT = r"""
set -e
PATH="$PATH:/usr/sbin:/sbin"  # pivot_root lives there, off an ordinary account's PATH
kdir="$1"; stage="$2"; keep="$3"; tmp_mb="$4"
while [ "$1" != "--" ]; do shift; done
shift
mount -t tmpfs -o size=16m,mode=755 none "$stage"
mkdir -p "$stage/tmp"
mount -t tmpfs -o "size=${tmp_mb}m,mode=1777" none "$stage/tmp"
old_ifs="$IFS"; IFS=:
for path in $keep; do
    if [ -L "$path" ]; then
        mkdir -p "$stage$(dirname "$path")"; ln -s "$(readlink "$path")" "$stage$path"
    elif [ -d "$path" ]; then
        mkdir -p "$stage$path"; mount --rbind "$path" "$stage$path"; mount -o remount,bind,ro "$stage$path"
    elif [ -e "$path" ]; then
        mkdir -p "$stage$(dirname "$path")"; touch "$stage$path"
        mount --bind "$path" "$stage$path"; mount -o remount,bind,ro "$stage$path"
    fi
done
IFS="$old_ifs"
mkdir -p "$stage$kdir"
mount --bind "$kdir" "$stage$kdir"
mkdir "$stage/dev"
mount -t tmpfs -o size=64k,mode=755 none "$stage/dev"
for dev in /dev/null /dev/zero /dev/full /dev/random /dev/urandom /dev/tty /dev/nvidia*; do
    if [ -c "$dev" ]; then touch "$stage$dev"; mount --bind "$dev" "$stage$dev"; fi
done
mkdir "$stage/dev/shm"
mount -t tmpfs -o "size=${tmp_mb}m,mode=1777" none "$stage/dev/shm"
ln -s /proc/self/fd "$stage/dev/fd"
ln -s /proc/self/fd/0 "$stage/dev/stdin"; ln -s /proc/self/fd/1 "$stage/dev/stdout"; ln -s /proc/self/fd/2 "$stage/dev/stderr"
mkdir "$stage/proc"
mount -t proc -o nosuid,nodev,noexec proc "$stage/proc"
mkdir "$stage/.old"
cd "$stage"
pivot_root . .old
umount -l /.old
rmdir /.old
mount -o remount,bind,ro /
cd "$kdir"
exec unshare -rm -- "$@"
"""

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
                    "MKL_NUM_THREADS", "COURSE_DEVICE", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "CUDA_VISIBLE_DEVICES",
                    "MPLBACKEND", "JPY_PARENT_PID", "JPY_SESSION_NAME", "PYDEVD_DISABLE_FILE_VALIDATION")


def inherited_environment() -> dict[str, str]:
    """The variables of this process that a kernel (or the zygote it forks from) may have."""
    return {k: v for k, v in os.environ.items() if k in KERNEL_VARIABLES or k.startswith("LC_")}


def _private_home(kdir: Path) -> dict[str, str]:
    """HOME, TMPDIR and tool caches inside the kernel's own folder (the only writable place)."""
    env = inherited_environment()
    mpl = kdir / "matplotlib"
    mpl.mkdir(exist_ok=True)
    old = os.environ.get("MPLCONFIGDIR")
    if old and Path(old).is_dir():  # reuse the font cache: rebuilding it costs seconds
        for cache in Path(old).glob("fontlist*.json"):
            shutil.copy(cache, mpl / cache.name)
    env.update(HOME=str(kdir), TMPDIR=str(kdir), MPLCONFIGDIR=str(mpl), IPYTHONDIR=str(kdir / "ipython"))
    return env


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
    parser.add_argument("--tmp-mb", type=int, default=64, help="size of the kernel's private /tmp and /dev/shm")
    parser.add_argument("--cpu-seconds", type=int, default=0, help="CPU time the kernel may use (0: no limit)")
    parser.add_argument("--isolate", choices=("on", "off"), default="on",
                        help="namespaces: no network, no other process, a root of allowed paths only")
    parser.add_argument("--pids-cgroup", choices=("on", "off"), default="off",
                        help="started as root: a pids cgroup of its own, so that --processes holds")
    parser.add_argument("--pid-dir", type=Path, required=True)
    parser.add_argument("--kernel-dir", type=Path, help="the kernel's own folder: sockets, HOME, TMPDIR (default: a new one)")
    parser.add_argument("--own-output", action="store_true", help="the kernel's stdout and stderr into a file in its folder")
    parser.add_argument("--zygote-socket", type=Path, help="start the kernel from this zygote (autograder.zygote)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    args.command = args.command[1:] if args.command[:1] == ["--"] else args.command
    return args


def enter(args: argparse.Namespace) -> tuple[Path, dict[str, str], list[str] | None]:
    """Put this process under the limits, before it becomes the kernel (both ways of starting one).

    Leads its own process group, joins its pids cgroup (root), writes the pid file, moves into the
    kernel's folder and sets the resource limits. Returns the kernel's folder, its environment, and
    the arguments of ``_MOUNT_SCRIPT`` that isolate it (None when it is not to be isolated).
    """
    if os.getpgid(0) != os.getpid():
        os.setsid()  # the kernel leads its own group: the grader can stop it with all its children
    args.pid_dir.mkdir(parents=True, exist_ok=True)
    # The kernel's folder (the grader makes a fresh one per submission): its sockets, HOME and TMPDIR.
    kdir = Path(args.kernel_dir or tempfile.mkdtemp(prefix="cgk-")).resolve()
    cgroup = None
    if args.pids_cgroup == "on" and os.geteuid() == 0:  # RLIMIT_NPROC does not bind root
        try:
            # itself, the process that waits outside the kernel's PID namespace (isolated), and N more
            cgroup = make_pids_cgroup(f"{CGROUP_PREFIX}{os.getpid()}", 1 + (args.isolate == "on") + args.processes)
            (cgroup / "cgroup.procs").write_text(str(os.getpid()))
        except OSError as err:
            print(f"sandbox: no pids cgroup ({err}): the kernel runs as root without a process limit", file=sys.stderr)
            if cgroup is not None:
                remove_cgroup(cgroup)
            cgroup = None
    # the pid file: the kernel's folder, and its pids cgroup when it has one
    (args.pid_dir / f"kernel-{os.getpid()}.pid").write_text(
        str(kdir) + ("" if cgroup is None else f"\n{cgroup}"), encoding="utf-8")
    env = _private_home(kdir)
    os.chdir(kdir)
    if args.own_output:  # the grader's kernels: stdout and stderr into their own file, not its log
        output = os.open(kdir / "kernel-output.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        for target in (1, 2):
            os.dup2(output, target)
        os.close(output)
    apply_limits(args.memory_mb, args.processes, args.file_mb, args.cpu_seconds)
    if args.isolate != "on":
        return kdir, env, None
    keep = [str(path) for path in _paths_the_kernel_needs(args.command)] + list(SYSTEM_PATHS)
    stage = _stage([kdir, *map(Path, keep)])
    return kdir, env, [str(kdir), stage, ":".join(keep), str(args.tmp_mb)]


_CLONE_NEWNS, _CLONE_NEWUSER, _CLONE_NEWNET, _CLONE_NEWPID = 0x00020000, 0x10000000, 0x40000000, 0x20000000


def _unshare(flags: int) -> None:
    """unshare(2) for this process (it must have one thread), mapping its user to root in a new user namespace."""
    import ctypes

    uid, gid = os.getuid(), os.getgid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(flags) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"unshare: {os.strerror(err)}")
    if flags & _CLONE_NEWUSER:
        Path("/proc/self/setgroups").write_text("deny")
        Path("/proc/self/uid_map").write_text(f"0 {uid} 1")
        Path("/proc/self/gid_map").write_text(f"0 {gid} 1")


def isolate_in_place(mount_args: list[str]) -> None:
    """What ``unshare -rnm --pid --fork`` + ``_MOUNT_SCRIPT`` do for the exec path, done to this (forked, one-thread) process.

    This process stays outside, waits for its child (the kernel, the first process of the new PID
    namespace) and exits with its status; only the child returns from this function.
    """
    _unshare(_CLONE_NEWUSER | _CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWPID)
    pid = os.fork()
    if pid:
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2):
            signal.signal(signum, signal.SIG_IGN)  # they reach the kernel too (same process group)
        _, status = os.waitpid(pid, 0)
        os._exit(min(max(os.waitstatus_to_exitcode(status), 0), 255))
    _die_with_parent()
    # the script's mounts land in this process's mount namespace; its final command is a no-op
    subprocess.run(["sh", "-c", _MOUNT_SCRIPT, "sandbox", *mount_args, "--", "true"], check=True)
    _unshare(_CLONE_NEWUSER | _CLONE_NEWNS)  # a nested user namespace locks those mounts
    os.chdir(mount_args[0])


def _die_with_parent() -> None:
    import ctypes

    ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    command = args.command
    if args.zygote_socket and handover.hand_over(args.zygote_socket, sys.argv[1:] if argv is None else argv, command):
        return  # a kernel forked from the worker's zygote ran, and has exited
    kdir, env, mount_args = enter(args)
    if mount_args is not None:
        command = ["unshare", "-rnm", "--pid", "--fork", "--kill-child", "--", "sh", "-c", _MOUNT_SCRIPT, "sandbox",
                   *mount_args, "--", *command]
    os.execvpe(command[0], command, env)


def stop_kernels(pid_dir: Path, under: Path) -> int:
    """Kill (with their process groups) the kernels started in ``under``; returns how many."""
    stopped = 0
    for pid_file in pid_dir.glob("kernel-*.pid"):
        try:
            lines = pid_file.read_text(encoding="utf-8").splitlines()
            cwd = Path(lines[0])
            pid = int(pid_file.stem.split("-", 1)[1])
        except (OSError, ValueError, IndexError):
            continue
        if cwd != under and under not in cwd.parents:
            continue
        for kill in (os.killpg, os.kill):
            try:
                kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if len(lines) > 1 and Path(lines[1]).name.startswith(CGROUP_PREFIX):
            remove_cgroup(Path(lines[1]))  # with the children that left the process group
        pid_file.unlink(missing_ok=True)
        stopped += 1
    return stopped


if __name__ == "__main__":
    main()
