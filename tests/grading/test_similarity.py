"""Similar submissions (autograder.similarity): copies are flagged however they are disguised; independent work,
the untouched scaffold and common one-liners are not; the instructor's page shows the pairs safely.

The synthetic class (:func:`synthetic_class`) is notebook 05 as a class of students would hand it in: each answer
cell is the instructors' answer or one of the right answers written differently (tests/support/nb05_answers.py),
with each student's own rewrites of its idioms, extra lines, names, comments and layout; some students leave cells
blank. Some students copy another's whole notebook and disguise it (:func:`disguised`).
"""
import html
import io
import json
import os
import random
import re
import subprocess
import sys
import time
import tokenize
from pathlib import Path

import nbformat
import pytest

from autograder import cells
from autograder.similarity import Scaffold, code_tokens, flag_similar, page, write_page
from notebook_runner import REPO

import nb05_answers

RELEASE = nbformat.read(REPO / "notebooks" / "05_self_attention.ipynb", as_version=4)
SOLUTION = nbformat.read(REPO / "solutions" / "05_self_attention.ipynb", as_version=4)
SCAFFOLD = Scaffold.from_release(RELEASE)


def without_markers(source: str) -> str:
    return "\n".join(line for line in source.splitlines() if line.strip() not in cells.MARKERS) + "\n"


#: the instructors' answers as a student hands them in (no nbgrader markers)
MODEL = {cell: without_markers(source) for cell, source in cells.answers(SOLUTION).items()}
STUBS = cells.answers(RELEASE)

# -- two people writing the same functions, each their own way ------------------------------------------------------

ALICE = {
    "softmax": '''def softmax(x, dim=-1):
    """Numerically stable softmax of x along dim."""
    shifted = x - x.amax(dim=dim, keepdim=True)   # subtract the max so exp cannot overflow
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=dim, keepdim=True)
''',
    "self_attention": '''def self_attention(Q, K, V, mask=None):
    """Return (output, weights) of scaled dot-product attention; mask is True where allowed."""
    scores = attention_scores(Q, K)                        # (..., n_q, n_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-1)                      # (..., n_q, n_k)
    return weights @ V, weights                            # (..., n_q, d_v)
''',
    "additive_score": '''def additive_score(Q, K, W, U, v):
    """Additive (MLP) scores v . tanh(W q_i + U k_j)."""
    def project(X, M, where):
        return (X @ M.T).unsqueeze(where)

    def combine(queries, keys):
        hidden = torch.tanh(queries + keys)
        assert hidden.shape[-1] == v.shape[0], "v must have d_a entries"
        return hidden @ v

    queries = project(Q, W, -2)                       # (..., n_q, 1, d_a)
    keys = project(K, U, -3)                          # (..., 1, n_k, d_a)
    return combine(queries, keys)
''',
    "causal_mask": '''def causal_mask(n):
    """(n, n) bool tensor, True where query i may attend to key j (j <= i)."""
    allowed = torch.ones(n, n, dtype=torch.bool)
    allowed = allowed.tril()
    return allowed
''',
}

BOB = {
    "softmax": '''def softmax(x, dim=-1):
    """Numerically stable softmax of x along dim."""
    # moving dim last keeps the indexing simple
    z = x.movedim(dim, -1)
    biggest, _ = z.max(-1, keepdim=True)
    e = (z - biggest).exp()
    total = e.sum(-1).unsqueeze(-1)
    return (e / total).movedim(-1, dim)
''',
    "self_attention": '''def self_attention(Q, K, V, mask=None):
    """Return (output, weights) of scaled dot-product attention; mask is True where allowed."""
    d = K.size(-1)
    logits = torch.matmul(Q, K.transpose(-1, -2)) * (1.0 / d ** 0.5)
    if mask is not None:
        logits = torch.where(mask, logits, torch.full_like(logits, -1e9))
    attn = torch.softmax(logits, dim=-1)
    out = torch.einsum("...ij,...jd->...id", attn, V)
    return out, attn
''',
    "additive_score": '''def additive_score(Q, K, W, U, v):
    """Additive (MLP) scores v . tanh(W q_i + U k_j)."""
    rows = []
    for i in range(Q.shape[-2]):
        q_part = Q[..., i:i + 1, :] @ W.t()              # (..., 1, d_a)
        k_part = K @ U.t()                               # (..., n_k, d_a)
        rows.append(torch.tanh(q_part + k_part) @ v)     # (..., n_k)
    return torch.stack(rows, dim=-2)
''',
    "causal_mask": '''def causal_mask(n):
    """(n, n) bool tensor, True where query i may attend to key j (j <= i)."""
    rows = torch.arange(n).unsqueeze(1)
    cols = torch.arange(n).unsqueeze(0)
    return cols <= rows
''',
}


