"""Answers to notebook 04 for testing its checks: right ones written differently, and known mistakes."""
from answer_catalogue import Wrong

NOTEBOOK = "04_lstm"

_FORGET = '''def forget_gate(h_prev, x_t, w_f, b_f):
    return {ret}
'''


def forget_source(ret="torch.sigmoid(w_f @ torch.cat([h_prev, x_t]) + b_f)"):
    return _FORGET.format(ret=ret)


_SLIDE = "f_slide = {f}\nc_slide = {c}\n"


def slide_source(f="forget_gate(h_prev, x_t, w_f, b_f)", c="f_slide * c_prev"):
    return _SLIDE.format(f=f, c=c)


_CELL = '''def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):
    a = {a}
    a_{o1}, a_{o2}, a_{o3}, a_{o4} = a.chunk(4, dim=-1)
    i, f, g, o = torch.sigmoid(a_i), torch.sigmoid(a_f), {g}(a_g), torch.sigmoid(a_o)
    c_t = {c}
    h_t = {h}
    return h_t, c_t
'''


def cell_source(a="x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh", order="ifgo", g="torch.tanh",
                c="f * c_prev + i * g", h="o * torch.tanh(c_t)"):
    return _CELL.format(a=a, o1=order[0], o2=order[1], o3=order[2], o4=order[3], g=g, c=c, h=h)


WRONG = [
    Wrong("forget_tanh", "forget_gate", forget_source("torch.tanh(w_f @ torch.cat([h_prev, x_t]) + b_f)"),
          "check_forget_gate", "you used tanh",
          also_fails=("check_slide_example",)),  # the slide example is computed with forget_gate
    Wrong("forget_exp_ratio", "forget_gate",
          forget_source("torch.exp(w_f @ torch.cat([h_prev, x_t]) + b_f) / (1 + torch.exp(w_f @ torch.cat([h_prev, x_t]) + b_f))"),
          "check_forget_gate", "e^a / (1 + e^a)"),
    Wrong("cell_detached", "lstm_cell", cell_source(a="x_t @ W_ih.T + b_ih + h_prev.detach() @ W_hh.T + b_hh",
                                                    c="f * c_prev.detach() + i * g"),
          "check_lstm_cell", "no gradient reaches `h_prev`"),
    Wrong("forget_sum_wrong_axis", "forget_gate", forget_source("torch.sigmoid((w_f * torch.cat([h_prev, x_t])).sum(0) + b_f)"),
          "check_forget_gate", "H + D, the length of [h_prev; x_t]"),
    Wrong("forget_no_bias", "forget_gate", forget_source("torch.sigmoid(w_f @ torch.cat([h_prev, x_t]))"),
          "check_forget_gate", "bias b_f is missing"),
    Wrong("forget_no_x", "forget_gate", forget_source("torch.sigmoid(w_f[:, :h_prev.shape[0]] @ h_prev + b_f)"),
          "check_forget_gate", "ignores x_t",
          also_fails=("check_slide_example",)),  # the slide example is computed with forget_gate
    Wrong("forget_x_first", "forget_gate", forget_source("torch.sigmoid(w_f @ torch.cat([x_t, h_prev]) + b_f)"),
          "check_forget_gate", "[h_(t-1); x_t], h first"),
    Wrong("forget_no_sigmoid", "forget_gate", forget_source("w_f @ torch.cat([h_prev, x_t]) + b_f"),
          "check_forget_gate", "has no sigmoid",
          also_fails=("check_slide_example",)),  # the slide example is computed with forget_gate
    Wrong("slide_rounded", "slide_example", slide_source(f="[0.77]", c="[1.54]"), "check_slide_example",
          "slide's rounded value"),
    Wrong("slide_typed", "slide_example", slide_source(f="0.7685", c="1.5371"), "check_slide_example",
          "instead of typing"),
    Wrong("slide_c_in_concat", "slide_example", slide_source(c="forget_gate(c_prev, x_t, w_f, b_f) * c_prev"),
          "check_slide_example", "instead of h_(t-1) = 1"),
    Wrong("slide_c_is_f", "slide_example", slide_source(c="f_slide"), "check_slide_example", "c_slide is f itself"),
    Wrong("slide_tanh", "slide_example", slide_source(f="torch.tanh(w_f @ torch.cat([h_prev, x_t]) + b_f)",
                                                      c="f_slide * c_prev"), "check_slide_example", "uses tanh"),
    Wrong("slide_no_x", "slide_example", slide_source(f="torch.sigmoid(w_f[:, :1] @ h_prev + b_f)"),
          "check_slide_example", "ignores x_t"),
    Wrong("cell_order_ifog", "lstm_cell", cell_source(order="ifog"), "check_lstm_cell", "order i, f, o, g"),
    Wrong("cell_order_figo", "lstm_cell", cell_source(order="figo"), "check_lstm_cell", "order f, i, g, o"),
    Wrong("cell_forget_h", "lstm_cell", cell_source(c="f * h_prev + i * g"), "check_lstm_cell",
          "forget gate multiplies h_prev"),
    Wrong("cell_g_sigmoid", "lstm_cell", cell_source(g="torch.sigmoid"), "check_lstm_cell",
          "candidate g uses the sigmoid"),
    Wrong("cell_no_b_hh", "lstm_cell", cell_source(a="x_t @ W_ih.T + b_ih + h_prev @ W_hh.T"), "check_lstm_cell",
          "bias b_hh is missing"),
    Wrong("cell_no_bias", "lstm_cell", cell_source(a="x_t @ W_ih.T + h_prev @ W_hh.T"), "check_lstm_cell",
          "both biases are missing"),
    Wrong("cell_no_tanh_c", "lstm_cell", cell_source(h="o * c_t"), "check_lstm_cell", "has no tanh"),
    Wrong("cell_no_input_gate", "lstm_cell", cell_source(c="f * c_prev + g"), "check_lstm_cell",
          "missing the input gate"),
    Wrong("cell_swapped_outputs", "lstm_cell", cell_source().replace("return h_t, c_t", "return c_t, h_t"),
          "check_lstm_cell", "swapped"),
    Wrong("cell_one_tensor", "lstm_cell", cell_source().replace("return h_t, c_t", "return h_t"),
          "check_lstm_cell", "one tensor"),
]

