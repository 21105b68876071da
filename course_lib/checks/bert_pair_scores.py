"""The check of ``pair_scores(splits)``, the ratio score that approximates WordPiece's likelihood rule (notebook 07):
every pair's score against exact fractions ``count(ab) / (count(a) count(b))``, counted position by position.
"""
from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from typing import Any, Callable, Sequence

import torch

from course_lib.checks.common import WRITE_IT_YOURSELF
from course_lib.grading.answers import AnswerError, Banned, Variant, call_answer, case_note, describe_value, report_pass

# ---------------------------------------------------------------------------
# pair_scores(splits): the ratio score, WordPiece's likelihood rule approximated

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
          "this score divides by count(a) * count(b).", denominator="none"),
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
        v("pieces_from_pair_ends", "you count the pieces from the pairs, so a piece inside a word counts twice (it is "
                                   "in "
          "two pairs) and a word's first and last piece once; count(a) counts each occurrence of the piece once.",
          pieces_from_pairs="ends"),
        v("prefix_stripped", "you count a piece and its '##' form (such as 'w' and '##w') as one piece; they are "
          "different pieces (a w that starts a word, a w that continues one): count each piece as it is written.",
          strip_prefix=True),
        v("last_piece_skipped", "your piece counts miss the last piece of every word; count every piece, the last "
          "one too.", skip_last_piece=True),
        v("log", "your values are the logarithms of the scores; return count(ab) / (count(a) * count(b)) itself.",
          transform=lambda x: math.log(x) if x > 0 else -math.inf),
        Variant("likelihood_gain", "your values are the log-likelihood gains of the merges (the rule the ratio "
                "approximates); this exercise asks for the ratio count(ab) / (count(a) * count(b)) itself.",
                _likelihood_gains),
    ]


def _likelihood_gains(splits: dict) -> dict:
    """{(a, b): the gain in unigram log-likelihood of merging a b everywhere}: the rule the ratio approximates."""
    from course_lib.wordpiece import likelihood_gain, merges_in

    pieces: Counter = Counter()
    for split, count in splits.items():
        for piece in split:
            pieces[piece] += count
    pairs = {pair for split in splits for pair in zip(split, split[1:])}
    return {pair: likelihood_gain(pieces, pair, sum(merges_in(tuple(split), pair) * count
                                                    for split, count in splits.items())) for pair in pairs}


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
            split = tuple(("##" if start else "") + word[start:end] for start, end in zip(cuts, cuts[1:])
                          if end > start)
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
    return (f"{len(wrong)} of the {len(exact)} scores are wrong, e.g. ({a!r}, {b!r}): yours {answer[a, b]:.6g}, right "
            f"count(ab) / (count(a) * count(b)) = {n_ab} / ({pieces[a]} * {pieces[b]}) = {float(exact[a, b]):.6g}.")
