"""Learning a WordPiece vocabulary from text by merges (notebook 07): the likelihood rule, its ratio
approximation, and BPE's frequency rule.

BERT's 30522 pieces were learned before BERT was trained. The recipe (Schuster & Nakajima, 2012;
the lecture "LSTMs & Transformers": WordPiece merges "the pairs that maximise the likelihood of the
training data"):

1. split every word into characters, every character after the first with the continuation
   prefix ``##``: "lower" -> ``l ##o ##w ##e ##r``; these characters are the first vocabulary;
2. score every pair of neighbouring pieces, counts over the whole split text (a word that occurs 5
   times counts 5 times);
3. merge the best pair everywhere (``l`` + ``##o`` -> ``lo``; the second piece's ``##`` is
   dropped) and add the new piece to the vocabulary; repeat until the vocabulary is big enough.

The scores of step 2 (``learn_wordpiece(score=...)``):

- ``"likelihood"``: :func:`likelihood_gain`, how much merging the pair raises the log-likelihood of
  the split text under a unigram model of its pieces (each piece drawn independently with its
  relative frequency), :func:`log_likelihood`: the rule as the lecture states it;
- ``"ratio"``: :func:`pair_scores`, ``count(ab) / (count(a) * count(b))``, the score that Hugging
  Face's NLP course gives for WordPiece. It approximates the gain per merged occurrence: with N
  pieces in all, merging the m = count(ab) occurrences of ab gains about m (log(N ratio) - 1) when
  the pair is rare next to its pieces, so ranking by the ratio leaves out the factor m, and ranks a
  pair seen once as high as one seen a thousand times;
- ``"frequency"``: the largest count(ab), the rule of byte-pair encoding (BPE), which is what the
  ``WordPieceTrainer`` of Hugging Face ``tokenizers`` does (it trains a BPE model with the ``##``
  prefix and keeps only its vocabulary).

:func:`word_counts` turns text into the word counts the learners start from. A learned vocabulary
splits words with greedy longest-match-first, as BERT's tokenizer does (notebook 07's ``wordpiece``
exercise).
"""
from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from typing import Iterable, Mapping, NamedTuple

__all__ = ["PREFIX", "SCORES", "word_counts", "initial_split", "merge_pieces", "pair_scores", "log_likelihood",
           "merges_in", "likelihood_gain", "learn_wordpiece", "LearnedVocabulary"]

PREFIX = "##"  # marks a piece that continues a word
SCORES = ("likelihood", "ratio", "frequency")  # the merge rules of learn_wordpiece

Split = tuple[str, ...]  # one word as pieces, e.g. ("l", "##o", "##w")
Pair = tuple[str, str]


def word_counts(texts: Iterable[str]) -> Counter:
    """How often each lower-cased word of letters a-z occurs in ``texts`` (digits and punctuation are dropped)."""
    if isinstance(texts, str):
        raise ValueError("word_counts expects a list of texts, got one string; wrap it in a list: [text].")
    counts: Counter = Counter()
    for number, text in enumerate(texts):
        if not isinstance(text, str):
            raise ValueError(f"word_counts expects strings, got {type(text).__name__} at position {number}.")
        counts.update(re.findall(r"[a-z]+", text.lower()))
    return counts


def initial_split(word: str) -> Split:
    """``word`` as characters, each after the first with the ``##`` prefix: "low" -> ("l", "##o", "##w")."""
    return (word[0],) + tuple(PREFIX + c for c in word[1:])


def merge_pieces(a: str, b: str) -> str:
    """The piece that replaces ``a`` followed by ``b``: b loses its ``##``.

    "l" + "##o" -> "lo", "##o" + "##w" -> "##ow".
    """
    return a + b.removeprefix(PREFIX)


def pair_scores(splits: Mapping[Split, int]) -> dict[Pair, float]:
    """{(a, b): count(ab) / (count(a) * count(b))} for every pair of neighbouring pieces of ``splits``.

    ``splits`` maps a split word (a tuple of pieces) to how often the word occurs; every occurrence
    of a piece or pair counts, weighted by its word's count.
    """
    pieces, pairs = Counter(), Counter()
    for split, count in splits.items():
        for piece in split:
            pieces[piece] += count
        for pair in zip(split, split[1:]):
            pairs[pair] += count
    return {(a, b): n / (pieces[a] * pieces[b]) for (a, b), n in pairs.items()}


