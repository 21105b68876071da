"""The check of ``nsp_pair(sentence_a, sentence_b, cls_id, sep_id)`` (notebook 07): against the real tokenizer's
pair encoding ``tokenizer(a, b)``, [CLS] A [SEP] B [SEP] with token types 0 and 1, on sentences of the standard
library's docstrings.
"""
from __future__ import annotations

import re
from typing import Callable, Sequence

import torch

from course_lib.checks.bert_common import docstrings, tokenizer, tokenizer_bans
from course_lib.checks.common import WRITE_IT_YOURSELF
from course_lib.grading.answers import AnswerError, Variant, call_answer_all, case_note, describe_value, report_pass

# ---------------------------------------------------------------------------
# nsp_pair(sentence_a, sentence_b, cls_id, sep_id)


def nsp_sentences(count: int = 40, seed: int = 0) -> list[tuple[str, str]]:
    """Pairs of consecutive sentences of one standard-library docstring (sentence B follows A)."""
    pairs = []
    for doc in docstrings():
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", " ".join(doc.split())) if 4 <= len(s.split()) <= 40]
        pairs += list(zip(sentences, sentences[1:]))
    g = torch.Generator().manual_seed(seed)
    return [pairs[i] for i in torch.randperm(len(pairs), generator=g)[:count].tolist()]


def plain_nsp_pair(a, b, cls_id, sep_id, *, last_sep=True, first_cls=True, sep_type=0, b_type=1, cls_type=0,
                   swap=False):
    """[CLS] A [SEP] B [SEP] and its token types (0 for [CLS], A and the first [SEP]); or one known mistake."""
    if swap:
        a, b = b, a
    ids = ([cls_id] if first_cls else []) + list(a) + [sep_id] + list(b) + ([sep_id] if last_sep else [])
    types = ([cls_type] if first_cls else []) + [0] * len(a) + [sep_type] + [b_type] * (len(b) + (1 if last_sep else 0))
    return ids, types


def nsp_pair_mistakes() -> list[Variant]:
    """The known wrong pairs, each a function of (a, b, cls_id, sep_id)."""
    def v(name, message, **mistake):
        return Variant(name, message, lambda a, b, c, s: plain_nsp_pair(a, b, c, s, **mistake))
    return [
        v("no_last_sep", "the final [SEP] after sentence B is missing: [CLS] A [SEP] B [SEP].", last_sep=False),
        v("no_cls", "the [CLS] at the start is missing: [CLS] A [SEP] B [SEP].", first_cls=False),
        v("sep_in_b", "the [SEP] after sentence A belongs to segment A (token type 0); segment B (1) starts after it.",
          sep_type=1),
        v("all_zero", "every token type is 0; the tokens of sentence B and its [SEP] have token type 1.", b_type=0),
        v("swapped", "sentences A and B are swapped: A comes first, right after [CLS].", swap=True),
        v("cls_in_b", "[CLS] belongs to segment A (token type 0).", cls_type=1),
    ]


def _as_int_list(ex, x, what):
    if isinstance(x, torch.Tensor):
        x = x.tolist()
    if not isinstance(x, (list, tuple)) or not all(isinstance(i, int) and not isinstance(i, bool) for i in x):
        raise AnswerError(ex, f"{what} should be a list of ints (or a 1-D integer tensor), got {describe_value(x)}.")
    return list(x)


def _first_difference(got: list, expected: list, n_a: int, n_b: int) -> str:
    """Where a built pair first differs from [CLS] A [SEP] B [SEP], by the role of that position."""
    roles = (["[CLS]"] + [f"token {i + 1} of sentence A" for i in range(n_a)] + ["the [SEP] after sentence A"]
             + [f"token {i + 1} of sentence B" for i in range(n_b)] + ["the final [SEP]"])
    at = next((i for i, (g, e) in enumerate(zip(got, expected)) if g != e), min(len(got), len(expected)))
    role = roles[at] if at < len(roles) else f"position {at}"
    if at == len(got):
        return f"stops after {len(got)} entries; {role} (position {at}) and what follows are missing"
    if at == len(expected):
        return f"has {len(got) - len(expected)} entries too many after {roles[-1]}"
    return f"differs first at position {at}, {role}: yours {got[at]}, it should be {expected[at]}"


