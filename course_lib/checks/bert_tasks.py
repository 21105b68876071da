"""Checks for notebook 08 (BERT at work): word labels aligned to WordPieces, and a sentence pair cut to fit.

References are independent of the notebook's code:

- ``align_labels``: the real fast tokenizer's ``word_ids()`` (``tokenizer(words, is_split_into_words=True)``): the
  first piece of each word gets its label, every other position -100 (the rule of Hugging Face's token
  classification examples), on lines of the standard library's source and on made-up words of many pieces;
- ``truncate_pair``: the real tokenizer's ``tokenizer(a, b, truncation="longest_first", max_length=...)`` on a
  function's name and a docstring sentence, both orders, many lengths; and, where the two are equally long, also
  the rule of ``transformers``' Python tokenizers (cut one token at a time from the longer one, from B on a tie), and
  the same rule cutting A on a tie (the notebook says a tie may cut either).

Each check tries a catalogue of known wrong answers when the answer is wrong and names the mistake.
"""
from __future__ import annotations

from typing import Callable, Sequence

import torch

from course_lib.bert_tasks import CODE_TAGS, code_tagging, docstring_pairs
from course_lib.checks.bert_common import hf_minilm, tokenizer, tokenizer_bans
from course_lib.checks.common import WRITE_IT_YOURSELF
from course_lib.grading.answers import (AnswerError, Variant, call_answer_all, call_answer_each, case_note,
                                       describe_value, report_pass)
from course_lib.grading.answers import install_notebook_hooks  # noqa: F401 (the notebook's setup cell calls it)

__all__ = ["IGNORE", "hf_minilm", "tokenizer", "align_cases", "plain_align_labels", "align_labels_mistakes",
           "check_align_labels", "pair_cases", "plain_truncate_pair", "truncate_pair_mistakes", "check_truncate_pair"]

IGNORE = -100
#: words the tokenizer cuts into many pieces, for the made-up lines
_LONG_WORDS = ("tokenisation", "xylophonist", "unaffable", "embeddings", "Hyperparameterisation", "WordPiece", "a",
               "the", "GELU", "anticonstitutionnellement", "(", "self.x", "'hello world'", "0x1F", "#comment")


def align_cases(count: int = 60, seed: int = 0) -> list[tuple[list[str], list[int]]]:
    """(words, labels): lines of held-out standard-library source with their tags, then made-up lines of words of
    many pieces with random labels (a label may be 0, the id of 'keyword')."""
    valid = code_tagging()[1]
    g = torch.Generator().manual_seed(seed)
    picked = torch.randperm(len(valid), generator=g)[:count].tolist()
    cases = [(list(valid[i].words), list(valid[i].tags)) for i in picked]
    for k in range(8):
        n = 1 + k % 6
        words = [_LONG_WORDS[int(i)] for i in torch.randint(len(_LONG_WORDS), (n,), generator=g)]
        cases.append((words, torch.randint(len(CODE_TAGS), (n,), generator=g).tolist()))
    cases.append((["tokenisation"], [0]))
    return cases


def _reference(words: list[str], labels: list[int]) -> list[int]:
    word_ids = tokenizer()(words, is_split_into_words=True).word_ids()
    out, previous = [], None
    for word in word_ids:
        out.append(IGNORE if word is None or word == previous else labels[word])
        previous = word
    return out


def plain_align_labels(labels, pieces, *, every_piece=False, specials=(True, True), last_piece=False, rest=IGNORE,
                       special_label=IGNORE, shift=0):
    """The right alignment, or one known mistake."""
    body = []
    for label, word in zip(labels, pieces):
        n = len(word)
        if every_piece:
            body += [label] * n
        elif last_piece:
            body += [rest] * (n - 1) + [label]
        else:
            body += [label] + [rest] * (n - 1)
    out = ([special_label] if specials[0] else []) + body + ([special_label] if specials[1] else [])
    if shift == -1:
        out = out[1:] + [special_label]
    elif shift == 1:
        out = [special_label] + out[:-1]
    return out


