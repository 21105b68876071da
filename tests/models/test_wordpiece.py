"""course_lib.wordpiece: merges derived by hand, the ratio score formula, the likelihood gain against the corpus
log-likelihood computed from scratch, determinism, and BPE's rule against Hugging Face's WordPieceTrainer (which
trains BPE with the '##' prefix)."""
import math
import random
import re
from collections import Counter
from fractions import Fraction

import pytest

from course_lib import data
from course_lib.checks.bert import exact_pair_scores, pair_score_corpora, plain_wordpiece
from course_lib.wordpiece import (initial_split, learn_wordpiece, likelihood_gain, log_likelihood, merge_pieces,
                                  merges_in, pair_scores, word_counts)

#: Sennrich et al.'s BPE example; split into characters:
#:   low     l ##o ##w               x5
#:   lower   l ##o ##w ##e ##r       x2
#:   newest  n ##e ##w ##e ##s ##t   x6
#:   widest  w ##i ##d ##e ##s ##t   x3
LOW = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
ALPHABET = ["l", "n", "w", "##d", "##e", "##i", "##o", "##r", "##s", "##t", "##w"]  # the order ties are broken by


def test_initial_split_and_merge():
    assert initial_split("low") == ("l", "##o", "##w")
    assert initial_split("a") == ("a",)
    assert merge_pieces("l", "##o") == "lo"
    assert merge_pieces("##o", "##w") == "##ow"


def test_scores_are_the_formula():
    """count(##e) = 2 + 2*6 + 3 = 17, count(##s) = 6 + 3 = 9, count(##e ##s) = 9; ##i, ##d, ##i ##d: 3 each;
    l and ##o: 7 each, l ##o: 7; ##w: 5 + 2 + 6 = 13, ##o ##w: 7."""
    scores = pair_scores({initial_split(w): n for w, n in LOW.items()})
    assert scores[("##e", "##s")] == pytest.approx(9 / (17 * 9))
    assert scores[("##i", "##d")] == pytest.approx(3 / (3 * 3))
    assert scores[("l", "##o")] == pytest.approx(7 / (7 * 7))
    assert scores[("##o", "##w")] == pytest.approx(7 / (7 * 13))
    assert ("##w", "##i") not in scores and ("w", "##i") in scores  # pairs inside words only


def test_scores_equal_exact_fractions_with_repeated_pieces():
    for corpus in pair_score_corpora(seed=2, count=4):
        exact = exact_pair_scores(corpus)
        scores = pair_scores(corpus)
        assert set(scores) == set(exact)
        assert all(Fraction(scores[p]).limit_denominator(10**9) == exact[p] for p in exact)


def test_merges_derived_by_hand():
    """1. w ##i: 3/(3*3) = 1/3, tied with ##i ##d (1/3, also 3 times): w joined the vocabulary before ##i.
    2. wi ##d: 3/(3*3) = 1/3.   3. l ##o: 7/(7*7) = 1/7 beats ##s ##t: 9/(9*9) = 1/9.
    4. ##s ##t: 1/9 beats lo ##w: 7/(7*13) = 1/13.   5. lo ##w: 1/13 beats every pair with ##e (x/(17 x) = 1/17).
    6. six pairs tie at 1/17 (##e ##r, n ##e, ##e ##w, ##w ##e, ##e ##st, wid ##e); ##e ##st occurs most (9)."""
    learned = learn_wordpiece(LOW, vocab_size=1 + len(ALPHABET) + 6, score="ratio")
    assert learned.merges == [("w", "##i"), ("wi", "##d"), ("l", "##o"), ("##s", "##t"), ("lo", "##w"),
                              ("##e", "##st")]
    assert learned.tokens == ["[UNK]"] + ALPHABET + ["wi", "wid", "lo", "##st", "low", "##est"]
    assert learned.pair_counts == [3, 3, 7, 9, 7, 9]


def test_frequency_rule_is_bpe():
    """##e ##s and ##s ##t both occur 9 times (##e joined before ##s), then ##es ##t (9), then l ##o and ##o ##w
    (7 each: l joined first), lo ##w (7), then n ##e (6, tied with ##e ##w and ##w ##est: n first).
    Hugging Face's WordPieceTrainer learns the same five on these words."""
    learned = learn_wordpiece(LOW, vocab_size=1 + len(ALPHABET) + 5, score="frequency")
    assert learned.merges == [("##e", "##s"), ("##es", "##t"), ("l", "##o"), ("lo", "##w"), ("n", "##e")]


def test_overlapping_pairs_merge_left_to_right():
    """b ##a ##a ##a: by frequency ##a ##a (twice) first, merged left to right: b ##aa ##a; then b ##aa and
    ##aa ##a tie (once each): b joined the vocabulary first."""
    learned = learn_wordpiece({"baaa": 1}, vocab_size=10, score="frequency")
    assert learned.merges[0] == ("##a", "##a") and learned.merges[1] == ("b", "##aa")
    assert learned.tokens[-1] == "baaa"
    # the likelihood rule: b ##a scores 1/(1*3) = 1/3, ##a ##a 2/(3*3) = 2/9
    assert learn_wordpiece({"baaa": 1}, vocab_size=10, score="ratio").merges[0] == ("b", "##a")


