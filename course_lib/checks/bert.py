"""Checks for notebook 07 (BERT): WordPiece, WordPiece's merge score, MLM masking, NSP pairs, embeddings, QA spans, parameter counts.

References are independent of ``course_lib.bert``:

- ``wordpiece``: the Rust WordPiece model of Hugging Face ``tokenizers`` (the one inside the real
  ``BertTokenizerFast``), on the real bert-base-uncased vocabulary and on small made-up ones;
- ``pair_scores``: exact fractions ``count(ab) / (count(a) count(b))``, counted position by position;
- ``mask_tokens``: statistics and invariants of BERT's 80/10/10 recipe on 200 000 tokens, with
  bounds at 6 standard deviations or more (never flaky), not course_lib's output;
- ``nsp_pair``: the real tokenizer's pair encoding ``tokenizer(a, b)``;
- ``bert_embeddings``: ``transformers.BertModel(...).embeddings`` of the real all-MiniLM-L6-v2;
- ``best_span``: a brute force over every (start, end) pair, in float64;
- ``bert_parameters``: ``transformers.BertModel(BertConfig(...))`` built on the meta device.

Each check tries a catalogue of known wrong answers when the answer is wrong and names the mistake.
"""
from __future__ import annotations

import functools
import math
import re
from collections import Counter
from fractions import Fraction
from typing import Any, Callable, Sequence

import torch
import torch.nn.functional as F
from torch import nn

import course_lib.bert as course_bert
from course_lib.checks.common import WRITE_IT_YOURSELF, as_float64, device_for_checks
from course_lib.grading import (AnswerError, Banned, Probe, Terms, Variant, call_answer, call_answer_all, call_answer_each,
                                case_note, check_tensor, compare_answer, describe_value, run_probes, report_pass)
from course_lib.grading import install_notebook_hooks  # noqa: F401 (the notebook's setup cell calls it)

UNK = "[UNK]"
MAX_CHARS = 100  # BERT's max_input_chars_per_word


# ---------------------------------------------------------------------------
# the real model and tokenizer, loaded once


@functools.lru_cache(maxsize=1)
def hf_minilm():
    """(``transformers.BertModel`` of all-MiniLM-L6-v2 in eval mode, its tokenizer), loaded once, offline."""
    return course_bert.load_hf_minilm()


def tokenizer():
    return course_bert.minilm_tokenizer()


@functools.lru_cache(maxsize=1)
def real_vocab() -> frozenset:
    """bert-base-uncased's 30522 WordPieces, as a set of strings."""
    return frozenset(tokenizer().get_vocab())


def _tokenizer_bans() -> list[Banned]:
    """The tokenizer's Python methods and the course's loaders: off while WordPiece and NSP are graded."""
    from transformers import PreTrainedTokenizerBase

    tok_class = type(tokenizer())
    bans = [Banned(course_bert, name, f"course_lib.bert.{name}")
            for name in ("minilm_tokenizer", "load_hf_minilm", "load_pretrained_minilm", "load_course_bert", "fill_mask")]
    for owner in {tok_class, PreTrainedTokenizerBase, *tok_class.__mro__[1:3]}:
        for attr in ("__call__", "tokenize", "encode", "encode_plus", "batch_encode_plus", "_tokenize",
                     "build_inputs_with_special_tokens", "create_token_type_ids_from_sequences", "_encode_plus",
                     "_batch_encode_plus", "from_pretrained"):
            if attr in vars(owner):
                bans.append(Banned(owner, attr, f"the tokenizer's {attr}"))
    return bans


# ---------------------------------------------------------------------------
# wordpiece(word, vocab)


def plain_wordpiece(word: str, vocab, *, longest=True, hash_rest=True, hash_first=False, partial=None,
                    max_chars: int | None = MAX_CHARS, unk=(UNK,)) -> list[str]:
    """Greedy WordPiece in plain Python, correct or with one known mistake (used for the catalogue)."""
    if max_chars is not None and len(word) > max_chars:
        return list(unk)
    pieces, start = [], 0
    while start < len(word):
        ends = range(len(word), start, -1) if longest else range(start + 1, len(word) + 1)
        found = None
        for end in ends:
            piece = word[start:end]
            if (start > 0 and hash_rest) or hash_first:
                piece = "##" + piece
            if piece in vocab:
                found, start = piece, end
                break
        if found is None:
            if partial == "stop":
                return pieces
            if partial == "unk_piece":
                return pieces + [UNK]
            if partial == "skip_char":
                start += 1
                continue
            return list(unk)
        pieces.append(found)
    return pieces


def wordpiece_mistakes(vocab) -> list[Variant]:
    """The known wrong WordPieces for ``vocab``, each a function of the word."""
    def v(name, message, **mistake):
        return Variant(name, message, lambda word: plain_wordpiece(word, vocab, **mistake))
    return [
        v("shortest_first", "you take the shortest matching piece first; WordPiece is greedy longest-match-first: from "
          "each position, try the longest remaining substring, then shorter ones.", longest=False),
        v("no_hashes", "continuation pieces must start with '##' (look up '##' + piece for every piece after the first); "
          "yours have no '##'.", hash_rest=False),
        v("hash_on_first", "you put '##' on the first piece too; only the pieces after the first (continuations) start "
          "with '##'.", hash_first=True),
        v("partial_pieces", "when the rest of the word cannot be split you return the pieces found so far; BERT "
          "gives up on the whole word: return ['[UNK]'].", partial="stop"),
        v("unk_for_rest", "when the rest of the word cannot be split you add '[UNK]' after the pieces found so far; "
          "BERT replaces the whole word by a single '[UNK]': return ['[UNK]'].", partial="unk_piece"),
        v("skips_characters", "you skip the characters that match no piece; BERT gives up on the whole word: "
          "return ['[UNK]'].", partial="skip_char"),
        v("no_length_limit", f"words longer than {MAX_CHARS} characters must give ['[UNK]'] (as BERT does), "
          "before any splitting.", max_chars=None),
        v("length_limit_off_by_one", f"a word of exactly {MAX_CHARS} characters is still split; only words longer "
          f"than {MAX_CHARS} characters give ['[UNK]'] (use len(word) > {MAX_CHARS}).", max_chars=MAX_CHARS - 1),
        v("empty_for_unknown", "a word that cannot be split must give ['[UNK]'], not an empty list.", unk=()),
    ]


#: standard-library modules whose docstrings give the checks English words and sentences (fast: no parsing)
DOC_MODULES = ("collections", "itertools", "functools", "os", "re", "json", "string", "textwrap", "argparse", "pathlib",
               "inspect", "logging", "random", "statistics", "fractions", "decimal", "datetime", "calendar", "heapq",
               "bisect", "shutil", "tempfile", "csv", "difflib", "unittest", "urllib.parse", "email.message",
               "http.client", "threading", "subprocess", "socket", "zipfile", "tarfile", "pickle", "copy", "enum",
               "dataclasses", "abc", "contextlib")


@functools.lru_cache(maxsize=1)
def docstrings() -> tuple[str, ...]:
    """The docstrings of :data:`DOC_MODULES` and of their public members, in a fixed order."""
    import importlib

    docs = []
    for name in DOC_MODULES:
        module = importlib.import_module(name)
        docs.append(module.__doc__ or "")
        for attr in sorted(dir(module)):
            obj = getattr(module, attr, None) if not attr.startswith("_") else None
            doc = getattr(obj, "__doc__", None)
            if isinstance(doc, str) and getattr(obj, "__module__", None) == name:
                docs.append(doc)
    return tuple(docs)


@functools.lru_cache(maxsize=1)
def corpus_words() -> tuple[str, ...]:
    """Every distinct lower-cased alphabetic word of those docstrings (about 3000)."""
    return tuple(sorted({w for doc in docstrings() for w in re.findall(r"[a-z]+", doc.lower())}))


