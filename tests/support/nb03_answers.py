"""Answers to notebook 03 for testing its checks: right ones written differently, and known mistakes.

Each wrong answer replaces one answer cell (by grade_id) and must fail the given test cell with a
message that names the mistake.
"""
from answer_catalogue import Wrong

NOTEBOOK = "03_rnn_vanishing"

_STEP = '''def rnn_step(x_t, h_prev, U, W, b):
    a_t = {a}
    return {ret}
'''


def step_source(a="b + h_prev @ W.T + x_t @ U.T", ret="torch.tanh(a_t)"):
    return _STEP.format(a=a, ret=ret)


_FORWARD = '''def rnn_forward(x, h0, U, W, b):
    h, hs = h0, []
    for t in range(x.shape[1]):
        h = rnn_step(x[:, t], {h_in}, U, W, b)
        hs.append(h)
    return {ret}
'''


def forward_source(h_in="h", ret="torch.stack(hs, dim=1), h"):
    return _FORWARD.format(h_in=h_in, ret=ret)


_CLIP = '''def clip_grad_norm(parameters, max_norm):
    params = [p for p in parameters {skip}]
    total = torch.sqrt(sum((p.grad ** 2).sum() for p in params))
    if {condition}:
        for p in params:
            {scale}
    return {ret}
'''


def clip_source(skip="if p.grad is not None", condition="total > max_norm",
                scale="p.grad.mul_(max_norm / (total + 1e-6))", ret="total"):
    return _CLIP.format(skip=skip, condition=condition, scale=scale, ret=ret)