def renamed(source: str, names: dict[str, str]) -> str:
    """``source`` with each variable, parameter and function of ``names`` renamed (attributes and keyword arguments
    of calls are left alone), as a student would with find-and-replace done right."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    lines = source.splitlines(keepends=True)
    depth, edits = 0, []
    for i, t in enumerate(tokens):
        if t.type == tokenize.OP:
            depth += (t.string in "([{") - (t.string in ")]}")
        if t.type != tokenize.NAME or t.string not in names:
            continue
        before = tokens[i - 1].string if i else ""
        after = tokens[i + 1].string if i + 1 < len(tokens) else ""
        in_call = not t.line.lstrip().startswith("def ")
        if before == "." or (depth and after == "=" and before in "(," and in_call):
            continue
        edits.append((t.start, t.end, names[t.string]))
    for (row, col), (_, end), new in sorted(edits, reverse=True):
        line = lines[row - 1]
        lines[row - 1] = line[:col] + new + line[end:]
    return "".join(lines)


def recommented(source: str, rng: random.Random) -> str:
    """Comments dropped or reworded, blank lines and spacing changed."""
    out = []
    for line in source.splitlines():
        code = line.split("  #")[0].rstrip() if "  #" in line else line
        if code.strip().startswith("#"):
            code = ""
        if code.strip() and rng.random() < 0.3:
            code += "  # " + rng.choice(["shape check", "see lecture", "as on the slide", "works", "TODO tidy"])
        if code.strip() or rng.random() < 0.5:
            out.append(code)
        if rng.random() < 0.15:
            out.append("")
    text = "\n".join(out) + "\n"
    return text.replace(", ", ",") if rng.random() < 0.3 else text


# -- a synthetic class of notebook 05 ------------------------------------------------------------------------------

#: each student's own way of writing the course's idioms: (pattern, the ways to write what it matches)
REWRITES = [
    (r"(\w+)\.transpose\(-2, -1\)", [r"\1.transpose(-1, -2)", r"\1.mT", r"torch.transpose(\1, -2, -1)",
                                     r"\1.swapaxes(-2, -1)"]),
    (r"math\.sqrt\(([^()]*(?:\([^()]*\))?[^()]*)\)", [r"(\1) ** 0.5", r"\1 ** 0.5", r"torch.tensor(\1).sqrt()",
                                                        r"np.sqrt(\1)"]),
    (r"torch\.exp\((\w+)\)", [r"\1.exp()", r"torch.e ** \1"]),
    (r"float\(\"-inf\"\)", ["-1e9", "float('-inf')", "-math.inf", "-torch.inf", '-float("inf")']),
    (r"(\w+)\.amax\(dim=dim, keepdim=True\)", [r"\1.max(dim=dim, keepdim=True).values",
                                              r"torch.max(\1, dim=dim, keepdim=True)[0]",
                                              r"\1.max(dim, keepdim=True)[0]"]),
    (r"\.sum\(dim=dim, keepdim=True\)", [".sum(dim, keepdim=True)", ".sum(dim=dim).unsqueeze(dim)",
                                         ".sum(axis=dim, keepdims=True)"]),
    (r"~mask", ["mask == 0", "mask.logical_not()", "~mask.bool()", "(mask == False)"]),
    (r"(\w+) @ (\w+)\b(?![.(\[])", [r"torch.matmul(\1, \2)", r"\1.matmul(\2)"]),
    (r"\.unsqueeze\((-\d)\)", [r".unsqueeze(dim=\1)", r".unsqueeze(\1).contiguous()"]),
    (r"torch\.ones\(n, n, dtype=torch\.bool\)\.tril\(\)", ["torch.tril(torch.ones(n, n)).bool()",
                                                            "torch.ones(n, n).tril() == 1",
                                                            "~torch.triu(torch.ones(n, n, dtype=torch.bool), 1)"]),
    (r"dim=-1\)(?!:)", ["-1)", "dim=len(scores.shape) - 1)"]),
    (r"K @ Q\[3\]", ["torch.matmul(K, Q[3])", "(K * Q[3]).sum(dim=1)", "K @ Q[3].T", "Q[3] @ K.T"]),
    (r"machines_weights\[:, None\] \* V", ["machines_weights.unsqueeze(1) * V", "V * machines_weights[:, None]",
                                           "torch.diag(machines_weights) @ V"]),
    (r"\.sum\(dim=0\)", [".sum(0)", ".sum(axis=0)"]),
    (r"exps / exps\.sum\(\)", ["exps / torch.sum(exps)", "exps / exps.sum(dim=0)"]),
    (r"\breturn (.+)$", [r"result = \1\n    return result", r"out = \1\n    return out"]),
]
#: lines a student adds of their own, at the start of a function's body
EXTRAS = [
    "assert {a}.shape[-1] == {b}.shape[-1], \"dimensions must agree\"",
    "d_k = {a}.shape[-1]",
    "n_q, n_k = {a}.shape[-2], {b}.shape[-2]",
    "{a} = {a}.float()",
    "# print({a}.shape, {b}.shape)",
    "if {a}.dim() < 2:\n        raise ValueError(\"expected a batch of vectors\")",
    "{b} = {b}.to({a}.dtype)",
    "device = {a}.device",
]
NAMES = ["x", "y", "z", "t", "s", "w", "out", "res", "tmp", "val", "mat", "att", "sc", "p", "h", "o", "m", "e",
         "big", "tot"]
PROSE = [
    ["Without scaling the dot products grow with d_k.", "The variance of q.k is d_k, so the scores are large.",
     "If we do not divide, the scores become huge for d_k = 512."],
    ["Then the softmax saturates and gives almost one-hot weights.", "Large scores make softmax put all its mass on "
     "one key.", "The softmax becomes very peaked, close to an argmax."],
    ["Its gradient is then nearly zero, so learning stops.", "The gradients vanish and the queries and keys barely "
     "train.", "So the gradient through the softmax is tiny and training is slow."],
    ["Dividing by sqrt(d_k) keeps the variance at one.", "Scaling by 1/sqrt(d_k) fixes this.", ""],
]


def assigned_names(source: str) -> list[str]:
    """The names a cell binds (variables, parameters, its own helpers), in the order they first appear."""
    import ast
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.append(node.id)
        elif isinstance(node, ast.arg):
            found.append(node.arg)
    given = set(STUBS) | {"softmax", "attention_scores", "causal_mask", "dot_score", "self_attention"}
    return [n for n in dict.fromkeys(found) if n not in given and not n.endswith(("_scores", "_scaled", "_weights",
                                                                                      "_values", "_machines"))]


def own_version(source: str, rng: random.Random, rewrite: float = 0.5) -> str:
    """A student's own writing of an answer: each idiom rewritten with probability ``rewrite``, a line or two of
    their own, their own names, comments and layout."""
    for pattern, ways in REWRITES:
        source = re.sub(pattern, lambda m: m.expand(rng.choice(ways)) if rng.random() < rewrite else m.group(),
                        source, flags=re.M)
    if source.startswith("def ") and rng.random() < 0.5:
        params = re.findall(r"\((\w+)(?:, (\w+))?", source)[0]
        a, b = params[0], params[1] or params[0]
        lines = source.splitlines()
        at = 2 if '"""' in lines[1] else 1
        lines.insert(at, "    " + rng.choice(EXTRAS).format(a=a, b=b))
        source = "\n".join(lines) + "\n"
    names = [n for n in assigned_names(source) if rng.random() < 0.6]
    pool = [n for n in NAMES if n not in assigned_names(source)]
    source = renamed(source, dict(zip(names, rng.sample(pool, len(names)))))
    return recommented(source, rng)


