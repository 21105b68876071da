"""The grading kernel's jail: what a container runtime does to a container's first process, done to a kernel.

:func:`confine` is called by the process that is about to become a grading kernel, after
:func:`autograder.sandbox.enter` has put it under its resource limits and in its cgroup; it returns in
the kernel only. Both ways of starting a kernel call it: the sandbox process before it ``exec``\\ s
``ipykernel``, and a child of the worker's zygote before it runs ``ipykernel`` in place (a kernel forked
from the zygote is confined by the same code as a plain one).

Three processes::

    P  the caller, outside every new namespace: it writes the new user namespace's uid and gid maps
       (the one step that must be done from outside), then waits and exits with the kernel's status;
    A  in the new namespaces: it forwards interrupts to the kernel and waits for it;
    K  the kernel, process 1 of its PID namespace: it builds its root, then gives up its privileges
       for good before it runs any code of the notebook.

What K is when the notebook's code runs:

- **a uid that owns nothing** (:func:`identity`): as root, a uid of its own (``KERNEL_UID_BASE`` + the
  sandbox's pid, in no passwd file); as an ordinary account with subordinate ids (``/etc/subuid`` and
  ``newuidmap``), one of those; otherwise (no subordinate ids) the grader's own uid, mapped to root in
  the kernel's user namespace, with no capability. Either way it is never uid 0 of the host, so the
  kernel-wide settings under ``/proc/sys`` (whose check is "uid 0 of the host") are out of its reach;
- **in every namespace of its own**: user, mount, PID, network, IPC, UTS, cgroup and time;
- **in a root of allowed paths only** (:data:`MOUNT_SCRIPT`), read-only but for a tmpfs home of
  ``--disk-mb`` (files that are open but unlinked and inodes count there), a private ``/tmp`` and
  ``/dev/shm``, and its socket folder; ``/proc/sys``, ``/proc/sysrq-trigger``, ``/proc/kcore`` and their
  kin are read-only or masked, as runc does, and its boot_id is one of its own; every mount is ``nosuid`` and
  ``nodev``;
- **with no capability**: bounding, ambient, effective, permitted and inheritable sets emptied;
- **with** ``no_new_privs`` **and a seccomp filter** (:func:`syscall_filter`) that denies mount, umount,
  unshare, setns, pivot_root, chroot, keyctl, bpf, userfaultfd, io_uring, ptrace, process_vm_*,
  perf_event_open, kexec, module loading, the clock and swap, clone with any namespace flag, and sockets of the
  families a network namespace does not confine (vsock reaches the host or the hypervisor).

Without namespaces (where user namespaces are refused, or ``--no-isolation``), root still hands the
kernel a uid of its own, and every kernel still gets ``no_new_privs`` and the seccomp filter.
"""
from __future__ import annotations

import ctypes
import errno
import functools
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

try:
    import pyseccomp
except (ImportError, OSError, RuntimeError) as _err:  # libseccomp missing: the grader says so (sandbox.confinement)
    pyseccomp = None
    SECCOMP_PROBLEM = f"no seccomp filter (libseccomp could not be loaded: {_err})"
else:
    SECCOMP_PROBLEM = ""

_libc = ctypes.CDLL(None, use_errno=True)

CLONE_NEWTIME, CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS = 0x80, 0x20000, 0x2000000, 0x4000000
CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x8000000, 0x10000000, 0x20000000, 0x40000000
NAMESPACES = (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
              | CLONE_NEWCGROUP | CLONE_NEWTIME)
#: the kernel's own uid when the grader is root: this plus the sandbox's pid (pids stay below 2**22)
KERNEL_UID_BASE = 2_000_000_000
KERNEL_HOSTNAME = "grading"
#: where the kernel's home (its tmpfs of --disk-mb: HOME, TMPDIR, working folder) is inside its root
JAIL_HOME = "/home/student"
FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)

