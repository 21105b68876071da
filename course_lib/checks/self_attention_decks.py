"""The checks of notebook 05's exercises on the decks' numbers: the table for "machines", cell by cell, the masked
"I am space invader" weights and the "brown dog" weights, against their exact values.
"""
from __future__ import annotations

import math
from typing import Any

import torch

from course_lib.checks.common import as_float64
from course_lib.checks.self_attention_common import WORDS, thinking_machines
from course_lib.grading.answers import AnswerError, Terms, check_tensor, explain, report_pass

# ---------------------------------------------------------------------------
# the decks' numbers

#: "I am space invader" (the lecture "BERT and Other Language Models"): the attention scores before masking.
SPACE_INVADER_WORDS = ["I", "am", "space", "invader"]
SPACE_INVADER_SCORES = [
    [0.11, 0.04, 0.05, 0.30],
    [0.19, 0.53, 0.42, 0.37],
    [0.81, 0.21, 0.05, 0.09],
    [0.51, 0.43, 0.12, 0.03],
]
#: "The brown dog ran" (the lecture "LSTMs & Transformers"): scores of "brown" against the four words, d_k = 64.
BROWN_DOG_WORDS = ["The", "brown", "dog", "ran"]
BROWN_DOG_SCORES = [92.0, 124.0, 22.0, 8.0]
BROWN_DOG_DK = 64
#: both rows the slides work through (the query's scores against the four words), and the weights they print
BROWN_DOG_ROWS = {"The": [112.0, 96.0, 16.0, 8.0], "brown": BROWN_DOG_SCORES}
BROWN_DOG_SLIDE_WEIGHTS = {"The": [0.87, 0.12, 0.01, 0.0], "brown": [0.08, 0.91, 0.01, 0.0]}


# ---------------------------------------------------------------------------
# the table for "machines", cell by cell


def table_steps(round_to: int | None = None) -> dict[str, torch.Tensor]:
    """Every row of the lecture's table for "machines", exactly (or rounded at every step)."""
    X = thinking_machines()
    r = (lambda t: t) if round_to is None else (lambda t: torch.round(t * 10**round_to) / 10**round_to)
    scores = X @ X[3]
    scaled = scores / math.sqrt(2)
    weights = r(torch.softmax(scaled, dim=-1))
    weighted = r(weights[:, None] * X)
    return {"scores": scores, "scaled": scaled, "weights": weights, "weighted": weighted, "z": weighted.sum(0)}


TABLE_STEPS = ("scores", "scaled", "weights", "weighted_values", "z")


def _table_mistakes(step: str) -> list[tuple[torch.Tensor, str]]:
    """Known wrong values for one row of the table, each with the sentence that names it."""
    X = thinking_machines()
    exact = table_steps()
    if step == "scores":
        return [(exact["scaled"], "these scores are already divided by sqrt(2); this row is the raw q . k."),
                ((X @ X.T)[0], "these scores use the query of 'Computers'; use the query of 'machines' (row 4)."),
                (X.sum(-1) * X[3].sum(), "this is not a dot product: multiply q and k element by element, then add.")]
    if step == "scaled":
        return [(exact["scores"] / 2, "you divided by d_k = 2; divide by sqrt(d_k) = sqrt(2)."),
                (exact["scores"], "these scores are not divided by sqrt(d_k) = sqrt(2)."),
                (exact["scores"] * math.sqrt(2), "you multiplied by sqrt(2); divide by it.")]
    if step == "weights":
        return [(torch.softmax(exact["scores"], -1),
                 "this is the softmax of the unscaled scores; use machines_scaled."),
                (exact["scaled"].exp(), "these are exponentials that do not sum to 1: divide them by their sum."),
                (exact["scaled"] / exact["scaled"].sum(), "you divided the scores by their sum without exp first."),
                (table_steps(2)["weights"],
                 "these weights are rounded to two decimals like the slide; keep full precision.")]
    if step == "weighted_values":
        return [(exact["weighted"][:, [1, 0]], "the two columns are swapped: row j is machines_weights[j] * v_j."),
                (table_steps(2)["weighted"],
                 "these rows are rounded to two decimals like the slide; keep full precision.")]
    return [(torch.tensor([0.24, 0.55], dtype=torch.float64),
             "this is the slide's text value; it is rounded (and off). Sum the rows of machines_weighted_values."),
            (torch.tensor([0.23, 0.54], dtype=torch.float64),
             "this is the slide's table value, rounded at every step. Sum the exact rows."),
            (torch.softmax(exact["scores"], -1) @ X,
             "this z uses the unscaled scores: the softmax must see the scores divided by sqrt(2)."),
            (exact["weighted"].sum(1), "you summed each row; z is the sum over the words (sum the rows, axis 0).")]


