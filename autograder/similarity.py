"""Similar submissions, for the instructor to look at: pairs of students whose answer cells share too much.

For one assignment, every student's answer cells are turned into fingerprints, the fingerprints of every pair
are compared, and the pairs that share a large part of both submissions are listed (:func:`flag_similar`) and
shown side by side on a page (:func:`write_page`). A flag is a reason for a person to look; it changes no grade.
After a batch of one assignment::

    answers = {r.student_id: r.answers for r in results}          # Result.answers: cells.answers(submission)
    pairs = flag_similar(answers, Scaffold.from_release(assignment.release))
    write_page(pairs, answers, out_dir / "similar.html", assignment.name)

**Fingerprints** (winnowing, as in Schleimer, Wilkerson and Aiken, *Winnowing: local algorithms for document
fingerprinting*, SIGMOD 2003, the method of MOSS and of ``copydetect``). A code cell is read with Python's own
``tokenize``; comments, blank lines and docstrings are dropped, and every name a student chooses becomes ``V``,
every string ``S`` and every number ``N``, so that renaming variables, rewording comments and re-spacing change
nothing. What a student cannot rename stays: keywords, builtins, attribute and keyword-argument names
(``.transpose``, ``keepdim=``), and the names the course gives (its imports, the functions of the scaffold). Each
run of :data:`K` tokens is hashed (BLAKE2b, the same on every run and machine) and winnowing keeps the smallest
hash of every :data:`WINDOW` consecutive ones: any identical run of ``K + WINDOW - 1`` tokens leaves at least one
fingerprint in both submissions, wherever it sits, so reordered functions still match. Written (Markdown)
answers are compared too, as runs of :data:`PROSE_K` lower-case words (case, punctuation, Markdown and LaTeX
change nothing): they are marked by hand one at a time, where two copies of a paragraph 80 submissions apart
go unseen; the question's own text is subtracted and the lecture's stock phrases, which many students write,
weigh little (below).

**What everyone shares is subtracted.** Every run of tokens of the released notebook (the scaffold's stubs, its
signatures and docstrings, the notebook's other code cells) and of the ``course_lib`` modules the notebook
imports is boilerplate: fingerprints equal to one of them are dropped, so handing in the untouched stubs, or
copying a helper every student has, matches nobody.

**Common idioms count for little.** A fingerprint that many students have (``scores = q @ k.transpose(-2, -1) /
math.sqrt(d)`` written the usual way) says little about two of them; one that only two students have says much.
A fingerprint of a cell has weight 1 when at most ``max(GROUP, RARE * n)`` of the ``n`` students who answered
the cell have it, falling (as the logarithm of ``n / students having it``) to 0 when all of them have it.

**Score.** For a pair (a, b), a's score is the weight of the fingerprints a and b share (within the same answer
cell) over the weight of all of a's fingerprints: the share of what is a's own, beyond the scaffold and the
class's common idioms, that is found in b's submission. The pair is flagged when both scores reach ``threshold``
(:data:`THRESHOLD`) and the weight they share reaches :data:`MIN_SHARED`, so that a few short answers written
alike cannot raise a flag by themselves.

**Why not copydetect.** ``copydetect`` (0.5.0, PyPI) was read and tried first. Its winnowing hashes with Python's
``hash()``, which is salted per process, so with a window above 1 the fingerprints it keeps, and its scores,
change from run to run (one pair measured 0.296, 0.301 and 0.324 under three values of ``PYTHONHASHSEED``); its
default window of 1 keeps every k-gram and is not winnowing. Its Pygments filter makes every name, attribute and
keyword argument ``V`` and drops line breaks, then takes character k-grams, so ``.amax(dim=...)`` and
``.sum(dim=...)`` look alike. It has no weight for how many students share a fingerprint and compares files pair
by pair: what it would add here is its token filter, which ``tokenize`` does better for Python.
"""
from __future__ import annotations

import ast
import builtins
import hashlib
import html
import importlib.util
import io
import keyword
import math
import re
import tokenize
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
from nbformat import NotebookNode

