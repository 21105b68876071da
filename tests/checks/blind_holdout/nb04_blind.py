"""Blind cases for 04_lstm: wrong answers and correct-but-different answers, written without reading the checks."""
from blind_case import Blind

NOTEBOOK = "04_lstm"

_FG_HEAD = '''def forget_gate(h_prev, x_t, w_f, b_f):
    """f_t = sigmoid(w_f [h_prev; x_t] + b_f): h_prev (H,), x_t (D,), w_f (H, H + D), b_f (H,) -> (H,)."""
'''

_SLIDE_HEAD = '''h_prev, c_prev, x_t, w_f, b_f = (checks.slide_inputs()[k] for k in ("h_prev", "c_prev", "x_t", "w_f", "b_f"))
'''
_SLIDE_TAIL = '''print("f_t =", f_slide, " c'_t =", c_slide)
'''

_LSTM_HEAD = '''def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):
    """One LSTM step: x_t (B, D), h_prev and c_prev (B, H) -> (h_t, c_t), each (B, H). Gate order i, f, g, o."""
'''


def _fg(body):
    return _FG_HEAD + body


def _slide(body):
    return _SLIDE_HEAD + body + _SLIDE_TAIL


def _lstm(body):
    return _LSTM_HEAD + body


BLIND = [
    # ---------------------------------------------------------------- forget_gate
    Blind(
        name="fg_concat_x_first",
        cell="forget_gate",
        source=_fg('''    z = torch.cat([x_t, h_prev])
    return torch.sigmoid(w_f @ z + b_f)
'''),
        test_cell="check_forget_gate",
        mistake="Concatenated [x_t; h_prev] instead of [h_prev; x_t], so the first H columns of w_f multiply x_t "
                "(invisible on the slide's all-ones w_f, wrong for H = 3, D = 2).",
        names_it=(("order",), ("concatenat",), ("x_t", "first"), ("swapped",), ("reversed",)),
    ),
    Blind(
        name="fg_tanh_instead_of_sigmoid",
        cell="forget_gate",
        source=_fg('''    z = torch.cat([h_prev, x_t])
    return torch.tanh(w_f @ z + b_f)
'''),
        test_cell="check_forget_gate",
        mistake="Used tanh instead of the sigmoid as the gate's nonlinearity.",
        names_it=(("tanh",), ("between 0 and 1",), ("negative",)),
    ),
    Blind(
        name="fg_manual_sigmoid_sign",
        cell="forget_gate",
        source=_fg('''    a = w_f @ torch.cat([h_prev, x_t]) + b_f
    return 1 / (1 + torch.exp(a))
'''),
        test_cell="check_forget_gate",
        mistake="Wrote the sigmoid by hand as 1 / (1 + exp(a)), dropping the minus sign: this is sigmoid(-a) = 1 - f_t.",
        names_it=(("1 -",), ("sign",), ("sigmoid(-",), ("minus",), ("flipped",)),
    ),
    Blind(
        name="fg_bias_subtracted",
        cell="forget_gate",
        source=_fg('''    z = torch.cat([h_prev, x_t])
    return torch.sigmoid(w_f @ z - b_f)
'''),
        test_cell="check_forget_gate",
        mistake="Subtracted the bias b_f instead of adding it (invisible on the slide where b_f = 0).",
        names_it=(("bias",), ("b_f",)),
    ),
    Blind(
        name="fg_forgot_x_t",
        cell="forget_gate",
        source=_fg('''    H = h_prev.shape[0]
    return torch.sigmoid(w_f[:, :H] @ h_prev + b_f)
'''),
        test_cell="check_forget_gate",
        mistake="Only multiplied h_prev by its H columns of w_f and left out the x_t part (the last D columns).",
        names_it=(("x_t",), ("last d",), ("input x",)),
    ),
    Blind(
        name="fg_sum_wrong_axis",
        cell="forget_gate",
        source=_fg('''    z = torch.cat([h_prev, x_t])
    return torch.sigmoid((w_f * z).sum(dim=0) + b_f.sum())
'''),
        test_cell="check_forget_gate",
        mistake="Wrote the product as an elementwise multiply and sum but summed over the rows (dim 0) instead of the "
                "columns (dim 1), so f_t has H + D entries instead of H (and the bias was summed to a scalar).",
        names_it=(("shape",), ("axis",), ("dim",), ("size",)),
    ),
    Blind(
        name="fg_cast_float32",
        cell="forget_gate",
        source=_fg('''    z = torch.cat([h_prev, x_t]).float()
    return torch.sigmoid(w_f.float() @ z + b_f.float())
'''),
        test_cell="check_forget_gate",
        mistake="Cast everything to float32 with .float(), so float64 inputs come back as float32 (precision lost).",
        names_it=(("float64",), ("dtype",), ("float32",)),
    ),
    # ---------------------------------------------------------------- slide_example
    Blind(
        name="slide_rounded_two_decimals",
        cell="slide_example",
        source=_slide('''f_slide = torch.round(forget_gate(h_prev, x_t, w_f, b_f), decimals=2)
c_slide = c_prev * f_slide
'''),
        test_cell="check_slide_example",
        mistake="Rounded f_t to the slide's two decimals (0.77), so c'_t = 1.54 instead of 1.537050.",
        names_it=(("round",), ("0.77",), ("1.54",), ("two decimals",)),
    ),
    Blind(
        name="slide_cell_added",
        cell="slide_example",
        source=_slide('''f_slide = forget_gate(h_prev, x_t, w_f, b_f)
c_slide = c_prev + f_slide
'''),
        test_cell="check_slide_example",
        mistake="Added the forget gate to the old cell (c + f) instead of multiplying c_{t-1} * f_t.",
        names_it=(("added",), ("adds",), ("plus",), ("+ f",), ("multipl",)),
    ),
    Blind(
        name="slide_one_minus_f",
        cell="slide_example",
        source=_slide('''f_slide = forget_gate(h_prev, x_t, w_f, b_f)
c_slide = c_prev * (1 - f_slide)  # the part that is forgotten is removed
'''),
        test_cell="check_slide_example",
        mistake="Scaled the old cell by 1 - f_t (read f_t as the fraction forgotten) instead of by f_t (the fraction kept).",
        names_it=(("1 -",), ("1-f",), ("kept", "forgotten")),
    ),
    Blind(
        name="slide_c_prev_as_h_prev",
        cell="slide_example",
        source=_slide('''f_slide = forget_gate(c_prev, x_t, w_f, b_f)
c_slide = c_prev * f_slide
'''),
        test_cell="check_slide_example",
        mistake="Passed the old cell c_prev to forget_gate where the old hidden state h_prev belongs "
                "(the gate reads [h_{t-1}; x_t], not [c_{t-1}; x_t]).",
        names_it=(("c_prev", "instead"), ("cell state", "instead"), ("h_prev", "instead"), ("2.2",)),
    ),
    Blind(
        name="slide_times_h_prev",
        cell="slide_example",
        source=_slide('''f_slide = forget_gate(h_prev, x_t, w_f, b_f)
c_slide = h_prev * f_slide
'''),
        test_cell="check_slide_example",
        mistake="Multiplied the forget gate by h_prev (= 1) instead of the old cell c_prev (= 2), so c'_t equals f_t.",
        names_it=(("h_prev", "instead"), ("c_prev", "not"), ("equals f",), ("same as f",), ("c_prev", "multipl"), ("half",), ("factor 2",)),
    ),
    Blind(
        name="slide_preactivation",
        cell="slide_example",
        source=_slide('''a = w_f @ torch.cat([h_prev, x_t]) + b_f  # w_f [h, x] + b = 1.2
f_slide = a
c_slide = c_prev * forget_gate(h_prev, x_t, w_f, b_f)
'''),
        test_cell="check_slide_example",
        mistake="Set f_slide to the pre-activation w_f[h; x] + b_f = 1.2 (the slide's first line) instead of sigma(1.2).",
        names_it=(("sigmoid",), ("σ",), ("pre-activation",), ("preactivation",), ("before the",)),
    ),
    # ---------------------------------------------------------------- lstm_cell
    Blind(
        name="lstm_gate_order_ifog",
        cell="lstm_cell",
        source=_lstm('''    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, o, g = gates.chunk(4, dim=-1)  # i, f, o, g as in the paper
    i, f, o, g = torch.sigmoid(i), torch.sigmoid(f), torch.sigmoid(o), torch.tanh(g)
    c_t = f * c_prev + i * g
    h_t = o * torch.tanh(c_t)
    return h_t, c_t
'''),
        test_cell="check_lstm_cell",
        mistake="Cut the stacked gates in the order i, f, o, g instead of PyTorch's i, f, g, o, so the candidate and "
                "the output gate are swapped.",
        names_it=(("order",), ("i, f, g, o",), ("ifgo",), ("candidate", "output", "swapped"), ("g_t", "o_t")),
    ),
    Blind(
        name="lstm_h_without_tanh",
        cell="lstm_cell",
        source=_lstm('''    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, g, o = gates.chunk(4, dim=-1)
    i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
    c_t = f * c_prev + i * g
    h_t = o * c_t
    return h_t, c_t
'''),
        test_cell="check_lstm_cell",
        mistake="Wrote h_t = o_t * c_t, forgetting the tanh of the cell.",
        names_it=(("tanh", "h_t"), ("tanh(c",), ("tanh", "cell")),
    ),
    Blind(
        name="lstm_h_from_old_cell",
        cell="lstm_cell",
        source=_lstm('''    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, g, o = gates.chunk(4, dim=-1)
    i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
    h_t = o * torch.tanh(c_prev)
    c_t = f * c_prev + i * g
    return h_t, c_t
'''),
        test_cell="check_lstm_cell",
        mistake="Computed h_t from the old cell, o * tanh(c_prev), before updating the cell, instead of from the new c_t.",
        names_it=(("c_prev",), ("old cell",), ("previous cell",), ("c_(t-1)",), ("c_{t-1}",), ("new cell",)),
    ),
    Blind(
        name="lstm_one_bias",
        cell="lstm_cell",
        source=_lstm('''    gates = x_t @ W_ih.T + h_prev @ W_hh.T + b_ih
    i, f, g, o = gates.chunk(4, dim=-1)
    i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
    c_t = f * c_prev + i * g
    h_t = o * torch.tanh(c_t)
    return h_t, c_t
'''),
        test_cell="check_lstm_cell",
        mistake="Added only b_ih and left out the second bias b_hh (PyTorch adds both).",
        names_it=(("b_hh",), ("both biases",), ("second bias",), ("one bias",), ("bias", "missing"), ("bias", "only")),
    ),
    Blind(
        name="lstm_sigmoid_candidate",
        cell="lstm_cell",
        source=_lstm('''    gates = torch.sigmoid(x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh)  # all gates are sigmoids
    i, f, g, o = gates.chunk(4, dim=-1)
    c_t = f * c_prev + i * g
    h_t = o * torch.tanh(c_t)
    return h_t, c_t
'''),
        test_cell="check_lstm_cell",
        mistake="Applied the sigmoid to all four blocks, including the candidate g, which takes tanh.",
        names_it=(("candidate",), ("g_t",), ("tanh", "gate g"), ("g block",)),
    ),
    Blind(
        name="lstm_i_f_swapped_in_cell",
        cell="lstm_cell",
        source=_lstm('''    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, g, o = gates.chunk(4, dim=-1)
    i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
    c_t = i * c_prev + f * g
    h_t = o * torch.tanh(c_t)
    return h_t, c_t
'''),
        test_cell="check_lstm_cell",
        mistake="Swapped the roles of the input and forget gates in the cell update: c_t = i * c_prev + f * g.",
        names_it=(("input", "forget"), ("i_t", "f_t"), ("i and f",)),
    ),
    Blind(
        name="lstm_forgot_input_gate",
        cell="lstm_cell",
        source=_lstm('''    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, g, o = gates.chunk(4, dim=-1)
    f, g, o = torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
    c_t = f * c_prev + g
    h_t = o * torch.tanh(c_t)
    return h_t, c_t
'''),
        test_cell="check_lstm_cell",
        mistake="Added the candidate g to the cell without multiplying it by the input gate i.",
        names_it=(("input gate",), ("i_t",), ("i *",), ("i_t * g",)),
    ),
    Blind(
        name="lstm_returns_c_then_h",
        cell="lstm_cell",
        source=_lstm('''    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, g, o = gates.chunk(4, dim=-1)
    i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
    c_t = f * c_prev + i * g
    h_t = o * torch.tanh(c_t)
    return c_t, h_t
'''),
        test_cell="check_lstm_cell",
        mistake="Returned the pair in the wrong order, (c_t, h_t) instead of (h_t, c_t).",
        names_it=(("order",), ("swapped",), ("(h_t, c_t)",), ("reversed",), ("c_t", "first")),
    ),
]