#: made-up words, words with characters outside the vocabulary, and BERT's length limit
ODD_WORDS = ("unaffable", "xylophonist", "qwrtzp", "wordpieces", "tokenisation", "huggingface", "bertology",
             "abc\u2603def", "caf\u00e9s", "na\u00efve", "\U0001F642", "z" * 30, "a" * MAX_CHARS, "a" * (MAX_CHARS + 1),
             "ab" * 60, "x", "q")


def wordpiece_reference(word: str, vocab) -> list[str]:
    """The real WordPiece (Hugging Face ``tokenizers``, in Rust) for ``vocab``: what BertTokenizerFast does."""
    return [token.value for token in _rust_wordpiece(vocab).tokenize(word)]


_RUST_MODELS: dict[frozenset, Any] = {}


def _rust_wordpiece(vocab):
    key = vocab if isinstance(vocab, frozenset) else frozenset(vocab)
    if key not in _RUST_MODELS:
        from tokenizers.models import WordPiece

        if key == real_vocab():
            _RUST_MODELS[key] = tokenizer().backend_tokenizer.model
        else:
            ordered = sorted(key)
            _RUST_MODELS[key] = WordPiece({t: i for i, t in enumerate(ordered)}, unk_token=UNK,
                                          max_input_chars_per_word=MAX_CHARS)
    return _RUST_MODELS[key]


def toy_vocabularies() -> dict[str, frozenset]:
    """Small made-up vocabularies where the greedy choice and the '##' matter (and the real tokenizer is useless)."""
    return {
        "toy": frozenset({UNK, "un", "una", "##aff", "##ff", "##able", "##a", "##ble", "aff", "able", "play",
                          "##ing", "##in", "##g", "p", "##l", "##a", "##y", "run", "##ner", "##s", "s", "##un",
                          "b", "##b"}),
        "letters": frozenset({UNK, *"abcdefghij", *("##" + c for c in "abcdefghij"), "abc", "##bcd", "##de",
                              "##cdefg", "ghij", "##hij"}),
    }


def _as_pieces(ex: str, got: Any, word: str) -> list[str]:
    if isinstance(got, str):
        raise AnswerError(ex, f"should return a list of strings, got the string {got!r} (word: {word!r}); "
                              "for a word that cannot be split, return ['[UNK]'].")
    if not isinstance(got, (list, tuple)) or not all(isinstance(p, str) for p in got):
        raise AnswerError(ex, f"should return a list of strings (the pieces), got {describe_value(got)} (word: {word!r}).")
    return list(got)


def check_wordpiece(wordpiece: Callable, *, vocab: str = "real", words: Sequence[str] | None = None) -> None:
    """Every word against the real WordPiece; ``vocab`` is "real" (bert-base-uncased) or a key of
    :func:`toy_vocabularies`; ``words`` defaults to the corpus's words plus :data:`ODD_WORDS`."""
    ex = "wordpiece"
    pieces_of = real_vocab() if vocab == "real" else toy_vocabularies()[vocab]
    if words is None:
        words = corpus_words() + ODD_WORDS if vocab == "real" else toy_words(pieces_of)
    bans = _tokenizer_bans()
    given = frozenset(pieces_of)
    answers = call_answer_each(ex, wordpiece, [((word, given), {}) for word in words], banned=bans,
                               reason=WRITE_IT_YOURSELF)
    def one_or_many() -> str:
        single = multi = bad_single = bad_multi = 0
        for w, a in zip(words, answers):
            ref = wordpiece_reference(w, pieces_of)
            ok = not isinstance(a, AnswerError) and list(a) == ref if isinstance(a, (list, tuple)) else False
            if len(ref) == 1:
                single, bad_single = single + 1, bad_single + (not ok)
            else:
                multi, bad_multi = multi + 1, bad_multi + (not ok)
        if single and multi and not bad_single and bad_multi:
            return (f" Words that are one piece are all right; {bad_multi} of the {multi} words of several pieces are "
                    "wrong: look at how you continue after the first piece (## pieces, and the longest match first).")
        if single and multi and bad_single and not bad_multi:
            return f" Words of several pieces are right; {bad_single} of the {single} words that are one piece are wrong."
        return ""

    for word, got in zip(words, answers):
        if isinstance(got, AnswerError):
            raise AnswerError(ex, f"{got.message} (word: {word!r})")
        got = _as_pieces(ex, got, word)
        expected = wordpiece_reference(word, pieces_of)
        if got == expected:
            continue
        for variant in wordpiece_mistakes(pieces_of):
            wrong = variant.compute(word)
            if wrong == got and wrong != expected:
                raise AnswerError(ex, f"{variant.message} (word: {word!r}: yours {got}, BERT's {expected})")
        if vocab != "real" and got == wordpiece_reference(word, real_vocab()):
            raise AnswerError(ex, f"your pieces for {word!r} come from BERT's own vocabulary, not from the `vocab` you "
                                  "were given: look every piece up in `vocab`.")
        plain = lambda pieces: "".join(p[2:] if p.startswith("##") else p for p in pieces)  # noqa: E731
        if UNK in got and UNK not in expected and any(len(p.removeprefix("##")) == 1 for p in expected):
            raise AnswerError(ex, f"the word {word!r} gives {got}; BERT's WordPiece gives {expected}: pieces of a single "
                                  "character are in the vocabulary too, so try every length down to one character "
                                  "before giving up with [UNK].")
        if UNK not in got and UNK not in expected and plain(got) == plain(expected) and len(got) != len(expected):
            first = next(i for i, (a, b) in enumerate(zip(got, expected)) if a != b)
            raise AnswerError(ex, f"the word {word!r} gives {got}; BERT's WordPiece gives {expected}: from piece "
                                  f"{first} on yours are {'shorter' if len(got) > len(expected) else 'longer'} than the "
                                  "longest piece in the vocabulary. At each position try the whole remaining string "
                                  "first, then shorter and shorter ones, and take the first (longest) that is in the "
                                  "vocabulary.")
        raise AnswerError(ex, f"the word {word!r} gives {got}; BERT's WordPiece gives {expected}"
                              f"{' (vocabulary: ' + vocab + ')' if vocab != 'real' else ''}.{one_or_many()}")
    where = "bert-base-uncased's 30522 pieces" if vocab == "real" else f"the {vocab!r} vocabulary"
    report_pass(ex, f"{len(words)} words equal to BERT's WordPiece with {where}")


def toy_words(vocab) -> tuple[str, ...]:
    """The words a check splits with one of :func:`toy_vocabularies` (chosen for its greedy and '##' traps)."""
    if "play" in vocab:
        return ("unaffable", "unable", "playing", "play", "plays", "runners", "run", "runs", "pl", "unaff", "bb", "bbb",
                "aable", "unx", "xun", "able", "una", "s", "sun", "b" * (MAX_CHARS + 1), "b" * MAX_CHARS, "un" + "b" * 99)
    return ("abcdefghij", "abcde", "aghij", "abcdefg", "jihgfedcba", "abk", "k", "ghij", "cdefg", "a" * 101,
            "a" * 100, "bcdefg", "abcdefgh")


# ---------------------------------------------------------------------------
# pair_scores(splits): WordPiece's merge score


#: the lecture-style corpus of the notebook: four words, split into characters, with their counts
LOW_NEWEST = {("l", "##o", "##w"): 5, ("l", "##o", "##w", "##e", "##r"): 2,
              ("n", "##e", "##w", "##e", "##s", "##t"): 6, ("w", "##i", "##d", "##e", "##s", "##t"): 3}


def _wordpiece_bans() -> list[Banned]:
    import course_lib.wordpiece as course_wordpiece

    return [Banned(course_wordpiece, "pair_scores", "course_lib.wordpiece.pair_scores"),
            Banned(course_wordpiece, "learn_wordpiece", "course_lib.wordpiece.learn_wordpiece")]