from . import cells

__all__ = ["FLOOR", "GROUP", "K", "MARGIN", "MIN_SHARED",
           "PROSE_K", "RARE", "THRESHOLD", "WINDOW", "CellMatch", "Pair", "Scaffold",
           "flag_similar", "page", "write_page"]

#: tokens to a fingerprinted run of code (after names, strings and numbers are normalised)
K = 8
#: winnowing window: the smallest hash of every WINDOW runs is kept (any shared K + WINDOW - 1 tokens are found)
WINDOW = 4
#: words to a fingerprinted run of a written (Markdown) answer
PROSE_K = 5
#: a pair is flagged when each submission has at least this share of its (weighted) fingerprints in the other.
#: Chosen on synthetic classes of notebook 05 (tests/grading/test_similarity.py): over six classes of 200 to 220
#: (127,655 pairs of independent students) the highest independent pair scored 0.63 (99.9 % below 0.47), while
#: copies disguised by renaming, new comments and layout and 0 to 2 rewritten cells scored 0.63 to 0.97 (139 of
#: 140 above 0.65), and copies with 8 to 10 of 15 cells rewritten 0.65 to 0.89.
THRESHOLD = 0.65
#: ... and the weight of the fingerprints they share is at least this: about 50 tokens (5 to 8 lines) of code that
#: match and is not common; notebook 05's short answers give 2 or 3 fingerprints each, its model answers 56
MIN_SHARED = 20.0
#: ... or, below THRESHOLD, when the two are each other's most alike and stand out: their score is at least FLOOR
#: and MARGIN above the second most alike partner of either (a disguise heavy enough to pull a copy under
#: THRESHOLD still leaves the pair far nearer each other than to anyone else). Chosen on the synthetic classes
#: only (seeds 5 to 19 of tests/grading/test_similarity.py's class of 200): the highest margin of a pair of
#: independent students there was 0.24 (the next 0.17)
MARGIN = 0.3
FLOOR = 0.3
#: a fingerprint that at most max(GROUP, RARE * students) students have counts fully
GROUP = 3
RARE = 0.05

#: nbgrader's stub of a written answer (ClearSolutions.text_stub): a scaffold cell with it is prose
TEXT_STUB = "YOUR ANSWER HERE"
_BUILTINS = frozenset(dir(builtins))
_KEYWORDS = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)
_SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
_OPEN, _CLOSE = set("([{"), set(")]}")
_ROUGH = re.compile(r"""(?P<string>'[^'\n]*'?|"[^"\n]*"?)|(?P<number>\d[\w.]*)|(?P<name>[^\W\d]\w*)|(?P<op>\S)""")
_WORD = re.compile(r"[^\W_]+")


# -- what everyone has ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Scaffold:
    """What every student of an assignment starts from: subtracted before submissions are compared.

    ``answers``: grade id -> the released answer cell's source (the stub: signature, docstring, ``# YOUR CODE
    HERE``); ``shared``: the course's other code every student has (the released notebook's other code cells,
    the ``course_lib`` modules it imports); ``prose``: the grade ids of written (Markdown) answers;
    ``shared_prose``: the text every student has (the released notebook's Markdown: the questions).
    """

    answers: Mapping[str, str]
    shared: tuple[str, ...] = ()
    prose: frozenset[str] = frozenset()
    shared_prose: tuple[str, ...] = ()

    @classmethod
    def from_release(cls, release: NotebookNode, course_lib: bool = True) -> Scaffold:
        """The scaffold of a released notebook (``cells.answers(release)`` and its other code cells), with the
        source of the ``course_lib`` modules it imports (and theirs, within ``course_lib``) unless ``course_lib``
        is False."""
        shared = [c.source for c in release.cells if c.cell_type == "code" and not cells.is_answer(c)]
        text = [c.source for c in release.cells if c.cell_type == "markdown" and not cells.is_answer(c)]
        prose = frozenset(cells.grade_id(c) for c in release.cells if cells.is_answer(c) and c.cell_type != "code")
        if course_lib:
            shared += course_lib_sources(shared)
        return cls(cells.answers(release), tuple(shared), prose, tuple(text))

    def is_prose(self, cell: str) -> bool:
        """A written answer: a Markdown cell of the release, or one whose stub is nbgrader's text stub."""
        return cell in self.prose or self.answers.get(cell, "").strip() == TEXT_STUB

    @cached_property
    def _printers(self) -> dict:
        return {}

    def printer(self) -> _Fingerprinter:
        """Its boilerplate, worked out once per scaffold (and per K, PROSE_K)."""
        key = (K, PROSE_K, WINDOW)
        if key not in self._printers:
            self._printers[key] = _Fingerprinter(self)
        return self._printers[key]