_TABLE_SHAPES = {"scores": (4,), "scaled": (4,), "weights": (4,), "weighted_values": (4, 2), "z": (2,)}
_TABLE_HINTS = {
    "scores": "q_machines . k_j for each of the four words (the slide's 0.70 0.21 -0.49 0.98)",
    "scaled": "machines_scores / sqrt(d_k) with d_k = 2",
    "weights": "softmax(machines_scaled): exp of each, divided by the sum of the four",
    "weighted_values": "a 4 x 2 array whose row j is machines_weights[j] * v_j",
    "z": "the sum of the rows of machines_weighted_values",
}


_TYPED = ("matches to four decimals but not exactly: compute it from the previous steps instead of "
          "typing rounded numbers.")


def check_machines_step(step: str, value: Any, *, exact: bool = False) -> None:
    """Check one row of the "machines" table against its exact value.

    ``exact=True`` (the hidden test) demands full precision, so typed, rounded numbers fail.
    """
    if step not in TABLE_STEPS:
        raise ValueError(f"step must be one of {TABLE_STEPS}, got {step!r}")
    ex = f"machines table, {step}"
    name = "z_machines" if step == "z" else f"machines_{step}"
    got = as_float64(ex, value, None, name)
    expected = table_steps()["weighted" if step == "weighted_values" else step]
    atol = 1e-4
    near = lambda a, b: a.shape == b.shape and bool(torch.allclose(a, b, atol=atol, rtol=0))  # noqa: E731
    if near(got, expected):
        if exact and not torch.allclose(got, expected, atol=1e-9, rtol=0):
            raise AnswerError(ex, f"{name} {_TYPED}")
        shown = ", ".join(f"{v:.4f}" for v in expected.flatten()[:4])
        report_pass(ex, f"[{shown}{', ...' if expected.numel() > 4 else ''}]")
        return
    for wrong, message in _table_mistakes(step):
        if near(got, wrong) or (got.dim() == 2 and wrong.dim() == 2 and near(got.T, wrong)):
            raise AnswerError(ex, message)
    if step == "weighted_values" and got.shape == (2, 4) and near(got.T, expected):
        raise AnswerError(ex, "machines_weighted_values is transposed: it should have 4 rows (one per word) and 2 "
                              "columns.")
    found = explain(got, expected, terms=_table_terms(step), what=name)
    if found:
        raise AnswerError(ex, f"{found} It should be {_TABLE_HINTS[step]}.")
    check_tensor(ex, got, what=name, shape=_TABLE_SHAPES[step])
    raise AnswerError(ex, f"{name} should be {_TABLE_HINTS[step]}.")


def _table_terms(step: str) -> Terms:
    """The row's axes, its sizes, and the same row computed from the other words or the other rows of the table."""
    X = thinking_machines()
    exact = table_steps()
    others: dict[str, torch.Tensor] = {}
    if step == "scores":
        others = {f"with the query of '{WORDS[i]}' instead of 'machines' (row 4 of Q)": X @ X[i] for i in range(3)}
    elif step in ("weighted_values", "z"):
        for source in ("scores", "scaled"):
            weighted = exact[source][:, None] * X
            label = f"with machines_{source} in place of machines_weights"
            others[label] = weighted if step == "weighted_values" else weighted.sum(0)
    elif step == "weights":
        others = {"with machines_scores (unscaled) in place of machines_scaled": torch.softmax(exact["scores"], -1)}
    axes = ("word", "feature") if step == "weighted_values" else ("feature",) if step == "z" else ("word",)
    return Terms(axes=axes, others=others, sizes={"sqrt(d_k) = sqrt(2)": math.sqrt(2), "the number of words, 4": 4})


# ---------------------------------------------------------------------------
# the decks' masked and brown-dog examples


