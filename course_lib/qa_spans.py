"""Extractive question answering on real text, built offline, and the span head notebook 07 runs ``best_span`` on.

:func:`docstring_qa` makes SQuAD-like examples from the standard library: every public function whose docstring
starts "Return(s) X." gives a question "What does NAME return?" and the answer X, a span of a passage that
holds that function's sentence and the sentences of two other functions, each after its name::

    passage:  "tell: Return the current file position. pop: Return the popped value. getpos: Return ..."
    question: "What does pop return?"                       answer: "the popped value"

The answer is always the words after "Return", but in the sentence of the function the question names: the model
has to find the name in the passage. Every fifth source file is held out (as ``course_lib.bert_tasks``).

:class:`SpanHead` is a linear layer from MiniLM's last layer to a start and an end logit per token; the one in
``course_lib/assets/span_head.pt`` was trained by ``python benchmarks/train_span_head.py`` with MiniLM frozen.
"""
from __future__ import annotations

import ast
import functools
import re
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch
from torch import nn

from course_lib.data import stdlib_sources
from course_lib.weights import read_checkpoint

__all__ = ["QAExample", "docstring_qa", "encode_qa", "SpanHead", "SPAN_HEAD_PATH", "load_span_head"]

SPAN_HEAD_PATH = Path(__file__).resolve().parent / "assets" / "span_head.pt"
_RETURNS = re.compile(r"^Returns? (.+?)\.(\s|$)")


class QAExample(NamedTuple):
    question: str
    passage: str
    answer_start: int  # character offset of the answer in the passage
    answer: str


def _returns(path) -> list[tuple[str, str, str]]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            doc = " ".join((ast.get_docstring(node) or "").split())
            match = _RETURNS.match(doc)
            if match and 2 <= len(match.group(1).split()) <= 12 and doc.isascii():
                found.append((node.name, match.group(0).strip(), match.group(1)))
    return found


@functools.lru_cache(maxsize=4)
def docstring_qa(per_function: int = 3, seed: int = 0) -> tuple[tuple[QAExample, ...], tuple[QAExample, ...]]:
    """(train, valid) questions: each function with a "Return(s) X." docstring asked about ``per_function`` times,
    each time beside two other functions of its split (drawn, seeded), in a random place among them."""
    rng = np.random.default_rng(seed)
    splits: tuple[list, list] = ([], [])
    for number, path in enumerate(stdlib_sources()):
        splits[number % 5 == 0].extend(_returns(path))
    out = []
    for functions in splits:
        functions = list({name: (name, sentence, answer) for name, sentence, answer in functions}.values())
        examples = []
        for i, (name, sentence, answer) in enumerate(functions):
            for _ in range(per_function):
                others = [int(j) for j in rng.choice(len(functions), 3, replace=False) if j != i][:2]
                chosen = [functions[j] for j in others]
                chosen.insert(int(rng.integers(0, 3)), functions[i])
                passage, start = "", 0
                for other_name, other_sentence, _ in chosen:
                    if other_name == name:
                        start = len(passage) + len(name) + 2 + other_sentence.index(answer)
                    passage += f"{other_name}: {other_sentence} "
                examples.append(QAExample(f"What does {name} return?", passage.strip(), start, answer))
        out.append(tuple(examples))
    return out[0], out[1]


def encode_qa(example: QAExample, tokenizer) -> tuple[list[int], list[int], int, int]:
    """([CLS] question [SEP] passage [SEP] ids, segment ids, the answer's first and last token positions)."""
    encoded = tokenizer(example.question, example.passage, return_offsets_mapping=True)
    types, offsets = encoded["token_type_ids"], encoded["offset_mapping"]
    end_char = example.answer_start + len(example.answer)
    in_passage = [i for i, t in enumerate(types) if t == 1 and offsets[i][1] > offsets[i][0]]
    start = next(i for i in in_passage if offsets[i][1] > example.answer_start)
    end = max(i for i in in_passage if offsets[i][0] < end_char)
    return encoded["input_ids"], types, start, end


class SpanHead(nn.Module):
    """(B, T, H) hidden states -> start logits (B, T) and end logits (B, T)."""

    def __init__(self, hidden_size: int):
        super().__init__()
        self.linear = nn.Linear(hidden_size, 2)

    def forward(self, hidden: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits = self.linear(hidden)  # (B, T, 2)
        return logits[..., 0], logits[..., 1]


def load_span_head(path: str | Path = SPAN_HEAD_PATH) -> tuple[SpanHead, dict]:
    """(the trained :class:`SpanHead` in eval mode, what its training measured: exact match on held-out questions,
    and the first held-out questions themselves, as lists of QAExample's fields)."""
    checkpoint = read_checkpoint(path, "span head", "python benchmarks/train_span_head.py")
    head = SpanHead(checkpoint["hidden_size"])
    head.load_state_dict({name: tensor.float() for name, tensor in checkpoint["state_dict"].items()})
    return head.eval(), checkpoint["meta"]