def _imported(source: str) -> set[str]:
    """Dotted names of the modules a piece of code imports (from ``x.y import z``: x.y and x.y.z)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def course_lib_sources(code: Iterable[str]) -> list[str]:
    """The source of every ``course_lib`` module that ``code`` imports, and of those they import (found on disk,
    not imported: reading them runs nothing)."""
    spec = importlib.util.find_spec("course_lib")
    if spec is None or not spec.submodule_search_locations:
        return []
    root = Path(list(spec.submodule_search_locations)[0])
    todo = set().union(*map(_imported, code))
    seen: set[Path] = set()
    sources: list[str] = []
    while todo:
        name = todo.pop()
        if name != "course_lib" and not name.startswith("course_lib."):
            continue
        parts = name.split(".")[1:]
        for path in (root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts, "__init__.py")):
            if path.is_file() and path not in seen:
                seen.add(path)
                text = path.read_text(encoding="utf-8")
                sources.append(text)
                todo |= _imported(text)
    return sources


def _given_names(sources: Iterable[str]) -> frozenset[str]:
    """The names the course gives (a student cannot rename them): imports, and functions and classes defined at
    the top of the scaffold and of the course's code."""
    names: set[str] = set()
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
    return frozenset(names)


# -- tokens and fingerprints ---------------------------------------------------------------------------------------

def _raw_tokens(source: str) -> list[tuple[int, str, int, int]]:
    """(type, text, first line, last line) of each token; a cell Python cannot tokenize is split roughly."""
    try:
        return [(t.type, t.string, t.start[0], t.end[0])
                for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type not in _SKIPPED]
    except (tokenize.TokenError, SyntaxError):  # an unclosed bracket or string, an inconsistent indent
        pass
    rough: list[tuple[int, str, int, int]] = []
    for number, line in enumerate(source.split("\n"), 1):
        kinds = [(m.lastgroup, m.group()) for m in _ROUGH.finditer(line)]
        if "#" in [text for _, text in kinds]:
            kinds = kinds[:[text for _, text in kinds].index("#")]
        kind = {"string": tokenize.STRING, "number": tokenize.NUMBER, "name": tokenize.NAME, "op": tokenize.OP}
        rough += [(kind[k], text, number, number) for k, text in kinds]
        if kinds:
            rough.append((tokenize.NEWLINE, "\n", number, number))
    return rough


