"""Checks for notebook 04 (the LSTM): the lecture's forget-gate worked example and a full LSTM step.

References are PyTorch's own functions and modules (``torch.sigmoid`` computed here, ``nn.LSTMCell``
with copied weights), never ``course_lib.lstm``, which is switched off while ``lstm_cell`` is
graded, together with PyTorch's LSTM modules and kernels.

The example of the lecture "Neural Network Language Models & BERT": h_(t-1) = [1], c_(t-1) = [2], x_t = [0.2],
w_f = [1 1] acting on [h_(t-1); x_t], b_f = 0, so f_t = sigmoid(1.2) = 0.768525 and
c'_t = f_t * c_(t-1) = 1.537050 (the slide: 0.77, 1.54).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import torch
from torch import nn

import course_lib.lstm as course_lstm
from course_lib.checks.common import (
    STATE_GRADIENTS,
    WRITE_IT_YOURSELF,
    as_float64,
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
    case_note,
    check_tensor,
    compare_answer,
    describe_value,
    install_notebook_hooks,  # noqa: F401 (the notebook's setup cell calls it)
    report_pass,
    run_probes,
    zeroed,
)
from course_lib.grading.diagnosis import express

# the tagger's and the classifier's exercises (sections 9 and 10) have a module of their own
from course_lib.checks.lstm_tagging import check_last_states, check_tag_logits, check_tag_loss  # noqa: F401

#: the course's LSTM and PyTorch's LSTM modules and kernels, switched off while lstm_cell is graded
_LSTM_BUILTINS = [
    Banned(course_lstm, "lstm_cell", "course_lib.lstm.lstm_cell"),
    Banned(course_lstm, "lstm_forward", "course_lib.lstm.lstm_forward"),
    Banned(course_lstm, "gates_step", "course_lib.lstm.gates_step"),
    Banned(course_lstm.LSTMLayer, "forward", "course_lib.lstm.LSTMLayer.forward"),
    Banned(course_lstm.LSTMEncoder, "forward", "course_lib.lstm.LSTMEncoder.forward"),
    Banned(course_lstm.LSTMLanguageModel, "forward", "course_lib.lstm.LSTMLanguageModel.forward"),
    Banned(nn, "LSTM", "torch.nn.LSTM"),
    Banned(nn, "LSTMCell", "torch.nn.LSTMCell"),
    Banned(nn.modules.rnn, "LSTM", "torch.nn.LSTM"),
    Banned(nn.modules.rnn, "LSTMCell", "torch.nn.LSTMCell"),
    Banned(nn.LSTM, "forward", "torch.nn.LSTM.forward"),
    Banned(nn.LSTMCell, "forward", "torch.nn.LSTMCell.forward"),
    Banned(torch, "lstm", "torch.lstm"),
    Banned(torch, "lstm_cell", "torch.lstm_cell"),
    Banned(torch._VF, "lstm", "torch._VF.lstm"),
    Banned(torch._VF, "lstm_cell", "torch._VF.lstm_cell"),
]


# ---------------------------------------------------------------------------
# the lecture's example

SLIDE = {"h_prev": [1.0], "c_prev": [2.0], "x_t": [0.2], "w_f": [[1.0, 1.0]], "b_f": [0.0]}


def slide_inputs(dtype: torch.dtype = torch.float64) -> dict[str, torch.Tensor]:
    """The lecture's h_prev (1,), c_prev (1,), x_t (1,), w_f (1, 2) and b_f (1,) as float64 tensors."""
    return {name: torch.tensor(value, dtype=dtype) for name, value in SLIDE.items()}


def _forget(h, x, w_f, b_f, *, phi=torch.sigmoid, bias=True, use_x=True, use_h=True, x_first=False):
    """f = phi(w_f [h; x] + b_f) with plain tensor operations, correct or with one known mistake."""
    H = h.shape[-1]
    w_h, w_x = (w_f[:, -H:], w_f[:, :-H]) if x_first else (w_f[:, :H], w_f[:, H:])
    a = (w_h @ h if use_h else 0) + (w_x @ x if use_x else 0)
    if bias:
        a = a + b_f
    return phi(a)


