"""Notebook 05's checks beyond the common ones in test_checks.py: built-ins restored, odd answer kinds."""
import pytest
import torch

from course_lib.grading.answers import AnswerError
from nb05_answers import CHEATS, NOTEBOOK
from notebook_runner import SolutionKernel



@pytest.fixture(scope="module")
def kernel():
    return SolutionKernel(NOTEBOOK)


def test_banned_builtins_are_restored_after_the_check(kernel):
    before = (torch.softmax, torch.Tensor.softmax, torch.nn.functional.scaled_dot_product_attention)
    cheat = next(c for c in CHEATS if c.name == "softmax_method")
    kernel.answer(cheat.cell, cheat.source)
    try:
        with pytest.raises(AnswerError):
            kernel.run_cell(cheat.test_cell)
    finally:
        kernel.restore(cheat.cell)
    assert (torch.softmax, torch.Tensor.softmax, torch.nn.functional.scaled_dot_product_attention) == before
    assert torch.tensor([0.0, 0.0]).softmax(-1).tolist() == [0.5, 0.5]


@pytest.mark.parametrize("value,message", [
    (None, "is None"),
    ("0.7 0.21", "should be numbers"),
    ([1.0, 2.0], "shape"),
])
def test_table_answers_of_the_wrong_kind_get_a_sentence(value, message):
    from course_lib.checks.self_attention import check_machines_step

    with pytest.raises(AnswerError, match=message):
        check_machines_step("scores", value)


def test_wrong_device_dtype_and_type_are_explained():
    from course_lib.checks.self_attention import check_attention_scores

    with pytest.raises(AnswerError, match="should be a torch.Tensor"):
        check_attention_scores(lambda Q, K: (Q @ K.transpose(-2, -1) / Q.shape[-1] ** 0.5).numpy())
    with pytest.raises(AnswerError, match="dtype"):
        check_attention_scores(lambda Q, K: (Q @ K.transpose(-2, -1) / Q.shape[-1] ** 0.5).double())
    with pytest.raises(AnswerError, match="return"):
        check_attention_scores(lambda Q, K: None)


# ---------------------------------------------------------------------------
# the score functions of section 1


def test_score_references_are_independent_of_course_lib_and_agree_with_it():
    import torch.nn as nn

    from course_lib import seq2seq
    from course_lib.checks import score_functions as sf

    g = torch.Generator().manual_seed(0)
    Q, K = torch.randn(2, 3, 4, generator=g, dtype=torch.float64), torch.randn(2, 5, 6, generator=g, dtype=torch.float64)
    W, U, v = (torch.randn(7, 4, generator=g, dtype=torch.float64), torch.randn(7, 6, generator=g, dtype=torch.float64),
               torch.randn(7, generator=g, dtype=torch.float64))
    torch.testing.assert_close(sf.plain_additive_score(Q, K, W, U, v), seq2seq.additive_score(Q, K, W, U, v))
    B = torch.randn(4, 6, generator=g, dtype=torch.float64)
    bilinear = nn.Bilinear(4, 6, 1, bias=False).double()
    with torch.no_grad():
        bilinear.weight.copy_(B[None])
    pairs = bilinear(Q[:, :, None, :].expand(2, 3, 5, 4).contiguous(), K[:, None, :, :].expand(2, 3, 5, 6).contiguous())
    torch.testing.assert_close(sf.plain_bilinear_score(Q, K, B), pairs.squeeze(-1))
    K4 = K[..., :4]
    torch.testing.assert_close(sf.plain_scaled_dot_score(Q, K4), seq2seq.scaled_dot_score(Q, K4))
    torch.testing.assert_close(sf.plain_dot_score(Q, K4), Q @ K4.transpose(-2, -1))


def test_every_catalogued_score_mistake_differs_from_the_right_answer_on_the_visible_cases():
    """A variant that equals the right answer on the check's cases could never be named."""
    from course_lib.checks import score_functions as sf

    g = torch.Generator().manual_seed(3)
    Q, K = torch.randn(3, 4, generator=g), torch.randn(3, 4, generator=g)
    W, U, v = torch.randn(4, 4, generator=g), torch.randn(4, 4, generator=g), torch.randn(4, generator=g)
    for variants, args, reference in [(sf.dot_score_mistakes(), (Q, K), sf.plain_dot_score),
                                      (sf.bilinear_score_mistakes(), (Q, K, W), sf.plain_bilinear_score),
                                      (sf.additive_score_mistakes(), (Q, K, W, U, v), sf.plain_additive_score)]:
        right = reference(*args)
        for variant in variants:
            wrong = variant.compute(*args)
            assert wrong.shape != right.shape or not torch.allclose(wrong, right, atol=1e-4), variant.name


@pytest.mark.parametrize("answer,message", [
    (lambda Q, K: (Q @ K.transpose(-2, -1)).numpy(), "should be a torch.Tensor"),
    (lambda Q, K: (Q @ K.transpose(-2, -1)).double(), "dtype"),
    (lambda Q, K: None, "return"),
    (lambda Q, K: Q @ K, "Q times K with its last two axes swapped"),
    (lambda Q, K: 2 * Q @ K.transpose(-2, -1), "times 2"),
])
def test_dot_score_answers_of_the_wrong_kind_get_a_sentence(answer, message):
    from course_lib.checks.score_functions import check_dot_score

    with pytest.raises(AnswerError, match=message):
        check_dot_score(answer)


def test_a_shape_error_in_the_weighted_scores_says_how_the_weights_are_laid_out():
    from course_lib.checks.score_functions import check_additive_score, check_bilinear_score

    with pytest.raises(AnswerError, match=r"W has shape \(d_q, d_k\)"):
        check_bilinear_score(lambda Q, K, W: Q @ W @ K)
    with pytest.raises(AnswerError, match=r"W has shape \(d_a, d_q\)"):
        check_additive_score(lambda Q, K, W, U, v: torch.tanh(Q @ W + K @ U) @ v, square=False)


def test_a_hidden_case_keeps_its_shapes_to_itself():
    from course_lib.checks.score_functions import check_scaled_dot_score
    from course_lib.grading.answers import hidden_cases

    with hidden_cases(), pytest.raises(AnswerError) as caught:
        check_scaled_dot_score(lambda Q, K: Q @ K.transpose(-2, -1), batch=(2, 3), n_q=4, n_k=6, d=8, seed_table=False)
    assert "hidden test case" in str(caught.value) and "(2, 3, 4, 8)" not in str(caught.value)
