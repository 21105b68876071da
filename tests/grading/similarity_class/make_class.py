"""A synthetic class of 40 submissions of notebook 05 (self-attention) with 5 copied pairs, to test a copy detector.

``make_class(out_dir)`` writes ``out_dir/s01.ipynb`` .. ``out_dir/s40.ipynb`` and returns
``{"students": [...], "copied_pairs": [(original, copy), ...]}``. Deterministic: the only randomness is
``random.Random`` seeded with fixed strings.

35 students wrote their notebooks on their own: 30 "independent" ones, composed per student from the variant pools of
answers_data.py (each picks, per answer cell, a way of writing it that fits their habits, their own names, comments,
quotes and mistakes, and may leave cells unanswered), and the 5 originals of the pairs, whose choices are written
out below. The other 5 took an original's notebook and disguised it (DISGUISES, from light to heavy).

Run ``python tests/grading/similarity_class/make_class.py OUT_DIR`` to write the class and print a summary.
"""
from __future__ import annotations

import ast
import io
import random
import re
import sys
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder.cells import answers, with_answers

try:
    from . import answers_data as data
except ImportError:  # imported by path (sys.path holds this folder) or run as a script
    import answers_data as data

ROOT = Path(__file__).resolve().parents[3]
RELEASE = ROOT / "notebooks" / "05_self_attention.ipynb"
MARKER = "# YOUR CODE HERE"
STUB_WRITTEN = "YOUR ANSWER HERE"

__all__ = ["DISGUISES", "PAIRS", "make_class", "submissions"]


# ---------------------------------------------------------------------------------------------------------- styles
@dataclass(frozen=True)
class Style:
    """How a student writes, whatever the answer: names, comments, quotes, what they do with the stub's lines."""
    names: int = 0                 # index into answers_data.NAME_PROFILES
    mark: bool = True              # keeps the released "# YOUR CODE HERE"
    comments: float = 0.0          # 0: strips the template's comments; else the share of cells given a comment
    comment_seed: int = 0          # which of a cell's COMMENTS this student writes
    quotes: str = '"'              # the quote character of their strings
    raise_commented: bool = False  # turns the stub's raise into a comment instead of deleting it
    blank_after_mark: bool = False


@dataclass(frozen=True)
class Author:
    """A student who wrote their own notebook."""
    name: str
    style: Style
    tags: str = ""                      # the kinds of variants they prefer (see answers_data.POOLS)
    bug_rate: float = 0.0               # the chance that a cell holds a mistake
    skip: tuple = ()                    # cells left unanswered (the released stub)
    written: int | None = None          # index into answers_data.WRITTEN (None: left unanswered)
    choices: dict = field(default_factory=dict)  # cell -> variant, fixed (the originals of the pairs)


