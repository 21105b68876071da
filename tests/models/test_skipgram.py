"""course_lib.skipgram: the SGNS loss and its gradients against independent computations, the pairs and the negative
distribution against brute force, and the trained course model against gensim's Word2Vec on the same corpus."""
import random
from collections import Counter

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import course_lib.skipgram as sg
from course_lib import data
from course_lib.device import torch_threads


def random_vectors(B=6, k=4, d=7, scale=1.0, seed=0):
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(shape, generator=g, dtype=torch.float64) * scale for shape in ((B, d), (B, d), (B, k, d)))


def bce_loss(v, u, n):
    """SGNS as binary classification: the context word labelled 1, each negative 0 (PyTorch's BCE with logits)."""
    logits = torch.cat([(u * v).sum(-1, keepdim=True), torch.bmm(n, v[:, :, None])[..., 0]], dim=1)  # (B, 1 + k)
    labels = torch.zeros_like(logits)
    labels[:, 0] = 1
    return F.binary_cross_entropy_with_logits(logits, labels, reduction="none").sum(1).mean()


@pytest.mark.parametrize("scale", [1.0, 40.0])
def test_sgns_loss_and_gradients_equal_binary_cross_entropy(scale):
    inputs = random_vectors(scale=scale)
    ours = [t.clone().requires_grad_() for t in inputs]
    ref = [t.clone().requires_grad_() for t in inputs]
    loss, expected = sg.sgns_loss(*ours), bce_loss(*ref)
    assert torch.isfinite(loss) and torch.allclose(loss, expected, rtol=1e-12, atol=1e-12)
    loss.backward()
    expected.backward()
    for a, b in zip(ours, ref):
        assert torch.allclose(a.grad, b.grad, rtol=1e-10, atol=1e-12)


def test_sgns_gradient_of_the_center_vector_in_closed_form():
    """d loss / d v_c = ((sigma(u_o.v_c) - 1) u_o + sum_k sigma(u_k.v_c) u_k) / B, written out by hand."""
    v, u, n = random_vectors(B=3, k=2, d=4, seed=1)
    v.requires_grad_()
    sg.sgns_loss(v, u, n).backward()
    B = len(v)
    for b in range(B):
        grad = (torch.sigmoid(u[b] @ v[b].detach()) - 1) * u[b]
        for neg in n[b]:
            grad = grad + torch.sigmoid(neg @ v[b].detach()) * neg
        assert torch.allclose(v.grad[b], grad / B, atol=1e-12)


def test_sgns_loss_is_finite_for_scores_of_hundreds():
    v, u, n = random_vectors(scale=30.0, seed=2)  # scores u.v of a few hundred or more
    assert bool(torch.isfinite(sg.sgns_loss(v.float(), u.float(), n.float())))


def test_skipgram_model_is_the_loss_of_its_lookups():
    torch.manual_seed(0)
    model = sg.SkipGram(20, 6)
    context, center = model.context.weight.detach(), model.center.weight.detach()
    assert float(context.abs().max()) == 0.0 and 0 < float(center.abs().max()) <= 0.5 / 6
    torch.nn.init.normal_(model.context.weight)
    c, o, neg = torch.tensor([1, 2, 3]), torch.tensor([4, 5, 6]), torch.tensor([[7, 8], [9, 10], [11, 1]])
    expected = bce_loss(model.center.weight[c].double(), model.context.weight[o].double(),
                        model.context.weight[neg].double())
    assert torch.allclose(model(c, o, neg).double(), expected, atol=1e-5)


def test_skipgram_pairs_match_brute_force():
    rng = random.Random(0)
    sentences = [[rng.randrange(9) for _ in range(rng.randrange(1, 12))] for _ in range(40)]
    for window in (1, 2, 5):
        expected = Counter((s[i], s[j]) for s in sentences for i in range(len(s)) for j in range(len(s))
                           if i != j and abs(i - j) <= window)
        assert Counter(map(tuple, sg.skipgram_pairs(sentences, window).tolist())) == expected


