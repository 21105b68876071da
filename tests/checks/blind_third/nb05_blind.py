"""Third blind set for notebook 05 (self-attention), written from the student notebook only."""
from blind_case import Blind

NOTEBOOK = "05_self_attention"

_INPLACE = (("modif",), ("in place",), ("in-place",), ("mutat",), ("caller",), ("overwr",))


def _f(sig, doc, body):
    return f'def {sig}:\n    """{doc}"""\n{body}'


_DOT = ("dot_score(Q, K)", "Dot-product scores q_i . k_j: Q (..., n_q, d), K (..., n_k, d) -> (..., n_q, n_k).")
_SDOT = ("scaled_dot_score(Q, K)",
         "Scaled dot-product scores q_i . k_j / sqrt(d_k): Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k).")
_BIL = ("bilinear_score(Q, K, W)",
        "Bilinear scores q_i^T W k_j: Q (..., n_q, d_q), K (..., n_k, d_k), W (d_q, d_k) -> (..., n_q, n_k).")
_ADD = ("additive_score(Q, K, W, U, v)", "Additive (MLP) scores v . tanh(W q_i + U k_j): Q (..., n_q, d_q), K (..., n_k, d_k),\n    W (d_a, d_q), U (d_a, d_k), v (d_a,) -> (..., n_q, n_k).")
_ATT = ("attention_scores(Q, K)", "Scaled dot-product scores: Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k).")
_SM = ("softmax(x, dim=-1)", "Numerically stable softmax of x along dim.")
_SA = ("self_attention(Q, K, V, mask=None)", "Return (output, weights) of scaled dot-product attention; mask is True where allowed.")
_CM = ("causal_mask(n)", "(n, n) bool tensor, True where query i may attend to key j (j <= i).")


def dot(body):
    return _f(*_DOT, body)


def sdot(body):
    return _f(*_SDOT, body)


def bil(body):
    return _f(*_BIL, body)


def add(body):
    return _f(*_ADD, body)


def att(body):
    return _f(*_ATT, body)


def sm(body):
    return _f(*_SM, body)


def sa(body):
    return _f(*_SA, body)


def cm(body):
    return _f(*_CM, body)


_SA_OK_TAIL = '''    weights = softmax(scores, dim=-1)
    return weights @ V, weights
'''

