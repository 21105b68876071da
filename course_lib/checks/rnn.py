"""Checks for notebook 03 (the simple RNN, backpropagation through time, gradient clipping).

References are PyTorch's own modules and functions (``nn.RNNCell`` and ``nn.RNN`` with copied
weights, ``torch.nn.utils.clip_grad_norm_``), never ``course_lib.rnn``, which is switched off
while an answer is graded, together with the PyTorch built-ins that would do the exercise.

The notation of the lecture "Machine Learning, Big Data and AI: Block 6": a_t = b + W h_{t-1} + U x_t,
h_t = tanh(a_t), with U (H, D), W (H, H), b (H,); rows of x_t (B, D) and h_prev (B, H) are sequences of the batch.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import torch
import torch.nn.utils as nn_utils
import torch.nn.utils.clip_grad as clip_grad_module
from torch import nn

import course_lib.rnn as course_rnn
from course_lib.checks.common import (
    STATE_GRADIENTS,
    WRITE_IT_YOURSELF,
    check_gradients_reach,
    device_for_checks,
    random_tensor,
)
from course_lib.grading.answers import (
    AnswerError,
    Banned,
    Probe,
    Terms,
    Variant,
    call_answer,
    call_answer_each,
    case_note,
    close,
    compare_answer,
    describe_value,
    install_notebook_hooks,
    report_pass,
    run_probes,
    zeroed,
)
from course_lib.grading.diagnosis import express

#: the course's RNN and PyTorch's recurrent modules and kernels, switched off while rnn_step/rnn_forward are graded
_RNN_BUILTINS = [
    Banned(course_rnn, "rnn_step", "course_lib.rnn.rnn_step"),
    Banned(course_rnn, "rnn_forward", "course_lib.rnn.rnn_forward"),
    Banned(course_rnn.RNNLayer, "forward", "course_lib.rnn.RNNLayer.forward"),
    Banned(course_rnn.RNNLanguageModel, "forward", "course_lib.rnn.RNNLanguageModel.forward"),
    Banned(nn, "RNN", "torch.nn.RNN"),
    Banned(nn, "RNNCell", "torch.nn.RNNCell"),
    Banned(nn.modules.rnn, "RNN", "torch.nn.RNN"),
    Banned(nn.modules.rnn, "RNNCell", "torch.nn.RNNCell"),
    Banned(nn.RNN, "forward", "torch.nn.RNN.forward"),
    Banned(nn.RNNCell, "forward", "torch.nn.RNNCell.forward"),
    Banned(torch, "rnn_tanh", "torch.rnn_tanh"),
    Banned(torch, "rnn_tanh_cell", "torch.rnn_tanh_cell"),
]

#: clip_grad_norm_ under every name the course's PyTorch offers, and its two halves (torch.nn.utils.clip_grad has
#: them only under their private names)
_CLIP_BUILTINS = [
    Banned(nn_utils, "clip_grad_norm_", "torch.nn.utils.clip_grad_norm_"),
    Banned(nn_utils, "clip_grad_norm", "torch.nn.utils.clip_grad_norm"),
    Banned(nn_utils, "clip_grads_with_norm_", "torch.nn.utils.clip_grads_with_norm_"),
    Banned(nn_utils, "get_total_norm", "torch.nn.utils.get_total_norm"),
    Banned(clip_grad_module, "clip_grad_norm_", "torch.nn.utils.clip_grad.clip_grad_norm_"),
    Banned(clip_grad_module, "clip_grad_norm", "torch.nn.utils.clip_grad.clip_grad_norm"),
    Banned(clip_grad_module, "_clip_grads_with_norm_", "torch.nn.utils.clip_grad._clip_grads_with_norm_"),
    Banned(clip_grad_module, "_get_total_norm", "torch.nn.utils.clip_grad._get_total_norm"),
]

_SHAPE_HINT = (" Hint: U is (H, D) and W is (H, H), stored as (out, in) like nn.Linear's weights, and the rows of "
               "x_t and h_prev are the sequences of the batch, so U x_t for every row is x_t @ U.T.")


def _call(ex: str, func: Callable, *args: Any, **kwargs: Any) -> Any:
    """call_answer, with a hint about the weights' layout when a matrix product does not fit."""
    try:
        return call_answer(ex, func, *args, **kwargs)
    except AnswerError as err:
        if "cannot be multiplied" in err.message or "size of tensor" in err.message:
            raise AnswerError(ex, err.message + _SHAPE_HINT) from None
        raise