def disguised(submission: dict[str, str], rng: random.Random, edits: int = 0) -> dict[str, str]:
    """A copy of a whole submission: every name changed, comments and layout changed, functions of a cell reordered,
    and ``edits`` cells rewritten a little (one idiom)."""
    copy = {}
    for cell, source in submission.items():
        if cell == "why_scale":
            copy[cell] = source.lower().replace(".", ";", 1) if source != STUBS[cell] else source
            continue
        names = assigned_names(source) if source != STUBS[cell] else []
        pool = [f"{rng.choice(NAMES)}{i}" for i in range(len(names))]
        copy[cell] = recommented(renamed(source, dict(zip(names, pool))), rng)
    for cell in rng.sample([c for c in copy if c != "why_scale" and copy[c] != STUBS[c]], edits):
        pattern, ways = rng.choice([r for r in REWRITES if re.search(r[0], copy[cell], flags=re.M)] or [REWRITES[0]])
        copy[cell] = re.sub(pattern, lambda m: m.expand(rng.choice(ways)), copy[cell], count=1, flags=re.M)
    return copy


def synthetic_class(students: int = 200, copiers: int = 20, seed: int = 5):
    """(answers, copies): ``students`` submissions of notebook 05; ``copies``: (original, copy) for the last
    ``copiers`` students, each a disguised copy of an earlier student (some copied by two)."""
    rng = random.Random(seed)
    ways = {cell: [MODEL[cell]] + [alt[cell] for alt in nb05_answers.ALTERNATIVES.values() if cell in alt]
            for cell in MODEL}
    answers = {}
    for n in range(students - copiers):
        blank = rng.random() < 0.15
        mine = {}
        for cell in MODEL:
            if cell == "why_scale":
                text = " ".join(rng.choice(slot) for slot in PROSE).strip()
                mine[cell] = text if rng.random() < 0.9 else STUBS[cell]
            elif blank and rng.random() < 0.4:
                mine[cell] = STUBS[cell]
            else:
                mine[cell] = own_version(rng.choice(ways[cell]), rng, rewrite=rng.uniform(0.2, 0.8))
        answers[f"s{n:03d}"] = mine
    copies = []
    for n in range(students - copiers, students):
        original = f"s{rng.randrange(0, students - copiers):03d}"
        answers[f"s{n:03d}"] = disguised(answers[original], rng, edits=rng.choice([0, 1, 2]))
        copies.append((original, f"s{n:03d}"))
    return answers, copies