def code_tokens(source: str, given: frozenset[str] = frozenset()) -> list[tuple[str, int, int]]:
    """A code cell as normalised tokens (text, first line, last line): what renaming and rewording leave alone.

    Names a student chooses become ``V`` (``given`` names, keywords, builtins, attribute names and keyword
    arguments stay; an attribute of ``self`` is the student's own), strings ``S``, numbers ``N``; comments,
    docstrings and line breaks inside brackets are gone; a statement ends with ``;``, a block opens with ``{`` and
    closes with ``}``."""
    raw = _raw_tokens(source)
    out: list[tuple[str, int, int]] = []
    depth, docstring = 0, False
    for i, (kind, text, first, last) in enumerate(raw):
        if docstring:  # the end of a docstring's line goes with it
            docstring = False
            if kind == tokenize.NEWLINE:
                continue
        prev = raw[i - 1][1] if i else ""
        after = raw[i + 1][1] if i + 1 < len(raw) else ""
        if kind == tokenize.NEWLINE:
            text = ";"
        elif kind == tokenize.INDENT:
            text = "{"
        elif kind == tokenize.DEDENT:
            text = "}"
            first = last = out[-1][2] if out else first  # the end of the block, not the next statement
        elif kind == tokenize.STRING:
            if (not i or raw[i - 1][0] in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)) \
                    and (i + 1 == len(raw) or raw[i + 1][0] == tokenize.NEWLINE):
                docstring = True  # a docstring, or a string alone on its line
                continue
            text = "S"
        elif kind == tokenize.NUMBER:
            text = "N"
        elif kind == tokenize.NAME:
            if text in _KEYWORDS or text in _BUILTINS or text in given:
                pass
            elif prev == ".":
                text = "V" if i >= 2 and raw[i - 2][1] == "self" else text
            elif depth and after == "=" and prev in ("(", ","):
                pass  # a keyword argument
            else:
                text = "V"
        elif kind == tokenize.OP:
            depth += (text in _OPEN) - (text in _CLOSE)
            depth = max(depth, 0)
        if text.strip():
            out.append((text, first, last))
    return out


def prose_tokens(source: str) -> list[tuple[str, int, int]]:
    """A written answer as its lower-case words (LaTeX commands, Markdown and punctuation are gone)."""
    return [(word.lower(), number, number) for number, line in enumerate(source.split("\n"), 1)
            for word in _WORD.findall(re.sub(r"\\[A-Za-z]+", " ", line.replace(TEXT_STUB, " ")))]


def _hash(run: Iterable[str]) -> int:
    return int.from_bytes(hashlib.blake2b("\x1f".join(run).encode(), digest_size=8).digest(), "little")


def kgram_hashes(tokens: list[tuple[str, int, int]], k: int) -> np.ndarray:
    """The hash of every run of ``k`` tokens (a shorter piece: one hash of all its tokens, when it has any)."""
    texts = [t[0] for t in tokens]
    if not texts:
        return np.zeros(0, dtype=np.uint64)
    runs = range(max(len(texts) - k + 1, 1))
    return np.fromiter((_hash(texts[i:i + k]) for i in runs), dtype=np.uint64, count=len(runs))


def winnow(hashes: np.ndarray, window: int | None = None) -> np.ndarray:
    """Robust winnowing: the position of the smallest hash of each ``window`` (:data:`WINDOW`) consecutive ones
    (the rightmost of equal ones), each position once, in order."""
    window = window or WINDOW
    if len(hashes) <= window:
        return np.array([len(hashes) - 1 - int(np.argmin(hashes[::-1]))]) if len(hashes) else np.zeros(0, int)
    windows = np.lib.stride_tricks.sliding_window_view(hashes, window)
    picked = np.arange(len(windows)) + window - 1 - np.argmin(windows[:, ::-1], axis=1)
    return np.unique(picked)


@dataclass
class _Cell:
    """One answer cell of one submission, fingerprinted."""

    tokens: list[tuple[str, int, int]]
    k: int
    hashes: np.ndarray                                  # every run's hash
    fingerprints: dict[int, list[int]] = field(default_factory=dict)   # kept hash -> where its runs start

    def lines(self, shared: set[int]) -> set[int]:
        """The lines of the runs whose hash is in ``shared`` (every run, not only the kept ones)."""
        found: set[int] = set()
        for start in np.flatnonzero(np.isin(self.hashes, np.fromiter(shared, np.uint64, len(shared)))):
            run = self.tokens[start:start + self.k]
            found.update(range(run[0][1], run[-1][2] + 1))
        return found