# the originals of the copied pairs: every answer chosen by hand
ORIGINALS = [
    Author("a1", Style(names=0, mark=True, comments=0.6, comment_seed=1), written=16, choices={
        "dot_score": "ok_loop", "scaled_dot_score": "ok_dk_var", "bilinear_score": "ok_loop",
        "additive_score": "ok_loop_q", "table_scores": "ok_loop", "table_scaled": "ok_dk", "table_weights": "ok_loop",
        "table_weighted": "ok_loop", "table_z": "bug_slide", "attention_scores": "ok_loops",
        "softmax": "ok_max_values", "self_attention": "ok_add_bias", "causal_mask": "ok_loop",
        "space_invader": "ok_clone_index", "brown_dog": "ok_dk_pow"}),
    Author("a2", Style(names=2, mark=False, comments=0.5, comment_seed=3), written=11, choices={
        "dot_score": "ok_einsum", "scaled_dot_score": "ok_einsum", "bilinear_score": "ok_einsum",
        "additive_score": "ok_einsum", "table_scores": "ok_einsum", "table_scaled": "ok_shape",
        "table_weights": "ok_method", "table_weighted": "ok_einsum", "table_z": "ok_torch_sum",
        "attention_scores": "ok_einsum", "softmax": "ok_short", "self_attention": "bug_mask_after",
        "causal_mask": "ok_arange", "space_invader": "ok_where", "brown_dog": "ok_sqrt64"}),
    Author("a3", Style(names=4, mark=True, comments=0.3, comment_seed=5), written=30, choices={
        "dot_score": "ok_helper", "scaled_dot_score": "ok_scale_var", "bilinear_score": "ok_reuse_dot",
        "additive_score": "ok_helper", "table_scores": "ok_reuse_dot", "table_scaled": "ok_sqrt2",
        "table_weights": "ok_num_den", "table_weighted": "ok_unsqueeze", "table_z": "ok_sum_dim",
        "attention_scores": "ok_reuse", "softmax": "ok_helper", "self_attention": "ok_helper",
        "causal_mask": "ok_not_triu", "space_invader": "ok_via_attention", "brown_dog": "ok_checks_dk"}),
    Author("a4", Style(names=3, mark=True, comments=0.4, comment_seed=2, blank_after_mark=True), written=20, choices={
        "dot_score": "ok_mT", "scaled_dot_score": "ok_numpy", "bilinear_score": "ok_matmul",
        "additive_score": "ok_matmul", "table_scores": "ok_index", "table_scaled": "ok_numpy",
        "table_weights": "ok_stable", "table_weighted": "ok_diag", "table_z": "ok_matvec",
        "attention_scores": "ok_reassign", "softmax": "ok_reassign", "self_attention": "ok_big_negative",
        "causal_mask": "ok_arange_unsqueeze", "space_invader": "ok_big_negative", "brown_dog": "ok_exp_by_hand"}),
    Author("a5", Style(names=1, mark=True, comments=0.0, quotes="'"), skip=("additive_score",), written=None,
           choices={
        "dot_score": "ok_transpose", "scaled_dot_score": "bug_precedence", "bilinear_score": "bug_WT",
        "table_scores": "ok_qKT", "table_scaled": "ok_pow", "table_weights": "ok_inline",
        "table_weighted": "ok_view", "table_z": "ok_builtin_sum", "attention_scores": "ok_prescale",
        "softmax": "bug_logsumexp", "self_attention": "ok_inline_none", "causal_mask": "ok_listcomp",
        "space_invader": "ok_additive_mask", "brown_dog": "bug_unscaled"}),
]

_LATE = ("causal_mask", "space_invader", "brown_dog", "why_scale")   # the end of the notebook, left by a late student

#: the 30 independent students: their habits; their answers are drawn per cell from the pools (seeded by name)
INDEPENDENT = [
    Author("i01", Style(names=0, mark=True), tags="common concise", written=0),
    Author("i02", Style(names=1, mark=False, quotes="'"), tags="concise", bug_rate=0.1, written=13),
    Author("i03", Style(names=5, mark=True, comments=0.7, comment_seed=4), tags="verbose einsum", written=21),
    Author("i04", Style(names=2, mark=True, comments=0.2, comment_seed=6), tags="matmul", bug_rate=0.15, written=3),
    Author("i05", Style(names=6, mark=False, comments=0.5, comment_seed=0), tags="loop verbose", bug_rate=0.1,
           written=8),
    Author("i06", Style(names=3, mark=True, quotes="'"), tags="common", bug_rate=0.3, skip=("additive_score",),
           written=22),
    Author("i07", Style(names=7, mark=True, comments=0.3, comment_seed=2), tags="helper", written=5),
    Author("i08", Style(names=4, mark=False), tags="einsum concise", written=25),
    Author("i09", Style(names=0, mark=True, raise_commented=True), tags="common", bug_rate=0.2, written=14),
    Author("i10", Style(names=1, mark=True, comments=0.9, comment_seed=7), tags="verbose", written=1),
    Author("i11", Style(names=5, mark=False, quotes="'"), tags="numpy matmul", bug_rate=0.1, written=26),
    Author("i12", Style(names=2, mark=True), tags="common concise", bug_rate=0.4, skip=_LATE, written=None),
    Author("i13", Style(names=6, mark=True, comments=0.4, comment_seed=1), tags="loop", bug_rate=0.2, written=7),
    Author("i14", Style(names=0, mark=False, comments=0.6, comment_seed=3, blank_after_mark=True), tags="verbose",
           written=23),
    Author("i15", Style(names=3, mark=True), tags="matmul concise", written=18),
    Author("i16", Style(names=7, mark=False, quotes="'"), tags="einsum", bug_rate=0.15, written=12),
    Author("i17", Style(names=4, mark=True, comments=0.3, comment_seed=5), tags="common helper", bug_rate=0.1,
           written=29),
    Author("i18", Style(names=1, mark=True), tags="", bug_rate=0.5, skip=("additive_score", "bilinear_score"),
           written=27),
    Author("i19", Style(names=2, mark=False, comments=0.5, comment_seed=0), tags="concise", written=10),
    Author("i20", Style(names=5, mark=True), tags="verbose matmul", bug_rate=0.2, written=None),
    Author("i21", Style(names=0, mark=True, comments=0.2, comment_seed=6, quotes="'"), tags="common", written=33),
    Author("i22", Style(names=6, mark=False), tags="loop helper", bug_rate=0.1, written=9),
    Author("i23", Style(names=3, mark=True, comments=0.8, comment_seed=4), tags="einsum verbose", written=6),
    Author("i24", Style(names=7, mark=True), tags="common", bug_rate=0.25, skip=("softmax", "self_attention"),
           written=19),
    Author("i25", Style(names=4, mark=False, comments=0.4, comment_seed=2), tags="numpy", written=31),
    Author("i26", Style(names=1, mark=True, comments=0.1, comment_seed=7, quotes="'"), tags="concise",
           bug_rate=0.1, written=24),
    Author("i27", Style(names=2, mark=True), tags="helper verbose", bug_rate=0.15, written=2),
    Author("i28", Style(names=0, mark=False, raise_commented=True), tags="matmul", bug_rate=0.35,
           skip=("bilinear_score",), written=4),
    Author("i29", Style(names=5, mark=True, comments=0.5, comment_seed=1), tags="common verbose", written=15),
    Author("i30", Style(names=6, mark=True), tags="einsum concise", bug_rate=0.05, written=32),
]