_LOGITS = '''def tag_logits(forward_states, backward_states, W, b):
    return {ret}
'''
_LOSS = '''def tag_loss(logits, tags, lengths):
    real = torch.arange(tags.shape[1], device=tags.device)[None] < {bound}
    return {ret}
'''
_LAST = '''def last_states(outputs, lengths):
    return {ret}
'''
_GOOD_LOSS = "F.cross_entropy(logits[real], tags[real])"
_BOTH = "torch.cat([forward_states, backward_states], -1)"

WRONG += [
    Wrong("logits_backward_first", "tag_logits",
          _LOGITS.format(ret="torch.cat([backward_states, forward_states], -1) @ W.T + b"), "check_tag_logits",
          "you concatenated [backward; forward]"),
    Wrong("logits_forward_only", "tag_logits",
          _LOGITS.format(ret="forward_states @ W[:, :forward_states.shape[-1]].T + b"), "check_tag_logits",
          "only the forward states"),
    Wrong("logits_backward_only", "tag_logits",
          _LOGITS.format(ret="backward_states @ W[:, backward_states.shape[-1]:].T + b"), "check_tag_logits",
          "only the backward states"),
    Wrong("logits_flipped", "tag_logits",
          _LOGITS.format(ret="torch.cat([forward_states, backward_states.flip(1)], -1) @ W.T + b"),
          "check_tag_logits", "flipped the backward states"),
    Wrong("logits_no_bias", "tag_logits", _LOGITS.format(ret=_BOTH + " @ W.T"), "check_tag_logits",
          "bias b is missing"),
    Wrong("logits_time_major", "tag_logits", _LOGITS.format(ret=f"({_BOTH} @ W.T + b).transpose(0, 1)"),
          "check_tag_logits", "(T, B, C), time first"),
    Wrong("logits_flattened", "tag_logits", _LOGITS.format(
        ret=f"({_BOTH}.transpose(0, 1).reshape(-1, W.shape[1]) @ W.T + b)"
            ".reshape(forward_states.shape[0], forward_states.shape[1], -1)"),
          "check_tag_logits", "flattened (B, T) in one order"),
    Wrong("logits_softmax", "tag_logits", _LOGITS.format(ret=f"torch.softmax({_BOTH} @ W.T + b, -1)"),
          "check_tag_logits", "returned probabilities"),
    Wrong("loss_over_pads", "tag_loss",
          _LOSS.format(bound="lengths[:, None]", ret="F.cross_entropy(logits.reshape(-1, logits.shape[-1]), "
                       "tags.reshape(-1))"), "check_tag_loss", "averages over the padding too"),
    Wrong("loss_divided_by_all", "tag_loss", _LOSS.format(
        bound="lengths[:, None]", ret="(F.cross_entropy(logits.transpose(1, 2), tags, reduction='none') * real).sum()"
                                      " / real.numel()"), "check_tag_loss", "divided by B * T"),
    Wrong("loss_sum", "tag_loss", _LOSS.format(bound="lengths[:, None]", ret="F.cross_entropy(logits[real], "
                                                                            "tags[real], reduction='sum')"),
          "check_tag_loss", "sum over the real tokens"),
    Wrong("loss_mean_of_means", "tag_loss", _LOSS.format(
        bound="lengths[:, None]", ret="((F.cross_entropy(logits.transpose(1, 2), tags, reduction='none') * real)"
                                      ".sum(1) / lengths).mean()"), "check_tag_loss", "short line weighs"),
    Wrong("loss_mask_long", "tag_loss", _LOSS.format(bound="lengths[:, None] + 1", ret=_GOOD_LOSS), "check_tag_loss",
          "one token past each sequence's end"),
    Wrong("loss_mask_short", "tag_loss", _LOSS.format(bound="lengths[:, None] - 1", ret=_GOOD_LOSS),
          "check_tag_loss", "leaves out each sequence's last real token"),
    Wrong("loss_no_log_softmax", "tag_loss", _LOSS.format(
        bound="lengths[:, None]", ret="-logits.gather(-1, tags[..., None])[..., 0][real].mean()"), "check_tag_loss",
          "minus the logit"),
    Wrong("loss_flattened", "tag_loss", _LOSS.format(
        bound="lengths[:, None]", ret="F.cross_entropy(logits.transpose(0, 1).reshape(-1, logits.shape[-1]), "
                                      "tags.masked_fill(~real, -100).reshape(-1))"),
          "check_tag_loss", "paired wrongly"),
    Wrong("loss_shape_one", "tag_loss", _LOSS.format(bound="lengths[:, None]", ret=_GOOD_LOSS + "[None]"),
          "check_tag_loss", "return one number"),
    Wrong("last_minus_one", "last_states", _LAST.format(ret="outputs[:, -1]"), "check_last_states",
          "position -1 of every row"),
    Wrong("last_at_length", "last_states", _LAST.format(ret="outputs[torch.arange(len(lengths)), lengths.clamp("
                                                          "max=outputs.shape[1] - 1)]"),
          "check_last_states", "position lengths[b], one past the end"),
    Wrong("last_all_rows", "last_states", _LAST.format(ret="outputs[:, lengths - 1]"), "check_last_states",
          "pair row b with its own length"),
    Wrong("last_first", "last_states", _LAST.format(ret="outputs[:, 0]"), "check_last_states", "position 0"),
    Wrong("last_mean", "last_states", _LAST.format(
        ret="(outputs * (torch.arange(outputs.shape[1])[None] < lengths[:, None])[..., None]).sum(1) / "
            "lengths[:, None]"), "check_last_states", "averaged the states"),
]