class _Fingerprinter:
    """Fingerprints of answer cells, less the scaffold's (its boilerplate: every run of every piece it has)."""

    def __init__(self, scaffold: Scaffold):
        self.scaffold = scaffold
        everyone = list(scaffold.answers.values()) + list(scaffold.shared)
        self.given = _given_names(everyone)
        self.boilerplate: set[int] = set()
        for cell, source in scaffold.answers.items():
            prose = scaffold.is_prose(cell)
            self.boilerplate.update(int(h) for h in self._hashes(source, prose))
        for source in scaffold.shared:
            self.boilerplate.update(int(h) for h in self._hashes(source, False))
        for source in scaffold.shared_prose:
            self.boilerplate.update(int(h) for h in self._hashes(source, True))

    def _tokens(self, source: str, prose: bool) -> list[tuple[str, int, int]]:
        return prose_tokens(source) if prose else code_tokens(source, self.given)

    def _hashes(self, source: str, prose: bool) -> np.ndarray:
        return kgram_hashes(self._tokens(source, prose), PROSE_K if prose else K)

    def cell(self, cell: str, source: str, cache: dict) -> _Cell:
        """The fingerprints of one answer cell (``cache``: the ones already taken, by text: copies are common)."""
        prose = self.scaffold.is_prose(cell)
        found = cache.get((prose, source))
        if found is None:
            tokens = self._tokens(source, prose)
            k = PROSE_K if prose else K
            hashes = kgram_hashes(tokens, k)
            found = _Cell(tokens, k, hashes)
            if len(tokens) >= k:   # a piece shorter than one run has no fingerprint
                for position in winnow(hashes):
                    value = int(hashes[position])
                    if value not in self.boilerplate:
                        found.fingerprints.setdefault(value, []).append(int(position))
            cache[(prose, source)] = found
        return found


def rarity(having: int, answered: int) -> float:
    """The weight of a fingerprint that ``having`` of the ``answered`` students who answered its cell have."""
    full = max(GROUP, RARE * answered)
    if having <= full:
        return 1.0
    return max(0.0, math.log(answered / having) / math.log(answered / full))


# -- pairs ---------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CellMatch:
    """One answer cell of a flagged pair: its scores, and the lines (1-based) of each source that match."""

    cell: str
    score_a: float
    score_b: float
    lines_a: tuple[int, ...]
    lines_b: tuple[int, ...]


@dataclass(frozen=True)
class Pair:
    """Two students whose submissions are alike. ``score_a``: the (weighted) share of a's fingerprints found in
    b's; ``score_b`` the other way; ``shared``: the weight of the fingerprints they share."""

    a: str
    b: str
    score_a: float
    score_b: float
    shared: float
    cells: tuple[CellMatch, ...]

    @property
    def score(self) -> float:
        return min(self.score_a, self.score_b)


def flag_similar(answers: Mapping[str, Mapping[str, str]], scaffold: Scaffold | NotebookNode | Mapping[str, str],
                 *,
                 threshold: float = THRESHOLD, min_shared: float = MIN_SHARED) -> list[Pair]:
    """The pairs of students whose answers are alike beyond what the scaffold, the course and common idioms
    explain, most alike first.

    ``answers``: student id -> {answer cell's grade id -> its source as submitted} (``Result.answers``);
    ``scaffold``: a :class:`Scaffold` (``Scaffold.from_release(release)``), the released notebook itself (the
    same), or the released answer cells alone (grade id -> stub; the course's other code is then not subtracted).
    A pair is flagged when each has at least ``threshold`` of its (weighted) fingerprints in the other and they
    share fingerprints of weight ``min_shared`` or more."""
    scores = _Scores(answers, scaffold)
    pairs = []
    for i, j in scores.above(threshold, min_shared):
        a, b = scores.students[i], scores.students[j]
        pairs.append(Pair(a, b, round(float(scores.share[i, j]), 4), round(float(scores.share[j, i]), 4),
                          round(float(scores.shared[i, j]), 2), scores.cell_matches(a, b)))
    return sorted(pairs, key=lambda p: (-p.score, -p.shared, p.a, p.b))


