"""One control group per grading kernel: memory, processes and CPU counted for the kernel's whole tree.

A kernel started by root gets a cgroup of its own before it makes its namespaces, so that everything it
starts is counted there and nothing it starts can leave it:

- memory: ``memory.max`` (cgroup v2) or ``memory.limit_in_bytes`` (v1): the kernel's anonymous memory and
  its tmpfs, shared-memory and memfd pages, which an address-space limit does not see; past it the kernel
  is killed for memory and ``memory.events`` (v2) or ``memory.oom_control`` (v1) says so;
- processes: ``pids.max``: a fork past it fails with EAGAIN inside the kernel;
- CPU: ``cpu.max`` (v2) or ``cpu.cfs_quota_us`` (v1) lets the tree use one core at most, and ``cpu.stat``
  (v2) or ``cpuacct.usage`` (v1) counts the CPU time of the whole tree, which the grader's watchdog
  compares with the kernel's CPU budget.

A machine has either the unified hierarchy (cgroup v2) with these controllers, or the v1 hierarchies
(one per controller), or a mix; :func:`make` uses what it finds, per controller. Only root can make
kernel cgroups; :func:`problem` says in one sentence what is missing where it cannot.
"""
from __future__ import annotations

import functools
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

PREFIX = "course-kernel-"  # a kernel's cgroup: PREFIX + the sandbox's pid
CONTROLLERS = ("memory", "pids", "cpu")


def mounts() -> list[tuple[Path, str, str]]:
    """(mount point, file system type, options) of every cgroup (v1) and cgroup2 mount this process sees."""
    found = []
    try:
        lines = Path("/proc/self/mountinfo").read_text(encoding="utf-8").splitlines()
    except OSError:
        return found
    for line in lines:
        fields = line.split()
        if " - " not in line or len(fields) < 5:
            continue
        after = line.split(" - ", 1)[1].split()
        if after and after[0] in ("cgroup", "cgroup2"):
            point = fields[4].replace("\\040", " ")
            found.append((Path(point), after[0], after[2] if len(after) > 2 else ""))
    return found


def _own_path(hierarchy: str) -> str:
    """This process's cgroup in a v1 hierarchy (by one of its controllers' names), from /proc/self/cgroup."""
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, names, path = line.split(":", 2)
            if hierarchy in names.split(","):
                return path.lstrip("/")
    except (OSError, ValueError):
        pass
    return ""


def parents() -> dict[str, Path]:
    """For each controller (and ``cpuacct``), the folder in which a kernel's cgroup is made.

    cgroup v2: the root of the unified hierarchy (the only cgroup that may hold processes and hand
    controllers down). cgroup v1: this process's own cgroup in that controller's hierarchy, so that a
    limit on the grader (a container's) still holds for its kernels.
    """
    found: dict[str, Path] = {}
    for point, kind, options in mounts():
        if kind == "cgroup2":
            try:
                available = (point / "cgroup.controllers").read_text().split()
            except OSError:
                continue
            for name in CONTROLLERS:
                if name in available:
                    found.setdefault(name, point)
            if "cpu" in available:
                found.setdefault("cpuacct", point)
        else:
            names = options.split(",")
            for name in (*CONTROLLERS, "cpuacct"):
                if name in names:
                    found.setdefault(name, point / _own_path(name))
    return found


@dataclass
class KernelCgroup:
    """One kernel's cgroup: a folder per hierarchy it is in (one under cgroup v2)."""

    folders: dict[str, Path] = field(default_factory=dict)  # controller -> folder

    @property
    def unique_folders(self) -> list[Path]:
        return list(dict.fromkeys(self.folders.values()))

    def join(self, pid: int) -> None:
        for folder in self.unique_folders:
            (folder / "cgroup.procs").write_text(str(pid))

    def cpu_seconds(self) -> float:
        """CPU time the kernel's whole tree has used (0.0 where nothing counts it)."""
        folder = self.folders.get("cpuacct")
        if folder is None:
            return 0.0
        try:
            if (folder / "cpuacct.usage").exists():
                return int((folder / "cpuacct.usage").read_text()) / 1e9
            for line in (folder / "cpu.stat").read_text().splitlines():
                if line.startswith("usage_usec "):
                    return int(line.split()[1]) / 1e6
        except (OSError, ValueError):
            pass
        return 0.0

    def killed_for_memory(self) -> bool:
        """True once the kernel's cgroup has had a process killed for memory."""
        folder = self.folders.get("memory")
        if folder is None:
            return False
        for name in ("memory.events", "memory.oom_control"):
            try:
                for line in (folder / name).read_text().splitlines():
                    if line.startswith("oom_kill ") and int(line.split()[1]) > 0:
                        return True
            except (OSError, ValueError):
                continue
        return False

    def kill_and_remove(self) -> None:
        for folder in self.unique_folders:
            remove(folder)

    def lines(self) -> list[str]:
        """How the pid file keeps it: ``controller=folder`` per controller."""
        return [f"{name}={folder}" for name, folder in self.folders.items()]

    @classmethod
    def from_lines(cls, lines: list[str]) -> KernelCgroup:
        folders = {}
        for line in lines:
            name, sep, folder = line.partition("=")
            if sep and Path(folder).name.startswith(PREFIX):
                folders[name] = Path(folder)
        return cls(folders)


