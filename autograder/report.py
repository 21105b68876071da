"""``python -m autograder report OUT_DIR... --to REPORT_DIR``: grades for the LMS and a class report.

Reads each ``grade`` run's ``results.json`` (one per assignment) and writes:

- ``lms_grades.csv``: one row per student: ``student_id, score, max_score, percent`` over all the
  given assignments, then ``<assignment> score`` per assignment (a submission that could not be
  graded counts 0, a missing one too);
- ``report.md``: per assignment, the score distribution, the mean score of each graded cell, the
  most frequent mistakes (the first line of each failing check's verdict, as the student saw
  it) and the submissions that could not be graded, with their reasons;
- ``<assignment>.png``: the distribution of scores and the mean score per graded cell.
"""
from __future__ import annotations

import csv
import json
import re
from collections import Counter
from pathlib import Path

import nbformat

from course_lib.grading.plain_text import csv_cell, markdown_cell

from . import cells, course


def load(out_dir: Path) -> tuple[str, list[dict]]:
    path = out_dir / "results.json"
    if not path.exists():
        raise SystemExit(f"{out_dir} has no results.json: give the --out folder of a `grade` run")
    rows = json.loads(path.read_text(encoding="utf-8"))
    names = {r["assignment"] for r in rows}
    if len(names) != 1:
        raise SystemExit(f"{path} mixes assignments: {sorted(names)}")
    return names.pop(), rows


def cell_points(assignment: str) -> dict[str, float]:
    """Points of each graded cell, in notebook order (from the released notebook)."""
    path = course.NOTEBOOKS / f"{assignment}.ipynb"
    if not path.exists():
        return {}
    nb = nbformat.read(path, as_version=4)
    return {gid: cells.points(c) for gid, c in cells.graded_cells(nb).items()}


def mistake(message: str) -> str:
    """A verdict without the numbers that differ between students (differences, test cases)."""
    text, start = message, message.find("(test case:")
    while start >= 0:  # drop the balanced "(test case: ...)" group
        depth, end = 0, len(text)
        for i in range(start, len(text)):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            if depth == 0:
                end = i + 1
                break
        text = text[:start].rstrip() + text[end:]
        start = text.find("(test case:")
    text = re.sub(r"\d+(\.\d+)?(e-?\d+)?", "#", text)
    return re.sub(r"\s+", " ", text).strip()


def write_lms_csv(path: Path, runs: dict[str, list[dict]]) -> None:
    students = sorted({r["student_id"] for rows in runs.values() for r in rows})
    by = {(a, r["student_id"]): r for a, rows in runs.items() for r in rows}
    maxima = {a: max((r["max_score"] for r in rows), default=0.0) for a, rows in runs.items()}
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student_id", "score", "max_score", "percent", *[csv_cell(f"{a} score") for a in runs]])
        for sid in students:
            scores = [by[(a, sid)]["score"] if (a, sid) in by else 0.0 for a in runs]
            total, top = sum(scores), sum(maxima.values())
            percent = 100.0 * total / top if top else 0.0
            writer.writerow([csv_cell(sid), f"{total:g}", f"{top:g}", f"{percent:.1f}", *[f"{s:g}" for s in scores]])


def plot(path: Path, assignment: str, rows: list[dict], points: dict[str, float]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    top = max((r["max_score"] for r in rows), default=1.0) or 1.0
    left.hist([100 * r["score"] / top for r in rows], bins=range(0, 105, 5), color="#4c72b0", edgecolor="white")
    left.set(title=f"{assignment}: total score ({len(rows)} submissions)", xlabel="% of points", ylabel="students")
    cells = [c for c in points if points[c] > 0]
    means = [sum(r["cells"].get(c, 0.0) for r in rows) / (len(rows) * points[c]) * 100 if rows else 0 for c in cells]
    right.barh(cells[::-1], means[::-1], color="#55a868")
    right.set(title="mean score per graded cell", xlabel="% of the cell's points", xlim=(0, 100))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def section(assignment: str, rows: list[dict], points: dict[str, float], png: str, top_n: int = 10) -> str:
    graded = [r for r in rows if r["status"] == "graded"]
    failed = [r for r in rows if r["status"] != "graded"]
    top = max((r["max_score"] for r in rows), default=0.0)
    scores = sorted(r["score"] for r in rows)
    median = scores[len(scores) // 2] if scores else 0.0
    mean = sum(scores) / len(scores) if scores else 0.0
    lines = [f"## {assignment}", "",
             f"{len(rows)} submissions, {len(failed)} could not be graded. Score out of {top:g}: "
             f"mean {mean:.2f}, median {median:g}, full marks {sum(s >= top for s in scores) if top else 0}.",
             "", f"![{assignment}]({png})", "",
             "| graded cell | points | mean | students with full points |", "|---|---|---|---|"]
    for cell, pts in points.items():
        got = [r["cells"].get(cell, 0.0) for r in rows]
        full = sum(g >= pts for g in got) if pts else 0
        lines.append(f"| {cell} | {pts:g} | {sum(got) / len(got) if got else 0:.2f} | {full} of {len(got)} |")
    counts = Counter((cell, mistake(msg)) for r in graded for cell, msg in r.get("failures", {}).items())
    lines += ["", "Most frequent mistakes (the first line of the check's verdict):", "",
              "| students | cell | verdict |", "|---|---|---|"]
    for (cell, text), n in counts.most_common(top_n):
        lines.append(f"| {n} | {markdown_cell(cell)} | {markdown_cell(text)} |")
    if failed:
        lines += ["", "Could not be graded:", ""]
        lines += [f"- {markdown_cell(r['student_id'])}: {markdown_cell(r['reason'])}" for r in failed]
    pending = sum(r.get("manual_points_pending", 0.0) > 0 for r in rows)
    if pending:
        lines += ["", f"{pending} submissions have answers to grade by hand (nbgrader's formgrader)."]
    return "\n".join(lines) + "\n"


def report(out_dirs: list[Path], to: Path) -> list[Path]:
    """Write lms_grades.csv, report.md and one PNG per assignment into ``to``; return the files."""
    runs: dict[str, list[dict]] = {}
    for out_dir in out_dirs:
        assignment, rows = load(out_dir)
        runs.setdefault(assignment, []).extend(rows)
    to.mkdir(parents=True, exist_ok=True)
    written = [to / "lms_grades.csv", to / "report.md"]
    write_lms_csv(written[0], runs)
    parts = ["# Class report", ""]
    for assignment, rows in runs.items():
        points = cell_points(assignment) or {c: 0.0 for r in rows for c in r["cells"]}
        png = to / f"{assignment}.png"
        plot(png, assignment, rows, points)
        written.append(png)
        parts.append(section(assignment, rows, points, png.name))
    written[1].write_text("\n".join(parts), encoding="utf-8")
    return written
