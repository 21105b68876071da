"""The kernel's jail, seen from inside and from the grader: the same for a plain kernel and one forked from the zygote.

Each test runs code the way a grading kernel runs (``python -m autograder.sandbox ... -- python -c CODE``), started
plainly and from a zygote (:mod:`autograder.zygote`), and checks what the README promises: the kernel is never uid
0 of the host, it has no capability, ``no_new_privs`` and a seccomp filter deny what container runtimes deny, every
namespace is its own, the kernel-wide files of /proc are out of reach, its home is a tmpfs of ``--disk-mb`` (files
that are open but unlinked, and inodes, count), its System V shared memory dies with it, and (as root) its cgroup
counts memory a tmpfs or a memfd holds, and CPU time of the whole tree.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from autograder import cgroups, jail, sandbox
from test_zygote import running_zygote  # noqa: F401 (a fixture)

pytestmark = pytest.mark.skipif(bool(sandbox.isolation_problem()),
                                reason=f"the kernel cannot be isolated here ({sandbox.isolation_problem()})")
AS_ROOT = os.geteuid() == 0
STARTS = ["plain", "fork"]


def run_jailed(code: str, start: str, zygote, *, disk_mb: int = 32, memory_mb: int = 2048, tmp_mb: int = 16,
               file_mb: int = 64, cgroup: bool = True, keep: bool = False) -> tuple[subprocess.CompletedProcess, Path, Path]:
    """Run ``code`` as a grading kernel would; (the process, its folder, the pid folder). ``keep``: not stopped yet."""
    kdir, pid_dir = sandbox.make_kernel_dir(), Path(tempfile.mkdtemp(prefix="cgp-"))
    command = [sys.executable, "-m", "autograder.sandbox", "--memory-mb", str(memory_mb), "--processes", "32",
               "--file-mb", str(file_mb), "--disk-mb", str(disk_mb), "--tmp-mb", str(tmp_mb), "--isolate", "on",
               "--cgroup", "on" if cgroup else "off", "--pid-dir", str(pid_dir), "--kernel-dir", str(kdir),
               *(["--zygote-socket", str(zygote.socket_path)] if start == "fork" else []),
               "--", sys.executable, "-c", code]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=180)
    if not keep:
        sandbox.stop_kernels(pid_dir, kdir)
    return proc, kdir, pid_dir


def report_of(proc: subprocess.CompletedProcess) -> dict:
    assert proc.stdout.strip(), proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


PROBE = r"""
import ctypes, errno, json, os, socket
libc = ctypes.CDLL(None, use_errno=True)
status = dict(line.split(":\t", 1) for line in open("/proc/self/status").read().splitlines() if ":\t" in line)
report = {"uid": os.getuid(), "uid_map": open("/proc/self/uid_map").read().split(), "groups": os.getgroups(),
          "caps": [status[k].strip() for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")],
          "no_new_privs": status["NoNewPrivs"].strip(), "seccomp": status["Seccomp"].strip(),
          "hostname": socket.gethostname(),
          "namespaces": {n: os.readlink(f"/proc/self/ns/{n}") for n in sorted(os.listdir("/proc/self/ns"))},
          "processes": sorted(int(p) for p in os.listdir("/proc") if p.isdigit())}
import pyseccomp
arch = pyseccomp.system_arch()
refused = {}
for name in ("mount", "umount2", "unshare", "setns", "pivot_root", "chroot", "keyctl", "bpf", "userfaultfd",
             "io_uring_setup", "ptrace", "process_vm_readv", "perf_event_open", "kexec_load", "init_module",
             "clock_settime", "sethostname"):
    ctypes.set_errno(0)
    result = libc.syscall(pyseccomp.resolve_syscall(arch, name), 0, 0, 0, 0, 0, 0)
    refused[name] = errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno())) if result == -1 else "ran"
ctypes.set_errno(0)
child = libc.syscall(pyseccomp.resolve_syscall(arch, "clone"), 0x10000000 | 17, 0, 0, 0, 0)  # CLONE_NEWUSER | SIGCHLD
if child == 0:
    os._exit(0)  # (only if the filter let it through)
refused["clone(CLONE_NEWUSER)"] = errno.errorcode.get(ctypes.get_errno(), "?") if child == -1 else "ran"
report["refused"] = refused
writable = {}
for path in ("/proc/sys/kernel/core_pattern", "/proc/sys/kernel/hostname", "/proc/sys/vm/drop_caches",
             "/proc/sysrq-trigger", "/etc/passwd", "/usr/bin/env"):
    try:
        open(path, "ab").close()
        writable[path] = True
    except OSError:
        writable[path] = False
