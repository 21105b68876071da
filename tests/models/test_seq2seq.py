"""course_lib.seq2seq: the score functions against independent computations, the encoder-decoder's shapes,
its attention weights, its input checks, and that it learns to reverse sequences (with attention)."""
import itertools

import pytest
import torch
import torch.nn as nn

from course_lib import seq2seq
from course_lib.train import TrainConfig, train


def _qk(lead, d_q=4, d_k=4, n_q=3, n_k=5, dtype=torch.float64, device="cpu", seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*lead, n_q, d_q, generator=g, dtype=dtype).to(device),
            torch.randn(*lead, n_k, d_k, generator=g, dtype=dtype).to(device))


@pytest.mark.parametrize("lead", [(), (2,), (2, 3)])
def test_dot_and_scaled_dot_scores_equal_a_loop(lead, device):
    Q, K = _qk(lead, device=device)
    expected = torch.zeros(*lead, 3, 5, dtype=Q.dtype, device=device)
    for i, j in itertools.product(range(3), range(5)):
        expected[..., i, j] = (Q[..., i, :] * K[..., j, :]).sum(-1)
    torch.testing.assert_close(seq2seq.dot_score(Q, K), expected)
    torch.testing.assert_close(seq2seq.scaled_dot_score(Q, K), expected / 2.0)   # d_k = 4


@pytest.mark.parametrize("lead", [(), (2,), (2, 3)])
def test_bilinear_score_equals_nn_bilinear(lead, device):
    Q, K = _qk(lead, d_q=4, d_k=6, device=device)
    layer = nn.Bilinear(4, 6, 1, bias=False).double().to(device)
    pairs = layer(Q.unsqueeze(-2).expand(*lead, 3, 5, 4).contiguous(), K.unsqueeze(-3).expand(*lead, 3, 5, 6).contiguous())
    torch.testing.assert_close(seq2seq.bilinear_score(Q, K, layer.weight[0].detach()), pairs.squeeze(-1))


def test_additive_score_equals_a_one_hidden_layer_network_on_the_concatenated_pair(device):
    """The lecture's form w2 . tanh(W1 [q; k]), with nn.Linear layers, pair by pair."""
    Q, K = _qk((2,), d_q=4, d_k=3, device=device)
    hidden, out = nn.Linear(7, 6, bias=False).double().to(device), nn.Linear(6, 1, bias=False).double().to(device)
    W, U, v = hidden.weight[:, :4].detach(), hidden.weight[:, 4:].detach(), out.weight[0].detach()
    expected = torch.zeros(2, 3, 5, dtype=Q.dtype, device=device)
    for i, j in itertools.product(range(3), range(5)):
        expected[:, i, j] = out(torch.tanh(hidden(torch.cat([Q[:, i], K[:, j]], dim=-1)))).squeeze(-1).detach()
    torch.testing.assert_close(seq2seq.additive_score(Q, K, W, U, v), expected)


def test_score_functions_say_what_is_wrong_with_their_inputs():
    Q, K = _qk((), d_q=4, d_k=6)
    with pytest.raises(ValueError, match="share their last dimension"):
        seq2seq.dot_score(Q, K)
    with pytest.raises(ValueError, match=r"W must have shape \(d_q, d_k\)"):
        seq2seq.bilinear_score(Q, K, torch.zeros(6, 4, dtype=Q.dtype))
    with pytest.raises(ValueError, match=r"U must have shape \(d_a, d_k\)"):
        seq2seq.additive_score(Q, K, torch.zeros(5, 4, dtype=Q.dtype), torch.zeros(5, 4, dtype=Q.dtype),
                               torch.zeros(5, dtype=Q.dtype))
    with pytest.raises(TypeError, match="torch.Tensor"):
        seq2seq.dot_score([[1.0]], K)


