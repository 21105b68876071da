"""Third blind set for notebook 03 (RNNs, vanishing gradients), written from the student notebook only."""
from blind_case import Blind

NOTEBOOK = "03_rnn_vanishing"

_INPLACE = (("modif",), ("in place",), ("in-place",), ("mutat",), ("caller",), ("overwr",))


def _step(body):
    return ('''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
''' + body)


def _fwd(body):
    return ('''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
''' + body)


def _clip(body):
    return ('''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
''' + body)


BLIND = [
    # ---- rnn_step
    Blind(name="step_sigmoid", cell="rnn_step", test_cell="check_rnn_step",
          source=_step('''    return torch.sigmoid(b + h_prev @ W.T + x_t @ U.T)
'''),
          mistake="uses the slide's sigma (sigmoid) instead of tanh",
          names_it=(("tanh",),),
          part="the activation"),
    Blind(name="step_hardtanh", cell="rnn_step", test_cell="check_rnn_step",
          source=_step('''    return torch.clamp(b + h_prev @ W.T + x_t @ U.T, -1.0, 1.0)
'''),
          mistake="clamps to [-1, 1] (a hard tanh) instead of applying tanh",
          names_it=(("tanh",),),
          part="the activation"),
    Blind(name="step_w_not_transposed", cell="rnn_step", test_cell="check_rnn_step",
          source=_step('''    return torch.tanh(b + h_prev @ W + x_t @ U.T)
'''),
          mistake="multiplies by W instead of W.T (weights are stored as (out, in))",
          names_it=(("transpose",), ("w.t",), ("(out, in)",), ("hidden-to-hidden",)),
          part="W not transposed"),
    Blind(name="step_swapped_weights", cell="rnn_step", test_cell="check_rnn_step",
          source=_step('''    return torch.tanh(b + h_prev @ U.T + x_t @ W.T)
'''),
          mistake="swaps U and W: the input goes through W and the state through U",
          names_it=(("swap",), ("input-to-hidden",), ("hidden-to-hidden",), ("u and w",), ("w and u",)),
          part="U and W swapped"),
    Blind(name="step_bias_outside", cell="rnn_step", test_cell="check_rnn_step",
          source=_step('''    return torch.tanh(h_prev @ W.T + x_t @ U.T) + b
'''),
          mistake="adds b after the tanh instead of inside it",
          names_it=(("bias",), ("inside",), ("before the tanh",)),
          part="where b is added"),
    Blind(name="step_overwrites_h_prev", cell="rnn_step", test_cell="check_rnn_step",
          source=_step('''    with torch.no_grad():
        h_prev.copy_(torch.tanh(b + h_prev @ W.T + x_t @ U.T))
    return h_prev
'''),
          mistake="writes the new state into the caller's h_prev in place (and outside autograd)",
          names_it=_INPLACE + (("changed", "h_prev"), ("gradient",)),
          part="h_prev overwritten in place"),
    Blind(name="step_detached", cell="rnn_step", test_cell="check_rnn_step",
          source=_step('''    return torch.tanh(b + h_prev @ W.T + x_t @ U.T).detach()
'''),
          mistake="detaches the new state, so no gradient flows back through the step",
          names_it=(("gradient",), ("detach",), ("requires_grad",), ("grad_fn",), ("autograd",)),
          part="the state detached"),
    # ---- rnn_forward
    Blind(name="fwd_includes_h0", cell="rnn_forward", test_cell="check_rnn_forward",
          source=_fwd('''    h = h0
    hs = [h0]
    for t in range(x.shape[1]):
        h = rnn_step(x[:, t], h, U, W, b)
        hs.append(h)
    return torch.stack(hs, dim=1), h
'''),
          mistake="stacks h0 in front of the states: hs has T + 1 steps",
          names_it=(("h0",), ("h_0",), ("t + 1",), ("shape",), ("(b, t, h)",)),
          part="h0 included in hs"),
    Blind(name="fwd_state_not_fed", cell="rnn_forward", test_cell="check_rnn_forward",
          source=_fwd('''    hs = [rnn_step(x[:, t], h0, U, W, b) for t in range(x.shape[1])]
    return torch.stack(hs, dim=1), hs[-1]
'''),
          mistake="every step starts from h0 instead of the state just computed",
          names_it=(("previous state",), ("feed",), ("h0",), ("just computed",), ("recurren",)),
          part="the state passed to the next step"),
    Blind(name="fwd_backwards", cell="rnn_forward", test_cell="check_rnn_forward",
          source=_fwd('''    h = h0
    hs = []
    for t in reversed(range(x.shape[1])):
        h = rnn_step(x[:, t], h, U, W, b)
        hs.append(h)
    return torch.stack(hs, dim=1), h
'''),
          mistake="reads the sequence backwards (from the last step to the first)",
          names_it=(("order",), ("backward",), ("revers",), ("first to last",)),
          part="the direction of time"),
    Blind(name="fwd_time_major", cell="rnn_forward", test_cell="check_rnn_forward",
          source=_fwd('''    h = h0
    hs = []
    for t in range(x.shape[1]):
        h = rnn_step(x[:, t], h, U, W, b)
        hs.append(h)
    return torch.stack(hs), h
'''),
          mistake="stacks the states along a new first axis: hs is (T, B, H) instead of (B, T, H)",
          names_it=(("shape",), ("(b, t, h)",), ("time axis",), ("axis",), ("dim=1",)),
          part="the stacking axis"),
    Blind(name="fwd_h0_in_place", cell="rnn_forward", test_cell="check_rnn_forward",
          source=_fwd('''    h = h0
    hs = []
    with torch.no_grad():
        for t in range(x.shape[1]):
            h.copy_(rnn_step(x[:, t], h, U, W, b))
            hs.append(h.clone())
    return torch.stack(hs, dim=1), h
'''),
          mistake="keeps the state in the caller's h0 tensor, overwriting it step by step (and outside autograd)",
          names_it=_INPLACE + (("changed", "h0"), ("gradient",)),
          part="h0 overwritten in place"),
    Blind(name="fwd_detached_steps", cell="rnn_forward", test_cell="check_rnn_forward",
          source=_fwd('''    h = h0
    hs = []
    for t in range(x.shape[1]):
        h = rnn_step(x[:, t], h, U, W, b).detach()
        hs.append(h)
    return torch.stack(hs, dim=1), h
'''),
          mistake="detaches every state, so backpropagation through time is cut",
          names_it=(("gradient",), ("detach",), ("requires_grad",), ("grad_fn",), ("through time",)),
          part="the states detached"),
    Blind(name="fwd_last_state_wrong", cell="rnn_forward", test_cell="check_rnn_forward",
          source=_fwd('''    h = h0
    hs = []
    for t in range(x.shape[1]):
        h = rnn_step(x[:, t], h, U, W, b)
        hs.append(h)
    hs = torch.stack(hs, dim=1)
    return hs, hs[:, -2]
'''),
          mistake="returns the second-to-last state as h_T (off by one)",
          names_it=(("h_t",), ("last state",), ("final state",)),
          part="the returned last state"),
    # ---- clip_grad_norm
    Blind(name="clip_per_tensor", cell="clip_grad_norm", test_cell="check_clip_grad_norm",
          source=_clip('''    total = 0.0
    for p in parameters:
        if p.grad is None:
            continue
        norm = p.grad.norm()
        total += float(norm) ** 2
        if norm > max_norm:
            p.grad.mul_(max_norm / norm)
    return total ** 0.5
'''),
          mistake="clips each tensor to max_norm separately instead of scaling all by the global norm",
          names_it=(("global",), ("each tensor",), ("separately",), ("direction",), ("all the gradients",)),
          part="per-tensor instead of global clipping"),
    Blind(name="clip_l1", cell="clip_grad_norm", test_cell="check_clip_grad_norm",
          source=_clip('''    grads = [p.grad for p in parameters if p.grad is not None]
    total = sum(g.abs().sum() for g in grads)
    if total > max_norm:
        for g in grads:
            g.mul_(max_norm / total)
    return total
'''),
          mistake="measures the gradient with an L1 norm (sum of absolute values) instead of L2",
          names_it=(("l2",), ("l1",), ("square",), ("euclid",)),
          part="the norm used"),
    Blind(name="clip_by_value", cell="clip_grad_norm", test_cell="check_clip_grad_norm",
          source=_clip('''    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((g ** 2).sum() for g in grads))
    for g in grads:
        g.clamp_(-max_norm, max_norm)
    return total
'''),
          mistake="clips every entry by value instead of rescaling by the norm",
          names_it=(("value",), ("direction",), ("scale",), ("rescal",)),
          part="clipping by value"),
    Blind(name="clip_returns_after", cell="clip_grad_norm", test_cell="check_clip_grad_norm",
          source=_clip('''    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((g ** 2).sum() for g in grads))
    if total > max_norm:
        for g in grads:
            g.mul_(max_norm / total)
        total = torch.sqrt(sum((g ** 2).sum() for g in grads))
    return total
'''),
          mistake="returns the norm after clipping instead of before",
          names_it=(("before",), ("returned norm",), ("return",)),
          part="the returned norm"),
    Blind(name="clip_generator_twice", cell="clip_grad_norm", test_cell="check_clip_grad_norm",
          source=_clip('''    total = torch.sqrt(sum((p.grad ** 2).sum() for p in parameters if p.grad is not None))
    if total > max_norm:
        for p in parameters:
            if p.grad is not None:
                p.grad.mul_(max_norm / total)
    return total
'''),
          mistake="loops over parameters twice: a generator is exhausted after the first loop, so nothing is clipped",
          names_it=(("generator",), ("once",), ("iterable",), ("exhaust",)),
          part="the generator looped over twice"),
    Blind(name="clip_not_in_place", cell="clip_grad_norm", test_cell="check_clip_grad_norm",
          source=_clip('''    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((g ** 2).sum() for g in grads))
    if total > max_norm:
        grads = [g * (max_norm / total) for g in grads]
    return total
'''),
          mistake="computes scaled copies of the gradients but never writes them back to .grad",
          names_it=(("in place",), ("in-place",), (".grad",), ("unchanged",), ("not scaled",), ("not clipped",)),
          part="the gradients not changed in place"),
    Blind(name="clip_always_scales", cell="clip_grad_norm", test_cell="check_clip_grad_norm",
          source=_clip('''    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((g ** 2).sum() for g in grads))
    for g in grads:
        g.mul_(max_norm / total)
    return total
'''),
          mistake="rescales even when the norm is below max_norm, which scales small gradients up",
          names_it=(("below",), ("only if",), ("exceeds",), ("small",), ("unchanged",)),
          part="the condition total > max_norm"),
    Blind(name="clip_sum_of_norms", cell="clip_grad_norm", test_cell="check_clip_grad_norm",
          source=_clip('''    grads = [p.grad for p in parameters if p.grad is not None]
    total = sum(g.norm() for g in grads)
    if total > max_norm:
        for g in grads:
            g.mul_(max_norm / total)
    return total
'''),
          mistake="adds the tensors' norms instead of taking the square root of the sum of their squares",
          names_it=(("square",), ("sqrt",), ("global norm",), ("l2",)),
          part="how the per-tensor norms are combined"),
    Blind(name="clip_none_grads", cell="clip_grad_norm", test_cell="check_clip_grad_norm",
          source=_clip('''    params = list(parameters)
    total = torch.sqrt(sum((p.grad ** 2).sum() for p in params))
    if total > max_norm:
        for p in params:
            p.grad.mul_(max_norm / total)
    return total
'''),
          mistake="does not skip parameters whose .grad is None",
          names_it=(("none",),),
          part="parameters without a gradient"),
]

