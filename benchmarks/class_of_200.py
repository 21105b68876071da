"""A class of N submissions of one notebook, graded with `python -m autograder grade --jobs <cores>`.

    python benchmarks/class_of_200.py [--students 200] [--notebook 05_self_attention] [--jobs N] [--course-dir]

The class is copies of seven kinds of submission: the full solution (six in sixteen), a partial
one (two exercises left blank), one with a catalogued mistake, the blank release, and three
hostile ones (the checks patched to pass, ``os._exit`` in an answer cell, a printed fake pass). It
prints the seconds per submission and the total against the budget for a class of 200 on 2 cores
(benchmarks/budgets.py), and saves them to benchmarks/results/class_of_<N>.json. With --students below
200 the total for 200 is extrapolated (and says so): the once-per-run cost (building the release,
starting workers; measured on an empty folder) plus 200 times the cost per submission beyond it.
With --course-dir the class is laid out as nbgrader's collect leaves it, in a fresh nbgrader course directory,
and graded into it (the gradebook, autograded/, feedback/ and the similarity pass included); saved to
benchmarks/results/class_of_<N>_course_dir.json.
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

import nbformat

from autograder import course
from autograder.cells import answers, with_answers
from budgets import CLASS_OF_200_S
from results_file import save

REPO = Path(__file__).resolve().parents[1]
CLASS = 200


def make_class(name: str, students: int, folder: Path, nbgrader_tree: bool = False) -> dict[str, int]:
    source = nbformat.read(REPO / "solutions" / f"{name}.ipynb", as_version=4)
    release = nbformat.read(REPO / "notebooks" / f"{name}.ipynb", as_version=4)
    solution = answers(source)
    code_cells = [gid for gid, text in solution.items() if "def " in text] or list(solution)
    stub = "# YOUR CODE HERE\nraise NotImplementedError()"
    first = code_cells[0]
    kinds = {
        "solution": solution,
        "partial": {**solution, **{gid: stub for gid in code_cells[-2:]}},
        "mistake": {**solution, first: solution[first].replace("return ", "return 2 * ", 1)},
        "blank": {},
        # hostile: every check made to pass, the kernel killed mid-notebook, a fake "all passed"
        "patched": {**{gid: stub for gid in code_cells},
                    first: "import course_lib.grading.answers as g\nfor name in dir(g):\n"
                           "    if name.startswith('check'):\n"
                           "        setattr(g, name, lambda *a, **k: print('\u2714 passed'))\n"},
        "exits": {**solution, code_cells[-1]: "import os\nos._exit(0)"},
        "fake_pass": {**{gid: stub for gid in code_cells}, first: "print('\u2714 all checks passed: 17/17')"},
    }
    plan = ["solution", "solution", "partial", "mistake", "solution", "blank", "solution", "partial",
            "patched", "solution", "exits", "mistake", "solution", "fake_pass", "solution", "partial"]
    counts: dict[str, int] = {}
    for i in range(students):
        kind = plan[i % len(plan)]
        path = folder / f"s{i:03d}_{kind}.ipynb"
        if nbgrader_tree:  # submitted/<student>/<notebook>/<notebook>.ipynb
            path = folder / path.stem / name / f"{name}.ipynb"
            path.parent.mkdir(parents=True)
        nbformat.write(with_answers(release, kinds[kind]), path)
        counts[kind] = counts.get(kind, 0) + 1
    return counts


def grade(notebook: str, subs: Path, out: Path, jobs: int, options: list[str]) -> float | None:
    """Seconds that `python -m autograder grade` takes on a folder (None if it fails)."""
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade", notebook, str(subs),
                           "--out", str(out), "--jobs", str(jobs), *options], capture_output=True, text=True,
                          env=course.nbgrader_env())
    if proc.returncode != 0:
        print(proc.stdout[-2000:], proc.stderr[-2000:], file=sys.stderr)
        return None
    return time.monotonic() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=CLASS)
    parser.add_argument("--notebook", default="05_self_attention")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--plain-kernels", action="store_true", help="grade with `--plain-kernels` (no zygote)")
    parser.add_argument("--course-dir", action="store_true",
                        help="grade into a fresh nbgrader course directory, from its submitted/")
    args = parser.parse_args()
    options = ["--plain-kernels"] if args.plain_kernels else []
    with tempfile.TemporaryDirectory(prefix="class-of-200-") as tmp:
        subs, out = Path(tmp) / "submissions", Path(tmp) / "grades"
        empty = Path(tmp) / "empty"
        if args.course_dir:
            course.make_course_dir(Path(tmp) / "course", args.notebook)
            course.make_course_dir(Path(tmp) / "empty-course", args.notebook)
            subs, empty = Path(tmp) / "course" / "submitted", Path(tmp) / "empty-course" / "submitted"
        subs.mkdir()
        counts = make_class(args.notebook, args.students, subs, nbgrader_tree=args.course_dir)
        empty.mkdir()
        fixed = grade(args.notebook, empty, Path(tmp) / "grades-empty", args.jobs, options)  # the release build
        seconds = grade(args.notebook, subs, out, args.jobs, options)
        if fixed is None or seconds is None:
            return 1
        results = json.loads((out / "results.json").read_text())
    per = seconds / args.students
    marginal = max(seconds - fixed, 0.0) / args.students
    total_200 = seconds if args.students == CLASS else fixed + marginal * CLASS
    errors = sum(r["status"] != "graded" for r in results)
    print(f"{args.notebook}: {args.students} submissions ({', '.join(f'{n} {k}' for k, n in counts.items())}), "
          f"--jobs {args.jobs} on {os.cpu_count()} cores{', plain kernels' if args.plain_kernels else ''}")
    print(f"  wall time {seconds:.1f} s, {per:.2f} s per submission ({fixed:.1f} s of it once per run, "
          f"{marginal:.2f} s per submission beyond that); {errors} graded as errors, with a reason")
    worker = [r["seconds"] for r in results]
    slowest = max(results, key=lambda r: r["seconds"])
    print(f"  one submission in one worker: {sum(worker) / len(worker):.2f} s on average, "
          f"{slowest['seconds']:.2f} s at most ({slowest['student_id']})")
    scores: dict[str, list[float]] = {}
    for r in results:
        scores.setdefault(r["student_id"].split("_", 1)[1], []).append(r["score"])
    max_score = max((r["max_score"] for r in results), default=0)
    print("  mean score per kind: "
          + ", ".join(f"{kind} {sum(v) / len(v):g}/{max_score:g}" for kind, v in scores.items()))
    label = "measured" if args.students == CLASS else f"extrapolated from {args.students}"
    verdict = "within" if total_200 <= CLASS_OF_200_S else "OVER"
    print(f"  class of {CLASS}: {total_200 / 60:.1f} min ({label}); budget {CLASS_OF_200_S / 60:g} min: {verdict}")
    if not args.plain_kernels:
        save(f"class_of_{args.students}" + ("_course_dir" if args.course_dir else ""), {
            "notebook": args.notebook, "students": args.students, "jobs": args.jobs, "kinds": counts,
            "wall_s": round(seconds, 1), "s_per_submission": round(per, 2), "once_per_run_s": round(fixed, 1),
            "worker_s_mean": round(sum(worker) / len(worker), 2), "class_of_200_s": round(total_200, 1),
            "class_of_200_measured": args.students == CLASS, "errors": errors})
    return 0 if total_200 <= CLASS_OF_200_S else 2


if __name__ == "__main__":
    sys.exit(main())