def align_labels_mistakes() -> list[Variant]:
    def v(name, message, **mistake):
        return Variant(name, message, lambda labels, pieces: plain_align_labels(labels, pieces, **mistake))
    return [
        v("every_piece", "every piece of a word got the word's label; only its first piece gets it, the others -100 "
          "(so each word counts once in the loss).", every_piece=True),
        v("no_specials", "[CLS] and [SEP] are missing: the model's input starts with [CLS] and ends with [SEP], and "
          "each needs a label too (-100).", specials=(False, False)),
        v("no_cls", "the -100 of [CLS] at the start is missing.", specials=(False, True)),
        v("no_sep", "the -100 of [SEP] at the end is missing.", specials=(True, False)),
        v("shift_left", "your labels are one position early (off by one): position 0 is [CLS], so the first word's "
          "first piece is position 1.", shift=-1),
        v("shift_right", "your labels are one position late (off by one): the first word's first piece is position "
          "1, right after [CLS].", shift=1),
        v("last_piece", "you labelled the last piece of each word; the convention is its first piece.",
          last_piece=True),
        v("rest_zero", "the pieces after a word's first piece got 0, which is a real label (the tag with id 0); "
          "they get -100, which cross-entropy ignores.", rest=0),
        v("specials_zero", "[CLS] and [SEP] got 0, which is a real label (the tag with id 0); they get -100.",
          special_label=0),
        Variant("one_per_word", "you returned one label per word, but there is one per position: a word of n pieces "
                "takes n positions (its label, then n - 1 times -100), plus [CLS] and [SEP].",
                lambda labels, pieces: [IGNORE] + list(labels) + [IGNORE]),
        Variant("one_too_many_per_word", "one -100 too many per word (off by one): a word of n pieces gets its label "
                "and then n - 1 times -100, len(pieces) - 1, not len(pieces).",
                lambda labels, pieces: [IGNORE] + [x for label, word in zip(labels, pieces)
                                                   for x in [label] + [IGNORE] * len(word)] + [IGNORE]),
    ]


def _as_int_list(ex, x, what):
    if isinstance(x, torch.Tensor):
        if x.dim() != 1 or x.dtype.is_floating_point:
            raise AnswerError(ex, f"{what} should be a list of ints (or a 1-D integer tensor), got "
                                  f"{describe_value(x)}.")
        x = x.tolist()
    if not isinstance(x, (list, tuple)) or not all(isinstance(i, int) and not isinstance(i, bool) for i in x):
        raise AnswerError(ex, f"{what} should be a list of ints (or a 1-D integer tensor), got {describe_value(x)}.")
    return list(x)


def check_align_labels(align_labels: Callable, *, count: int = 60, seed: int = 0) -> None:
    """Against the fast tokenizer's ``word_ids()``: the label on each word's first piece, -100 elsewhere."""
    ex = "align_labels"
    tok = tokenizer()
    cases = align_cases(count, seed)
    pieces = [[tok.tokenize(w) for w in words] for words, _ in cases]
    outs = call_answer_all(ex, align_labels, [((list(labels), [list(p) for p in word_pieces]), {})
                                              for (_, labels), word_pieces in zip(cases, pieces)],
                           banned=tokenizer_bans(), reason=WRITE_IT_YOURSELF)
    for (words, labels), word_pieces, out in zip(cases, pieces, outs):
        expected = _reference(words, labels)
        shown = " ".join(words)
        case = f"words {shown[:50]!r}{'...' if len(shown) > 50 else ''} ({sum(map(len, word_pieces))} pieces)"
        got = _as_int_list(ex, out, "the aligned labels")
        if got == expected:
            continue
        for variant in align_labels_mistakes():
            wrong = variant.compute(labels, word_pieces)
            if got == wrong and wrong != expected:
                raise AnswerError(ex, f"{variant.message}{case_note(case)}")
        if len(got) != len(expected):
            raise AnswerError(ex, f"you returned {len(got)} labels for {len(expected)} positions: the length must be "
                                  f"one per piece of the words, plus [CLS] and [SEP]{case_note(case)}.")
        at = next(i for i, (g, e) in enumerate(zip(got, expected)) if g != e)
        raise AnswerError(ex, f"position {at} should be {expected[at]}, yours is {got[at]}: the first piece of each "
                              f"word gets the word's label, every other position -100{case_note(case)}.")
    report_pass(ex, f"{len(cases)} lines equal to the labels the fast tokenizer's word_ids() gives")


# ---------------------------------------------------------------------------
# truncate_pair(ids_a, ids_b, max_length)