def test_the_synthetic_copies_are_disguised_and_the_students_differ():
    answers, copies = synthetic_class(40, 4, seed=1)
    original, copy = copies[0]
    assert answers[original] != answers[copy]
    changed = sum(answers[original][c] != answers[copy][c] for c in MODEL if answers[original][c] != STUBS[c])
    assert changed >= 10
    assert len({answers[s]["softmax"] for s in answers}) >= 30
    for submission in answers.values():   # every synthetic answer is Python
        for cell, source in submission.items():
            if cell != "why_scale":
                compile(source, cell, "exec")


# -- what is flagged and what is not -------------------------------------------------------------------------------

def class_of(*submissions: dict[str, str]) -> dict[str, dict[str, str]]:
    """Students s0, s1, ... handing in ``submissions`` (cells they leave out: the stubs)."""
    return {f"s{i}": {**STUBS, **mine} for i, mine in enumerate(submissions)}


def test_an_exact_copy_is_flagged():
    answers = class_of(ALICE, ALICE, BOB)
    pairs = flag_similar(answers, SCAFFOLD)
    assert [(p.a, p.b) for p in pairs] == [("s0", "s1")]
    assert pairs[0].score_a == pytest.approx(1.0) and pairs[0].score_b == pytest.approx(1.0)
    assert {m.cell for m in pairs[0].cells} == {"softmax", "self_attention", "additive_score", "causal_mask"}


