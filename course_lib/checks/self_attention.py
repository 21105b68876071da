"""Checks for notebook 05 (self-attention); each exercise's check in a module of its own, its names the notebook's
here.

The score functions of its first section (dot, scaled dot, bilinear, additive) are checked in
:mod:`~course_lib.checks.score_functions`; the decks' numbers (the table for "machines", the masked "I am space
invader" and the "brown dog" weights) in :mod:`~course_lib.checks.self_attention_decks`; attention_scores, softmax and
causal_mask in :mod:`~course_lib.checks.self_attention_steps`; self_attention in
:mod:`~course_lib.checks.self_attention_layer`.

References are independent of the course's own code (:mod:`~course_lib.checks.self_attention_common`): PyTorch's
``F.scaled_dot_product_attention`` (weights are obtained from it by attending over an identity matrix of values),
``torch.softmax``, and the decks' exact numbers.
"""
from course_lib.checks.score_functions import (  # noqa: F401
    check_additive_score, check_bilinear_score, check_dot_score, check_scaled_dot_score, plain_dot_score,
    plain_scaled_dot_score)
from course_lib.checks.self_attention_common import THINKING_MACHINES, WORDS, thinking_machines  # noqa: F401
from course_lib.checks.self_attention_decks import (  # noqa: F401
    BROWN_DOG_DK, BROWN_DOG_ROWS, BROWN_DOG_SCORES, BROWN_DOG_SLIDE_WEIGHTS, BROWN_DOG_WORDS, SPACE_INVADER_SCORES,
    SPACE_INVADER_WORDS, TABLE_STEPS, check_brown_dog_weights, check_machines_step, check_space_invader_weights,
    table_steps)
from course_lib.checks.self_attention_layer import check_self_attention  # noqa: F401
from course_lib.checks.self_attention_steps import (  # noqa: F401
    FAR_APART, check_attention_scores, check_causal_mask, check_softmax)
from course_lib.grading.answers import install_notebook_hooks  # noqa: F401 (the notebook's setup cell calls it)
