"""Blind wrong answers and alternative correct answers for notebook 03_rnn_vanishing.

Written by a tester who read only the student notebook, the README's "For students" part,
blind_case.py and course_lib/rnn.py; no check was run on these sources.
"""
from blind_case import Blind

NOTEBOOK = "03_rnn_vanishing"

BLIND = [
    # ------------------------------------------------------------------ rnn_step
    Blind(
        name="step_sigmoid_from_slide",
        cell="rnn_step",
        source='''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    a_t = b + h_prev @ W.T + x_t @ U.T
    return torch.sigmoid(a_t)
''',
        test_cell="check_rnn_step",
        mistake="Copied the slide's sigma and squashed the pre-activation with a sigmoid instead of tanh.",
        names_it=(("sigmoid",), ("tanh", "instead"), ("tanh", "not"), ("wrong", "nonlinearity"), ("wrong", "activation"), ("(0, 1)",)),
    ),
    Blind(
        name="step_no_bias",
        cell="rnn_step",
        source='''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    return torch.tanh(h_prev @ W.T + x_t @ U.T)
''',
        test_cell="check_rnn_step",
        mistake="Left out the bias b from the pre-activation.",
        names_it=(("bias",), ("+ b",)),
    ),
    Blind(
        name="step_W_not_transposed",
        cell="rnn_step",
        source='''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    # W is square, so no transpose needed (U needs one to make the shapes fit)
    return torch.tanh(b + h_prev @ W + x_t @ U.T)
''',
        test_cell="check_rnn_step",
        mistake="Multiplied by W instead of W.T (h_prev @ W), i.e. computed W^T h_{t-1}; the shapes fit because W is square.",
        names_it=(("transpose",), ("w.t",), ("w^t",), ("transposed",)),
    ),
    Blind(
        name="step_no_tanh",
        cell="rnn_step",
        source='''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    a_t = b + h_prev @ W.T + x_t @ U.T
    h_t = a_t
    return h_t
''',
        test_cell="check_rnn_step",
        mistake="Returned the pre-activation a_t and never applied tanh.",
        names_it=(("missing", "tanh"), ("forgot", "tanh"), ("without", "tanh"), ("apply", "tanh"), ("no tanh",), ("pre-activation",), ("a_t",), ("(-1, 1)",), ("nonlinearity",)),
    ),
    Blind(
        name="step_bias_outside_tanh",
        cell="rnn_step",
        source='''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    return torch.tanh(h_prev @ W.T + x_t @ U.T) + b
''',
        test_cell="check_rnn_step",
        mistake="Added the bias after the tanh instead of inside it (tanh(Wh + Ux) + b).",
        names_it=(("bias", "inside"), ("bias", "before"), ("bias", "outside"), ("bias", "after"), ("b", "inside", "tanh"), ("b", "before", "tanh")),
    ),
    # ------------------------------------------------------------------ rnn_forward
    Blind(
        name="forward_state_not_fed_back",
        cell="rnn_forward",
        source='''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    hs = []
    for t in range(x.shape[1]):
        h = rnn_step(x[:, t], h0, U, W, b)
        hs.append(h)
    return torch.stack(hs, dim=1), h
''',
        test_cell="check_rnn_forward",
        mistake="Passed h0 to every step instead of the state just computed, so the state never carries forward.",
        names_it=(("previous", "state"), ("h0", "every"), ("h0", "each"), ("same", "h0"), ("feed",), ("carry",), ("new state",), ("just computed",)),
    ),
    Blind(
        name="forward_includes_h0_shifted",
        cell="rnn_forward",
        source='''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    h = h0
    hs = []
    for t in range(x.shape[1]):
        hs.append(h)
        h = rnn_step(x[:, t], h, U, W, b)
    return torch.stack(hs, dim=1), h
''',
        test_cell="check_rnn_forward",
        mistake="Appended the state before updating it, so hs holds h0..h_{T-1} (shifted by one step, h0 included) instead of h1..h_T.",
        names_it=(("h0", "includ"), ("h0", "not part"), ("h0", "first"), ("shifted",), ("off by one",), ("one step", "early"), ("one step", "behind"), ("before", "update")),
    ),
    Blind(
        name="forward_stack_time_first",
        cell="rnn_forward",
        source='''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    h = h0
    hs = []
    for t in range(x.shape[1]):
        h = rnn_step(x[:, t], h, U, W, b)
        hs.append(h)
    hs = torch.stack(hs)
    return hs, h
''',
        test_cell="check_rnn_forward",
        mistake="Stacked the states along dim 0 (default), returning hs of shape (T, B, H) instead of (B, T, H).",
        names_it=(("(b, t, h)",), ("(t, b, h)",), ("dim=1",), ("time axis",), ("batch first",), ("batch_first",), ("shape", "(2, 5,"), ("shape", "(5, 2,")),
    ),
    Blind(
        name="forward_skips_last_step",
        cell="rnn_forward",
        source='''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    T = x.shape[1]
    h = h0
    hs = []
    for t in range(T - 1):
        h = rnn_step(x[:, t], h, U, W, b)
        hs.append(h)
    return torch.stack(hs, dim=1), h
''',
        test_cell="check_rnn_forward",
        mistake="Off-by-one loop range(T - 1): the last input is never read, so hs has T-1 steps and h_T is really h_{T-1}.",
        names_it=(("last", "step"), ("last", "input"), ("t - 1",), ("t-1",), ("off by one",), ("missing", "step"), ("shape", "(2, 4,"), ("every", "step")),
    ),
    Blind(
        name="forward_returns_first_state",
        cell="rnn_forward",
        source='''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    h = h0
    states = []
    for t in range(x.shape[1]):
        h = rnn_step(x[:, t], h, U, W, b)
        states.append(h)
    hs = torch.stack(states, dim=1)
    return hs, hs[:, 0]
''',
        test_cell="check_rnn_forward",
        mistake="hs is right, but the returned h_T is hs[:, 0] (the first state) instead of the last one hs[:, -1].",
        names_it=(("h_t", "last"), ("h_t", "first"), ("final", "state"), ("last", "state"), ("hs[:, -1]",)),
    ),
    Blind(
        name="forward_reads_sequence_backwards",
        cell="rnn_forward",
        source='''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    T = x.shape[1]
    h = h0
    hs = []
    for t in range(T):
        h = rnn_step(x[:, T - 1 - t], h, U, W, b)
        hs.append(h)
    return torch.stack(hs, dim=1), h
''',
        test_cell="check_rnn_forward",
        mistake="Indexed the inputs from the end (x[:, T-1-t]), reading the sequence in reverse order.",
        names_it=(("order",), ("reverse",), ("reversed",), ("backwards",), ("backward", "order")),
    ),
    # ------------------------------------------------------------------ clip_grad_norm
    Blind(
        name="clip_per_tensor",
        cell="clip_grad_norm",
        source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    total_sq = 0.0
    with torch.no_grad():
        for p in parameters:
            if p.grad is None:
                continue
            n = p.grad.norm()
            total_sq += n ** 2
            if n > max_norm:
                p.grad.mul_(max_norm / n)
    return total_sq ** 0.5
''',
        test_cell="check_clip_grad_norm",
        mistake="Clipped each tensor by its own norm instead of scaling all gradients by one factor from the global norm (the returned total norm is right).",
        names_it=(("separately",), ("individually",), ("per", "tensor"), ("per", "parameter"), ("each", "own"), ("direction",), ("same", "factor")),
    ),
    Blind(
        name="clip_sum_of_norms",
        cell="clip_grad_norm",
        source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = sum(g.norm() for g in grads)
    if total_norm > max_norm:
        for g in grads:
            g.mul_(max_norm / total_norm)
    return total_norm
''',
        test_cell="check_clip_grad_norm",
        mistake="Added up the per-tensor norms instead of taking the square root of the sum of squared norms.",
        names_it=(("sum", "squares"), ("squared",), ("square root",), ("sqrt",), ("sum", "norms")),
    ),
    Blind(
        name="clip_generator_consumed_twice",
        cell="clip_grad_norm",
        source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    total = 0.0
    for p in parameters:
        if p.grad is not None:
            total += (p.grad ** 2).sum()
    total_norm = torch.sqrt(torch.as_tensor(total))
    if total_norm > max_norm:
        for p in parameters:
            if p.grad is not None:
                p.grad.mul_(max_norm / total_norm)
    return total_norm
''',
        test_cell="check_clip_grad_norm",
        mistake="Looped over `parameters` twice; when it is a generator the second loop sees nothing, so nothing is clipped.",
        names_it=(("generator",), ("list(",), ("once",), ("twice",), ("exhausted",), ("iterate", "only")),
    ),
    Blind(
        name="clip_returns_norm_after",
        cell="clip_grad_norm",
        source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = torch.sqrt(sum((g ** 2).sum() for g in grads))
    if total_norm > max_norm:
        for g in grads:
            g.mul_(max_norm / total_norm)
        total_norm = torch.sqrt(sum((g ** 2).sum() for g in grads))
    return total_norm
''',
        test_cell="check_clip_grad_norm",
        mistake="Clipping is right, but it returns the norm after clipping (about max_norm) instead of the norm before.",
        names_it=(("before", "clipping"), ("after", "clipping"), ("already", "clipped"), ("clipped", "norm")),
    ),
    Blind(
        name="clip_always_rescales",
        cell="clip_grad_norm",
        source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = torch.sqrt(sum(g.pow(2).sum() for g in grads))
    coef = max_norm / (total_norm + 1e-6)
    for g in grads:
        g.mul_(coef)
    return total_norm
''',
        test_cell="check_clip_grad_norm",
        mistake="Forgot the 'if total_norm > max_norm' condition: small gradients are scaled up to max_norm too.",
        names_it=(("scaled up",), ("scale", "up"), ("only", "exceeds"), ("only", "above"), ("only when",), ("only if",), ("unchanged",), ("untouched",), ("left alone",)),
    ),
    Blind(
        name="clip_rebinds_local_not_in_place",
        cell="clip_grad_norm",
        source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = torch.sqrt(sum((g * g).sum() for g in grads))
    if total_norm > max_norm:
        for g in grads:
            g = g * (max_norm / total_norm)
    return total_norm
''',
        test_cell="check_clip_grad_norm",
        mistake="Wrote g = g * coef, which only rebinds the loop variable; the parameters' .grad are never changed.",
        names_it=(("in place",), ("in-place",), ("not modified",), ("unchanged",), ("mul_",), ("not changed",)),
    ),
    Blind(
        name="clip_forgot_sqrt",
        cell="clip_grad_norm",
        source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    total_norm = 0.0
    params = [p for p in parameters if p.grad is not None]
    for p in params:
        total_norm += p.grad.norm() ** 2
    if total_norm > max_norm:
        for p in params:
            p.grad *= max_norm / total_norm
    return total_norm
''',
        test_cell="check_clip_grad_norm",
        mistake="Summed the squared norms but never took the square root, so the 'norm' is the squared norm.",
        names_it=(("square root",), ("sqrt",), ("squared",)),
    ),
]


ALTERNATIVES = {
    "explicit_loops_and_linear": {
        "rnn_step": '''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    import torch.nn.functional as F
    return torch.tanh(F.linear(h_prev, W) + F.linear(x_t, U, b))
''',
        "rnn_forward": '''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    B, T, _ = x.shape
    hs = x.new_empty(B, T, h0.shape[1])
    h = h0
    for t in range(T):
        h = rnn_step(x[:, t, :], h, U, W, b)
        hs[:, t, :] = h
    return hs, h
''',
        "clip_grad_norm": '''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    grads = []
    for p in parameters:
        if p.grad is not None:
            grads.append(p.grad)
    squares = 0.0
    for g in grads:
        squares = squares + float((g.double() ** 2).sum())
    total_norm = math.sqrt(squares)
    if total_norm > max_norm:
        scale = max_norm / (total_norm + 1e-6)
        with torch.no_grad():
            for g in grads:
                g.mul_(scale)
    return total_norm
''',
    },
    "einsum_unbind_vector_norm": {
        "rnn_step": '''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    a_t = torch.einsum("hd,bd->bh", U, x_t) + torch.einsum("hk,bk->bh", W, h_prev) + b
    return a_t.tanh()
''',
        "rnn_forward": '''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    states = []
    h = h0
    for x_t in x.unbind(dim=1):
        h = rnn_step(x_t=x_t, h_prev=h, U=U, W=W, b=b)
        states.append(h)
    hs = torch.stack(states, dim=1)
    return hs, hs[:, -1]
''',
        "clip_grad_norm": '''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    norms = torch.stack([torch.linalg.vector_norm(g.detach()) for g in grads])
    total_norm = torch.linalg.vector_norm(norms)
    clip_coef = max_norm / (total_norm + 1e-6)
    if clip_coef < 1:
        for g in grads:
            g.detach().mul_(clip_coef)
    return total_norm
''',
    },
    "transpose_mul_and_cat": {
        "rnn_step": '''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    # one matrix product: [h_prev, x_t] @ [W, U].T
    Wcat = torch.cat([W, U], dim=1)                 # (H, H + D)
    hx = torch.cat([h_prev, x_t], dim=1)            # (B, H + D)
    return torch.tanh((Wcat @ hx.T).T + b)
''',
        "rnn_forward": '''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    h_t = h0
    outs = []
    t = 0
    while t < x.size(1):
        h_t = rnn_step(x.select(1, t), h_t, U, W, b)
        outs.append(h_t.unsqueeze(1))
        t += 1
    return torch.cat(outs, dim=1), h_t
''',
        "clip_grad_norm": '''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    params = [p for p in parameters if p.grad is not None]
    with torch.no_grad():
        flat = torch.cat([p.grad.reshape(-1) for p in params]) if params else torch.zeros(0)
        total_norm = flat.norm(2)
        if total_norm > max_norm:
            for p in params:
                p.grad *= max_norm / total_norm
    return total_norm
''',
    },
}