def random_rnn_weights(input_dim: int, hidden_dim: int, *, seed: int = 0, dtype: torch.dtype = torch.float32,
                       device: Any = None) -> dict[str, torch.Tensor]:
    """U (H, D), W (H, H) and b (H,) with N(0, 1/2) entries: large enough that every mistake shows."""
    g = torch.Generator().manual_seed(seed)
    device = device_for_checks(device)
    scale = 0.5 ** 0.5
    return {"U": random_tensor((hidden_dim, input_dim), dtype, device, g) * scale,
            "W": random_tensor((hidden_dim, hidden_dim), dtype, device, g) * scale,
            "b": random_tensor((hidden_dim,), dtype, device, g) * scale}


def _torch_cell(U: torch.Tensor, W: torch.Tensor, b: torch.Tensor, *, sequence: bool = False) -> nn.Module:
    """nn.RNNCell (or nn.RNN, batch first) with weight_ih = U, weight_hh = W and bias_ih + bias_hh = b."""
    hidden, input_dim = U.shape
    kind = nn.RNN(input_dim, hidden, batch_first=True) if sequence else nn.RNNCell(input_dim, hidden)
    kind = kind.to(device=U.device, dtype=U.dtype)
    suffix = "_l0" if sequence else ""
    with torch.no_grad():
        getattr(kind, f"weight_ih{suffix}").copy_(U)
        getattr(kind, f"weight_hh{suffix}").copy_(W)
        half = torch.linspace(-0.3, 0.3, hidden, dtype=U.dtype, device=U.device)  # b split into two biases
        getattr(kind, f"bias_ih{suffix}").copy_(b - half)
        getattr(kind, f"bias_hh{suffix}").copy_(half)
    return kind


# ---------------------------------------------------------------------------
# rnn_step(x_t, h_prev, U, W, b) -> h_t (B, H)


def _step(x, h, U, W, b, *, phi=torch.tanh, w_t=False, u_t=False, swap=False, bias=True, squash_h=False, use_h=True,
          twice=False):
    """The step computed with plain tensor operations, correct or with one known mistake."""
    if squash_h:
        h = torch.tanh(h)
    W_used = W if w_t else W.T
    if swap:
        a = h @ U.T + x @ W.T
    else:
        a = (h @ W_used if use_h else 0) + (x @ U if u_t else x @ U.T)
    if bias:
        a = a + b
    out = phi(a)
    return torch.tanh(out) if twice else out


def _step_variants() -> list[Variant]:
    return [
        Variant("no_tanh", "your h_t has no tanh: h_t = tanh(a_t) with a_t = b + W h_(t-1) + U x_t.",
                lambda x, h, U, W, b: _step(x, h, U, W, b, phi=lambda a: a)),
        Variant("sigmoid", "you used the sigmoid; the simple RNN's nonlinearity is tanh (the slide's sigma stands for "
                "a nonlinearity, and nn.RNN's default is tanh).",
                lambda x, h, U, W, b: _step(x, h, U, W, b, phi=torch.sigmoid)),
        Variant("swapped", "U and W are swapped: U (H, D) multiplies the input x_t, W (H, H) the previous state "
                           "h_(t-1).",
                lambda x, h, U, W, b: _step(x, h, U, W, b, swap=True)),
        Variant("no_bias", "the bias b is missing: a_t = b + W h_(t-1) + U x_t.",
                lambda x, h, U, W, b: _step(x, h, U, W, b, bias=False)),
        Variant("tanh_twice", "you applied tanh twice: h_t = tanh(a_t), once.",
                lambda x, h, U, W, b: _step(x, h, U, W, b, twice=True)),
        Variant("squash_h_prev", "you applied tanh to h_prev again before multiplying by W: h_prev is already a "
                "hidden state (the tanh of the previous step); use it as it is.",
                lambda x, h, U, W, b: _step(x, h, U, W, b, squash_h=True)),
        Variant("W_transposed", "you multiplied h_prev by W instead of W.T: for a batch of rows, W h_(t-1) is "
                "h_prev @ W.T (W is stored as (out, in)).",
                lambda x, h, U, W, b: _step(x, h, U, W, b, w_t=True)),
        Variant("U_transposed", "you multiplied x_t by U instead of U.T: for a batch of rows, U x_t is x_t @ U.T "
                "(U is stored as (out, in) = (H, D)).", lambda x, h, U, W, b: _step(x, h, U, W, b, u_t=True)),
        Variant("no_state", "your h_t ignores h_prev: the previous state enters through W h_(t-1); without it "
                "there is no recurrence.", lambda x, h, U, W, b: _step(x, h, U, W, b, use_h=False)),
    ]


