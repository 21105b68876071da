"""Tests of every notebook's checks, in-process: every test cell (visible and hidden) must

- pass the solution,
- fail the blank stub with "not implemented",
- fail each catalogued mistake with the sentence that names it,
- fail answers that call the switched-off references, and
- pass correct answers written differently (loops, numpy, dicts).
"""
import pytest

from answer_catalogue import answer_modules
from course_lib.grading.answers import AnswerError
from notebook_runner import SolutionKernel

MODULES = {m.NOTEBOOK: m for m in answer_modules()}
_kernels: dict = {}


def kernel_for(notebook: str) -> SolutionKernel:
    if notebook not in _kernels:
        _kernels[notebook] = SolutionKernel(notebook)
    return _kernels[notebook]


def test_cells(kernel) -> list[str]:
    return [gid for gid, c in kernel.cells.items() if c.metadata["nbgrader"].get("grade") and c.cell_type == "code"]


test_cells.__test__ = False


def cases(attribute):
    return [pytest.param(nb, item, id=f"{nb}-{getattr(item, 'name', item)}")
            for nb, m in MODULES.items() for item in getattr(m, attribute)]


@pytest.mark.parametrize("notebook", sorted(MODULES))
def test_solution_passes_every_test_cell(notebook, capsys):
    kernel = kernel_for(notebook)
    for cell in test_cells(kernel):
        kernel.run_cell(cell)
        assert "\u2714" in capsys.readouterr().out, cell


@pytest.mark.parametrize("notebook,stub", cases("STUBS"))
def test_stub_fails_with_not_implemented(notebook, stub):
    kernel = kernel_for(notebook)
    answer_cell, test_cell = stub
    kernel.answer(answer_cell, f"def {answer_cell}(*args, **kwargs):\n    raise NotImplementedError()\n")
    try:
        with pytest.raises(AnswerError, match="not implemented yet"):
            kernel.run_cell(test_cell)
    finally:
        kernel.restore(answer_cell)


@pytest.mark.parametrize("notebook,wrong", cases("WRONG") + cases("CHEATS"))
def test_mistake_is_named(notebook, wrong):
    kernel = kernel_for(notebook)
    kernel.answer(wrong.cell, wrong.source)
    try:
        with pytest.raises(AnswerError) as caught:
            kernel.run_cell(wrong.test_cell)
        assert wrong.message in str(caught.value), str(caught.value)
    finally:
        kernel.restore(wrong.cell)


@pytest.mark.parametrize("notebook,style", [(nb, s) for nb, m in MODULES.items() for s in sorted(m.ALTERNATIVES)])
def test_other_correct_styles_pass(notebook, style, capsys):
    kernel = kernel_for(notebook)
    answers = MODULES[notebook].ALTERNATIVES[style]
    for cell, source in answers.items():
        kernel.answer(cell, source)
    try:
        for test_cell in test_cells(kernel):
            kernel.run_cell(test_cell)
    finally:
        for cell in answers:
            kernel.restore(cell)
    assert capsys.readouterr().out.count("\u2714") >= len(test_cells(kernel))