def test_negative_distribution_is_powered_and_renormalised():
    counts = torch.tensor([100, 10, 1, 0, 55])
    powered = np.array([100, 10, 1, 0, 55], dtype=np.float64) ** 0.75
    assert np.allclose(sg.negative_distribution(counts).numpy(), powered / powered.sum(), rtol=1e-6)


def test_analogy_accuracy_counts_what_analogy_answers():
    g = torch.Generator().manual_seed(3)
    E = torch.randn(30, 5, generator=g)
    quads = [tuple(torch.randperm(30, generator=g)[:4].tolist()) for _ in range(50)]
    quads += [(a, b, c, sg.analogy(E, a, b, c)) for a, b, c, _ in quads[:10]]  # some right ones
    assert sg.analogy_accuracy(E, quads) == sum(sg.analogy(E, a, b, c) == d for a, b, c, d in quads) / len(quads)


@pytest.fixture(scope="module")
def two_models():
    """The course model and gensim's Word2Vec, trained on the docstring corpus with the same settings (1 epoch)."""
    from gensim.models import Word2Vec

    train_text, _ = data.docstring_sentences()
    sentences, vocab, counts = sg.corpus_words(train_text, min_count=5)
    index = {w: i for i, w in enumerate(vocab)}
    pairs = sg.skipgram_pairs([[index[w] for w in s] for s in sentences], 2)
    with torch_threads(1):
        model, _ = sg.train_skipgram(pairs, counts, dim=32, negatives=5, epochs=1, batch_size=2048, lr=1e-2)
    w2v = Word2Vec(sentences, vector_size=32, window=2, negative=5, epochs=1, sg=1, min_count=1, sample=0,
                   shrink_windows=False, workers=1, seed=0)
    return vocab, model.embeddings(), w2v


def test_course_model_and_gensim_share_neighbours_far_above_chance(two_models):
    vocab, E_ours, w2v = two_models
    E_gensim = torch.tensor(w2v.wv.vectors[[w2v.wv.key_to_index[w] for w in vocab]])
    shuffled = E_gensim[torch.randperm(len(vocab), generator=torch.Generator().manual_seed(0))]
    words = range(200)  # the most frequent
    overlap = sg.neighbour_overlap(E_ours, E_gensim, words, 10)
    control = sg.neighbour_overlap(E_ours, shuffled, words, 10)  # the same tables, the word-to-row link broken
    chance = 10 / (len(vocab) - 1)
    assert control < 4 * chance and overlap > 5 * chance and overlap > 4 * control, (overlap, control, chance)
    # neighbour_overlap against gensim's own most_similar, word by word
    for i in (0, 7, 42):
        theirs = {vocab.index(w) for w, _ in w2v.wv.most_similar(vocab[i], topn=10)}
        ours = set(sg.cosine_neighbours(E_gensim, i, 10))
        assert ours == theirs


def test_analogy_is_gensims_most_similar(two_models):
    vocab, _, w2v = two_models
    E_gensim = torch.tensor(w2v.wv.vectors[[w2v.wv.key_to_index[w] for w in vocab]])
    for a, b, c, _ in sg.suffix_analogies(vocab)[:40:4]:
        [(best, _)] = w2v.wv.most_similar(positive=[b, c], negative=[a], topn=1)
        assert vocab[sg.analogy(E_gensim, vocab.index(a), vocab.index(b), vocab.index(c))] == best


def test_minilm_table_is_the_pretrained_models_input_embedding():
    from course_lib.bert import load_hf_minilm

    table, tokens = sg.minilm_word_embeddings()
    hf_model, tokenizer = load_hf_minilm()
    assert torch.equal(table, hf_model.embeddings.word_embeddings.weight.detach().float())
    assert tokens == tokenizer.convert_ids_to_tokens(list(range(len(tokens))))
