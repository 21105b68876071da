"""Blind cases for notebook 03_rnn_vanishing, written without reading the checks."""
from blind_case import Blind

NOTEBOOK = "03_rnn_vanishing"

BLIND = [
    # ------------------------------------------------------------------ rnn_step
    Blind(
        name="step_W_not_transposed",
        cell="rnn_step",
        source='''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    return torch.tanh(b + h_prev @ W + x_t @ U.T)
''',
        test_cell="check_rnn_step",
        mistake="Multiplies h_prev by W instead of W.T (the shapes fit because W is square), so the "
                "hidden-to-hidden product uses the transposed matrix.",
        names_it=(("transpose",), ("w.t",), ("w.t()",), ("w^t",), ("w^⊤",), ("(out, in)",)),
    ),
    Blind(
        name="step_no_tanh",
        cell="rnn_step",
        source='''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    a_t = b + h_prev @ W.T + x_t @ U.T
    return a_t
''',
        test_cell="check_rnn_step",
        mistake="Returns the pre-activation a_t and forgets to apply tanh.",
        names_it=(("tanh",), ("nonlinearity",), ("activation",), ("pre-activation",), ("a_t",)),
    ),
    Blind(
        name="step_sigmoid_from_slide",
        cell="rnn_step",
        source='''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    # the slide writes sigma
    return torch.sigmoid(b + h_prev @ W.T + x_t @ U.T)
''',
        test_cell="check_rnn_step",
        mistake="Uses the sigmoid printed on the slide instead of tanh, so the states lie in (0, 1) and not (-1, 1).",
        names_it=(("sigmoid",), ("σ",), ("logistic",), ("(0, 1)",), ("tanh", "instead")),
    ),
    Blind(
        name="step_bias_outside_tanh",
        cell="rnn_step",
        source='''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    return torch.tanh(h_prev @ W.T + x_t @ U.T) + b
''',
        test_cell="check_rnn_step",
        mistake="Adds the bias b after the tanh instead of inside it (b belongs to the pre-activation a_t).",
        names_it=(("bias", "inside"), ("bias", "outside"), ("bias", "after"), ("bias", "before"),
                  ("b", "inside", "tanh"), ("b", "after", "tanh")),
    ),
    Blind(
        name="step_bias_twice",
        cell="rnn_step",
        source='''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    # nn.RNNCell has a bias for the input and one for the hidden state
    a_t = (x_t @ U.T + b) + (h_prev @ W.T + b)
    return torch.tanh(a_t)
''',
        test_cell="check_rnn_step",
        mistake="Mimics PyTorch's two biases by adding b once for the input and once for the hidden term, "
                "so the bias is counted twice (b is already their sum).",
        names_it=(("bias", "twice"), ("b", "twice"), ("bias", "double"), ("2b",), ("2 * b",), ("bias", "once")),
    ),
    Blind(
        name="step_missing_recurrent_term",
        cell="rnn_step",
        source='''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    h_t = torch.tanh(b + x_t @ U.T)
    return h_t
''',
        test_cell="check_rnn_step",
        mistake="Leaves out the recurrent term W h_prev, so the new state ignores the previous one.",
        names_it=(("h_prev",), ("previous state",), ("recurrent",), ("w h",), ("hidden-to-hidden",)),
    ),
    # ------------------------------------------------------------------ rnn_forward
    Blind(
        name="fwd_append_before_step",
        cell="rnn_forward",
        source='''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    h = h0
    states = []
    for t in range(x.shape[1]):
        states.append(h)
        h = rnn_step(x[:, t], h, U, W, b)
    hs = torch.stack(states, dim=1)
    return hs, h
''',
        test_cell="check_rnn_forward",
        mistake="Appends the state before updating it, so hs holds h_0 .. h_{T-1} (shifted by one step, "
                "starting with h0) instead of h_1 .. h_T.",
        names_it=(("h0",), ("h_0",), ("shift",), ("one step", "late"), ("one step", "behind"),
                  ("off by one",), ("off-by-one",), ("before", "update")),
    ),
    Blind(
        name="fwd_stack_time_first",
        cell="rnn_forward",
        source='''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    h = h0
    hs = []
    for t in range(x.shape[1]):
        h = rnn_step(x[:, t], h, U, W, b)
        hs.append(h)
    return torch.stack(hs), h
''',
        test_cell="check_rnn_forward",
        mistake="Stacks the states with the default dim=0, so hs comes out as (T, B, H) instead of (B, T, H).",
        names_it=(("dim=1",), ("dim 1",), ("axis",), ("(t, b, h)",), ("(b, t, h)",), ("time", "first"),
                  ("batch_first",), ("transpose",)),
    ),
    Blind(
        name="fwd_always_from_h0",
        cell="rnn_forward",
        source='''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    hs = []
    for t in range(x.shape[1]):
        h_t = rnn_step(x[:, t], h0, U, W, b)
        hs.append(h_t)
    hs = torch.stack(hs, dim=1)
    return hs, hs[:, -1]
''',
        test_cell="check_rnn_forward",
        mistake="Computes every step from h0 instead of from the state just computed, so nothing is carried "
                "from one step to the next.",
        names_it=(("previous",), ("h0", "every"), ("h0", "each"), ("carry",), ("feed",), ("chain",),
                  ("just computed",)),
    ),
    Blind(
        name="fwd_shape_unpacked_TB",
        cell="rnn_forward",
        source='''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    T, B, D = x.shape
    h = h0
    hs = []
    for t in range(T):
        h = rnn_step(x[:, t], h, U, W, b)
        hs.append(h)
    return torch.stack(hs, dim=1), h
''',
        test_cell="check_rnn_forward",
        mistake="Unpacks x.shape as (T, B, D), so the loop runs over B steps instead of T (only the first "
                "B time steps are read when B < T).",
        names_it=(("x.shape[1]",), ("shape[1]",), ("batch", "time"), ("b", "steps"), ("steps", "t ="),
                  ("every step",), ("all", "steps"), ("number of steps",), ("too few",)),
    ),
    Blind(
        name="fwd_last_state_wrong_axis",
        cell="rnn_forward",
        source='''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    h = h0
    hs = []
    for t in range(x.shape[1]):
        h = rnn_step(x[:, t], h, U, W, b)
        hs.append(h)
    hs = torch.stack(hs, dim=1)
    h_T = hs[-1]
    return hs, h_T
''',
        test_cell="check_rnn_forward",
        mistake="Takes the last state as hs[-1], which is the last sequence of the batch (T, H), not the last "
                "time step hs[:, -1] (B, H).",
        names_it=(("h_t",), ("last state",), ("final state",), ("second", "return"), ("hs[:, -1]",)),
    ),
    Blind(
        name="fwd_prealloc_float32",
        cell="rnn_forward",
        source='''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    B, T, _ = x.shape
    H = h0.shape[1]
    hs = torch.zeros(B, T, H)
    h = h0
    for t in range(T):
        h = rnn_step(x[:, t], h, U, W, b)
        hs[:, t] = h
    return hs, h
''',
        test_cell="check_rnn_forward",
        mistake="Preallocates hs with torch.zeros(B, T, H), which is float32 (and on the CPU) whatever the "
                "input is: with float64 inputs hs has the wrong dtype and loses precision.",
        names_it=(("dtype",), ("float64",), ("float32",), ("precision",), ("double",)),
    ),
    # ------------------------------------------------------------------ clip_grad_norm
    Blind(
        name="clip_each_tensor_separately",
        cell="clip_grad_norm",
        source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    norms = []
    for p in parameters:
        if p.grad is None:
            continue
        n = p.grad.norm()
        norms.append(n)
        if n > max_norm:
            p.grad.mul_(max_norm / n)
    return torch.stack(norms).pow(2).sum().sqrt()
''',
        test_cell="check_clip_grad_norm",
        mistake="Clips each gradient tensor by its own norm instead of scaling all of them by one factor "
                "from the global norm (this changes the direction).",
        names_it=(("separately",), ("each tensor",), ("each parameter",), ("per-parameter",), ("per parameter",),
                  ("per tensor",), ("global",), ("one factor",), ("same factor",), ("direction",)),
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
        mistake="Returns the norm recomputed after clipping (about max_norm) instead of the norm before clipping.",
        names_it=(("before",), ("after clipping",), ("after", "clip"), ("original norm",), ("unclipped",)),
    ),
    Blind(
        name="clip_sum_of_norms",
        cell="clip_grad_norm",
        source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    params = [p for p in parameters if p.grad is not None]
    total_norm = sum(p.grad.norm() for p in params)
    if total_norm > max_norm:
        for p in params:
            p.grad *= max_norm / total_norm
    return total_norm
''',
        test_cell="check_clip_grad_norm",
        mistake="Adds up the per-tensor norms instead of taking the square root of the sum of their squares.",
        names_it=(("sum of norms",), ("sum of the norms",), ("squares",), ("squared",), ("sqrt",),
                  ("square root",), ("added", "norms")),
    ),
    Blind(
        name="clip_forgot_sqrt",
        cell="clip_grad_norm",
        source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    params = [p for p in parameters if p.grad is not None]
    total_norm = 0.0
    for p in params:
        total_norm += (p.grad ** 2).sum()
    if total_norm > max_norm:
        for p in params:
            p.grad.mul_(max_norm / total_norm)
    return total_norm
''',
        test_cell="check_clip_grad_norm",
        mistake="Forgets the square root: uses the sum of squared gradient entries (the squared norm) as the norm.",
        names_it=(("sqrt",), ("square root",), ("squared",), ("norm²",), ("norm ** 2",), ("norm^2",)),
    ),
    Blind(
        name="clip_generator_consumed_twice",
        cell="clip_grad_norm",
        source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    total = 0.0
    for p in parameters:
        if p.grad is not None:
            total += p.grad.norm() ** 2
    total_norm = total ** 0.5
    if total_norm > max_norm:
        for p in parameters:
            if p.grad is not None:
                p.grad.mul_(max_norm / total_norm)
    return total_norm
''',
        test_cell="check_clip_grad_norm",
        mistake="Loops over `parameters` twice; when it is a generator (model.parameters()) the second loop "
                "sees nothing, so the gradients are never scaled.",
        names_it=(("generator",), ("list(",), ("only once",), ("once",), ("consumed",), ("exhausted",),
                  ("iterate", "twice")),
    ),
    Blind(
        name="clip_always_rescales",
        cell="clip_grad_norm",
        source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = torch.sqrt(sum(g.pow(2).sum() for g in grads))
    scale = max_norm / (total_norm + 1e-6)
    for g in grads:
        g.mul_(scale)
    return total_norm
''',
        test_cell="check_clip_grad_norm",
        mistake="Always multiplies by max_norm / total_norm, even when the norm is already below max_norm, "
                "so small gradients are scaled up to max_norm.",
        names_it=(("below",), ("scaled up",), ("scale", "up"), ("only if",), ("only when",), ("exceed",),
                  ("enlarged",), ("smaller than",), ("already",)),
    ),
    Blind(
        name="clip_ratio_inverted",
        cell="clip_grad_norm",
        source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = torch.linalg.vector_norm(torch.cat([g.flatten() for g in grads]))
    if total_norm > max_norm:
        for g in grads:
            g.mul_(total_norm / max_norm)
    return total_norm
''',
        test_cell="check_clip_grad_norm",
        mistake="Multiplies by total_norm / max_norm (the ratio upside down), which makes large gradients "
                "even larger.",
        names_it=(("invert",), ("upside",), ("reciprocal",), ("total_norm / max_norm",), ("larger",),
                  ("grew",), ("grow",), ("the other way",)),
    ),
    Blind(
        name="clip_not_in_place",
        cell="clip_grad_norm",
        source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = torch.sqrt(sum(torch.sum(g * g) for g in grads))
    if total_norm > max_norm:
        coef = max_norm / total_norm
        for g in grads:
            g = g * coef
    return total_norm
''',
        test_cell="check_clip_grad_norm",
        mistake="Writes `g = g * coef`, which only rebinds a local name to a new tensor: the .grad tensors "
                "are never changed.",
        names_it=(("in place",), ("in-place",), ("mul_",), ("unchanged",), ("not modified",), ("not changed",),
                  ("never", "scaled"), ("not", "scaled")),
    ),
    Blind(
        name="clip_norm_of_weights",
        cell="clip_grad_norm",
        source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    params = [p for p in parameters if p.grad is not None]
    total_norm = torch.sqrt(sum(p.norm() ** 2 for p in params))
    if total_norm > max_norm:
        for p in params:
            p.grad.mul_(max_norm / total_norm)
    return total_norm.detach()
''',
        test_cell="check_clip_grad_norm",
        mistake="Computes the norm of the parameters themselves (p.norm()) instead of their gradients (p.grad.norm()).",
        names_it=(("p.grad",), (".grad",), ("weights",), ("parameters themselves",), ("parameter values",),
                  ("not", "gradient")),
    ),
    Blind(
        name="clip_rms_instead_of_norm",
        cell="clip_grad_norm",
        source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    grads = [p.grad for p in parameters if p.grad is not None]
    flat = torch.cat([g.reshape(-1) for g in grads])
    total_norm = flat.pow(2).mean().sqrt()
    if total_norm > max_norm:
        for g in grads:
            g.mul_(max_norm / total_norm)
    return total_norm
''',
        test_cell="check_clip_grad_norm",
        mistake="Takes the mean of the squared entries instead of their sum (a root-mean-square, not the L2 norm).",
        names_it=(("mean",), ("rms",), ("average",), ("root-mean-square",), ("instead of", "sum")),
    ),
]

ALTERNATIVES = {
    "linear_and_loops": {
        "rnn_step": '''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    a_t = torch.nn.functional.linear(x_t, U) + torch.nn.functional.linear(h_prev, W, b)
    return a_t.tanh()
''',
        "rnn_forward": '''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    B, T, D = x.shape
    hs = x.new_zeros(B, T, h0.shape[1])
    h = h0
    for t in range(T):
        h = rnn_step(x[:, t, :], h_prev=h, U=U, W=W, b=b)
        hs[:, t, :] = h
    return hs, h
''',
        "clip_grad_norm": '''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    total_norm = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    clip_coef = max_norm / (total_norm + 1e-6)
    if clip_coef < 1:
        with torch.no_grad():
            for g in grads:
                g.mul_(clip_coef)
    return total_norm
''',
    },
    "transposed_math_and_unbind": {
        "rnn_step": '''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    # column form, as on the slide: a = b + W h + U x, one column per sequence
    a = b[:, None] + W @ h_prev.T + U @ x_t.T   # (H, B)
    return torch.tanh(a).T
''',
        "rnn_forward": '''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    states = [h0]
    for x_t in x.unbind(dim=1):
        states.append(rnn_step(x_t, states[-1], U, W, b))
    hs = torch.stack(states[1:]).transpose(0, 1)
    return hs, states[-1]
''',
        "clip_grad_norm": '''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    params = list(parameters)
    total = 0.0
    for p in params:
        if p.grad is None:
            continue
        total += float((p.grad.double() ** 2).sum())
    total_norm = math.sqrt(total)
    if total_norm > max_norm:
        for p in params:
            if p.grad is not None:
                p.grad *= max_norm / total_norm
    return total_norm
''',
    },
    "einsum_and_cat": {
        "rnn_step": '''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    # one matrix [U W] applied to the concatenation [x_t, h_prev]
    xh = torch.cat([x_t, h_prev], dim=1)          # (B, D + H)
    UW = torch.cat([U, W], dim=1)                 # (H, D + H)
    return torch.tanh(torch.einsum("bk,hk->bh", xh, UW) + b)
''',
        "rnn_forward": '''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    h_t = h0
    outputs = []
    t = 0
    while t < x.size(1):
        h_t = rnn_step(x.select(1, t), h_t, U, W, b)
        outputs.append(h_t.unsqueeze(1))
        t += 1
    return torch.cat(outputs, dim=1), h_t
''',
        "clip_grad_norm": '''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    grads = []
    for p in parameters:
        if p.grad is not None:
            grads.append(p.grad)
    total_norm = torch.cat([g.flatten() for g in grads]).norm(p=2) if grads else torch.zeros(())
    if total_norm > max_norm:
        factor = max_norm / total_norm
        for g in grads:
            g.copy_(g * factor)
    return total_norm
''',
    },
}