def pair_cases(count: int = 24, seed: int = 0) -> list[tuple[str, str, int]]:
    """(text A, text B, max_length): a function's name and a docstring sentence, in both orders, limits from too
    small to roomy; two equally long sentences; a pair that fits exactly."""
    pairs = docstring_pairs()[1]
    g = torch.Generator().manual_seed(seed)
    cases = []
    for k, i in enumerate(torch.randperm(len(pairs), generator=g)[:count].tolist()):
        name, sentence = pairs[i].name.replace("_", " "), pairs[i].sentence
        max_length = int(torch.randint(5, 33, (1,), generator=g))
        cases.append((name, sentence, max_length) if k % 3 else (sentence, name, max_length))
    a, b = pairs[0].sentence, pairs[1].sentence
    tok = tokenizer()
    n_a, n_b = len(tok.tokenize(a)), len(tok.tokenize(b))
    cases += [(a, b, n_a + n_b + 3), (a, b, n_a + n_b + 2), (a, a, 12), (a, a, 13), ("return", b, 9),
              ("the quick brown fox jumps over", "the lazy dog", 8), ("x", "y", 64)]
    return cases


def _tokenizer_lengths(a_text: str, b_text: str, max_length: int) -> tuple[int, int]:
    types = tokenizer()(a_text, b_text, truncation="longest_first", max_length=max_length)["token_type_ids"]
    return types.count(0) - 2, types.count(1) - 1


def _one_at_a_time(n_a: int, n_b: int, budget: int, ties_to_a: bool = False) -> tuple[int, int]:
    """transformers' Python rule: while too long, drop the last token of the longer one (of B on a tie, or of A)."""
    while n_a + n_b > budget:
        if n_a > n_b or (ties_to_a and n_a == n_b):
            n_a -= 1
        else:
            n_b -= 1
    return n_a, n_b


