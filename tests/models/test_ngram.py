"""course_lib.data (the cat/dog grammar) and course_lib.ngram (the reference n-gram model)."""
import itertools
import math
import time
from collections import Counter

import numpy as np
import pytest

from course_lib import data
from course_lib.ngram import NGramModel, count_ngrams, pad

TINY = data.CatDogGrammar(
    plural=0.25,
    determiners=(("the", 3), ("a", 1)),
    plural_determiners=(("the", 1), ("some", 1)),
    adjectives=(("", 1), ("big", 1)),
    animals=(("cat", 1), ("dog", 2)),
    plurals=(("cat", "cats"), ("dog", "dogs")),
    auxiliaries=((("is", "are"), 1),),
    verbs=(("walking", 1), ("running", 3)),
    rooms=(("room", 1), ("bedroom", 1)),
    room_preference=(("dog", "room", 4.0),),
    held_out=(("cat", "bedroom"),),
)


def brute_force_entropy(g):
    """Enumerate every choice by hand, written out slot by slot, and merge identical word sequences."""
    def norm(choices):
        z = sum(w for _, w in choices)
        return {k: w / z for k, w in choices}
    det, pdet, adj, ani = norm(g.determiners), norm(g.plural_determiners), norm(g.adjectives), norm(g.animals)
    aux, verb = norm(g.auxiliaries), norm(g.verbs)
    probs = {}
    for plural in (False, True):
        for d1 in (pdet if plural else det):
            for a, an, x, v, d2 in itertools.product(adj, ani, aux, verb, det):
                weights = {r: w * dict(((p[1], p[2]) for p in g.room_preference if p[0] == an)).get(r, 1.0)
                           for r, w in g.rooms}
                for r, w in weights.items():
                    p = (g.plural if plural else 1 - g.plural) * (pdet if plural else det)[d1] * adj[a] * ani[an] \
                        * aux[x] * verb[v] * det[d2] * w / sum(weights.values())
                    noun = dict(g.plurals)[an] if plural else an
                    words = tuple(w for w in (d1, a, noun, x[plural], v, "in", d2, r) if w)
                    probs[words] = probs.get(words, 0.0) + p
    assert math.isclose(sum(probs.values()), 1.0)
    h = -sum(p * math.log(p) for p in probs.values())
    return h / sum(p * (len(w) + 1) for w, p in probs.items()), probs


def test_entropy_is_exact_on_a_tiny_grammar():
    h, probs = brute_force_entropy(TINY)
    assert math.isclose(data.entropy_per_token(TINY), h, rel_tol=1e-12)
    assert dict(TINY.sentences()).keys() == probs.keys()
    assert ("some", "dogs", "are", "running", "in", "a", "room") in probs
    assert not any(s[0] == "a" and s[1 + (s[1] == "big")] in ("cats", "dogs") for s in probs)  # agreement


def test_next_word_distribution_multiplies_back_to_sentence_probabilities():
    g = data.CatDogGrammar()
    for words, p in g.sentences()[::97]:
        chain = math.prod(data.next_word_distribution(words[:i], g)[w] for i, w in enumerate(words + ("</s>",)))
        assert math.isclose(chain, p, rel_tol=1e-9)
    after_mouse = data.next_word_distribution("a mouse is running in the".split(), g)
    after_cat = data.next_word_distribution("a cat is running in the".split(), g)
    assert after_mouse["kitchen"] > 5 * after_mouse["bedroom"] and after_cat["bedroom"] > 5 * after_cat["kitchen"]
    assert "bedroom" not in data.next_word_distribution("a mouse is running in the".split(), g, without_held_out=True)
    with pytest.raises(ValueError, match="never produces"):
        data.next_word_distribution(["in", "the"], g)


def test_docstring_corpus_is_prose_and_split_by_module():
    train, valid = data.docstring_sentences()
    assert len(train) > 3000 and len(valid) > 300
    assert not set(train) & set(valid) or len(set(train) & set(valid)) < 0.05 * len(valid)
    assert not any(s.lstrip().startswith(">>>") for s in train)
    words = [w for s in train for w in data.tokenize(s)]
    assert len(words) > 50_000 and "the" in [w for w, _ in Counter(words).most_common(3)]