def check_space_invader_weights(space_invader_weights: Any, *, exact: bool = False) -> None:
    """The lecture "BERT and Other Language Models": softmax of the masked 'I am space invader' scores, exactly."""
    ex = "space_invader_weights"
    scores = torch.tensor(SPACE_INVADER_SCORES, dtype=torch.float64)
    causal = torch.ones(4, 4).tril().bool()
    expected = torch.softmax(scores.masked_fill(~causal, float("-inf")), -1)
    got = as_float64(ex, space_invader_weights, (4, 4), "space_invader_weights")
    if torch.allclose(got, expected, atol=1e-4, rtol=0):
        if exact and not torch.allclose(got, expected, atol=1e-9, rtol=0):
            raise AnswerError(ex, f"space_invader_weights {_TYPED}")
        report_pass(ex, "row 2 = " + ", ".join(f"{v:.4f}" for v in expected[1, :2]))
        return
    if torch.allclose(got, torch.softmax(scores, -1), atol=1e-4, rtol=0):
        raise AnswerError(ex, "these weights ignore the mask: future positions must get weight 0.")
    if torch.allclose(got, torch.softmax(scores, -1).masked_fill(~causal, 0.0), atol=1e-4, rtol=0):
        raise AnswerError(ex, "the mask was applied after the softmax: rows no longer sum to 1.")
    if torch.allclose(got, torch.softmax(scores.masked_fill(~causal, 0.0), -1), atol=1e-4, rtol=0):
        raise AnswerError(ex, "masked with 0 instead of -inf: future positions still get weight.")
    masked = lambda t: torch.softmax(t.masked_fill(~causal, float("-inf")), -1)  # noqa: E731
    found = explain(got, expected, what="space_invader_weights", terms=Terms(
        axes=("query word", "key word"), sums_to_one=-1,
        others={"from the scores divided by sqrt(d_k) once more (they are already scaled)": masked(scores / 2),
                "with the mask transposed (each word sees the words after it)": torch.softmax(
                    scores.masked_fill(~causal.T, float("-inf")), -1)}))
    if found:
        raise AnswerError(ex, f"{found} It should be the softmax over each row of the scores with future positions "
                              "set to -inf.")
    raise AnswerError(ex, "should be softmax over each row of the scores with future positions set to -inf.")


def check_brown_dog_weights(brown_dog_weights: Any, *, exact: bool = False) -> None:
    """The lecture "LSTMs & Transformers": softmax(s / sqrt(64)) of the 'brown' scores 92, 124, 22, 8."""
    ex = "brown_dog_weights"
    s = torch.tensor(BROWN_DOG_SCORES, dtype=torch.float64)
    expected = torch.softmax(s / math.sqrt(BROWN_DOG_DK), -1)
    got = as_float64(ex, brown_dog_weights, (4,), "brown_dog_weights")
    if torch.allclose(got, expected, atol=1e-4, rtol=0):
        if exact and not torch.allclose(got, expected, atol=1e-9, rtol=0):
            raise AnswerError(ex, f"brown_dog_weights {_TYPED}")
        report_pass(ex, f"'brown' attends to itself with weight {expected[1]:.4f}")
        return
    if torch.allclose(got, torch.tensor([0.08, 0.91, 0.01, 0.0], dtype=torch.float64), atol=1e-3):
        raise AnswerError(ex, "these are the slide's printed values; they do not follow from its scores. Compute the "
                              "softmax.")
    if torch.allclose(got, torch.softmax(s / BROWN_DOG_DK, -1), atol=1e-4, rtol=0):
        raise AnswerError(ex, "divided by d_k = 64; divide by sqrt(d_k) = 8.")
    others = {"from the scores without the division by sqrt(64) = 8": torch.softmax(s, -1),
              "from the scores divided by sqrt(4), the square root of the number of words": torch.softmax(s / 2, -1),
              "with the division by 8 after the softmax instead of before it": torch.softmax(s, -1) / 8}
    found = explain(got, expected, what="brown_dog_weights", terms=Terms(axes=("word",), sums_to_one=-1, others=others))
    raise AnswerError(ex, f"{found + ' ' if found else ''}It should be softmax(scores / sqrt(64)): divide the scores, "
                          "then the softmax.")
