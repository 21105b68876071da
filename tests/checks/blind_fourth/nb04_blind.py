"""Fourth blind set for notebook 04 (long short-term memory), written from the student notebook only."""
from blind_case import Blind

NOTEBOOK = "04_lstm"

BLIND = [
    # ---------------------------------------------------------------- forget_gate
    Blind(name="fg_tanh", cell="forget_gate", test_cell="check_forget_gate",
          source='''def forget_gate(h_prev, x_t, w_f, b_f):
    """f_t = sigmoid(w_f [h_prev; x_t] + b_f): h_prev (H,), x_t (D,), w_f (H, H + D), b_f (H,) -> (H,)."""
    return torch.tanh(w_f @ torch.cat([h_prev, x_t]) + b_f)
''',
          mistake="Uses tanh instead of a sigmoid for the gate, so f_t can be negative and is not a number between 0 and 1.",
          names_it=(("sigmoid",), ("tanh",), ("between 0 and 1",)),
          part="the gate activation"),
    Blind(name="fg_hard_sigmoid", cell="forget_gate", test_cell="check_forget_gate",
          source='''def forget_gate(h_prev, x_t, w_f, b_f):
    """f_t = sigmoid(w_f [h_prev; x_t] + b_f): h_prev (H,), x_t (D,), w_f (H, H + D), b_f (H,) -> (H,)."""
    z = w_f @ torch.cat((h_prev, x_t)) + b_f
    return torch.clamp(0.2 * z + 0.5, 0.0, 1.0)
''',
          mistake="Uses a hard sigmoid (clamp(0.2 z + 0.5, 0, 1)) instead of the logistic sigmoid.",
          names_it=(("sigmoid",), ("hard",), ("clamp",)),
          part="the gate activation"),
    Blind(name="fg_softplus", cell="forget_gate", test_cell="check_forget_gate",
          source='''def forget_gate(h_prev, x_t, w_f, b_f):
    """f_t = sigmoid(w_f [h_prev; x_t] + b_f): h_prev (H,), x_t (D,), w_f (H, H + D), b_f (H,) -> (H,)."""
    z = w_f @ torch.cat([h_prev, x_t]) + b_f
    return torch.log1p(torch.exp(z))
''',
          mistake="Applies softplus, log(1 + e^z), instead of the sigmoid 1 / (1 + e^-z): the gate is not between 0 and 1.",
          names_it=(("sigmoid",), ("softplus",), ("between 0 and 1",)),
          part="the gate activation"),
    Blind(name="fg_concat_order", cell="forget_gate", test_cell="check_forget_gate",
          source='''def forget_gate(h_prev, x_t, w_f, b_f):
    """f_t = sigmoid(w_f [h_prev; x_t] + b_f): h_prev (H,), x_t (D,), w_f (H, H + D), b_f (H,) -> (H,)."""
    hx = torch.cat([x_t, h_prev])
    return torch.sigmoid(w_f @ hx + b_f)
''',
          mistake="Concatenates [x_t; h_prev] instead of [h_prev; x_t], so the first H columns of w_f multiply the input instead of the previous state.",
          names_it=(("order",), ("[h_prev; x_t]",), ("first h columns",), ("concatenat",)),
          part="the concatenation order"),
    Blind(name="fg_vector_times_matrix", cell="forget_gate", test_cell="check_forget_gate",
          source='''def forget_gate(h_prev, x_t, w_f, b_f):
    """f_t = sigmoid(w_f [h_prev; x_t] + b_f): h_prev (H,), x_t (D,), w_f (H, H + D), b_f (H,) -> (H,)."""
    hx = torch.cat([h_prev, x_t])
    return torch.sigmoid(hx @ w_f + b_f)
''',
          mistake="Computes [h; x] @ w_f instead of w_f @ [h; x]: a (H + D,) vector times an (H, H + D) matrix is a shape error for every H and D.",
          names_it=(("transpose",), ("w_f @",), ("shape",), ("order",)),
          part="the matrix-vector product"),
    Blind(name="fg_no_bias", cell="forget_gate", test_cell="check_forget_gate",
          source='''def forget_gate(h_prev, x_t, w_f, b_f):
    """f_t = sigmoid(w_f [h_prev; x_t] + b_f): h_prev (H,), x_t (D,), w_f (H, H + D), b_f (H,) -> (H,)."""
    return torch.sigmoid(w_f @ torch.cat([h_prev, x_t]))
''',
          mistake="Leaves out the bias b_f (the slide's b_f is 0, so only the slide's example passes).",
          names_it=(("bias",), ("b_f",)),
          part="the bias"),
    Blind(name="fg_columns_swapped", cell="forget_gate", test_cell="check_forget_gate",
          source='''def forget_gate(h_prev, x_t, w_f, b_f):
    """f_t = sigmoid(w_f [h_prev; x_t] + b_f): h_prev (H,), x_t (D,), w_f (H, H + D), b_f (H,) -> (H,)."""
    D = x_t.shape[0]
    return torch.sigmoid(w_f[:, :D] @ x_t + w_f[:, D:] @ h_prev + b_f)
''',
          mistake="Splits w_f the wrong way round: its first D columns are applied to x_t and the rest to h_prev, but the first H columns belong to h_prev.",
          names_it=(("first h columns",), ("columns",), ("order",)),
          part="splitting w_f into blocks"),

    # ---------------------------------------------------------------- slide_example
    Blind(name="slide_rounded_f", cell="slide_example", test_cell="check_slide_example",
          source='''h_prev, c_prev, x_t, w_f, b_f = (checks.slide_inputs()[k] for k in ("h_prev", "c_prev", "x_t", "w_f", "b_f"))
f_slide = round(forget_gate(h_prev, x_t, w_f, b_f).item(), 2)
c_slide = c_prev * f_slide
print("f_t =", f_slide, " c'_t =", c_slide)
''',
          mistake="Rounds f_t to two decimals like the slide (0.77) before using and storing it, so f_t and c'_t are wrong at four decimals (0.7685, 1.5371).",
          names_it=(("round",), ("four decimals",), ("0.7685",), ("exact",)),
          part="rounding f_t"),
    Blind(name="slide_c_added", cell="slide_example", test_cell="check_slide_example",
          source='''h_prev, c_prev, x_t, w_f, b_f = (checks.slide_inputs()[k] for k in ("h_prev", "c_prev", "x_t", "w_f", "b_f"))
f_slide = forget_gate(h_prev, x_t, w_f, b_f)
c_slide = c_prev + f_slide
print("f_t =", f_slide, " c'_t =", c_slide)
''',
          mistake="Adds the forget gate to the old cell (c + f) instead of multiplying (c * f).",
          names_it=(("multipl",), ("c_{t-1} * f_t",), ("times",), ("product",)),
          part="c'_t"),
    Blind(name="slide_one_minus_f", cell="slide_example", test_cell="check_slide_example",
          source='''h_prev, c_prev, x_t, w_f, b_f = (checks.slide_inputs()[k] for k in ("h_prev", "c_prev", "x_t", "w_f", "b_f"))
f_slide = forget_gate(h_prev, x_t, w_f, b_f)
c_slide = c_prev * (1 - f_slide)  # f is how much we forget
print("f_t =", f_slide, " c'_t =", c_slide)
''',
          mistake="Reads f_t as the fraction forgotten and keeps c * (1 - f); the forget gate is the fraction kept, c'_t = c * f.",
          names_it=(("1 - f",), ("kept",), ("keep",)),
          part="c'_t"),
    Blind(name="slide_missing_bias_arg", cell="slide_example", test_cell="check_slide_example",
          source='''h_prev, c_prev, x_t, w_f, b_f = (checks.slide_inputs()[k] for k in ("h_prev", "c_prev", "x_t", "w_f", "b_f"))
f_slide = forget_gate(h_prev, x_t, w_f)  # b_f is zero anyway
c_slide = c_prev * f_slide
print("f_t =", f_slide, " c'_t =", c_slide)
''',
          mistake="Calls forget_gate without the b_f argument (because the slide's bias is 0): TypeError, missing argument.",
          names_it=(("b_f",), ("argument",), ("typeerror",)),
          part="calling forget_gate"),
    Blind(name="slide_typed_in", cell="slide_example", test_cell="check_slide_example",
          source='''h_prev, c_prev, x_t, w_f, b_f = (checks.slide_inputs()[k] for k in ("h_prev", "c_prev", "x_t", "w_f", "b_f"))
f_slide = torch.tensor([0.77], dtype=torch.float64)
c_slide = torch.tensor([1.54], dtype=torch.float64)
print("f_t =", f_slide, " c'_t =", c_slide)
''',
          mistake="Types in the slide's rounded numbers 0.77 and 1.54 instead of computing them with forget_gate; they are wrong at four decimals.",
          names_it=(("0.7685",), ("four decimals",), ("computed",), ("round",)),
          part="computing f_t and c'_t"),
    Blind(name="slide_tanh_of_cell", cell="slide_example", test_cell="check_slide_example",
          source='''h_prev, c_prev, x_t, w_f, b_f = (checks.slide_inputs()[k] for k in ("h_prev", "c_prev", "x_t", "w_f", "b_f"))
f_slide = forget_gate(h_prev, x_t, w_f, b_f)
c_slide = torch.tanh(c_prev * f_slide)
print("f_t =", f_slide, " c'_t =", c_slide)
''',
          mistake="Squashes the kept cell with tanh (mixing in h_t = o * tanh(c)); c'_t is just c_{t-1} * f_t.",
          names_it=(("tanh",), ("c_{t-1} * f_t",), ("just c",), ("c * f",)),
          part="c'_t"),

    # ---------------------------------------------------------------- lstm_cell
    Blind(name="lstm_order_ifog", cell="lstm_cell", test_cell="check_lstm_cell",
          source='''def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):
    """One LSTM step: x_t (B, D), h_prev and c_prev (B, H) -> (h_t, c_t), each (B, H). Gate order i, f, g, o."""
    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, o, g = gates.chunk(4, dim=-1)
    c_t = torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g)
    h_t = torch.sigmoid(o) * torch.tanh(c_t)
    return h_t, c_t
''',
          mistake="Unpacks the blocks in the order i, f, o, g instead of PyTorch's i, f, g, o, so the candidate and the output gate are swapped.",
          names_it=(("order",), ("i, f, g, o",), ("block",)),
          part="the gate block order"),
    Blind(name="lstm_interleaved", cell="lstm_cell", test_cell="check_lstm_cell",
          source='''def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):
    """One LSTM step: x_t (B, D), h_prev and c_prev (B, H) -> (h_t, c_t), each (B, H). Gate order i, f, g, o."""
    B, H = h_prev.shape
    gates = (x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh).view(B, H, 4)
    i, f, g, o = gates.unbind(dim=-1)
    c_t = torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g)
    h_t = torch.sigmoid(o) * torch.tanh(c_t)
    return h_t, c_t
''',
          mistake="Reshapes the (B, 4H) pre-activations to (B, H, 4), which takes the gates as interleaved columns instead of four contiguous blocks of H.",
          names_it=(("interleav",), ("contiguous",), ("block",), ("chunk",)),
          part="cutting the four gates"),
    Blind(name="lstm_weight_not_transposed", cell="lstm_cell", test_cell="check_lstm_cell",
          source='''def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):
    """One LSTM step: x_t (B, D), h_prev and c_prev (B, H) -> (h_t, c_t), each (B, H). Gate order i, f, g, o."""
    gates = x_t @ W_ih + h_prev @ W_hh + b_ih + b_hh
    i, f, g, o = gates.chunk(4, dim=-1)
    c_t = torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(c_t), c_t
''',
          mistake="Uses W_ih and W_hh without transposing them; they are stored (4H, in), so x_t @ W_ih is a shape error.",
          names_it=(("transpose",), (".t",), ("(4h, d)",)),
          part="transposing the weights"),
    Blind(name="lstm_one_bias", cell="lstm_cell", test_cell="check_lstm_cell",
          source='''def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):
    """One LSTM step: x_t (B, D), h_prev and c_prev (B, H) -> (h_t, c_t), each (B, H). Gate order i, f, g, o."""
    gates = x_t @ W_ih.T + h_prev @ W_hh.T + b_ih
    i, f, g, o = gates.chunk(4, dim=-1)
    c_t = torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g)
    h_t = torch.sigmoid(o) * torch.tanh(c_t)
    return h_t, c_t
''',
          mistake="Adds only b_ih; the second bias b_hh is left out (both are added).",
          names_it=(("b_hh",), ("both biases",), ("bias",)),
          part="the biases"),
    Blind(name="lstm_no_tanh_on_cell", cell="lstm_cell", test_cell="check_lstm_cell",
          source='''def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):
    """One LSTM step: x_t (B, D), h_prev and c_prev (B, H) -> (h_t, c_t), each (B, H). Gate order i, f, g, o."""
    z = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, g, o = z.chunk(4, dim=-1)
    c_t = torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g)
    h_t = torch.sigmoid(o) * c_t
    return h_t, c_t
''',
          mistake="Computes h_t = o * c_t without the tanh of the cell.",
          names_it=(("tanh(c_t)",), ("tanh", "cell")),
          part="h_t"),
    Blind(name="lstm_candidate_sigmoid", cell="lstm_cell", test_cell="check_lstm_cell",
          source='''def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):
    """One LSTM step: x_t (B, D), h_prev and c_prev (B, H) -> (h_t, c_t), each (B, H). Gate order i, f, g, o."""
    gates = torch.sigmoid(x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh)
    i, f, g, o = gates.chunk(4, dim=1)
    c_t = f * c_prev + i * g
    h_t = o * torch.tanh(c_t)
    return h_t, c_t
''',
          mistake="Applies the sigmoid to all four blocks; the candidate g needs tanh, so it can be negative.",
          names_it=(("tanh",), ("candidate",), ("g_t",)),
          part="the candidate's activation"),
    Blind(name="lstm_coupled_gates", cell="lstm_cell", test_cell="check_lstm_cell",
          source='''def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):
    """One LSTM step: x_t (B, D), h_prev and c_prev (B, H) -> (h_t, c_t), each (B, H). Gate order i, f, g, o."""
    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, g, o = gates.chunk(4, dim=-1)
    f = torch.sigmoid(f)
    c_t = f * c_prev + (1 - f) * torch.tanh(g)
    h_t = torch.sigmoid(o) * torch.tanh(c_t)
    return h_t, c_t
''',
          mistake="Writes the new content with (1 - f_t) instead of the input gate i_t (a coupled, GRU-like update); the input gate is never used.",
          names_it=(("input gate",), ("i_t",), ("1 - f",)),
          part="the cell update"),
    Blind(name="lstm_chunk_batch_axis", cell="lstm_cell", test_cell="check_lstm_cell",
          source='''def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):
    """One LSTM step: x_t (B, D), h_prev and c_prev (B, H) -> (h_t, c_t), each (B, H). Gate order i, f, g, o."""
    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, g, o = gates.chunk(4)
    c_t = torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g)
    h_t = torch.sigmoid(o) * torch.tanh(c_t)
    return h_t, c_t
''',
          mistake="Calls .chunk(4) without dim=-1, so it cuts along the batch axis (dim 0): too few chunks to unpack, or batch rows used as gates.",
          names_it=(("dim=-1",), ("last dimension",), ("last axis",), ("batch axis",), ("batch dimension",)),
          part="the axis of chunk"),
    Blind(name="lstm_split_size_4", cell="lstm_cell", test_cell="check_lstm_cell",
          source='''def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):
    """One LSTM step: x_t (B, D), h_prev and c_prev (B, H) -> (h_t, c_t), each (B, H). Gate order i, f, g, o."""
    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, g, o = gates.split(4, dim=-1)
    c_t = torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g)
    h_t = torch.sigmoid(o) * torch.tanh(c_t)
    return h_t, c_t
''',
          mistake="Uses .split(4, dim=-1), which cuts pieces of size 4, not 4 pieces: it only works when H = 4 and fails for H = 5.",
          names_it=(("split",), ("chunk",), ("size 4",), ("h = 5",)),
          part="cutting the four gates"),
    Blind(name="lstm_h_uses_old_cell", cell="lstm_cell", test_cell="check_lstm_cell",
          source='''def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):
    """One LSTM step: x_t (B, D), h_prev and c_prev (B, H) -> (h_t, c_t), each (B, H). Gate order i, f, g, o."""
    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, g, o = gates.chunk(4, dim=-1)
    h_t = torch.sigmoid(o) * torch.tanh(c_prev)
    c_t = torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g)
    return h_t, c_t
''',
          mistake="Computes h_t from tanh(c_prev), the old cell, instead of tanh(c_t), the new one.",
          names_it=(("c_t",), ("new cell",), ("c_prev",)),
          part="h_t"),
    Blind(name="lstm_detached_cell", cell="lstm_cell", test_cell="check_lstm_cell",
          source='''def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):
    """One LSTM step: x_t (B, D), h_prev and c_prev (B, H) -> (h_t, c_t), each (B, H). Gate order i, f, g, o."""
    gates = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh
    i, f, g, o = gates.chunk(4, dim=-1)
    c_t = torch.sigmoid(f) * c_prev.detach() + torch.sigmoid(i) * torch.tanh(g)
    h_t = torch.sigmoid(o) * torch.tanh(c_t)
    return h_t, c_t
''',
          mistake="Detaches c_prev, so the values are right but no gradient flows back along the cell state to c_prev.",
          names_it=(("detach",), ("gradient",)),
          part="the gradient to c_prev"),
]

