"""How often the feedback names the blind set's mistakes: ``python tests/checks/blind/measure.py [--set NAME] [NN ...]``.

``--set blind_holdout`` reads ``tests/checks/blind_holdout/`` instead: a second blind set, written after the
diagnosis was built and never used to tune it; ``--set blind_third`` the third, written before the checks of
arguments changed in place, the edge cases and the mutations (``--holdout`` is ``--set blind_holdout``).

Each wrong answer of ``tests/checks/blind/nbNN_blind.py`` replaces its answer cell in the solution
notebook's namespace (as ``tests/checks/test_checks.py`` does), its check cell runs, and the sentence it
fails with is read: the mistake is named when one of the case's ``names_it`` alternatives has all
its phrases in the sentence. Prints one line per case and a total per notebook.
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1] / "support")]

from notebook_runner import SolutionKernel  # noqa: E402

NOTEBOOKS = ["01", "02", "03", "04", "05", "06", "07", "08"]


def numbers_in(folder: str = "blind") -> list[str]:
    """The notebooks (of NOTEBOOKS) that blind set ``folder`` has answers for: a set written before a notebook
    existed has none for it."""
    return [number for number in NOTEBOOKS if (HERE.parent / folder / f"nb{number}_blind.py").is_file()]


@dataclass
class Outcome:
    case: object
    feedback: str     # the failure's sentence, or what the check printed when it passed
    failed: bool      # the check cell failed
    named: bool       # ... with a sentence that names the mistake


def blind_module(number: str, folder: str = "blind"):
    if folder == "blind":
        return importlib.import_module(f"nb{number}_blind")
    path = HERE.parent / folder / f"nb{number}_blind.py"
    spec = importlib.util.spec_from_file_location(f"{folder}_nb{number}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sentence_only(feedback: str) -> str:
    """The feedback without what cannot name a mistake: the exercise's name before the colon and the test case's label."""
    text = feedback.split(": ", 1)[1] if ": " in feedback else feedback
    for marker in ("(test case: ", "(a hidden test case)"):
        while marker in text:
            start = text.index(marker)
            depth, end = 0, start
            for end in range(start, len(text)):
                depth += {"(": 1, ")": -1}.get(text[end], 0)
                if depth == 0:
                    break
            text = text[:start] + text[end + 1:]
    return text


def names(sentence: str, names_it) -> bool:
    text = sentence_only(sentence).lower()
    return any(all(phrase.lower() in text for phrase in alternative) for alternative in names_it)


def run_case(kernel: SolutionKernel, case) -> Outcome:
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            kernel.answer(case.cell, case.source)
            kernel.run_cell(case.test_cell)
    except Exception as err:  # noqa: BLE001 (an AnswerError, or anything else the check raised)
        sentence = str(err)
        return Outcome(case, sentence, True, names(sentence, case.names_it))
    finally:
        with contextlib.redirect_stdout(io.StringIO()):
            kernel.restore(case.cell)
    return Outcome(case, printed.getvalue().strip(), False, False)


def measure(number: str, folder: str = "blind") -> tuple[list[Outcome], SolutionKernel]:
    module = blind_module(number, folder)
    with contextlib.redirect_stdout(io.StringIO()):
        kernel = SolutionKernel(module.NOTEBOOK)
    return [run_case(kernel, case) for case in module.BLIND], kernel


def main(numbers: list[str], folder: str = "blind") -> None:
    total = named = 0
    for number in numbers:
        outcomes, _ = measure(number, folder)
        for o in outcomes:
            mark = "NAMED " if o.named else ("PASSED" if not o.failed else "missed")
            part = f" [{o.case.part}]" if getattr(o.case, "part", "") and not o.named else ""
            print(f"{mark} {number} {o.case.name}{part}: {o.feedback[:400]}")
        n = sum(o.named for o in outcomes)
        print(f"== {number}: {n} of {len(outcomes)} named")
        total += len(outcomes)
        named += n
    print(f"== all: {named} of {total} named ({100 * named / max(total, 1):.0f}%)")


if __name__ == "__main__":
    args = sys.argv[1:]
    chosen = "blind"
    if "--holdout" in args:
        args.remove("--holdout")
        chosen = "blind_holdout"
    if "--set" in args:
        at = args.index("--set")
        chosen = args[at + 1]
        del args[at:at + 2]
    main(args or numbers_in(chosen), chosen)