class _Scores:
    """The scores of every pair of a class: ``shared[a, b]``, the weight of the fingerprints a and b share, and
    ``share[a, b]``, that weight over the weight of all of a's fingerprints (``total[a]``)."""

    def __init__(self, answers: Mapping[str, Mapping[str, str]],
                 scaffold: Scaffold | NotebookNode | Mapping[str, str]):
        if isinstance(scaffold, NotebookNode):
            scaffold = Scaffold.from_release(scaffold)  # the released notebook itself
        elif not isinstance(scaffold, Scaffold):
            scaffold = Scaffold(dict(scaffold))
        self.printer = printer = scaffold.printer()
        self.students = students = sorted(answers)
        self.order = order = list(scaffold.answers) + sorted({c for s in students for c in answers[s]}
                                                             - set(scaffold.answers))
        column = {cell: j for j, cell in enumerate(order)}
        cache: dict = {}
        self.done = done = {s: {c: printer.cell(c, src, cache) for c, src in answers[s].items()
                                if isinstance(src, str)} for s in students}

        # every (cell, fingerprint) -> the students who have it; a cell's students: those with a fingerprint in it
        having: dict[tuple[str, int], list[int]] = {}
        counts = np.zeros((len(students), len(order)))
        for i, s in enumerate(students):
            for c, fp in done[s].items():
                counts[i, column[c]] = len(fp.fingerprints)
                for value in fp.fingerprints:
                    having.setdefault((c, value), []).append(i)
        answered = (counts > 0).sum(axis=0)
        # a's weight: of all its fingerprints (one no other student has weighs 1)
        self.total = total = np.zeros(len(students))
        self.weight_of = weight_of = {}
        keys, weights = [], []
        for key, rows in having.items():
            w = weight_of[key] = rarity(len(rows), answered[column[key[0]]])
            total[rows] += w
            if len(rows) > 1 and w > 0:
                keys.append(rows)
                weights.append(w)
        weights = np.array(weights)

        self.shared = shared = np.zeros((len(students), len(students)))
        for start in range(0, len(keys), 4096):
            chunk = keys[start:start + 4096]
            block = np.zeros((len(students), len(chunk)), dtype=np.float32)
            for j, rows in enumerate(chunk):
                block[rows, j] = 1.0
            shared += (block * weights[start:start + 4096].astype(np.float32)) @ block.T
        self.share = shared / np.where(total > 0, total, 1.0)[:, None]

    def above(self, threshold: float, min_shared: float, margin: float = MARGIN,
              floor: float = FLOOR) -> list[tuple[int, int]]:
        """The pairs (i < j) that share at least ``min_shared`` and either both reach ``threshold``, or are each
        other's most alike by ``margin`` over anyone else either is alike to, and reach ``floor``."""
        if len(self.students) < 2:
            return []
        enough = self.shared >= min_shared - 1e-6
        both = enough & (self.share >= threshold) & (self.share.T >= threshold)
        score = np.minimum(self.share, self.share.T)  # a pair's score: the lower of its two shares
        np.fill_diagonal(score, 0.0)
        ranked = np.sort(score, axis=1)[:, ::-1]
        best = ranked[:, 0]
        second = ranked[:, 1]
        mutual = (score >= best[:, None] - 1e-12) & (score >= best[None, :] - 1e-12)
        apart = score - np.maximum(second[:, None], second[None, :]) >= margin
        standing_out = enough & mutual & apart & (score >= floor)
        return [(int(i), int(j)) for i, j in zip(*np.nonzero(np.triu(both | standing_out, k=1)))]

    def cell_matches(self, a: str, b: str) -> tuple[CellMatch, ...]:
        """The answer cells in which a and b share fingerprints, with their scores and matching lines."""
        found = []
        for cell in self.order:
            mine, theirs = self.done[a].get(cell), self.done[b].get(cell)
            if mine is None or theirs is None:
                continue
            common = mine.fingerprints.keys() & theirs.fingerprints.keys()
            if not common:
                continue
            weight = sum(self.weight_of[cell, value] for value in common)
            if not weight:
                continue  # only what many students wrote alike
            of_a = sum(self.weight_of[cell, value] for value in mine.fingerprints)
            of_b = sum(self.weight_of[cell, value] for value in theirs.fingerprints)
            same = ({int(h) for h in mine.hashes} & {int(h) for h in theirs.hashes}) - self.printer.boilerplate
            found.append(CellMatch(cell, round(weight / of_a, 4), round(weight / of_b, 4),
                                   tuple(sorted(mine.lines(same))), tuple(sorted(theirs.lines(same)))))
        return tuple(found)


