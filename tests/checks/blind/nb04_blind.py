"""Blind cases for 04_lstm: student slips and correct-but-different answers (written without reading the checks)."""
from blind_case import Blind

NOTEBOOK = "04_lstm"

_FG_HEAD = '''def forget_gate(h_prev, x_t, w_f, b_f):
    """f_t = sigmoid(w_f [h_prev; x_t] + b_f): h_prev (H,), x_t (D,), w_f (H, H + D), b_f (H,) -> (H,)."""
'''
_SLIDE_HEAD = '''h_prev, c_prev, x_t, w_f, b_f = (checks.slide_inputs()[k] for k in ("h_prev", "c_prev", "x_t", "w_f", "b_f"))
'''
_SLIDE_TAIL = '''print("f_t =", f_slide, " c'_t =", c_slide)
'''
_LC_HEAD = '''def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):
    """One LSTM step: x_t (B, D), h_prev and c_prev (B, H) -> (h_t, c_t), each (B, H). Gate order i, f, g, o."""
'''

BLIND = [
    # ---------------------------------------------------------------- forget_gate
    Blind(
        name="fg_concat_order_x_first",
        cell="forget_gate",
        source=_FG_HEAD + '''    z = torch.cat([x_t, h_prev])
    return torch.sigmoid(w_f @ z + b_f)
''',
        test_cell="check_forget_gate",
        mistake="Concatenated [x_t; h_prev] instead of [h_prev; x_t], so the first H columns of w_f multiply the "
                "input instead of h_{t-1} (invisible in the slide's example, where all weights are 1).",
        names_it=(("order",), ("h_prev", "first"), ("h_{t-1}", "first"), ("concatenat",), ("columns",), ("swapped",)),
    ),
    Blind(
        name="fg_no_bias",
        cell="forget_gate",
        source=_FG_HEAD + '''    z = torch.cat([h_prev, x_t])
    return torch.sigmoid(w_f @ z)
''',
        test_cell="check_forget_gate",
        mistake="Left out the bias b_f (the slide's b_f is 0, so only the H = 3 case shows it).",
        names_it=(("bias",), ("b_f",)),
    ),
    Blind(
        name="fg_bias_outside_sigmoid",
        cell="forget_gate",
        source=_FG_HEAD + '''    z = torch.cat([h_prev, x_t])
    return torch.sigmoid(w_f @ z) + b_f
''',
        test_cell="check_forget_gate",
        mistake="Added the bias after the sigmoid instead of inside it: sigmoid(w z) + b rather than sigmoid(w z + b).",
        names_it=(("bias", "inside"), ("bias", "before"), ("bias", "after"), ("b_f", "inside"), ("b_f", "before"),
                  ("b_f", "after"), ("bias", "outside"), ("b_f", "outside")),
    ),
    Blind(
        name="fg_manual_sigmoid_sign",
        cell="forget_gate",
        source=_FG_HEAD + '''    z = w_f @ torch.cat([h_prev, x_t]) + b_f
    return 1 / (1 + torch.exp(z))
''',
        test_cell="check_forget_gate",
        mistake="Wrote the sigmoid by hand as 1 / (1 + exp(z)), dropping the minus sign: this is sigmoid(-z) = 1 - f_t.",
        names_it=(("sign",), ("minus",), ("exp(-",), ("1 - f",), ("sigmoid(-",), ("negat",)),
    ),
    Blind(
        name="fg_tanh_instead_of_sigmoid",
        cell="forget_gate",
        source=_FG_HEAD + '''    z = torch.cat([h_prev, x_t])
    return torch.tanh(w_f @ z + b_f)
''',
        test_cell="check_forget_gate",
        mistake="Used tanh (the candidate's nonlinearity) instead of the sigmoid for the gate.",
        names_it=(("tanh",), ("sigmoid", "not"), ("between 0 and 1",)),
    ),
    Blind(
        name="fg_float32_cast",
        cell="forget_gate",
        source=_FG_HEAD + '''    z = torch.cat([h_prev, x_t]).float()
    return torch.sigmoid(w_f.float() @ z + b_f.float())
''',
        test_cell="check_forget_gate",
        mistake="Cast everything to float32 with .float() (to avoid a dtype error), so a float64 input comes back "
                "as float32 and loses precision.",
        names_it=(("float64",), ("float32",), ("dtype",), ("precision",)),
    ),
    Blind(
        name="fg_sum_wrong_axis",
        cell="forget_gate",
        source=_FG_HEAD + '''    z = torch.cat([h_prev, x_t])
    return torch.sigmoid((w_f * z).sum(dim=0) + b_f.sum())
''',
        test_cell="check_forget_gate",
        mistake="Wrote the matrix-vector product as an elementwise product summed over dim 0 (the rows) instead of "
                "dim 1 (the columns), returning H + D numbers instead of H.",
        names_it=(("shape",), ("(h,)",), ("axis",), ("dim",), ("size",)),
    ),
    # ---------------------------------------------------------------- slide_example
    Blind(
        name="slide_typed_rounded",
        cell="slide_example",
        source=_SLIDE_HEAD + '''f_slide = torch.tensor([0.77], dtype=torch.float64)
c_slide = c_prev * f_slide
''' + _SLIDE_TAIL,
        test_cell="check_slide_example",
        mistake="Typed in the slide's rounded f_t = 0.77 instead of computing it with forget_gate (0.768525).",
        names_it=(("round",), ("0.77",), ("0.768525",), ("typed",), ("four decimals",), ("forget_gate",)),
    ),
    Blind(
        name="slide_add_instead_of_multiply",
        cell="slide_example",
        source=_SLIDE_HEAD + '''f_slide = forget_gate(h_prev, x_t, w_f, b_f)
c_slide = c_prev + f_slide
''' + _SLIDE_TAIL,
        test_cell="check_slide_example",
        mistake="Added the forget gate to the old cell (c + f) instead of multiplying (c * f).",
        names_it=(("multipl",), ("times",), ("c_{t-1} * f",), ("c_prev * f",), ("added",)),
    ),
    Blind(
        name="slide_one_minus_f",
        cell="slide_example",
        source=_SLIDE_HEAD + '''f_slide = forget_gate(h_prev, x_t, w_f, b_f)
c_slide = c_prev * (1 - f_slide)  # f is how much is forgotten
''' + _SLIDE_TAIL,
        test_cell="check_slide_example",
        mistake="Read the forget gate as the fraction forgotten and kept (1 - f_t) of the cell; f_t is the fraction kept.",
        names_it=(("1 - f",), ("kept",), ("keep",), ("(1 -",), ("fraction", "forgot")),
    ),
    Blind(
        name="slide_h_instead_of_c",
        cell="slide_example",
        source=_SLIDE_HEAD + '''f_slide = forget_gate(h_prev, x_t, w_f, b_f)
c_slide = h_prev * f_slide
''' + _SLIDE_TAIL,
        test_cell="check_slide_example",
        mistake="Multiplied the forget gate with h_prev instead of the old cell state c_prev.",
        names_it=(("c_prev",), ("c_{t-1}",), ("h_prev",), ("cell state",), ("old cell",)),
    ),
    Blind(
        name="slide_tanh_on_cell",
        cell="slide_example",
        source=_SLIDE_HEAD + '''f_slide = forget_gate(h_prev, x_t, w_f, b_f)
c_slide = torch.tanh(c_prev * f_slide)
''' + _SLIDE_TAIL,
        test_cell="check_slide_example",
        mistake="Squashed the forgotten cell with tanh (mixing it up with h_t = o * tanh(c_t)); c'_t is just c_{t-1} * f_t.",
        names_it=(("tanh",), ("squash",), ("nonlinearit",)),
    ),
    # ---------------------------------------------------------------- lstm_cell
    Blind(
        name="lc_gate_order_ifog",
        cell="lstm_cell",
        source=_LC_HEAD + '''    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, o, g = gates.chunk(4, dim=-1)
    i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
    c_t = f * c_prev + i * g
    h_t = o * torch.tanh(c_t)
    return h_t, c_t
''',
        test_cell="check_lstm_cell",
        mistake="Unpacked the chunks in the order i, f, o, g (as in some textbooks) instead of PyTorch's i, f, g, o, "
                "so the candidate and output gate blocks are swapped.",
        names_it=(("order",), ("i, f, g, o",), ("ifgo",), ("swapped",), ("output gate", "candidate")),
    ),
    Blind(
        name="lc_missing_b_hh",
        cell="lstm_cell",
        source=_LC_HEAD + '''    gates = x_t @ W_ih.T + h_prev @ W_hh.T + b_ih
    i, f, g, o = gates.chunk(4, dim=-1)
    c_t = torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g)
    h_t = torch.sigmoid(o) * torch.tanh(c_t)
    return h_t, c_t
''',
        test_cell="check_lstm_cell",
        mistake="Added only one of the two biases (b_ih) and forgot b_hh; PyTorch adds both.",
        names_it=(("b_hh",), ("both", "bias"), ("second bias",), ("two biases",), ("one bias",)),
    ),
    Blind(
        name="lc_h_without_tanh",
        cell="lstm_cell",
        source=_LC_HEAD + '''    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, g, o = gates.chunk(4, dim=-1)
    i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
    c_t = f * c_prev + i * g
    h_t = o * c_t
    return h_t, c_t
''',
        test_cell="check_lstm_cell",
        mistake="Computed h_t = o * c_t, forgetting the tanh on the cell state.",
        names_it=(("tanh(c",), ("tanh", "h_t"), ("tanh", "cell"), ("tanh", "hidden")),
    ),
    Blind(
        name="lc_h_from_old_cell",
        cell="lstm_cell",
        source=_LC_HEAD + '''    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, g, o = gates.chunk(4, dim=-1)
    i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
    h_t = o * torch.tanh(c_prev)
    c_t = f * c_prev + i * g
    return h_t, c_t
''',
        test_cell="check_lstm_cell",
        mistake="Computed h_t before updating the cell, from tanh(c_prev) instead of tanh(c_t) (order of operations).",
        names_it=(("c_prev",), ("old cell",), ("new cell",), ("updated cell",), ("c_{t-1}",), ("tanh(c_t)",)),
    ),
    Blind(
        name="lc_sigmoid_candidate",
        cell="lstm_cell",
        source=_LC_HEAD + '''    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, g, o = torch.sigmoid(gates).chunk(4, dim=-1)
    c_t = f * c_prev + i * g
    h_t = o * torch.tanh(c_t)
    return h_t, c_t
''',
        test_cell="check_lstm_cell",
        mistake="Applied the sigmoid to all four blocks at once, so the candidate g got a sigmoid instead of tanh.",
        names_it=(("candidate",), ("g_t",), ("tanh", "gate g"), ("tanh", "g block")),
    ),
    Blind(
        name="lc_no_input_gate",
        cell="lstm_cell",
        source=_LC_HEAD + '''    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, g, o = gates.chunk(4, dim=-1)
    f, g, o = torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
    c_t = f * c_prev + g
    h_t = o * torch.tanh(c_t)
    return h_t, c_t
''',
        test_cell="check_lstm_cell",
        mistake="Wrote c_t = f * c_prev + g, forgetting to scale the candidate by the input gate i.",
        names_it=(("input gate",), ("i_t",), ("i *",), ("i ⊙",), ("i_t * g",)),
    ),
    Blind(
        name="lc_gates_roles_swapped",
        cell="lstm_cell",
        source=_LC_HEAD + '''    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, g, o = gates.chunk(4, dim=-1)
    i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
    c_t = i * c_prev + f * g
    h_t = o * torch.tanh(c_t)
    return h_t, c_t
''',
        test_cell="check_lstm_cell",
        mistake="Swapped the roles of the input and forget gates: c_t = i * c_prev + f * g instead of f * c_prev + i * g.",
        names_it=(("forget", "input", "swap"), ("f * c",), ("f_t", "c_{t-1}"), ("forget gate", "old cell"),
                  ("forget", "c_prev"), ("swapped",)),
    ),
    Blind(
        name="lc_return_order",
        cell="lstm_cell",
        source=_LC_HEAD + '''    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, g, o = gates.chunk(4, dim=-1)
    i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
    c_t = f * c_prev + i * g
    h_t = o * torch.tanh(c_t)
    return c_t, h_t
''',
        test_cell="check_lstm_cell",
        mistake="Returned (c_t, h_t) instead of (h_t, c_t).",
        names_it=(("order",), ("(h_t, c_t)",), ("swapped",), ("h_t", "first")),
    ),
    Blind(
        name="lc_float32_buffers",
        cell="lstm_cell",
        source=_LC_HEAD + '''    B, H = h_prev.shape
    h_t = torch.zeros(B, H)
    c_t = torch.zeros(B, H)
    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    for k in range(H):
        i = torch.sigmoid(gates[:, k])
        f = torch.sigmoid(gates[:, H + k])
        g = torch.tanh(gates[:, 2 * H + k])
        o = torch.sigmoid(gates[:, 3 * H + k])
        c_t[:, k] = f * c_prev[:, k] + i * g
        h_t[:, k] = o * torch.tanh(c_t[:, k])
    return h_t, c_t
''',
        test_cell="check_lstm_cell",
        mistake="Preallocated the outputs with torch.zeros(B, H) (float32 by default) and filled them in a loop, "
                "so float64 inputs come back as float32.",
        names_it=(("float64",), ("float32",), ("dtype",), ("precision",)),
    ),
]

