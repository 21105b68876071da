"""Exercise checks, one module per notebook.

Each ``check_<exercise>(answer, ...)`` compares a student's answer with an independent
reference (PyTorch built-ins or the decks' exact values), names the mistake from a
catalogue when it is wrong, and prints one line when it is right. Notebook test cells
call them with the default cases ("check my answer") and, hidden, with other cases.
"""

from course_lib.grading import install_notebook_hooks

install_notebook_hooks()