# -- the instructor's page -----------------------------------------------------------------------------------------

POLICY = "default-src 'none'; style-src 'unsafe-inline'"
_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
h2 { border-top: 2px solid #888; padding-top: .6em; }
table.side { width: 100%; border-collapse: collapse; table-layout: fixed; margin-bottom: 1.2em; }
table.side td { vertical-align: top; width: 50%; border: 1px solid #ccc; padding: 0; }
table.side th { text-align: left; font-weight: normal; background: #f3f3f3; border: 1px solid #ccc; padding: .3em; }
pre { margin: 0; padding: .3em; font-size: 12px; white-space: pre-wrap; word-break: break-all; }
pre span { display: block; }
pre span.match { background: #ffe08a; }
pre i { color: #999; font-style: normal; user-select: none; }
.note { color: #555; }
"""


def _side(source: str, matched: tuple[int, ...]) -> str:
    hit = set(matched)
    rows = []
    for number, line in enumerate(source.removesuffix("\n").split("\n"), 1):
        css = ' class="match"' if number in hit else ""
        rows.append(f"<span{css}><i>{number:3d} </i>{html.escape(line)}</span>")
    return "<pre>" + "".join(rows) + "</pre>"


def page(pairs: list[Pair], answers: Mapping[str, Mapping[str, str]], assignment: str,
         threshold: float = THRESHOLD) -> str:
    """The instructor's page of flagged pairs: highest first, each answer cell that matches side by side."""
    title = f"Similar submissions: {assignment}"
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">',
             f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>",
             f"<h1>{html.escape(title)}</h1>",
             f'<p class="note">{len(pairs)} pair(s) flagged: each submission has at least {threshold:.0%} of its '
             f"fingerprints in the other, or (from {FLOOR:.0%}) the two are each other's most alike, {MARGIN:.0%} "
             "nearer each other than either is to anyone else (fingerprints "
             "of code with names, comments and layout set aside; starter code and the course's code subtracted; "
             "fingerprints many students share count less). A flag is a reason to look, not a finding: it changes "
             "no grade. Highlighted lines match the other submission.</p>"]
    if not pairs:
        parts.append("<p>No pair of submissions is alike beyond what everyone shares.</p>")
    for n, pair in enumerate(pairs, 1):
        a, b = html.escape(pair.a), html.escape(pair.b)
        parts.append(f"<h2>{n}. {a} and {b}</h2>")
        parts.append(f"<p>{pair.score_a:.0%} of {a}'s submission is found in {b}'s, {pair.score_b:.0%} of {b}'s in "
                     f"{a}'s (weight shared: {pair.shared:g}).</p>")
        for match in pair.cells:
            source_a = answers.get(pair.a, {}).get(match.cell, "")
            source_b = answers.get(pair.b, {}).get(match.cell, "")
            parts.append(
                f'<table class="side"><tr><th colspan="2">answer cell <b>{html.escape(match.cell)}</b>: '
                f"{match.score_a:.0%} of {a}'s cell in {b}'s, {match.score_b:.0%} of {b}'s in {a}'s</th></tr>"
                f"<tr><th>{a}</th><th>{b}</th></tr>"
                f"<tr><td>{_side(source_a, match.lines_a)}</td><td>{_side(source_b, match.lines_b)}</td></tr></table>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_page(pairs: list[Pair], answers: Mapping[str, Mapping[str, str]], path: Path | str, assignment: str,
               threshold: float = THRESHOLD) -> Path:
    """Write :func:`page` to ``path`` (its folder made if needed); the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page(pairs, answers, assignment, threshold), encoding="utf-8")
    return path
