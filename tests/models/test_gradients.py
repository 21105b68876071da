"""course_lib.gradients measures dL/dh_t correctly, and shows vanishing, exploding and the LSTM's remedy."""
import math

import matplotlib
import pytest
import torch

from course_lib.gradients import (gradient_norms_through_time, lstm_gradient_norms, plot_gradient_norms,
                                  rnn_gradient_norms, scaled_orthogonal)
from course_lib.rnn import rnn_forward, rnn_step

matplotlib.use("Agg")
import matplotlib.pyplot as plt

TIGHT = dict(rtol=1e-10, atol=1e-12)
B, T, D, H = 4, 12, 3, 5


def _random_rnn(seed=0):
    g = torch.Generator().manual_seed(seed)
    make = lambda *s: torch.randn(*s, generator=g, dtype=torch.float64)  # noqa: E731
    return make(B, T, D), make(B, H), make(H, D), make(H, H) / 2, make(H), make(H)  # x, h0, U, W, b, probe


def test_identity_rnn_matches_powers_of_w_transposed():
    """dL/dh_t = (W^T)^(T-1-t) g for h_t = W h_(t-1) + U x_t + b and L = sum over rows of g . h_(T-1)."""
    x, h0, U, W, b, probe = _random_rnn()
    norms = gradient_norms_through_time(lambda x_t, h: rnn_step(x_t, h, U, W, b, "identity"), x, h0,
                                        lambda h_last: (h_last @ probe).sum())
    expected = torch.stack([(torch.linalg.matrix_power(W.T, T - 1 - t) @ probe).norm() for t in range(T)])
    assert norms.shape == (T,)
    torch.testing.assert_close(norms, expected, **TIGHT)


def test_tanh_rnn_matches_the_chain_rule_by_hand():
    """dL/dh_t = W^T diag(1 - h_(t+1)^2) dL/dh_(t+1): tanh' = 1 - tanh^2, one step back at a time."""
    x, h0, U, W, b, probe = _random_rnn(seed=1)
    norms = gradient_norms_through_time(lambda x_t, h: rnn_step(x_t, h, U, W, b), x, h0,
                                        lambda h_last: (h_last @ probe).sum())
    hs, _ = rnn_forward(x, h0, U, W, b)  # (B, T, H)
    delta = probe.expand(B, H)  # dL/dh_(T-1) for every row
    expected = [delta.norm(dim=-1).mean()]
    for t in range(T - 2, -1, -1):
        delta = (delta * (1 - hs[:, t + 1] ** 2)) @ W  # row form of W^T diag(1 - h_(t+1)^2) delta
        expected.append(delta.norm(dim=-1).mean())
    torch.testing.assert_close(norms, torch.stack(expected[::-1]), **TIGHT)


def test_scaled_orthogonal_has_the_asked_spectral_radius():
    W = scaled_orthogonal(8, 0.7, torch.Generator().manual_seed(0))
    torch.testing.assert_close(torch.linalg.eigvals(W).abs(), torch.full((8,), 0.7, dtype=torch.float64), **TIGHT)
    torch.testing.assert_close(W @ W.T, 0.49 * torch.eye(8, dtype=torch.float64), **TIGHT)


@pytest.mark.parametrize("scale", [0.5, 1.5])
def test_identity_rnn_gradient_is_scale_to_the_distance(scale):
    norms = rnn_gradient_norms(40, hidden_dim=16, weight_scale=scale, nonlinearity="identity")
    distance = torch.arange(39, -1, -1, dtype=torch.float64)  # norms[t] is T-1-t steps from the end
    torch.testing.assert_close(norms, scale ** distance, rtol=1e-9, atol=0)


def test_tanh_rnn_vanishes_below_one():
    """||W|| = 0.5 and tanh' <= 1, so each step back shrinks the gradient at least twofold."""
    norms = rnn_gradient_norms(30, weight_scale=0.5).flip(0)  # index = distance from the last step
    assert norms[0].item() == pytest.approx(1.0)
    assert bool((norms[1:] <= 0.5 * norms[:-1] * (1 + 1e-9)).all())
    assert norms[-1].item() < 0.5 ** 29


