"""The blind sets: wrong answers and correct alternatives written by testers who never read the checks.

``tests/checks/blind/`` was written before the diagnosis was built (and the diagnosis was tuned on it);
``tests/checks/blind_holdout/`` by other testers afterwards; ``tests/checks/blind_third/`` before the checks of
arguments changed in place, of gradients through states and of a teaching assistant's edge cases. For each:

- every correct alternative passes every check cell of its notebook;
- every wrong answer fails its check cell (or is listed in PASSES_UNCAUGHT with the reason);
- the feedback names at least NAMED_FLOOR of the wrong answers, by the testers' own phrases
  (``python tests/checks/blind/measure.py [--holdout]`` prints each sentence).
"""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "blind"))

import measure

pytestmark = pytest.mark.slow  # 591 wrong answers and 70 styles through their checks

#: the share of each blind set whose feedback names the mistake
NAMED_FLOOR = 0.90
SETS = ["blind", "blind_holdout", "blind_third", "blind_fifth"]
#: wrong answers no check can catch, with the reason
PASSES_UNCAUGHT = {
    ("07", "nsp_returns_tensors"): "tensors of the right ids work wherever the lists do; the check accepts either",
    ("07", "nsp_tensors"): "tensors of the right ids work wherever the lists do; the check accepts either",
    ("07", "bs_tensor_indices"): "0-d tensors of the right positions index like ints; the check accepts either",
    ("01", "count_plain_dict"): "a dict of the right counts works wherever the course uses the Counter (.get); the "
                                "check accepts either",
    ("04", "cell_returns_list"): "a list [h_t, c_t] unpacks like the pair everywhere the course uses it; the check "
                                 "accepts either",
    ("07", "span_returns_tensors"): "0-d tensors of the right positions index like ints; the check accepts either",
}

_results: dict = {}


def outcomes(folder, number):
    if (folder, number) not in _results:
        _results[folder, number] = measure.measure(number, folder)
    return _results[folder, number]


EACH = [pytest.param(folder, number, id=f"{folder}-{number}") for folder in SETS for number in measure.numbers_in(folder)]


@pytest.mark.parametrize("folder,number", EACH)
def test_wrong_answers_fail(folder, number):
    found, _ = outcomes(folder, number)
    passed = [o.case.name for o in found if not o.failed and (number, o.case.name) not in PASSES_UNCAUGHT]
    assert not passed, f"wrong answers that pass: {passed}"


@pytest.mark.parametrize("folder,number", EACH)
def test_alternatives_pass(folder, number, capsys):
    module = measure.blind_module(number, folder)
    _, kernel = outcomes(folder, number)
    checks = [gid for gid, c in kernel.cells.items() if c.cell_type == "code" and c.metadata["nbgrader"].get("grade")]
    for style, answers in module.ALTERNATIVES.items():
        try:
            for cell, source in answers.items():
                kernel.answer(cell, source)
            capsys.readouterr()
            for check in checks:
                kernel.run_cell(check)
            printed = capsys.readouterr().out
            assert printed.count("\u2714") >= len(checks), (style, printed)
        finally:
            for cell in answers:
                kernel.restore(cell)


@pytest.mark.parametrize("folder", SETS)
def test_feedback_names_the_blind_mistakes(folder):
    named = total = 0
    lines = []
    for number in measure.numbers_in(folder):
        found, _ = outcomes(folder, number)
        n = sum(o.named for o in found)
        lines.append(f"{number}: {n} of {len(found)}")
        named, total = named + n, total + len(found)
    print("; ".join(lines), f"; all: {named} of {total}")
    if not total:
        pytest.skip(f"tests/checks/{folder}/ has no blind answers yet")
    assert named / total >= NAMED_FLOOR, f"the feedback names {named} of {total}: {'; '.join(lines)}"