def exact_pair_scores(splits: dict) -> dict[tuple[str, str], Fraction]:
    """The scores as exact fractions, counted position by position (the check's reference)."""
    piece_total: dict[str, int] = {}
    pair_total: dict[tuple[str, str], int] = {}
    for split, count in splits.items():
        for position, piece in enumerate(split):
            piece_total[piece] = piece_total.get(piece, 0) + count
            if position + 1 < len(split):
                pair = (piece, split[position + 1])
                pair_total[pair] = pair_total.get(pair, 0) + count
    return {(a, b): Fraction(n, piece_total[a] * piece_total[b]) for (a, b), n in pair_total.items()}


def plain_pair_scores(splits: dict, *, weighted_pairs=True, weighted_pieces=True, pieces_once=False, pairs_once=False,
                      denominator="product", pieces_from_pairs=None, skip_last_piece=False, strip_prefix=False) -> dict:
    """The scores in plain Python, right or with one known mistake (for the catalogue), as floats.

    ``pieces_from_pairs``: None (count the pieces themselves), "roles" (a where it starts a pair, b where it
    ends one) or "ends" (every pair adds to both its pieces); ``strip_prefix``: "##w" counted as "w"."""
    pieces: dict[str, int] = {}
    pairs: dict[tuple[str, str], int] = {}
    first: dict[str, int] = {}
    second: dict[str, int] = {}
    name = (lambda piece: piece.removeprefix("##")) if strip_prefix else (lambda piece: piece)
    for split, count in splits.items():
        counted = split[:-1] if skip_last_piece else split
        for piece in (dict.fromkeys(counted) if pieces_once else counted):
            pieces[name(piece)] = pieces.get(name(piece), 0) + (count if weighted_pieces else 1)
        word_pairs = list(zip(split, split[1:]))
        for pair in (dict.fromkeys(word_pairs) if pairs_once else word_pairs):
            pairs[pair] = pairs.get(pair, 0) + (count if weighted_pairs else 1)
            first[pair[0]] = first.get(pair[0], 0) + count
            second[pair[1]] = second.get(pair[1], 0) + count
    out = {}
    for (a, b), n in pairs.items():
        if pieces_from_pairs == "roles":
            ca, cb = first[a], second[b]
        elif pieces_from_pairs == "ends":
            ca, cb = first.get(a, 0) + second.get(a, 0), first.get(b, 0) + second.get(b, 0)
        else:
            ca, cb = pieces.get(name(a), 0), pieces.get(name(b), 0)
        if denominator == "product":
            out[a, b] = n / (ca * cb) if ca * cb else math.inf
        elif denominator == "sum":
            out[a, b] = n / (ca + cb)
        elif denominator == "first":
            out[a, b] = n / ca
        else:  # no denominator: the pair count, BPE's rule
            out[a, b] = float(n)
    return out


def pair_scores_mistakes() -> list[Variant]:
    """The known wrong scores, each a function of ``splits``."""
    def v(name, message, transform=None, **mistake):
        def compute(splits):
            scores = plain_pair_scores(splits, **mistake)
            return {k: transform(x) for k, x in scores.items()} if transform else scores
        return Variant(name, message, compute)
    return [
        v("frequency", "your scores are the pair counts count(ab): that is BPE's rule (merge the most frequent pair); "
          "WordPiece divides by count(a) * count(b).", denominator="none"),
        v("sum", "you divide count(ab) by count(a) + count(b); the score divides by the product count(a) * count(b).",
          denominator="sum"),
        v("first_only", "you divide count(ab) by count(a) only; the score divides by count(a) * count(b).",
          denominator="first"),
        v("unweighted", "you count each word once; a word that occurs n times (splits[word] = n) adds n to the counts "
          "of its pieces and pairs.", weighted_pairs=False, weighted_pieces=False),
        v("pairs_unweighted", "your pair counts count each word once; a word that occurs n times adds n to count(ab), "
          "as it does to count(a).", weighted_pairs=False),
        v("pieces_unweighted", "your piece counts count each word once; a word that occurs n times adds n to count(a), "
          "as it does to count(ab).", weighted_pieces=False),
        v("pieces_once", "a piece that occurs twice in a word must count twice (times the word's count); you count "
          "it once per word.", pieces_once=True),
        v("pairs_once", "a pair that occurs twice in a word must count twice (times the word's count); you count it "
          "once per word.", pairs_once=True),
        v("pieces_from_pairs", "you count a only where it starts a pair and b only where it ends one; count(a) and "
          "count(b) count every occurrence of the piece, wherever it stands in the word.", pieces_from_pairs="roles"),
        v("pieces_from_pair_ends", "you count the pieces from the pairs, so a piece inside a word counts twice (it is in "
          "two pairs) and a word's first and last piece once; count(a) counts each occurrence of the piece once.",
          pieces_from_pairs="ends"),
        v("prefix_stripped", "you count a piece and its '##' form (such as 'w' and '##w') as one piece; they are "
          "different pieces (a w that starts a word, a w that continues one): count each piece as it is written.",
          strip_prefix=True),
        v("last_piece_skipped", "your piece counts miss the last piece of every word; count every piece, the last "
          "one too.", skip_last_piece=True),
        v("log", "your values are the logarithms of the scores; return count(ab) / (count(a) * count(b)) itself.",
          transform=lambda x: math.log(x) if x > 0 else -math.inf),
    ]