report["writable"] = writable
report["kcore"] = open("/proc/kcore", "rb").read(16) if os.path.exists("/proc/kcore") else b""
report["kcore"] = report["kcore"].hex()
print(json.dumps(report))
"""


@pytest.mark.parametrize("start", STARTS)
def test_the_kernel_is_nobody_with_nothing(start, running_zygote):  # noqa: F811
    report = report_of(run_jailed(PROBE, start, running_zygote)[0])
    uid_map = [int(x) for x in report["uid_map"]]
    inside_to_outside = {uid_map[i]: uid_map[i + 1] for i in range(0, len(uid_map), 3)}
    outside = inside_to_outside[report["uid"]]
    assert outside != 0, "the kernel is uid 0 of the host"
    if AS_ROOT or jail.identity(0).own_uid:
        assert report["uid"] != 0 and outside != os.getuid(), "the kernel runs as the grader"
    if AS_ROOT:
        assert outside >= jail.KERNEL_UID_BASE and report["groups"] == []
    assert report["caps"] == ["0000000000000000"] * 5
    assert report["no_new_privs"] == "1" and report["seccomp"] == "2"
    assert report["hostname"] == jail.KERNEL_HOSTNAME
    assert report["processes"] == [1], "the kernel sees processes besides itself"
    assert {name: why for name, why in report["refused"].items() if why not in ("EPERM", "ENOSYS")} == {}
    assert report["writable"] == {path: False for path in report["writable"]}
    assert report["kcore"] == ""
    host = {name: os.readlink(f"/proc/self/ns/{name}") for name in report["namespaces"]}
    shared = [name for name in ("user", "mnt", "pid", "net", "ipc", "uts", "cgroup", "time")
              if name in host and report["namespaces"][name] == host[name]]
    assert shared == [], f"namespaces shared with the host: {shared}"


HOME = r"""
import json, os, errno
report = {}
home = os.environ["HOME"]
held = open(os.path.join(home, "held"), "wb")
os.unlink(held.name)  # open but unlinked: still counts
try:
    for _ in range(64):
        held.write(b"x" * (1 << 20))
        held.flush()
    report["held_mb"] = "all"
except OSError as err:
    report["held_mb"] = errno.errorcode[err.errno]
held.close()
made = 0
try:
    for n in range(200_000):
        os.mkdir(os.path.join(home, f"d{n}"))
        made += 1
except OSError as err:
    report["inodes"] = (made, errno.errorcode[err.errno])
st = os.statvfs(home)
report["home_mb"] = st.f_blocks * st.f_frsize >> 20
print(json.dumps(report))
"""


@pytest.mark.parametrize("start", STARTS)
def test_the_home_is_a_tmpfs_where_unlinked_files_and_inodes_count(start, running_zygote):  # noqa: F811
    report = report_of(run_jailed(HOME, start, running_zygote, disk_mb=32)[0])
    assert report["home_mb"] == 32
    assert report["held_mb"] == "ENOSPC", "64 MB open-but-unlinked in a 32 MB home"
    made, why = report["inodes"]
    assert why == "ENOSPC" and made < jail.HOME_INODES


SHM = r"""
import ctypes, json
libc = ctypes.CDLL(None, use_errno=True)
ids = [libc.shmget(0, 1 << 20, 0o1666) for _ in range(3)]  # IPC_PRIVATE, IPC_CREAT | 0666, left behind
print(json.dumps({"ids": ids}))
"""


def _host_shared_memory() -> set[str]:
    return {line.split()[1] for line in Path("/proc/sysvipc/shm").read_text().splitlines()[1:]}


@pytest.mark.parametrize("start", STARTS)
def test_system_v_shared_memory_stays_in_the_kernels_namespace(start, running_zygote):  # noqa: F811
    before = _host_shared_memory()
    report = report_of(run_jailed(SHM, start, running_zygote)[0])
    assert all(i >= 0 for i in report["ids"])
    assert _host_shared_memory() == before


MEMFD = r"""
import os
fd = os.memfd_create("hold")
block = b"x" * (1 << 20)
for _ in range(2600):
    os.write(fd, block)
print("survived")
"""


@pytest.mark.skipif(not AS_ROOT or "memory" in cgroups.problem(), reason="needs root and a memory cgroup")
@pytest.mark.parametrize("start", STARTS)
def test_the_kernels_cgroup_counts_memory_a_memfd_holds(start, running_zygote):  # noqa: F811
    """2.6 GB in a memfd, which RLIMIT_AS does not see: the kernel's cgroup (2048 + 32 + 2 x 16 MB) stops it."""
    proc, kdir, pid_dir = run_jailed(MEMFD, start, running_zygote, memory_mb=2048, file_mb=4096, keep=True)
    try:
        assert "survived" not in proc.stdout
        cgroup = sandbox.kernel_cgroup(pid_dir, kdir)
        assert cgroup is not None and cgroup.killed_for_memory()
    finally:
        sandbox.stop_kernels(pid_dir, kdir)


BURN = r"""
import multiprocessing, time
def burn():
    end = time.monotonic() + 3
    while time.monotonic() < end:
        pass
workers = [multiprocessing.Process(target=burn) for _ in range(3)]
for w in workers:
    w.start()
for w in workers:
    w.join()
print("done")
"""


@pytest.mark.skipif(not AS_ROOT or "cpu" in cgroups.problem(), reason="needs root and a cpu cgroup")
def test_the_kernels_cgroup_counts_its_childrens_cpu_time_and_gives_them_one_core(running_zygote):  # noqa: F811
    proc, kdir, pid_dir = run_jailed(BURN, "plain", running_zygote, keep=True)
    try:
        assert "done" in proc.stdout, proc.stderr[-2000:]
        cgroup = sandbox.kernel_cgroup(pid_dir, kdir)
        used = cgroup.cpu_seconds()
        assert 1.5 < used < 4.0, used  # three processes busy for 3 s of wall time, on one core at most
    finally:
        sandbox.stop_kernels(pid_dir, kdir)


def test_root_never_runs_a_kernel_without_a_uid_of_its_own():
    """Without its jail a root kernel still runs as a uid of its own; where that uid cannot run Python, no grading."""
    if not AS_ROOT:
        pytest.skip("the grader is not root")
    assert jail.identity(os.getpid(), isolate=False).host_id >= jail.KERNEL_UID_BASE
    limits = sandbox.Limits(isolate=False)
    if jail.unreachable_python():
        assert "cannot enter" in sandbox.refusal(limits)
    else:
        assert sandbox.refusal(limits) == ""