# ---------------------------------------------------------------------------------------------------------- copies
@dataclass(frozen=True)
class Disguise:
    """What the copier of a pair did to the original's notebook."""
    name: str
    original: str
    copier: Style                                  # how they write the cells they wrote themselves
    drop_marker: bool = False                      # deleted the "# YOUR CODE HERE" lines
    strip_comments: bool = False                   # deleted the original's comments
    add_comments: float = 0.0                      # then added comments of their own to this share of cells
    quotes: str | None = None                      # turned every short string's quotes into these
    rename: dict = field(default_factory=dict)     # old name -> new name, in every copied code cell
    reorder: dict = field(default_factory=dict)    # cell -> the order of its top-level functions
    edits: dict = field(default_factory=dict)      # cell -> [(old text, new text)], each must occur
    own: dict = field(default_factory=dict)        # cell -> variant they wrote themselves ("stub": left it)
    written: str | None = None                     # their written answer (None: the original's, as it is)


DISGUISES = [
    # light: the notebook as it was, with the stub's marker lines gone, a few comments changed, other quotes and
    # blank lines; even the original's typed-in z for "machines" (a mistake) is still there
    Disguise("light", "a1", Style(names=0, mark=False, comments=0.3, comment_seed=6), drop_marker=True,
             add_comments=0.25, quotes="'",
             edits={"dot_score": [("    return torch.stack(", "\n    return torch.stack(")],
                    "attention_scores": [("    return output", "\n    return output")],
                    "softmax": [("    return exps", "\n    return exps")],
                    "table_weights": [("total = 0\n", "total = 0  # running sum\n")]},
             written=data.WRITTEN[16].replace("As the slider shows,", "Like the slider shows,")
             .replace("a little", "a bit")),
    # renamed: the local names replaced, the einsum subscripts relettered, comments stripped; the original's
    # mistake (the mask applied after the softmax) copied with it
    Disguise("renamed", "a2", Style(names=1, mark=False), strip_comments=True,
             rename={"attn_scores": "sc", "attn_weights": "w", "Wq": "q_proj", "Uk": "k_proj", "hidden": "h",
                     "exp_x": "ex", "idx": "pos", "allowed": "keep"},
             edits={"dot_score": [('"...qd,...kd->...qk"', '"...ik,...jk->...ij"')],
                    "scaled_dot_score": [('"...qd,...kd->...qk"', '"...ik,...jk->...ij"')],
                    "bilinear_score": [('"...id,de,...je->...ij"', '"...ia,ab,...jb->...ij"')],
                    "additive_score": [('"ad,...id->...ia"', '"hd,...qd->...qh"'), ('"ad,...jd->...ja"',
                                        '"hd,...kd->...kh"'), ('"...ija,a->...ij"', '"...qkh,h->...qk"')],
                    "table_scores": [('"d,jd->j"', '"i,ji->j"')],
                    "table_weighted": [('"j,jd->jd"', '"n,nd->nd"')],
                    "attention_scores": [('"...qd,...kd->...qk"', '"...ik,...jk->...ij"')]},
             written="Without the scaling, for $d_k = 512$ the variance of $q \\cdot k$ is $d_k$ (if the entries have "
                     "unit variance), so the scores spread over about $\\pm 45$. The softmax of such scores gives ~1 to "
                     "the largest and ~0 to the rest, and its gradient is ~0 there, so the model learns very slowly."),
    # medium: helpers and names renamed, helper functions moved below the function that calls them, other quotes,
    # a product or two turned around, the causal mask and the written answer their own
    Disguise("medium", "a3", Style(names=6, mark=True, comments=0.2, comment_seed=3, quotes="'"), quotes="'",
             strip_comments=True, add_comments=0.2,
             rename={"transpose_last": "swap_last_two", "project": "lin", "stable_exp": "shifted_exp",
                     "apply_mask": "mask_scores", "pairs": "summed", "biggest": "top", "energy": "sc",
                     "alpha": "attn", "ex": "expd", "numerator": "num", "denominator": "den", "X": "inp",
                     "M": "mat", "scale": "factor"},
             reorder={"dot_score": ["dot_score", "transpose_last"], "additive_score": ["additive_score", "project"],
                      "softmax": ["softmax", "stable_exp"], "self_attention": ["self_attention", "apply_mask"]},
             edits={"scaled_dot_score": [("factor * dot_score(Q, K)", "dot_score(Q, K) * factor")],
                    "table_weighted": [("machines_weights.unsqueeze(1) * V", "V * machines_weights.unsqueeze(1)")],
                    "additive_score": [('    """rows of X times M^T"""\n', "")],
                    "softmax": [('"""exp(x - max) along dim, so that nothing overflows"""',
                                 "'''subtract the max first (no overflow)'''")]},
             own={"causal_mask": "ok_tril_bool"},
             written="Without the $\\sqrt{d_k}$ the softmax gets too sharp when $d_k = 512$: almost all the "
             "weight ends up on one key. Then the gradient through the softmax is close to zero and the attention "
             "can hardly be trained."),
    # heavy: everything renamed, the comments rewritten, products turned around, temporaries inlined and the other
    # way round, other spellings of the same call (K.mT, transpose(0, 1), np.sqrt), three cells written again and
    # the written answer paraphrased
    Disguise("heavy", "a4", Style(names=7, mark=False, comments=0.3, comment_seed=5, quotes="'"), drop_marker=True,
             strip_comments=True, add_comments=0.35, quotes="'",
             rename={"logits": "raw", "probs": "p", "result": "res", "QW": "qw", "query_part": "qp",
                     "key_part": "kp", "summed": "tot", "rows": "r", "cols": "c", "shifted": "centred",
                     "d": "k_dim"},
             edits={"scaled_dot_score": [("import numpy as np\n\n\n", ""), ("np.sqrt(", "math.sqrt("),
                                         ("    raw = dot_score(Q, K)\n    return raw / math.sqrt(k_dim)",
                                          "    return dot_score(Q, K) / math.sqrt(k_dim)")],
                    "bilinear_score": [("    qw = torch.matmul(Q, W)\n    return torch.matmul(qw, K.transpose(-2, -1))",
                                        "    return torch.matmul(torch.matmul(Q, W), K.transpose(-2, -1))")],
                    "additive_score": [("W.transpose(0, 1)", "W.T"), ("U.transpose(0, 1)", "U.T"),
                                       ("qp.unsqueeze(-2) + kp.unsqueeze(-3)", "kp.unsqueeze(-3) + qp.unsqueeze(-2)"),
                                       ("torch.matmul(torch.tanh(tot), v)", "torch.tanh(tot) @ v")],
                    "table_scores": [("i = words.index('machines')\nmachines_scores = K @ Q[i]",
                                      "machines_scores = K @ Q[words.index('machines')]")],
                    "table_scaled": [("import numpy as np\n\n", ""), ("np.sqrt(2)", "math.sqrt(2)")],
                    "table_weights": [("centred = machines_scaled - machines_scaled.max()\n",
                                       "m = machines_scaled.max()\ncentred = machines_scaled - m\n")],
                    "attention_scores": [("K.mT", "K.transpose(-1, -2)")],
                    "softmax": [("torch.max(x, dim=dim, keepdim=True)[0]", "x.max(dim=dim, keepdim=True)[0]")],
                    "self_attention": [("torch.matmul(p, V), p", "p @ V, p")],
                    "causal_mask": [("    return r >= c", "    mask = r >= c\n    return mask")]},
             own={"dot_score": "ok_transpose", "table_z": "ok_sum0", "brown_dog": "ok_eight"},
             written="Leaving out the division means the scores have a standard deviation of about "
                     "$\\sqrt{512} \\approx 22.6$ instead of about 1. The softmax is then saturated: the weights are "
                     "close to one-hot. Its derivative with respect to the scores, $\\partial a / \\partial s$, is "
                     "nearly zero, so hardly any gradient reaches the queries and keys."),
    # partial: the function cells of sections 1, 5, 6 and 7 copied (with the original's two mistakes), names
    # changed and comments added; the notebook's hand computations, the rest and the written answer their own
    Disguise("partial", "a5", Style(names=0, mark=True, comments=0.4, comment_seed=4), drop_marker=True,
             add_comments=0.5, quotes='"', rename={"s": "score_mat", "w": "att", "d": "d_k"},
             own={"additive_score": "ok_mul_sum", "table_scores": "ok_mul_sum", "table_scaled": "ok_shape",
                  "table_weights": "ok_exps", "table_weighted": "ok_unsqueeze", "table_z": "ok_sum_dim",
                  "space_invader": "ok_two_steps", "brown_dog": "ok_checks_dk"},
             edits={"attention_scores": [("    scale = Q.shape[-1] ** -0.5\n",
                                          "    # scale the queries first, it's the same thing\n"
                                          "    scale = Q.shape[-1] ** -0.5\n")]},
             written=data.WRITTEN[28]),
]

