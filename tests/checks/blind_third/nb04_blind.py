"""Third blind set for notebook 04 (LSTM), written from the student notebook only."""
from blind_case import Blind

NOTEBOOK = "04_lstm"

_INPLACE = (("modif",), ("in place",), ("in-place",), ("mutat",), ("caller",), ("overwr",))


def _fg(body):
    return ('''def forget_gate(h_prev, x_t, w_f, b_f):
    """f_t = sigmoid(w_f [h_prev; x_t] + b_f): h_prev (H,), x_t (D,), w_f (H, H + D), b_f (H,) -> (H,)."""
''' + body)


_SLIDE_HEAD = '''h_prev, c_prev, x_t, w_f, b_f = (checks.slide_inputs()[k] for k in ("h_prev", "c_prev", "x_t", "w_f", "b_f"))
'''
_SLIDE_TAIL = '''print("f_t =", f_slide, " c'_t =", c_slide)
'''


def _slide(body):
    return _SLIDE_HEAD + body + _SLIDE_TAIL


def _cell(body):
    return ('''def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):
    """One LSTM step: x_t (B, D), h_prev and c_prev (B, H) -> (h_t, c_t), each (B, H). Gate order i, f, g, o."""
''' + body)


_GATES = '''    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, g, o = gates.chunk(4, dim=-1)
'''

