"""The class view: ``class_view.html``, what the class got right and wrong, to open before the next lecture.

Per assignment: the distribution of totals; for each exercise (graded cell, in notebook order) the share of
the submissions with its full marks; under each exercise the mistakes its check named (the first line of the
verdict, the numbers that differ between students folded by :func:`mistake`), most frequent
first, each with one student's answer as an example; the submissions that could not be graded, with their
reasons; and how many still wait for hand marks.

An example is the answer cells the failing check tests (in the released notebook, the answer cells between
the previous test cell and this one) of one student who made that mistake, chosen by a hash, not by name:
a student whose answer does not mention their own id, name or email if there is one. It says "a student";
the student's id, names and email (from the gradebook), any other student's, and anything that looks like
an email address are replaced in the code and in the verdicts shown.

The page is one file that loads nothing: plots are inline PNGs, the style is inline, there is no script, and
its Content-Security-Policy allows no more. Every text that comes from a submission is escaped.
"""
from __future__ import annotations

import base64
import hashlib
import html
import io
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from . import cells, course

POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
#: an example answer is cut to this many lines
EXAMPLE_LINES = 60
#: an email address (the domain ends in a lower-case word not followed by "(": not ``Q@K.transpose(...)``)
EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[a-z]{2,}(?![\w(])")
HIDDEN = "[student]"


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
    text = re.sub(r"(?<![A-Za-z_])\d+(\.\d+)?(e-?\d+)?", "#", text)  # not the digits of a name (float64)
    return re.sub(r"\s+", " ", text).strip()


@dataclass(frozen=True)
class Exercise:
    """A graded cell: a test cell and the answer cells it checks, or a written answer marked by hand."""

    grade_id: str
    points: float
    by_hand: bool = False
    answers: tuple[str, ...] = ()  # grade ids of the answer cells it checks, in notebook order

    @property
    def label(self) -> str:
        return f"{self.grade_id} ({self.points:g} {'pt' if self.points == 1 else 'pts'})"


def exercises(assignment: str, rows: list[dict], release: Path | None = None) -> list[Exercise]:
    """The graded cells of the released notebook, in order, each with the answer cells its test checks.

    ``release``: the course directory's released notebook, else the course's (notebooks/); without either, the
    cells the rows scored. The points are the gradebook's where the rows carry them (what the scores are out of).
    """
    path = release if release and release.is_file() else course.NOTEBOOKS / f"{assignment}.ipynb"
    known = {gid: pts for row in rows for gid, pts in row.get("points", {}).items()}
    if not path.exists():
        best = {gid: got for row in rows for gid, got in row["cells"].items()}
        for row in rows:
            for gid, got in row["cells"].items():
                best[gid] = max(best[gid], got)
        return [Exercise(gid, known.get(gid, got)) for gid, got in best.items()]
    found, answers = [], []
    for cell in nbformat.read(path, as_version=4).cells:
        gid, points = cells.grade_id(cell), cells.points(cell)
        if cells.is_test(cell):
            found.append(Exercise(gid, known.get(gid, points), answers=tuple(answers)))
            answers = []
        elif cells.is_grade(cell):  # graded and an answer: written, marked by hand
            found.append(Exercise(gid, known.get(gid, points), by_hand=True))
        elif cells.is_answer(cell):
            answers.append(gid)
    return found


@dataclass(frozen=True)
class Person:
    """What names a student: their id, and from the gradebook their names and email."""

    student_id: str
    names: tuple[str, ...] = ()
    email: str = ""


def _words(words: set[str], flags: int = 0) -> re.Pattern | None:
    """Any of ``words`` as a whole word (not inside a longer run of letters and digits)."""
    words = sorted({w.strip() for w in words if len(w.strip()) >= 2}, key=len, reverse=True)
    if not words:
        return None
    return re.compile(rf"(?<![A-Za-z0-9])(?:{'|'.join(map(re.escape, words))})(?![A-Za-z0-9])", flags)


class Anonymiser:
    """Replaces what names the class's students in a text: email addresses, ids, names.

    Ids and emails go whatever their case; names only as written in the gradebook (or capitalised, or in
    capitals), since a name such as Max or Sum is also code. The author's own id and email go even inside
    longer words.
    """

    def __init__(self, people: list[Person]):
        self.ids = _words({w for p in people for w in (p.student_id, p.email)}, re.I)
        self.names = _words({v for p in people for n in p.names
                             for v in (n.title(), n.upper(), *([n] if n != n.lower() else []))})

    def __call__(self, text: str, author: Person | None = None) -> str:
        text = EMAIL.sub("[email]", text)
        for word in (author.student_id, author.email) if author else ():
            if len(word.strip()) >= 2:
                text = re.sub(re.escape(word.strip()), HIDDEN, text, flags=re.I)
        for pattern in (self.ids, self.names):
            text = pattern.sub(HIDDEN, text) if pattern else text
        return text


@dataclass
class Example:
    verdict: str                   # the check's first line, as this student saw it (anonymised)
    answers: list[tuple[str, str]]  # (answer cell, its source as submitted, anonymised)


@dataclass
class Mistake:
    text: str
    count: int
    example: Example | None


@dataclass
class AssignmentView:
    """One assignment's part of the page, computed from its rows."""

    assignment: str
    rows: list[dict]
    exercises: list[Exercise]
    people: dict[str, Person] = field(default_factory=dict)  # the gradebook's students (a row's id is enough)
    _plots: dict[str, bytes] = field(default_factory=dict, repr=False)
    _anonymiser: Anonymiser | None = field(default=None, repr=False)

    @classmethod
    def of(cls, assignment: str, rows: list[dict], people: dict[str, Person] | None = None,
           release: Path | None = None) -> AssignmentView:
        return cls(assignment, rows, exercises(assignment, rows, release), dict(people or {}))

    @property
    def graded(self) -> list[dict]:
        return [r for r in self.rows if r["status"] == "graded"]

    @property
    def failed(self) -> list[dict]:
        return [r for r in self.rows if r["status"] != "graded"]

    def waiting(self, row: dict) -> set[str]:
        """The cells of a row that wait for hand marks (a results.json row: its written answers, if points wait)."""
        if row.get("pending_cells") is not None:
            return set(row["pending_cells"])
        return {e.grade_id for e in self.exercises if e.by_hand} if row["manual_points_pending"] > 0 else set()

    def share(self, exercise: Exercise) -> tuple[int, int, int]:
        """(submissions with the exercise's full marks, submissions scored on it, submissions waiting for a mark)."""
        waiting = [r for r in self.graded if exercise.grade_id in self.waiting(r)]
        scored = [r for r in self.graded if exercise.grade_id not in self.waiting(r)]
        full = sum(r["cells"].get(exercise.grade_id, 0.0) >= exercise.points - 1e-9 for r in scored)
        return full, len(scored), len(waiting)

    def person(self, student: str) -> Person:
        return self.people.get(student) or Person(student)

    @property
    def anonymise(self) -> Anonymiser:
        if self._anonymiser is None:
            students = {r["student_id"] for r in self.rows} | set(self.people)
            self._anonymiser = Anonymiser([self.person(s) for s in sorted(students)])
        return self._anonymiser

    def mistakes(self, exercise: Exercise) -> list[Mistake]:
        """The mistakes named by the exercise's check, most frequent first, each with an example answer."""
        by_text: dict[str, list[dict]] = {}
        for row in self.graded:
            if exercise.grade_id in row["failures"]:
                by_text.setdefault(mistake(row["failures"][exercise.grade_id]), []).append(row)
        counts = Counter({text: len(rows) for text, rows in by_text.items()})
        return [Mistake(self.anonymise(text), n, self.example(exercise, text, by_text[text]))
                for text, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]

    def example(self, exercise: Exercise, text: str, rows: list[dict]) -> Example | None:
        """One student's answer: chosen by a hash, one whose answer does not name them first."""
        with_answers = [r for r in rows if any(a in r["answers"] for a in exercise.answers)]
        if not with_answers:
            return None

        def order(row: dict) -> tuple[bool, str]:
            source = "\n".join(row["answers"].get(a, "") for a in exercise.answers)
            author = self.person(row["student_id"])
            names_them = Anonymiser([author])(source, author) != source
            key = "\0".join((self.assignment, exercise.grade_id, text, row["student_id"]))
            return names_them, hashlib.sha256(key.encode("utf-8")).hexdigest()

        row = min(with_answers, key=order)
        author = self.person(row["student_id"])
        shown = [(a, self.anonymise(row["answers"][a], author)) for a in exercise.answers if a in row["answers"]]
        return Example(self.anonymise(row["failures"][exercise.grade_id], author), shown)

    def plots(self) -> dict[str, bytes]:
        """name -> PNG: the totals' histogram and the exercises' full-marks shares."""
        if not self._plots:
            self._plots = {f"{self.assignment}.png": totals_plot(self),
                           f"{self.assignment}_exercises.png": shares_plot(self)}
        return self._plots

    def save_plots(self, to: Path) -> list[Path]:
        paths = []
        for name, png in self.plots().items():
            (to / name).write_bytes(png)
            paths.append(to / name)
        return paths


def _png(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, metadata={"Software": None})
    return buffer.getvalue()


def totals_plot(view: AssignmentView) -> bytes:
    """A histogram of the graded submissions' totals, in points, with their mean."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    totals = [r["score"] for r in view.graded]
    top = max((r["max_score"] for r in view.rows), default=0.0) or 1.0
    bins = [x - 0.5 for x in range(int(top) + 2)] if top <= 40 else [top * i / 20 for i in range(21)]
    fig = Figure(figsize=(8, 3.6), layout="constrained")
    ax = fig.subplots()
    ax.hist(totals, bins=bins, color="#4c72b0", edgecolor="white")
    if totals:
        mean = sum(totals) / len(totals)
        ax.axvline(mean, color="#c44e52", linestyle="--", label=f"mean {mean:.1f}")
        ax.legend(loc="upper left", frameon=False)
    waiting = sum(r["manual_points_pending"] > 0 for r in view.graded)
    title = f"{view.assignment}: totals of {len(totals)} graded submissions"
    ax.set(title=title + (f" ({waiting} still without their hand marks)" if waiting else ""),
           xlabel=f"total score (points out of {top:g})", ylabel="submissions", xlim=(bins[0], bins[-1]))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.spines[["top", "right"]].set_visible(False)
    return _png(fig)


def shares_plot(view: AssignmentView) -> bytes:
    """One bar per exercise, in notebook order from the top: the share of scored submissions with full marks."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    shown = [e for e in view.exercises if e.points > 0]
    shares = [view.share(e) for e in shown]
    fig = Figure(figsize=(8, 0.34 * len(shown) + 1.4), layout="constrained")
    ax = fig.subplots()
    y = list(range(len(shown)))[::-1]
    percent = [100 * full / scored if scored else 0.0 for full, scored, _ in shares]
    ax.barh(y, percent, color=["#dd8452" if e.by_hand else "#55a868" for e in shown], height=0.7)
    for yi, (full, scored, waiting), pct in zip(y, shares, percent, strict=True):
        note = (f"{full}/{scored}" if scored else "none marked yet") + (f", {waiting} to mark" if waiting else "")
        ax.text(pct + 1.5, yi, note, va="center", fontsize=8)
    ax.set_yticks(y, [e.label for e in shown], fontsize=9)
    ax.set(title="share with full marks, per exercise", xlabel="% of scored submissions", xlim=(0, 125),
           ylim=(-0.6, len(shown) - 0.4))
    ax.set_xticks([0, 25, 50, 75, 100])
    ax.grid(axis="x", color="#dddddd", linewidth=0.8)
    ax.set_axisbelow(True)
    if any(e.by_hand for e in shown):
        fig.legend(handles=[Patch(color="#55a868", label="checked by the grader"),
                            Patch(color="#dd8452", label="marked by hand")], loc="outside lower center", ncol=2,
                   frameon=False, fontsize=8)
    ax.spines[["top", "right"]].set_visible(False)
    return _png(fig)


STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 62rem; padding: 0 1rem; color: #222; }
h2 { border-bottom: 2px solid #ddd; margin-top: 3rem; } h3 { margin-top: 2rem; }
table { border-collapse: collapse; margin: 1rem 0; } td, th { padding: .25rem .6rem; text-align: left; }
tr:nth-child(even) { background: #f6f6f6; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.bar { display: inline-block; height: .7rem; background: #55a868; vertical-align: middle; }
.bar.hand { background: #dd8452; }
img { max-width: 100%; display: block; margin: 1rem 0; }
.exercise { margin: 1.5rem 0; } .mistake { margin: .8rem 0 .8rem 1rem; }
.count { font-weight: 600; } .verdict { font-family: ui-monospace, monospace; font-size: 13px; }
pre { background: #f4f4f4; border-left: 3px solid #bbb; padding: .5rem .8rem; overflow-x: auto;
      font-size: 13px; white-space: pre-wrap; } .cell { color: #666; font-size: 12px; margin-top: .4rem; }
details { margin: .4rem 0; } summary { cursor: pointer; } .note { color: #555; }
"""


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _image(png: bytes, alt: str) -> str:
    return f'<img alt="{esc(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}">'


def _code(source: str) -> str:
    lines = source.splitlines()
    cut = f"\n… ({len(lines) - EXAMPLE_LINES} more lines)" if len(lines) > EXAMPLE_LINES else ""
    return f"<pre><code>{esc(chr(10).join(lines[:EXAMPLE_LINES]) + cut)}</code></pre>"


def _mistake(m: Mistake) -> str:
    parts = [f'<div class="mistake"><span class="count">{m.count} {"student" if m.count == 1 else "students"}'
             f'</span>: <span class="verdict">{esc(m.text)}</span>']
    if m.example is None:
        parts.append('<p class="note">No answer of theirs to show (the check tests no answer cell of its own, or '
                     'the grade run did not keep answers).</p>')
    else:
        parts.append(f'<details><summary>A student\'s answer (their check said: <span class="verdict">'
                     f'{esc(m.example.verdict)}</span>)</summary>')
        parts += [f'<div class="cell">answer cell {esc(cell)}</div>{_code(source)}'
                  for cell, source in m.example.answers]
        parts.append("</details>")
    return "\n".join(parts) + "</div>"


def section(view: AssignmentView) -> str:
    """One assignment: numbers, plots, exercises, mistakes, what could not be graded, what waits for hand marks."""
    graded, failed = view.graded, view.failed
    top = max((r["max_score"] for r in view.rows), default=0.0)
    totals = sorted(r["score"] for r in graded)
    mean = sum(totals) / len(totals) if totals else 0.0
    median = totals[len(totals) // 2] if totals else 0.0
    plots = view.plots()
    out = [f'<h2 id="{esc(view.assignment)}">{esc(view.assignment)}</h2>',
           f"<p>{len(view.rows)} submissions: {len(graded)} graded, {len(failed)} could not be graded. "
           f"Totals out of {top:g}: mean {mean:.2f}, median {median:g}.</p>",
           *[_image(png, name) for name, png in plots.items()],
           "<h3>Exercises</h3><table><tr><th>exercise</th><th class=\"n\">full marks</th><th></th>"
           '<th class="n">share</th></tr>']
    for ex in view.exercises:
        full, scored, waiting = view.share(ex)
        pct = 100 * full / scored if scored else 0.0
        wait = f", {waiting} to mark by hand" if waiting else ""
        shown = f"{pct:.0f}%" if scored else "–"
        out.append(f'<tr><td>{esc(ex.label)}{" (by hand)" if ex.by_hand else ""}</td>'
                   f'<td class="n">{full} of {scored}{esc(wait)}</td>'
                   f'<td><span class="bar{" hand" if ex.by_hand else ""}" style="width:{pct * 1.5:.0f}px"></span></td>'
                   f'<td class="n">{shown}</td></tr>')
    out.append("</table><h3>Mistakes, by exercise</h3>")
    any_mistake = False
    for ex in view.exercises:
        mistakes = view.mistakes(ex)
        if mistakes:
            any_mistake = True
            full, scored, _ = view.share(ex)
            out.append(f'<div class="exercise"><h4>{esc(ex.label)}: {full} of {scored} with full marks</h4>')
            out += [_mistake(m) for m in mistakes] + ["</div>"]
    if not any_mistake:
        out.append('<p class="note">No check failed.</p>')
    if failed:
        out.append(f"<h3>Could not be graded</h3><details><summary>{len(failed)} "
                   f"{'submission' if len(failed) == 1 else 'submissions'} (student ids inside)</summary><ul>")
        out += [f"<li>{esc(r['student_id'])}: {esc(r['reason'])}</li>" for r in failed]
        out.append("</ul></details>")
    pending = [r for r in view.rows if r["manual_points_pending"] > 0]
    if pending:
        points = sum(r["manual_points_pending"] for r in pending)
        wait = "submission waits" if len(pending) == 1 else "submissions wait"
        out.append(f"<h3>Hand marks</h3><p>{len(pending)} {wait} for hand marks ({points:g} points in all): "
                   "mark them in nbgrader's formgrader.</p>")
    else:
        out.append("<h3>Hand marks</h3><p>No submission waits for hand marks.</p>")
    return "\n".join(out)


def page(views: list[AssignmentView], notes: list[str] = ()) -> str:
    """The whole page: one section per assignment."""
    nav = " · ".join(f'<a href="#{esc(v.assignment)}">{esc(v.assignment)}</a>' for v in views)
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Class view</title><style>{STYLE}</style></head><body>",
        "<h1>Class view</h1>",
        '<p class="note">What the class got right and wrong: for each exercise the share with full marks, the '
        "mistakes the checks named (numbers that differ between students folded), and for each mistake one "
        "student's answer, anonymised. Student ids appear only in the folded list of submissions that could "
        "not be graded.</p>",
        *[f'<p class="note">{esc(n)}</p>' for n in notes],
        f"<p>{nav}</p>" if len(views) > 1 else "",
        *[section(v) for v in views],
        "</body></html>", ""])