#: (original, copier) as student ids; the copiers' and originals' ids are spread over the class
PAIRS = [("s07", "s31"), ("s22", "s03"), ("s14", "s35"), ("s29", "s11"), ("s36", "s19")]


def _ids() -> dict[str, str]:
    """author name -> student id"""
    ids = {}
    for (original, copier), disguise, number in zip(PAIRS, DISGUISES, range(1, 6)):
        ids[disguise.original] = original
        ids[f"b{number}"] = copier
    rest = [f"s{n:02d}" for n in range(1, 41) if f"s{n:02d}" not in ids.values()]
    for author, sid in zip(INDEPENDENT, rest):
        ids[author.name] = sid
    return ids


# ---------------------------------------------------------------------------------------------------------- texts
def _tokens(src: str) -> list[tokenize.TokenInfo]:
    return list(tokenize.generate_tokens(io.StringIO(src).readline))


def _apply(src: str, edits: list[tuple[tuple[int, int], tuple[int, int], str]]) -> str:
    """Replace each ((row, col), (row, col)) span of src (tokenize's coordinates, one line each) with its text."""
    lines = src.splitlines(keepends=True)
    for (r0, c0), (r1, c1), text in sorted(edits, reverse=True):
        assert r0 == r1, "single-line tokens only"
        line = lines[r0 - 1]
        lines[r0 - 1] = line[:c0] + text + line[c1:]
    return "".join(lines)