_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE, _PR_CAPBSET_DROP, _PR_SET_NO_NEW_PRIVS, _PR_CAP_AMBIENT = 1, 4, 24, 38, 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_SYS_CAPSET = {"x86_64": 126, "aarch64": 91}


@dataclass(frozen=True)
class Identity:
    """Who the kernel is: its uid and gid inside its user namespace, and how they map to the host."""

    inner_id: int        # the kernel's uid and gid inside (1: an id of its own; 0: the grader's, with no capability)
    host_id: int         # what that is on the host
    uid_map: str         # "inside outside count" lines, for /proc/PID/uid_map (or newuidmap's arguments)
    gid_map: str
    helper: bool         # the maps are written by newuidmap/newgidmap (an ordinary account's subordinate ids)
    grader_id: int       # the grader's uid

    @property
    def own_uid(self) -> bool:
        """True when the kernel's uid on the host is not the grader's."""
        return self.host_id != self.grader_id


def _subordinate(path: str, user: str, uid: int) -> tuple[int, int] | None:
    """(start, count) of the account's first range in /etc/subuid or /etc/subgid."""
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.strip().split(":")
        if len(parts) == 3 and parts[0] in (user, str(uid)) and parts[1].isdigit() and parts[2].isdigit():
            if int(parts[2]) >= 2:
                return int(parts[1]), int(parts[2])
    return None


def unreachable_python() -> str:
    """'' when a uid that owns nothing can run this Python outside a jail, else the folder it cannot enter."""
    import sys

    for path in sorted({Path(sys.executable).resolve(), Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()}):
        for folder in [path, *path.parents] if path.is_dir() else list(path.parents):
            try:
                if not folder.stat().st_mode & 0o001:
                    return str(folder)
            except OSError:
                return str(folder)
    return ""


def _subordinate_identity(slot: int) -> Identity | None:
    """An ordinary account's identity for a kernel from its subordinate ids, where it has them and newuidmap."""
    uid, gid = os.getuid(), os.getgid()
    if not (shutil.which("newuidmap") and shutil.which("newgidmap")):
        return None
    try:
        user = pwd.getpwuid(uid).pw_name
    except KeyError:
        user = str(uid)
    subuid, subgid = _subordinate("/etc/subuid", user, uid), _subordinate("/etc/subgid", user, gid)
    if not (subuid and subgid):
        return None
    own_uid = subuid[0] + 1 + slot % (subuid[1] - 1)
    own_gid = subgid[0] + 1 + slot % (subgid[1] - 1)
    return Identity(1, own_uid, f"0 {uid} 1\n1 {own_uid} 1", f"0 {gid} 1\n1 {own_gid} 1", True, uid)


def identity(slot: int, isolate: bool = True, subordinate: bool = True) -> Identity:
    """The kernel's identity for the sandbox whose pid is ``slot`` (kernels of one batch get different ids).

    ``subordinate``: an ordinary account's kernels may take its subordinate ids (:func:`subordinate_problem`).
    """
    uid, gid = os.getuid(), os.getgid()
    if os.geteuid() == 0:
        own = KERNEL_UID_BASE + slot
        return Identity(1, own, f"0 0 1\n1 {own} 1", f"0 0 1\n1 {own} 1", False, 0)
    chosen = _subordinate_identity(slot) if isolate and subordinate else None
    return chosen or Identity(0, uid, f"0 {uid} 1", f"0 {gid} 1", False, uid)


