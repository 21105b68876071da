"""Two tasks on Python source with exact labels (notebook 04): tagging every token, and naming a snippet's module.

1. **Token tagging** (many-to-many). The standard library's own ``tokenize`` cuts a file into tokens and gives
   each a category; :func:`tagged_lines` turns that into one tag per token (:data:`TAGS`), the names split by
   their role, which only the neighbours tell: a **definition** follows ``def`` or ``class``, a **call** is
   followed by ``(``, an **attribute** follows ``.``. The sequences are logical lines (comments on their own
   line are lines of one token). :func:`tagging_split` splits the standard library's files into training and
   validation files, so validation is held out by file.
2. **Which module** (many-to-one). :func:`module_snippets` cuts a few large modules into token windows of
   random length; the label is the module. Each module's first part is for training and its last part for
   validation (the labels are the files, so a held-out file would be a class never seen).

:class:`TokenVocab` maps tokens to ids (rare ones to an unknown id per shape: name, number, string, comment,
other), :func:`pad_batch` pads sequences into a (B, T) tensor with their lengths, and
:func:`most_frequent_tag` is the baseline a tagger must beat: each token string's most frequent tag in training.
Nothing here is downloaded: the sources are this machine's standard library.
"""
from __future__ import annotations

import functools
import io
import keyword
import pathlib
import sys
import tokenize as pytokenize
from collections import Counter, defaultdict
from typing import Sequence

import numpy as np
import torch

from course_lib.data import stdlib_sources

__all__ = ["TAGS", "tagged_lines", "tagging_split", "TokenVocab", "pad_batch", "most_frequent_tag",
           "SNIPPET_MODULES", "module_snippets"]

#: the tags, in the order of their ids
TAGS = ("keyword", "name", "definition", "attribute", "call", "string", "number", "operator", "comment")

_SKIP = {pytokenize.NEWLINE, pytokenize.NL, pytokenize.INDENT, pytokenize.DEDENT, pytokenize.ENDMARKER,
         pytokenize.ENCODING}
_KIND = {pytokenize.STRING: "string", pytokenize.NUMBER: "number", pytokenize.OP: "operator",
         pytokenize.COMMENT: "comment"}

Line = list[tuple[str, str]]  # one logical line: (token, tag) pairs


def token_tag(kind: int, token: str, before: str | None, after: str | None) -> str:
    """The tag (one of :data:`TAGS`) of one token, from its ``tokenize`` kind and its neighbours on the line."""
    if kind != pytokenize.NAME:
        return _KIND.get(kind, "operator")
    if keyword.iskeyword(token):
        return "keyword"
    if before in ("def", "class"):
        return "definition"
    if after == "(":
        return "call"
    if before == ".":
        return "attribute"
    return "name"


def tagged_lines(source: str, max_len: int = 40) -> list[Line]:
    """The logical lines of ``source`` as lists of (token, tag), at most ``max_len`` tokens each (longer lines are
    cut into pieces). Layout tokens (newlines, indents) are left out. A source ``tokenize`` cannot read gives []."""
    lines: list[list[tuple[int, str]]] = [[]]
    try:
        for tok in pytokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == pytokenize.NEWLINE or (tok.type == pytokenize.NL and lines[-1]):
                if lines[-1]:
                    lines.append([])
            elif tok.type not in _SKIP and tok.type != pytokenize.ERRORTOKEN:
                lines[-1].append((tok.type, tok.string))
    except (pytokenize.TokenError, IndentationError, SyntaxError):
        return []
    tagged = []
    for line in filter(None, lines):
        strings = [s for _, s in line]
        tags = [token_tag(kind, s, strings[k - 1] if k else None, strings[k + 1] if k + 1 < len(line) else None)
                for k, (kind, s) in enumerate(line)]
        pairs = list(zip(strings, tags))
        tagged.extend(pairs[i:i + max_len] for i in range(0, len(pairs), max_len))
    return tagged


@functools.lru_cache(maxsize=None)
def _file_lines(path: pathlib.Path, max_len: int) -> tuple[tuple[tuple[str, str], ...], ...]:
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return ()
    return tuple(tuple(line) for line in tagged_lines(text, max_len))


def tagging_split(n_train_files: int = 30, n_valid_files: int = 10, seed: int = 0, max_len: int = 40
                  ) -> tuple[list[Line], list[Line], list[str], list[str]]:
    """(train lines, validation lines, train file names, validation file names): the standard library's top-level
    files shuffled with ``seed``, the first ``n_train_files`` for training and the next ``n_valid_files`` for
    validation, so no validation file was seen in training."""
    files = stdlib_sources()
    order = np.random.default_rng(seed).permutation(len(files))
    train_files = [files[i] for i in order[:n_train_files]]
    valid_files = [files[i] for i in order[n_train_files:n_train_files + n_valid_files]]

    def lines(paths):
        return [list(line) for p in paths for line in _file_lines(p, max_len)]
    return lines(train_files), lines(valid_files), [p.name for p in train_files], [p.name for p in valid_files]


def _shape(token: str) -> str:
    if token.startswith("#"):
        return "<comment>"
    if token[:1].isdigit() or (token[:1] == "." and token[1:2].isdigit()):
        return "<number>"
    if token.isidentifier():
        return "<name>"
    if token[-1:] in "'\"":
        return "<string>"
    return "<other>"