def rename(src: str, mapping: dict[str, str]) -> str:
    """Rename names (not attributes, not keywords of a call's arguments) in Python source."""
    if not mapping:
        return src
    edits, prev = [], None
    toks = _tokens(src)
    for i, tok in enumerate(toks):
        if tok.type == tokenize.NAME and tok.string in mapping:
            attribute = prev is not None and prev.type == tokenize.OP and prev.string == "."
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            keyword = nxt is not None and nxt.string == "=" and prev is not None and prev.string in ("(", ",")
            if not attribute and not keyword:
                edits.append((tok.start, tok.end, mapping[tok.string]))
        if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            prev = tok
    return _apply(src, edits)


_SHORT_STRING = re.compile(r"^([rbfuRBFU]*)([\"'])([^\"'\\\n]*)\2$")


def flip_quotes(src: str, quote: str) -> str:
    """Every one-line string written with the other quote character, written with ``quote``."""
    edits = []
    for tok in _tokens(src):
        match = _SHORT_STRING.match(tok.string) if tok.type == tokenize.STRING else None
        if match and match.group(2) != quote:
            edits.append((tok.start, tok.end, f"{match.group(1)}{quote}{match.group(3)}{quote}"))
    return _apply(src, edits)


def strip_comments(src: str, keep: tuple = (MARKER,)) -> str:
    """Source without its comments (the lines in ``keep`` stay); a line that was only a comment goes."""
    lines = src.splitlines(keepends=True)
    drop, cut = set(), {}
    for tok in _tokens(src):
        if tok.type == tokenize.COMMENT and tok.string.strip() not in keep:
            row, col = tok.start
            if lines[row - 1][:col].strip():
                cut[row] = col
            else:
                drop.add(row)
    out = []
    for row, line in enumerate(lines, 1):
        if row in drop:
            continue
        if row in cut:
            line = line[:cut[row]].rstrip() + "\n"
        out.append(line)
    return "".join(out)