_HINTS = {"b": "look at how the bias b enters: once, inside the tanh, h_t = tanh(b + W h_(t-1) + U x_t)"}


def check_rnn_step(rnn_step: Callable, *, batch: int = 3, sizes: Sequence[tuple[int, int]] = ((4, 4), (3, 5)),
                   seed: int = 0, dtype: torch.dtype = torch.float32, device: Any = None) -> None:
    """Checks h_t against nn.RNNCell with the same weights, for each (D, H) in ``sizes``."""
    ex = "rnn_step"
    device = device_for_checks(device)
    for number, (input_dim, hidden) in enumerate(sizes):
        p = random_rnn_weights(input_dim, hidden, seed=seed + number, dtype=dtype, device=device)
        g = torch.Generator().manual_seed(seed + 100 + number)
        x_t = random_tensor((batch, input_dim), dtype, device, g)
        h_prev = random_tensor((batch, hidden), dtype, device, g)
        with torch.no_grad():
            expected = _torch_cell(p["U"], p["W"], p["b"])(x_t, h_prev)
        got = _call(ex, rnn_step, x_t.clone(), h_prev.clone(), p["U"].clone(), p["W"].clone(), p["b"].clone(),
                    banned=_RNN_BUILTINS, reason=WRITE_IT_YOURSELF)
        case = f"x_t {tuple(x_t.shape)}, h_prev {tuple(h_prev.shape)}, D={input_dim}, H={hidden}"
        inputs = (x_t, h_prev, p["U"], p["W"], p["b"])
        compare_answer(ex, got, expected, inputs=inputs, variants=_step_variants(), what="the returned h_t", case=case,
                       terms=Terms(axes=("example", "hidden unit")),
                       locate=lambda inputs=inputs: run_probes(
                           ex, rnn_step, _correct_step,
                           zeroed(("x_t", "h_prev", "U", "W", "b"), inputs, only=("x_t", "h_prev", "b"), hints=_HINTS),
                           banned=_RNN_BUILTINS, reason=WRITE_IT_YOURSELF))
    check_gradients_reach(ex, rnn_step, _correct_step, inputs, {1: "h_prev"}, banned=_RNN_BUILTINS,
                          reason=WRITE_IT_YOURSELF, why=STATE_GRADIENTS)
    report_pass(ex, f"equals nn.RNNCell for (D, H) in {list(sizes)}; gradients reach h_prev")


# ---------------------------------------------------------------------------
# rnn_forward(x, h0, U, W, b) -> (hs (B, T, H), h_T (B, H))


def _correct_step(x_t, h_prev, U, W, b):
    return torch.tanh(b + h_prev @ W.T + x_t @ U.T)


def _forward(x, h0, U, W, b, *, carry=True, zero_start=False):
    h = torch.zeros_like(h0) if zero_start else h0
    hs = []
    for t in range(x.shape[1]):
        h_new = _correct_step(x[:, t], h if carry else h0, U, W, b)
        hs.append(h_new)
        h = h_new
    return torch.stack(hs, dim=1), hs[-1]


def _forward_variants() -> list[Variant]:
    return [
        Variant("not_carried", "the state is not carried: every step starts again from h0. Pass the h_t you just "
                "computed to the next step.", lambda x, h0, U, W, b: _forward(x, h0, U, W, b, carry=False)),
        Variant("zero_start", "your loop starts from zeros, not from h0: the first step continues from the given h0.",
                lambda x, h0, U, W, b: _forward(x, h0, U, W, b, zero_start=True)),
        Variant("time_first", "your hs is (T, B, H): the time and batch axes are swapped. Stack the states along "
                "dim=1 to get (B, T, H), batch first like x.",
                lambda x, h0, U, W, b: (_forward(x, h0, U, W, b)[0].transpose(0, 1), None)),
        Variant("only_last", "your hs holds only the last state: return every h_t, (B, T, H), as well as h_T.",
                lambda x, h0, U, W, b: (_forward(x, h0, U, W, b)[1], None)),
        Variant("with_h0", "your hs starts with h0 (T + 1 states): hs[:, t] is the state after reading x_t, "
                "so h0 is not part of it.",
                lambda x, h0, U, W, b: (torch.cat([h0[:, None], _forward(x, h0, U, W, b)[0]], dim=1), None)),
    ]