def _forget_variants() -> list[Variant]:
    return [
        Variant("tanh", "you used tanh; a gate is a sigmoid, so that f is between 0 and 1 (a fraction of the cell to "
                        "keep).",
                lambda h, x, w, b: _forget(h, x, w, b, phi=torch.tanh)),
        Variant("no_sigmoid", "f has no sigmoid: f_t = sigmoid(w_f [h_(t-1); x_t] + b_f).",
                lambda h, x, w, b: _forget(h, x, w, b, phi=lambda a: a)),
        Variant("no_bias", "the bias b_f is missing: f_t = sigmoid(w_f [h_(t-1); x_t] + b_f).",
                lambda h, x, w, b: _forget(h, x, w, b, bias=False)),
        Variant("no_x", "your f ignores x_t: w_f acts on the concatenation [h_(t-1); x_t], both of them.",
                lambda h, x, w, b: _forget(h, x, w, b, use_x=False)),
        Variant("no_h", "your f ignores h_(t-1): w_f acts on the concatenation [h_(t-1); x_t], both of them.",
                lambda h, x, w, b: _forget(h, x, w, b, use_h=False)),
        Variant("x_first", "you concatenated [x_t; h_(t-1)]: the order is [h_(t-1); x_t], h first, so the first H "
                "columns of w_f multiply h_(t-1).", lambda h, x, w, b: _forget(h, x, w, b, x_first=True)),
    ]


_HINTS = {"b_f": "look at where you add the bias b_f: inside the sigmoid, f_t = sigmoid(w_f [h; x] + b_f)"}


def _random_forget_case(hidden: int, input_dim: int, seed: int, dtype: torch.dtype, device: torch.device):
    g = torch.Generator().manual_seed(seed)
    return (random_tensor((hidden,), dtype, device, g), random_tensor((input_dim,), dtype, device, g),
            random_tensor((hidden, hidden + input_dim), dtype, device, g), random_tensor((hidden,), dtype, device, g))


LARGE_GATE = "pre-activations +100, -100 and 0.5, float32"


def check_forget_gate(forget_gate: Callable, *, sizes: Sequence[tuple[int, int]] = ((3, 2),), seed: int = 0,
                      dtype: torch.dtype = torch.float32, device: Any = None) -> None:
    """The lecture's example exactly (float64), then random (H, D) cases against torch.sigmoid, then pre-activations
    of +-100 in float32 (where e^a / (1 + e^a) is nan)."""
    ex = "forget_gate"
    device = device_for_checks(device)
    s = slide_inputs()
    cases = [((s["h_prev"], s["x_t"], s["w_f"], s["b_f"]), "the slide's example, float64")]
    for number, (hidden, input_dim) in enumerate(sizes):
        cases.append((_random_forget_case(hidden, input_dim, seed + number, dtype, device),
                      f"H={hidden}, D={input_dim}"))
    h, x, w_f, _ = _random_forget_case(3, 2, seed, torch.float32, device)
    cases.append(((h, x, w_f * 0, torch.tensor([100.0, -100.0, 0.5], device=device)), LARGE_GATE))
    for inputs, case in cases:
        h, x, w_f, b_f = inputs
        expected = torch.sigmoid(w_f @ torch.cat([h, x]) + b_f)  # (H,)
        got = call_answer(ex, forget_gate, *(t.clone() for t in inputs))
        if (case == LARGE_GATE and isinstance(got, torch.Tensor) and got.shape == expected.shape
                and not bool(torch.isfinite(got).all())):
            raise AnswerError(ex, "with pre-activations of +100 and -100 (float32) your f is not finite: e^a / (1 + "
                                  "e^a) is inf / inf = nan once e^a overflows (e^89 already does in float32). Use "
                                  "torch.sigmoid(a), or 1 / (1 + torch.exp(-a)), which only underflows to 0.")
        compare_answer(ex, got, expected, inputs=inputs, variants=_forget_variants(), what="the returned f", case=case,
                       terms=Terms(axes=("hidden unit",), sizes={"H + D, the length of [h_prev; x_t]": len(h) + len(x),
                                                                 "H": len(h)}),
                       locate=lambda inputs=inputs: run_probes(
                           ex, forget_gate, _forget,
                           zeroed(("h_prev", "x_t", "w_f", "b_f"), inputs, only=("h_prev", "x_t", "b_f"),
                                  hints=_HINTS)))
    report_pass(ex, f"f = sigmoid(1.2) = {torch.sigmoid(torch.tensor(1.2, dtype=torch.float64)).item():.6f} "
                    f"for the slide, and equal to sigmoid(w_f [h; x] + b_f) for (H, D) in {list(sizes)}")


