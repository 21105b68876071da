"""Two fine-tuning tasks of notebook 08 whose labels are real and built offline from the standard library's sources.

- :func:`code_tagging`: token classification. Each example is one logical line of Python source, its words the
  tokens of the standard library's :mod:`tokenize`, each tagged by what it is: ``keyword``, ``string``,
  ``number``, ``operator``, ``comment``, and, for names, by the part they play, which the neighbours decide:
  ``definition`` (the name after ``def`` or ``class``), ``call`` (a name followed by ``(``), ``attribute``
  (a name after ``.``, not called) and ``name`` (any other). ``append`` is a ``call`` in ``x.append(1)`` and an
  ``attribute`` in ``f = x.append``: a tagger that looks at the word alone cannot tell.
- :func:`docstring_pairs`: sentence pairs. A function's name and the first sentence of a docstring: is it that
  function's own docstring (label 1) or another function's (label 0)?

Both split by file: every fifth source file (in sorted order) is held out for validation, so validation lines and
functions come from modules that training never saw. About a second each, then cached.
"""
from __future__ import annotations

import ast
import functools
import json
import io
import re
import tokenize
from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np
import torch

from course_lib.data import stdlib_sources
from course_lib.tagging import token_tag

__all__ = ["CODE_TAGS", "CodeLine", "code_tagging", "line_tags", "DocPair", "docstring_pairs", "most_frequent_tags",
           "pad_rows", "frozen_states", "ridge_probe", "TASK_RESULTS", "load_task_results"]

#: the tags of :func:`code_tagging`, in the order of their ids
CODE_TAGS = ("keyword", "name", "definition", "call", "attribute", "string", "number", "operator", "comment")
_SKIPPED = {tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER, tokenize.ENCODING}


class CodeLine(NamedTuple):
    words: tuple[str, ...]  # the tokens of one logical line, as tokenize gives them
    tags: tuple[int, ...]   # one id into CODE_TAGS per word


def line_tags(words: list[str], kinds: list[int]) -> list[int]:
    """The tag id (into :data:`CODE_TAGS`) of each token of one line: notebook 04's rule, :func:`tagging.token_tag`."""
    return [CODE_TAGS.index(token_tag(kind, word, words[i - 1] if i else None, words[i + 1] if i + 1 < len(words)
                                      else None))
            for i, (word, kind) in enumerate(zip(words, kinds))]


def _file_lines(text: str, max_words: int, max_chars: int) -> list[CodeLine]:
    """The logical lines of one file (a comment alone on its line is a line), tokenized and tagged."""
    lines, words, kinds = [], [], []
    kept = (tokenize.NAME, tokenize.STRING, tokenize.NUMBER, tokenize.OP, tokenize.COMMENT)
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            ends = token.type == tokenize.NEWLINE or (token.type == tokenize.NL and kinds == [tokenize.COMMENT])
            if ends:
                if 3 <= len(words) <= max_words and all(0 < len(w) <= max_chars and w.isascii() for w in words):
                    lines.append(CodeLine(tuple(words), tuple(line_tags(words, kinds))))
                words, kinds = [], []
            elif token.type in kept:
                words.append(token.string)
                kinds.append(token.type)
            elif token.type not in _SKIPPED:  # the parts of an f-string (Python 3.12): the line is not kept
                words.append("\0" * (max_chars + 1))
                kinds.append(token.type)
    except (tokenize.TokenError, SyntaxError):
        pass
    return lines


@functools.lru_cache(maxsize=4)
def code_tagging(max_words: int = 16, max_chars: int = 24, per_file: int = 40, seed: int = 0
                 ) -> tuple[tuple[CodeLine, ...], tuple[CodeLine, ...]]:
    """(train, valid) lines of the standard library's source, their tokens tagged (see the module's docstring).

    Lines of 3 to ``max_words`` tokens, each token at most ``max_chars`` ASCII characters; at most ``per_file``
    lines drawn (seeded) from each file, so that no module dominates. Every fifth file goes to validation.
    """
    rng = np.random.default_rng(seed)
    train: list[CodeLine] = []
    valid: list[CodeLine] = []
    for number, path in enumerate(stdlib_sources()):
        try:
            lines = _file_lines(path.read_text(encoding="utf-8"), max_words, max_chars)
        except (UnicodeDecodeError, OSError):
            continue
        lines = list(dict.fromkeys(lines))  # each distinct line once
        chosen = [lines[i] for i in sorted(rng.permutation(len(lines))[:per_file])]
        (valid if number % 5 == 0 else train).extend(chosen)
    return tuple(train), tuple(valid)


def most_frequent_tags(train: tuple[CodeLine, ...]) -> tuple[dict[str, int], int]:
    """The baseline tagger's table: each training word's most frequent tag, and the most frequent tag of all."""
    counts: dict[str, dict[int, int]] = {}
    overall: dict[int, int] = {}
    for line in train:
        for word, tag in zip(line.words, line.tags):
            counts.setdefault(word, {})
            counts[word][tag] = counts[word].get(tag, 0) + 1
            overall[tag] = overall.get(tag, 0) + 1
    return {w: max(c, key=c.get) for w, c in counts.items()}, max(overall, key=overall.get)


