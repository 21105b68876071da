"""Exercise checks, one module per notebook.

Each ``check_<exercise>(answer, ...)`` compares a student's answer with an independent
reference (PyTorch built-ins or the decks' exact values), names the mistake from a
catalogue when it is wrong, and prints one line when it is right. Notebook test cells
call them with the default cases ("check my answer") and, hidden, with other cases.

Public names beside the checks, for the tests and for instructors: ``plain_<exercise>`` is a check's
own answer to an exercise in plain Python or tensor operations, correct by default and with one
known mistake when a keyword asks (``plain_multi_head_attention(..., scale="d_model")``);
``<exercise>_mistakes()`` is the catalogue of those mistakes.
``common`` holds what several notebooks' checks use (the built-ins switched off, random inputs, the
device). A notebook's module is short when its exercises' checks live in modules of their own
(``bert`` imports ``bert_wordpiece``, ``bert_masking``, ...); its names are the notebook's all the same.

Importing a module of checks changes nothing outside it. Each notebook's module exports
``install_notebook_hooks``, which its setup cell calls (``checks.install_notebook_hooks()``): in Jupyter,
an answer not written yet (a NameError, a bare NotImplementedError) then shows one line instead of a
traceback.
"""

from course_lib.grading.answers import install_notebook_hooks

__all__ = ["install_notebook_hooks"]