def _final_variants() -> list[Variant]:
    return [
        Variant("first", "the returned h_T is the first state h_1: return the state after the last step.",
                lambda x, h0, U, W, b: _forward(x, h0, U, W, b)[0][:, 0]),
        Variant("h0", "the returned h_T is h0 unchanged: return the state after the last step.",
                lambda x, h0, U, W, b: h0),
        Variant("not_carried", "the state is not carried: every step starts again from h0. Pass the h_t you just "
                "computed to the next step.", lambda x, h0, U, W, b: _forward(x, h0, U, W, b, carry=False)[1]),
        Variant("zero_start", "your loop starts from zeros, not from h0: the first step continues from the given h0.",
                lambda x, h0, U, W, b: _forward(x, h0, U, W, b, zero_start=True)[1]),
    ]


def check_rnn_forward(rnn_forward: Callable, *, batch: int = 2, seq_len: int = 5, input_dim: int = 3,
                      hidden_dim: int = 4, seed: int = 0, dtype: torch.dtype = torch.float32,
                      device: Any = None) -> None:
    """Checks (hs, h_T) against nn.RNN (batch_first) with the same weights, from a random h0.

    While it runs, the notebook's ``rnn_step`` is replaced by a correct one, so that a mistake
    there is charged once, in rnn_step's own check.
    """
    ex = "rnn_forward"
    device = device_for_checks(device)
    p = random_rnn_weights(input_dim, hidden_dim, seed=seed, dtype=dtype, device=device)
    g = torch.Generator().manual_seed(seed + 100)
    x = random_tensor((batch, seq_len, input_dim), dtype, device, g)
    h0 = random_tensor((batch, hidden_dim), dtype, device, g)
    # without cuDNN: on a GPU its RNN kernel rounds products through TF32, 1e-3 away from a plain float32 loop
    with torch.no_grad(), torch.backends.cudnn.flags(enabled=False):
        expected_hs, h_n = _torch_cell(p["U"], p["W"], p["b"], sequence=True)(x, h0[None])
    expected_last = h_n[0]
    result = _call(ex, rnn_forward, x.clone(), h0.clone(), p["U"].clone(), p["W"].clone(), p["b"].clone(),
                   banned=_RNN_BUILTINS, reason=WRITE_IT_YOURSELF, substitutes={"rnn_step": _correct_step})
    case = f"x {tuple(x.shape)}, h0 {tuple(h0.shape)}, D={input_dim}, H={hidden_dim}"
    if isinstance(result, torch.Tensor):
        if close(result, expected_last):
            raise AnswerError(ex, "you returned only the last state: return the pair (hs, h_T), every state "
                                  f"(B, T, H) and the last one (B, H){case_note(case)}.")
        if close(result, expected_hs):
            raise AnswerError(ex, f"you returned only hs: return the pair (hs, h_T), with h_T = hs[:, -1]"
                                  f"{case_note(case)}.")
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise AnswerError(ex, f"should return a pair (hs, h_T), not {describe_value(result)}.")
    hs, h_last = result
    inputs = (x, h0, p["U"], p["W"], p["b"])
    steady = (x[:, :1].expand_as(x).clone(), *inputs[1:])  # every step reads the same input
    probes = [Probe("when every step's input x_t is the same", steady,
                    hint="look at which x_t each step reads, and in what order"),
              Probe("when h0 is zero", (x, torch.zeros_like(h0), *inputs[2:]), hint="look at how h0 enters the loop")]

    def explore(part: int) -> Callable[[], str | None]:
        return lambda: run_probes(ex, rnn_forward, _forward, probes, pick=lambda r: r[part], banned=_RNN_BUILTINS,
                                  reason=WRITE_IT_YOURSELF, substitutes={"rnn_step": _correct_step})

    compare_answer(ex, hs, expected_hs, inputs=inputs, variants=_forward_variants(), what="the returned hs", case=case,
                   pick=lambda r: r[0], locate=explore(0),
                   terms=Terms(axes=("example", "time step", "hidden unit"), time_axis=1,
                               sizes={"the batch size B": batch, "the number of steps T": seq_len,
                                      "the input size D": input_dim, "the hidden size H": hidden_dim}))
    compare_answer(ex, h_last, expected_last, inputs=inputs, variants=_final_variants(), what="the returned h_T",
                   case=case, terms=Terms(axes=("example", "hidden unit")), locate=explore(1))
    check_gradients_reach(ex, rnn_forward, _forward, inputs, {1: "h0"}, banned=_RNN_BUILTINS, reason=WRITE_IT_YOURSELF,
                          substitutes={"rnn_step": _correct_step}, why=STATE_GRADIENTS)
    report_pass(ex, f"equals nn.RNN over T={seq_len} steps; gradients reach h0")