def check_nsp_pair(nsp_pair: Callable, *, pairs: Sequence[tuple[str, str]] | None = None,
                   special_ids: tuple[int, int] | None = None) -> None:
    """Against the real tokenizer's pair encoding ``tokenizer(a, b)`` ([CLS] A [SEP] B [SEP], token types 0/1).

    ``special_ids`` (cls_id, sep_id) other than BERT's (101, 102) renumbers the tokenizer's specials."""
    ex = "nsp_pair"
    tok = tokenizer()
    pairs = nsp_sentences() if pairs is None else pairs
    cls_id, sep_id = special_ids or (tok.cls_token_id, tok.sep_token_id)
    renumber = {tok.cls_token_id: cls_id, tok.sep_token_id: sep_id}
    singles = [(tok(a_text, add_special_tokens=False)["input_ids"], tok(b_text, add_special_tokens=False)["input_ids"])
               for a_text, b_text in pairs]
    given = [(list(ids_a), list(ids_b)) for ids_a, ids_b in singles]
    outs = call_answer_all(ex, nsp_pair, [((a, b, cls_id, sep_id), {}) for a, b in given], banned=tokenizer_bans(),
                           reason=WRITE_IT_YOURSELF)
    for (a_text, b_text), (ids_a, ids_b), out in zip(pairs, singles, outs):
        encoded = tok(a_text, b_text)
        expected_ids = [renumber.get(i, i) for i in encoded["input_ids"]]
        expected_types = list(encoded["token_type_ids"])
        case = f"A = {a_text[:40]!r}{'...' if len(a_text) > 40 else ''}, B = {b_text[:40]!r}" \
               f"{'...' if len(b_text) > 40 else ''}, cls_id={cls_id}, sep_id={sep_id}"
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise AnswerError(ex, f"should return a pair (input_ids, token_type_ids), got {describe_value(out)}.")
        got_ids = _as_int_list(ex, out[0], "input_ids")
        got_types = _as_int_list(ex, out[1], "token_type_ids")
        if got_ids == expected_ids and got_types == expected_types:
            continue
        for variant in nsp_pair_mistakes():
            wrong_ids, wrong_types = variant.compute(ids_a, ids_b, cls_id, sep_id)
            if (got_ids, got_types) == (wrong_ids, wrong_types) and (wrong_ids, wrong_types) != (
                    expected_ids, expected_types):
                raise AnswerError(ex, f"{variant.message}{case_note(case)}")
        if (cls_id, sep_id) != (tok.cls_token_id, tok.sep_token_id):
            plain = plain_nsp_pair(ids_a, ids_b, tok.cls_token_id, tok.sep_token_id)
            if (got_ids, got_types) == plain:
                raise AnswerError(ex, f"you wrote BERT's ids 101 and 102; use the arguments cls_id and sep_id"
                                      f"{case_note(case)}.")
        if len(got_ids) != len(got_types):
            raise AnswerError(ex, f"input_ids has {len(got_ids)} entries but token_type_ids {len(got_types)}; there is "
                                  "one token type per token.")
        if got_ids != expected_ids:
            raise AnswerError(ex, f"input_ids {_first_difference(got_ids, expected_ids, len(ids_a), len(ids_b))}"
                                  f"{case_note(case)}.")
        raise AnswerError(ex, f"token_type_ids {_first_difference(got_types, expected_types, len(ids_a), len(ids_b))}"
                              f"{case_note(case)}.")
    report_pass(ex, f"{len(pairs)} sentence pairs equal to the tokenizer's [CLS] A [SEP] B [SEP]")