def _as_float64(ex: str, value: Any, name: str) -> torch.Tensor:
    """One number (a float, [x] or a one-element tensor) as a float64 tensor of shape (1,)."""
    return check_tensor(ex, as_float64(ex, value, None, name).reshape(-1), what=name, shape=(1,))


_TYPED = ("matches to four decimals but not exactly: compute it with your forget_gate instead of typing rounded "
          "numbers.")


def check_slide_example(f_slide: Any, c_slide: Any, *, exact: bool = False) -> None:
    """f_t and c'_t = f_t * c_(t-1) of the lecture's example; ``exact=True`` (hidden) demands full precision."""
    ex = "slide example"
    f = _as_float64(ex, f_slide, "f_slide")
    c = _as_float64(ex, c_slide, "c_slide")
    exact_f = torch.sigmoid(torch.tensor([1.2], dtype=torch.float64))
    exact_c = exact_f * 2.0

    def near(a, b):
        return bool(torch.allclose(a, torch.as_tensor(b, dtype=torch.float64).reshape(-1), atol=1e-4, rtol=0))

    for got, expected, name in ((f, exact_f, "f_slide"), (c, exact_c, "c_slide")):
        if near(got, expected):
            if exact and not torch.allclose(got, expected, atol=1e-9, rtol=0):
                raise AnswerError(ex, f"{name} {_TYPED}")
            continue
        t = torch.tensor
        mistakes = [(t(0.77) if name == "f_slide" else t(1.54),
                     f"{name} is the slide's rounded value; compute it exactly."),
                    (torch.tanh(t(1.2)) * (1 if name == "f_slide" else 2),
                     f"{name} uses tanh; the forget gate is a sigmoid."),
                    (torch.sigmoid(t(1.0)) * (1 if name == "f_slide" else 2),
                     f"{name} ignores x_t = 0.2: w_f acts on [h; x] = [1, 0.2]."),
                    (t(1.2) * (1 if name == "f_slide" else 2), f"{name} has no sigmoid: f = sigmoid(1.2).")]
        if name == "c_slide":
            mistakes += [(torch.sigmoid(t(2.2)) * 2, "c_slide used c_(t-1) = 2 instead of h_(t-1) = 1 in the "
                                                     "concatenation: the forget gate reads [h_(t-1); x_t]."),
                         (torch.sigmoid(t(2.2)), "c_slide is the forget gate of [c; x], not the cell: use h in the "
                                                 "gate and multiply f by c."),
                         (exact_f, "c_slide is f itself (f times h_prev = 1?): multiply by the old cell instead, c' = "
                                   "f * c_prev "
                                    "with c_prev = 2."),
                         (exact_f + 2, "c_slide adds f to the cell; the forget gate multiplies: c' = f * c_(t-1).")]
        for wrong, message in mistakes:
            if near(got, wrong):
                raise AnswerError(ex, message)
        formula = express(got.item(), {"f_t": exact_f.item(), "c_prev": 2.0, "h_prev": 1.0, "x_t": 0.2})
        if formula:
            right = "f_t" if name == "f_slide" else "f_t * c_prev"
            raise AnswerError(ex, f"{name} = {got.item():.6g} = {formula}, from the slide's numbers; it should be "
                                  f"{right} = {expected.item():.6f}.")
        source = ("your forget_gate gives f = sigmoid(1.2) wrongly (see its check above)" if name == "f_slide" else
                  "c' = f_t * c_(t-1) with c_(t-1) = 2")
        raise AnswerError(ex, f"{name} = {got.item():.6g} is not right: the correct value is about "
                              f"{expected.item():.2f}; {source}.")
    report_pass(ex, f"f = {exact_f.item():.6f} and c' = {exact_c.item():.6f}; the slide rounds them to 0.77 and 1.54")


# ---------------------------------------------------------------------------
# lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh) -> (h_t, c_t)


def random_lstm_weights(input_dim: int, hidden_dim: int, *, seed: int = 0, dtype: torch.dtype = torch.float32,
                        device: Any = None) -> dict[str, torch.Tensor]:
    """W_ih (4H, D), W_hh (4H, H), b_ih, b_hh (4H,) with N(0, 1/2) entries: large enough that every mistake shows."""
    g = torch.Generator().manual_seed(seed)
    device = device_for_checks(device)
    scale = 0.5 ** 0.5
    return {"W_ih": random_tensor((4 * hidden_dim, input_dim), dtype, device, g) * scale,
            "W_hh": random_tensor((4 * hidden_dim, hidden_dim), dtype, device, g) * scale,
            "b_ih": random_tensor((4 * hidden_dim,), dtype, device, g) * scale,
            "b_hh": random_tensor((4 * hidden_dim,), dtype, device, g) * scale}


