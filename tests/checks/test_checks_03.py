"""Notebook 03's checks beyond the common ones in test_checks.py: built-ins restored, odd answer kinds."""
import math

import pytest
import torch

import course_lib.rnn as course_rnn
from course_lib.checks.rnn import check_clip_grad_norm, check_rnn_forward, check_rnn_step
from course_lib.grading.answers import AnswerError


def _step(x_t, h_prev, U, W, b):
    return torch.tanh(b + h_prev @ W.T + x_t @ U.T)


def test_banned_builtins_are_restored_after_the_checks():
    before = (torch.nn.RNN, torch.nn.RNNCell, torch.rnn_tanh_cell, course_rnn.rnn_step,
              torch.nn.utils.clip_grad_norm_, torch.nn.utils.clip_grad.clip_grad_norm_)
    with pytest.raises(AnswerError, match="switched off"):
        check_rnn_step(lambda x_t, h, U, W, b: torch.nn.RNNCell(U.shape[1], U.shape[0])(x_t, h))
    with pytest.raises(AnswerError, match="switched off"):
        check_clip_grad_norm(lambda ps, m: torch.nn.utils.clip_grad_norm_(ps, m))
    after = (torch.nn.RNN, torch.nn.RNNCell, torch.rnn_tanh_cell, course_rnn.rnn_step,
             torch.nn.utils.clip_grad_norm_, torch.nn.utils.clip_grad.clip_grad_norm_)
    assert before == after
    p = torch.nn.Parameter(torch.ones(3))
    p.grad = torch.full((3,), 10.0)
    assert float(torch.nn.utils.clip_grad_norm_([p], 1.0)) == pytest.approx(math.sqrt(300))


def test_wrong_kinds_get_a_sentence():
    with pytest.raises(AnswerError, match="return"):
        check_rnn_step(lambda *args: None)
    with pytest.raises(AnswerError, match="dtype"):
        check_rnn_step(lambda *args: _step(*args).double())
    with pytest.raises(AnswerError, match="pair"):
        check_rnn_forward(lambda x, h0, U, W, b: [1, 2, 3])
    with pytest.raises(AnswerError, match="one number"):
        def returns_list(parameters, max_norm):
            params = list(parameters)
            total = torch.sqrt(sum((p.grad ** 2).sum() for p in params if p.grad is not None))
            if total > max_norm:
                for p in params:
                    if p.grad is not None:
                        p.grad.mul_(max_norm / total)
            return [total, total]
        check_clip_grad_norm(returns_list)


def test_a_python_float_norm_and_float64_pass(capsys):
    def clip(parameters, max_norm):
        params = [p for p in parameters if p.grad is not None]
        total = math.sqrt(sum(float((p.grad.double() ** 2).sum()) for p in params))
        for p in params:
            p.grad.mul_(min(1.0, max_norm / total))
        return total

    check_clip_grad_norm(clip, dtype=torch.float64, max_norm=0.3)
    check_rnn_step(_step, dtype=torch.float64)
    assert capsys.readouterr().out.count("\u2714") == 2


def test_rnn_forward_does_not_charge_a_wrong_rnn_step_again():
    namespace = {"torch": torch, "rnn_step": lambda x_t, h, U, W, b: x_t @ U.T}  # a wrong step
    exec("def rnn_forward(x, h0, U, W, b):\n    h, hs = h0, []\n    for t in range(x.shape[1]):\n"  # noqa: S102 (a student's answer, as its cell defines it)
         "        h = rnn_step(x[:, t], h, U, W, b)\n        hs.append(h)\n    return torch.stack(hs, 1), h\n", namespace)
    check_rnn_forward(namespace["rnn_forward"])
    assert namespace["rnn_step"](torch.ones(1, 2), None, torch.ones(3, 2), None, None).shape == (1, 3)  # restored
