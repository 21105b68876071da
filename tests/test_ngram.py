"""course_lib.data (the cat/dog grammar) and course_lib.ngram (the reference n-gram model)."""
import itertools
import math
import time

import numpy as np
import pytest

from course_lib import data
from course_lib.ngram import NGramModel, count_ngrams, pad

TINY = data.CatDogGrammar(
    determiners=(("the", 3), ("a", 1)),
    adjectives=(("", 1), ("big", 1)),
    animals=(("cat", 1), ("dog", 2)),
    auxiliaries=(("is", 1),),
    verbs=(("walking", 1), ("running", 3)),
    rooms=(("room", 1), ("bedroom", 1)),
    held_out=(("cat", "bedroom"),),
)


def brute_force_entropy(g):
    """Enumerate every slot choice by hand and merge identical word sequences."""
    det = dict(g.determiners); adj = dict(g.adjectives); ani = dict(g.animals)
    aux = dict(g.auxiliaries); verb = dict(g.verbs); room = dict(g.rooms)
    z = [sum(d.values()) for d in (det, adj, ani, aux, verb, room)]
    probs = {}
    for d1, a, an, x, v, d2, r in itertools.product(det, adj, ani, aux, verb, det, room):
        p = (det[d1] / z[0]) * (adj[a] / z[1]) * (ani[an] / z[2]) * (aux[x] / z[3]) * (verb[v] / z[4]) \
            * (det[d2] / z[0]) * (room[r] / z[5])
        words = tuple(w for w in (d1, a, an, x, v, "in", d2, r) if w)
        probs[words] = probs.get(words, 0.0) + p
    assert math.isclose(sum(probs.values()), 1.0)
    h = -sum(p * math.log(p) for p in probs.values())
    return h / sum(p * (len(w) + 1) for w, p in probs.items())


def test_entropy_is_exact_on_a_tiny_grammar():
    assert math.isclose(data.entropy_per_token(TINY), brute_force_entropy(TINY), rel_tol=1e-12)


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


def test_trigram_model_reaches_the_floor_and_is_fast():
    train, valid, _ = data.train_valid_split(10000, 2000, 10, seed=0)
    start = time.perf_counter()
    model = NGramModel(3, k=0.001).fit([data.tokenize(s) for s in train])
    ppl = model.perplexity([data.tokenize(s) for s in valid])
    assert time.perf_counter() - start < 1.0
    floor = math.exp(data.entropy_per_token(without_held_out=True))
    assert floor * 0.97 < ppl < floor * 1.1


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