def try_subordinate_ids() -> str:
    """'' when this account's kernels can take its subordinate ids here, else why not (tries once, for real)."""
    if os.geteuid() == 0:
        return "root gives kernels a uid of their own"
    who = _subordinate_identity(0)
    if who is None:
        return "no subordinate uids (no range in /etc/subuid, or newuidmap is not installed)"
    ready_r, ready_w = os.pipe()
    child = os.fork()
    if child == 0:  # a user namespace, held until the maps are written (or not)
        os.close(ready_r)
        code = 0
        try:
            _unshare(CLONE_NEWUSER)
        except OSError:
            code = 1
        os.write(ready_w, b"u")
        time.sleep(5)
        os._exit(code)
    os.close(ready_w)
    try:
        os.read(ready_r, 1)
        _write_maps(child, who)
        return ""
    except subprocess.CalledProcessError as err:
        said = (err.stderr or b"").decode(errors="replace").strip().splitlines()
        return f"{err.cmd[0]} refused this account's subordinate uids here ({said[-1] if said else err.returncode})"
    except (OSError, subprocess.SubprocessError) as err:
        return f"this account's subordinate uids could not be mapped here ({err})"
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)


@functools.lru_cache(maxsize=1)
def subordinate_problem() -> str:
    """:func:`try_subordinate_ids`, in a process of its own (the grader itself never forks for it); cached."""
    code = "import sys\nfrom autograder import jail\nsys.stdout.write(jail.try_subordinate_ids())\n"
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as err:
        return f"subordinate uids could not be tried ({err})"
    if proc.returncode != 0:
        return f"subordinate uids could not be tried ({proc.stderr[-200:]})"
    return proc.stdout.strip()


@dataclass(frozen=True)
class Plan:
    """What :func:`confine` builds: from :func:`autograder.sandbox.enter`."""

    isolate: bool
    who: Identity
    kernel_dir: Path          # the grader's folder for this kernel (sockets/, requests/, connection.json)
    home: Path                # the kernel's home as the kernel sees it
    mount_args: list[str]     # the arguments of MOUNT_SCRIPT (isolated only)
    seed_files: dict[str, bytes]  # files put into the kernel's home before it starts (name -> bytes)
    processes: int            # RLIMIT_NPROC for the kernel's own uid
    own_output: bool          # stdout and stderr into a file in the kernel's home