def plain_truncate_pair(a, b, max_length, *, specials=3, only_second=False, halves=False, from_front=False,
                        excess_halves=False, shorter_first=False):
    """Longest first, or one known mistake (None where that mistake would raise: popping from an empty list)."""
    budget = max_length - specials
    n_a, n_b = len(a), len(b)
    if only_second:
        n_b = max(0, budget - n_a)
    elif excess_halves:
        excess = max(0, n_a + n_b - budget)
        n_a, n_b = max(0, n_a - excess // 2), max(0, n_b - (excess - excess // 2))
    elif shorter_first:
        while n_a + n_b > budget:
            if (n_a < n_b and n_a == 0) or (n_a >= n_b and n_b == 0):
                return None
            n_a, n_b = (n_a - 1, n_b) if n_a < n_b else (n_a, n_b - 1)
    elif halves:
        if n_a + n_b > budget:
            n_a, n_b = budget // 2, budget - budget // 2
    else:
        n_a, n_b = _one_at_a_time(n_a, n_b, budget)
    n_a, n_b = min(n_a, len(a)), min(n_b, len(b))
    if from_front:
        return list(a[len(a) - n_a:]), list(b[len(b) - n_b:])
    return list(a[:n_a]), list(b[:n_b])


def truncate_pair_mistakes() -> list[Variant]:
    def v(name, message, **mistake):
        return Variant(name, message, lambda a, b, m: plain_truncate_pair(a, b, m, **mistake))
    return [
        v("no_specials", "you left no room for [CLS] and the two [SEP]s: A and B together may have max_length - 3 "
          "tokens.", specials=0),
        v("one_sep", "you left room for 2 special tokens, but a pair has 3: [CLS] A [SEP] B [SEP].", specials=2),
        v("one_special", "you left room for 1 special token, but a pair has 3: [CLS] A [SEP] B [SEP].", specials=1),
        v("only_second", "you cut only B; 'longest first' cuts whichever of the two is longer at each step, A too.",
          only_second=True),
        v("halves", "you cut both to half the room, even when one is short and fits; 'longest first' takes tokens "
          "only from the longer one until both are equally long.", halves=True),
        v("from_front", "you kept the ends and dropped the beginnings; cut tokens off the end of each sequence.",
          from_front=True),
        v("one_too_many", "you cut one token too many (off by one): a pair of exactly max_length tokens fits, so cut "
          "while len(a) + len(b) + 3 > max_length, not >=.", specials=4),
        v("excess_halves", "you took half of the excess from each of A and B; 'longest first' takes it from the "
          "longer one, one token at a time, and never from a short one that fits.", excess_halves=True),
        v("shorter_first", "you cut the shorter one first; 'longest first' cuts the longer one (with the shorter one "
          "cut first, a short name runs out of tokens: popping from an empty list).", shorter_first=True),
    ]


def check_truncate_pair(truncate_pair: Callable, *, cases: Sequence[tuple[str, str, int]] | None = None) -> None:
    """Against ``tokenizer(a, b, truncation="longest_first", max_length=...)``."""
    ex = "truncate_pair"
    tok = tokenizer()
    cases = pair_cases() if cases is None else cases
    ids = [(tok(a, add_special_tokens=False)["input_ids"], tok(b, add_special_tokens=False)["input_ids"])
           for a, b, _ in cases]
    outs = call_answer_each(ex, truncate_pair, [((list(ids_a), list(ids_b), m), {})
                                                for (ids_a, ids_b), (_, _, m) in zip(ids, cases)],
                            banned=tokenizer_bans(), reason=WRITE_IT_YOURSELF)
    raised = [out for out in outs if isinstance(out, AnswerError)]
    if raised:
        shorter = [plain_truncate_pair(ids_a, ids_b, m, shorter_first=True) for (ids_a, ids_b), (_, _, m) in
                   zip(ids, cases)]
        if "IndexError" in str(raised[0]) and all(
                (wrong is None) == isinstance(out, AnswerError) and (wrong is None or tuple(out) == tuple(wrong))
                for out, wrong in zip(outs, shorter)):
            raise AnswerError(ex, truncate_pair_mistakes()[-1].message)
        raise raised[0]
    for (a_text, b_text, max_length), (ids_a, ids_b), out in zip(cases, ids, outs):
        case = (f"A of {len(ids_a)} tokens, B of {len(ids_b)}, max_length = {max_length} "
                f"(A = {a_text[:30]!r}{'...' if len(a_text) > 30 else ''})")
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise AnswerError(ex, f"should return a pair (a, b) of the two cut lists, got {describe_value(out)}.")
        got_a, got_b = _as_int_list(ex, out[0], "the cut A"), _as_int_list(ex, out[1], "the cut B")
        n_a, n_b = _tokenizer_lengths(a_text, b_text, max_length)
        allowed = {(n_a, n_b), _one_at_a_time(len(ids_a), len(ids_b), max_length - 3),  # a tie may cut either
                   _one_at_a_time(len(ids_a), len(ids_b), max_length - 3, ties_to_a=True)}
        if any((got_a, got_b) == (ids_a[:x], ids_b[:y]) for x, y in allowed):
            continue
        for variant in truncate_pair_mistakes():
            wrong = variant.compute(ids_a, ids_b, max_length)
            if wrong is not None and (got_a, got_b) == tuple(wrong) and not any(
                    tuple(wrong) == (ids_a[:x], ids_b[:y]) for x, y in allowed):
                raise AnswerError(ex, f"{variant.message}{case_note(case)}")
        for got, kept, whole, name in ((got_a, n_a, ids_a, "A"), (got_b, n_b, ids_b, "B")):
            if not got and whole and kept == len(whole):
                x = name.lower()
                raise AnswerError(ex, f"{name} has nothing to give up here but came back empty: if you sliced "
                                      f"{x}[:-cut] with cut = 0, that is {x}[:0], the empty list; keep "
                                      f"{x}[:len({x}) - cut]{case_note(case)}.")
        if got_a != ids_a[:len(got_a)] or got_b != ids_b[:len(got_b)]:
            raise AnswerError(ex, f"the cut A and B should be the beginnings of A and B, unchanged (a[:n])"
                                  f"{case_note(case)}.")
        if len(got_a) + len(got_b) + 3 > max_length:
            raise AnswerError(ex, f"[CLS] A [SEP] B [SEP] has {len(got_a) + len(got_b) + 3} tokens, more than "
                                  f"max_length = {max_length}: cut the longer one, one token at a time, until the pair "
                                  f"fits{case_note(case)}.")
        raise AnswerError(ex, f"you kept {len(got_a)} tokens of A and {len(got_b)} of B; longest first keeps {n_a} and "
                              f"{n_b}: take one token at a time from the longer one until the pair fits"
                              f"{case_note(case)}.")
    report_pass(ex, f"{len(cases)} pairs cut as tokenizer(a, b, truncation='longest_first', max_length=...) cuts them")