def reorder_functions(src: str, order: list[str]) -> str:
    """The cell's top-level functions in ``order`` (other statements stay in front); two blank lines between."""
    tree = ast.parse(src)
    lines = src.splitlines(keepends=True)
    chunks, start = [], 0
    for node in tree.body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
        while start < first and not lines[start].strip():
            start += 1
        chunks.append((node, "".join(lines[start:node.end_lineno]).rstrip("\n") + "\n"))
        start = node.end_lineno
    tail = "".join(lines[start:])
    defs = {node.name: text for node, text in chunks if isinstance(node, ast.FunctionDef)}
    assert sorted(defs) == sorted(order), (sorted(defs), order)
    head = [text for node, text in chunks if not isinstance(node, ast.FunctionDef)]
    body = "\n\n".join(defs[name] for name in order)
    return ("\n\n".join(head) + "\n\n" if head else "") + body + tail.rstrip("\n") + ("\n" if tail else "")


def _fill_names(template: str, profile: dict[str, str]) -> str:
    return re.sub(r"\{\{(SC|WT|OUT|EX|MX|DK)\}\}", lambda m: profile[m.group(1)], template)


def _stub_parts(stub: str) -> tuple[str, str]:
    """(the stub's lines before its "# YOUR CODE HERE", its lines after the raise)"""
    lines = stub.splitlines()
    mark = next(i for i, line in enumerate(lines) if line.strip() == MARKER)
    assert lines[mark + 1].strip() == "raise NotImplementedError()", stub
    return "\n".join(lines[:mark]), "\n".join(lines[mark + 2:])


def compose(cell: str, variant: str, style: Style, stub: str, comment: str | None = None) -> str:
    """A student's answer cell: the variant of the pool, in their style, in the released stub."""
    template = _fill_names(data.POOLS[cell][variant][2], data.NAME_PROFILES[style.names])
    template = re.sub(r"\{\{(HEAD|TAIL|MARK)\}\}", r"#@\1@", template)   # placeholders as comments, for tokenize
    if style.quotes != '"':
        template = flip_quotes(template, style.quotes)
    if not style.comments:
        template = strip_comments(template, keep=("#@HEAD@", "#@TAIL@", "#@MARK@"))
    template = re.sub(r"#@(HEAD|TAIL|MARK)@", r"{{\1}}", template)
    head, tail = _stub_parts(stub)
    out = []
    for line in template.splitlines():
        if line.strip() == "{{MARK}}":
            indent = line[:len(line) - len(line.lstrip())]
            if style.mark:
                out.append(indent + MARKER)
            if style.raise_commented:
                out.append(indent + "# raise NotImplementedError()")
            if comment:
                out.append(indent + comment)
            if style.blank_after_mark and style.mark:
                out.append("")
        elif line.strip() == "{{HEAD}}":
            out.append(head)
        elif line.strip() == "{{TAIL}}":
            out.append(tail)
        else:
            out.append(line)
    return "\n".join(out).rstrip("\n")