# Run by K, in its new namespaces, as root of its user namespace: build a new root that holds only what the
# kernel may see (an allow-list) and pivot into it. The new root: the Python installation, the environment
# and course_lib, read-only; the system's libraries (/usr, /lib ...) and a few files of /etc, read-only; the
# kernel's socket folder, writable; the grader's request folder, read-only; the kernel's home, a tmpfs of
# --disk-mb; a private /tmp and /dev/shm; a /dev of null, zero, full, random, urandom and tty (and the GPUs'
# devices when there are some); a /proc of the new PID namespace, with the kernel-wide files read-only or
# masked. Every mount is nosuid and nodev.
MOUNT_SCRIPT = r"""
set -e
PATH="$PATH:/usr/sbin:/sbin"  # pivot_root lives there, off an ordinary account's PATH
stage="$1"; keep="$2"; tmp_mb="$3"; sockets="$4"; requests="$5"; home="$6"; disk_mb="$7"; inodes="$8"; kid="$9"
mount -t tmpfs -o size=16m,mode=755,nosuid,nodev none "$stage"
mkdir -p "$stage/tmp"
mount -t tmpfs -o "size=${tmp_mb}m,mode=1777,nosuid,nodev" none "$stage/tmp"
old_ifs="$IFS"; IFS=:
for path in $keep; do
    if [ -L "$path" ]; then
        mkdir -p "$stage$(dirname "$path")"; ln -s "$(readlink "$path")" "$stage$path"
    elif [ -d "$path" ]; then
        mkdir -p "$stage$path"; mount --rbind "$path" "$stage$path"
        mount -o remount,bind,ro,nosuid,nodev "$stage$path"
    elif [ -e "$path" ]; then
        mkdir -p "$stage$(dirname "$path")"; touch "$stage$path"
        mount --bind "$path" "$stage$path"; mount -o remount,bind,ro,nosuid,nodev "$stage$path"
    fi
done
IFS="$old_ifs"
mkdir -p "$stage$sockets" "$stage$requests" "$stage$home"
mount --bind "$sockets" "$stage$sockets"; mount -o remount,bind,nosuid,nodev,noexec "$stage$sockets"
mount --bind "$requests" "$stage$requests"; mount -o remount,bind,ro,nosuid,nodev,noexec "$stage$requests"
mount -t tmpfs -o "size=${disk_mb}m,nr_inodes=${inodes},mode=700,uid=${kid},gid=${kid},nosuid,nodev" none "$stage$home"
mkdir "$stage/dev"
mount -t tmpfs -o size=64k,mode=755,nosuid none "$stage/dev"
for dev in /dev/null /dev/zero /dev/full /dev/random /dev/urandom /dev/tty /dev/nvidia*; do
    if [ -c "$dev" ]; then touch "$stage$dev"; mount --bind "$dev" "$stage$dev"; fi
done
mkdir "$stage/dev/shm"
mount -t tmpfs -o "size=${tmp_mb}m,mode=1777,nosuid,nodev" none "$stage/dev/shm"
ln -s /proc/self/fd "$stage/dev/fd"
ln -s /proc/self/fd/0 "$stage/dev/stdin"
ln -s /proc/self/fd/1 "$stage/dev/stdout"
ln -s /proc/self/fd/2 "$stage/dev/stderr"
mkdir "$stage/proc"
mount -t proc -o nosuid,nodev,noexec proc "$stage/proc"
for file in kcore keys timer_list sched_debug latency_stats timer_stats sysrq-trigger kallsyms kmsg config.gz; do
    if [ -e "$stage/proc/$file" ]; then mount --bind /dev/null "$stage/proc/$file"; fi
done
for folder in acpi scsi asound; do
    if [ -d "$stage/proc/$folder" ]; then mount -t tmpfs -o ro,size=0,nosuid,nodev,noexec none "$stage/proc/$folder"; fi
done
for folder in sys bus fs irq; do
    if [ -d "$stage/proc/$folder" ]; then
        mount --bind "$stage/proc/$folder" "$stage/proc/$folder"
        mount -o remount,bind,ro,nosuid,nodev,noexec "$stage/proc/$folder"
    fi
done
if [ -e "$stage/proc/sys/kernel/random/boot_id" ]; then  # the host's identity: a fresh one of the kernel's own
    cat /proc/sys/kernel/random/uuid > "$stage/.boot_id"
    mount --bind "$stage/.boot_id" "$stage/proc/sys/kernel/random/boot_id"
fi
mkdir "$stage/.old"
cd "$stage"
pivot_root . .old
umount -l /.old
rmdir /.old
mount -o remount,bind,ro,nosuid,nodev /
"""
#: what a kernel's home may hold: inodes (files and folders) at most
HOME_INODES = 16384


def _fail(what: str) -> OSError:
    err = ctypes.get_errno()
    return OSError(err, f"{what}: {os.strerror(err)}")


def _prctl(option: int, *args: int) -> None:
    if _libc.prctl(option, *[ctypes.c_ulong(a) for a in args], *[ctypes.c_ulong(0)] * (4 - len(args))) != 0:
        raise _fail(f"prctl({option})")


def die_with_parent() -> None:
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _unshare(flags: int) -> int:
    """unshare(2); a kernel without time namespaces (before 5.6) is asked without that flag. Returns the flags used."""
    if _libc.unshare(flags) == 0:
        return flags
    if ctypes.get_errno() == errno.EINVAL and flags & CLONE_NEWTIME:
        return _unshare(flags & ~CLONE_NEWTIME)
    raise _fail("unshare")


def _write_maps(pid: int, who: Identity) -> None:
    """The new user namespace's uid and gid maps, written from outside it (the only place they can be)."""
    if who.helper:
        for tool, text in (("newuidmap", who.uid_map), ("newgidmap", who.gid_map)):
            subprocess.run([tool, str(pid), *text.split()], check=True, capture_output=True, timeout=20)
        return
    if os.geteuid() != 0:  # an unprivileged map of one id: setgroups must be denied first
        Path(f"/proc/{pid}/setgroups").write_text("deny")
    Path(f"/proc/{pid}/uid_map").write_text(who.uid_map + "\n")
    Path(f"/proc/{pid}/gid_map").write_text(who.gid_map + "\n")