WRONG = [
    Wrong("step_no_tanh", "rnn_step", step_source(ret="a_t"), "check_rnn_step", "has no tanh"),
    Wrong("step_swapped", "rnn_step", step_source(a="b + h_prev @ U.T + x_t @ W.T"), "check_rnn_step",
          "U and W are swapped"),
    Wrong("step_no_bias", "rnn_step", step_source(a="h_prev @ W.T + x_t @ U.T"), "check_rnn_step", "bias b is missing"),
    Wrong("step_tanh_twice", "rnn_step", step_source(ret="torch.tanh(torch.tanh(a_t))"), "check_rnn_step",
          "tanh twice"),
    Wrong("step_squash_h_prev", "rnn_step", step_source(a="b + torch.tanh(h_prev) @ W.T + x_t @ U.T"),
          "check_rnn_step", "tanh to h_prev again"),
    Wrong("step_sigmoid", "rnn_step", step_source(ret="torch.sigmoid(a_t)"), "check_rnn_step", "sigmoid"),
    Wrong("step_W_transposed", "rnn_step", step_source(a="b + h_prev @ W + x_t @ U.T"), "check_rnn_step",
          "instead of W.T"),
    Wrong("step_no_state", "rnn_step", step_source(a="b + x_t @ U.T"), "check_rnn_step", "ignores h_prev"),
    Wrong("step_U_not_transposed", "rnn_step", step_source(a="b + h_prev @ W.T + x_t @ U"), "check_rnn_step",
          "x_t @ U.T"),
    Wrong("forward_not_carried", "rnn_forward", forward_source(h_in="h0"), "check_rnn_forward", "not carried"),
    Wrong("forward_only_last", "rnn_forward", forward_source(ret="h, h"), "check_rnn_forward", "only the last state"),
    Wrong("forward_time_first", "rnn_forward", forward_source(ret="torch.stack(hs), h"), "check_rnn_forward",
          "time and batch axes are swapped"),
    Wrong("forward_with_h0", "rnn_forward", forward_source(ret="torch.stack([h0] + hs, dim=1), h"),
          "check_rnn_forward", "starts with h0"),
    Wrong("forward_zero_start", "rnn_forward",
          "def rnn_forward(x, h0, U, W, b):\n    h, hs = torch.zeros_like(h0), []\n    for t in range(x.shape[1]):\n"
          "        h = rnn_step(x[:, t], h, U, W, b)\n        hs.append(h)\n    return torch.stack(hs, dim=1), h\n",
          "check_rnn_forward", "starts from zeros"),
    Wrong("forward_returns_hs_only", "rnn_forward", forward_source(ret="torch.stack(hs, dim=1)"),
          "check_rnn_forward", "returned only hs"),
    Wrong("forward_first_state", "rnn_forward", forward_source(ret="torch.stack(hs, dim=1), hs[0]"),
          "check_rnn_forward", "first state"),
    Wrong("clip_per_tensor", "clip_grad_norm",
          "def clip_grad_norm(parameters, max_norm):\n    params = [p for p in parameters if p.grad is not None]\n"
          "    total = torch.sqrt(sum((p.grad ** 2).sum() for p in params))\n    for p in params:\n"
          "        n = p.grad.norm()\n        if n > max_norm:\n            p.grad.mul_(max_norm / (n + 1e-6))\n"
          "    return total\n", "check_clip_grad_norm", "each parameter's gradient by its own norm"),
    Wrong("step_numpy", "rnn_step",
          "import numpy as np\ndef rnn_step(x_t, h_prev, U, W, b):\n"
          "    a = np.tanh(b.detach().cpu().numpy() + h_prev.detach().cpu().numpy() @ W.detach().cpu().numpy().T\n"
          "                + x_t.detach().cpu().numpy() @ U.detach().cpu().numpy().T)\n"
          "    return torch.from_numpy(a).to(x_t.device)\n", "check_rnn_step", "no gradient reaches `h_prev`"),
    Wrong("step_numpy_no_detach", "rnn_step",
          "import numpy as np\ndef rnn_step(x_t, h_prev, U, W, b):\n"
          "    a = np.tanh(b.numpy() + h_prev.numpy() @ W.numpy().T + x_t.numpy() @ U.numpy().T)\n"
          "    return torch.from_numpy(a)\n", "check_rnn_step", "compute with torch operations only"),
    Wrong("forward_detached", "rnn_forward",
          "def rnn_forward(x, h0, U, W, b):\n    h, hs = h0, []\n    for t in range(x.shape[1]):\n"
          "        h = rnn_step(x[:, t], h, U, W, b).detach()\n        hs.append(h)\n"
          "    return torch.stack(hs, dim=1), h\n", "check_rnn_forward", "no gradient reaches `h0`"),
    Wrong("clip_no_return", "clip_grad_norm", clip_source(ret="None"), "check_clip_grad_norm", "returned None"),
    Wrong("clip_norm_after", "clip_grad_norm",
          clip_source(ret="torch.sqrt(sum((p.grad ** 2).sum() for p in params))"), "check_clip_grad_norm",
          "norm after clipping"),
    Wrong("clip_always", "clip_grad_norm", clip_source(condition="True"), "check_clip_grad_norm",
          "below max_norm"),
    Wrong("clip_not_in_place", "clip_grad_norm", clip_source(scale="g = p.grad * (max_norm / total)"),
          "check_clip_grad_norm", "in place"),
    Wrong("clip_grad_none", "clip_grad_norm", clip_source(skip=""), "check_clip_grad_norm", "must be skipped"),
    Wrong("clip_norm_sum", "clip_grad_norm",
          clip_source(condition="(total := sum(p.grad.norm() for p in params)) > max_norm"),
          "check_clip_grad_norm", "sum of the parameters' norms"),
    Wrong("clip_squared", "clip_grad_norm", clip_source(ret="total ** 2"), "check_clip_grad_norm", "squared norm"),
    Wrong("clip_l1", "clip_grad_norm",
          clip_source(condition="(total := sum(p.grad.abs().sum() for p in params)) > max_norm"),
          "check_clip_grad_norm", "L1 norm"),
    Wrong("clip_by_value", "clip_grad_norm", clip_source(scale="p.grad.clamp_(-max_norm, max_norm)"),
          "check_clip_grad_norm", "clipping by value"),
    Wrong("clip_norm_of_weights", "clip_grad_norm",
          clip_source(condition="(total := torch.sqrt(sum((p ** 2).sum() for p in params))) > max_norm"),
          "check_clip_grad_norm", "not of their gradients"),
    Wrong("clip_generator_twice", "clip_grad_norm",
          "def clip_grad_norm(parameters, max_norm):\n"
          "    total = torch.sqrt(sum((p.grad ** 2).sum() for p in parameters if p.grad is not None))\n"
          "    if total > max_norm:\n        for p in parameters:\n            if p.grad is not None:\n"
          "                p.grad.mul_(max_norm / total)\n    return total\n",
          "check_clip_grad_norm", "generator"),
]