ALTERNATIVES = {
    "loops": {
        "tag_logits": '''def tag_logits(forward_states, backward_states, W, b):
    B, T, H = forward_states.shape
    out = torch.zeros(B, T, W.shape[0], dtype=W.dtype, device=W.device)
    for i in range(B):
        for t in range(T):
            out[i, t] = W[:, :H] @ forward_states[i, t] + W[:, H:] @ backward_states[i, t] + b
    return out
''',
        "tag_loss": '''def tag_loss(logits, tags, lengths):
    total, count = 0.0, 0
    for i in range(logits.shape[0]):
        for t in range(int(lengths[i])):
            total = total - torch.log_softmax(logits[i, t], -1)[tags[i, t]]
            count += 1
    return total / count
''',
        "last_states": '''def last_states(outputs, lengths):
    return torch.stack([outputs[i, int(n) - 1] for i, n in enumerate(lengths)])
''',
        "forget_gate": '''import math
def forget_gate(h_prev, x_t, w_f, b_f):
    z = h_prev.tolist() + x_t.tolist()
    out = []
    for j in range(w_f.shape[0]):
        a = float(b_f[j]) + sum(float(w_f[j, k]) * z[k] for k in range(len(z)))
        out.append(1 / (1 + math.exp(-a)))
    return torch.tensor(out, dtype=h_prev.dtype, device=h_prev.device)
''',
        "lstm_cell": '''def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):
    H = h_prev.shape[1]
    gates = []
    for k in range(4):
        rows = slice(k * H, (k + 1) * H)
        gates.append(x_t @ W_ih[rows].T + h_prev @ W_hh[rows].T + b_ih[rows] + b_hh[rows])
    i = 1 / (1 + torch.exp(-gates[0]))
    f = 1 / (1 + torch.exp(-gates[1]))
    g = torch.tanh(gates[2])
    o = 1 / (1 + torch.exp(-gates[3]))
    c_t = f * c_prev + i * g
    return o * torch.tanh(c_t), c_t
''',
    },
    "numpy": {
        "tag_logits": '''def tag_logits(forward_states, backward_states, W, b):
    B, T, H = forward_states.shape
    flat = torch.cat([forward_states.reshape(B * T, H), backward_states.reshape(B * T, H)], dim=1)
    return torch.nn.functional.linear(flat, W, b).reshape(B, T, -1)
''',
        "tag_loss": '''def tag_loss(logits, tags, lengths):
    pad = torch.arange(tags.shape[1], device=tags.device)[None] >= lengths[:, None]
    targets = tags.masked_fill(pad, -100)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=-100)
''',
        "last_states": '''def last_states(outputs, lengths):
    index = (lengths - 1).view(-1, 1, 1).expand(-1, 1, outputs.shape[2])
    return outputs.gather(1, index).squeeze(1)
''',
        "forget_gate": '''import numpy as np
def forget_gate(h_prev, x_t, w_f, b_f):
    a = w_f.cpu().numpy() @ np.concatenate([h_prev.cpu().numpy(), x_t.cpu().numpy()]) + b_f.cpu().numpy()
    return torch.from_numpy(1 / (1 + np.exp(-a))).to(h_prev.device)
''',
        "lstm_cell": '''def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):
    a = torch.cat([x_t, h_prev], dim=1) @ torch.cat([W_ih, W_hh], dim=1).T + b_ih + b_hh
    a_i, a_f, a_g, a_o = torch.split(a, h_prev.shape[1], dim=1)
    s = lambda v: 1 / (1 + torch.exp(-v))
    c = s(a_f) * c_prev + s(a_i) * torch.tanh(a_g)
    h = s(a_o) * torch.tanh(c)
    return h, c
''',
    },
}