def log_likelihood(piece_counts: Mapping[str, int]) -> float:
    """Log-likelihood (nats) of a split text under the unigram model of its pieces: sum of c log(c / N).

    ``piece_counts``: how often each piece occurs (N: their sum). Each piece is drawn independently
    with probability c / N, the maximum-likelihood unigram model of the text as it is split.
    """
    total = sum(piece_counts.values())
    return sum(c * math.log(c / total) for c in piece_counts.values() if c)


def merges_in(split: Split, pair: Pair) -> int:
    """How many times ``pair`` is merged in ``split``, left to right without overlap ("##a ##a ##a": once)."""
    count, i = 0, 0
    while i + 1 < len(split):
        if (split[i], split[i + 1]) == pair:
            count += 1
            i += 2
        else:
            i += 1
    return count


def _x_log_x(x: float) -> float:
    return x * math.log(x) if x > 0 else 0.0


def likelihood_gain(piece_counts: Mapping[str, int], pair: Pair, merges: int, total: int | None = None) -> float:
    """The change of :func:`log_likelihood` when ``merges`` occurrences of ``pair`` become one piece each.

    a and b each lose ``merges`` occurrences (a piece merged with itself loses two per merge), the
    merged piece gains them (it may already occur, made from other pieces), and the text has
    ``merges`` pieces fewer: only those terms of sum c log c - N log N change. ``total``: N, the sum
    of ``piece_counts`` (given when known, to save the sum).
    """
    a, b = pair
    total = sum(piece_counts.values()) if total is None else total
    n_a, n_new = piece_counts.get(a, 0), piece_counts.get(merge_pieces(a, b), 0)
    if a == b:
        pieces = _x_log_x(n_a - 2 * merges) - _x_log_x(n_a)
    else:
        n_b = piece_counts.get(b, 0)
        pieces = _x_log_x(n_a - merges) - _x_log_x(n_a) + _x_log_x(n_b - merges) - _x_log_x(n_b)
    return pieces + _x_log_x(n_new + merges) - _x_log_x(n_new) - _x_log_x(total - merges) + _x_log_x(total)


class LearnedVocabulary(NamedTuple):
    """What :func:`learn_wordpiece` returns."""

    tokens: list[str]       # the vocabulary in the order it grew: special tokens, the alphabet, merged pieces
    merges: list[Pair]      # the merged pairs, in order; merge k made the piece merge_pieces(*merges[k])
    pair_counts: list[int]  # count(ab) of each merged pair when it was merged


def _validate(counts: Mapping[str, int], vocab_size: int, score: str) -> None:
    if not isinstance(counts, Mapping):
        raise ValueError(f"counts should map words to how often they occur (a dict or a Counter), got "
                         f"{type(counts).__name__}; word_counts(texts) makes one.")
    for word, count in counts.items():
        if not isinstance(word, str) or not word or any(c.isspace() for c in word) or word.startswith(PREFIX):
            raise ValueError(f"every word must be a non-empty string without spaces and without the '##' prefix, "
                             f"got {word!r}.")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"every count must be a positive int, got {count!r} for the word {word!r}.")
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1:
        raise ValueError(f"vocab_size must be a positive int, got {vocab_size!r}.")
    if score not in SCORES:
        raise ValueError(f"score must be one of {SCORES}, got {score!r}.")