BLIND = [
    # ---- dot_score
    Blind(name="dot_K_T", cell="dot_score", test_cell="check_dot_score",
          source=dot('''    return Q @ K.T
'''),
          mistake="uses K.T, which reverses every axis of a batched K, instead of K.transpose(-2, -1)",
          names_it=(("transpose(-2, -1)",), ("k.t",), ("batch",), ("last two",)),
          part="the transpose of K"),
    Blind(name="dot_transposed_result", cell="dot_score", test_cell="check_dot_score",
          source=dot('''    return K @ Q.transpose(-2, -1)
'''),
          mistake="returns (n_k, n_q): keys as rows, queries as columns",
          names_it=(("transpos",), ("(..., n_q, n_k)",), ("rows",), ("query i",)),
          part="the orientation of the result"),
    Blind(name="dot_elementwise", cell="dot_score", test_cell="check_dot_score",
          source=dot('''    return (Q * K).sum(dim=-1)
'''),
          mistake="multiplies query i only with key i (elementwise), not every query with every key",
          names_it=(("every",), ("all pairs",), ("shape",), ("(..., n_q, n_k)",)),
          part="pairs scored"),
    # ---- scaled_dot_score
    Blind(name="sdot_sqrt_nk", cell="scaled_dot_score", test_cell="check_scaled_dot_score",
          source=sdot('''    return dot_score(Q, K) / math.sqrt(K.shape[-2])
'''),
          mistake="divides by the square root of the number of keys instead of the key length d_k",
          names_it=(("d_k",), ("length of",), ("last axis",)),
          part="the scale's d_k"),
    Blind(name="sdot_no_sqrt", cell="scaled_dot_score", test_cell="check_scaled_dot_score",
          source=sdot('''    return dot_score(Q, K) / Q.shape[-1]
'''),
          mistake="divides by d_k instead of sqrt(d_k)",
          names_it=(("sqrt",), ("square root",)),
          part="the scale"),
    Blind(name="sdot_q_in_place", cell="scaled_dot_score", test_cell="check_scaled_dot_score",
          source=sdot('''    Q /= math.sqrt(Q.shape[-1])
    return dot_score(Q, K)
'''),
          mistake="scales the caller's Q in place; the scores are right but Q is changed",
          names_it=_INPLACE + (("changed", "q"),),
          part="Q divided in place"),
    # ---- bilinear_score
    Blind(name="bil_W_transposed", cell="bilinear_score", test_cell="check_bilinear_score",
          source=bil('''    return Q @ W.T @ K.transpose(-2, -1)
'''),
          mistake="uses W.T instead of W (q^T W^T k)",
          names_it=(("transpos",), ("w.t",), ("d_q != d_k",), ("shape",)),
          part="W transposed"),
    Blind(name="bil_K_T", cell="bilinear_score", test_cell="check_bilinear_score",
          source=bil('''    return Q @ W @ K.T
'''),
          mistake="uses K.T, which reverses every axis of a batched K",
          names_it=(("transpose(-2, -1)",), ("k.t",), ("batch",), ("last two",)),
          part="the transpose of K"),
    # ---- additive_score
    Blind(name="add_relu", cell="additive_score", test_cell="check_additive_score",
          source=add('''    pairs = (Q @ W.T).unsqueeze(-2) + (K @ U.T).unsqueeze(-3)
    return torch.relu(pairs) @ v
'''),
          mistake="relu instead of tanh",
          names_it=(("tanh",),),
          part="the hidden activation"),
    Blind(name="add_pairs_transposed", cell="additive_score", test_cell="check_additive_score",
          source=add('''    pairs = (Q @ W.T).unsqueeze(-3) + (K @ U.T).unsqueeze(-2)     # (..., n_k, n_q, d_a)
    return torch.tanh(pairs) @ v
'''),
          mistake="broadcasts the pairs the other way round, giving (n_k, n_q) scores",
          names_it=(("transpos",), ("(..., n_q, n_k)",), ("shape",), ("rows",), ("query i",)),
          part="the broadcasting of pairs"),
    Blind(name="add_tanh_outside", cell="additive_score", test_cell="check_additive_score",
          source=add('''    pairs = (Q @ W.T).unsqueeze(-2) + (K @ U.T).unsqueeze(-3)
    return torch.tanh(pairs @ v)
'''),
          mistake="applies the tanh after the dot product with v instead of before",
          names_it=(("tanh",), ("before",), ("order",)),
          part="where the tanh is applied"),
    # ---- table cells
    Blind(name="table_scores_wrong_row", cell="table_scores", test_cell="check_table_scores",
          source='''machines_scores = K @ Q[0]
print(machines_scores)
''',
          mistake="uses the query of the first word (Computers) instead of machines, the fourth",
          names_it=(("machines",), ("fourth",), ("query",)),
          part="which query"),
    Blind(name="table_scaled_by_two", cell="table_scaled", test_cell="check_table_scaled",
          source='''machines_scaled = torch.as_tensor(machines_scores) / 2
print(machines_scaled)
''',
          mistake="divides by d_k = 2 instead of sqrt(2)",
          names_it=(("sqrt",), ("square root",)),
          part="the scale"),
    Blind(name="table_scaled_by_words", cell="table_scaled", test_cell="check_table_scaled",
          source='''machines_scaled = torch.as_tensor(machines_scores) / math.sqrt(len(words))
print(machines_scaled)
''',
          mistake="divides by the square root of the number of words (4) instead of d_k = 2",
          names_it=(("d_k",), ("sqrt(2)",), ("length of a key",)),
          part="the scale's d_k"),
    Blind(name="table_weights_unscaled", cell="table_weights", test_cell="check_table_weights",
          source='''s = torch.as_tensor(machines_scores)
machines_weights = torch.exp(s) / torch.exp(s).sum()
print(machines_weights, "sum =", float(machines_weights.sum()))
''',
          mistake="takes the softmax of the raw scores instead of the scaled ones",
          names_it=(("scaled",), ("sqrt",)),
          part="which scores go into the softmax"),
    Blind(name="table_weights_no_exp", cell="table_weights", test_cell="check_table_weights",
          source='''s = torch.as_tensor(machines_scaled)
machines_weights = s / s.sum()
print(machines_weights, "sum =", float(machines_weights.sum()))
''',
          mistake="divides the scores by their sum without exponentiating",
          names_it=(("exp",), ("softmax",)),
          part="the exponential of the softmax"),
    Blind(name="table_weighted_scores", cell="table_weighted", test_cell="check_table_weighted",
          source='''machines_weighted_values = torch.as_tensor(machines_scaled)[:, None] * V
print(machines_weighted_values)
''',
          mistake="weights the values by the scaled scores instead of the softmax weights",
          names_it=(("weight",), ("softmax",)),
          part="scores used as weights"),
    Blind(name="table_z_mean", cell="table_z", test_cell="check_table_z",
          source='''z_machines = torch.as_tensor(machines_weighted_values).mean(dim=0)
print(z_machines)
''',
          mistake="averages the weighted rows instead of summing them",
          names_it=(("sum",), ("mean",)),
          part="sum vs mean"),
    Blind(name="table_z_rounded", cell="table_z", test_cell="check_table_z",
          source='''rows = torch.round(machines_weighted_values * 100) / 100      # as on the slide
z_machines = rows.sum(dim=0)
print(z_machines)
''',
          mistake="rounds the rows to two decimals before adding, like the slide's table",
          names_it=(("round",), ("four decimals",), ("precision",), ("0.2331",)),
          part="rounding before the sum"),
    Blind(name="table_z_wrong_axis", cell="table_z", test_cell="check_table_z",
          source='''z_machines = machines_weighted_values.sum(dim=1)
print(z_machines)
''',
          mistake="sums each row's two numbers (axis 1) instead of summing the rows",
          names_it=(("shape",), ("axis",), ("rows",), ("two numbers",)),
          part="the summation axis"),
    # ---- attention_scores
    Blind(name="att_hardcoded_sqrt2", cell="attention_scores", test_cell="check_attention_scores",
          source=att('''    return Q @ K.transpose(-2, -1) / math.sqrt(2)
'''),
          mistake="divides by sqrt(2), the table's d_k, instead of sqrt(Q.shape[-1])",
          names_it=(("d_k",), ("q.shape[-1]",), ("sqrt(2)",), ("hard",)),
          part="a hard-coded d_k"),
    Blind(name="att_unscaled", cell="attention_scores", test_cell="check_attention_scores",
          source=att('''    return Q @ K.transpose(-2, -1)
'''),
          mistake="forgets the division by sqrt(d_k)",
          names_it=(("sqrt",), ("scal",)),
          part="the scaling"),
    Blind(name="att_q_in_place", cell="attention_scores", test_cell="check_attention_scores",
          source=att('''    Q /= math.sqrt(Q.shape[-1])
    return Q @ K.transpose(-2, -1)
'''),
          mistake="scales the caller's Q in place; the scores are right but Q is changed",
          names_it=_INPLACE + (("changed", "q"),),
          part="Q divided in place"),
    # ---- softmax
    Blind(name="sm_global_max", cell="softmax", test_cell="check_softmax",
          source=sm('''    e = torch.exp(x - x.max())
    return e / e.sum(dim=dim, keepdim=True)
'''),
          mistake="subtracts one global maximum: a row hundreds below the largest entry underflows to 0/0",
          names_it=(("along dim",), ("each row",), ("per row",), ("global max",), ("underflow",), ("nan",)),
          part="the max subtracted for stability"),
    Blind(name="sm_in_place", cell="softmax", test_cell="check_softmax",
          source=sm('''    x -= x.max(dim=dim, keepdim=True).values
    e = torch.exp(x)
    return e / e.sum(dim=dim, keepdim=True)
'''),
          mistake="subtracts the max from the caller's x in place",
          names_it=_INPLACE + (("changed", "x"), ("changed", "input")),
          part="x shifted in place"),
    Blind(name="sm_ignores_dim", cell="softmax", test_cell="check_softmax",
          source=sm('''    e = torch.exp(x - x.max(dim=-1, keepdim=True).values)
    return e / e.sum(dim=-1, keepdim=True)
'''),
          mistake="always normalises along the last axis, ignoring dim",
          names_it=(("dim",), ("axis",)),
          part="the softmax axis"),
    Blind(name="sm_naive", cell="softmax", test_cell="check_softmax",
          source=sm('''    e = torch.exp(x)
    return e / e.sum(dim=dim, keepdim=True)
'''),
          mistake="no max subtracted: nan for inputs near 1000",
          names_it=(("1000",), ("overflow",), ("max",), ("stable",), ("nan",), ("inf",)),
          part="the max subtraction"),
    Blind(name="sm_no_keepdim", cell="softmax", test_cell="check_softmax",
          source=sm('''    e = torch.exp(x - x.max(dim=dim, keepdim=True).values)
    return e / e.sum(dim=dim)
'''),
          mistake="sums without keepdim, so the sum broadcasts along the wrong axis",
          names_it=(("keepdim",), ("sum to 1",), ("broadcast",), ("along dim",)),
          part="the normalising sum's shape"),
    # ---- self_attention
    Blind(name="sa_mask_zero", cell="self_attention", test_cell="check_self_attention",
          source=sa('''    scores = attention_scores(Q, K)
    if mask is not None:
        scores = scores.masked_fill(~mask, 0.0)
''' + _SA_OK_TAIL),
          mistake="sets masked scores to 0 instead of -inf: with negative scores the masked keys still win weight",
          names_it=(("-inf",), ("infinity",), ("masked", "weight 0"), ("masked", "zero")),
          part="the value given to masked scores"),
    Blind(name="sa_mask_after_softmax", cell="self_attention", test_cell="check_self_attention",
          source=sa('''    weights = softmax(attention_scores(Q, K), dim=-1)
    if mask is not None:
        weights = weights * mask
    return weights @ V, weights
'''),
          mistake="zeroes the masked weights after the softmax, so rows no longer sum to 1",
          names_it=(("before the softmax",), ("sum to 1",), ("sum to one",), ("-inf",)),
          part="masking after the softmax"),
    Blind(name="sa_mask_inverted", cell="self_attention", test_cell="check_self_attention",
          source=sa('''    scores = attention_scores(Q, K)
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
''' + _SA_OK_TAIL),
          mistake="masks where the mask is True (allowed) instead of where it is False",
          names_it=(("true where",), ("allowed",), ("invert",), ("~mask",), ("future",)),
          part="the mask's polarity"),
    Blind(name="sa_swapped_return", cell="self_attention", test_cell="check_self_attention",
          source=sa('''    scores = attention_scores(Q, K)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-1)
    return weights, weights @ V
'''),
          mistake="returns (weights, output) instead of (output, weights)",
          names_it=(("order",), ("(output, weights)",), ("swap",)),
          part="the order of the returned pair"),
    Blind(name="sa_softmax_over_queries", cell="self_attention", test_cell="check_self_attention",
          source=sa('''    scores = attention_scores(Q, K)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-2)
    return weights @ V, weights
'''),
          mistake="normalises over the queries (dim=-2) instead of over the keys",
          names_it=(("dim",), ("axis",), ("keys",), ("sum to 1",)),
          part="the softmax axis"),
    Blind(name="sa_q_in_place", cell="self_attention", test_cell="check_self_attention",
          source=sa('''    Q /= math.sqrt(Q.shape[-1])
    scores = Q @ K.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
''' + _SA_OK_TAIL),
          mistake="scales the caller's Q in place",
          names_it=_INPLACE + (("changed", "q"),),
          part="Q divided in place"),
    # ---- causal_mask
    Blind(name="cm_upper", cell="causal_mask", test_cell="check_causal_mask",
          source=cm('''    return torch.triu(torch.ones(n, n, dtype=torch.bool))
'''),
          mistake="the upper triangle: each query sees the future instead of the past",
          names_it=(("lower",), ("future",), ("j <= i",)),
          part="which triangle"),
    Blind(name="cm_no_diagonal", cell="causal_mask", test_cell="check_causal_mask",
          source=cm('''    return torch.tril(torch.ones(n, n, dtype=torch.bool), diagonal=-1)
'''),
          mistake="leaves out the diagonal: a word cannot attend to itself",
          names_it=(("diagonal",), ("itself",), ("j <= i",)),
          part="the diagonal"),
    Blind(name="cm_float", cell="causal_mask", test_cell="check_causal_mask",
          source=cm('''    return torch.tril(torch.ones(n, n))
'''),
          mistake="returns a float tensor instead of a bool one",
          names_it=(("bool",), ("dtype",)),
          part="the dtype"),
    # ---- space_invader
    Blind(name="si_zero_after", cell="space_invader", test_cell="check_space_invader",
          source='''space_invader_weights = softmax(si_scores, dim=-1) * causal_mask(4)
print(space_invader_weights)
''',
          mistake="softmax first, then zeroes the future: rows sum to less than 1",
          names_it=(("before",), ("sum to 1",), ("sum to one",), ("-inf",)),
          part="masking after the softmax"),
    Blind(name="si_masked_to_zero", cell="space_invader", test_cell="check_space_invader",
          source='''space_invader_weights = softmax(si_scores * causal_mask(4), dim=-1)
print(space_invader_weights)
''',
          mistake="multiplies the scores by the mask (masked scores become 0, not -inf), so the future keeps weight",
          names_it=(("-inf",), ("future",), ("weight 0",), ("zero weight",)),
          part="the value given to masked scores"),
    Blind(name="si_scaled_again", cell="space_invader", test_cell="check_space_invader",
          source='''space_invader_weights = softmax((si_scores / math.sqrt(si_scores.shape[-1])).masked_fill(~causal_mask(4), float("-inf")), dim=-1)
print(space_invader_weights)
''',
          mistake="divides by sqrt(d) although the slide's scores are already scaled",
          names_it=(("already scaled",), ("scal",), ("sqrt",)),
          part="an extra scaling"),
    # ---- brown_dog
    Blind(name="bd_unscaled", cell="brown_dog", test_cell="check_brown_dog",
          source='''brown_dog_weights = softmax(brown_scores, dim=-1)
print(brown_dog_weights)
''',
          mistake="forgets to divide by sqrt(64) = 8",
          names_it=(("sqrt",), ("8",), ("scal",)),
          part="the scaling"),
    Blind(name="bd_by_64", cell="brown_dog", test_cell="check_brown_dog",
          source='''brown_dog_weights = softmax(brown_scores / 64, dim=-1)
print(brown_dog_weights)
''',
          mistake="divides by d_k = 64 instead of sqrt(64) = 8",
          names_it=(("sqrt",), ("square root",), ("8",)),
          part="the scale"),
]

