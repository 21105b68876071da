"""Tests of notebook 05's checks, in-process: every test cell (visible and hidden) must

- pass the solution,
- fail the blank stub with "not implemented",
- fail each catalogued mistake with the sentence that names it,
- fail answers that call the switched-off built-ins, and
- pass correct answers written differently (loops, numpy).
"""
import pytest
import torch

from course_lib.grading import AnswerError
from nb05_answers import ALTERNATIVES, CHEATS, NOTEBOOK, WRONG
from notebook_runner import SolutionKernel

TEST_CELLS = [
    "check_table_scores", "check_table_scaled", "check_table_weights", "check_table_weighted", "check_table_z",
    "check_attention_scores", "check_softmax", "check_self_attention", "check_causal_mask",
    "check_space_invader", "check_brown_dog",
]


@pytest.fixture(scope="module")
def kernel():
    return SolutionKernel(NOTEBOOK)


def test_every_test_cell_is_covered(kernel):
    graded = {gid for gid, c in kernel.cells.items() if c.metadata["nbgrader"].get("grade") and c.cell_type == "code"}
    assert graded == set(TEST_CELLS)


@pytest.mark.parametrize("test_cell", TEST_CELLS)
def test_solution_passes(kernel, test_cell, capsys):
    kernel.run_cell(test_cell)
    assert "\u2714" in capsys.readouterr().out


@pytest.mark.parametrize("answer_cell,test_cell", [
    ("attention_scores", "check_attention_scores"), ("softmax", "check_softmax"),
    ("self_attention", "check_self_attention"), ("causal_mask", "check_causal_mask"),
])
def test_stub_fails_with_not_implemented(kernel, answer_cell, test_cell):
    name = answer_cell
    kernel.answer(answer_cell, f"def {name}(*args, **kwargs):\n    raise NotImplementedError()\n")
    try:
        with pytest.raises(AnswerError, match="not implemented yet"):
            kernel.run_cell(test_cell)
    finally:
        kernel.restore(answer_cell)


@pytest.mark.parametrize("wrong", WRONG + CHEATS, ids=lambda w: w.name)
def test_mistake_is_named(kernel, wrong):
    kernel.answer(wrong.cell, wrong.source)
    try:
        with pytest.raises(AnswerError) as caught:
            kernel.run_cell(wrong.test_cell)
        assert wrong.message in str(caught.value), str(caught.value)
    finally:
        kernel.restore(wrong.cell)


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


@pytest.mark.parametrize("style", sorted(ALTERNATIVES))
def test_other_correct_styles_pass(kernel, style, capsys):
    answers = ALTERNATIVES[style]
    for cell, source in answers.items():
        kernel.answer(cell, source)
    try:
        for test_cell in TEST_CELLS:
            kernel.run_cell(test_cell)
    finally:
        for cell in answers:
            kernel.restore(cell)
    assert capsys.readouterr().out.count("\u2714") >= len(TEST_CELLS)


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
