"""The grading machinery: how a student's answer is called, compared and explained, and how a call reaches a
student's kernel while a notebook is graded. The exercise checks (``course_lib.checks``) are built on it; the
models, data and training (the rest of ``course_lib``) never import it.

- ``answers``: answer checks whose messages name the mistake (AnswerError, call_answer, compare_answer, the
  switched-off built-ins, the probes).
- ``argument_changes``: which argument a student's function changed in place, and how.
- ``diagnosis``: how a wrong tensor relates to the right one, in the exercise's own terms.
- ``mutations``: the one small change of the exercise's solution that reproduces a wrong answer.
- ``error_terms``: a runtime error of the student's code, said where it happened and why.
- ``answer_wire``: the plain data that leaves a student's kernel while it is graded.
- ``remote_answer``: calling a student's code in their kernel, judging its answer in the grader.
- ``plain_text``: what the student's code said, made into one line of text, a CSV cell or Markdown that runs nothing.
"""
