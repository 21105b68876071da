"""Notebook 05's checks beyond the common ones in test_checks.py: built-ins restored, odd answer kinds."""
import pytest
import torch

from course_lib.grading import AnswerError
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