ALTERNATIVES = {
    "explicit_pieces": {
        "forget_gate": _FG_HEAD + '''    H = h_prev.shape[0]
    a = w_f[:, :H] @ h_prev + w_f[:, H:] @ x_t + b_f
    return 1.0 / (1.0 + torch.exp(-a))
''',
        "slide_example": _SLIDE_HEAD + '''f_slide = forget_gate(h_prev=h_prev, x_t=x_t, w_f=w_f, b_f=b_f)
c_slide = f_slide * c_prev
''' + _SLIDE_TAIL,
        "lstm_cell": _LC_HEAD + '''    H = h_prev.shape[-1]

    def pre(k):
        rows = slice(k * H, (k + 1) * H)
        return x_t @ W_ih[rows].T + b_ih[rows] + h_prev @ W_hh[rows].T + b_hh[rows]

    i_t = torch.sigmoid(pre(0))
    f_t = torch.sigmoid(pre(1))
    g_t = torch.tanh(pre(2))
    o_t = torch.sigmoid(pre(3))
    c_t = f_t * c_prev + i_t * g_t
    h_t = o_t * torch.tanh(c_t)
    return h_t, c_t
''',
    },
    "loops_and_numpy": {
        "forget_gate": _FG_HEAD + '''    import numpy as np
    z = np.concatenate([h_prev.detach().cpu().numpy(), x_t.detach().cpu().numpy()])
    W = w_f.detach().cpu().numpy()
    b = b_f.detach().cpu().numpy()
    out = np.empty(W.shape[0], dtype=W.dtype)
    for r in range(W.shape[0]):
        a = b[r]
        for col in range(W.shape[1]):
            a = a + W[r, col] * z[col]
        out[r] = 1.0 / (1.0 + np.exp(-a))
    return torch.from_numpy(out).to(w_f.device)
''',
        "slide_example": _SLIDE_HEAD + '''f_slide = forget_gate(h_prev, x_t, w_f, b_f)
c_slide = torch.mul(c_prev, f_slide)
''' + _SLIDE_TAIL,
        "lstm_cell": _LC_HEAD + '''    hs, cs = [], []
    H = h_prev.shape[1]
    for b in range(x_t.shape[0]):
        a = W_ih @ x_t[b] + W_hh @ h_prev[b] + (b_ih + b_hh)
        i, f, g, o = a[:H], a[H:2 * H], a[2 * H:3 * H], a[3 * H:]
        c = torch.sigmoid(f) * c_prev[b] + torch.sigmoid(i) * torch.tanh(g)
        hs.append(torch.sigmoid(o) * torch.tanh(c))
        cs.append(c)
    return torch.stack(hs), torch.stack(cs)
''',
    },
    "stacked_and_functional": {
        "forget_gate": _FG_HEAD + '''    z = torch.cat((h_prev, x_t), dim=0)
    return torch.sigmoid(torch.nn.functional.linear(z, w_f, b_f))
''',
        "slide_example": _SLIDE_HEAD + '''f_slide = forget_gate(h_prev, x_t, w_f, b_f)
c_slide = c_prev * f_slide
''' + _SLIDE_TAIL,
        "lstm_cell": _LC_HEAD + '''    W = torch.cat([W_ih, W_hh], dim=1)               # (4H, D + H)
    xh = torch.cat([x_t, h_prev], dim=1)             # (B, D + H)
    a = torch.einsum("bk,gk->bg", xh, W) + b_ih + b_hh
    a_i, a_f, a_g, a_o = torch.split(a, h_prev.shape[1], dim=1)
    c_t = torch.addcmul(torch.sigmoid(a_f) * c_prev, torch.sigmoid(a_i), torch.tanh(a_g))
    h_t = torch.sigmoid(a_o) * torch.tanh(c_t)
    return (h_t, c_t)
''',
    },
}