def _torch_cell(p: dict[str, torch.Tensor]) -> nn.LSTMCell:
    hidden4, input_dim = p["W_ih"].shape
    cell = nn.LSTMCell(input_dim, hidden4 // 4).to(device=p["W_ih"].device, dtype=p["W_ih"].dtype)
    with torch.no_grad():
        for name in ("W_ih", "W_hh", "b_ih", "b_hh"):
            theirs = {"W_ih": "weight_ih", "W_hh": "weight_hh", "b_ih": "bias_ih", "b_hh": "bias_hh"}[name]
            getattr(cell, theirs).copy_(p[name])
    return cell


def _cell(x, h, c, W_ih, W_hh, b_ih, b_hh, *, order="ifgo", forget_h=False, g_phi=torch.tanh, bias_ih=True,
          bias_hh=True, squash_c=True, input_gate=True):
    """One LSTM step with plain tensor operations, correct or with one known mistake."""
    a = x @ W_ih.T + h @ W_hh.T + (b_ih if bias_ih else 0) + (b_hh if bias_hh else 0)
    blocks = dict(zip(order, a.chunk(4, dim=-1)))
    i, f, o = torch.sigmoid(blocks["i"]), torch.sigmoid(blocks["f"]), torch.sigmoid(blocks["o"])
    g = g_phi(blocks["g"])
    c_t = f * (h if forget_h else c) + (i * g if input_gate else g)
    h_t = o * (torch.tanh(c_t) if squash_c else c_t)
    return h_t, c_t


def _cell_variants() -> list[Variant]:
    def v(name, message, **mistake):
        return Variant(name, message, lambda *args: _cell(*args, **mistake))
    order = "PyTorch stacks the gates' rows in the order i, f, g, o (input, forget, candidate, output)"
    return [
        v("order_ifog", f"your gates are in the order i, f, o, g: {order}.", order="ifog"),
        v("order_figo", "your input and forget gates have each other's roles: either the rows were taken in the order "
          f"f, i, g, o ({order}), or i and f are swapped in the cell update (c_t = f * c_prev + i * g).",
          order="figo"),
        v("order_iofg", f"your gates are in the wrong order: {order}.", order="iofg"),
        v("order_fiog", f"your gates are in the wrong order: {order}.", order="fiog"),
        v("forget_h", "your forget gate multiplies h_prev; it acts on the old cell: c_t = f * c_prev + i * g.",
          forget_h=True),
        v("g_sigmoid", "your candidate g uses the sigmoid; the candidate cell content is tanh (only the gates i, f, o "
          "are sigmoids).", g_phi=torch.sigmoid),
        v("g_linear", "your candidate g has no tanh: g = tanh(W_ig x_t + b_ig + W_hg h_prev + b_hg).",
          g_phi=lambda a: a),
        v("no_b_hh", "the bias b_hh is missing: every gate adds both biases, b_ih and b_hh.", bias_hh=False),
        v("no_b_ih", "the bias b_ih is missing: every gate adds both biases, b_ih and b_hh.", bias_ih=False),
        v("no_bias", "both biases are missing: every gate adds b_ih and b_hh.", bias_ih=False, bias_hh=False),
        v("no_tanh_c", "h_t = o * c_t has no tanh: h_t = o * tanh(c_t).", squash_c=False),
        v("no_input_gate", "c_t = f * c_prev + g is missing the input gate: c_t = f * c_prev + i * g.",
          input_gate=False),
    ]


_GATES = {"i": "input gate", "f": "forget gate", "g": "candidate g", "o": "output gate"}


def _gates_held(inputs: tuple, held: dict[str, float]) -> tuple:
    """The same step with some gates held: their weights zero and their bias +-30, so sigmoid is 1 or 0 (tanh +-1)."""
    x, h, c, W_ih, W_hh, b_ih, b_hh = inputs
    W_ih, W_hh, b_ih, b_hh = W_ih.clone(), W_hh.clone(), b_ih.clone(), b_hh.clone()
    hidden = h.shape[-1]
    for gate, bias in held.items():
        rows = slice("ifgo".index(gate) * hidden, ("ifgo".index(gate) + 1) * hidden)
        W_ih[rows], W_hh[rows], b_ih[rows], b_hh[rows] = 0, 0, bias, 0
    return x, h, c, W_ih, W_hh, b_ih, b_hh


def _locate_by_gates(lstm_cell: Callable, inputs: tuple, part: int) -> Callable[[], str | None]:
    """Each gate in turn held open, then shut; and the cell kept as it is (forget gate open, input gate shut)."""
    def run() -> str | None:
        probes = [Probe("when the forget gate is open and the input gate shut (so c_t = c_prev)",
                        _gates_held(inputs, {"f": 30.0, "i": -30.0}),
                        hint="look at the new cell c_t and which cell goes into h_t = o * tanh(c_t)")]
        for gate in "ifo":
            for bias, state in ((30.0, "open"), (-30.0, "shut")):
                probes.append(Probe(f"when the {_GATES[gate]} is held {state}", _gates_held(inputs, {gate: bias}),
                                    hint=f"look at how the {_GATES[gate]} is used"))
        return run_probes("lstm_cell", lstm_cell, _cell, probes, pick=lambda r: r[part], banned=_LSTM_BUILTINS,
                          reason=WRITE_IT_YOURSELF)
    return run


def check_lstm_cell(lstm_cell: Callable, *, batch: int = 3, sizes: Sequence[tuple[int, int]] = ((4, 4), (3, 5)),
                    seed: int = 0, dtype: torch.dtype = torch.float32, device: Any = None) -> None:
    """Checks (h_t, c_t) against nn.LSTMCell with the same weights, for each (D, H) in ``sizes``, and that gradients
    flow back through the states to h_prev and c_prev."""
    ex = "lstm_cell"
    device = device_for_checks(device)
    for number, (input_dim, hidden) in enumerate(sizes):
        p = random_lstm_weights(input_dim, hidden, seed=seed + number, dtype=dtype, device=device)
        g = torch.Generator().manual_seed(seed + 100 + number)
        x_t = random_tensor((batch, input_dim), dtype, device, g)
        h_prev = random_tensor((batch, hidden), dtype, device, g)
        c_prev = random_tensor((batch, hidden), dtype, device, g) * 2
        with torch.no_grad():
            expected_h, expected_c = _torch_cell(p)(x_t, (h_prev, c_prev))
        inputs = (x_t, h_prev, c_prev, p["W_ih"], p["W_hh"], p["b_ih"], p["b_hh"])
        result = call_answer(ex, lstm_cell, *(t.clone() for t in inputs), banned=_LSTM_BUILTINS,
                             reason=WRITE_IT_YOURSELF)
        case = f"x_t {tuple(x_t.shape)}, h_prev and c_prev {tuple(h_prev.shape)}, D={input_dim}, H={hidden}"
        if isinstance(result, torch.Tensor):
            raise AnswerError(ex, f"you returned one tensor: return the pair (h_t, c_t){case_note(case)}.")
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise AnswerError(ex, f"should return a pair (h_t, c_t), not {describe_value(result)}.")
        h_t, c_t = result
        if isinstance(h_t, torch.Tensor) and isinstance(c_t, torch.Tensor) and h_t.shape == c_t.shape \
                and torch.allclose(h_t.detach().to(expected_c), expected_c, atol=1e-5) \
                and torch.allclose(c_t.detach().to(expected_h), expected_h, atol=1e-5):
            raise AnswerError(ex, "h_t and c_t are swapped: return (h_t, c_t), the hidden state "
                                  f"first{case_note(case)}.")
        variants = _cell_variants()
        terms = Terms(axes=("example", "hidden unit"))
        compare_answer(ex, h_t, expected_h, inputs=inputs, variants=variants, what="the returned h_t", case=case,
                       pick=lambda r: r[0], terms=terms, locate=_locate_by_gates(lstm_cell, inputs, 0))
        compare_answer(ex, c_t, expected_c, inputs=inputs, variants=variants, what="the returned c_t", case=case,
                       pick=lambda r: r[1], terms=terms, locate=_locate_by_gates(lstm_cell, inputs, 1))
    check_gradients_reach(ex, lstm_cell, _cell, inputs, {1: "h_prev", 2: "c_prev"}, banned=_LSTM_BUILTINS,
                          reason=WRITE_IT_YOURSELF, why=STATE_GRADIENTS)
    report_pass(ex, f"equals nn.LSTMCell for (D, H) in {list(sizes)}; gradients reach h_prev and c_prev")