BLIND = [
    # ---- forget_gate
    Blind(name="fg_tanh", cell="forget_gate", test_cell="check_forget_gate",
          source=_fg('''    return torch.tanh(w_f @ torch.cat([h_prev, x_t]) + b_f)
'''),
          mistake="uses tanh instead of the sigmoid for the gate",
          names_it=(("sigmoid",), ("between 0 and 1",), ("sigma",)),
          part="the forget gate's activation"),
    Blind(name="fg_hard_sigmoid", cell="forget_gate", test_cell="check_forget_gate",
          source=_fg('''    a = w_f @ torch.cat([h_prev, x_t]) + b_f
    return torch.clamp(0.2 * a + 0.5, 0.0, 1.0)       # fast sigmoid
'''),
          mistake="uses a hard (piecewise-linear) sigmoid instead of the logistic sigmoid",
          names_it=(("sigmoid",), ("sigma",), ("1 / (1 + e",)),
          part="the forget gate's activation"),
    Blind(name="fg_concat_order", cell="forget_gate", test_cell="check_forget_gate",
          source=_fg('''    return torch.sigmoid(w_f @ torch.cat([x_t, h_prev]) + b_f)
'''),
          mistake="concatenates [x_t; h_prev] instead of [h_prev; x_t] (the first H columns multiply h)",
          names_it=(("order",), ("concat",), ("first h columns",), ("[h_prev; x_t]",), ("h_prev", "first")),
          part="the order of the concatenation"),
    Blind(name="fg_no_bias", cell="forget_gate", test_cell="check_forget_gate",
          source=_fg('''    return torch.sigmoid(w_f @ torch.cat([h_prev, x_t]))
'''),
          mistake="leaves out b_f (the slide's bias is 0, so the slide still matches)",
          names_it=(("bias",), ("b_f",)),
          part="the bias"),
    Blind(name="fg_bias_in_place", cell="forget_gate", test_cell="check_forget_gate",
          source=_fg('''    b_f += w_f @ torch.cat([h_prev, x_t])
    return torch.sigmoid(b_f)
'''),
          mistake="accumulates the pre-activation into the caller's b_f in place; f_t is right once but the bias is changed",
          names_it=_INPLACE + (("changed", "b_f"), ("bias", "changed")),
          part="b_f changed in place"),
    Blind(name="fg_exp_ratio", cell="forget_gate", test_cell="check_forget_gate",
          source=_fg('''    a = w_f @ torch.cat([h_prev, x_t]) + b_f
    return torch.exp(a) / (1 + torch.exp(a))
'''),
          mistake="writes the sigmoid as e^a / (1 + e^a): for large pre-activations (a = 100 in float32) it gives nan",
          names_it=(("nan",), ("overflow",), ("large",), ("stable",), ("inf",)),
          part="the sigmoid's numerical form"),
    Blind(name="fg_column_shape", cell="forget_gate", test_cell="check_forget_gate",
          source=_fg('''    z = torch.cat([h_prev, x_t]).unsqueeze(1)         # a column vector, as on the slide
    return torch.sigmoid(w_f @ z + b_f.unsqueeze(1))
'''),
          mistake="returns an (H, 1) column instead of a vector of shape (H,)",
          names_it=(("shape",), ("(h,)",), ("(h, 1)",)),
          part="the output shape"),
    # ---- slide_example
    Blind(name="slide_typed_rounded", cell="slide_example", test_cell="check_slide_example",
          source=_slide('''f_slide = torch.tensor([0.77], dtype=torch.float64)
c_slide = torch.tensor([1.54], dtype=torch.float64)
'''),
          mistake="types the slide's rounded 0.77 and 1.54 instead of computing them",
          names_it=(("four decimals",), ("round",), ("comput",), ("0.7685",), ("exact",)),
          part="typed-in rounded values"),
    Blind(name="slide_c_added", cell="slide_example", test_cell="check_slide_example",
          source=_slide('''f_slide = forget_gate(h_prev, x_t, w_f, b_f)
c_slide = c_prev + f_slide
'''),
          mistake="adds the forget gate to the old cell instead of multiplying",
          names_it=(("multipl",), ("c_{t-1} * f_t",), ("c_prev * f",), ("c'_t",)),
          part="c'_t: + instead of *"),
    Blind(name="slide_c_rounded_f", cell="slide_example", test_cell="check_slide_example",
          source=_slide('''f_slide = forget_gate(h_prev, x_t, w_f, b_f)
c_slide = c_prev * 0.77
'''),
          mistake="multiplies the cell by the slide's rounded 0.77 instead of the computed f_t",
          names_it=(("four decimals",), ("round",), ("comput",), ("1.5370",), ("exact",)),
          part="c'_t from a rounded gate"),
    Blind(name="slide_c_times_x", cell="slide_example", test_cell="check_slide_example",
          source=_slide('''f_slide = forget_gate(h_prev, x_t, w_f, b_f)
c_slide = h_prev * f_slide
'''),
          mistake="multiplies the forget gate with h_{t-1} instead of the old cell c_{t-1}",
          names_it=(("c_prev",), ("c_{t-1}",), ("cell",)),
          part="which state the gate scales"),
    # ---- lstm_cell
    Blind(name="cell_gate_order_ifog", cell="lstm_cell", test_cell="check_lstm_cell",
          source=_cell('''    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, o, g = gates.chunk(4, dim=-1)
    c_t = torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g)
    h_t = torch.sigmoid(o) * torch.tanh(c_t)
    return h_t, c_t
'''),
          mistake="cuts the gates in the order i, f, o, g instead of PyTorch's i, f, g, o",
          names_it=(("order",), ("i, f, g, o",), ("block",), ("chunk",)),
          part="the gate layout"),
    Blind(name="cell_gates_interleaved", cell="lstm_cell", test_cell="check_lstm_cell",
          source=_cell('''    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, g, o = gates.view(gates.shape[0], -1, 4).unbind(-1)
    c_t = torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g)
    h_t = torch.sigmoid(o) * torch.tanh(c_t)
    return h_t, c_t
'''),
          mistake="splits the 4H pre-activations as interleaved (every 4th entry) instead of four consecutive blocks",
          names_it=(("block",), ("chunk",), ("interleav",), ("consecutive",), ("one under the other",), ("layout",)),
          part="the gate layout"),
    Blind(name="cell_g_sigmoid", cell="lstm_cell", test_cell="check_lstm_cell",
          source=_cell(_GATES + '''    i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.sigmoid(g), torch.sigmoid(o)
    c_t = f * c_prev + i * g
    h_t = o * torch.tanh(c_t)
    return h_t, c_t
'''),
          mistake="applies the sigmoid to the candidate g too; g uses tanh",
          names_it=(("tanh",), ("candidate",)),
          part="the candidate's activation"),
    Blind(name="cell_no_tanh_on_c", cell="lstm_cell", test_cell="check_lstm_cell",
          source=_cell(_GATES + '''    c_t = torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g)
    h_t = torch.sigmoid(o) * c_t
    return h_t, c_t
'''),
          mistake="h_t = o * c_t, without the tanh of the cell",
          names_it=(("tanh",), ("h_t",)),
          part="tanh(c_t) in h_t"),
    Blind(name="cell_c_squashed", cell="lstm_cell", test_cell="check_lstm_cell",
          source=_cell(_GATES + '''    c_t = torch.tanh(torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g))
    h_t = torch.sigmoid(o) * torch.tanh(c_t)
    return h_t, c_t
'''),
          mistake="squashes the new cell state with a tanh; the cell update is purely additive",
          names_it=(("c_t",), ("cell state",), ("additive",), ("tanh",)),
          part="the cell update"),
    Blind(name="cell_one_bias", cell="lstm_cell", test_cell="check_lstm_cell",
          source=_cell('''    gates = x_t @ W_ih.T + h_prev @ W_hh.T + b_ih
    i, f, g, o = gates.chunk(4, dim=-1)
    c_t = torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g)
    h_t = torch.sigmoid(o) * torch.tanh(c_t)
    return h_t, c_t
'''),
          mistake="adds only b_ih; both biases are added",
          names_it=(("b_hh",), ("bias",), ("both",)),
          part="the second bias"),
    Blind(name="cell_c_prev_in_place", cell="lstm_cell", test_cell="check_lstm_cell",
          source=_cell(_GATES + '''    c_prev.mul_(torch.sigmoid(f)).add_(torch.sigmoid(i) * torch.tanh(g))
    h_t = torch.sigmoid(o) * torch.tanh(c_prev)
    return h_t, c_prev
'''),
          mistake="updates the caller's c_prev in place and returns it as c_t",
          names_it=_INPLACE + (("changed", "c_prev"),),
          part="c_prev overwritten in place"),
    Blind(name="cell_returns_list", cell="lstm_cell", test_cell="check_lstm_cell",
          source=_cell(_GATES + '''    c_t = torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g)
    h_t = torch.sigmoid(o) * torch.tanh(c_t)
    return [h_t, c_t]
'''),
          mistake="returns a list [h_t, c_t] instead of the pair (tuple) asked for",
          names_it=(("tuple",), ("pair",)),
          part="the return type"),
    Blind(name="cell_swapped_return", cell="lstm_cell", test_cell="check_lstm_cell",
          source=_cell(_GATES + '''    c_t = torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g)
    h_t = torch.sigmoid(o) * torch.tanh(c_t)
    return c_t, h_t
'''),
          mistake="returns (c_t, h_t) instead of (h_t, c_t)",
          names_it=(("order",), ("(h_t, c_t)",), ("swap",)),
          part="the order of the returned pair"),
    Blind(name="cell_h_from_c_prev", cell="lstm_cell", test_cell="check_lstm_cell",
          source=_cell(_GATES + '''    c_t = torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g)
    h_t = torch.sigmoid(o) * torch.tanh(c_prev)
    return h_t, c_t
'''),
          mistake="h_t uses tanh of the old cell c_prev instead of the new c_t",
          names_it=(("c_t",), ("new cell",), ("h_t",)),
          part="which cell h_t reads"),
    Blind(name="cell_f_i_swapped", cell="lstm_cell", test_cell="check_lstm_cell",
          source=_cell(_GATES + '''    c_t = torch.sigmoid(i) * c_prev + torch.sigmoid(f) * torch.tanh(g)
    h_t = torch.sigmoid(o) * torch.tanh(c_t)
    return h_t, c_t
'''),
          mistake="the input gate scales the old cell and the forget gate the candidate (roles swapped)",
          names_it=(("forget",), ("input gate",), ("swap",)),
          part="the roles of f and i"),
    Blind(name="cell_detached", cell="lstm_cell", test_cell="check_lstm_cell",
          source=_cell(_GATES + '''    c_t = torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g)
    h_t = torch.sigmoid(o) * torch.tanh(c_t)
    return h_t.detach(), c_t.detach()
'''),
          mistake="detaches the new states, so no gradient flows through the step",
          names_it=(("gradient",), ("detach",), ("requires_grad",), ("grad_fn",), ("autograd",)),
          part="the states detached"),
]