def pair_score_corpora(seed: int = 0, count: int = 2) -> list[dict]:
    """:data:`LOW_NEWEST`, a corpus with repeated pieces and pairs inside words, and ``count`` random ones whose
    words are already partly merged (pieces of several characters), each word with a count of 1 to 20."""
    g = torch.Generator().manual_seed(seed)
    corpora = [dict(LOW_NEWEST),
               {("b", "##a", "##n", "##a", "##n", "##a"): 4, ("b", "##a", "##n", "##d"): 3, ("a", "##n", "##d"): 7,
                ("n", "##a", "##n"): 1, ("a", "##a", "##a"): 2, ("a",): 5, ("d",): 2}]
    letters = "abnrst"
    for _ in range(count):
        corpus: dict = {}
        while len(corpus) < 12:
            word = "".join(letters[int(i)] for i in torch.randint(len(letters), (int(torch.randint(1, 9, (1,),
                                                                                                   generator=g)),),
                                                                  generator=g))
            cuts = sorted({0, len(word), *(int(i) for i in torch.randint(1, max(2, len(word)), (len(word) // 2,),
                                                                         generator=g))})
            split = tuple(("##" if start else "") + word[start:end] for start, end in zip(cuts, cuts[1:]) if end > start)
            corpus[split] = int(torch.randint(1, 21, (1,), generator=g))
        corpora.append(corpus)
    return corpora


def _score_value(ex: str, value: Any, pair: tuple) -> float:
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise AnswerError(ex, f"the score of {pair} should be a float, got {describe_value(value)}; "
                              "return count(ab) / (count(a) * count(b)) as a float.")
    return float(value)


def _pair_scores_of(ex: str, got: Any, expected: dict) -> dict:
    """The answer as {(a, b): float}, or a sentence about its form."""
    if isinstance(got, tuple) and len(got) == 2 and all(isinstance(p, str) for p in got):
        raise AnswerError(ex, f"should return a dict with the score of every pair, got the single pair {got}.")
    if not isinstance(got, dict):
        raise AnswerError(ex, f"should return a dict {{(a, b): score}}, got {describe_value(got)}.")
    merged = {a + b.removeprefix("##"): pair for pair in expected for a, b in [pair]}
    for key in got:
        if isinstance(key, str) and (key in merged or key.replace("##", "") in {k.replace("##", "") for k in merged}):
            raise AnswerError(ex, f"the keys must be pairs of pieces, tuples (a, b) such as {next(iter(expected))}; "
                                  f"got the string {key!r}.")
        if not (isinstance(key, tuple) and len(key) == 2 and all(isinstance(p, str) for p in key)):
            raise AnswerError(ex, f"the keys must be pairs of pieces, tuples (a, b) such as {next(iter(expected))}; "
                                  f"got {key!r}.")
    return {key: _score_value(ex, value, key) for key, value in got.items()}


def _close_scores(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-15)


def check_pair_scores(pair_scores: Callable, *, corpora: Sequence[dict] | None = None, seed: int = 0) -> None:
    """Every pair's score against exact fractions, on :func:`pair_score_corpora` (or ``corpora``)."""
    ex = "pair_scores"
    if corpora is None:
        corpora = pair_score_corpora(seed)
    bans = _wordpiece_bans()
    for number, splits in enumerate(corpora):
        given = {tuple(k): v for k, v in splits.items()}
        try:
            got = call_answer(ex, pair_scores, given, banned=bans, reason=WRITE_IT_YOURSELF)
        except AnswerError as err:
            hint = _missing_key_hint(err, splits)
            if hint:
                raise AnswerError(ex, f"{err.message} {hint}") from None
            raise
        case = f"corpus {number + 1}: " + ", ".join(f"{' '.join(k)} x{v}" for k, v in list(splits.items())[:4]) + (
            ", ..." if len(splits) > 4 else "")
        exact = exact_pair_scores(splits)
        answer = _pair_scores_of(ex, got, exact)
        if set(answer) == set(exact) and all(_close_scores(answer[p], float(exact[p])) for p in exact):
            continue
        for variant in pair_scores_mistakes():
            wrong = variant.compute(splits)
            if set(wrong) == set(answer) and all(_close_scores(answer[p], wrong[p]) for p in wrong) and any(
                    not _close_scores(wrong[p], float(exact[p])) for p in exact):
                raise AnswerError(ex, f"{variant.message}{case_note(case)}")
        raise AnswerError(ex, _describe_pair_scores(answer, exact, splits) + case_note(case))
    report_pass(ex, f"every pair of {len(corpora)} corpora, within 1e-9 of the exact fraction")


def _missing_key_hint(err: AnswerError, splits: dict) -> str:
    """For a KeyError on a piece or a pair of the corpus: which occurrences the answer did not count."""
    failure = getattr(err, "failure", None) or {}
    if failure.get("kind") != "raised" or failure.get("type") != "KeyError":
        return ""
    key = failure.get("text", "").strip("'\"")
    places = {"first" if i == 0 else "last" if i == len(split) - 1 else "middle"
              for split in splits for i, piece in enumerate(split) if piece == key}
    if places == {"last"}:
        return f"{key!r} occurs only as the last piece of a word: count every piece, the last one too."
    if places == {"first"}:
        return f"{key!r} occurs only as the first piece of a word: count every piece, the first one too."
    if places:
        return f"{key!r} is a piece of the corpus: count every piece of every word before you look up its count."
    return ""


def _describe_pair_scores(answer: dict, exact: dict, splits: dict) -> str:
    """One sentence on how wrong scores relate to the right ones: which pairs, a common factor, or one example."""
    missing, extra = [p for p in exact if p not in answer], [p for p in answer if p not in exact]
    if missing:
        return (f"{len(missing)} of the {len(exact)} pairs of neighbouring pieces are missing, e.g. {missing[0]}"
                + (" (the last pair of a word)" if any(s[-2:] == missing[0] for s in splits if len(s) > 1) else "")
                + ": loop over every position of every word, up to the last pair.")
    if extra:
        return (f"{extra[0]} is not a pair of neighbouring pieces inside a word (there are {len(extra)} such keys); "
                "pair each piece only with the one right after it in the same word.")
    ratios = {round(answer[p] / float(exact[p]), 9) for p in exact if exact[p]}
    if len(ratios) == 1:
        factor = ratios.pop()
        if factor == 0:
            return ("every score is 0: an integer division // cuts count(ab) / (count(a) * count(b)) to 0 whenever the "
                    "product is larger; divide with /.")
        return (f"every score is {factor:g} times the right one; score = count(ab) / (count(a) * count(b)) with plain "
                "counts (no division by the number of words or pieces).")
    wrong = [p for p in exact if not _close_scores(answer[p], float(exact[p]))]
    a, b = wrong[0]
    pieces = Counter()
    for split, n in splits.items():
        for piece in split:
            pieces[piece] += n
    n_ab = exact[a, b] * pieces[a] * pieces[b]
    return (f"{len(wrong)} of the {len(exact)} scores are wrong, e.g. ({a!r}, {b!r}): yours {answer[a, b]:.6g}, "
            f"right count(ab) / (count(a) * count(b)) = {n_ab} / ({pieces[a]} * {pieces[b]}) = {float(exact[a, b]):.6g}.")


# ---------------------------------------------------------------------------
# mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id)

_MASKING_BUILTINS = [Banned(course_bert, "mask_tokens", "course_lib.bert.mask_tokens")]
IGNORE = -100


def masking_batch(rows: int = 400, length: int = 500, *, vocab_size: int = 30522, seed: int = 0,
                  device: Any = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(input_ids (rows, length), special_mask): [CLS] first, a [SEP] in the middle and at the end of the text,
    then padding ([PAD] = 0) to a random length; ordinary ids drawn from [1000, vocab_size)."""
    device = device_for_checks(device)
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(1000, vocab_size, (rows, length), generator=g)
    lengths = torch.randint(length // 2, length + 1, (rows,), generator=g)
    special = torch.zeros(rows, length, dtype=torch.bool)
    for r, n in enumerate(lengths.tolist()):
        ids[r, 0], ids[r, n // 2], ids[r, n - 1] = 101, 102, 102
        ids[r, n:] = 0
        special[r, [0, n // 2, n - 1]] = True
        special[r, n:] = True
    return ids.to(device), special.to(device)


def within_sigmas(observed: float, p: float, n: int, sigmas: float = 6.0) -> bool:
    """Whether a rate observed over ``n`` draws is within ``sigmas`` binomial standard deviations of ``p``."""
    return abs(observed - p) <= sigmas * math.sqrt(p * (1 - p) / max(n, 1))


def _call_masking(ex, mask_tokens, ids, special, seed, vocab_size, mask_id):
    generator = torch.Generator(device=ids.device).manual_seed(seed)
    ids_given, special_given = ids.clone(), special.clone()
    out = call_answer(ex, mask_tokens, ids_given, special_given, generator, vocab_size, mask_id,
                      banned=_MASKING_BUILTINS, reason=WRITE_IT_YOURSELF)
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise AnswerError(ex, f"should return a pair (inputs, labels), got {describe_value(out)}.")
    inputs, labels = out
    for what, x in (("inputs", inputs), ("labels", labels)):
        check_tensor(ex, x, what=f"the returned {what}", shape=ids.shape, device=ids.device)
        if x.dtype != ids.dtype:
            raise AnswerError(ex, f"the returned {what} should have the dtype of input_ids ({ids.dtype}), got {x.dtype}.")
    return inputs, labels


def check_mask_tokens(mask_tokens: Callable, *, rows: int = 400, length: int = 500, vocab_size: int = 30522,
                      mask_id: int = 103, seed: int = 0, device: Any = None) -> None:
    """BERT's 80/10/10 on rows x length tokens (200 000 by default): invariants exactly, rates within 6 sigma."""
    ex = "mask_tokens"
    ids, special = masking_batch(rows, length, vocab_size=vocab_size, seed=seed, device=device)
    inputs, labels = _call_masking(ex, mask_tokens, ids, special, seed + 1, vocab_size, mask_id)
    ignored = set(labels[labels != ids].unique().tolist())  # the value used where nothing is predicted
    if len(ignored) == 1 and ignored != {IGNORE} and bool((labels == ids).float().mean() > 0.05):
        other = ignored.pop()
        raise AnswerError(ex, f"your labels use {other} for the positions that are not predicted; the loss ignores "
                              f"-100 (F.cross_entropy's ignore_index), so use -100 there.")
    selected = labels != IGNORE
    n_plain = int((~special).sum())
    n_selected = int(selected.sum())
    # labels
    if n_selected == ids.numel() or bool((labels == ids).all()):
        raise AnswerError(ex, "your labels are the original ids everywhere; they must be -100 wherever the token was "
                              "not selected, so that the loss ignores those positions.")
    if bool((selected & special).any()):
        raise AnswerError(ex, "you selected special tokens or padding (labels not -100 there); [CLS], [SEP] and [PAD] "
                              "are never masked: select only where special_mask is False.")
    if bool(((inputs != ids) & special).any()):
        raise AnswerError(ex, "you changed special tokens or padding in the inputs; [CLS], [SEP] and [PAD] are never "
                              "masked: select only where special_mask is False.")
    if not bool((labels[selected] == ids[selected]).all()):
        if bool((labels[selected] == inputs[selected]).all()):
            raise AnswerError(ex, "your labels are the corrupted inputs; at a selected position the label is the "
                                  "ORIGINAL id (what the model must recover), not [MASK] or the random token.")
        raise AnswerError(ex, "at the selected positions the labels must be the original ids (labels is -100 "
                              "elsewhere).")
    at_mask = inputs == mask_id
    if bool((selected == (at_mask & ~special)).all()) and bool(((inputs != ids) & ~at_mask & ~special).any()):
        raise AnswerError(ex, "your labels mark only the positions that became [MASK]; every selected token gets its "
                              "original id as label: the 80% [MASK], the 10% random and the 10% unchanged alike.")
    if not bool((inputs[~selected] == ids[~selected]).all()):
        raise AnswerError(ex, "you changed tokens that were not selected (their label is -100): the inputs may differ "
                              "from input_ids only where the label is not -100.")
    # the 15% selection
    rate = n_selected / n_plain
    if not within_sigmas(rate, 0.15, n_plain):
        hint = ""
        all_rate = 0.15 * ids.numel() / n_plain
        if within_sigmas(rate, min(all_rate, 1.0), n_plain):
            hint = (" You chose 15% of ALL positions' worth of tokens; choose 15% of the non-special ones "
                    "(each with probability 0.15).")
        elif bool((inputs[selected] == mask_id).all()):
            hint = (" Only your [MASK] positions have labels; the random and unchanged tokens are selected too and "
                    "must be predicted (their labels are the original ids).")
        raise AnswerError(ex, f"your labels are set (not -100) at {100 * rate:.2f}% of the {n_plain} non-special tokens: "
                              f"BERT selects 15% of them, and only a selected token gets a label (its original id); "
                              f"every other label is -100.{hint}")
    # 80/10/10 of the selected
    to_mask = selected & (inputs == mask_id) & (ids != mask_id)
    kept = selected & (inputs == ids)
    randomised = selected & ~to_mask & ~kept
    fractions = {name: int(m.sum()) / n_selected for name, m in
                 (("[MASK]", to_mask), ("random", randomised), ("unchanged", kept))}
    if fractions["[MASK]"] > 0.99:
        raise AnswerError(ex, "every selected token became [MASK]; only 80% do: 10% become a random token and 10% "
                              "stay unchanged (they are still predicted).")
    p_same = 1 / vocab_size  # a random token can equal the original
    for name, p in (("[MASK]", 0.8), ("random", 0.1 * (1 - p_same)), ("unchanged", 0.1 + 0.1 * p_same)):
        if not within_sigmas(fractions[name], p, n_selected):
            raise AnswerError(ex, f"{100 * fractions[name]:.2f}% of the selected tokens became {name}"
                                  f"{'' if name != 'unchanged' else ' (stayed as they were)'}; it should be about "
                                  f"{100 * round(p, 3):g}%. Draw ONE number u per selected token: [MASK] if u < 0.8, "
                                  "a random token if 0.8 <= u < 0.9, unchanged otherwise.")
    random_ids = inputs[randomised]
    if bool((random_ids < 0).any()) or bool((random_ids >= vocab_size).any()):
        raise AnswerError(ex, f"your random tokens must be ids in [0, vocab_size) = [0, {vocab_size}).")
    if len(random_ids) > 1000 and (int(random_ids.max()) < 0.9 * vocab_size or int(random_ids.min()) > 0.1 * vocab_size):
        raise AnswerError(ex, f"your random tokens lie between {int(random_ids.min())} and {int(random_ids.max())}; "
                              f"draw them uniformly from the whole vocabulary, torch.randint(vocab_size, ...).")
    # the generator
    few_ids, few_special = ids[:40], special[:40]  # 20 000 tokens are enough to see the generator at work
    first = _call_masking(ex, mask_tokens, few_ids, few_special, seed + 1, vocab_size, mask_id)
    again = _call_masking(ex, mask_tokens, few_ids, few_special, seed + 1, vocab_size, mask_id)
    if not (torch.equal(again[0], first[0]) and torch.equal(again[1], first[1])):
        raise AnswerError(ex, "two calls with generators seeded alike gave different results: draw every random number "
                              "from the `generator` argument (torch.rand(..., generator=generator)).")
    other = _call_masking(ex, mask_tokens, few_ids, few_special, seed + 2, vocab_size, mask_id)
    if torch.equal(other[1], first[1]):
        raise AnswerError(ex, "generators with different seeds gave the same selection: draw the random numbers "
                              "from the `generator` argument, not from a fixed seed.")
    # nothing to select
    none_in, none_labels = _call_masking(ex, mask_tokens, ids[:3], torch.ones_like(special[:3]), seed, vocab_size,
                                         mask_id)
    if not torch.equal(none_in, ids[:3]) or bool((none_labels != IGNORE).any()):
        raise AnswerError(ex, "when every position is special, nothing may be selected (labels all -100, inputs "
                              "unchanged).")
    report_pass(ex, f"{n_plain} ordinary tokens: {100 * rate:.2f}% selected; of those "
                    f"{100 * fractions['[MASK]']:.1f}% [MASK], {100 * fractions['random']:.1f}% random, "
                    f"{100 * fractions['unchanged']:.1f}% unchanged; specials untouched; reproducible")


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


def plain_nsp_pair(a, b, cls_id, sep_id, *, last_sep=True, first_cls=True, sep_type=0, b_type=1, cls_type=0, swap=False):
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
    outs = call_answer_all(ex, nsp_pair, [((a, b, cls_id, sep_id), {}) for a, b in given], banned=_tokenizer_bans(),
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


# ---------------------------------------------------------------------------
# bert_embeddings(input_ids, token_type_ids, weights)

EMBEDDING_KEYS = ("word_embeddings", "position_embeddings", "token_type_embeddings", "gamma", "beta")


def _embedding_bans() -> list[Banned]:
    from transformers.models.bert import modeling_bert

    return [
        Banned(F, "layer_norm", "torch.nn.functional.layer_norm"),
        Banned(torch, "layer_norm", "torch.layer_norm"),
        Banned(torch, "native_layer_norm", "torch.native_layer_norm"),
        Banned(nn.LayerNorm, "forward", "torch.nn.LayerNorm"),
        Banned(modeling_bert.BertEmbeddings, "forward", "transformers' BertEmbeddings"),
        Banned(modeling_bert.BertModel, "forward", "transformers' BertModel"),
        Banned(course_bert.BertEmbeddings, "forward", "course_lib.bert.BertEmbeddings"),
        Banned(course_bert.BertModel, "forward", "course_lib.bert.BertModel"),
    ]


def minilm_embedding_weights(dtype: torch.dtype = torch.float32, device: Any = None) -> dict[str, torch.Tensor]:
    """The real all-MiniLM-L6-v2 embedding weights under the names of :data:`EMBEDDING_KEYS` (copies)."""
    e = hf_minilm()[0].embeddings
    device = device_for_checks(device)
    tensors = (e.word_embeddings.weight, e.position_embeddings.weight, e.token_type_embeddings.weight,
               e.LayerNorm.weight, e.LayerNorm.bias)
    return {k: t.detach().to(device, dtype).clone() for k, t in zip(EMBEDDING_KEYS, tensors)}


def plain_bert_embeddings(ids, types, w, *, eps=1e-12, positions="arange", use_types=True, norm=True, unbiased=False,
                          affine_swapped=False):
    """word + position + token-type embeddings, then BERT's LayerNorm (eps 1e-12); or one known mistake."""
    B, T = ids.shape
    if positions == "arange":
        pos = w["position_embeddings"][torch.arange(T, device=ids.device)]
    elif positions == "from_one":
        pos = w["position_embeddings"][torch.arange(1, T + 1, device=ids.device)]
    elif positions == "flat":
        pos = w["position_embeddings"][torch.arange(B * T, device=ids.device)].view(B, T, -1)
    else:
        pos = 0
    x = w["word_embeddings"][ids] + pos + (w["token_type_embeddings"][types] if use_types else 0)
    if not norm:
        return x
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, keepdim=True, correction=1 if unbiased else 0)
    gamma, beta = (w["beta"], w["gamma"]) if affine_swapped else (w["gamma"], w["beta"])
    return (x - mean) / torch.sqrt(var + eps) * gamma + beta


def bert_embeddings_mistakes() -> list[Variant]:
    """The known wrong embedding layers, each a function of (ids, types, weights)."""
    def v(name, message, **mistake):
        return Variant(name, message, lambda ids, types, w: plain_bert_embeddings(ids, types, w, **mistake))
    return [
        v("no_positions", "the position embeddings are missing: add position_embeddings[0], [1], ... [T-1] to the "
          "tokens at positions 0 .. T-1.", positions=None),
        v("positions_from_one", "your positions start at 1; the first token has position 0.", positions="from_one"),
        v("positions_across_batch", "your positions run on across the batch; every sequence starts again at position 0 "
          "(positions 0 .. T-1, broadcast over the batch).", positions="flat"),
        v("no_segments", "the segment (token type) embeddings are missing: add token_type_embeddings[token_type_ids].",
          use_types=False),
        v("no_layer_norm", "the LayerNorm is missing: after the sum, normalise each position's vector and apply gamma "
          "and beta.", norm=False),
        v("eps_1e-5", "your LayerNorm uses eps = 1e-5 (PyTorch's default); BERT's is 1e-12.", eps=1e-5),
        v("unbiased_variance", "your LayerNorm uses the unbiased variance (dividing by H - 1); divide by H.",
          unbiased=True),
        v("gamma_beta_swapped", "gamma and beta are swapped: multiply by gamma and add beta.", affine_swapped=True),
    ]


def embedding_batch(count: int = 3, seed: int = 0, device: Any = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(input_ids, token_type_ids) (count, T) of real sentence pairs, padded with [PAD] (token type 0)."""
    tok = tokenizer()
    pairs = nsp_sentences(count, seed)
    encoded = tok([a for a, _ in pairs], [b for _, b in pairs], padding=True, truncation=True, max_length=128,
                  return_tensors="pt")
    device = device_for_checks(device)
    return encoded["input_ids"].to(device), encoded["token_type_ids"].to(device)


def check_bert_embeddings(bert_embeddings: Callable, *, count: int = 3, seed: int = 0,
                          dtype: torch.dtype = torch.float32, device: Any = None) -> None:
    """Against ``transformers.BertModel(...).embeddings`` of the real all-MiniLM-L6-v2 (eval mode) on real pairs."""
    ex = "bert_embeddings"
    device = device_for_checks(device)
    ids, types = embedding_batch(count, seed, device)
    w = minilm_embedding_weights(dtype, device)
    reference = hf_minilm()[0].embeddings
    reference = reference.to(device, dtype) if (dtype, device) != (torch.float32, torch.device("cpu")) else reference
    with torch.no_grad():
        expected = reference(input_ids=ids, token_type_ids=types)
    hf_minilm()[0].embeddings.to("cpu", torch.float32)
    got = call_answer(ex, bert_embeddings, ids.clone(), types.clone(), {k: t.clone() for k, t in w.items()},
                      banned=_embedding_bans(), reason=WRITE_IT_YOURSELF)
    gamma, beta = list(w.values())[-2:]
    compare_answer(ex, got, expected, inputs=(ids, types, w), variants=bert_embeddings_mistakes(), what="the returned embeddings",
                   case=f"{count} real sentence pairs, input_ids {tuple(ids.shape)}, {str(dtype).replace('torch.', '')}",
                   terms=Terms(axes=("sentence", "token position", "hidden unit"), layer_norm=(gamma, beta)),
                   locate=lambda: run_probes(ex, bert_embeddings, lambda i, t, ww: plain_bert_embeddings(i, t, ww), [
                       Probe(f"when the {table} table is zero", (ids, types, {**w, key: torch.zeros_like(w[key])}),
                             hint=f"look at how the {table} embeddings enter: token + position + segment are added first, "
                                  "then LayerNorm")
                       for table, key in (("position", EMBEDDING_KEYS[1]), ("segment", EMBEDDING_KEYS[2]))] + [
                       Probe("when the position and segment tables are both zero",
                             (ids, types, {**w, EMBEDDING_KEYS[1]: torch.zeros_like(w[EMBEDDING_KEYS[1]]),
                                           EMBEDDING_KEYS[2]: torch.zeros_like(w[EMBEDDING_KEYS[2]])}),
                             hint="look at the order: add the token, position and segment embeddings first, then LayerNorm "
                                  "the sum")],
                       what="the returned embeddings", banned=_embedding_bans(), reason=WRITE_IT_YOURSELF))
    report_pass(ex, f"equal to all-MiniLM-L6-v2's embedding layer on input_ids {tuple(ids.shape)}")


# ---------------------------------------------------------------------------
# best_span(start_logits, end_logits, max_len)


def _span_scores(start, end, max_len, *, lower=0, upper=None):
    """Best score over spans with lower <= end - start and end - start + 1 <= max_len (upper: another limit)."""
    best, where = -math.inf, None
    T = len(start)
    for i in range(T):
        for j in range(T):
            length = j - i + 1
            if j - i < lower or (upper is not None and length > upper):
                continue
            if start[i] + end[j] > best:
                best, where = start[i] + end[j], (i, j)
    return best, where


def best_span_reference(start_logits, end_logits, max_len):
    """(start, end) maximising start_logits[start] + end_logits[end], start <= end, end - start + 1 <= max_len."""
    s, e = start_logits.double().tolist(), end_logits.double().tolist()
    return _span_scores(s, e, max_len, upper=max_len)[1]


def span_cases(seed: int = 0, count: int = 30) -> list[tuple[torch.Tensor, torch.Tensor, int]]:
    """Two cases made by hand (the best end lies before the best start; spans of max_len + 1 and max_len + 3 that
    score higher than the best allowed one), random logits where the limits matter, and edge cases: one token,
    ties, max_len of 1 and beyond T."""
    g = torch.Generator().manual_seed(seed)
    cases = [(torch.tensor([0.0, 0.5, 0.0, 5.0, 0.0]), torch.tensor([5.0, 0.0, 0.0, 0.0, 1.0]), 5),
             (torch.tensor([0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
              torch.tensor([0.0, 0.0, 0.0, 4.0, 5.0, 0.0, 5.5, 0.0, 0.0, 0.0]), 3)]
    for k in range(count):
        T = int(torch.randint(2, 40, (1,), generator=g))
        start, end = torch.randn(T, generator=g), torch.randn(T, generator=g)
        max_len = int(torch.randint(1, T + 3, (1,), generator=g))
        if k % 3 == 0:  # the best start lies after the best end
            i, j = sorted(torch.randperm(T, generator=g)[:2].tolist())
            start[j] += 6
            end[i] += 6
        if k % 3 == 1 and T > max_len + 1:  # a tempting span longer than max_len, and one exactly max_len long
            i = int(torch.randint(0, T - max_len - 1, (1,), generator=g))
            start[i] += 5
            end[i + max_len] += 5
            end[i + max_len - 1] += 4
        cases.append((start, end, max_len))
    negative = -3.0 - torch.rand(7, generator=g)  # every span scores below 0: disallowed spans set to 0 would win
    cases += [(negative, -3.0 - torch.rand(7, generator=g), 2)]
    cases += [(torch.tensor([1.5]), torch.tensor([-2.0]), 1), (torch.zeros(6), torch.zeros(6), 3),
              (torch.tensor([0.0, 3.0, 1.0]), torch.tensor([2.0, 0.0, 1.0]), 1),
              (torch.tensor([5.0, 0.0, 0.0, 0.0]), torch.tensor([0.0, 0.0, 0.0, 5.0]), 10)]
    return cases


def check_best_span(best_span: Callable, *, seed: int = 0, count: int = 30) -> None:
    """Against a brute force over every (start, end); with ties, any best span counts."""
    ex = "best_span"
    cases = span_cases(seed, count)
    outs = call_answer_all(ex, best_span, [((start.clone(), end.clone(), max_len), {}) for start, end, max_len in cases])
    for (start, end, max_len), out in zip(cases, outs):
        case = f"T = {len(start)}, max_len = {max_len}"
        try:
            i, j = (int(x) for x in out)
        except (TypeError, ValueError):
            raise AnswerError(ex, f"should return a pair of ints (start, end), got {describe_value(out)}.") from None
        s, e = start.double().tolist(), end.double().tolist()
        best, (bi, bj) = _span_scores(s, e, max_len, upper=max_len)
        T = len(s)
        if not (0 <= i < T and 0 <= j < T):
            raise AnswerError(ex, f"({i}, {j}) is not a span of the {T} tokens; start and end are positions "
                                  f"0 .. T-1, the end included{case_note(case)}.")
        score = s[i] + e[j]
        if j >= i and j - i + 1 <= max_len and abs(score - best) <= 1e-6 * max(1.0, abs(best)):
            continue
        zeroed = (f" Every allowed span scores below 0 here ({best:.4f} at best): setting the disallowed ones to 0 "
                  "(a multiplied mask, or masked_fill with 0) makes them win; set them to -inf.") if best < 0 else ""
        if (i, j) == (max(range(T), key=s.__getitem__), max(range(T), key=e.__getitem__)) and j < i:
            raise AnswerError(ex, f"you took the argmax of the start and end logits separately, which gives end "
                                  f"{j} before start {i}; search over pairs with start <= end{case_note(case)}.")
        if j < i:
            raise AnswerError(ex, f"your span ends ({j}) before it starts ({i}); only spans with start <= end count"
                                  f"{case_note(case)}.{zeroed}")
        if j - i + 1 == max_len + 1:
            raise AnswerError(ex, f"your span has {j - i + 1} tokens, one more than max_len = {max_len}: the span "
                                  f"start..end has end - start + 1 tokens, which must be <= max_len{case_note(case)}.{zeroed}")
        if j - i + 1 > max_len:
            raise AnswerError(ex, f"your span has {j - i + 1} tokens but max_len = {max_len}: you ignore max_len "
                                  f"(end - start + 1 <= max_len){case_note(case)}.{zeroed}")
        short = _span_scores(s, e, max_len, upper=max_len - 1)[0]
        if abs(score - short) <= 1e-6 * max(1.0, abs(short)) and bj - bi + 1 == max_len:
            raise AnswerError(ex, f"your spans are at most {max_len - 1} tokens long, one short: end - start + 1 may "
                                  f"equal max_len = {max_len}{case_note(case)}.")
        why = ""
        avoiding_last = _span_scores(s[:-1], e[:-1], max_len, upper=max_len)[0] if T > 1 else None
        if (T - 1 in (bi, bj) and T - 1 not in (i, j) and avoiding_last is not None
                and abs(score - avoiding_last) <= 1e-6 * max(1.0, abs(avoiding_last))):  # the best span short of T-1
            why = (f" The best span uses the last token, position T-1 = {T - 1}, and yours is the best one without it: "
                   "do your loops reach it (range(T), not range(T - 1))? Or, if you started from the argmaxes of the "
                   "logits: start and end are chosen together, every start with every end after it.")
        elif i == max(range(T), key=s.__getitem__) and bi != i:
            why = (" You kept the start at the argmax of start_logits; start and end are chosen together, so try "
                   "every start with every end after it.")
        raise AnswerError(ex, f"({i}, {j}) scores {score:.4f} but ({bi}, {bj}) scores {best:.4f}: find the span with the "
                              f"largest start_logits[start] + end_logits[end]{case_note(case)}.{why}")
    report_pass(ex, "the best span of every case, against a brute force over all (start, end) pairs")


# ---------------------------------------------------------------------------
# bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2)


def _parameter_bans() -> list[Banned]:
    from transformers import PreTrainedModel
    from transformers.models.bert import modeling_bert

    return [Banned(modeling_bert.BertModel, "__init__", "transformers' BertModel"),
            Banned(PreTrainedModel, "num_parameters", "transformers' num_parameters"),
            Banned(course_bert.BertModel, "__init__", "course_lib.bert.BertModel")]


def hf_parameter_count(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2) -> int:
    """The number of parameters of ``transformers.BertModel`` (with its pooler), built on the meta device."""
    from transformers import BertConfig as HFBertConfig
    from transformers.models.bert.modeling_bert import BertModel as HFBertModel

    heads = next(h for h in (12, 16, 8, 4, 2, 1) if hidden % h == 0)
    config = HFBertConfig(vocab_size=vocab_size, hidden_size=hidden, num_hidden_layers=layers,
                          num_attention_heads=heads, intermediate_size=intermediate,
                          max_position_embeddings=max_position, type_vocab_size=type_vocab)
    with torch.device("meta"):
        model = HFBertModel(config, add_pooling_layer=True)
    return sum(p.numel() for p in model.parameters())


def plain_bert_parameters(V, H, L, I, P=512, S=2, *, pooler=True, biases=True, norms=True, positions=True, segments=True,
                          attention_matrices=4, ffn_matrices=2):
    """BertModel's parameter count by formula (V vocabulary, H hidden, L layers, I intermediate, P positions,
    S segments), with its pooler; or one known mistake."""
    b = 1 if biases else 0
    embeddings = (V + (P if positions else 0) + (S if segments else 0)) * H + (2 * H if norms else 0)
    attention = attention_matrices * (H * H + b * H) + (2 * H if norms else 0)
    ffn = (H * I + b * I) + (I * H + b * H) if ffn_matrices == 2 else H * I + b * I
    ffn += 2 * H if norms else 0
    return embeddings + L * (attention + ffn) + ((H * H + b * H) if pooler else 0)


def bert_parameters_mistakes() -> list[tuple[str, Callable]]:
    """(message, count) for each known wrong count, ``count`` a function of the configuration."""
    def v(message, **mistake):
        return message, lambda *cfg: plain_bert_parameters(*cfg, **mistake)
    return [
        v("the pooler is missing: BertModel ends with a dense H x H layer (with its bias) on the [CLS] token.",
          pooler=False),
        v("the biases are missing: every nn.Linear has one bias per output.", biases=False),
        v("the LayerNorms are missing: each has 2 H parameters (gamma and beta), one after the embeddings and two in "
          "every layer.", norms=False),
        v("the position embeddings are missing: max_position x H.", positions=False),
        v("the segment (token type) embeddings are missing: type_vocab x H.", segments=False),
        ("the LayerNorm after the embeddings is missing: 2 H (gamma and beta).",
         lambda *cfg: plain_bert_parameters(*cfg) - 2 * cfg[1]),
        v("you counted 3 attention matrices; there are 4 per layer: W_Q, W_K, W_V and the output projection W_O.",
          attention_matrices=3),
        v("the feed-forward network has two linear layers, H -> intermediate and intermediate -> H.", ffn_matrices=1),
        v("the pooler and the biases are missing.", pooler=False, biases=False),
    ]


PARAMETER_CONFIGS = {"BERT-base": (30522, 768, 12, 3072), "BERT-large": (30522, 1024, 24, 4096)}


_COUNT_NAMES = ("vocab_size", "hidden", "layers", "intermediate", "max_position", "type_vocab")


def _bert_parts(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2) -> dict[str, int]:
    """Parts of BERT by size, to name a difference in a count (per layer, or in the embeddings and pooler)."""
    H, I = hidden, intermediate
    return {"a LayerNorm (gamma and beta)": 2 * H, "two LayerNorms": 4 * H, "a bias of size hidden": H,
            "the feed-forward biases (intermediate + hidden)": I + H, "the four attention biases": 4 * H,
            "one hidden x hidden matrix": H * H, "the pooler (hidden x hidden and its bias)": H * H + H,
            "one feed-forward matrix (hidden x intermediate)": H * I, "the attention's four matrices": 4 * H * H}


def _count_by_argument(ex: str, bert_parameters: Callable, config: tuple, got: int, expected: int,
                       bans) -> str | None:
    """Grow each argument by one and compare how the count moves: the argument whose step is wrong holds the mistake."""
    grown = [tuple(v + (1 if i == k else 0) for i, v in enumerate(config)) for k in range(len(config))]
    results = call_answer_each(ex, bert_parameters, [(c, {}) for c in grown], banned=bans, reason=WRITE_IT_YOURSELF)
    sentences = []
    for name, bigger, result in zip(_COUNT_NAMES, grown, results):
        if isinstance(result, AnswerError) or not isinstance(result, (int, float)):
            return None
        step, right = int(result) - got, hf_parameter_count(*bigger) - expected
        if step != right:
            per = right - step
            part = " or ".join(label for label, size in _bert_parts(*config).items()
                               if name == "layers" and size == abs(per)) or None
            detail = f" (per layer, {abs(per):,} {'missing' if per > 0 else 'too many'}: {part})" if part else ""
            sentences.append(f"when {name} grows by 1, BertModel gains {right:,} parameters and your count "
                             f"{step:,}{detail}")
    if sentences:
        return "Your count depends wrongly on its arguments: " + "; ".join(sentences) + "."
    gap = expected - got
    part = " or ".join(label for label, size in _bert_parts(*config).items() if size == abs(gap)) or None
    if part:
        return f"Every argument moves your count rightly, but it is {abs(gap):,} {'short' if gap > 0 else 'over'}: {part}."
    return None


def check_bert_parameters(bert_parameters: Callable, *, configs: Sequence[tuple] | None = None, seed: int = 0) -> None:
    """Against ``transformers.BertModel(BertConfig(...))`` on the meta device (nothing is allocated)."""
    ex = "bert_parameters"
    if configs is None:
        configs = list(PARAMETER_CONFIGS.values())
    bans = _parameter_bans()
    counts = []
    for config in configs:
        expected = hf_parameter_count(*config)
        got = call_answer(ex, bert_parameters, *config, banned=bans, reason=WRITE_IT_YOURSELF)
        if isinstance(got, torch.Tensor) and got.numel() == 1:
            got = got.item()
        if isinstance(got, float) and got.is_integer():
            got = int(got)
        if not isinstance(got, int) or isinstance(got, bool):
            raise AnswerError(ex, f"should return the number of parameters as an int, got {describe_value(got)}.")
        names = ("vocab_size", "hidden", "layers", "intermediate", "max_position", "type_vocab")
        case = ", ".join(f"{n}={c}" for n, c in zip(names, config))
        if got == expected:
            counts.append(got)
            continue
        matched = [message for message, count in bert_parameters_mistakes() if got == count(*config) != expected]
        if len(matched) == 1:
            raise AnswerError(ex, f"{matched[0]}{case_note(case)} (yours {got:,}, transformers' {expected:,})")
        if matched:  # parts of the same size (type_vocab x H and a LayerNorm's 2 H when type_vocab = 2): say each
            raise AnswerError(ex, f"{len(matched)} known mistakes give your count{case_note(case)} (yours {got:,}, "
                                  f"transformers' {expected:,}): " + " Or: ".join(matched))
        found = _count_by_argument(ex, bert_parameters, config, got, expected, bans)
        if found:
            raise AnswerError(ex, f"{got:,} parameters; transformers.BertModel has {expected:,}{case_note(case)}. "
                                  f"{found}")
        raise AnswerError(ex, f"{got:,} parameters; transformers.BertModel has {expected:,}{case_note(case)}.")
    report_pass(ex, "; ".join(f"{c:,}" for c in counts) + " parameters, as transformers.BertModel")


def random_configs(count: int = 5, seed: int = 0) -> list[tuple[int, ...]]:
    """Small random BERT sizes (vocab, hidden, layers, intermediate, max_position, type_vocab)."""
    g = torch.Generator().manual_seed(seed)

    def r(low, high):
        return int(torch.randint(low, high, (1,), generator=g))
    return [(r(50, 5000), 12 * r(1, 20), r(1, 7), r(10, 600), r(16, 1024), r(1, 5)) for _ in range(count)]


# ---------------------------------------------------------------------------
# ALBERT's factorised embedding (the lecture "BERT and Other Language Models")

ALBERT_V, ALBERT_H, ALBERT_E = 30000, 2048, 128


def check_albert_embedding(full_embedding: Any, factorised_embedding: Any) -> None:
    """The lecture "BERT and Other Language Models": V x H = 61 440 000 against V x E + E x H = 4 102 144, exactly."""
    ex = "albert_embedding"
    V, H, E = ALBERT_V, ALBERT_H, ALBERT_E
    full = float(as_float64(ex, full_embedding, (), "full_embedding"))
    factorised = float(as_float64(ex, factorised_embedding, (), "factorised_embedding"))
    if full != V * H:
        if abs(full - 61e6) < 1e6:
            raise AnswerError(ex, f"full_embedding = {full:,.0f} is the slide's rounding; compute V x H exactly.")
        if math.isclose(full * 1e6, V * H, rel_tol=1e-3):
            raise AnswerError(ex, f"full_embedding = {full:g} is V x H in millions; give the exact number of "
                                  "parameters, an int.")
        raise AnswerError(ex, f"full_embedding should be V x H = {V} x {H}, got {full:,.0f}.")
    wrong = {V * E: "factorised_embedding is only V x E; add the E x H matrix that projects up to the hidden size.",
             E * H: "factorised_embedding is only E x H; add the V x E table of small embeddings.",
             V * E * H: "factorised_embedding multiplies V x E x H; the two matrices' sizes add: V x E + E x H.",
             (V + H) * H: "use E, the small embedding size, for the factorised matrices: V x E + E x H."}
    if factorised != V * E + E * H:
        raise AnswerError(ex, wrong.get(int(factorised), f"factorised_embedding should be V x E + E x H, got "
                                                         f"{factorised:,.0f}."))
    report_pass(ex, f"{full:,.0f} against {factorised:,.0f} parameters, {full / factorised:.1f} times fewer")
