"""Grading on a Dask cluster against grading locally, on the same machine, and what N workers would take.

    python benchmarks/cluster.py [--students 16] [--notebook 05_self_attention] [--workers 2]
                                 [--class-size 35000]

The same classes (benchmarks/class_of_200.py's mix of solutions, partial and wrong answers, blanks and
hostile submissions), of S/2 and of S students, are graded with ``--jobs W`` locally and with
``--scheduler`` on a Dask cluster of W workers (one thread each, ``distributed.LocalCluster``: a real
scheduler and worker processes on 127.0.0.1, warmed by a batch of no submission first), alternating
local and cluster runs so that both see the same load. Per submission: (wall time of S - wall time of
S/2) / (S/2), so that what a batch costs once (the course directory, starting the workers and their
zygotes) cancels out. The difference between the two is the cluster's overhead per submission (the
task's trip: the submission and the assignment there, the result and the feedback page back).

The scheduler's own cost per task is measured apart: a thousand tasks that do nothing, and two hundred
that carry what a grading task carries (the release notebook and a submission, as bytes).

Extrapolation to N workers, for a class of ``--class-size`` submissions (5,000 students x 7 notebooks):
the scheduler hands out tasks one after the other, so a batch takes at least the scheduler's cost per
task times the tasks, and the workers at least the cost of a submission on one worker times the tasks
over N::

    T(N) = once-per-batch time + class size x max(worker-seconds per submission / N, scheduler cost per task)

where worker-seconds per submission = the cluster's time per submission x W (W workers were busy), at
least the mean time a submission took in its worker (results.json's seconds), and
the once-per-batch time = the cluster's wall time of S/2 - S/2 x its time per submission. It
assumes workers as fast as these cores and a scheduler as fast as this machine's; a real cluster adds its
network's latency to each task's trip, which the workers hide as long as each has a task queued
(the grader keeps two per worker thread in flight).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from class_of_200 import make_class
from results_file import save

REPO = Path(__file__).resolve().parents[1]
WORKER_COUNTS = [2, 8, 32, 128, 512, 2048]


def grade_wall(notebook: str, submissions: Path, out: Path, *where: str) -> float:
    """Seconds `python -m autograder grade` takes, start to exit."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade", notebook, str(submissions), "--out", str(out),
                           *where], capture_output=True, text=True, env=environment())
    if proc.returncode:
        raise SystemExit(proc.stdout[-2000:] + proc.stderr[-2000:])
    return time.perf_counter() - start


def seconds_in_worker(out: Path) -> float:
    """The mean time a graded submission took in its worker (results.json's seconds), batch costs left out."""
    rows = [r for r in json.loads((out / "results.json").read_text(encoding="utf-8")) if r["status"] == "graded"]
    return sum(r["seconds"] for r in rows) / max(1, len(rows))


def environment() -> dict[str, str]:
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "HF_HUB_OFFLINE": "1"}


def nothing(_index: int) -> None:
    return None


def size(payload: bytes) -> int:
    return len(payload)


def scheduler_cost(client, tasks: int, payload: bytes | None = None) -> float:
    """Seconds per task, for ``tasks`` tasks through the scheduler (each carrying ``payload`` if given)."""
    start = time.perf_counter()
    if payload is None:
        client.gather(client.map(nothing, range(tasks), pure=False))
    else:
        client.gather([client.submit(size, payload, pure=False) for _ in range(tasks)])
    return (time.perf_counter() - start) / tasks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=16)
    parser.add_argument("--notebook", default="05_self_attention")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--class-size", type=int, default=35_000, help="submissions to extrapolate to")
    args = parser.parse_args(argv)
    import distributed

    os.environ.update(environment())  # the workers' environment: the course's bin/ (nbgrader), offline
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        half, whole, empty = tmp_path / "half", tmp_path / "whole", tmp_path / "empty"
        for folder in (half, whole, empty):
            folder.mkdir()
        make_class(args.notebook, args.students // 2, half)
        make_class(args.notebook, args.students, whole)
        jobs = ["--jobs", str(args.workers)]
        local, remote = {}, {}
        with distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1, host="127.0.0.1",
                                      dashboard_address=None) as cluster, distributed.Client(cluster) as client:
            where = ["--scheduler", cluster.scheduler_address]
            grade_wall(args.notebook, empty, tmp_path / "warm", *where)  # the workers' imports, once
            for name, folder in (("half_s", half), ("whole_s", whole)):
                local[name] = grade_wall(args.notebook, folder, tmp_path / f"l-{name}", *jobs)
                remote[name] = grade_wall(args.notebook, folder, tmp_path / f"c-{name}", *where)
            local["in_worker_s"] = seconds_in_worker(tmp_path / "l-whole_s")
            remote["in_worker_s"] = seconds_in_worker(tmp_path / "c-whole_s")
            payload = (REPO / "notebooks" / f"{args.notebook}.ipynb").read_bytes() + next(whole.iterdir()).read_bytes()
            scheduler_cost(client, 100)  # warm
            per_task = {"nothing_s": scheduler_cost(client, 1000), "payload_s": scheduler_cost(client, 200, payload),
                        "payload_bytes": len(payload)}
    added = args.students - args.students // 2
    for run in (local, remote):
        run["per_submission_s"] = (run["whole_s"] - run["half_s"]) / added
        run["once_per_batch_s"] = run["half_s"] - (args.students // 2) * run["per_submission_s"]
    overhead = remote["per_submission_s"] - local["per_submission_s"]
    # a submission's cost on one worker: the batch's marginal time x W, or (on a busy machine, where the
    # marginal time is noise) at least the time it took in its worker
    worker_seconds = max(remote["per_submission_s"] * args.workers, remote["in_worker_s"])
    task_cost = per_task["payload_s"]
    extrapolated = [{"workers": n,
                     "hours": (max(0.0, remote["once_per_batch_s"])
                               + args.class_size * max(worker_seconds / n, task_cost)) / 3600,
                     "bound": "workers" if worker_seconds / n >= task_cost else "scheduler"}
                    for n in WORKER_COUNTS]
    measured = {"notebook": args.notebook, "students": args.students, "workers": args.workers, "local": local,
                "cluster": remote, "overhead_per_submission_s": overhead,
                "overhead_fraction": overhead / local["per_submission_s"], "scheduler_per_task": per_task,
                "worker_seconds_per_submission": worker_seconds, "class_size": args.class_size,
                "extrapolated": extrapolated}
    path = save("cluster", measured)
    print(f"{args.students} submissions of {args.notebook}, {args.workers} workers on this machine:")
    for name, run in (("local --jobs", local), ("Dask cluster", remote)):
        print(f"  {name:13s} {args.students // 2} students {run['half_s']:6.1f} s, {args.students} students "
              f"{run['whole_s']:6.1f} s: {run['per_submission_s']:.2f} s per submission, "
              f"{run['once_per_batch_s']:.1f} s once per batch, {run['in_worker_s']:.2f} s in its worker")
    print(f"  overhead of the cluster: {overhead:+.2f} s per submission ({100 * measured['overhead_fraction']:+.0f}%)")
    print(f"  scheduler: {1000 * per_task['nothing_s']:.2f} ms per empty task, {1000 * task_cost:.2f} ms per task "
          f"carrying {len(payload) >> 10} KiB")
    print(f"{args.class_size} submissions at {worker_seconds:.1f} worker-seconds each:")
    for row in extrapolated:
        print(f"  {row['workers']:5d} workers: {row['hours']:7.2f} h ({row['bound']} bound)")
    print(f"saved to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