class TokenVocab:
    """Token strings seen at least ``min_count`` times get their own id; any other token the id of its shape
    (``<name>``, ``<number>``, ``<string>``, ``<comment>``, ``<other>``). Id 0 is ``<pad>``."""

    SHAPES = ("<name>", "<number>", "<string>", "<comment>", "<other>")

    def __init__(self, sequences: Sequence[Sequence[str]], min_count: int = 3):
        counts = Counter(t for seq in sequences for t in seq)
        self.itos = ["<pad>", *self.SHAPES, *sorted(t for t, c in counts.items() if c >= min_count
                                                   and t not in self.SHAPES)]
        self.stoi = {t: i for i, t in enumerate(self.itos)}

    def __len__(self) -> int:
        return len(self.itos)

    def encode(self, tokens: Sequence[str]) -> list[int]:
        return [self.stoi.get(t, self.stoi[_shape(t)]) for t in tokens]


def pad_batch(sequences: Sequence[Sequence[int]], pad: int = 0, device=None) -> tuple[torch.Tensor, torch.Tensor]:
    """(padded (B, T) long tensor, lengths (B,)) with T the longest length; the end of a shorter row is ``pad``."""
    lengths = torch.tensor([len(s) for s in sequences])  # (B,)
    padded = torch.full((len(sequences), int(lengths.max())), pad, dtype=torch.long)  # (B, T)
    for b, s in enumerate(sequences):
        padded[b, :len(s)] = torch.as_tensor(list(s), dtype=torch.long)
    return padded.to(device), lengths.to(device)


def most_frequent_tag(train: Sequence[Line]):
    """The baseline tagger: a function token -> tag giving the token's most frequent tag in ``train``; a token
    never seen gets the most frequent tag of its shape (name, number, string, ...), else the most frequent tag."""
    by_token: dict[str, Counter] = defaultdict(Counter)
    by_shape: dict[str, Counter] = defaultdict(Counter)
    for line in train:
        for token, tag in line:
            by_token[token][tag] += 1
            by_shape[_shape(token)][tag] += 1
    overall = Counter(tag for line in train for _, tag in line).most_common(1)[0][0]
    best = {t: c.most_common(1)[0][0] for t, c in by_token.items()}
    shape_best = {s: c.most_common(1)[0][0] for s, c in by_shape.items()}
    return lambda token: best.get(token) or shape_best.get(_shape(token), overall)


#: the modules of the which-module task: large files with different jobs
SNIPPET_MODULES = ("argparse", "tarfile", "subprocess", "typing", "datetime", "pydoc")


def module_snippets(modules: Sequence[str] = SNIPPET_MODULES, per_module: int = 300, min_len: int = 5,
                    max_len: int = 40, valid_fraction: float = 0.2, seed: int = 0
                    ) -> tuple[list[list[str]], list[int], list[list[str]], list[int]]:
    """(train snippets, train labels, validation snippets, validation labels): windows of ``min_len`` to
    ``max_len`` consecutive tokens (layout tokens left out), label = the index of their module in ``modules``.
    Each module's first ``1 - valid_fraction`` of tokens gives training windows, the rest validation ones
    (``per_module`` in all, split in that proportion), never overlapping the boundary."""
    by_name = {p.stem: p for p in stdlib_sources()}
    rng = np.random.default_rng(seed)
    out: tuple[list, list, list, list] = ([], [], [], [])
    for label, name in enumerate(modules):
        tokens = [t for line in _file_lines(by_name[name], 10 ** 6) for t, _ in line]
        cut = int(len(tokens) * (1 - valid_fraction))
        if min(cut, len(tokens) - cut) <= max_len:
            raise ValueError(f"the module {name} gives {len(tokens)} tokens on this Python "
                             f"({sys.version.split()[0]}), too few for windows of up to {max_len} tokens in its "
                             f"training and validation parts; the course's corpora are Python 3.11's")
        n_valid = int(per_module * valid_fraction)
        for part, (lo, hi), n in ((0, (0, cut), per_module - n_valid), (2, (cut, len(tokens)), n_valid)):
            for _ in range(n):
                length = int(rng.integers(min_len, max_len + 1))
                start = int(rng.integers(lo, hi - length))
                out[part].append(tokens[start:start + length])
                out[part + 1].append(label)
    return out


def reverse_within_lengths(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Each row's first ``lengths[b]`` positions in reverse order, the padding left where it is: x (B, T, ...).

    A backward LSTM must start at each sequence's last real token, not at the padding after it, so it reads
    ``reverse_within_lengths(x, lengths)``; its states, reversed the same way again, are back in time order
    (what ``pack_padded_sequence`` does for ``nn.LSTM(bidirectional=True)``)."""
    T = x.shape[1]
    t = torch.arange(T, device=x.device)[None]  # (1, T)
    source = torch.where(t < lengths[:, None], lengths[:, None] - 1 - t, t)  # (B, T): where each position comes from
    return x.gather(1, source.view(*source.shape, *[1] * (x.dim() - 2)).expand_as(x))