ALTERNATIVES = {
    "einsum": {
        "dot_score": dot('''    return torch.einsum("...id,...jd->...ij", Q, K)
'''),
        "scaled_dot_score": sdot('''    return torch.einsum("...id,...jd->...ij", Q, K) / Q.shape[-1] ** 0.5
'''),
        "bilinear_score": bil('''    return torch.einsum("...ip,pq,...jq->...ij", Q, W, K)
'''),
        "additive_score": add('''    wq = torch.einsum("ap,...ip->...ia", W, Q)
    uk = torch.einsum("aq,...jq->...ja", U, K)
    return torch.einsum("...ija,a->...ij", torch.tanh(wq[..., :, None, :] + uk[..., None, :, :]), v)
'''),
        "table_scores": '''machines_scores = torch.einsum("d,jd->j", Q[3], K)
print(machines_scores)
''',
        "table_scaled": '''machines_scaled = torch.as_tensor(machines_scores) / math.sqrt(K.shape[-1])
print(machines_scaled)
''',
        "table_weights": '''s = torch.as_tensor(machines_scaled)
machines_weights = torch.exp(s) / torch.exp(s).sum()
print(machines_weights, "sum =", float(machines_weights.sum()))
''',
        "table_weighted": '''machines_weighted_values = torch.einsum("j,jd->jd", torch.as_tensor(machines_weights), V)
print(machines_weighted_values)
''',
        "table_z": '''z_machines = torch.einsum("jd->d", torch.as_tensor(machines_weighted_values))
print(z_machines)
''',
        "attention_scores": att('''    return torch.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(Q.shape[-1])
'''),
        "softmax": sm('''    shifted = x - x.amax(dim=dim, keepdim=True)
    e = shifted.exp()
    return e / e.sum(dim=dim, keepdim=True)
'''),
        "self_attention": sa('''    scores = attention_scores(Q, K)
    if mask is not None:
        scores = torch.where(mask, scores, torch.full_like(scores, float("-inf")))
    weights = softmax(scores, dim=-1)
    return torch.einsum("...qk,...kd->...qd", weights, V), weights
'''),
        "causal_mask": cm('''    i = torch.arange(n)
    return i[:, None] >= i[None, :]
'''),
        "space_invader": '''space_invader_weights = softmax(torch.where(causal_mask(4), si_scores, torch.tensor(float("-inf"), dtype=si_scores.dtype)), dim=-1)
print(space_invader_weights)
''',
        "brown_dog": '''brown_dog_weights = softmax(brown_scores / math.sqrt(64))
print(brown_dog_weights)
''',
    },
    "operators": {
        "dot_score": dot('''    return torch.matmul(Q, K.transpose(-2, -1))
'''),
        "scaled_dot_score": sdot('''    d_k = K.shape[-1]
    return dot_score(Q, K) / math.sqrt(d_k)
'''),
        "bilinear_score": bil('''    return (Q @ W) @ K.transpose(-2, -1)
'''),
        "additive_score": add('''    wq = Q @ W.T                      # (..., n_q, d_a)
    uk = K @ U.T                      # (..., n_k, d_a)
    hidden = torch.tanh(wq.unsqueeze(-2) + uk.unsqueeze(-3))
    return (hidden * v).sum(dim=-1)
'''),
        "table_scores": '''machines_scores = K @ Q[3]
print(machines_scores)
''',
        "table_scaled": '''d_k = 2
machines_scaled = torch.as_tensor(machines_scores, dtype=torch.float64) / d_k ** 0.5
print(machines_scaled)
''',
        "table_weights": '''e = torch.as_tensor(machines_scaled).exp()
machines_weights = e / e.sum()
print(machines_weights, "sum =", float(machines_weights.sum()))
''',
        "table_weighted": '''machines_weighted_values = torch.as_tensor(machines_weights).reshape(4, 1) * V
print(machines_weighted_values)
''',
        "table_z": '''z_machines = machines_weighted_values.sum(dim=0)
print(z_machines)
''',
        "attention_scores": att('''    return scaled_dot_score(Q, K)
'''),
        "softmax": sm('''    m = x.max(dim=dim, keepdim=True).values
    e = torch.exp(x - m)
    return e / torch.sum(e, dim=dim, keepdim=True)
'''),
        "self_attention": sa('''    scores = attention_scores(Q, K)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-1)
    output = weights @ V
    return output, weights
'''),
        "causal_mask": cm('''    return torch.tril(torch.ones(n, n)).bool()
'''),
        "space_invader": '''masked = si_scores.masked_fill(~causal_mask(4), float("-inf"))
space_invader_weights = softmax(masked, dim=-1)
print(space_invader_weights)
''',
        "brown_dog": '''brown_dog_weights = softmax(brown_scores / 8.0, dim=-1)
print(brown_dog_weights)
''',
    },
    "loops_and_lists": {
        "dot_score": dot('''    return (Q.unsqueeze(-2) * K.unsqueeze(-3)).sum(dim=-1)
'''),
        "scaled_dot_score": sdot('''    return (Q.unsqueeze(-2) * K.unsqueeze(-3)).sum(dim=-1) / math.sqrt(Q.shape[-1])
'''),
        "bilinear_score": bil('''    return Q @ (K @ W.T).transpose(-2, -1)
'''),
        "additive_score": add('''    n_q, n_k = Q.shape[-2], K.shape[-2]
    out = torch.zeros(*Q.shape[:-2], n_q, n_k, dtype=Q.dtype)
    wq, uk = Q @ W.T, K @ U.T
    for i in range(n_q):
        for j in range(n_k):
            out[..., i, j] = torch.tanh(wq[..., i, :] + uk[..., j, :]) @ v
    return out
'''),
        "table_scores": '''machines_scores = [float(Q[3] @ K[j]) for j in range(4)]
print(machines_scores)
''',
        "table_scaled": '''machines_scaled = torch.tensor([s / math.sqrt(2) for s in machines_scores], dtype=torch.float64)
print(machines_scaled)
''',
        "table_weights": '''exps = [math.exp(float(s)) for s in machines_scaled]
machines_weights = torch.tensor([e / sum(exps) for e in exps], dtype=torch.float64)
print(machines_weights, "sum =", float(machines_weights.sum()))
''',
        "table_weighted": '''machines_weighted_values = torch.stack([machines_weights[j] * V[j] for j in range(4)])
print(machines_weighted_values)
''',
        "table_z": '''z_machines = [float(machines_weighted_values[:, d].sum()) for d in range(2)]
print(z_machines)
''',
        "attention_scores": att('''    d_k = Q.shape[-1]
    return (Q / math.sqrt(d_k)) @ K.transpose(-1, -2)
'''),
        "softmax": sm('''    x = x - x.max(dim=dim, keepdim=True).values
    return x.exp() / x.exp().sum(dim, keepdim=True)
'''),
        "self_attention": sa('''    scores = attention_scores(Q, K)
    if mask is not None:
        scores = scores + torch.zeros_like(scores).masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-1)
    return (torch.matmul(weights, V), weights)
'''),
        "causal_mask": cm('''    mask = torch.zeros(n, n, dtype=torch.bool)
    for i in range(n):
        for j in range(i + 1):
            mask[i, j] = True
    return mask
'''),
        "space_invader": '''rows = []
for i in range(4):
    e = torch.exp(si_scores[i, :i + 1] - si_scores[i, :i + 1].max())
    rows.append(torch.cat([e / e.sum(), torch.zeros(3 - i, dtype=si_scores.dtype)]))
space_invader_weights = torch.stack(rows)
print(space_invader_weights)
''',
        "brown_dog": '''s = brown_scores / math.sqrt(64)
brown_dog_weights = torch.exp(s - s.max()) / torch.exp(s - s.max()).sum()
print(brown_dog_weights)
''',
    },
}
