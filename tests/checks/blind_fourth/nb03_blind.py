"""Fourth blind set for notebook 03 (recurrent networks and vanishing gradients), written from the student notebook only."""
from blind_case import Blind

NOTEBOOK = "03_rnn_vanishing"

BLIND = [
    # ---------------------------------------------------------------- rnn_step
    Blind(name="step_relu", cell="rnn_step", test_cell="check_rnn_step",
          source='''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    return torch.relu(b + h_prev @ W.T + x_t @ U.T)
''',
          mistake="Uses ReLU as the nonlinearity instead of tanh.",
          names_it=(("tanh",), ("relu",)),
          part="the activation"),
    Blind(name="step_hardtanh", cell="rnn_step", test_cell="check_rnn_step",
          source='''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    a_t = b + h_prev @ W.T + x_t @ U.T
    return torch.clamp(a_t, -1.0, 1.0)
''',
          mistake="Squashes with a hard tanh (clamp to [-1, 1]) instead of tanh: values inside (-1, 1) pass through unchanged.",
          names_it=(("tanh",), ("clamp",), ("hard",)),
          part="the activation"),
    Blind(name="step_sigmoid", cell="rnn_step", test_cell="check_rnn_step",
          source='''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    a = b + torch.matmul(h_prev, W.t()) + torch.matmul(x_t, U.t())
    return torch.sigmoid(a)
''',
          mistake="Uses a sigmoid (the slide's sigma) instead of tanh, which the notebook and nn.RNNCell use.",
          names_it=(("tanh",), ("sigmoid",)),
          part="the activation"),
    Blind(name="step_W_not_transposed", cell="rnn_step", test_cell="check_rnn_step",
          source='''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    return torch.tanh(b + h_prev @ W + x_t @ U.T)
''',
          mistake="Multiplies h_prev by W instead of W.T; W is square so no error, but it computes W^T h instead of W h.",
          names_it=(("transpose",), ("w.t",), ("w^t",), ("w.t()",)),
          part="the hidden-to-hidden product"),
    Blind(name="step_U_not_transposed", cell="rnn_step", test_cell="check_rnn_step",
          source='''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    return torch.tanh(x_t @ U + h_prev @ W.T + b)
''',
          mistake="Multiplies x_t by U instead of U.T: fails with a shape error as soon as D != H (and is wrong when D == H).",
          names_it=(("transpose",), ("u.t",), ("(h, d)",)),
          part="the input-to-hidden product"),
    Blind(name="step_U_W_swapped", cell="rnn_step", test_cell="check_rnn_step",
          source='''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    return torch.tanh(b + x_t @ W.T + h_prev @ U.T)
''',
          mistake="Swaps the two weight matrices: W is applied to the input and U to the previous state.",
          names_it=(("swap",), ("u and w",), ("w and u",), ("roles",)),
          part="which weight multiplies which vector"),
    Blind(name="step_no_bias", cell="rnn_step", test_cell="check_rnn_step",
          source='''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    return torch.tanh(h_prev @ W.T + x_t @ U.T)
''',
          mistake="Leaves out the bias b.",
          names_it=(("bias",), ("+ b",), ("missing b",)),
          part="the bias"),
    Blind(name="step_detached_state", cell="rnn_step", test_cell="check_rnn_step",
          source='''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    h = h_prev.detach()
    return torch.tanh(b + h @ W.T + x_t @ U.T)
''',
          mistake="Detaches h_prev, so the value is right but no gradient flows back from h_t to h_prev (backpropagation through time is cut).",
          names_it=(("detach",), ("gradient",)),
          part="the gradient to h_prev"),

    # ---------------------------------------------------------------- rnn_forward
    Blind(name="fwd_backwards", cell="rnn_forward", test_cell="check_rnn_forward",
          source='''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    h = h0
    hs = []
    for t in reversed(range(x.shape[1])):
        h = rnn_step(x[:, t], h, U, W, b)
        hs.append(h)
    return torch.stack(hs, dim=1), h
''',
          mistake="Reads the sequence backwards (t = T-1 down to 0), so every state and the last state are wrong.",
          names_it=(("backwards",), ("reverse",), ("order",)),
          part="the direction of the loop"),
    Blind(name="fwd_always_h0", cell="rnn_forward", test_cell="check_rnn_forward",
          source='''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    hs = [rnn_step(x[:, t], h0, U, W, b) for t in range(x.shape[1])]
    return torch.stack(hs, dim=1), hs[-1]
''',
          mistake="Feeds h0 into every step instead of the state just computed, so nothing is carried from step to step.",
          names_it=(("previous state",), ("h0", "every"), ("carr",), ("feed",)),
          part="feeding the state forward"),
    Blind(name="fwd_stack_dim0", cell="rnn_forward", test_cell="check_rnn_forward",
          source='''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    h = h0
    states = []
    for t in range(x.shape[1]):
        h = rnn_step(x[:, t], h, U, W, b)
        states.append(h)
    return torch.stack(states), h
''',
          mistake="Stacks the states along dim 0, giving (T, B, H) instead of (B, T, H).",
          names_it=(("(b, t, h)",), ("dim=1",), ("time axis",), ("shape",)),
          part="the axis the states are stacked on"),
    Blind(name="fwd_includes_h0", cell="rnn_forward", test_cell="check_rnn_forward",
          source='''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    states = [h0]
    for t in range(x.shape[1]):
        states.append(rnn_step(x[:, t], states[-1], U, W, b))
    return torch.stack(states, dim=1), states[-1]
''',
          mistake="Keeps h0 in the stacked states, so hs is (B, T + 1, H) and hs[:, t] is the state before reading x[:, t].",
          names_it=(("h0",), ("t + 1",), ("initial state",)),
          part="which states are returned"),
    Blind(name="fwd_range_off_by_one", cell="rnn_forward", test_cell="check_rnn_forward",
          source='''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    B, T, D = x.shape
    h = h0
    hs = []
    for t in range(T - 1):
        h = rnn_step(x[:, t], h, U, W, b)
        hs.append(h)
    return torch.stack(hs, dim=1), h
''',
          mistake="Loops over range(T - 1), so the last input is never read: hs has T - 1 states and h_T is the second-to-last state.",
          names_it=(("last",), ("t - 1",), ("off by one",), ("one step",)),
          part="the loop range"),
    Blind(name="fwd_index_batch_axis", cell="rnn_forward", test_cell="check_rnn_forward",
          source='''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    h = h0
    hs = []
    for t in range(x.shape[1]):
        h = rnn_step(x[t], h, U, W, b)
        hs.append(h)
    return torch.stack(hs, dim=1), h
''',
          mistake="Indexes x[t] (the t-th sequence of the batch) instead of x[:, t] (step t of every sequence): shapes go wrong and it fails with an index error when T > B.",
          names_it=(("x[:, t]",), ("batch", "time"), ("axis",)),
          part="indexing the time step"),
    Blind(name="fwd_detach_between_steps", cell="rnn_forward", test_cell="check_rnn_forward",
          source='''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    h = h0
    hs = []
    for t in range(x.shape[1]):
        h = rnn_step(x[:, t], h.detach(), U, W, b)
        hs.append(h)
    return torch.stack(hs, dim=1), h
''',
          mistake="Detaches the state between steps: the values are right but no gradient flows back through the earlier states to h0.",
          names_it=(("detach",), ("gradient",)),
          part="the gradient through the states"),
    Blind(name="fwd_returns_first_state", cell="rnn_forward", test_cell="check_rnn_forward",
          source='''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    h = h0
    outputs = []
    for t in range(x.size(1)):
        h = rnn_step(x[:, t, :], h, U, W, b)
        outputs.append(h)
    hs = torch.stack(outputs, dim=1)
    return hs, hs[:, 0]
''',
          mistake="Returns hs[:, 0], the first state, as h_T instead of the last one.",
          names_it=(("last state",), ("hs[:, -1]",), ("first state",), ("final state",)),
          part="the returned last state"),

    # ---------------------------------------------------------------- clip_grad_norm
    Blind(name="clip_by_value", cell="clip_grad_norm", test_cell="check_clip_grad_norm",
          source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    params = [p for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((p.grad ** 2).sum() for p in params))
    for p in params:
        p.grad.clamp_(-max_norm, max_norm)
    return total
''',
          mistake="Clips every gradient entry to [-max_norm, max_norm] (clipping by value) instead of rescaling the whole gradient by max_norm / total_norm; the direction changes.",
          names_it=(("value",), ("scale",), ("direction",), ("clamp",)),
          part="how the gradient is shrunk"),
    Blind(name="clip_l1_norm", cell="clip_grad_norm", test_cell="check_clip_grad_norm",
          source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = sum(g.abs().sum() for g in grads)
    if total_norm > max_norm:
        for g in grads:
            g.mul_(max_norm / total_norm)
    return total_norm
''',
          mistake="Measures the gradient with the L1 norm (sum of absolute values) instead of the L2 norm.",
          names_it=(("l2",), ("l1",), ("squares",), ("euclidean",)),
          part="the norm used"),
    Blind(name="clip_weight_norm", cell="clip_grad_norm", test_cell="check_clip_grad_norm",
          source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    params = [p for p in parameters if p.grad is not None]
    total_norm = torch.sqrt(sum(p.detach().norm() ** 2 for p in params))
    if total_norm > max_norm:
        for p in params:
            p.grad.mul_(max_norm / total_norm)
    return total_norm
''',
          mistake="Computes the norm of the parameters (the weights) instead of the norm of their gradients p.grad.",
          names_it=(("p.grad",), ("gradients", "weights"), ("norm of the weights",), ("parameters themselves",)),
          part="what the norm is taken of"),
    Blind(name="clip_per_tensor", cell="clip_grad_norm", test_cell="check_clip_grad_norm",
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
    return torch.sqrt(sum(n ** 2 for n in norms))
''',
          mistake="Clips every tensor separately by its own norm instead of scaling all gradients by one factor from the global norm; this changes the gradient's direction.",
          names_it=(("global",), ("separately",), ("each tensor",), ("one factor",)),
          part="global versus per-tensor scaling"),
    Blind(name="clip_returns_after", cell="clip_grad_norm", test_cell="check_clip_grad_norm",
          source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = torch.sqrt(sum((g * g).sum() for g in grads))
    if total_norm > max_norm:
        for g in grads:
            g.mul_(max_norm / total_norm)
        total_norm = torch.sqrt(sum((g * g).sum() for g in grads))
    return total_norm
''',
          mistake="Returns the norm after clipping instead of the norm before clipping.",
          names_it=(("before",), ("after clipping",)),
          part="the returned norm"),
    Blind(name="clip_always_rescales", cell="clip_grad_norm", test_cell="check_clip_grad_norm",
          source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = torch.linalg.vector_norm(torch.cat([g.flatten() for g in grads]))
    scale = max_norm / (total_norm + 1e-6)
    for g in grads:
        g.mul_(scale)
    return total_norm
''',
          mistake="Rescales the gradients even when their norm is below max_norm, so small gradients are blown up to length max_norm.",
          names_it=(("below",), ("only when",), ("exceeds",), ("smaller than",), ("scaled up",)),
          part="the condition for clipping"),
    Blind(name="clip_generator_twice", cell="clip_grad_norm", test_cell="check_clip_grad_norm",
          source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    total = 0.0
    for p in parameters:
        if p.grad is not None:
            total += p.grad.pow(2).sum()
    total_norm = total ** 0.5
    if total_norm > max_norm:
        for p in parameters:
            if p.grad is not None:
                p.grad.mul_(max_norm / total_norm)
    return total_norm
''',
          mistake="Loops over parameters twice; when parameters is a generator (model.parameters()) the second loop gets nothing, so the gradients are never scaled.",
          names_it=(("generator",), ("list(",), ("once",)),
          part="iterating the parameters"),
    Blind(name="clip_not_in_place", cell="clip_grad_norm", test_cell="check_clip_grad_norm",
          source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = torch.sqrt(sum(torch.sum(g ** 2) for g in grads))
    if total_norm > max_norm:
        grads = [g * (max_norm / total_norm) for g in grads]
    return total_norm
''',
          mistake="Builds new scaled tensors in a list instead of changing each p.grad in place, so the model's gradients are never clipped.",
          names_it=(("in place",), ("p.grad",), ("mul_",)),
          part="writing the scaled gradients back"),
    Blind(name="clip_stack_shapes", cell="clip_grad_norm", test_cell="check_clip_grad_norm",
          source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    params = [p for p in parameters if p.grad is not None]
    total_norm = torch.stack([p.grad for p in params]).norm()
    if total_norm > max_norm:
        for p in params:
            p.grad *= max_norm / total_norm
    return total_norm
''',
          mistake="torch.stack's the gradients, which have different shapes, so it raises an error; the gradients must be flattened and concatenated, or their norms combined.",
          names_it=(("stack",), ("different shapes",), ("flatten",)),
          part="combining the gradients"),
    Blind(name="clip_no_sqrt", cell="clip_grad_norm", test_cell="check_clip_grad_norm",
          source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    params = [p for p in parameters if p.grad is not None]
    total_norm = sum(p.grad.norm() ** 2 for p in params)
    if total_norm > max_norm:
        for p in params:
            p.grad.mul_(max_norm / total_norm)
    return total_norm
''',
          mistake="Forgets the square root: uses the sum of squared norms instead of the global L2 norm.",
          names_it=(("square root",), ("sqrt",)),
          part="the global norm"),
]

