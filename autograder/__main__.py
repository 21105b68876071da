"""``python -m autograder``: build the course's notebooks and grade submissions.

    python -m autograder build [NAME ...] [--check]
        Build solutions/NN.ipynb and notebooks/NN.ipynb from solutions/src/NN.py.
        --check writes nothing and exits 1 when a committed notebook is out of date.

    python -m autograder grade ASSIGNMENT SUBMISSIONS_DIR --out OUT_DIR [--jobs N] [--timeout S]
        Grade a folder of <student_id>.ipynb files (or an nbgrader submitted/ tree).
        Writes OUT_DIR/grades.csv and OUT_DIR/feedback/<student_id>.html.
        Exit 0 when every submission got a grade, even a zero.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    p_build = sub.add_parser("build", help="build solution and student notebooks from solutions/src")
    p_build.add_argument("names", nargs="*", help="notebooks to build (default: all)")
    p_build.add_argument("--check", action="store_true", help="only report notebooks that are out of date")

    p_grade = sub.add_parser("grade", help="grade a folder of submissions")
    p_grade.add_argument("assignment", help="e.g. 05_self_attention (or 05)")
    p_grade.add_argument("submissions", type=Path, help="folder of <student_id>.ipynb, or an nbgrader submitted/ tree")
    p_grade.add_argument("--out", type=Path, required=True, help="folder for grades.csv and feedback/")
    p_grade.add_argument("--jobs", type=int, default=None, help="parallel workers (default: number of cores)")
    p_grade.add_argument("--timeout", type=int, default=None,
                         help="seconds each cell may run (default: the notebook's own setting)")

    args = parser.parse_args(argv)
    from . import course

    if args.command == "build":
        names = [course.resolve_assignment(n) for n in args.names] or None
        differing = course.build(names, check=args.check)
        for path in differing:
            print(f"{'out of date' if args.check else 'wrote'}: {path.relative_to(course.REPO)}")
        if args.check and differing:
            print("run `python -m autograder build` and commit the result", file=sys.stderr)
            return 1
        return 0

    from .grade import grade

    results = grade(args.assignment, args.submissions, args.out, jobs=args.jobs, timeout=args.timeout)
    for r in results:
        note = f"  ({r.reason})" if r.reason else ""
        print(f"{r.student_id:24s} {r.score:6g} / {r.max_score:g}{note}")
    print(f"graded {len(results)} submission(s); grades in {args.out / 'grades.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