# ---------------------------------------------------------------------------
# clip_grad_norm(parameters, max_norm) -> total norm before clipping


def _parameters(shapes: Sequence[tuple[int, ...]], scales: Sequence[float], seed: int, dtype: torch.dtype,
                device: torch.device) -> list[nn.Parameter]:
    """Parameters with random gradients (each scaled), and one more parameter whose grad is None."""
    g = torch.Generator().manual_seed(seed)
    params = []
    for shape, scale in zip(shapes, scales):
        p = nn.Parameter(random_tensor(shape, dtype, device, g))
        p.grad = random_tensor(shape, dtype, device, g) * scale
        params.append(p)
    params.insert(1, nn.Parameter(random_tensor((2, 3), dtype, device, g)))  # no gradient: .grad is None
    return params


def _clip_reference(grads: list[torch.Tensor | None], max_norm: float) -> tuple[list, torch.Tensor]:
    """torch.nn.utils.clip_grad_norm_ on copies: (the clipped grads, the total norm before clipping)."""
    copies = []
    for grad in grads:
        p = nn.Parameter(torch.zeros(1) if grad is None else torch.zeros_like(grad))
        p.grad = None if grad is None else grad.clone()
        copies.append(p)
    total = nn_utils.clip_grad_norm_(copies, max_norm)
    return [p.grad for p in copies], total


def _scaled(grads, coefs):
    return [None if g is None else g * c for g, c in zip(grads, coefs)]


def _clip_variants(grads: list, max_norm: float) -> list[tuple[str, str, list]]:
    """(name, message, grads after the mistake) for the known ways of clipping wrongly."""
    present = [g for g in grads if g is not None]
    total = math.sqrt(sum(float(g.double().pow(2).sum()) for g in present))
    norm_sum = sum(float(g.double().norm()) for g in present)
    l1 = sum(float(g.double().abs().sum()) for g in present)
    per_tensor = [None if g is None else min(1.0, max_norm / (float(g.double().norm()) + 1e-6)) for g in grads]
    return [
        ("per_tensor", "you clipped each parameter's gradient by its own norm: clipping uses ONE global norm, "
         "sqrt of the sum of the squared norms of all gradients, and scales every gradient by the same factor.",
         _scaled(grads, per_tensor)),
        ("always", f"you scaled the gradients although their total norm ({total:.3g}) is below max_norm "
         f"({max_norm:g}): clip only when the norm exceeds max_norm, otherwise leave them unchanged.",
         _scaled(grads, [max_norm / total] * len(grads))),
        ("no_sqrt", "your total norm is the sum of the squared norms without the square root: total_norm = "
         "sqrt(sum of the squared norms), and the coefficient is max_norm / total_norm.",
         _scaled(grads, [min(1.0, max_norm / total ** 2)] * len(grads))),
        ("norm_sum", "your global norm is the sum of the parameters' norms; it is the square root of the sum of "
         "their SQUARED norms (the L2 norm of all gradients put end to end).",
         _scaled(grads, [min(1.0, max_norm / norm_sum)] * len(grads))),
        ("l1", "your total norm is the L1 norm, the sum of the absolute values of the gradients; gradient clipping "
               "uses "
         "the L2 norm: the square root of the sum of every squared entry.",
         _scaled(grads, [min(1.0, max_norm / l1)] * len(grads))),
        ("by_value", "you clipped each entry to [-max_norm, max_norm] (clipping by value); clipping by norm scales "
         "every gradient by the same factor, max_norm / total_norm, and keeps their direction.",
         [None if g is None else g.clamp(-max_norm, max_norm) for g in grads]),
    ]