def _exit_code(status: int) -> int:
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else min(code, 255)


def _wait(pid: int, forward: bool) -> None:
    """Wait for ``pid`` and exit with its status; interrupts are forwarded to it, or ignored."""
    for signum in FORWARDED_SIGNALS:
        signal.signal(signum, (lambda sig, _frame: _send(pid, sig)) if forward else signal.SIG_IGN)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except ChildProcessError:
            os._exit(1)
    os._exit(_exit_code(status))


def _send(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except OSError:
        pass


def confine(plan: Plan) -> None:
    """Become the confined kernel (see the module's docstring). Returns in the kernel only."""
    if not plan.isolate:
        _drop_privileges(plan)
        return
    unshared_r, unshared_w = os.pipe()
    mapped_r, mapped_w = os.pipe()
    child = os.fork()
    if child:  # P
        os.close(unshared_w)
        os.close(mapped_r)
        ok = os.read(unshared_r, 1) == b"u"
        if ok:
            try:
                _write_maps(child, plan.who)
                os.write(mapped_w, b"m")
            except (OSError, subprocess.SubprocessError) as err:
                os.write(2, f"sandbox: the kernel's user namespace could not be mapped ({err})\n".encode())
        os.close(mapped_w)
        _wait(child, forward=False)
    # A
    os.close(unshared_r)
    os.close(mapped_w)
    die_with_parent()
    try:
        _unshare(NAMESPACES)
    except OSError as err:
        os.write(2, f"sandbox: {err}\n".encode())
        os._exit(1)
    os.write(unshared_w, b"u")
    os.close(unshared_w)
    if os.read(mapped_r, 1) != b"m":
        os._exit(1)
    os.close(mapped_r)
    kernel = os.fork()  # the first process of the new PID and time namespaces
    if kernel:
        _wait(kernel, forward=True)
    # K
    die_with_parent()
    os.setsid()  # its own process group: interrupts reach it through A, once each
    subprocess.run(["sh", "-c", MOUNT_SCRIPT, "sandbox", *plan.mount_args], check=True)
    socket.sethostname(KERNEL_HOSTNAME)
    _drop_privileges(plan)


def _seed_home(plan: Plan) -> None:
    """The files the kernel starts with in its home (its connection file, caches), owned by the kernel."""
    owner = plan.who.inner_id if plan.isolate else plan.who.host_id
    chown = os.geteuid() == 0
    if chown and not plan.isolate:
        os.chown(plan.home, owner, owner)
    for name, data in plan.seed_files.items():
        path = plan.home / name
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if chown:
            os.chown(path, owner, owner)
            if path.parent != plan.home:
                os.chown(path.parent, owner, owner)


def _redirect_output(home: Path) -> None:
    output = os.open(home / ".kernel-output.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
    for target in (1, 2):
        os.dup2(output, target)
    os.close(output)


def _drop_privileges(plan: Plan) -> None:
    """The kernel's identity, no capability, no new privileges, the seccomp filter: for good."""
    import resource
    import sys

    who = plan.who
    target = who.inner_id if plan.isolate else who.host_id
    _seed_home(plan)
    if os.geteuid() == 0:
        try:
            os.setgroups([])
        except OSError:
            pass  # setgroups denied in an ordinary account's namespace: its groups stay
        for cap in range(64):
            if _libc.prctl(_PR_CAPBSET_DROP, ctypes.c_ulong(cap), 0, 0, 0) != 0 and ctypes.get_errno() == errno.EINVAL:
                break  # past the last capability this kernel knows
        _libc.prctl(_PR_CAP_AMBIENT, ctypes.c_ulong(_PR_CAP_AMBIENT_CLEAR_ALL), 0, 0, 0)
        if target != 0:
            # with an account's subordinate uid the kernel keeps the account's group, so that the grader (not root)
            # may connect to the sockets the kernel binds (group-writable); root connects to any socket
            group = 0 if who.helper else target
            os.setresgid(group, group, group)
            os.setresuid(target, target, target)
            if who.helper:
                os.umask(0o002)
    _clear_capabilities()
    if plan.own_output:
        _redirect_output(plan.home)
    if who.own_uid:  # RLIMIT_NPROC counts the kernel's own uid: exactly its processes
        resource.setrlimit(resource.RLIMIT_NPROC, (plan.processes + 1, plan.processes + 1))
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)
    if pyseccomp is not None:
        syscall_filter().load()
    die_with_parent()  # a change of uid clears it
    # the change of uid also made the process undumpable: its /proc files would not be its own (exec resets it)
    _prctl(_PR_SET_DUMPABLE, 1)
    sys.stdout.flush()


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _clear_capabilities() -> None:
    """Empty the effective, permitted and inheritable sets (capset(2), version 3)."""
    header = _CapHeader(0x20080522, 0)
    data = (_CapData * 2)()
    number = _SYS_CAPSET.get(os.uname().machine)
    if number is None or _libc.syscall(number, ctypes.byref(header), data) != 0:
        raise _fail("capset")


#: what the kernel may not call (the seccomp filter answers EPERM): what container runtimes deny
DENIED_SYSCALLS = (
    "mount", "umount", "umount2", "pivot_root", "chroot", "unshare", "setns", "fsopen", "fsconfig", "fsmount",
    "fspick", "move_mount", "open_tree", "mount_setattr", "keyctl", "add_key", "request_key", "bpf",
    "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register", "ptrace", "process_vm_readv",
    "process_vm_writev", "perf_event_open", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "name_to_handle_at", "open_by_handle_at", "swapon", "swapoff", "reboot", "syslog", "acct",
    "quotactl", "quotactl_fd", "settimeofday", "clock_settime", "clock_adjtime", "sethostname", "setdomainname",
    "lookup_dcookie", "vhangup", "iopl", "ioperm", "uselib", "ustat", "sysfs", "_sysctl", "nfsservctl",
    "pidfd_getfd", "kcmp",
)
_TIOCSTI, _TIOCLINUX = 0x5412, 0x541C
#: socket families a network namespace does not confine, or that reach kernel code few need: AF_KEY, AF_BLUETOOTH,
#: AF_ALG, AF_VSOCK (the host's and the hypervisor's ports)
DENIED_SOCKET_FAMILIES = (15, 31, 38, 40)


def syscall_filter():
    """The kernel's seccomp filter: everything allowed but :data:`DENIED_SYSCALLS`, namespaces and terminal input."""
    sf = pyseccomp.SyscallFilter(defaction=pyseccomp.ALLOW)
    denied = pyseccomp.ERRNO(errno.EPERM)
    for name in DENIED_SYSCALLS:
        try:
            sf.add_rule(denied, name)
        except (OSError, ValueError, RuntimeError):
            continue  # not a system call on this architecture
    for flag in (CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET):
        sf.add_rule(denied, "clone", pyseccomp.Arg(0, pyseccomp.MASKED_EQ, flag, flag))
    sf.add_rule(pyseccomp.ERRNO(errno.ENOSYS), "clone3")  # its flags cannot be read: libc falls back to clone
    for request in (_TIOCSTI, _TIOCLINUX):
        sf.add_rule(denied, "ioctl", pyseccomp.Arg(1, pyseccomp.EQ, request))
    for family in DENIED_SOCKET_FAMILIES:  # not in the kernel's network namespace: vsock reaches the host or hypervisor
        sf.add_rule(pyseccomp.ERRNO(errno.EAFNOSUPPORT), "socket", pyseccomp.Arg(0, pyseccomp.EQ, family))
    return sf
