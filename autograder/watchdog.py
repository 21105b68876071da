"""The grader's watch over one submission's kernel: wall time, CPU time, memory, disk and output.

A :class:`Watchdog` thread runs beside the grading of one submission. It stops the kernel (and everything it
started) when the submission runs past its wall time, when its cgroup has used its CPU budget (as root: the
whole tree's CPU time, read from the cgroup), when the kernel's folder holds more than its disk allowance
(where the kernel is not isolated; an isolated kernel's home is a tmpfs of that size), and when the kernel
has sent the grader more bytes than it may (:meth:`received`, called by :mod:`autograder.relay` for every block
the kernel sends) or something the grader's side refused (:meth:`refused`).
:meth:`why` says, in the student's words, why the kernel stopped: the reason the watchdog stopped it, or
what the kernel's cgroup saw (killed for memory, its CPU time used up).
"""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Callable

from . import cgroups


def folder_bytes(folder: Path) -> int:
    """What the files under ``folder`` occupy on disk (links not followed)."""
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                continue
    return total


class Watchdog:
    """Stops a submission's kernel past its wall time, CPU time, disk or output allowance (see the module)."""

    def __init__(self, *, wall_seconds: float, cpu_seconds: float, disk_mb: int, output_mb: int,
                 disk_folder: Path | None, cgroup: Callable[[], cgroups.KernelCgroup | None],
                 stop: Callable[[], object]):
        self.deadline = time.monotonic() + wall_seconds
        self.wall_seconds, self.cpu_seconds = wall_seconds, cpu_seconds
        self.disk_mb, self.output_mb = disk_mb, output_mb
        self.disk_folder, self.cgroup, self.stop_kernel = disk_folder, cgroup, stop
        self.done = threading.Event()
        self.reason = ""        # why it stopped the kernel it watches now ('' : it did not)
        self.first_reason = ""  # why it stopped the submission's first kernel (the submission's reason)
        self.bytes_received = 0
        self.cpu_spent, self.cpu_seen = 0.0, 0.0  # CPU seconds of the kernels before this one, and of this one
        self._lock = threading.Lock()

    def start(self) -> None:
        threading.Thread(target=self._watch, daemon=True).start()

    def rearm(self) -> None:
        """Watch the submission's next kernel (its hidden cases run in a fresh one): the same deadline, and the bytes
        and CPU time of the kernels before it still count."""
        with self._lock:
            self.reason = ""
            self.cpu_spent += self.cpu_seen
            self.cpu_seen = 0.0
        self.start()

    def time_left(self) -> float:
        return self.deadline - time.monotonic()

    def _watch(self) -> None:
        while not self.done.wait(0.5):
            if self.time_left() < 0:
                self._stop("wall")
            elif self.disk_folder is not None and folder_bytes(self.disk_folder) > self.disk_mb << 20:
                self._stop("disk")
            else:
                cgroup = self.cgroup()
                self.cpu_seen = max(self.cpu_seen, cgroup.cpu_seconds()) if cgroup is not None else self.cpu_seen
                if self.cpu_spent + self.cpu_seen > self.cpu_seconds:
                    self._stop("cpu")
            if self.reason:
                return

    def received(self, nbytes: int) -> bool:
        """Count bytes the kernel sent the grader; past the allowance the kernel is stopped (and False is returned)."""
        with self._lock:
            self.bytes_received += nbytes
            over = self.bytes_received > self.output_mb << 20
        if over:
            self._stop("output")
        return not over

    def refused(self) -> None:
        """The grader's side refused what the kernel sent (a message part past the allowance, or not a message)."""
        self._stop("refused")

    def _stop(self, reason: str) -> None:
        with self._lock:
            if self.reason:
                return
            self.reason = reason
            self.first_reason = self.first_reason or reason
        self.stop_kernel()

    def why(self) -> str:
        """Why the submission's kernel stopped, as the student reads it ('' when nothing here knows)."""
        if not self.first_reason:
            cgroup = self.cgroup()
            if cgroup is not None and cgroup.killed_for_memory():
                self.first_reason = "memory"
            elif cgroup is not None and cgroup.cpu_seconds() > self.cpu_seconds - 1:
                self.first_reason = "cpu"
        return {
            "wall": f"the notebook ran longer than the {self.wall_seconds:g} s allowed for a whole submission",
            "cpu": f"stopped at the CPU-time limit ({self.cpu_seconds:g} s)",
            "memory": "stopped at the memory limit: the notebook's processes, files in its folders and shared "
                      "memory together used more than allowed",
            "disk": f"the notebook wrote more than the {self.disk_mb} MB of files allowed",
            "output": f"the notebook sent the grader more than the {self.output_mb} MB of output allowed",
            "refused": f"the notebook sent the grader a message it refused: one larger than the {self.output_mb} MB "
                       "of output allowed, or bytes that are not a message",
        }.get(self.first_reason, "")
