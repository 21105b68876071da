"""The answer texts of the synthetic class of notebook 05 (self-attention), from which make_class.py composes 40
submissions.

For each answer cell, POOLS holds ways students really write it: ``{variant: (kind, tags, template)}`` where kind is
"ok" (meant to pass its check) or "bug" (a real mistake; its check should fail), and tags say which kind of student
tends to write it ("common" answers are the ones many students converge on independently).

A template is the whole cell as a student leaves it, with placeholders filled in per student:

- ``{{HEAD}}``: the released stub's signature and docstring (function cells);
- ``{{MARK}}`` on a line of its own: the released ``# YOUR CODE HERE``, which some students keep and some delete;
- ``{{TAIL}}``: the released line(s) after the stub (the ``print(...)`` of a table cell);
- ``{{SC}}``, ``{{WT}}``, ``{{OUT}}``, ``{{EX}}``, ``{{MX}}``, ``{{DK}}``: the student's own names for the scores,
  the weights, an output, the exponentials, a maximum and d_k (NAME_PROFILES).

COMMENTS: per answer cell, comments different students would add (each student picks their own).
WRITTEN: the written answers to the why_scale question, one per student who answered it.
"""

#: the order of the notebook's answer cells
CELLS = ["dot_score", "scaled_dot_score", "bilinear_score", "additive_score", "table_scores", "table_scaled",
         "table_weights", "table_weighted", "table_z", "attention_scores", "softmax", "self_attention", "causal_mask",
         "space_invader", "brown_dog", "why_scale"]

#: cells whose answer is more than a one-liner that most of a class writes alike
NON_TRIVIAL = ["bilinear_score", "additive_score", "table_scores", "table_weights", "attention_scores", "softmax",
               "self_attention", "space_invader", "why_scale"]

#: a student's own names for the scores, the weights, an output, the exponentials, a maximum and d_k
NAME_PROFILES = [
    {"SC": "scores", "WT": "weights", "OUT": "output", "EX": "exps", "MX": "m", "DK": "d_k"},
    {"SC": "s", "WT": "w", "OUT": "out", "EX": "e", "MX": "mx", "DK": "d"},
    {"SC": "attn_scores", "WT": "attn_weights", "OUT": "context", "EX": "exp_x", "MX": "x_max", "DK": "dk"},
    {"SC": "logits", "WT": "probs", "OUT": "result", "EX": "numer", "MX": "max_vals", "DK": "d"},
    {"SC": "energy", "WT": "alpha", "OUT": "z", "EX": "ex", "MX": "c", "DK": "d_k"},
    {"SC": "S", "WT": "A", "OUT": "Z", "EX": "E", "MX": "M", "DK": "dk"},
    {"SC": "sc", "WT": "attn", "OUT": "y", "EX": "expd", "MX": "mmax", "DK": "dim_k"},
    {"SC": "raw", "WT": "p", "OUT": "res", "EX": "exp_vals", "MX": "maxes", "DK": "k_dim"},
]