def _write(path: Path, value: str) -> None:
    path.write_text(value)


def _limit(folder: Path, controller: str, memory_bytes: int, max_tasks: int, v2: bool) -> None:
    """Set one controller's limit in a kernel's folder (OSError where it cannot)."""
    if controller == "memory":
        if v2:
            _write(folder / "memory.max", str(memory_bytes))
            if (folder / "memory.swap.max").exists():
                _write(folder / "memory.swap.max", "0")
        else:
            _write(folder / "memory.limit_in_bytes", str(memory_bytes))
            if (folder / "memory.memsw.limit_in_bytes").exists():
                _write(folder / "memory.memsw.limit_in_bytes", str(memory_bytes))
    elif controller == "pids":
        _write(folder / "pids.max", str(max_tasks))
    elif controller == "cpu":  # one core at most, for the whole tree
        if v2:
            _write(folder / "cpu.max", "100000 100000")
        else:
            _write(folder / "cpu.cfs_period_us", "100000")
            _write(folder / "cpu.cfs_quota_us", "100000")


def _enable_v2(root: Path, controller: str) -> None:
    if controller not in (root / "cgroup.subtree_control").read_text().split():
        _write(root / "cgroup.subtree_control", f"+{controller}")


def make(name: str, memory_bytes: int, max_tasks: int) -> tuple[KernelCgroup, list[str]]:
    """A new cgroup ``name`` in every hierarchy with one of :data:`CONTROLLERS`, its limits set (root only).

    Returns it and, for each controller that could not be had, one sentence saying why.
    """
    cgroup, missing = KernelCgroup(), []
    by_folder: dict[Path, Path] = {}
    for controller, parent in parents().items():
        folder = parent / name
        v2 = (parent / "cgroup.controllers").exists()
        try:
            if folder not in by_folder:
                if folder.exists():  # left by a sandbox that had our pid and died with the grader: stale
                    remove(folder)
                folder.mkdir()
                by_folder[folder] = folder
            if v2 and controller != "cpuacct":
                _enable_v2(parent, controller)
            if controller != "cpuacct":
                _limit(folder, controller, memory_bytes, max_tasks, v2)
            cgroup.folders[controller] = folder
        except OSError as err:
            if controller != "cpuacct":
                missing.append(f"{controller}: {err.strerror or err}")
    for controller in CONTROLLERS:
        if controller not in cgroup.folders and not any(m.startswith(controller + ":") for m in missing):
            missing.append(f"{controller}: no cgroup file system with the {controller} controller is mounted")
    for folder in by_folder:
        if folder not in cgroup.folders.values():
            remove(folder)
    return cgroup, missing


def remove(folder: Path) -> None:
    """Kill every process in the cgroup, then remove it (its processes can no longer escape: they are many at most)."""
    for _ in range(200):
        try:
            (folder / "cgroup.kill").write_text("1")  # cgroup v2, 5.14+: all at once
        except OSError:
            pass
        try:
            pids = [int(pid) for pid in (folder / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return  # gone already
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.02)  # the killed ones are still exiting


@functools.lru_cache(maxsize=1)
def problem() -> str:
    """'' when a kernel started by this user gets memory, process and CPU limits from a cgroup, else why not."""
    if os.geteuid() != 0:
        return "only root can make a cgroup per kernel"
    cgroup, missing = make(f"{PREFIX}trial-{os.getpid()}", 1 << 30, 8)
    cgroup.kill_and_remove()
    return "; ".join(missing)
