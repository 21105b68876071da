"""``python -m autograder``: build, release, grade, feedback, report.

    python -m autograder build [NAME ...] [--check]
        Build solutions/NN.ipynb, notebooks/NN.ipynb and lectures/NN.ipynb (slides) from solutions/src/NN.py.
        --check writes nothing and exits 1 when a committed notebook is out of date.

    python -m autograder lecture-deck NN... [--out FILE]
        Run lectures/NN.ipynb and write its static slide deck, lectures/html/NN.slides.html: one HTML
        file with its figures that needs no kernel and no network (autograder/lecture_deck.py).

    python -m autograder release ASSIGNMENT... --out DIR
        The students' bundle (student notebooks, course_lib, install files; no solutions, no
        tests), then read back: exit 1 if any solution or hidden test is in it.

    python -m autograder grade ASSIGNMENT SUBMISSIONS_DIR [--out OUT_DIR] [--course-dir DIR] [--never-lower]
            [--jobs N] [--timeout S]
            [--wall-seconds S] [--cpu-seconds S] [--memory-mb MB] [--processes N] [--file-mb MB]
            [--disk-mb MB] [--output-mb MB] [--no-isolation]
            [--plain-kernels] [--scheduler ADDRESS [--worker-wait S]]
        Grade a folder of <student_id>.ipynb files (or an nbgrader submitted/ tree).
        Writes OUT_DIR/grades.csv, OUT_DIR/results.json and OUT_DIR/feedback/<student_id>.html.
        Exit 0 when every submission got a grade, even a zero. With --scheduler, graded on the
        workers of a Dask cluster (README, 'Grading on a cluster'); the same files in OUT_DIR.
        With a course directory (--course-dir, or SUBMISSIONS_DIR is its submitted/), the results
        also go where nbgrader's autograde leaves them: gradebook.db, autograded/, feedback/ (for
        formgrader's hand marks and nbgrader release_feedback); OUT_DIR defaults to
        COURSE_DIR/autograder/ASSIGNMENT; a regrade writes OUT_DIR/regrade.csv: what changed.

    python -m autograder feedback OUT_DIR
        Check that every graded student has a feedback page and write OUT_DIR/feedback/index.html.

    python -m autograder feedback --course-dir COURSE_DIR --assignment ASSIGNMENT
        After the hand marks: every student's page in COURSE_DIR/feedback/ made again from the
        autograded notebook and the gradebook (hand marks and comments); then nbgrader release_feedback.

    python -m autograder report OUT_DIR... [--to REPORT_DIR]
    python -m autograder report --course-dir COURSE_DIR [--to REPORT_DIR]
        lms_grades.csv (student_id, score, max_score, percent), class_view.html (per exercise the share
        with full marks, the most frequent mistakes with an anonymised example answer, the score
        distribution), report.md and its PNG plots. With --course-dir: every
        COURSE_DIR/autograder/*/results.json, the scores (hand marks included) from COURSE_DIR/gradebook.db,
        the report in COURSE_DIR/autograder/report by default.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .sandbox import Limits


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    p_build = sub.add_parser("build", help="build solution, student and lecture notebooks from solutions/src")
    p_build.add_argument("names", nargs="*", help="notebooks to build (default: all)")
    p_build.add_argument("--check", action="store_true", help="only report notebooks that are out of date")

    p_deck = sub.add_parser("lecture-deck", help="a lecture run and written as a static HTML slide deck")
    p_deck.add_argument("names", nargs="+", help="e.g. 04 (or 04_lstm)")
    p_deck.add_argument("--out", type=Path, default=None, help="the deck's file (one lecture only; default: "
                        "lectures/html/NN_name.slides.html)")

    p_grade = sub.add_parser("grade", help="grade a folder of submissions")
    p_grade.add_argument("assignment", help="e.g. 05_self_attention (or 05)")
    p_grade.add_argument("submissions", type=Path, help="folder of <student_id>.ipynb, or an nbgrader submitted/ tree")
    p_grade.add_argument("--out", type=Path, default=None,
                         help="folder for grades.csv, results.json and feedback/ (default with a course "
                              "directory: COURSE_DIR/autograder/ASSIGNMENT)")
    p_grade.add_argument("--course-dir", type=Path, default=None,
                         help="an nbgrader course directory: the gradebook, autograded/ and feedback/ get the "
                              "results, as nbgrader's autograde leaves them (default: the course directory whose "
                              "submitted/ SUBMISSIONS is)")
    p_grade.add_argument("--never-lower", action="store_true",
                         help="on a regrade, a student whose automatic score would fall keeps the earlier grading")
    p_grade.add_argument("--jobs", type=int, default=None, help="parallel workers (default: number of cores)")
    defaults = Limits()
    p_grade.add_argument("--timeout", type=int, default=None,
                         help="seconds each cell may run (default: 10 times the instructors' solution's slowest "
                              "cell on this machine, at least 10 s, at most the notebook's own setting)")
    p_grade.add_argument("--wall-seconds", type=int, default=None,
                         help="seconds a whole submission may run (default: 10 times the instructors' solution "
                              "on this machine, at least 60 s)")
    p_grade.add_argument("--memory-mb", type=int, default=defaults.memory_mb,
                         help=f"address space of the student's kernel, MB (default: {defaults.memory_mb})")
    p_grade.add_argument("--processes", type=int, default=defaults.processes,
                         help=f"processes/threads the kernel may add (default: {defaults.processes})")
    p_grade.add_argument("--file-mb", type=int, default=defaults.file_mb,
                         help=f"largest file the kernel may write, MB (default: {defaults.file_mb})")
    p_grade.add_argument("--disk-mb", type=int, default=defaults.disk_mb,
                         help=f"all the kernel may write into its home, MB (default: {defaults.disk_mb})")
    p_grade.add_argument("--cpu-seconds", type=int, default=defaults.cpu_seconds,
                         help=f"CPU time of the student's kernel, s (default: {defaults.cpu_seconds})")
    p_grade.add_argument("--output-mb", type=int, default=defaults.output_mb,
                         help=f"all the kernel may send the grader, MB; past it the kernel is stopped "
                              f"(default: {defaults.output_mb})")
    p_grade.add_argument("--no-isolation", action="store_true",
                         help="run kernels without namespaces (network on, files writable); limits still hold")
    p_grade.add_argument("--plain-kernels", action="store_true",
                         help="start each kernel as a new Python instead of forking it from one that has "
                              "imported the notebook's modules already (slower; same limits, same grades)")
    p_grade.add_argument("--scheduler", metavar="ADDRESS", default=None,
                         help="grade on the workers of this Dask scheduler (e.g. tcp://10.0.0.5:8786) instead of "
                              "local processes; needs pip install -e '.[cluster]' (README, 'Grading on a cluster')")
    p_grade.add_argument("--worker-wait", metavar="S", type=float, default=120,
                         help="with --scheduler: how long to wait for a first Dask worker before giving up "
                              "(default: 120; more where workers are batch jobs that queue, as on SLURM)")

    p_release = sub.add_parser("release", help="the students' bundle, checked for leaked solutions")
    p_release.add_argument("assignments", nargs="+", help="e.g. 01 05 (or full names)")
    p_release.add_argument("--out", type=Path, required=True, help="a new (or empty) folder for the bundle")

    p_feedback = sub.add_parser("feedback", help="check a grade run's feedback pages and index them; or, with "
                                "--course-dir, make the pages again with the hand marks")
    p_feedback.add_argument("out", type=Path, nargs="?", help="the --out folder of a grade run")
    p_feedback.add_argument("--course-dir", type=Path, default=None,
                            help="an nbgrader course directory: its feedback/ pages made again from autograded/ "
                                 "and the gradebook (hand marks, comments); then nbgrader release_feedback")
    p_feedback.add_argument("--assignment", default=None, help="with --course-dir: e.g. 05")

    p_report = sub.add_parser("report", help="grades for the LMS and a class report from grade runs")
    p_report.add_argument("outs", nargs="*", type=Path, help="--out folders of grade runs (one per assignment)")
    p_report.add_argument("--course-dir", type=Path, default=None,
                          help="an nbgrader course directory: its autograder/*/results.json and the scores of its "
                               "gradebook.db, hand marks included (instead of OUT_DIR...)")
    p_report.add_argument("--to", type=Path, default=None,
                          help="folder for the report (default: OUT_DIR/report, or COURSE_DIR/autograder/report)")

    args = parser.parse_args(argv)
    from . import course

    if args.command == "release":
        from .release import release

        notes: list[str] = []
        leaks = release(args.assignments, args.out, notes)
        for note in notes:
            print(f"note: {note}")
        for leak in leaks:
            print(f"LEAK: {leak}", file=sys.stderr)
        if leaks:
            print(f"the bundle in {args.out} leaks solutions or hidden tests: do not hand it out", file=sys.stderr)
            return 1
        print(f"bundle written to {args.out}: no solution or hidden test in it")
        return 0

    if args.command == "feedback" and args.course_dir:
        from .course_results import pages_with_hand_marks

        if not args.assignment:
            parser.error("feedback --course-dir needs --assignment")
        name = course.resolve_assignment(args.assignment)
        students = pages_with_hand_marks(args.course_dir, name)
        print(f"{len(students)} feedback page(s) made again with the gradebook's marks in "
              f"{args.course_dir / 'feedback'}; next: nbgrader release_feedback {name}")
        return 0

    if args.command == "feedback":
        from .feedback import index

        if args.out is None:
            parser.error("feedback: give the --out folder of a grade run, or --course-dir and --assignment")

        page, written = index(args.out)
        for student in written:
            print(f"wrote a missing page for {student}")
        print(f"feedback pages: {page.parent}/<student_id>.html; index: {page}")
        return 0

    if args.command == "report":
        from .report import course_report, report

        if bool(args.outs) == bool(args.course_dir):
            parser.error("report: give either the --out folders of grade runs or --course-dir")
        written = (course_report(args.course_dir, args.to) if args.course_dir
                   else report(args.outs, args.to or args.outs[0] / "report"))
        for path in written:
            print(f"wrote {path}")
        return 0

    if args.command == "lecture-deck":
        from .lecture_deck import write_deck

        if args.out and len(args.names) > 1:
            parser.error("--out takes one lecture")
        for name in args.names:
            path, seconds = write_deck(name, args.out)
            print(f"wrote {path} (the lecture ran in {seconds:.1f} s)")
        return 0

    if args.command == "build":
        names = [course.resolve_assignment(n) for n in args.names] or None
        differing = course.build(names, check=args.check)
        for path in differing:
            print(f"{'out of date' if args.check else 'wrote'}: {path.relative_to(course.REPO)}")
        if args.check and differing:
            print("run `python -m autograder build` and commit the result", file=sys.stderr)
            return 1
        return 0

    from .grade import destinations, grade

    limits = Limits(cell_timeout=args.timeout, wall_seconds=args.wall_seconds, memory_mb=args.memory_mb,
                    processes=args.processes, file_mb=args.file_mb, disk_mb=args.disk_mb,
                    cpu_seconds=args.cpu_seconds, isolate=not args.no_isolation, output_mb=args.output_mb)
    from course_lib.grading.plain_text import one_line

    from .sandbox import confinement, refusal

    if refusal(limits):
        print(f"cannot grade: {refusal(limits)}", file=sys.stderr)
        return 2
    for note in confinement(limits):
        print(f"note: {note}; see README 'What is not contained'", file=sys.stderr)
    results = grade(args.assignment, args.submissions, args.out, jobs=args.jobs, limits=limits,
                    fork_kernels=not args.plain_kernels, scheduler=args.scheduler,
                    worker_wait=args.worker_wait, course_dir=args.course_dir, never_lower=args.never_lower)
    for r in results:
        note = f"  ({one_line(r.reason)})" if r.reason else ""
        print(f"{one_line(r.student_id):24s} {r.score:6g} / {r.max_score:g}{note}")
    where, _ = destinations(args.assignment, args.submissions, args.out, args.course_dir)
    print(f"graded {len(results)} submission(s); grades in {where / 'grades.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