POOLS = {
    # ------------------------------------------------------------------------------------------------ section 1
    "dot_score": {
        "ok_transpose": ("ok", "common concise", '''{{HEAD}}
    {{MARK}}
    return Q @ K.transpose(-2, -1)
'''),
        "ok_transpose_m1": ("ok", "concise", '''{{HEAD}}
    {{MARK}}
    return Q @ K.transpose(-1, -2)
'''),
        "ok_mT": ("ok", "concise", '''{{HEAD}}
    {{MARK}}
    return Q @ K.mT
'''),
        "ok_matmul": ("ok", "matmul", '''{{HEAD}}
    {{MARK}}
    return torch.matmul(Q, K.transpose(-2, -1))
'''),
        "ok_einsum": ("ok", "einsum", '''{{HEAD}}
    {{MARK}}
    return torch.einsum("...qd,...kd->...qk", Q, K)
'''),
        "ok_einsum_ij": ("ok", "einsum", '''{{HEAD}}
    {{MARK}}
    return torch.einsum("...id,...jd->...ij", Q, K)
'''),
        "ok_swapaxes": ("ok", "numpy", '''{{HEAD}}
    {{MARK}}
    return Q @ K.swapaxes(-1, -2)
'''),
        "ok_broadcast": ("ok", "verbose", '''{{HEAD}}
    {{MARK}}
    # every query times every key, then add up over d
    return (Q.unsqueeze(-2) * K.unsqueeze(-3)).sum(dim=-1)
'''),
        "ok_loop": ("ok", "loop", '''{{HEAD}}
    {{MARK}}
    n_k = K.shape[-2]
    {{SC}} = []
    for j in range(n_k):
        k_j = K[..., j, :]                        # (..., d)
        {{SC}}.append((Q * k_j.unsqueeze(-2)).sum(dim=-1))
    return torch.stack({{SC}}, dim=-1)
'''),
        "ok_var": ("ok", "verbose", '''{{HEAD}}
    {{MARK}}
    K_t = K.transpose(-2, -1)     # (..., d, n_k)
    {{SC}} = Q @ K_t              # (..., n_q, n_k)
    return {{SC}}
'''),
        "ok_helper": ("ok", "helper", '''def transpose_last(x):
    return x.transpose(-2, -1)


{{HEAD}}
    {{MARK}}
    return torch.matmul(Q, transpose_last(K))
'''),
        "bug_KT": ("bug", "concise", '''{{HEAD}}
    {{MARK}}
    return Q @ K.T
'''),
        "bug_bmm": ("bug", "matmul", '''{{HEAD}}
    {{MARK}}
    return torch.bmm(Q, K.transpose(1, 2))
'''),
        "bug_roles": ("bug", "", '''{{HEAD}}
    {{MARK}}
    return K @ Q.transpose(-2, -1)
'''),
        "bug_elementwise": ("bug", "verbose", '''{{HEAD}}
    {{MARK}}
    return (Q * K).sum(dim=-1)
'''),
        "bug_Kt": ("bug", "matmul", '''{{HEAD}}
    {{MARK}}
    return torch.matmul(Q, K.t())
'''),
    },
    "scaled_dot_score": {
        "ok_sqrt_K": ("ok", "common concise", '''{{HEAD}}
    {{MARK}}
    return dot_score(Q, K) / math.sqrt(K.shape[-1])
'''),
        "ok_dk_var": ("ok", "verbose", '''{{HEAD}}
    {{MARK}}
    {{DK}} = K.shape[-1]
    return dot_score(Q, K) / math.sqrt({{DK}})
'''),
        "ok_pow": ("ok", "concise", '''{{HEAD}}
    {{MARK}}
    return dot_score(Q, K) / K.size(-1) ** 0.5
'''),
        "ok_neg_pow": ("ok", "", '''{{HEAD}}
    {{MARK}}
    return dot_score(Q, K) * K.shape[-1] ** -0.5
'''),
        "ok_inline": ("ok", "concise", '''{{HEAD}}
    {{MARK}}
    return Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
'''),
        "ok_numpy": ("ok", "numpy", '''import numpy as np


{{HEAD}}
    {{MARK}}
    {{DK}} = Q.size(-1)
    {{SC}} = dot_score(Q, K)
    return {{SC}} / np.sqrt({{DK}})
'''),
        "ok_torch_sqrt": ("ok", "matmul", '''{{HEAD}}
    {{MARK}}
    {{DK}} = torch.tensor(K.shape[-1], dtype=Q.dtype, device=Q.device)
    return dot_score(Q, K) / torch.sqrt({{DK}})
'''),
        "ok_einsum": ("ok", "einsum", '''{{HEAD}}
    {{MARK}}
    return torch.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(K.shape[-1])
'''),
        "ok_scale_var": ("ok", "verbose helper", '''{{HEAD}}
    {{MARK}}
    scale = 1 / math.sqrt(K.shape[-1])
    return scale * dot_score(Q, K)
'''),
        "ok_matmul": ("ok", "matmul", '''{{HEAD}}
    {{MARK}}
    return torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(K.size(-1))
'''),
        "bug_precedence": ("bug", "", '''{{HEAD}}
    {{MARK}}
    {{DK}} = K.shape[-1]
    return dot_score(Q, K) / {{DK}} ** 1/2
'''),
        "bug_fixed2": ("bug", "", '''{{HEAD}}
    {{MARK}}
    return dot_score(Q, K) / math.sqrt(2)
'''),
        "bug_shape1": ("bug", "", '''{{HEAD}}
    {{MARK}}
    return dot_score(Q, K) / math.sqrt(K.shape[1])
'''),
        "bug_dk": ("bug", "", '''{{HEAD}}
    {{MARK}}
    return dot_score(Q, K) / Q.shape[-1]
'''),
        "bug_len": ("bug", "", '''{{HEAD}}
    {{MARK}}
    return dot_score(Q, K) / math.sqrt(len(K))
'''),
    },
    "bilinear_score": {
        "ok_paren": ("ok", "common concise", '''{{HEAD}}
    {{MARK}}
    return (Q @ W) @ K.transpose(-2, -1)
'''),
        "ok_chain": ("ok", "concise", '''{{HEAD}}
    {{MARK}}
    return Q @ W @ K.transpose(-1, -2)
'''),
        "ok_mT": ("ok", "concise", '''{{HEAD}}
    {{MARK}}
    return Q @ W @ K.mT
'''),
        "ok_einsum": ("ok", "einsum", '''{{HEAD}}
    {{MARK}}
    return torch.einsum("...id,de,...je->...ij", Q, W, K)
'''),
        "ok_matmul": ("ok", "matmul verbose", '''{{HEAD}}
    {{MARK}}
    QW = torch.matmul(Q, W)                       # (..., n_q, d_k)
    return torch.matmul(QW, K.transpose(-2, -1))
'''),
        "ok_keys_side": ("ok", "", '''{{HEAD}}
    {{MARK}}
    return Q @ (K @ W.T).transpose(-2, -1)
'''),
        "ok_reuse_dot": ("ok", "helper concise", '''{{HEAD}}
    {{MARK}}
    return dot_score(Q @ W, K)
'''),
        "ok_reuse_dot_keys": ("ok", "helper verbose", '''{{HEAD}}
    {{MARK}}
    projected = K @ W.transpose(0, 1)             # W k_j for every key
    return dot_score(Q, projected)
'''),
        "ok_loop": ("ok", "loop", '''{{HEAD}}
    {{MARK}}
    n_q, n_k = Q.shape[-2], K.shape[-2]
    {{OUT}} = torch.empty(*Q.shape[:-2], n_q, n_k, dtype=Q.dtype, device=Q.device)
    for i in range(n_q):
        for j in range(n_k):
            {{OUT}}[..., i, j] = ((Q[..., i, :] @ W) * K[..., j, :]).sum(-1)
    return {{OUT}}
'''),
        "ok_broadcast": ("ok", "verbose", '''{{HEAD}}
    {{MARK}}
    keys = K @ W.T
    return (Q.unsqueeze(-2) * keys.unsqueeze(-3)).sum(-1)
'''),
        "bug_WT": ("bug", "", '''{{HEAD}}
    {{MARK}}
    return Q @ W.T @ K.transpose(-2, -1)
'''),
        "bug_mm": ("bug", "matmul", '''{{HEAD}}
    {{MARK}}
    return torch.mm(torch.mm(Q, W), K.t())
'''),
        "bug_noW": ("bug", "", '''{{HEAD}}
    {{MARK}}
    return Q @ K.transpose(-2, -1)
'''),
        "bug_roles": ("bug", "", '''{{HEAD}}
    {{MARK}}
    return K @ W.T @ Q.transpose(-2, -1)
'''),
    },
    "additive_score": {
        "ok_unsqueeze": ("ok", "common verbose", '''{{HEAD}}
    {{MARK}}
    q = (Q @ W.T).unsqueeze(-2)       # (..., n_q, 1, d_a)
    k = (K @ U.T).unsqueeze(-3)       # (..., 1, n_k, d_a)
    return torch.tanh(q + k) @ v
'''),
        "ok_none_index": ("ok", "concise", '''{{HEAD}}
    {{MARK}}
    Wq = (Q @ W.T)[..., :, None, :]
    Uk = (K @ U.T)[..., None, :, :]
    return torch.tanh(Wq + Uk) @ v
'''),
        "ok_einsum": ("ok", "einsum", '''{{HEAD}}
    {{MARK}}
    Wq = torch.einsum("ad,...id->...ia", W, Q)
    Uk = torch.einsum("ad,...jd->...ja", U, K)
    hidden = torch.tanh(Wq.unsqueeze(-2) + Uk.unsqueeze(-3))
    return torch.einsum("...ija,a->...ij", hidden, v)
'''),
        "ok_mul_sum": ("ok", "", '''{{HEAD}}
    {{MARK}}
    {{SC}} = torch.tanh((Q @ W.T).unsqueeze(-2) + (K @ U.T).unsqueeze(-3))
    return ({{SC}} * v).sum(dim=-1)
'''),
        "ok_matmul": ("ok", "matmul verbose", '''{{HEAD}}
    {{MARK}}
    query_part = torch.matmul(Q, W.transpose(0, 1))      # (..., n_q, d_a)
    key_part = torch.matmul(K, U.transpose(0, 1))        # (..., n_k, d_a)
    summed = query_part.unsqueeze(-2) + key_part.unsqueeze(-3)
    return torch.matmul(torch.tanh(summed), v)
'''),
        "ok_linear": ("ok", "", '''import torch.nn.functional as F


{{HEAD}}
    {{MARK}}
    hidden = torch.tanh(F.linear(Q, W)[..., :, None, :] + F.linear(K, U)[..., None, :, :])
    return F.linear(hidden, v.unsqueeze(0)).squeeze(-1)
'''),
        "ok_loop_q": ("ok", "loop", '''{{HEAD}}
    {{MARK}}
    {{OUT}} = []
    keys = K @ U.T                                # (..., n_k, d_a)
    for i in range(Q.shape[-2]):
        q_i = Q[..., i:i + 1, :] @ W.T            # (..., 1, d_a)
        {{OUT}}.append(torch.tanh(q_i + keys) @ v)
    return torch.stack({{OUT}}, dim=-2)
'''),
        "ok_helper": ("ok", "helper", '''def project(X, M):
    """rows of X times M^T"""
    return X @ M.T


{{HEAD}}
    {{MARK}}
    pairs = project(Q, W).unsqueeze(-2) + project(K, U).unsqueeze(-3)
    return torch.tanh(pairs) @ v
'''),
        "ok_concat": ("ok", "verbose", '''{{HEAD}}
    {{MARK}}
    n_q, n_k = Q.shape[-2], K.shape[-2]
    queries = Q.unsqueeze(-2).expand(*Q.shape[:-2], n_q, n_k, Q.shape[-1])
    keys = K.unsqueeze(-3).expand(*K.shape[:-2], n_q, n_k, K.shape[-1])
    W1 = torch.cat([W, U], dim=1)                 # the lecture's W_1 [q; k]
    return torch.tanh(torch.cat([queries, keys], dim=-1) @ W1.T) @ v
'''),
        "bug_no_tanh": ("bug", "", '''{{HEAD}}
    {{MARK}}
    q = (Q @ W.T).unsqueeze(-2)
    k = (K @ U.T).unsqueeze(-3)
    return (q + k) @ v
'''),
        "bug_tanh_after_v": ("bug", "", '''{{HEAD}}
    {{MARK}}
    q = (Q @ W.T).unsqueeze(-2)
    k = (K @ U.T).unsqueeze(-3)
    return torch.tanh((q + k) @ v)
'''),
        "bug_untransposed": ("bug", "", '''{{HEAD}}
    {{MARK}}
    return torch.tanh((Q @ W).unsqueeze(-2) + (K @ U).unsqueeze(-3)) @ v
'''),
        "bug_2d": ("bug", "", '''{{HEAD}}
    {{MARK}}
    h = torch.tanh((Q @ W.T)[:, None, :] + (K @ U.T)[None, :, :])
    return (h * v).sum(-1)
'''),
        "bug_swapped": ("bug", "", '''{{HEAD}}
    {{MARK}}
    a = (Q @ U.T).unsqueeze(-2)
    b = (K @ W.T).unsqueeze(-3)
    return torch.tanh(a + b) @ v
'''),
        "bug_no_v": ("bug", "", '''{{HEAD}}
    {{MARK}}
    {{SC}} = torch.tanh((Q @ W.T).unsqueeze(-2) + (K @ U.T).unsqueeze(-3))
    return {{SC}}.sum(-1)
'''),
    },
    # ------------------------------------------------------------------------------------------------ section 4
    "table_scores": {
        "ok_Kq": ("ok", "common concise", '''{{MARK}}
machines_scores = K @ Q[3]
{{TAIL}}'''),
        "ok_qKT": ("ok", "concise", '''{{MARK}}
machines_scores = Q[3] @ K.T
{{TAIL}}'''),
        "ok_q_var": ("ok", "verbose", '''{{MARK}}
q_machines = Q[3]          # [0.7, 0.7]
machines_scores = K @ q_machines
{{TAIL}}'''),
        "ok_matmul_last": ("ok", "matmul", '''{{MARK}}
machines_scores = torch.matmul(K, Q[-1])
{{TAIL}}'''),
        "ok_mul_sum": ("ok", "", '''{{MARK}}
machines_scores = (Q[3] * K).sum(dim=1)
{{TAIL}}'''),
        "ok_reuse_dot": ("ok", "helper", '''{{MARK}}
machines_scores = dot_score(Q[3:], K)[0]
{{TAIL}}'''),
        "ok_loop": ("ok", "loop", '''{{MARK}}
machines_scores = torch.zeros(4, dtype=torch.float64)
for j in range(4):
    machines_scores[j] = torch.dot(Q[3], K[j])
{{TAIL}}'''),
        "ok_listcomp": ("ok", "loop", '''{{MARK}}
machines_scores = torch.tensor([torch.dot(Q[3], k).item() for k in K], dtype=torch.float64)
{{TAIL}}'''),
        "ok_index": ("ok", "verbose", '''{{MARK}}
i = words.index("machines")
machines_scores = K @ Q[i]
{{TAIL}}'''),
        "ok_einsum": ("ok", "einsum", '''{{MARK}}
machines_scores = torch.einsum("d,jd->j", Q[3], K)
{{TAIL}}'''),
        "ok_QK3": ("ok", "", '''{{MARK}}
machines_scores = Q @ K[3]
{{TAIL}}'''),
        "bug_typed": ("bug", "", '''{{MARK}}
machines_scores = torch.tensor([0.70, 0.21, -0.49, 0.98])
{{TAIL}}'''),
        "bug_no_sum": ("bug", "", '''{{MARK}}
machines_scores = Q[3] * K
{{TAIL}}'''),
        "bug_first_word": ("bug", "", '''{{MARK}}
machines_scores = K @ Q[0]
{{TAIL}}'''),
    },
    "table_scaled": {
        "ok_sqrt2": ("ok", "common concise", '''{{MARK}}
machines_scaled = machines_scores / math.sqrt(2)
{{TAIL}}'''),
        "ok_shape": ("ok", "verbose", '''{{MARK}}
machines_scaled = machines_scores / math.sqrt(K.shape[-1])
{{TAIL}}'''),
        "ok_dk": ("ok", "verbose", '''{{MARK}}
d_k = 2
machines_scaled = machines_scores / d_k ** 0.5
{{TAIL}}'''),
        # torch.tensor(2.0) is float32: the float64 scores divided by a float32 sqrt(2) are not exact
        "bug_float32_sqrt": ("bug", "matmul", '''{{MARK}}
machines_scaled = machines_scores / torch.sqrt(torch.tensor(2.0))
{{TAIL}}'''),
        "ok_mul": ("ok", "", '''{{MARK}}
machines_scaled = machines_scores * (1 / math.sqrt(2))
{{TAIL}}'''),
        "ok_numpy": ("ok", "numpy", '''import numpy as np

{{MARK}}
machines_scaled = machines_scores / np.sqrt(2)
{{TAIL}}'''),
        "ok_Xshape": ("ok", "", '''{{MARK}}
machines_scaled = machines_scores / math.sqrt(X.shape[1])
{{TAIL}}'''),
        "ok_pow": ("ok", "concise", '''{{MARK}}
machines_scaled = machines_scores / 2 ** 0.5
{{TAIL}}'''),
        "bug_half": ("bug", "", '''{{MARK}}
machines_scaled = machines_scores / 2
{{TAIL}}'''),
        "bug_sqrt4": ("bug", "", '''{{MARK}}
machines_scaled = machines_scores / math.sqrt(4)
{{TAIL}}'''),
    },
    "table_weights": {
        "ok_exps": ("ok", "common verbose", '''{{MARK}}
exps = torch.exp(machines_scaled)
machines_weights = exps / exps.sum()
{{TAIL}}'''),
        "ok_inline": ("ok", "concise", '''{{MARK}}
machines_weights = torch.exp(machines_scaled) / torch.exp(machines_scaled).sum()
{{TAIL}}'''),
        "ok_torch_sum": ("ok", "matmul", '''{{MARK}}
machines_weights = torch.exp(machines_scaled) / torch.sum(torch.exp(machines_scaled))
{{TAIL}}'''),
        "ok_num_den": ("ok", "verbose", '''{{MARK}}
numerator = torch.exp(machines_scaled)
denominator = numerator.sum()
machines_weights = numerator / denominator
{{TAIL}}'''),
        "ok_method": ("ok", "concise", '''{{MARK}}
e = machines_scaled.exp()
machines_weights = e / e.sum(dim=0)
{{TAIL}}'''),
        "ok_stable": ("ok", "", '''{{MARK}}
shifted = machines_scaled - machines_scaled.max()
machines_weights = torch.exp(shifted) / torch.exp(shifted).sum()
{{TAIL}}'''),
        "ok_loop": ("ok", "loop", '''{{MARK}}
total = 0
for s in machines_scaled:
    total += torch.exp(s)
machines_weights = torch.exp(machines_scaled) / total
{{TAIL}}'''),
        "ok_torch_softmax": ("ok", "", '''{{MARK}}
machines_weights = torch.softmax(machines_scaled, dim=0)
{{TAIL}}'''),
        "bug_unscaled": ("bug", "", '''{{MARK}}
machines_weights = torch.exp(machines_scores) / torch.exp(machines_scores).sum()
{{TAIL}}'''),
        "bug_no_exp": ("bug", "", '''{{MARK}}
machines_weights = machines_scaled / machines_scaled.sum()
{{TAIL}}'''),
    },
    "table_weighted": {
        "ok_none": ("ok", "common concise", '''{{MARK}}
machines_weighted_values = machines_weights[:, None] * V
{{TAIL}}'''),
        "ok_unsqueeze": ("ok", "verbose", '''{{MARK}}
machines_weighted_values = machines_weights.unsqueeze(1) * V
{{TAIL}}'''),
        "ok_view": ("ok", "", '''{{MARK}}
machines_weighted_values = V * machines_weights.view(-1, 1)
{{TAIL}}'''),
        "ok_reshape": ("ok", "", '''{{MARK}}
machines_weighted_values = machines_weights.reshape(4, 1) * V
{{TAIL}}'''),
        "ok_loop": ("ok", "loop", '''{{MARK}}
machines_weighted_values = torch.stack([machines_weights[j] * V[j] for j in range(4)])
{{TAIL}}'''),
        "ok_diag": ("ok", "matmul", '''{{MARK}}
machines_weighted_values = torch.diag(machines_weights) @ V
{{TAIL}}'''),
        "ok_einsum": ("ok", "einsum", '''{{MARK}}
machines_weighted_values = torch.einsum("j,jd->jd", machines_weights, V)
{{TAIL}}'''),
        "bug_matvec": ("bug", "", '''{{MARK}}
machines_weighted_values = machines_weights @ V
{{TAIL}}'''),
        "bug_row": ("bug", "", '''{{MARK}}
machines_weighted_values = machines_weights[None, :] * V
{{TAIL}}'''),
    },
    "table_z": {
        "ok_sum_dim": ("ok", "common verbose", '''{{MARK}}
z_machines = machines_weighted_values.sum(dim=0)
{{TAIL}}'''),
        "ok_sum0": ("ok", "concise", '''{{MARK}}
z_machines = machines_weighted_values.sum(0)
{{TAIL}}'''),
        "ok_torch_sum": ("ok", "matmul", '''{{MARK}}
z_machines = torch.sum(machines_weighted_values, dim=0)
{{TAIL}}'''),
        "ok_loop": ("ok", "loop", '''{{MARK}}
z_machines = torch.zeros(2, dtype=torch.float64)
for row in machines_weighted_values:
    z_machines += row
{{TAIL}}'''),
        "ok_matvec": ("ok", "", '''{{MARK}}
z_machines = machines_weights @ V
{{TAIL}}'''),
        "ok_builtin_sum": ("ok", "", '''{{MARK}}
z_machines = sum(machines_weighted_values)
{{TAIL}}'''),
        "bug_slide": ("bug", "", '''{{MARK}}
z_machines = [0.24, 0.55]
{{TAIL}}'''),
        "bug_scalar": ("bug", "", '''{{MARK}}
z_machines = machines_weighted_values.sum()
{{TAIL}}'''),
        "bug_dim1": ("bug", "", '''{{MARK}}
z_machines = machines_weighted_values.sum(dim=1)
{{TAIL}}'''),
    },
    # ------------------------------------------------------------------------------------------------ sections 5-8
    "attention_scores": {
        "ok_dk_var": ("ok", "common verbose", '''{{HEAD}}
    {{MARK}}
    {{DK}} = Q.shape[-1]
    return Q @ K.transpose(-2, -1) / math.sqrt({{DK}})
'''),
        "ok_reuse": ("ok", "helper concise", '''{{HEAD}}
    {{MARK}}
    return scaled_dot_score(Q, K)
'''),
        "ok_reuse_dot": ("ok", "helper", '''{{HEAD}}
    {{MARK}}
    return dot_score(Q, K) / math.sqrt(Q.size(-1))
'''),
        "ok_einsum": ("ok", "einsum", '''{{HEAD}}
    {{MARK}}
    {{SC}} = torch.einsum("...qd,...kd->...qk", Q, K)
    return {{SC}} / math.sqrt(K.shape[-1])
'''),
        "ok_matmul": ("ok", "matmul", '''{{HEAD}}
    {{MARK}}
    return torch.matmul(Q, K.transpose(-1, -2)) / (K.shape[-1] ** 0.5)
'''),
        "ok_loops": ("ok", "loop", '''{{HEAD}}
    {{MARK}}
    n_q, n_k, {{DK}} = Q.shape[-2], K.shape[-2], Q.shape[-1]
    {{OUT}} = torch.zeros(*Q.shape[:-2], n_q, n_k, dtype=Q.dtype, device=Q.device)
    for i in range(n_q):
        for j in range(n_k):
            {{OUT}}[..., i, j] = (Q[..., i, :] * K[..., j, :]).sum(-1) / {{DK}} ** 0.5
    return {{OUT}}
'''),
        "ok_reassign": ("ok", "verbose", '''{{HEAD}}
    {{MARK}}
    {{SC}} = Q @ K.mT
    {{SC}} = {{SC}} / math.sqrt(K.shape[-1])
    return {{SC}}
'''),
        "ok_prescale": ("ok", "", '''{{HEAD}}
    {{MARK}}
    scale = Q.shape[-1] ** -0.5
    return (Q * scale) @ K.transpose(-2, -1)
'''),
        "bug_unscaled": ("bug", "", '''{{HEAD}}
    {{MARK}}
    return Q @ K.transpose(-2, -1)
'''),
        "bug_KT": ("bug", "concise", '''{{HEAD}}
    {{MARK}}
    return Q @ K.T / math.sqrt(Q.shape[-1])
'''),
        "bug_roles": ("bug", "", '''{{HEAD}}
    {{MARK}}
    return K @ Q.transpose(-2, -1) / math.sqrt(Q.shape[-1])
'''),
        "bug_n_axis": ("bug", "", '''{{HEAD}}
    {{MARK}}
    {{DK}} = Q.shape[-2]
    return Q @ K.transpose(-2, -1) / math.sqrt({{DK}})
'''),
    },
    "softmax": {
        "ok_amax": ("ok", "common verbose", '''{{HEAD}}
    {{MARK}}
    shifted = x - x.amax(dim=dim, keepdim=True)
    {{EX}} = torch.exp(shifted)
    return {{EX}} / {{EX}}.sum(dim=dim, keepdim=True)
'''),
        "ok_max_values": ("ok", "verbose", '''{{HEAD}}
    {{MARK}}
    {{MX}} = x.max(dim=dim, keepdim=True).values
    {{EX}} = torch.exp(x - {{MX}})
    return {{EX}} / {{EX}}.sum(dim=dim, keepdim=True)
'''),
        "ok_reassign": ("ok", "", '''{{HEAD}}
    {{MARK}}
    x = x - torch.max(x, dim=dim, keepdim=True)[0]
    x = torch.exp(x)
    return x / torch.sum(x, dim=dim, keepdim=True)
'''),
        "ok_short": ("ok", "concise", '''{{HEAD}}
    {{MARK}}
    {{EX}} = (x - x.amax(dim, keepdim=True)).exp()
    return {{EX}} / {{EX}}.sum(dim, keepdim=True)
'''),
        # right in exact arithmetic, but x - logsumexp(x) near 1000 in float32 loses ~1e-5: the stability case fails
        "bug_logsumexp": ("bug", "concise", '''{{HEAD}}
    {{MARK}}
    return torch.exp(x - torch.logsumexp(x, dim=dim, keepdim=True))
'''),
        "ok_helper": ("ok", "helper", '''def stable_exp(x, dim):
    """exp(x - max) along dim, so that nothing overflows"""
    biggest = x.max(dim=dim, keepdim=True).values
    return torch.exp(x - biggest)


{{HEAD}}
    {{MARK}}
    {{EX}} = stable_exp(x, dim)
    return {{EX}} / {{EX}}.sum(dim=dim, keepdim=True)
'''),
        "ok_loop": ("ok", "loop", '''{{HEAD}}
    {{MARK}}
    x = x.movedim(dim, -1)
    flat = x.reshape(-1, x.shape[-1])
    rows = []
    for row in flat:
        {{MX}} = max(float(val) for val in row)
        {{EX}} = [math.exp(float(val) - {{MX}}) for val in row]
        total = sum({{EX}})
        rows.append([val / total for val in {{EX}}])
    return torch.tensor(rows, dtype=x.dtype, device=x.device).reshape(x.shape).movedim(-1, dim)
'''),
        "bug_unstable": ("bug", "", '''{{HEAD}}
    {{MARK}}
    {{EX}} = torch.exp(x)
    return {{EX}} / {{EX}}.sum(dim=dim, keepdim=True)
'''),
        "bug_global_max": ("bug", "", '''{{HEAD}}
    {{MARK}}
    {{EX}} = torch.exp(x - x.max())
    return {{EX}} / {{EX}}.sum(dim=dim, keepdim=True)
'''),
        "bug_axis0": ("bug", "", '''{{HEAD}}
    {{MARK}}
    {{EX}} = torch.exp(x - x.amax(dim=0, keepdim=True))
    return {{EX}} / {{EX}}.sum(dim=0, keepdim=True)
'''),
        "bug_no_keepdim": ("bug", "", '''{{HEAD}}
    {{MARK}}
    {{EX}} = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return {{EX}} / {{EX}}.sum(dim=dim)
'''),
        "bug_torch_softmax": ("bug", "", '''{{HEAD}}
    {{MARK}}
    return torch.softmax(x, dim=dim)
'''),
    },
    "self_attention": {
        "ok_masked_fill": ("ok", "common verbose", '''{{HEAD}}
    {{MARK}}
    {{SC}} = attention_scores(Q, K)
    if mask is not None:
        {{SC}} = {{SC}}.masked_fill(~mask, float("-inf"))
    {{WT}} = softmax({{SC}}, dim=-1)
    return {{WT}} @ V, {{WT}}
'''),
        "ok_where": ("ok", "", '''{{HEAD}}
    {{MARK}}
    {{SC}} = attention_scores(Q, K)
    if mask is not None:
        {{SC}} = torch.where(mask, {{SC}}, torch.full_like({{SC}}, float("-inf")))
    {{WT}} = softmax({{SC}})
    {{OUT}} = {{WT}} @ V
    return {{OUT}}, {{WT}}
'''),
        "ok_big_negative": ("ok", "", '''{{HEAD}}
    {{MARK}}
    {{SC}} = attention_scores(Q, K)
    if mask is not None:
        {{SC}} = {{SC}}.masked_fill(mask == 0, -1e9)
    {{WT}} = softmax({{SC}}, dim=-1)
    return torch.matmul({{WT}}, V), {{WT}}
'''),
        "ok_logical_not": ("ok", "concise", '''{{HEAD}}
    {{MARK}}
    {{SC}} = attention_scores(Q, K)
    if mask is not None:
        {{SC}} = {{SC}}.masked_fill(mask.logical_not(), -math.inf)
    {{WT}} = softmax({{SC}}, -1)
    return {{WT}} @ V, {{WT}}
'''),
        "ok_einsum": ("ok", "einsum", '''{{HEAD}}
    {{MARK}}
    {{SC}} = torch.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(K.size(-1))
    if mask is not None:
        {{SC}} = {{SC}}.masked_fill(~mask, float("-inf"))
    {{WT}} = softmax({{SC}}, dim=-1)
    return torch.einsum("...qk,...kd->...qd", {{WT}}, V), {{WT}}
'''),
        "ok_helper": ("ok", "helper", '''def apply_mask(scores, mask):
    """-inf where the mask says False (nothing to do without a mask)"""
    if mask is None:
        return scores
    return scores.masked_fill(~mask, float("-inf"))


{{HEAD}}
    {{MARK}}
    {{WT}} = softmax(apply_mask(attention_scores(Q, K), mask), dim=-1)
    return {{WT}} @ V, {{WT}}
'''),
        "ok_inline_none": ("ok", "concise", '''{{HEAD}}
    {{MARK}}
    {{SC}} = attention_scores(Q, K)
    {{SC}} = {{SC}} if mask is None else {{SC}}.masked_fill(~mask, float("-inf"))
    {{WT}} = softmax({{SC}}, dim=-1)
    return {{WT}} @ V, {{WT}}
'''),
        "ok_add_bias": ("ok", "", '''{{HEAD}}
    {{MARK}}
    {{SC}} = attention_scores(Q, K)
    if mask is not None:
        bias = torch.zeros_like({{SC}}).masked_fill(~mask, float("-inf"))
        {{SC}} = {{SC}} + bias
    {{WT}} = softmax({{SC}}, dim=-1)
    {{OUT}} = torch.matmul({{WT}}, V)
    return {{OUT}}, {{WT}}
'''),
        "bug_mask_after": ("bug", "", '''{{HEAD}}
    {{MARK}}
    {{SC}} = attention_scores(Q, K)
    {{WT}} = softmax({{SC}}, dim=-1)
    if mask is not None:
        {{WT}} = {{WT}}.masked_fill(~mask, 0.0)
    return {{WT}} @ V, {{WT}}
'''),
        "bug_mask_zero": ("bug", "", '''{{HEAD}}
    {{MARK}}
    {{SC}} = attention_scores(Q, K)
    if mask is not None:
        {{SC}} = {{SC}}.masked_fill(~mask, 0)
    {{WT}} = softmax({{SC}}, dim=-1)
    return {{WT}} @ V, {{WT}}
'''),
        "bug_swapped_return": ("bug", "", '''{{HEAD}}
    {{MARK}}
    {{SC}} = attention_scores(Q, K)
    if mask is not None:
        {{SC}} = {{SC}}.masked_fill(~mask, float("-inf"))
    {{WT}} = softmax({{SC}}, dim=-1)
    return {{WT}}, {{WT}} @ V
'''),
        "bug_ignores_mask": ("bug", "", '''{{HEAD}}
    {{MARK}}
    {{WT}} = softmax(attention_scores(Q, K), dim=-1)
    {{OUT}} = {{WT}} @ V
    return {{OUT}}, {{WT}}
'''),
        "bug_dim_minus2": ("bug", "", '''{{HEAD}}
    {{MARK}}
    {{SC}} = attention_scores(Q, K)
    if mask is not None:
        {{SC}} = {{SC}}.masked_fill(~mask, float("-inf"))
    {{WT}} = softmax({{SC}}, dim=-2)
    return {{WT}} @ V, {{WT}}
'''),
        "bug_mask_inverted": ("bug", "", '''{{HEAD}}
    {{MARK}}
    {{SC}} = attention_scores(Q, K)
    if mask is not None:
        {{SC}} = {{SC}}.masked_fill(mask, float("-inf"))
    {{WT}} = softmax({{SC}}, dim=-1)
    return {{WT}} @ V, {{WT}}
'''),
    },
    "causal_mask": {
        "ok_tril_method": ("ok", "common concise", '''{{HEAD}}
    {{MARK}}
    return torch.ones(n, n, dtype=torch.bool).tril()
'''),
        "ok_tril_bool": ("ok", "", '''{{HEAD}}
    {{MARK}}
    return torch.tril(torch.ones(n, n)).bool()
'''),
        "ok_tril_dtype": ("ok", "verbose", '''{{HEAD}}
    {{MARK}}
    return torch.tril(torch.ones((n, n), dtype=torch.bool))
'''),
        "ok_arange": ("ok", "", '''{{HEAD}}
    {{MARK}}
    idx = torch.arange(n)
    return idx[:, None] >= idx[None, :]
'''),
        "ok_arange_unsqueeze": ("ok", "verbose", '''{{HEAD}}
    {{MARK}}
    rows = torch.arange(n).unsqueeze(1)
    cols = torch.arange(n).unsqueeze(0)
    return rows >= cols
'''),
        "ok_listcomp": ("ok", "loop", '''{{HEAD}}
    {{MARK}}
    return torch.tensor([[j <= i for j in range(n)] for i in range(n)])
'''),
        "ok_not_triu": ("ok", "", '''{{HEAD}}
    {{MARK}}
    return ~torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
'''),
        "ok_loop": ("ok", "loop", '''{{HEAD}}
    {{MARK}}
    {{OUT}} = torch.zeros(n, n, dtype=torch.bool)
    for i in range(n):
        {{OUT}}[i, :i + 1] = True
    return {{OUT}}
'''),
        "bug_float": ("bug", "", '''{{HEAD}}
    {{MARK}}
    return torch.tril(torch.ones(n, n))
'''),
        "bug_triu": ("bug", "", '''{{HEAD}}
    {{MARK}}
    return torch.triu(torch.ones(n, n, dtype=torch.bool))
'''),
        "bug_no_diagonal": ("bug", "", '''{{HEAD}}
    {{MARK}}
    return torch.ones(n, n, dtype=torch.bool).tril(-1)
'''),
    },
    "space_invader": {
        "ok_oneline": ("ok", "common concise", '''{{MARK}}
space_invader_weights = softmax(si_scores.masked_fill(~causal_mask(4), float("-inf")), dim=-1)
{{TAIL}}'''),
        "ok_two_steps": ("ok", "verbose", '''{{MARK}}
masked = si_scores.masked_fill(~causal_mask(4), float("-inf"))
space_invader_weights = softmax(masked)
{{TAIL}}'''),
        "ok_where": ("ok", "", '''{{MARK}}
allowed = causal_mask(len(si_words))
space_invader_weights = softmax(torch.where(allowed, si_scores, torch.tensor(float("-inf"), dtype=si_scores.dtype)))
{{TAIL}}'''),
        "ok_clone_index": ("ok", "loop", '''{{MARK}}
m = causal_mask(4)
masked_si = si_scores.clone()
masked_si[~m] = float("-inf")
space_invader_weights = softmax(masked_si, dim=-1)
{{TAIL}}'''),
        "ok_additive_mask": ("ok", "", '''{{MARK}}
neg_inf = torch.full((4, 4), float("-inf"), dtype=torch.float64)
space_invader_weights = softmax(si_scores + torch.triu(neg_inf, diagonal=1), dim=-1)
{{TAIL}}'''),
        "ok_big_negative": ("ok", "", '''{{MARK}}
space_invader_weights = softmax(si_scores.masked_fill(causal_mask(4) == 0, -1e9), dim=-1)
{{TAIL}}'''),
        "ok_via_attention": ("ok", "helper", '''{{MARK}}
mask = causal_mask(4)
space_invader_weights = softmax(si_scores.masked_fill(~mask, -math.inf), dim=-1)
{{TAIL}}'''),
        "bug_zero_after": ("bug", "", '''{{MARK}}
space_invader_weights = softmax(si_scores) * causal_mask(4)
{{TAIL}}'''),
        "bug_inverted": ("bug", "", '''{{MARK}}
space_invader_weights = softmax(si_scores.masked_fill(causal_mask(4), float("-inf")))
{{TAIL}}'''),
        "bug_fill_zero": ("bug", "", '''{{MARK}}
space_invader_weights = softmax(si_scores.masked_fill(~causal_mask(4), 0.0))
{{TAIL}}'''),
    },
    "brown_dog": {
        "ok_checks_dk": ("ok", "common verbose", '''{{MARK}}
brown_dog_weights = softmax(brown_scores / math.sqrt(checks.BROWN_DOG_DK))
{{TAIL}}'''),
        "ok_sqrt64": ("ok", "concise", '''{{MARK}}
brown_dog_weights = softmax(brown_scores / math.sqrt(64))
{{TAIL}}'''),
        "ok_eight": ("ok", "concise", '''{{MARK}}
brown_dog_weights = softmax(brown_scores / 8)
{{TAIL}}'''),
        "ok_dk_pow": ("ok", "verbose", '''{{MARK}}
d_k = 64
brown_dog_weights = softmax(brown_scores / d_k ** 0.5, dim=-1)
{{TAIL}}'''),
        "ok_exp_by_hand": ("ok", "loop", '''{{MARK}}
scaled = brown_scores / math.sqrt(64)
brown_dog_weights = torch.exp(scaled) / torch.exp(scaled).sum()
{{TAIL}}'''),
        "ok_neg_pow": ("ok", "", '''{{MARK}}
brown_dog_weights = softmax(brown_scores * 64 ** -0.5, dim=0)
{{TAIL}}'''),
        "bug_by_64": ("bug", "", '''{{MARK}}
brown_dog_weights = softmax(brown_scores / 64)
{{TAIL}}'''),
        "bug_unscaled": ("bug", "", '''{{MARK}}
brown_dog_weights = softmax(brown_scores)
{{TAIL}}'''),
        "bug_typed": ("bug", "", '''{{MARK}}
brown_dog_weights = [0.018, 0.982, 0.0, 0.0]
{{TAIL}}'''),
        "bug_after_softmax": ("bug", "", '''{{MARK}}
brown_dog_weights = softmax(brown_scores) / 8
{{TAIL}}'''),
    },
}