def test_a_copy_with_new_names_reordered_functions_and_new_comments_is_flagged():
    copy = {
        "softmax": '''def softmax(x, dim=-1):
    """Numerically stable softmax of x along dim."""
    # stability: take away the largest entry first
    centred = x - x.amax(dim=dim, keepdim=True)
    powers = torch.exp(centred)
    return powers / powers.sum(dim=dim, keepdim=True)
''',
        "self_attention": '''def self_attention(Q, K, V, mask=None):
    """Return (output, weights) of scaled dot-product attention; mask is True where allowed."""
    logits = attention_scores(Q, K)
    if mask is not None:   # blocked positions get -inf
        logits = logits.masked_fill(~mask, float("-inf"))
    probs = softmax(logits, dim=-1)
    return probs @ V, probs
''',
        "additive_score": '''def additive_score(Q, K, W, U, v):
    """Additive (MLP) scores v . tanh(W q_i + U k_j)."""
    def merge(left, right):
        act = torch.tanh(left + right)
        assert act.shape[-1] == v.shape[0], "v must have d_a entries"
        return act @ v

    def lift(mat, proj, axis):
        return (mat @ proj.T).unsqueeze(axis)

    left = lift(Q, W, -2)
    right = lift(K, U, -3)
    return merge(left, right)
''',
        "causal_mask": '''def causal_mask(n):
    """(n, n) bool tensor, True where query i may attend to key j (j <= i)."""
    m = torch.ones(n, n, dtype=torch.bool)
    m = m.tril()
    return m
''',
    }
    assert code_tokens(copy["additive_score"]) != code_tokens(ALICE["additive_score"])  # reordered
    answers = class_of(ALICE, BOB, copy)
    pairs = flag_similar(answers, SCAFFOLD)
    assert [(p.a, p.b) for p in pairs] == [("s0", "s2")]
    assert pairs[0].score >= 0.8
    cell = {m.cell: m for m in pairs[0].cells}["additive_score"]
    # every line of code of both versions matches (the reordered helpers too); the docstrings are the scaffold's
    assert set(cell.lines_a) >= {3, 4, 6, 7, 8, 9, 11, 12, 13}
    assert set(cell.lines_b) >= {3, 4, 5, 6, 8, 9, 11, 12, 13}


def test_two_independent_right_answers_written_differently_are_not_flagged():
    answers = class_of(ALICE, BOB)
    assert flag_similar(answers, SCAFFOLD) == []
    assert flag_similar(answers, SCAFFOLD, threshold=0.2, min_shared=5) == []


def test_the_untouched_scaffold_handed_in_by_everyone_flags_nobody():
    answers = class_of(*({} for _ in range(30)))
    assert answers["s0"] == STUBS
    assert flag_similar(answers, SCAFFOLD, threshold=0.01, min_shared=0.01) == []
    # the released answer cells alone (no course code) are the stubs; the released notebook is the whole scaffold
    assert flag_similar(answers, STUBS, threshold=0.01, min_shared=0.01) == []
    assert flag_similar(answers, RELEASE, threshold=0.01, min_shared=0.01) == []
    # and the stubs of a class where two students copied are still subtracted, whichever way they are given
    answers["s3"] = answers["s4"] = {**STUBS, **BOB}
    for scaffold in (SCAFFOLD, STUBS, RELEASE):
        assert [(p.a, p.b) for p in flag_similar(answers, scaffold)] == [("s3", "s4")]


def test_code_copied_from_course_lib_by_two_students_matches_nobody():
    """course_lib (in every student's bundle) has attention written out: two students who both take it share only
    what everyone has."""
    from_course = {
        "attention_scores": "def attention_scores(Q, K):\n    d_k = Q.shape[-1]\n    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n",
        "self_attention": '''def self_attention(Q, K, V, mask=None):
    scores = attention_scores(Q, K)  # (..., n_q, n_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)  # (..., n_q, n_k)
    return weights @ V, weights
''',
        "causal_mask": "def causal_mask(n):\n    return torch.ones(n, n, dtype=torch.bool, device=None).tril()\n"}
    answers = class_of(from_course, from_course, BOB)
    assert flag_similar(answers, SCAFFOLD) == []
    # without course_lib in the scaffold the same two are flagged
    alone = Scaffold.from_release(RELEASE, course_lib=False)
    assert [(p.a, p.b) for p in flag_similar(answers, alone)] == [("s0", "s1")]