def learn_wordpiece(counts: Mapping[str, int], vocab_size: int, *, score: str = "likelihood",
                    special_tokens: Iterable[str] = ("[UNK]",)) -> LearnedVocabulary:
    """Learn a WordPiece vocabulary of ``vocab_size`` tokens (special tokens included) from word counts.

    ``score="likelihood"``: merge the pair whose merge raises the unigram log-likelihood of the split
    text most (:func:`likelihood_gain`), WordPiece's rule; ``score="ratio"``: the largest
    count(ab) / (count(a) count(b)), its approximation (:func:`pair_scores`); ``score="frequency"``:
    the largest count(ab), BPE's rule. Ties go to the more frequent pair,
    then to the pair whose pieces joined the vocabulary first (the alphabet is ordered single letters
    first, then the '##' ones, each alphabetically; merged pieces follow in the order they were made),
    as Hugging Face's trainer breaks them: the result depends on nothing but the counts. Learning
    stops early when no pair is left (every word is one piece).
    """
    _validate(counts, vocab_size, score)
    specials = list(dict.fromkeys(special_tokens))
    splits: dict[str, list[str]] = {word: list(initial_split(word)) for word in counts}
    alphabet = sorted({piece for split in splits.values() for piece in split} - set(specials),
                      key=lambda piece: (piece.startswith(PREFIX), piece))  # a, b, ..., ##a, ##b, ...
    if vocab_size < len(specials) + len(alphabet):
        raise ValueError(f"vocab_size={vocab_size} is smaller than the {len(specials)} special tokens and the "
                         f"alphabet of {len(alphabet)} characters that every word needs; ask for at least "
                         f"{len(specials) + len(alphabet)}.")
    tokens = specials + alphabet
    position = {token: i for i, token in enumerate(tokens)}  # token -> when it joined the vocabulary

    piece_count: Counter = Counter()              # piece -> occurrences in the split text
    pair_count: Counter = Counter()               # (a, b) -> occurrences of a directly followed by b
    self_merges: Counter = Counter()              # (a, a) -> how many times merging it would merge (no overlap)
    words_with: dict[Pair, set[str]] = defaultdict(set)  # (a, b) -> the words where it occurs

    def tally(word: str, sign: int) -> None:
        """Add (sign=+1) or remove (sign=-1) one word's pieces and pairs from the counts."""
        split, n = splits[word], counts[word] * sign
        for piece in split:
            piece_count[piece] += n
            if not piece_count[piece]:
                del piece_count[piece]
        for pair in zip(split, split[1:]):
            pair_count[pair] += n
            if not pair_count[pair]:
                del pair_count[pair]  # no longer occurs: never a candidate
            elif sign > 0:
                words_with[pair].add(word)
        for pair in {pair for pair in zip(split, split[1:]) if pair[0] == pair[1]}:
            self_merges[pair] += merges_in(tuple(split), pair) * counts[word] * sign
            if not self_merges[pair]:
                del self_merges[pair]

    for word in splits:
        tally(word, +1)

    def best_pair() -> Pair:
        """The pair with the best score; a tie goes to the more frequent pair, then to the earlier pieces."""
        if score == "ratio":
            value = {(a, b): n / (piece_count[a] * piece_count[b]) for (a, b), n in pair_count.items()}
        elif score == "likelihood":
            total = sum(piece_count.values())
            value = {(a, b): likelihood_gain(piece_count, (a, b), self_merges[a, b] if a == b else n, total)
                     for (a, b), n in pair_count.items()}
        else:
            value = pair_count
        top = max(value.values())
        tied = [pair for pair, v in value.items() if v == top]
        return min(tied, key=lambda pair: (-pair_count[pair], position[pair[0]], position[pair[1]]))

    merges: list[Pair] = []
    merged_counts: list[int] = []
    while len(tokens) < vocab_size and pair_count:
        a, b = best = best_pair()
        new = merge_pieces(a, b)
        merged_counts.append(pair_count[best])
        for word in words_with.pop(best):
            split = splits[word]
            if not any(pair == best for pair in zip(split, split[1:])):
                continue  # an earlier merge in this word took the pair away
            tally(word, -1)
            merged, i = [], 0
            while i < len(split):  # left to right, as many non-overlapping (a, b) as there are
                if i + 1 < len(split) and split[i] == a and split[i + 1] == b:
                    merged.append(new)
                    i += 2
                else:
                    merged.append(split[i])
                    i += 1
            splits[word] = merged
            tally(word, +1)
        merges.append(best)
        if new not in position:
            position[new] = len(tokens)
            tokens.append(new)
    return LearnedVocabulary(tokens, merges, merged_counts)
