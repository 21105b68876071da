"""The check of ``positional_encoding(max_len, d_model)`` (notebook 06): the sinusoidal table against the formula of
the lecture "Pre-trained NLP Model: BERT", written out with ``torch.pow``, in float64.
"""
from __future__ import annotations

from typing import Callable, Sequence

import torch

import course_lib.transformer as course_transformer
from course_lib.checks.common import WRITE_IT_YOURSELF
from course_lib.grading.answers import (AnswerError, Banned, Terms, Variant, call_answer, case_note, check_tensor,
                                describe_value, explain, report_pass)

_POSITION_BUILTINS = [
    Banned(course_transformer, "positional_encoding", "course_lib.transformer.positional_encoding"),
    Banned(course_transformer, "sinusoid_frequencies", "course_lib.transformer.sinusoid_frequencies"),
    Banned(course_transformer.SinusoidalPositions, "forward", "course_lib.transformer.SinusoidalPositions"),
]


# ---------------------------------------------------------------------------
# positional_encoding(max_len, d_model)


def plain_positional_encoding(max_len: int, d_model: int, *, swap=False, halves=False, column_exponent=False,
                              no_two=False, start=0) -> torch.Tensor:
    """PE[pos, 2i] = sin(pos / 10000^(2i / d)), PE[pos, 2i+1] = cos(...), float64; or one known mistake."""
    pos = torch.arange(start, start + max_len, dtype=torch.float64)[:, None]  # (max_len, 1)
    column = torch.arange(d_model, dtype=torch.float64)  # (d,)
    pair = torch.div(column, 2, rounding_mode="floor")  # i for columns 2i and 2i+1
    exponent = column / d_model if column_exponent else (pair / d_model if no_two else 2 * pair / d_model)
    angle = pos / torch.pow(torch.tensor(10000.0, dtype=torch.float64), exponent)  # (max_len, d)
    if halves:  # sin of every frequency in the first half, cos in the second
        freq = angle[:, 0::2]
        return torch.cat([freq.sin(), freq.cos()], dim=1)
    even = (column % 2 == 0)
    first, second = (torch.cos, torch.sin) if swap else (torch.sin, torch.cos)
    return torch.where(even, first(angle), second(angle))


def positional_encoding_mistakes(max_len: int, d_model: int) -> list[Variant]:
    """The known wrong sinusoid tables of shape (max_len, d_model), each a function of nothing."""
    def v(name, message, **mistake):
        return Variant(name, message, lambda: plain_positional_encoding(max_len, d_model, **mistake))
    return [
        v("sin_cos_swapped", "sine and cosine are swapped: even columns 2i get sin, odd columns 2i+1 get cos.",
          swap=True),
        v("halves", "you put all the sines in the first half and all the cosines in the second; the paper interleaves "
          "them: column 2i is sin and column 2i+1 is cos of the same frequency.", halves=True),
        v("column_exponent", "your exponent uses the column index j, 10000^(j / d_model); columns 2i and 2i+1 share "
                             "one "
          "frequency, 10000^(2i / d_model).", column_exponent=True),
        v("no_two", "your exponent is i / d_model; it is 2i / d_model (the pair index i times 2).", no_two=True),
        v("from_one", "your positions start at 1; the first position is 0 (PE[0] = [0, 1, 0, 1, ...]).", start=1),
        Variant("transposed", "your table is transposed: it must have shape (max_len, d_model), one row per position.",
                lambda: plain_positional_encoding(max_len, d_model).T.contiguous()),
    ]


def _columns(got: torch.Tensor, expected: torch.Tensor, atol: float) -> str | None:
    """Which columns of the table are right: the sines (even) or cosines (odd), and which frequencies."""
    if got.shape != expected.shape:
        return None
    right = [bool(torch.allclose(got[:, j], expected[:, j], atol=atol, rtol=0)) for j in range(got.shape[1])]
    if all(right) or not any(right):
        return None
    even, odd = right[0::2], right[1::2]
    if all(even) and not any(odd):
        return ("the sine columns (even, 2i) are right and the cosine columns (odd, 2i+1) are wrong: PE[pos, 2i+1] = "
                "cos(pos / 10000^(2i/d_model)), the same angle as column 2i.")
    if all(odd) and not any(even):
        return ("the cosine columns (odd, 2i+1) are right and the sine columns (even, 2i) are wrong: PE[pos, 2i] = "
                "sin(pos / 10000^(2i/d_model)).")
    pairs = [i for i in range(len(odd)) if even[i] and odd[i]]
    if pairs == [0]:
        return ("only the first pair of columns (i = 0, frequency 1) is right: the other frequencies are wrong, so "
                "look at the exponent 2i/d_model and at dividing pos by 10000^(2i/d_model).")
    wrong = [j for j, ok in enumerate(right) if not ok]
    return f"columns {', '.join(map(str, wrong[:6]))}{' ...' if len(wrong) > 6 else ''} are wrong and the others right."


def check_positional_encoding(positional_encoding: Callable, *, sizes: Sequence[tuple[int, int]] = ((50, 16), (7, 4)),
                              atol: float = 1e-4) -> None:
    """The sinusoidal table against the lecture's formula, in float64 (a float32 answer passes within ``atol``)."""
    ex = "positional_encoding"
    for max_len, d_model in sizes:
        expected = plain_positional_encoding(max_len, d_model)
        got = call_answer(ex, positional_encoding, max_len, d_model, banned=_POSITION_BUILTINS,
                          reason=WRITE_IT_YOURSELF)
        if not isinstance(got, torch.Tensor):
            raise AnswerError(ex, f"should return a tensor of shape (max_len, d_model), got {describe_value(got)}.")
        if not got.is_floating_point():
            raise AnswerError(ex, f"should return floating-point numbers, got dtype {got.dtype}.")
        got = got.detach().to("cpu", torch.float64)
        case = f"max_len={max_len}, d_model={d_model}"
        if got.shape == expected.shape and torch.allclose(got, expected, atol=atol, rtol=0):
            continue
        for variant in positional_encoding_mistakes(max_len, d_model):
            wrong = variant.compute()
            if got.shape == wrong.shape and torch.allclose(got, wrong, atol=atol, rtol=0):
                raise AnswerError(ex, f"{variant.message}{case_note(case)}")
        found = explain(got, expected, terms=Terms(axes=("position", "column")), what="the returned table",
                        locate=lambda got=got, expected=expected: _columns(got, expected, atol))
        if found:
            raise AnswerError(ex, f"{found}{case_note(case)}")
        check_tensor(ex, got, what="the returned table", shape=expected.shape)
        worst = (got - expected).abs().max().item()
        raise AnswerError(ex, f"the returned table has the right shape but the wrong values{case_note(case)}: the "
                              f"largest difference is {worst:.3g}. PE[pos, 2i] = sin(pos / 10000^(2i/d_model)), "
                              "PE[pos, 2i+1] = cos of the same angle.")
    report_pass(ex, f"sizes {list(sizes)}")