def _grads_close(got: list, expected: list) -> bool:
    for a, b in zip(got, expected):
        if (a is None) != (b is None):
            return False
        if a is not None:
            rtol, atol = (1e-5, 1e-7) if b.dtype == torch.float64 else (1e-4, 1e-5)  # torch adds 1e-6 to the norm
            if a.shape != b.shape or not torch.allclose(a.detach().to(b.device, b.dtype), b, rtol=rtol, atol=atol):
                return False
    return True


def _common_factor(after: list, before: list) -> float | None:
    """The one number every gradient was multiplied by, if there is one."""
    ratios = []
    for a, b in zip(after, before):
        if a is None or b is None:
            continue
        b64, a64 = b.detach().double().cpu(), a.detach().double().cpu()
        c = float((a64 * b64).sum() / (b64 * b64).sum())
        if not torch.allclose(a64, c * b64, rtol=1e-4, atol=1e-7):
            return None
        ratios.append(c)
    if ratios and max(ratios) - min(ratios) <= 1e-4 * max(abs(r) for r in ratios):
        return ratios[0]
    return None


def _as_number(ex: str, value: Any, case: str) -> float:
    if value is None:
        raise AnswerError(ex, f"returned None: return the total norm of the gradients before clipping, like "
                              f"torch.nn.utils.clip_grad_norm_{case_note(case)}.")
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        return float(value.detach().double().cpu().reshape(()))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise AnswerError(ex, f"should return the total norm as one number (a 0-dimensional tensor or a float), "
                          f"not {describe_value(value)}{case_note(case)}.")


def check_clip_grad_norm(clip_grad_norm: Callable, *, shapes: Sequence[tuple[int, ...]] = ((3, 4), (5,), (2, 2, 2)),
                         max_norm: float = 1.0, seed: int = 0, dtype: torch.dtype = torch.float32,
                         device: Any = None, generator_case: bool = True) -> None:
    """Checks the clipped .grad tensors and the returned norm against torch.nn.utils.clip_grad_norm_.

    Cases: a total norm above max_norm (clipped), one below it (unchanged), and (with
    ``generator_case``) parameters passed as a generator, like ``model.parameters()``. Every case
    holds a parameter whose .grad is None.
    """
    ex = "clip_grad_norm"
    device = device_for_checks(device)
    n = len(shapes)
    big = [3.0 * max_norm * (i + 1) for i in range(n)]  # total far above max_norm; norms differ per tensor
    small = [0.05 * max_norm] * n  # total far below max_norm
    cases = [("gradients with a total norm above max_norm", big, False),
             ("gradients with a total norm below max_norm", small, False)]
    if generator_case:
        cases.append(("parameters given as a generator, like model.parameters()", big, True))
    for number, (label, scales, as_generator) in enumerate(cases):
        params = _parameters(shapes, scales, seed + number, dtype, device)
        before = [None if p.grad is None else p.grad.clone() for p in params]
        expected_grads, expected_total = _clip_reference(before, max_norm)
        expected_total = float(expected_total)
        case = f"{label}, max_norm={max_norm:g}, {len(params)} parameters, one with .grad None"
        argument = (p for p in params) if as_generator else list(params)
        result = _call_clip(ex, clip_grad_norm, argument, max_norm, case)
        after = [p.grad for p in params]
        if before[1] is None and after[1] is not None:
            raise AnswerError(ex, f"you gave a gradient to a parameter whose .grad was None: skip it{case_note(case)}.")
        if not _grads_close(after, expected_grads):
            _explain_wrong_gradients(clip_grad_norm, params, before, after, expected_total, max_norm,
                                     as_generator=as_generator, case=case,
                                     one_parameter=_parameters(shapes[:1], scales[:1], seed + number, dtype, device))
        _check_returned_norm(result, expected_total, max_norm, case)
    report_pass(ex, f"equals torch.nn.utils.clip_grad_norm_ ({len(cases)} cases)")