def _comment(cell: str, style: Style, rng: random.Random) -> str | None:
    pool = data.COMMENTS.get(cell)
    if not pool or not style.comments or rng.random() >= style.comments:
        return None
    return pool[(style.comment_seed + data.CELLS.index(cell)) % len(pool)]


# ---------------------------------------------------------------------------------------------------------- students
def _choose(author: Author, salt: int) -> dict[str, str]:
    """cell -> variant ("stub" when left unanswered) for an independent student."""
    rng = random.Random(f"similarity-class-05/{author.name}/{salt}")
    tags = set(author.tags.split())
    chosen = {}
    for cell in data.CELLS[:-1]:
        if cell in author.skip:
            chosen[cell] = "stub"
            continue
        pool = data.POOLS[cell]
        kind = "bug" if rng.random() < author.bug_rate else "ok"
        names = sorted(v for v in pool if pool[v][0] == kind)
        weights = [1 + 3 * bool(tags & set(pool[v][1].split())) + 2 * ("common" in pool[v][1]) for v in names]
        chosen[cell] = rng.choices(names, weights)[0]
    return chosen


def _shared(a: dict[str, str], b: dict[str, str], cells) -> int:
    return sum(1 for c in cells if a.get(c, "stub") != "stub" and a.get(c) == b.get(c))


#: most cells two independent students may write the same way (same variant), over all cells and non-trivial ones
MAX_SHARED, MAX_SHARED_NON_TRIVIAL = 6, 3


def distinctive(cell: str, variant: str) -> bool:
    """A variant two students would not write alike on their own: one with a helper function, or of four lines or
    more, that is not one of the answers most of a class converges on."""
    _, tags, template = data.POOLS[cell][variant]
    if "common" in tags.split():
        return False
    body = [line for line in template.splitlines() if line.strip() and "{{HEAD}}" not in line
            and "{{MARK}}" not in line and "{{TAIL}}" not in line]
    return template.startswith("def ") or len(body) >= 4


def _independent_choices() -> dict[str, dict[str, str]]:
    """Every independent student's variants, drawn again (a new salt) until no two students share too many, and
    no distinctive variant is written by two students."""
    chosen = {a.name: dict(a.choices) for a in ORIGINALS}
    taken = {(c, v) for a in ORIGINALS for c, v in a.choices.items() if distinctive(c, v)}
    for author in INDEPENDENT:
        for salt in range(500):
            mine = _choose(author, salt)
            mine_distinctive = {(c, v) for c, v in mine.items() if v != "stub" and distinctive(c, v)}
            if not mine_distinctive & taken and all(
                    _shared(mine, other, data.CELLS) <= MAX_SHARED
                    and _shared(mine, other, data.NON_TRIVIAL) <= MAX_SHARED_NON_TRIVIAL for other in chosen.values()):
                break
        else:
            raise RuntimeError(f"no draw for {author.name} keeps apart from the others")
        chosen[author.name] = mine
        taken |= mine_distinctive
    return chosen


def _own_cells(author: str, style: Style, choices: dict[str, str], stubs: dict[str, str],
               written: int | str | None, skip=()) -> dict[str, str]:
    """The answer cells of a student who wrote them."""
    rng = random.Random(f"similarity-class-05/comments/{author}")
    cells = {}
    for cell in data.CELLS[:-1]:
        variant = choices.get(cell, "stub")
        comment = _comment(cell, style, rng)
        cells[cell] = stubs[cell] if variant == "stub" or cell in skip else compose(cell, variant, style,
                                                                                     stubs[cell], comment)
    if written is None:
        cells["why_scale"] = stubs["why_scale"]
    else:
        cells["why_scale"] = data.WRITTEN[written] if isinstance(written, int) else written
    return cells