def test_a_one_line_idiom_shared_by_many_flags_nobody():
    one_liners = {"scaled_dot_score": "def scaled_dot_score(Q, K):\n    return Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])\n",
                  "table_scores": "machines_scores = K @ Q[3]\nprint(machines_scores)",
                  "causal_mask": "def causal_mask(n):\n    return torch.ones(n, n, dtype=torch.bool).tril()\n"}
    answers = class_of(*(one_liners for _ in range(25)))
    assert flag_similar(answers, SCAFFOLD) == []
    # what everyone has weighs nothing, however little evidence a flag is allowed to need
    assert flag_similar(answers, SCAFFOLD, threshold=0.01, min_shared=0.01) == []
    # among students who each wrote the rest their own way, the idiom adds nothing to any pair
    answers = class_of(*({**(ALICE if i % 2 else BOB), **one_liners} for i in range(25)))
    pairs = flag_similar(answers, SCAFFOLD, threshold=0.01, min_shared=0.01)
    assert pairs and not {m.cell for p in pairs for m in p.cells} & set(one_liners)
    # nor are two students flagged who wrote just those three one-liners alike, and nobody else did: they share all
    # they wrote, but too little of it (with no floor on what they share, they would be)
    few = class_of(one_liners, one_liners, BOB)
    assert flag_similar(few, SCAFFOLD) == []
    assert [(p.a, p.b) for p in flag_similar(few, SCAFFOLD, min_shared=1)] == [("s0", "s1")]


def test_a_copy_among_many_writing_the_same_idioms_is_still_flagged():
    rng = random.Random(3)
    answers = {f"s{i:02d}": {**STUBS, **{c: own_version(MODEL[c], rng, rewrite=0.3) for c in MODEL if c != "why_scale"}}
               for i in range(40)}
    answers["s99"] = disguised(answers["s07"], rng)
    flagged = [(p.a, p.b) for p in flag_similar(answers, SCAFFOLD)]
    assert flagged == [("s07", "s99")]


def test_a_written_answer_copied_with_changed_case_and_punctuation_matches():
    text = ("Without scaling, $q \\cdot k$ has standard deviation $\\sqrt{512}$,\nso the softmax saturates and becomes "
            "almost one-hot; its gradient is then close to zero everywhere\nand training stalls. Dividing by "
            "$\\sqrt{d_k}$ restores unit variance.")
    twin = text.upper().replace(",", "").replace("$", "").replace("\n", " ")
    other = ("The dot products grow like sqrt(d_k), the weights become one-hot and the gradients of the softmax "
             "vanish; dividing keeps the scores of order one.")
    answers = {"s0": {"why_scale": text}, "s1": {"why_scale": twin}, "s2": {"why_scale": other}}
    pairs = flag_similar(answers, SCAFFOLD, min_shared=1)
    assert [(p.a, p.b) for p in pairs] == [("s0", "s1")]
    assert pairs[0].score == pytest.approx(1.0)
    assert pairs[0].cells[0].lines_a == (1, 2, 3) and pairs[0].cells[0].lines_b == (1,)


def test_a_cell_python_cannot_read_is_still_compared():
    broken = {"softmax": ALICE["softmax"] + "    if (x\n", "causal_mask": ALICE["causal_mask"]}
    assert [(p.a, p.b) for p in flag_similar(class_of(broken, broken), SCAFFOLD, min_shared=5)] == [("s0", "s1")]


# -- the synthetic class ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def synthetic():
    answers, copies = synthetic_class(200, 20)
    start = time.perf_counter()
    pairs = flag_similar(answers, SCAFFOLD)
    return answers, copies, pairs, time.perf_counter() - start


def test_a_class_of_200_flags_its_disguised_copies_and_nobody_else(synthetic):
    answers, copies, pairs, _ = synthetic
    copied = {tuple(sorted(pair)) for pair in copies}
    copied |= {tuple(sorted((a1, a2))) for (o1, a1) in copies for (o2, a2) in copies if o1 == o2 and a1 != a2}
    flagged = {(p.a, p.b) for p in pairs}
    assert flagged <= copied, flagged - copied            # no independent pair
    assert len(flagged & {tuple(sorted(p)) for p in copies}) >= 18   # of the 20 disguised copies


@pytest.mark.slow
def test_a_class_of_200_takes_under_30_seconds(synthetic):
    assert synthetic[3] < 30


# -- the instructor's page -----------------------------------------------------------------------------------------