#: Correct answers in other styles: plain loops, numpy, einsum, functional.
ALTERNATIVES = {
    "loops": {
        "rnn_step": '''def rnn_step(x_t, h_prev, U, W, b):
    B, H = h_prev.shape
    rows = []
    for i in range(B):
        a = b.clone()
        for j in range(H):
            a[j] = a[j] + (W[j] * h_prev[i]).sum() + (U[j] * x_t[i]).sum()
        rows.append(torch.tanh(a))
    return torch.stack(rows)
''',
        "rnn_forward": '''def rnn_forward(x, h0, U, W, b):
    B, T, D = x.shape
    hs = torch.zeros(B, T, h0.shape[1], dtype=x.dtype, device=x.device)
    h = h0
    t = 0
    while t < T:
        h = rnn_step(x[:, t, :], h, U, W, b)
        hs[:, t, :] = h
        t += 1
    return hs, hs[:, -1, :]
''',
        "clip_grad_norm": '''import math
def clip_grad_norm(parameters, max_norm):
    params = list(parameters)
    squares = 0.0
    for p in params:
        if p.grad is None:
            continue
        for value in p.grad.flatten().tolist():
            squares += value * value
    total = math.sqrt(squares)
    if total > max_norm:
        factor = max_norm / total
        for p in params:
            if p.grad is not None:
                p.grad *= factor
    return total
''',
    },
    "vectorised": {
        "rnn_step": '''def rnn_step(x_t, h_prev, U, W, b):
    return torch.tanh(torch.addmm(torch.addmm(b, h_prev, W.T), x_t, U.T))
''',
        "rnn_forward": '''def rnn_forward(x, h0, U, W, b):
    inputs = torch.einsum("btd,hd->bth", x, U) + b
    states = [h0]
    for t in range(x.shape[1]):
        states.append(torch.tanh(inputs[:, t] + torch.nn.functional.linear(states[-1], W)))
    hs = torch.stack(states[1:], dim=1)
    return hs, states[-1]
''',
        "clip_grad_norm": '''def clip_grad_norm(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.linalg.vector_norm(torch.cat([g.flatten() for g in grads]))
    coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    with torch.no_grad():
        torch._foreach_mul_(grads, coef.item())
    return total
''',
    },
}

#: Answers that call what the exercise asks the student to write.
CHEATS = [
    Wrong("step_calls_rnncell", "rnn_step",
          "def rnn_step(x_t, h_prev, U, W, b):\n    cell = torch.nn.RNNCell(U.shape[1], U.shape[0])\n"
          "    return cell(x_t, h_prev)\n", "check_rnn_step", "switched off"),
    Wrong("step_calls_course_lib", "rnn_step",
          "import course_lib.rnn\ndef rnn_step(x_t, h_prev, U, W, b):\n"
          "    return course_lib.rnn.rnn_step(x_t, h_prev, U, W, b)\n", "check_rnn_step", "switched off"),
    Wrong("step_calls_vf", "rnn_step",
          "def rnn_step(x_t, h_prev, U, W, b):\n    return torch.rnn_tanh_cell(x_t, h_prev, U, W, b, torch.zeros_like(b))\n",
          "check_rnn_step", "switched off"),
    Wrong("forward_calls_nn_rnn", "rnn_forward",
          "from torch import nn\ndef rnn_forward(x, h0, U, W, b):\n    rnn = nn.RNN(U.shape[1], U.shape[0], batch_first=True)\n"
          "    return rnn(x, h0[None])\n", "check_rnn_forward", "switched off"),
    Wrong("forward_calls_course_lib", "rnn_forward",
          "from course_lib.rnn import rnn_forward as reference\ndef rnn_forward(x, h0, U, W, b):\n"
          "    return reference(x, h0, U, W, b)\n", "check_rnn_forward", "switched off"),
    Wrong("clip_calls_torch", "clip_grad_norm",
          "def clip_grad_norm(parameters, max_norm):\n    return torch.nn.utils.clip_grad_norm_(parameters, max_norm)\n",
          "check_clip_grad_norm", "switched off"),
    Wrong("clip_calls_clip_grad_module", "clip_grad_norm",
          "from torch.nn.utils.clip_grad import clip_grad_norm_\ndef clip_grad_norm(parameters, max_norm):\n"
          "    return clip_grad_norm_(parameters, max_norm)\n", "check_clip_grad_norm", "switched off"),
    Wrong("clip_calls_halves", "clip_grad_norm",
          "def clip_grad_norm(parameters, max_norm):\n    params = [p for p in parameters if p.grad is not None]\n"
          "    total = torch.nn.utils.get_total_norm([p.grad for p in params])\n"
          "    torch.nn.utils.clip_grads_with_norm_(params, max_norm, total)\n    return total\n",
          "check_clip_grad_norm", "switched off"),
]

#: Answer cells replaced by a stub that raises NotImplementedError, and the test cell that must say so.
STUBS = [("rnn_step", "check_rnn_step"), ("rnn_forward", "check_rnn_forward"), ("clip_grad_norm", "check_clip_grad_norm")]

#: An answer cell whose infinite loop costs only its own test cell.
LOOP = ("clip_grad_norm", "check_clip_grad_norm")
