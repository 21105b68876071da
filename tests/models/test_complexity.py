"""course_lib.complexity: saved-memory counting, the log-log slope, and the scaling of attention against an LSTM."""
import math

import pytest
import torch

from course_lib.complexity import loglog_slope, measure_scaling, saved_bytes
from course_lib.lstm import LSTMLayer
from course_lib.transformer import MultiHeadAttention


def test_slope_of_power_laws():
    n = [10, 20, 40, 80]
    assert loglog_slope(n, [3 * v ** 2 for v in n]) == pytest.approx(2.0)
    assert loglog_slope(n, [0.5 * v for v in n]) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="positive"):
        loglog_slope([1, 2], [0, 1])


def test_saved_bytes_counts_what_backward_needs():
    x = torch.randn(1000, requires_grad=True)
    assert saved_bytes(lambda: x.exp()) == 4000  # exp saves its output: 1000 float32
    assert saved_bytes(lambda: x * 2.0) == 0  # multiplying by a constant saves nothing
    assert saved_bytes(lambda: torch.sin(x) * torch.cos(x)) >= 4 * 4000 - 4000  # x (shared), sin x, cos x


def test_readable_attention_memory_is_quadratic_and_lstm_linear():
    lengths = [128, 256, 512]  # long against d_model = 8, so the n x n weights dominate
    attention = measure_scaling(MultiHeadAttention(8, 2, fast=False), lengths, 8, call=lambda m, x: m(x, x, x)[0],
                                repeats=1)
    lstm = measure_scaling(LSTMLayer(8, 8), lengths, 8, repeats=1)
    assert attention.slopes()[1] > 1.7 and lstm.slopes()[1] == pytest.approx(1.0, abs=0.15)
    assert all(math.isfinite(t) and t > 0 for t in attention.seconds + lstm.seconds)
    with pytest.raises(ValueError, match="positive integers"):
        measure_scaling(LSTMLayer(4, 4), [0, 8], 4)