ALTERNATIVES = {
    "split_weights_keywords": {
        "forget_gate": _fg('''    H = h_prev.shape[0]
    pre = torch.matmul(w_f[:, :H], h_prev) + torch.matmul(w_f[:, H:], x_t) + b_f
    return torch.sigmoid(input=pre)
'''),
        "slide_example": _slide('''f_slide = forget_gate(h_prev=h_prev, x_t=x_t, w_f=w_f, b_f=b_f)
c_slide = torch.mul(f_slide, c_prev)
'''),
        "lstm_cell": _lstm('''    H = h_prev.shape[-1]
    pre = nn.functional.linear(x_t, W_ih, b_ih) + nn.functional.linear(h_prev, W_hh, b_hh)
    i = torch.sigmoid(pre[:, 0 * H:1 * H])
    f = torch.sigmoid(pre[:, 1 * H:2 * H])
    g = torch.tanh(pre[:, 2 * H:3 * H])
    o = torch.sigmoid(pre[:, 3 * H:4 * H])
    c_t = torch.addcmul(f * c_prev, i, g)
    h_t = o * c_t.tanh()
    return (h_t, c_t)
'''),
    },
    "explicit_loops": {
        "forget_gate": _fg('''    z = torch.cat((h_prev, x_t), dim=0)
    rows = []
    for j in range(w_f.shape[0]):
        s = b_f[j]
        for k in range(z.shape[0]):
            s = s + w_f[j, k] * z[k]
        rows.append(1.0 / (1.0 + torch.exp(-s)))
    return torch.stack(rows)
'''),
        "slide_example": _slide('''f_slide = forget_gate(h_prev, x_t, w_f, b_f)
c_slide = torch.stack([c_prev[j] * f_slide[j] for j in range(len(c_prev))])
'''),
        "lstm_cell": _lstm('''    H = h_prev.shape[1]
    def gate(k, act):
        W_x, W_h = W_ih[k * H:(k + 1) * H], W_hh[k * H:(k + 1) * H]
        b = b_ih[k * H:(k + 1) * H] + b_hh[k * H:(k + 1) * H]
        return act(x_t @ W_x.T + h_prev @ W_h.T + b)
    i = gate(0, torch.sigmoid)
    f = gate(1, torch.sigmoid)
    g = gate(2, torch.tanh)
    o = gate(3, torch.sigmoid)
    c_t = f * c_prev + i * g
    h_t = o * torch.tanh(c_t)
    return h_t, c_t
'''),
    },
    "numpy_and_einsum": {
        "forget_gate": _fg('''    import numpy as np
    z = np.concatenate([h_prev.detach().cpu().numpy(), x_t.detach().cpu().numpy()])
    a = w_f.detach().cpu().numpy() @ z + b_f.detach().cpu().numpy()
    return torch.from_numpy(1.0 / (1.0 + np.exp(-a))).to(device=h_prev.device, dtype=h_prev.dtype)
'''),
        "slide_example": _slide('''f_slide = forget_gate(h_prev, x_t, w_f, b_f)
c_slide = f_slide * c_prev
c_slide = c_slide.clone()
'''),
        "lstm_cell": _lstm('''    hx = torch.cat([x_t, h_prev], dim=1)                 # (B, D + H)
    W = torch.cat([W_ih, W_hh], dim=1)                    # (4H, D + H)
    a = torch.einsum("bk,gk->bg", hx, W) + (b_ih + b_hh)  # (B, 4H)
    a_i, a_f, a_g, a_o = torch.split(a, h_prev.shape[-1], dim=-1)
    c_t = torch.sigmoid(a_f) * c_prev + torch.sigmoid(a_i) * torch.tanh(a_g)
    h_t = torch.sigmoid(a_o) * torch.tanh(c_t)
    return h_t, c_t
'''),
    },
    "sigmoid_via_tanh_and_logaddexp": {
        "forget_gate": _fg('''    a = torch.cat([h_prev, x_t]) @ w_f.T + b_f
    return 0.5 * (1 + torch.tanh(a / 2))   # sigmoid(a) = (1 + tanh(a/2)) / 2
'''),
        "lstm_cell": _lstm('''    gates = (W_ih @ x_t.T).T + (W_hh @ h_prev.T).T + b_ih + b_hh
    i, f, g, o = torch.chunk(gates, chunks=4, dim=1)
    sig = lambda v: torch.exp(-torch.logaddexp(torch.zeros_like(v), -v))
    c_t = sig(f) * c_prev + sig(i) * torch.tanh(g)
    return sig(o) * torch.tanh(c_t), c_t
'''),
    },
}