VALID = [
    Blind(name="valid_fg_split_weights", cell="forget_gate", test_cell="check_forget_gate",
          source='''def forget_gate(h_prev, x_t, w_f, b_f):
    """f_t = sigmoid(w_f [h_prev; x_t] + b_f): h_prev (H,), x_t (D,), w_f (H, H + D), b_f (H,) -> (H,)."""
    H = h_prev.shape[0]
    z = w_f[:, :H] @ h_prev + w_f[:, H:] @ x_t + b_f
    return 1.0 / (1.0 + torch.exp(-z))
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_slide_itemless", cell="slide_example", test_cell="check_slide_example",
          source='''h_prev, c_prev, x_t, w_f, b_f = (checks.slide_inputs()[k] for k in ("h_prev", "c_prev", "x_t", "w_f", "b_f"))
f_slide = forget_gate(h_prev, x_t, w_f, b_f)
c_slide = f_slide * c_prev
print("f_t =", f_slide, " c'_t =", c_slide)
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_lstm_per_gate_slices", cell="lstm_cell", test_cell="check_lstm_cell",
          source='''def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):
    """One LSTM step: x_t (B, D), h_prev and c_prev (B, H) -> (h_t, c_t), each (B, H). Gate order i, f, g, o."""
    H = h_prev.shape[1]
    def pre(k):
        rows = slice(k * H, (k + 1) * H)
        return x_t @ W_ih[rows].T + b_ih[rows] + h_prev @ W_hh[rows].T + b_hh[rows]
    i_t, f_t, g_t, o_t = torch.sigmoid(pre(0)), torch.sigmoid(pre(1)), torch.tanh(pre(2)), torch.sigmoid(pre(3))
    c_t = f_t * c_prev + i_t * g_t
    h_t = o_t * torch.tanh(c_t)
    return h_t, c_t
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_lstm_linear_cat", cell="lstm_cell", test_cell="check_lstm_cell",
          source='''def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):
    """One LSTM step: x_t (B, D), h_prev and c_prev (B, H) -> (h_t, c_t), each (B, H). Gate order i, f, g, o."""
    W = torch.cat([W_ih, W_hh], dim=1)              # (4H, D + H)
    z = torch.cat([x_t, h_prev], dim=1) @ W.T + (b_ih + b_hh)
    H = h_prev.shape[-1]
    i, f, o = torch.sigmoid(z[:, :H]), torch.sigmoid(z[:, H:2 * H]), torch.sigmoid(z[:, 3 * H:])
    g = torch.tanh(z[:, 2 * H:3 * H])
    c_t = f * c_prev + i * g
    return o * torch.tanh(c_t), c_t
''',
          mistake="", names_it=(), part=""),
]

# The same valid answers in blind_case.py's ALTERNATIVES layout ({style: {answer_cell: source}}).
ALTERNATIVES = {case.name: {case.cell: case.source} for case in VALID}