def test_learning_stops_when_every_word_is_one_piece():
    for rule in ("likelihood", "ratio", "frequency"):
        learned = learn_wordpiece({"ab": 4}, vocab_size=100, score=rule)
        assert learned.tokens == ["[UNK]", "a", "##b", "ab"] and learned.merges == [("a", "##b")]


def merged(split, pair):
    out, i = [], 0
    while i < len(split):
        if i + 1 < len(split) and (split[i], split[i + 1]) == pair:
            out.append(merge_pieces(*pair))
            i += 2
        else:
            out.append(split[i])
            i += 1
    return out


def corpus_log_likelihood(splits):
    """Sum over every piece occurrence of log(its relative frequency): the unigram model fitted to the split text."""
    pieces = Counter()
    for split, n in splits.items():
        for piece in split:
            pieces[piece] += n
    total = sum(pieces.values())
    return sum(n * math.log(pieces[piece] / total) for split, n in splits.items() for piece in split)


def brute_force_gains(splits):
    """{pair: log-likelihood after merging it everywhere - before}, each merge applied and everything recounted."""
    before = corpus_log_likelihood(splits)
    pairs = {pair for split in splits for pair in zip(split, split[1:])}
    gains = {}
    for pair in pairs:
        after = Counter()
        for split, n in splits.items():
            after[tuple(merged(list(split), pair))] += n
        gains[pair] = corpus_log_likelihood(after) - before
    return gains


def test_likelihood_gain_is_the_change_of_the_corpus_log_likelihood():
    corpora = [{initial_split(w): n for w, n in LOW.items()}, *pair_score_corpora(seed=5, count=3),
               {("b", "##a", "##a", "##a"): 2, ("##a", "##a"): 3, ("a", "##b"): 1, ("ab",): 4, ("a",): 2}]
    for splits in corpora:
        pieces = Counter()
        for split, n in splits.items():
            for piece in split:
                pieces[piece] += n
        assert log_likelihood(pieces) == pytest.approx(corpus_log_likelihood(splits), rel=1e-12)
        for pair, gain in brute_force_gains(splits).items():
            merges = sum(merges_in(split, pair) * n for split, n in splits.items())
            assert likelihood_gain(pieces, pair, merges) == pytest.approx(gain, rel=1e-9, abs=1e-9), pair
    # "##a ##a ##a" merges once (left to right, no overlap), "ab" made from a + ##b adds to the "ab" already there
    assert merges_in(("b", "##a", "##a", "##a"), ("##a", "##a")) == 1


def test_ratio_is_the_gain_per_occurrence_when_the_pair_is_rare():
    """m merges of a pair whose pieces are far more common: gain ~ m (log(N m / (count(a) count(b))) - 1)."""
    pieces = {"a": 20_000, "##b": 30_000, "c": 150_000}
    total = sum(pieces.values())
    for m in (3, 10, 40):
        ratio = m / (pieces["a"] * pieces["##b"])
        approx = m * (math.log(total * ratio) - 1)
        assert likelihood_gain(pieces, ("a", "##b"), m) == pytest.approx(approx, rel=0.01)


def test_likelihood_rule_merges_the_best_brute_force_gain_each_time():
    counts = some_words(("bisect",))
    learned = learn_wordpiece(counts, vocab_size=len({p for w in counts for p in initial_split(w)}) + 6,
                              score="likelihood")
    assert len(learned.merges) == 5
    splits = {initial_split(w): n for w, n in counts.items()}
    for pair in learned.merges:
        gains = brute_force_gains(splits)
        assert gains[pair] == pytest.approx(max(gains.values()), rel=1e-9)
        splits = {tuple(merged(list(s), pair)): n for s, n in splits.items()}


def naive_learn(counts, vocab_size):
    """The recipe without bookkeeping: split, score every pair from scratch, merge the best, again."""
    splits = {w: list(initial_split(w)) for w in counts}
    tokens = ["[UNK]"] + sorted({p for s in splits.values() for p in s}, key=lambda p: (p.startswith("##"), p))
    merges = []
    while len(tokens) < vocab_size:
        scored = {}
        for w, s in splits.items():
            for pair in zip(s, s[1:]):
                scored[pair] = scored.get(pair, 0) + counts[w]
        if not scored:
            break
        scores = pair_scores({tuple(s): counts[w] for w, s in splits.items()})
        best = min(scores, key=lambda p: (-scores[p], -scored[p], tokens.index(p[0]), tokens.index(p[1])))
        for w, s in splits.items():
            out, i = [], 0
            while i < len(s):
                if i + 1 < len(s) and (s[i], s[i + 1]) == best:
                    out.append(merge_pieces(*best))
                    i += 2
                else:
                    out.append(s[i])
                    i += 1
            splits[w] = out
        merges.append(best)
        if merge_pieces(*best) not in tokens:
            tokens.append(merge_pieces(*best))
    return tokens, merges


