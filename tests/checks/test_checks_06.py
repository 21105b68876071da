"""Notebook 06's checks beyond the common ones in test_checks.py: built-ins restored, odd answer kinds, references."""
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from course_lib.checks import transformer as checks
from course_lib.grading import AnswerError
from nb06_answers import CHEATS, NOTEBOOK
from notebook_runner import SolutionKernel


@pytest.fixture(scope="module")
def kernel():
    return SolutionKernel(NOTEBOOK)


def test_banned_builtins_are_restored_after_the_checks(kernel):
    before = (F.scaled_dot_product_attention, F.layer_norm, nn.MultiheadAttention.forward,
              nn.TransformerEncoderLayer.forward, nn.LayerNorm.forward)
    kernel.fail_with(CHEATS, "switched off")
    assert (F.scaled_dot_product_attention, F.layer_norm, nn.MultiheadAttention.forward,
            nn.TransformerEncoderLayer.forward, nn.LayerNorm.forward) == before
    x = torch.randn(2, 3, 4)
    assert F.layer_norm(x, (4,)).shape == x.shape


def test_wrong_kinds_get_a_sentence():
    with pytest.raises(AnswerError, match="should return a tensor"):
        checks.check_positional_encoding(lambda n, d: [[0.0] * d] * n)
    with pytest.raises(AnswerError, match="floating-point"):
        checks.check_positional_encoding(lambda n, d: torch.zeros(n, d, dtype=torch.long))
    with pytest.raises(AnswerError, match="shape"):
        checks.check_positional_encoding(lambda n, d: torch.zeros(n, d + 1))
    with pytest.raises(AnswerError, match="dtype"):
        checks.check_add_norm(lambda x, s, g, b, eps=1e-5: checks.plain_add_norm(x, s, g, b, eps).double())
    with pytest.raises(AnswerError, match="raised TypeError"):
        checks.check_multi_head_attention(lambda q, k, v, w, h: q)  # no mask parameter


def test_references_agree_with_the_course_modules():
    """The check's references (PyTorch modules) and the course's transformer compute the same function."""
    from course_lib.transformer import EncoderBlock, BlockConfig, MultiHeadAttention, copy_from_torch, positional_encoding

    torch.testing.assert_close(positional_encoding(30, 10, dtype=torch.float64), checks.plain_positional_encoding(30, 10))
    w = checks.encoder_weights(8, 16, seed=3)
    layer = checks.torch_encoder_layer(w, 2)
    ours = copy_from_torch(EncoderBlock(BlockConfig(8, 2, 16)), layer).eval()
    x = torch.randn(2, 5, 8)
    with torch.no_grad():
        torch.testing.assert_close(ours(x), layer(x), rtol=1e-4, atol=1e-5)
        mha = copy_from_torch(MultiHeadAttention(8, 2), checks.torch_mha(w, 2)).eval()
        torch.testing.assert_close(mha(x, x, x)[0], checks.plain_multi_head_attention(x, x, x, w, 2), rtol=1e-4, atol=1e-5)


def test_every_variant_differs_from_the_reference():
    """A catalogued mistake that computed the right answer could never be told apart."""
    g = torch.Generator().manual_seed(0)
    w = checks.encoder_weights(8, 16, seed=1)
    x = torch.randn(2, 5, 8, generator=g)
    mask = (torch.rand(2, 5, 5, generator=g) > 0.5) | torch.eye(5, dtype=torch.bool)
    right = checks.plain_multi_head_attention(x, x, x, w, 2, mask)
    for variant in checks.multi_head_attention_mistakes():
        assert not torch.allclose(variant.compute(x, x, x, w, 2, mask), right, atol=1e-4), variant.name
    right = checks.plain_encoder_block(x, w, 2, mask)
    for variant in checks.encoder_block_mistakes():
        assert not torch.allclose(variant.compute(x, w, 2, mask), right, atol=1e-4), variant.name
    for variant in checks.positional_encoding_mistakes(20, 8):
        wrong = variant.compute()
        right = checks.plain_positional_encoding(20, 8)
        assert wrong.shape != (20, 8) or not torch.allclose(wrong, right, atol=1e-4), variant.name


def test_encoder_block_is_graded_even_when_its_helpers_are_missing(capsys):
    """A student whose add_norm cell timed out still gets encoder_block graded on its own merit."""
    namespace = {"torch": torch}
    exec('def encoder_block(x, w, h, mask=None):\n'
         '    x = add_norm(x, multi_head_attention(x, x, x, w, h, mask), w["gamma_1"], w["beta_1"])\n'
         '    f = torch.relu(x @ w["W_1"].T + w["b_1"]) @ w["W_2"].T + w["b_2"]\n'
         '    return add_norm(x, f, w["gamma_2"], w["beta_2"])\n', namespace)
    checks.check_encoder_block(namespace["encoder_block"])
    assert "\u2714 encoder_block" in capsys.readouterr().out
    assert "add_norm" not in namespace and "multi_head_attention" not in namespace  # supplied only during the call