def test_sentence_probabilities_sum_to_one():
    for g in (TINY, data.CatDogGrammar()):
        assert math.isclose(sum(p for _, p in g.sentences()), 1.0)


def test_default_grammar_floor_and_samples():
    h = data.entropy_per_token()
    assert 0 < h < math.log(20)
    s = data.sample_sentences(5, seed=1)
    assert s == data.sample_sentences(5, seed=1) and len(s) == 5
    assert data.sample_sentences(5, seed=1) != data.sample_sentences(5, seed=2)
    assert all(x.split()[-3] == "in" for x in s)


def test_split_holds_out_the_combination():
    g = data.CatDogGrammar()
    train, valid, held = data.train_valid_split(2000, 200, 50, seed=0)
    assert len(train) == 2000 and len(valid) == 200 and len(held) == 50
    assert not any(g.is_held_out(s.split()) for s in train + valid)
    assert all(g.is_held_out(s.split()) for s in held)


def test_trigram_cannot_see_the_room_preference_but_is_fast():
    """The room depends on the animal five words back: a trigram stays above the floor, a 6-gram gets there."""
    train, valid, _ = data.train_valid_split(10000, 2000, 10, seed=0)
    train, valid = [data.tokenize(s) for s in train], [data.tokenize(s) for s in valid]
    floor = math.exp(data.entropy_per_token(without_held_out=True))
    start = time.perf_counter()
    trigram = NGramModel(3, k=0.001).fit(train).perplexity(valid)
    assert time.perf_counter() - start < 1.5
    six_gram = NGramModel(6, k=0.001).fit(train).perplexity(valid)
    assert trigram > 1.04 * floor
    assert floor * 0.97 < six_gram < floor * 1.03


def test_tokenize_and_vocab():
    assert data.tokenize("The Cat is walking in the bedroom.") == ["the", "cat", "is", "walking", "in", "the", "bedroom", "."]
    v = data.Vocab([["the", "cat"], ["the", "dog"]])
    assert v.itos[:3] == ["<unk>", "<s>", "</s>"] and len(v) == 6
    assert v.index("mouse") == 0 and v.decode(v.encode(["the", "dog"])) == ["the", "dog"]
    assert data.Vocab([["a", "a", "b"]], min_count=2).normalise(["a", "b"]) == ["a", "<unk>"]


@pytest.mark.parametrize("call,message", [
    (lambda: data.Vocab([]), "empty corpus"),
    (lambda: data.Vocab([["a"]], min_count=0), "min_count"),
    (lambda: data.sample_sentences(-1), "non-negative"),
    (lambda: data.tokenize(3), "string"),
    (lambda: count_ngrams(["a"], 0), "n must be"),
    (lambda: NGramModel(0), "n must be"),
    (lambda: NGramModel(2, k=-1), "k must be"),
    (lambda: NGramModel(2).fit([]), "empty corpus"),
    (lambda: NGramModel(2).fit([["a"]]).perplexity([]), "empty"),
    (lambda: data.CatDogGrammar(animals=()).sentences(), "no choices"),
])
def test_bad_input_gives_clear_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_counts_probabilities_and_logprob():
    toks = pad("the cat is walking in the bedroom".split(), 2)
    assert count_ngrams(toks, 2)[("in", "the")] == 1 and sum(count_ngrams(toks, 3).values()) == len(toks) - 2
    model = NGramModel(2, k=0.5).fit([s.split() for s in ["the cat is walking in the bedroom", "a dog was running in a room"]])
    for ctx in (("the",), ("<s>",), ("zebra",)):
        assert math.isclose(sum(model.prob(ctx, w) for w in model.vocab), 1.0)
    s = "the cat is running in a room".split()
    expected = sum(math.log(model.prob((a,), b)) for a, b in zip(pad(s, 2), pad(s, 2)[1:]))
    assert math.isclose(model.sentence_logprob(s), expected)
    mle = NGramModel(2).fit([s.split() for s in ["a cat is walking in the bedroom"]])
    assert mle.sentence_logprob("a cat is running in the bedroom".split()) == -math.inf
    assert mle.sample(np.random.default_rng(0)) == "a cat is walking in the bedroom".split()