def sentences_of(names):
    return [s for path in data.stdlib_sources() if path.stem in names for s in data.module_sentences(path, 4, 40)]


def some_words(names=("textwrap", "string", "bisect")):
    return word_counts(sentences_of(names))


def test_bookkeeping_equals_scoring_from_scratch():
    counts = some_words()
    assert 200 < len(counts) < 3000
    learned = learn_wordpiece(counts, vocab_size=120, score="ratio")
    assert (learned.tokens, learned.merges) == naive_learn(counts, 120)


def test_deterministic_whatever_the_order_of_the_words():
    counts = some_words(("argparse", "textwrap"))
    items = list(counts.items())
    random.Random(0).shuffle(items)
    for rule in ("likelihood", "ratio"):
        first = learn_wordpiece(counts, 200, score=rule)
        assert learn_wordpiece(dict(items), 200, score=rule) == first
        assert learn_wordpiece(counts, 200, score=rule) == first


def test_frequency_rule_reproduces_hugging_faces_wordpiece_trainer():
    """tokenizers' WordPieceTrainer is its BpeTrainer with the '##' prefix: BPE's rule, the same vocabulary
    (up to ties, which it breaks by its internal token ids)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    sentences = sentences_of(("argparse", "textwrap", "string", "shutil", "tarfile", "threading", "calendar"))
    counts = word_counts(sentences)
    hf = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    hf.train_from_iterator([" ".join(re.findall(r"[a-z]+", s.lower())) for s in sentences],
                           trainers.WordPieceTrainer(vocab_size=300, special_tokens=["[UNK]"], show_progress=False))
    theirs = set(hf.get_vocab())
    bpe = set(learn_wordpiece(counts, 300, score="frequency").tokens)
    wordpiece = set(learn_wordpiece(counts, 300, score="ratio").tokens)
    assert len(theirs) == len(bpe) == 300
    assert len(theirs & bpe) >= 295
    assert len(theirs & wordpiece) < 150  # the ratio rule learns other pieces
    # and HF's WordPiece model splits words greedily, longest match first, with the vocabulary alone
    for word in list(counts)[:300]:
        assert [t.value for t in hf.model.tokenize(word)] == plain_wordpiece(word, theirs)


def test_every_training_word_splits_without_unk():
    counts = some_words()
    for rule in ("likelihood", "ratio"):
        vocab = set(learn_wordpiece(counts, 150, score=rule).tokens)
        for word in counts:
            pieces = plain_wordpiece(word, vocab)
            assert "[UNK]" not in pieces and "".join(p.removeprefix("##") for p in pieces) == word


@pytest.mark.parametrize("args,kwargs,message", [
    (({"low": 5}, 2), {}, "smaller than the 1 special tokens and the alphabet of 3"),
    (({"low": 0}, 10), {}, "positive int"),
    (({"low": 2.5}, 10), {}, "positive int"),
    (({"##low": 1}, 10), {}, "without the '##' prefix"),
    (({"two words": 1}, 10), {}, "without spaces"),
    (({"": 1}, 10), {}, "non-empty string"),
    ((["low", "lower"], 10), {}, "map words to how often"),
    (({"low": 1}, "10"), {}, "vocab_size must be a positive int"),
    (({"low": 1}, 10), {"score": "bpe"}, "score must be one of"),
])
def test_bad_input_gets_a_sentence(args, kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        learn_wordpiece(*args, **kwargs)


def test_word_counts():
    assert word_counts(["The cat, the CAT!", "a 2nd cat"]) == {"the": 2, "cat": 3, "a": 1, "nd": 1}
    with pytest.raises(ValueError, match="one string"):
        word_counts("the cat")
    with pytest.raises(ValueError, match="expects strings"):
        word_counts(["the cat", 3])


def test_hugging_face_learns_the_same_five_merges_on_the_four_words():
    """Its alphabet also holds a single letter for every character (d, e, i, ...: 10 + 8 '##' ones + [UNK])."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    hf = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    words = [word for word, n in LOW.items() for _ in range(n)]
    hf.train_from_iterator(words, trainers.WordPieceTrainer(vocab_size=19 + 5, special_tokens=["[UNK]"],
                                                            show_progress=False))
    vocab = hf.get_vocab()
    theirs = sorted(vocab, key=vocab.get)[19:]
    ours = learn_wordpiece(LOW, vocab_size=1 + len(ALPHABET) + 5, score="frequency").tokens[-5:]
    assert theirs == ours == ["##es", "##est", "lo", "low", "ne"]