CHEATS = [
    Wrong("cell_calls_lstmcell", "lstm_cell",
          "def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):\n"
          "    cell = torch.nn.LSTMCell(W_ih.shape[1], W_hh.shape[1])\n    return cell(x_t, (h_prev, c_prev))\n",
          "check_lstm_cell", "switched off"),
    Wrong("cell_calls_course_lib", "lstm_cell",
          "import course_lib.lstm\ndef lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):\n"
          "    return course_lib.lstm.lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh)\n",
          "check_lstm_cell", "switched off"),
    Wrong("cell_calls_torch_lstm_cell", "lstm_cell",
          "def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):\n"
          "    return tuple(torch.lstm_cell(x_t, (h_prev, c_prev), W_ih, W_hh, b_ih, b_hh))\n",
          "check_lstm_cell", "switched off"),
    Wrong("cell_calls_vf", "lstm_cell",
          "def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):\n"
          "    return tuple(torch._VF.lstm_cell(x_t, (h_prev, c_prev), W_ih, W_hh, b_ih, b_hh))\n",
          "check_lstm_cell", "switched off"),
    Wrong("cell_calls_nn_lstm", "lstm_cell",
          "def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):\n"
          "    lstm = torch.nn.LSTM(W_ih.shape[1], W_hh.shape[1], batch_first=True)\n"
          "    out, (h, c) = lstm(x_t[:, None], (h_prev[None], c_prev[None]))\n    return h[0], c[0]\n",
          "check_lstm_cell", "switched off"),
]

STUBS = [("forget_gate", "check_forget_gate"), ("lstm_cell", "check_lstm_cell"), ("tag_logits", "check_tag_logits"),
         ("tag_loss", "check_tag_loss"), ("last_states", "check_last_states")]

LOOP = ("lstm_cell", "check_lstm_cell")