def _explain_wrong_gradients(clip_grad_norm: Callable, params: list, before: list, after: list, expected_total: float,
                             max_norm: float, *, as_generator: bool, case: str, one_parameter: list) -> None:
    """Why the clipped gradients are wrong (always raises): unchanged, a known mistake, a wrong common factor, or a
    norm taken per parameter (right for ``one_parameter`` alone)."""
    ex = "clip_grad_norm"
    expected_grads, _ = _clip_reference(before, max_norm)
    clipping = expected_total > max_norm
    if clipping and _grads_close(after, before):
        if as_generator:
            raise AnswerError(ex, "the gradients are unchanged when the parameters come as a generator: a "
                                  "generator (like model.parameters()) is empty the second time you loop "
                                  "over it. Start with parameters = list(parameters).")
        raise AnswerError(ex, "the .grad tensors are unchanged: scale each p.grad in place (p.grad.mul_(coef) "
                              "or p.grad *= coef). Computing new tensors, or assigning to a loop variable, "
                              f"leaves the gradients the optimizer will use as they were{case_note(case)}.")
    for name, message, wrong in _clip_variants(before, max_norm):
        if _grads_close(after, wrong) and not _grads_close(wrong, expected_grads):
            raise AnswerError(ex, f"{message}{case_note(case)}")
    coefficient = _common_factor(after, before)
    if coefficient is not None:
        named = {"max_norm": max_norm, "total_norm": expected_total,
                 "the norm of the parameters themselves": math.sqrt(sum(float(p.detach().double().pow(2).sum())
                                                                        for p in params)),
                 "the norm of the parameters themselves (those with a gradient), not of their gradients":
                     math.sqrt(sum(float(p.detach().double().pow(2).sum()) for p, g in zip(params, before)
                                   if g is not None)),
                 "the number of gradient entries": sum(g.numel() for g in before if g is not None)}
        formula = express(coefficient, named, rel_tol=1e-4)
        if formula:
            raise AnswerError(ex, f"you scaled every gradient by {coefficient:.4g} = {formula}; the factor is "
                                  f"max_norm / total_norm = {max_norm / expected_total:.4g}, with total_norm the "
                                  f"norm of all the gradients (p.grad) together{case_note(case)}.")
    alone = one_parameter[:1]
    alone_before = [alone[0].grad.clone()]
    alone_expected, _ = _clip_reference(alone_before, max_norm)
    if not isinstance(call_answer_each(ex, clip_grad_norm, [(([alone[0]], max_norm), {})], banned=_CLIP_BUILTINS,
                                       reason=WRITE_IT_YOURSELF)[0], AnswerError) \
            and _grads_close([alone[0].grad], alone_expected):
        raise AnswerError(ex, "your clipping is right for one parameter but wrong for several: the norm is "
                              "taken over all the gradients together, sqrt(sum of every squared entry), and "
                              f"every gradient is scaled by the same factor{case_note(case)}.")
    raise AnswerError(ex, f"the gradients after clipping are wrong{case_note(case)}: each should be "
                          f"multiplied by min(1, max_norm / total_norm), with total_norm = {expected_total:.4g}.")


def _check_returned_norm(result: Any, expected_total: float, max_norm: float, case: str) -> None:
    """The returned value is the total norm of the gradients before clipping."""
    ex = "clip_grad_norm"
    total = _as_number(ex, result, case)
    if not math.isclose(total, expected_total, rel_tol=1e-4, abs_tol=1e-6):
        if expected_total > max_norm and math.isclose(total, max_norm, rel_tol=1e-4):
            raise AnswerError(ex, f"you returned the norm after clipping ({total:.4g}); return the total norm "
                                  f"BEFORE clipping ({expected_total:.4g}), which tells you how large the "
                                  f"gradient really was{case_note(case)}.")
        if math.isclose(total, expected_total ** 2, rel_tol=1e-4):
            raise AnswerError(ex, f"you returned the squared norm: take the square root{case_note(case)}.")
        raise AnswerError(ex, f"the returned norm is {total:.6g}, the total norm of the gradients before "
                              f"clipping is {expected_total:.6g}{case_note(case)}.")


def _call_clip(ex: str, clip_grad_norm: Callable, parameters: Any, max_norm: float, case: str) -> Any:
    try:
        return call_answer(ex, clip_grad_norm, parameters, max_norm, banned=_CLIP_BUILTINS, reason=WRITE_IT_YOURSELF)
    except AnswerError as err:
        if "NoneType" in err.message:
            raise AnswerError(ex, "a parameter whose .grad is None (it received no gradient) must be skipped: "
                                  f"`if p.grad is None: continue` ({err.message})") from None
        raise


__all__ = ["check_rnn_step", "check_rnn_forward", "check_clip_grad_norm", "random_rnn_weights",
           "install_notebook_hooks"]  # the notebook's setup cell calls it