def test_the_page_escapes_what_students_wrote_and_shows_matching_lines_side_by_side(tmp_path):
    hostile = {cell: source.replace('"""Numerically stable softmax of x along dim."""',
                                    '"""<script>alert(1)</script>"""') for cell, source in ALICE.items()}
    answers = {"<b>mallory</b>": {**STUBS, **hostile}, "eve": {**STUBS, **hostile}}
    pairs = flag_similar(answers, SCAFFOLD)
    assert len(pairs) == 1
    path = write_page(pairs, answers, tmp_path / "similar.html", "05_self_attention")
    text = path.read_text(encoding="utf-8")
    assert "<script" not in text and "<b>mallory" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text and "&lt;b&gt;mallory&lt;/b&gt;" in text
    assert '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">' in text
    assert "http://" not in text and "https://" not in text and "<link" not in text
    # softmax side by side: both columns show its highlighted lines, in one row of a table
    row = re.search(r"<b>softmax</b>.*?</table>", text, flags=re.S).group()
    left, right = re.findall(r"<td>(.*?)</td>", row, flags=re.S)
    expected = '<span class="match"><i>  5 </i>    return exps / exps.sum(dim=dim, keepdim=True)</span>'
    assert expected in left and expected in right
    assert '<span class="match"><i>  3 </i>    shifted = x - x.amax(dim=dim, keepdim=True)   # subtract the max ' \
           'so exp cannot overflow</span>' in left


def test_the_page_lists_pairs_highest_first_and_says_when_there_are_none():
    answers = class_of(ALICE, ALICE, {**ALICE, "softmax": BOB["softmax"], "causal_mask": BOB["causal_mask"]}, BOB)
    pairs = flag_similar(answers, SCAFFOLD, threshold=0.3)
    assert [(p.a, p.b) for p in pairs][0] == ("s0", "s1")
    assert [p.score for p in pairs] == sorted((p.score for p in pairs), reverse=True)
    text = page(pairs, answers, "05_self_attention")
    assert text.index("s0 and s1") < text.index("s0 and s2")
    assert "No pair" in page([], answers, "05_self_attention")
    assert html.escape("05_self_attention") in text


def test_the_scores_are_the_same_in_every_process():
    """Fingerprints are hashed with BLAKE2b, not Python's salted hash(): a batch checked twice gives the same flags."""
    script = ("import sys, json; sys.path[:0] = ['tests/support', 'tests/grading']; import test_similarity as t; "
              "p = t.flag_similar(t.class_of(t.ALICE, t.BOB, {**t.ALICE, 'softmax': t.BOB['softmax']}), t.SCAFFOLD, "
              "threshold=0.1); print(json.dumps([[x.a, x.b, x.score_a, x.score_b, x.shared] for x in p]))")
    runs = [subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")]
    assert runs[0] == runs[1]
    assert json.loads(runs[0])[0][:2] == ["s0", "s2"]


def test_the_blind_class_copied_pairs_are_flagged_and_no_other():
    """The class of 40 written by a tester who never read this module (tests/grading/similarity_class/): five
    copied pairs, disguised from light to heavy. Measured: the light, renamed and medium copies are flagged (the
    medium one, at 0.635, by standing apart from everyone else); the partial copy (0.478, 0.22 above either's next
    partner) and the heavy one (0.363: everything renamed, cells rewritten, temporaries inlined) are the 4th and
    7th most alike of the 780 pairs and are not; no independent pair is flagged."""
    import tempfile

    from similarity_class.make_class import make_class

    with tempfile.TemporaryDirectory() as tmp:
        made = make_class(Path(tmp))
        answers = {p.stem: cells.answers(nbformat.read(p, as_version=4)) for p in Path(tmp).glob("*.ipynb")}
    release = nbformat.read(REPO / "notebooks" / "05_self_attention.ipynb", as_version=4)
    flagged = {frozenset((p.a, p.b)) for p in flag_similar(answers, Scaffold.from_release(release))}
    copies = {frozenset(pair) for pair in made["copied_pairs"]}
    assert flagged <= copies, f"independent students flagged: {flagged - copies}"
    assert len(flagged) >= 3, f"copies missed: {copies - flagged}"


@pytest.mark.parametrize("students", [0, 1])
def test_a_class_of_one_or_none_flags_nobody(students):
    release = nbformat.read(REPO / "notebooks" / "05_self_attention.ipynb", as_version=4)
    answers = {f"s{n}": cells.answers(release) for n in range(students)}
    assert flag_similar(answers, Scaffold.from_release(release)) == []