#: comments students add to a cell, one line each (each student picks their own, or none)
COMMENTS = {
    "dot_score": ["# scores of every query against every key", "# transpose the last two axes so the batch axes stay",
                  "# (n_q, d) @ (d, n_k) -> (n_q, n_k)", "# matrix product with K transposed",
                  "# q_i . k_j for all i, j at once", "# has to work with batch dims too",
                  "# dot product = Q K^T", "# swap the last 2 dims of K"],
    "scaled_dot_score": ["# divide by sqrt of the key length", "# d_k = last dim of K", "# same as before but scaled",
                         "# scale so the variance stays ~1", "# reuse dot_score from above",
                         "# sqrt(d_k) scaling like in the paper"],
    "bilinear_score": ["# q^T W k for all pairs", "# first Q W, then against the keys", "# W maps d_q -> d_k",
                       "# shapes: (n_q, d_q) (d_q, d_k) (d_k, n_k)", "# follow the shapes",
                       "# bilinear = dot product after multiplying by W", "# TODO check with d_q != d_k"],
    "additive_score": ["# MLP score from Bahdanau", "# broadcast queries against keys",
                       "# project queries with W and keys with U", "# tanh then dot with v",
                       "# (n_q, 1, d_a) + (1, n_k, d_a) -> (n_q, n_k, d_a)", "# this one took me a while",
                       "# every (query, key) pair at once"],
    "table_scores": ["# query of machines = row 3", "# 4 dot products", "# should give 0.70 0.21 -0.49 0.98",
                     "# step 1", "# q_machines . k_j for every j", "# scores for machines"],
    "table_scaled": ["# d_k = 2", "# step 2: scale", "# divide by sqrt(2)", "# scale by sqrt(d_k)",
                     "# keys have length 2"],
    "table_weights": ["# softmax by hand", "# exp and normalise", "# step 3", "# weights sum to 1",
                      "# e^s / sum e^s"],
    "table_weighted": ["# a_j * v_j", "# broadcasting (4,1) * (4,2)", "# step 4", "# weight every value",
                       "# one row per word"],
    "table_z": ["# sum the rows", "# step 5", "# z = sum_j a_j v_j", "# should be about [0.23, 0.55]",
                "# add up over the words"],
    "attention_scores": ["# Q K^T / sqrt(d_k)", "# same as scaled_dot_score", "# batched over leading dims",
                         "# scaled dot product", "# last dim of Q is d_k", "# works with (batch, heads, n, d)"],
    "softmax": ["# subtract max for stability", "# numerically stable version", "# keepdim so it broadcasts",
                "# avoid exp overflow", "# softmax(x) = softmax(x - c)", "# max along dim, not the global max"],
    "self_attention": ["# scores -> mask -> softmax -> weighted sum", "# mask before softmax!",
                       "# -inf where not allowed", "# put it all together", "# masked positions get weight 0",
                       "# weights @ V gives the output"],
    "causal_mask": ["# lower triangle incl. diagonal", "# j <= i", "# True = allowed", "# lower triangular mask",
                    "# no peeking at future words"],
    "space_invader": ["# mask the future then softmax", "# causal mask on the slide's scores",
                      "# -inf above the diagonal", "# row 0 should be [1, 0, 0, 0]", "# real weights, not the slide's"],
    "brown_dog": ["# d_k = 64 so divide by 8", "# scale then softmax", "# sqrt(64) = 8", "# brown dog example",
                  "# scores / sqrt(d_k)"],
}