class DocPair(NamedTuple):
    name: str       # a function's name, e.g. "copyfile"
    sentence: str   # the first sentence of a docstring
    label: int      # 1: the function's own docstring; 0: another function's


_FIRST_SENTENCE = re.compile(r"^(.+?[.!?])(\s|$)")


def _functions(path) -> list[tuple[str, str]]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("__"):
            doc = ast.get_docstring(node) or ""
            match = _FIRST_SENTENCE.match(" ".join(doc.split()))
            if match and 4 <= len(match.group(1).split()) <= 30 and doc.isascii():
                found.append((node.name.strip("_"), match.group(1)))
    return found


@functools.lru_cache(maxsize=4)
def docstring_pairs(seed: int = 0) -> tuple[tuple[DocPair, ...], tuple[DocPair, ...]]:
    """(train, valid) pairs (name, first docstring sentence, label): each function once with its own sentence
    (label 1) and once with the sentence of another function of the same split (label 0), shuffled.
    Every fifth file goes to validation; a name whose sentence occurs twice is kept once."""
    rng = np.random.default_rng(seed)
    splits: tuple[list, list] = ([], [])
    for number, path in enumerate(stdlib_sources()):
        splits[number % 5 == 0].extend(_functions(path))
    out = []
    for functions in splits:
        functions = list(dict((sentence, (name, sentence)) for name, sentence in functions).values())
        others = rng.permutation(len(functions))
        pairs = []
        for i, (name, sentence) in enumerate(functions):
            j = int(others[i]) if others[i] != i else (i + 1) % len(functions)
            pairs += [DocPair(name, sentence, 1), DocPair(name, functions[j][1], 0)]
        out.append(tuple(pairs[k] for k in rng.permutation(len(pairs))))
    return out[0], out[1]


# ---------------------------------------------------------------------------
# frozen features and a linear probe on them


def pad_rows(rows: Sequence[Sequence[int]], pad_value: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Lists of ids -> (ids (B, T) right-padded with ``pad_value``, attention mask (B, T): 1 for real tokens)."""
    length = max(len(row) for row in rows)
    ids = torch.full((len(rows), length), pad_value, dtype=torch.long)
    mask = torch.zeros(len(rows), length, dtype=torch.long)
    for b, row in enumerate(rows):
        ids[b, :len(row)] = torch.as_tensor(list(row), dtype=torch.long)
        mask[b, :len(row)] = 1
    return ids, mask


@torch.no_grad()
def frozen_states(bert, rows: Sequence[Sequence[int]], types: Sequence[Sequence[int]] | None = None,
                  batch_size: int = 64) -> list[torch.Tensor]:
    """The last layer of a frozen :class:`course_lib.bert.BertModel` for each row of ids: a list of (T_i, H).

    Rows are batched by length (little padding); each row's own positions are returned, padding cut off.
    """
    order = sorted(range(len(rows)), key=lambda i: len(rows[i]))
    device = next(bert.parameters()).device
    out: list[torch.Tensor | None] = [None] * len(rows)
    for start in range(0, len(order), batch_size):
        chosen = order[start:start + batch_size]
        ids, mask = pad_rows([rows[i] for i in chosen], 0)
        segments = None if types is None else pad_rows([types[i] for i in chosen], 0)[0]
        hidden = bert(ids.to(device), None if segments is None else segments.to(device),
                      mask.to(device)).last_hidden_state.float().cpu()  # (B, T, H)
        for b, i in enumerate(chosen):
            out[i] = hidden[b, :len(rows[i])]
    return out  # type: ignore[return-value]


def ridge_probe(train_x: torch.Tensor, train_y: torch.Tensor, classes: int, ridge: float = 10.0):
    """A linear classifier fit in one step (ridge regression of one-hot classes on standardised features).

    Returns ``predict``: features (M, D) -> predicted classes (M,).
    """
    mean, std = train_x.mean(0), train_x.std(0) + 1e-6
    X = ((train_x - mean) / std).double()  # (N, D)
    targets = torch.nn.functional.one_hot(train_y, classes).double()  # (N, classes)
    prior = targets.mean(0)
    W = torch.linalg.solve(X.T @ X + ridge * torch.eye(X.shape[1], dtype=X.dtype), X.T @ (targets - prior))  # (D, C)

    def predict(x: torch.Tensor) -> torch.Tensor:
        return ((((x - mean) / std).double() @ W) + prior).argmax(-1)
    return predict


TASK_RESULTS = Path(__file__).resolve().parent / "assets" / "bert_tasks.json"


def load_task_results(path: str | Path = TASK_RESULTS) -> dict:
    """The accuracies of ``benchmarks/bert_tasks.py`` (several seeds per task and contender), with date and machine."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no results at {path}; write them with `python benchmarks/bert_tasks.py`.")
    return json.loads(path.read_text())