VALID = [
    Blind(name="valid_step_einsum", cell="rnn_step", test_cell="check_rnn_step",
          source='''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    a_t = torch.einsum("hk,bk->bh", W, h_prev) + torch.einsum("hd,bd->bh", U, x_t) + b
    return a_t.tanh()
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_step_transposed_form", cell="rnn_step", test_cell="check_rnn_step",
          source='''def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    a = W @ h_prev.T + U @ x_t.T + b[:, None]   # (H, B), the book's column form
    return torch.tanh(a).T
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_fwd_preallocated", cell="rnn_forward", test_cell="check_rnn_forward",
          source='''def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    states = []
    h = h0
    for x_t in x.unbind(dim=1):
        h = rnn_step(x_t, h, U, W, b)
        states.append(h.unsqueeze(1))
    return torch.cat(states, dim=1), h
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_clip_vector_norm", cell="clip_grad_norm", test_cell="check_clip_grad_norm",
          source='''def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    grads = [p.grad for p in list(parameters) if p.grad is not None]
    norms = torch.stack([torch.linalg.vector_norm(g) for g in grads])
    total_norm = torch.linalg.vector_norm(norms)
    if total_norm > max_norm:
        with torch.no_grad():
            for g in grads:
                g.mul_(max_norm / (total_norm + 1e-6))
    return total_norm
''',
          mistake="", names_it=(), part=""),
]

# The same valid answers in blind_case.py's ALTERNATIVES layout ({style: {answer_cell: source}}).
ALTERNATIVES = {case.name: {case.cell: case.source} for case in VALID}
