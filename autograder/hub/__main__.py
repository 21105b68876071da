"""``python -m autograder.hub``: the instructor's side of a class that uses nbgrader's exchange.

    python -m autograder.hub course ASSIGNMENT... [--root DIR]
        Make or update the nbgrader course directory (default: CourseDirectory.root from the
        nbgrader_config.py files on Jupyter's config path, e.g. autograder/hub/nbgrader_config.py)
        with ASSIGNMENT's source and release (nbgrader generate_assignment). Then
        `nbgrader release_assignment ASSIGNMENT` puts it in the exchange for the students.

    python -m autograder.hub settings
        Print the exchange root, course id and course directory nbgrader uses for this account.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import course
from . import nbgrader_settings


def make_course(names: list[str], root: Path, course_id: str) -> list[Path]:
    """The course directory for ``names`` (nbgrader generate_assignment), under the class's course id."""
    released = []
    for name in names:
        released.append(course.make_course_dir(root, name))
        config = root / "nbgrader_config.py"  # course.make_course_dir writes it, with the course's own id
        config.write_text(config.read_text(encoding="utf-8")
                          + f"c.CourseDirectory.course_id = {course_id!r}  # the class's nbgrader_config.py\n",
                          encoding="utf-8")
        if course_id != course.COURSE_ID:  # the gradebook records the course id: generate again under this one
            course.run_nbgrader(root, "generate_assignment", name, "--force")
    return released


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.hub", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p_course = sub.add_parser("course", help="make or update the instructor's nbgrader course directory")
    p_course.add_argument("assignments", nargs="+", help="e.g. 05 (or 05_self_attention)")
    p_course.add_argument("--root", type=Path, default=None,
                          help="the course directory (default: CourseDirectory.root)")
    sub.add_parser("settings", help="the exchange root, course id and course directory nbgrader uses here")
    args = parser.parse_args(argv)

    config = nbgrader_settings()
    exchange = config.Exchange.get("root", "/usr/local/share/nbgrader/exchange")
    course_id = config.CourseDirectory.get("course_id", "") or course.COURSE_ID
    if args.command == "settings":
        print(f"exchange root:    {exchange}")
        print(f"course id:        {course_id}")
        print(f"course directory: {config.CourseDirectory.get('root', '(the current folder)')}")
        return 0

    root = args.root or (Path(config.CourseDirectory.root) if "root" in config.CourseDirectory else None)
    if root is None:
        print("no course directory: pass --root or set c.CourseDirectory.root (autograder/hub/nbgrader_config.py)",
              file=sys.stderr)
        return 2
    names = [course.resolve_assignment(n) for n in args.assignments]
    for name, release in zip(names, make_course(names, root.expanduser().resolve(), course_id)):
        print(f"{name}: {release.parent} (course {course_id}); next: nbgrader release_assignment {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