#: the written answers to "what happens without the division by sqrt(d_k), with d_k = 512?" (one per student)
WRITTEN = [
    # 0
    "Without the division the dot products get large: their variance grows with $d_k$, so the standard deviation "
    "is about $\\sqrt{512} \\approx 22$. The softmax then becomes almost one-hot and one key gets nearly all the "
    "weight. In that regime the softmax is saturated and its gradient is almost zero, so the scores barely get any "
    "gradient and learning is very slow.",
    # 1
    "If we don't scale, the scores are huge for d_k = 512 and softmax picks basically one word (weights like 1, 0, 0, "
    "0). The slider shows the weights turning into a spike. The gradient through a saturated softmax vanishes, so the "
    "model can't learn the queries and keys.",
    # 2
    "The weights become extremely peaked (close to one-hot) because the scores are about 22 times bigger.\n"
    "The gradient becomes very small.",
    # 3
    "The scores grow with the dimension. Without dividing by sqrt(d_k) the softmax outputs are all close to 0 except "
    "the max, which is close to 1.",
    # 4
    "Without scaling the values get too big and exp overflows, so you get inf and NaN in the attention weights.",
    # 5
    "The attention becomes hard attention: the largest score takes all the weight. Because the gradient of the "
    "softmax is $a_j(\\delta_{jk} - a_k)$, it goes to zero when one $a$ is 1 and the others are 0, so almost nothing "
    "flows back to the scores.",
    # 6
    "With d_k=512 the dot product is a sum of 512 terms, so its variance is 512 times the variance of one term. "
    "Softmax on numbers that big saturates -> nearly one-hot weights -> vanishing gradients. Dividing by "
    "$\\sqrt{512}$ brings the variance back to 1.",
    # 7
    "The weights become more uniform, because when all the numbers are big they all look the same to the softmax, "
    "and then the gradient is also smaller.",
    # 8
    "- weights: almost one-hot, all the attention goes to one key\n"
    "- gradient: tiny, because the softmax is flat when it is saturated\n"
    "- so training gets stuck",
    # 9
    "The slider shows that for big d_k the weights concentrate on a single position. That means the model stops "
    "mixing information from several words. I think the gradient also becomes smaller.",
    # 10
    "The ranking of the keys does not change (dividing by a constant keeps the order), but the softmax gets much "
    "sharper. For $d_k = 512$ it is practically an argmax, and the gradient with respect to the scores vanishes "
    "(the Jacobian of a one-hot softmax is about 0).",
    # 11
    "The variance of $q \\cdot k$ is $d_k$ (for entries of unit variance), so for 512 the scores are spread over "
    "roughly $\\pm 45$. softmax(scores) then gives ~1 to the biggest and ~0 elsewhere, and the softmax's gradient is "
    "~0 in this region, so the model learns very slowly.",
    # 12
    "if you leave it out the softmax saturates. that's it really, it's like a max function then.",
    # 13
    "The weights get very close to 0 and 1. Gradients vanish.",
    # 14
    "Without the scaling the scores are to big, so the softmax give all the weight to one key and the other keys get "
    "nothing. Then the gradients are very small and the network don't learn good.",
    # 15
    "Large d_k → large dot products → softmax in its saturation region → one-hot attention and vanishing gradients "
    "(like a saturated sigmoid).",
    # 16
    "As the slider shows, at d_k = 512 the unscaled softmax puts ~100% on one word. The gradient that reaches the "
    "scores is then almost zero, because changing a score a little does not change the output of a saturated "
    "softmax.",
    # 17
    "The division keeps the scores small. Without it the gradients explode, because the scores are so large.",
    # 18
    "Attention weights collapse onto one key (one-hot). Gradients vanish.",
    # 19
    "The attention would become very spiky and the model would basically only look at one token; it also makes "
    "training unstable.",
    # 20
    "Dividing by $\\sqrt{d_k}$ normalises the variance of the scores to about 1. If you skip it with $d_k=512$, the "
    "standard deviation of the scores is about 22.6, the softmax saturates and returns nearly one-hot weights, and "
    "its derivative $\\partial a / \\partial s$ is close to zero, so the queries and keys receive almost no gradient.",
    # 21
    "**Weights:** peaked / one-hot. **Gradient:** ~0 (vanishing). Both because exp() blows up large differences.",
    # 22
    "I'm not sure, but I think the weights would be less accurate because the numbers are bigger.",
    # 23
    "For d_k = 512 the scores are much larger, so after the softmax almost all of the probability mass sits on the "
    "highest-scoring key. Small changes to the scores then don't change the weights at all, so the gradient that "
    "reaches the scores is nearly zero.",
    # 24
    "The model gets overconfident about one word. The softmax output is near 1 for the max and ~0 for the others, and "
    "in this flat region the gradient disappears.",
    # 25
    "Scaling keeps the softmax out of the regions where its gradients are extremely small. Without it: almost one-hot "
    "weights and a vanishing gradient (Vaswani et al. 2017, section 3.2.1).",
    # 26
    "weights become like argmax -> attention to only 1 token. the gradient is small",
    # 27
    "It makes the numbers smaller so they are easier to compute.",
    # 28
    "Without √d_k the softmax is too sharp: on the slider at 512 the curve is basically a step. Training would then "
    "be slow because the gradient is small.",
    # 29
    "The attention weights saturate to 0/1, so the gradient through the softmax vanishes and the scores (and W_q, "
    "W_k) stop learning.",
    # 30
    "A bigger d_k means the dot products have a bigger variance. Without scaling, the softmax distribution gets very "
    "peaked (low entropy) and its gradients are tiny, which slows learning down a lot.",
    # 31
    "the weights become one hot and the gradient goes to 0",
    # 32
    "Without the scaling factor the softmax focuses on a single position and ignores the others. The gradients with "
    "respect to the scores are then very close to zero, so backpropagation basically stops at the softmax.",
    # 33
    "With d_k = 512 the scores can be in the hundreds. exp() of that is huge and one term dominates the sum, so the "
    "weights are about [0, ..., 1, ..., 0].\n\nGradient: a saturated softmax gives ≈ 0.",
]