def test_tanh_rnn_explodes_above_one_with_small_inputs():
    norms = rnn_gradient_norms(80, weight_scale=1.5, input_scale=0.01).flip(0)
    assert norms[20].item() > 2 and norms[79].item() > 100
    saturated = rnn_gradient_norms(80, weight_scale=1.5, input_scale=1.0).flip(0)  # large inputs saturate tanh
    assert saturated[79].item() < 1e-3


def test_lstm_keeps_the_gradient_far_longer_than_the_rnn():
    rnn = rnn_gradient_norms(60, weight_scale=1.0).flip(0)
    lstm = lstm_gradient_norms(60, weight_scale=1.0, forget_bias=3.0).flip(0)
    no_forget_bias = lstm_gradient_norms(60, weight_scale=1.0, forget_bias=0.0).flip(0)
    assert lstm[50].item() > 1e-3 and rnn[50].item() < 1e-8
    assert lstm[50].item() > 1e4 * no_forget_bias[50].item()  # the high forget bias is what does it


def test_lstm_state_tuple_is_accepted_and_norms_start_at_one():
    norms = lstm_gradient_norms(5, hidden_dim=4, batch_size=2)
    assert norms.shape == (5,) and math.isclose(norms[-1].item(), 1.0, rel_tol=1e-12)


def test_same_numbers_on_every_device(device):
    for measure in (rnn_gradient_norms, lstm_gradient_norms):
        on_device = measure(20, hidden_dim=8, weight_scale=0.9, device=device)
        torch.testing.assert_close(on_device.cpu(), measure(20, hidden_dim=8, weight_scale=0.9), **TIGHT)


def test_plot_gradient_norms_draws_one_curve_per_label_on_a_log_scale():
    norms = {"rnn": rnn_gradient_norms(10, hidden_dim=4), "lstm": lstm_gradient_norms(10, hidden_dim=4)}
    ax = plot_gradient_norms(norms)
    try:
        assert ax.get_yscale() == "log"
        assert [line.get_label() for line in ax.get_lines()] == ["rnn", "lstm"]
        line = ax.get_lines()[0]
        assert line.get_xdata().tolist() == list(range(10))
        assert line.get_ydata().tolist() == norms["rnn"].flip(0).tolist()  # distance 0 = the last step
    finally:
        plt.close(ax.figure)


# ---------------------------------------------------------------------------
# bad input gets a sentence


@pytest.mark.parametrize("kwargs,match", [
    (dict(seq_len=0), "seq_len must be a positive integer"),
    (dict(seq_len=5, hidden_dim=2.5), "hidden_dim must be a positive integer"),
    (dict(seq_len=5, weight_scale=-1.0), "weight_scale must be a non-negative number"),
    (dict(seq_len=5, input_scale=float("nan")), "input_scale must be a non-negative number"),
    (dict(seq_len=5, nonlinearity="sigmoid"), "nonlinearity must be one of tanh, relu, identity"),
])
def test_rnn_gradient_norms_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        rnn_gradient_norms(**kwargs)


def test_other_bad_input():
    with pytest.raises(ValueError, match="forget_bias must be a finite number"):
        lstm_gradient_norms(5, forget_bias=float("inf"))
    x, h0, U, W, b, probe = _random_rnn()
    step = lambda x_t, h: rnn_step(x_t, h, U, W, b)  # noqa: E731
    with pytest.raises(ValueError, match=r"x must have shape \(B, T, D\)"):
        gradient_norms_through_time(step, x[:, 0], h0, lambda h: h.sum())
    with pytest.raises(ValueError, match="loss_fn must return a scalar tensor"):
        gradient_norms_through_time(step, x, h0, lambda h: h @ probe)
    with pytest.raises(TypeError, match=r"state must be the first hidden state h0 \(B, H\) or a tuple"):
        gradient_norms_through_time(step, x, None, lambda h: h.sum())
    with pytest.raises(TypeError, match="step and loss_fn must be functions"):
        gradient_norms_through_time(step, x, h0, "mse")
    with pytest.raises(TypeError, match="norms_by_label must be a non-empty dict"):
        plot_gradient_norms({})
    with pytest.raises(ValueError, match=r"norms_by_label\['rnn'\] must be a 1-D tensor"):
        plot_gradient_norms({"rnn": torch.ones(2, 3)})
