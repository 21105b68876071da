"""The course's runtime budgets, in one place: every benchmark checks against these, and the README's
"Measured" table (``benchmarks/measured_table.py``) prints them next to what was measured.

The budgets are for a 2-core laptop CPU with no GPU, and they are the figures below: `make install` in a
fresh clone within 5 minutes (warm package cache); each solution notebook, top to bottom, within 60 s, and
90 s for 07, which loads a pretrained model; every solution notebook, one after the other, within 6 minutes;
autograding within 10 s of wall time per submission, and a class of 200 submissions of one notebook within
5 minutes; notebook 02's FFNN within 5% of the exact entropy floor. The GPU lane's goal, a 10x speed-up of
the training demos over the CPU, is ``gpu.SPEEDUP_GOAL``.
"""
from __future__ import annotations

INSTALL_S = 300.0  # `make install` in a fresh clone, warm package cache
NOTEBOOK_S = 60.0  # one solution notebook, top to bottom
NOTEBOOK_S_BY_NAME = {"07_bert": 90.0}  # notebooks that load a pretrained model get more
COURSE_S = 360.0  # every solution notebook, one after the other
SUBMISSION_S = 10.0  # autograding, wall time per submission of a batch
CLASS_OF_200_S = 5 * 60.0  # a class of 200 submissions of one notebook on 2 cores
FFNN_ABOVE_FLOOR = 0.05  # notebook 02's FFNN: validation perplexity at most 5% above the exact entropy floor


def notebook_budget(name: str) -> float:
    """Seconds allowed for solution notebook ``name`` (e.g. "07_bert")."""
    return NOTEBOOK_S_BY_NAME.get(name, NOTEBOOK_S)
