"""How long a confined Python takes to start and import torch: the course's jail started plainly, forked from a zygote,
and bubblewrap (Debian's ``bwrap``, where installed) for reference.

    python benchmarks/kernel_start.py [--runs 5]

Each start runs ``python -c "import torch"`` to the end, under the same limits the grader gives a kernel; the
median of ``--runs`` starts is printed and saved to benchmarks/results/kernel_start.json. bubblewrap confines a
program it starts (a new Python, as the plain start is); a kernel forked from the zygote has imported torch
already, which is why the grader keeps the zygote (it passes the same jail tests: tests/grading/test_jail.py).
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder import sandbox, zygote
from results_file import save

CODE = "import torch"


def sandbox_command(zygote_socket: Path | None) -> tuple[list[str], Path, Path]:
    kdir, pid_dir = sandbox.make_kernel_dir(), Path(tempfile.mkdtemp(prefix="cgp-"))
    command = [sys.executable, "-m", "autograder.sandbox",
               "--memory-mb", "4096", "--processes", "64", "--file-mb", "256",
               "--isolate", "on", "--cgroup", "on", "--pid-dir", str(pid_dir), "--kernel-dir", str(kdir),
               *(["--zygote-socket", str(zygote_socket)] if zygote_socket else []), "--", sys.executable, "-c", CODE]
    return command, kdir, pid_dir


def timed(command: list[str]) -> float:
    start = time.monotonic()
    subprocess.run(command, check=True, capture_output=True, timeout=120)
    return time.monotonic() - start


def jail_start(zygote_socket: Path | None) -> float:
    command, kdir, pid_dir = sandbox_command(zygote_socket)
    try:
        return timed(command)
    finally:
        sandbox.stop_kernels(pid_dir, kdir)
        shutil.rmtree(kdir, ignore_errors=True)
        shutil.rmtree(pid_dir, ignore_errors=True)


def bwrap_start() -> float:
    return timed(["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/",
                  "--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev", "--cap-drop", "ALL", "--",
                  sys.executable, "-c", CODE])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if sandbox.isolation_problem():
        print(f"the jail needs namespaces: {sandbox.isolation_problem()}", file=sys.stderr)
        return 1
    folder = Path(tempfile.mkdtemp(prefix="cgz-"))
    warm = zygote.Zygote(folder / "z.sock", ["torch"])
    try:
        if not warm.ready():
            print("the zygote did not start", file=sys.stderr)
            return 1
        starts = {"jail, plain start": lambda: jail_start(None), "jail, forked from the zygote": lambda: jail_start(
            warm.socket_path)}
        if shutil.which("bwrap"):
            starts["bubblewrap (bwrap --unshare-all), plain start"] = bwrap_start
        medians = {}
        for name, start in starts.items():
            seconds = [start() for _ in range(args.runs)]
            medians[name] = round(statistics.median(seconds), 3)
            print(f"{name:48s} {medians[name]:6.3f} s "
                  f"(median of {args.runs}; {min(seconds):.3f} to {max(seconds):.3f})")
    finally:
        warm.stop()
        shutil.rmtree(folder, ignore_errors=True)
    save("kernel_start", {"code": CODE, "runs": args.runs, "median_s": medians})
    return 0


if __name__ == "__main__":
    sys.exit(main())