def _disguised(disguise: Disguise, number: int, original: dict[str, str], stubs: dict[str, str]) -> dict[str, str]:
    """The copier's answer cells: the original's, disguised."""
    rng = random.Random(f"similarity-class-05/copier/{disguise.name}")
    cells = {}
    for cell in data.CELLS[:-1]:
        src = original[cell]
        if cell in disguise.own:
            variant = disguise.own[cell]
            cells[cell] = stubs[cell] if variant == "stub" else compose(
                cell, variant, disguise.copier, stubs[cell], _comment(cell, disguise.copier, rng))
            continue
        if src == stubs[cell]:
            cells[cell] = src
            continue
        if disguise.strip_comments:
            src = strip_comments(src)
        if disguise.drop_marker:
            src = _drop_marker(src)
        src = rename(src, disguise.rename)
        if disguise.quotes:
            src = flip_quotes(src, disguise.quotes)
        if cell in disguise.reorder:
            src = reorder_functions(src, [disguise.rename.get(n, n) for n in disguise.reorder[cell]])
        for old, new in disguise.edits.get(cell, []):
            assert old in src, (disguise.name, cell, old, src)
            src = src.replace(old, new, 1)
        if disguise.add_comments and rng.random() < disguise.add_comments:
            pool = data.COMMENTS[cell]
            start = disguise.copier.comment_seed + number + data.CELLS.index(cell)
            comment = next(pool[(start + k) % len(pool)] for k in range(len(pool)) if pool[(start + k) % len(pool)]
                           not in src)
            src = _insert_comment(src, comment, stubs[cell])
        cells[cell] = src.rstrip("\n")
    cells["why_scale"] = original["why_scale"] if disguise.written is None else disguise.written
    return cells


def _drop_marker(src: str) -> str:
    """Without the "# YOUR CODE HERE" lines (and a blank line right after one)."""
    out, dropped = [], False
    for line in src.splitlines(keepends=True):
        if line.strip() == MARKER or (dropped and not line.strip()):
            dropped = line.strip() == MARKER
            continue
        dropped = False
        out.append(line)
    return "".join(out)


def _insert_comment(src: str, comment: str, stub: str) -> str:
    """``comment`` as the first line of the answer: after the stub's signature and docstring (and the marker line,
    where it was kept), or on top of a cell without a function."""
    head, _ = _stub_parts(stub)
    lines = src.splitlines(keepends=True)
    at, indent = 0, ""
    if head and head in src:
        at, indent = src[:src.index(head) + len(head)].count("\n") + 1, "    "
    if at < len(lines) and lines[at].strip() == MARKER:
        at += 1
    return "".join(lines[:at] + [indent + comment + "\n"] + lines[at:])


def submissions() -> tuple[dict[str, dict[str, str]], list[tuple[str, str]]]:
    """student id -> {answer cell -> source}, and the copied pairs (original, copier)."""
    release = nbformat.read(RELEASE, as_version=4)
    stubs = answers(release)
    assert list(stubs) == data.CELLS, list(stubs)
    ids = _ids()
    choices = _independent_choices()
    by_author = {}
    for author in ORIGINALS + INDEPENDENT:
        by_author[author.name] = _own_cells(author.name, author.style, choices[author.name], stubs, author.written,
                                            author.skip)
    for number, disguise in enumerate(DISGUISES, 1):
        by_author[f"b{number}"] = _disguised(disguise, number, by_author[disguise.original], stubs)
    students = {ids[name]: cells for name, cells in by_author.items()}
    return dict(sorted(students.items())), list(PAIRS)


def make_class(out_dir: Path) -> dict:
    """Write the class's 40 notebooks to ``out_dir/<student_id>.ipynb``; the students and the copied pairs."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    release = nbformat.read(RELEASE, as_version=4)
    students, pairs = submissions()
    for sid, cells in students.items():
        nb = with_answers(release, cells)
        nbformat.validate(nb)
        nbformat.write(nb, out_dir / f"{sid}.ipynb")
    return {"students": list(students), "copied_pairs": pairs}


if __name__ == "__main__":
    made = make_class(Path(sys.argv[1]))
    print(f"{len(made['students'])} students in {sys.argv[1]}; copied pairs (original, copy): {made['copied_pairs']}")
