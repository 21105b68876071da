"""course_lib.output_layer: the full and the sampled softmax against independent computations."""
import math

import pytest
import torch
import torch.nn.functional as F

from course_lib.output_layer import (draw_samples, full_softmax_loss, measure_output_layer, sampled_softmax_loss)


def case(V=7, d=5, N=4, seed=0, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(N, d, generator=g, dtype=dtype), torch.randint(V, (N,), generator=g),
            torch.randn(V, d, generator=g, dtype=dtype), torch.randn(V, generator=g, dtype=dtype))


def test_full_softmax_loss_is_the_mean_negative_log_probability():
    hidden, targets, W, b = case()
    by_hand = []
    for h, y in zip(hidden, targets):  # one row at a time, softmax written out
        logits = [float(h @ w) + float(c) for w, c in zip(W, b)]
        by_hand.append(-logits[y] + math.log(sum(math.exp(z) for z in logits)))
    assert float(full_softmax_loss(hidden, targets, W, b)) == pytest.approx(sum(by_hand) / len(by_hand), rel=1e-12)


def test_sampled_softmax_with_every_word_drawn_once_under_a_uniform_proposal_is_the_full_loss():
    # K = V and Q uniform: every correction is log(K / V) = 0, the true word's draw is masked as an
    # accidental hit and appears once as class 0, so the 1 + K logits are exactly the V full ones
    hidden, targets, W, b = case(V=9)
    uniform = torch.full((9,), 1 / 9, dtype=torch.float64)
    loss = sampled_softmax_loss(hidden, targets, W, b, torch.arange(9), uniform)
    assert float(loss) == pytest.approx(float(F.cross_entropy(hidden @ W.T + b, targets)), rel=1e-12)


def test_sampled_softmax_matches_a_loop_with_the_log_q_correction_and_accidental_hits():
    hidden, targets, W, b = case(V=6, N=5, seed=3)
    proposal = torch.tensor([0.3, 0.1, 0.2, 0.05, 0.25, 0.1], dtype=torch.float64)
    sampled = torch.tensor([0, 2, 2, 4, 5, 1, 3])
    targets[0] = 2  # row 0 draws its own word twice: both are masked
    K = len(sampled)
    losses = []
    for h, y in zip(hidden, targets):
        y = int(y)
        terms = [float(h @ W[y] + b[y]) - math.log(K * float(proposal[y]))]
        terms += [float(h @ W[s] + b[s]) - math.log(K * float(proposal[s])) for s in sampled.tolist() if s != y]
        losses.append(-terms[0] + math.log(sum(math.exp(t) for t in terms)))
    loss = sampled_softmax_loss(hidden, targets, W, b, sampled, proposal)
    assert float(loss) == pytest.approx(sum(losses) / len(losses), rel=1e-12)


def test_sparse_and_dense_gradients_agree_and_touch_only_the_used_rows():
    hidden, targets, W, b = case(V=12, N=3, seed=5, dtype=torch.float32)
    proposal = torch.full((12,), 1 / 12)
    sampled = torch.tensor([1, 4, 4, 7])
    grads = []
    for sparse in (False, True):
        weight, bias = W.clone().requires_grad_(), b.clone().requires_grad_()
        sampled_softmax_loss(hidden, targets, weight, bias, sampled, proposal, sparse_gradient=sparse).backward()
        grads.append((weight.grad.to_dense(), bias.grad.to_dense()))
    torch.testing.assert_close(grads[0], grads[1])
    used = set(targets.tolist()) | set(sampled.tolist())
    untouched = [v for v in range(12) if v not in used]
    assert grads[0][0][untouched].abs().max() == 0 and grads[0][0][sorted(used)].abs().max() > 0


def test_draw_samples_follow_the_proposal():
    proposal = torch.tensor([0.5, 0.0, 0.3, 0.2])
    ids = draw_samples(proposal, 20_000, torch.Generator().manual_seed(0))
    frequencies = torch.bincount(ids, minlength=4) / len(ids)
    assert frequencies[1] == 0
    torch.testing.assert_close(frequencies, proposal, atol=0.02, rtol=0)


def test_measure_output_layer_reports_every_size():
    cost = measure_output_layer([100, 1000], d_model=16, tokens=4, repeats=1, num_sampled=8)
    assert len(cost.seconds) == len(cost.sampled_seconds) == 2 and min(cost.seconds) > 0
    assert cost.weight_bytes == [(100 * 16 + 100) * 4, (1000 * 16 + 1000) * 4]
    # the logits (tokens, V) are saved for the backward pass: 4 x 1000 floats at least
    assert cost.saved_bytes[1] >= 4 * 1000 * 4 > cost.saved_bytes[0]


def test_shipped_results_are_the_benchmarks():
    import json
    from pathlib import Path

    from course_lib.output_layer import OUTPUT_LAYER_ASSET, load_output_layer_results

    shipped = load_output_layer_results()
    root = Path(__file__).resolve().parents[2]
    assert shipped == json.loads((root / "benchmarks" / "results" / "output_layer.json").read_text())
    assert OUTPUT_LAYER_ASSET.parent.name == "assets"
    assert shipped["cost"]["vocab_sizes"][0] == 1000 and shipped["cost"]["vocab_sizes"][-1] >= 100_000
    assert {"full softmax"} < set(shipped["bigram"]["runs"])
    for run in shipped["bigram"]["runs"].values():  # the same steps for every run, held-out loss below uniform
        assert run["curve"][-1]["steps"] == shipped["bigram"]["runs"]["full softmax"]["curve"][-1]["steps"]
        assert run["curve"][-1]["valid_nats"] < math.log(shipped["bigram"]["vocab_size"])


@pytest.mark.slow
def test_the_benchmark_script_quick(tmp_path):
    """--quick: the cost sweep and every bigram run, scored with the full softmax."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "output_layer.json"
    done = subprocess.run([sys.executable, str(root / "benchmarks" / "output_layer.py"), "--quick", "--out", str(out)],
                          capture_output=True, text=True, timeout=600, cwd=root)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(out.read_text())
    assert len(result["cost"]["seconds"]) == len(result["cost"]["sampled_seconds"]) == 2
    assert len(result["bigram"]["runs"]) == 3
