"""course_lib.attention equals PyTorch's F.scaled_dot_product_attention (CPU, and CUDA when present)."""
import itertools

import pytest
import torch
import torch.nn.functional as F

from course_lib.attention import attention_scores, causal_mask, scaled_dot_product_attention

SHAPES = [(), (3,), (2, 4)]  # leading batch / head dims
DTYPES = [torch.float32, torch.float64]
MASKS = ["none", "causal", "random"]


def _inputs(lead, dtype, device, n_q=6, n_k=6, d_k=8, d_v=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    make = lambda *s: torch.randn(*s, generator=g, dtype=dtype).to(device)  # noqa: E731
    return make(*lead, n_q, d_k), make(*lead, n_k, d_k), make(*lead, n_k, d_v)


def _mask(kind, lead, n_q, n_k, device):
    if kind == "none":
        return None
    if kind == "causal":
        return causal_mask(n_q, device=device)
    g = torch.Generator().manual_seed(1)
    m = torch.rand(*lead, n_q, n_k, generator=g) > 0.4
    m[..., 0] = True  # no fully masked rows
    return m.to(device)


@pytest.mark.parametrize("lead,dtype,mask_kind", list(itertools.product(SHAPES, DTYPES, MASKS)))
def test_equals_pytorch(lead, dtype, mask_kind, device):
    Q, K, V = _inputs(lead, dtype, device)
    mask = _mask(mask_kind, lead, 6, 6, device)
    out, weights = scaled_dot_product_attention(Q, K, V, mask)
    expected = F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == torch.float32 else dict(rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(out, expected, **tol)
    assert out.device == Q.device and out.dtype == dtype
    torch.testing.assert_close(weights.sum(-1), torch.ones_like(weights.sum(-1)), **tol)
    if mask is not None:
        assert bool((weights.masked_select(~mask.expand_as(weights)) == 0).all())


def test_cross_attention_shapes(device):
    Q, K, V = _inputs((2,), torch.float32, device, n_q=3, n_k=7)
    out, weights = scaled_dot_product_attention(Q, K, V)
    assert out.shape == (2, 3, 5) and weights.shape == (2, 3, 7)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(Q, K, V))


def test_scores_are_scaled():
    Q, K, _ = _inputs((), torch.float64, "cpu")
    torch.testing.assert_close(attention_scores(Q, K) * 8**0.5, Q @ K.T)


def test_causal_mask_is_lower_triangular():
    assert causal_mask(3).tolist() == [[True, False, False], [True, True, False], [True, True, True]]


@pytest.mark.parametrize(
    "args,error,match",
    [
        ((torch.ones(3, 2), torch.ones(3, 4), torch.ones(3, 2)), ValueError, "share their last dimension"),
        ((torch.ones(3, 2, dtype=torch.long), torch.ones(3, 2), torch.ones(3, 2)), TypeError, "floating-point"),
        (([[1.0]], torch.ones(3, 2), torch.ones(3, 2)), TypeError, "must be a torch.Tensor"),
        ((torch.ones(3, 2), torch.ones(3, 2), torch.ones(4, 2)), ValueError, "same number of positions"),
        ((torch.ones(2), torch.ones(3, 2), torch.ones(3, 2)), ValueError, r"shape \(..., seq_len, dim\)"),
    ],
)
def test_bad_input_gets_a_sentence(args, error, match):
    with pytest.raises(error, match=match):
        scaled_dot_product_attention(*args)


def test_bad_mask_gets_a_sentence():
    x = torch.ones(3, 2)
    with pytest.raises(TypeError, match="bool tensor with True where attention is allowed"):
        scaled_dot_product_attention(x, x, x, mask=torch.ones(3, 3))
    with pytest.raises(ValueError, match="positive integer"):
        causal_mask(0)