@pytest.mark.parametrize("score", [None, *seq2seq.SCORES])
def test_shapes_and_weights_that_sum_to_one(score, device):
    torch.manual_seed(0)
    model = seq2seq.Seq2Seq(seq2seq.Seq2SeqConfig(num_symbols=6, hidden_size=8, score=score)).to(device)
    source, target = seq2seq.reversal_batch(3, 7, 6, torch.Generator().manual_seed(0))
    source, target = source.to(device), target.to(device)
    logits, loss = model(source, target)
    assert logits.shape == (3, 7, 6) and loss.shape == () and bool(torch.isfinite(loss))
    logits, weights = model.decode(source, steps=4)
    assert logits.shape == (3, 4, 6)
    if score is None:
        assert weights is None
    else:
        assert weights.shape == (3, 4, 7) and bool((weights >= 0).all())
        torch.testing.assert_close(weights.sum(-1), torch.ones(3, 4, device=device))
    greedy, no_loss = model(source)
    assert greedy.shape == (3, 7, 6) and no_loss is None


def test_the_score_function_is_an_argument():
    calls = []

    def my_dot(query, keys):
        calls.append((tuple(query.shape), tuple(keys.shape)))
        return query @ keys.transpose(-2, -1)

    model = seq2seq.Seq2Seq(seq2seq.Seq2SeqConfig(num_symbols=5, hidden_size=4, score="dot"), score_fn=my_dot)
    source, target = seq2seq.reversal_batch(2, 3, 5)
    model(source, target)
    assert calls == [((2, 3, 8), (2, 3, 8))]        # teacher forcing: every step's query (B, T, 2h) at once
    calls.clear()
    model.decode(source, steps=4)
    assert calls == [((2, 1, 8), (2, 3, 8))] * 4    # greedy: one query (B, 1, 2h) per step against the keys (B, S, 2h)


def test_bad_inputs_get_a_sentence():
    model = seq2seq.Seq2Seq(seq2seq.Seq2SeqConfig(num_symbols=5, hidden_size=4))
    with pytest.raises(ValueError, match=r"source must be token ids of shape \(batch, T\)"):
        model(torch.tensor([1, 2, 3]))
    with pytest.raises(TypeError, match="integer"):
        model(torch.rand(2, 3))
    with pytest.raises(ValueError, match=r"lie in \[0, 5\)"):
        model(torch.tensor([[1, 7]]))
    with pytest.raises(ValueError, match="targets must have shape"):
        model(torch.tensor([[1, 2]]), torch.tensor([[1, 2], [3, 4]]))
    with pytest.raises(ValueError, match="score must be one of"):
        seq2seq.Seq2SeqConfig(num_symbols=5, score="cosine")
    with pytest.raises(ValueError, match="no attention"):
        seq2seq.Seq2Seq(seq2seq.Seq2SeqConfig(num_symbols=5, score=None), score_fn=seq2seq.dot_score)
    wrong = seq2seq.Seq2Seq(seq2seq.Seq2SeqConfig(num_symbols=5, hidden_size=4, score="dot"),
                            score_fn=lambda query, keys: keys @ query.transpose(-2, -1))   # (B, S, T): transposed
    with pytest.raises(ValueError, match=r"must return \(B, T, S\)"):
        wrong(torch.tensor([[1, 2, 3]]))


def test_learns_to_reverse_length_five():
    torch.manual_seed(0)
    model = seq2seq.Seq2Seq(seq2seq.Seq2SeqConfig(num_symbols=8, score="additive"))
    train(model, seq2seq.reversal_batches([5], batch_size=64, num_symbols=8),
          TrainConfig(steps=150, lr=1e-2, progress=False, seed=0))
    accuracy = seq2seq.reversal_accuracy(model, 5)
    assert accuracy["symbols"] > 0.95, accuracy
    source, _ = seq2seq.reversal_batch(1, 5, 8, torch.Generator().manual_seed(3))
    _, weights = model.decode(source)
    assert weights[0].argmax(-1).tolist() == [4, 3, 2, 1, 0]   # the anti-diagonal