ALTERNATIVES = {
    "explicit": {
        "rnn_step": _step('''    a = b + torch.matmul(h_prev, W.t()) + torch.matmul(x_t, U.t())
    return torch.tanh(a)
'''),
        "rnn_forward": _fwd('''    B, T, _ = x.shape
    h = h0
    hs = []
    for t in range(T):
        h = rnn_step(x[:, t, :], h, U, W, b)
        hs.append(h)
    return torch.stack(hs, dim=1), h
'''),
        "clip_grad_norm": _clip('''    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    if total_norm > max_norm:
        with torch.no_grad():
            for g in grads:
                g.mul_(max_norm / (total_norm + 1e-6))
    return total_norm
'''),
    },
    "einsum_linear": {
        "rnn_step": _step('''    return torch.tanh(torch.einsum("bh,kh->bk", h_prev, W) + torch.einsum("bd,hd->bh", x_t, U) + b)
'''),
        "rnn_forward": _fwd('''    states = []
    h = h0
    for x_t in x.unbind(dim=1):
        h = rnn_step(x_t=x_t, h_prev=h, U=U, W=W, b=b)
        states.append(h)
    hs = torch.stack(states, dim=1)
    return hs, hs[:, -1]
'''),
        "clip_grad_norm": _clip('''    total_sq = 0.0
    grads = []
    for p in parameters:
        if p.grad is not None:
            grads.append(p.grad)
            total_sq = total_sq + p.grad.detach().pow(2).sum()
    total = math.sqrt(float(total_sq))
    if total > max_norm:
        for g in grads:
            g.detach().mul_(max_norm / total)
    return total
'''),
    },
    "functional_preallocated": {
        "rnn_step": _step('''    return torch.tanh(torch.nn.functional.linear(x_t, U) + torch.nn.functional.linear(h_prev, W, b))
'''),
        "rnn_forward": _fwd('''    B, T, _ = x.shape
    hs = x.new_zeros(B, T, h0.shape[1])
    h = h0
    for t in range(T):
        h = rnn_step(x[:, t], h, U, W, b)
        hs[:, t] = h
    return (hs, h)
'''),
        "clip_grad_norm": _clip('''    grads = [p.grad for p in parameters if p.grad is not None]
    flat = torch.cat([g.reshape(-1) for g in grads])
    total = flat.norm(2)
    scale = min(1.0, max_norm / (float(total) + 1e-6))
    if scale < 1.0:
        with torch.no_grad():
            for g in grads:
                g *= scale
    return total
'''),
    },
}