ALTERNATIVES = {
    "explicit_blocks": {
        "forget_gate": _fg('''    H = h_prev.shape[0]
    a = w_f[:, :H] @ h_prev + w_f[:, H:] @ x_t + b_f
    return 1.0 / (1.0 + torch.exp(-a))
'''),
        "slide_example": _slide('''f_slide = forget_gate(h_prev, x_t, w_f, b_f)
c_slide = c_prev * f_slide
'''),
        "lstm_cell": _cell('''    H = h_prev.shape[1]
    pre = x_t @ W_ih.T + h_prev @ W_hh.T + b_ih + b_hh
    i = torch.sigmoid(pre[:, 0:H])
    f = torch.sigmoid(pre[:, H:2 * H])
    g = torch.tanh(pre[:, 2 * H:3 * H])
    o = torch.sigmoid(pre[:, 3 * H:4 * H])
    c_t = f * c_prev + i * g
    h_t = o * torch.tanh(c_t)
    return (h_t, c_t)
'''),
    },
    "functional_keywords": {
        "forget_gate": _fg('''    return torch.sigmoid(torch.nn.functional.linear(torch.cat((h_prev, x_t), dim=0), w_f, b_f))
'''),
        "slide_example": _slide('''f_slide = forget_gate(h_prev=h_prev, x_t=x_t, w_f=w_f, b_f=b_f)
c_slide = torch.mul(c_prev, f_slide)
'''),
        "lstm_cell": _cell('''    F = torch.nn.functional
    pre = F.linear(x_t, W_ih, b_ih) + F.linear(h_prev, W_hh, b_hh)
    i, f, g, o = torch.split(pre, h_prev.shape[-1], dim=-1)
    c_t = torch.addcmul(torch.sigmoid(f) * c_prev, torch.sigmoid(i), torch.tanh(g))
    return torch.sigmoid(o) * torch.tanh(c_t), c_t
'''),
    },
    "einsum_weights_split": {
        "forget_gate": _fg('''    z = torch.cat([h_prev, x_t])
    return torch.sigmoid(torch.einsum("hk,k->h", w_f, z) + b_f)
'''),
        "slide_example": _slide('''f_t = forget_gate(h_prev, x_t, w_f, b_f)
f_slide, c_slide = f_t, f_t * c_prev
'''),
        "lstm_cell": _cell('''    Wi, Wf, Wg, Wo = W_ih.chunk(4, dim=0)
    Ui, Uf, Ug, Uo = W_hh.chunk(4, dim=0)
    bi, bf, bg, bo = (b_ih + b_hh).chunk(4)
    i = torch.sigmoid(torch.einsum("bd,hd->bh", x_t, Wi) + torch.einsum("bk,hk->bh", h_prev, Ui) + bi)
    f = torch.sigmoid(torch.einsum("bd,hd->bh", x_t, Wf) + torch.einsum("bk,hk->bh", h_prev, Uf) + bf)
    g = torch.tanh(torch.einsum("bd,hd->bh", x_t, Wg) + torch.einsum("bk,hk->bh", h_prev, Ug) + bg)
    o = torch.sigmoid(torch.einsum("bd,hd->bh", x_t, Wo) + torch.einsum("bk,hk->bh", h_prev, Uo) + bo)
    c_t = f * c_prev + i * g
    h_t = o * torch.tanh(c_t)
    return h_t, c_t
'''),
    },
}
