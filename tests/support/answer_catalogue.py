"""What an answers module (tests/nbNN_answers.py) describes, and the notebooks that have one.

Each module defines NOTEBOOK, WRONG and CHEATS (lists of :class:`Wrong`), ALTERNATIVES
({style: {answer_cell: source}}) and STUBS ([(answer_cell, test_cell)]).
"""
import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Wrong:
    name: str
    cell: str          # grade_id of the answer cell it replaces
    source: str
    test_cell: str     # grade_id of the test cell that must fail
    message: str       # a phrase the feedback must contain
    also_fails: tuple = ()  # later value cells computed with the wrong helper (they build on it)


ANSWER_MODULES = ["nb01_answers", "nb02_answers", "nb03_answers", "nb04_answers", "nb05_answers", "nb06_answers", "nb07_answers",
                  "nb08_answers"]


def answer_modules():
    return [importlib.import_module(name) for name in ANSWER_MODULES]
