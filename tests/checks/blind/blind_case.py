"""The format of the blind set: wrong answers written by testers who never read the checks.

Each ``tests/checks/blind/nbNN_blind.py`` defines

- ``NOTEBOOK``: the notebook's name, e.g. ``"05_self_attention"``;
- ``BLIND``: a list of :class:`Blind` cases, one student slip each;
- ``ALTERNATIVES``: ``{style: {answer_cell: source}}``, correct answers written another way
  (loops, numpy, keyword calls, another valid formulation), at least one per graded exercise.

A case's ``names_it`` says what feedback would have to contain for a student to recognise the
mistake. It was written before the tester saw any feedback. It is a tuple of alternatives; each
alternative is a tuple of words or phrases that must all appear in the feedback (case-insensitive).
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class Blind:
    name: str         # short identifier, unique in its notebook
    cell: str         # grade_id of the answer cell the source replaces
    source: str       # the whole replacement answer cell, as a student would have written it
    test_cell: str    # grade_id of the check cell that must fail
    mistake: str      # what the student did wrong, in plain words
    names_it: tuple   # ((phrase, phrase, ...), (phrase, ...), ...): any alternative whose phrases all appear
    part: str = ""    # which part of the answer is wrong, in a few words (for counting sentences that point elsewhere)
