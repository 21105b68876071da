"""Fourth blind set for notebook 05 (self-attention: queries, keys and values), written from the student notebook only."""
from blind_case import Blind

NOTEBOOK = "05_self_attention"

BLIND = [
    # ---------------------------------------------------------------- dot_score
    Blind(name="dot_K_dot_T", cell="dot_score", test_cell="check_dot_score",
          source='''def dot_score(Q, K):
    """Dot-product scores q_i . k_j: Q (..., n_q, d), K (..., n_k, d) -> (..., n_q, n_k)."""
    return Q @ K.T
''',
          mistake="Uses K.T, which reverses every axis of a batched K, instead of K.transpose(-2, -1): it fails (or mixes the batch up) as soon as there is a batch dimension.",
          names_it=(("transpose(-2, -1)",), ("k.t",), ("batch", "axes"), ("last two",)),
          part="transposing K"),
    Blind(name="dot_elementwise", cell="dot_score", test_cell="check_dot_score",
          source='''def dot_score(Q, K):
    """Dot-product scores q_i . k_j: Q (..., n_q, d), K (..., n_k, d) -> (..., n_q, n_k)."""
    return (Q * K).sum(dim=-1)
''',
          mistake="Multiplies Q and K elementwise and sums, pairing query i only with key i: the result is (..., n) instead of every query against every key (..., n_q, n_k).",
          names_it=(("every key",), ("all pairs",), ("(..., n_q, n_k)",), ("shape",)),
          part="scoring all pairs"),
    Blind(name="dot_keys_by_queries", cell="dot_score", test_cell="check_dot_score",
          source='''def dot_score(Q, K):
    """Dot-product scores q_i . k_j: Q (..., n_q, d), K (..., n_k, d) -> (..., n_q, n_k)."""
    return K @ Q.transpose(-2, -1)
''',
          mistake="Computes K Q^T, so the result is (..., n_k, n_q): rows are keys and columns queries, the transpose of what is asked.",
          names_it=(("transpose",), ("(..., n_q, n_k)",), ("rows", "queries"), ("swapped",)),
          part="the order of the product"),

    # ---------------------------------------------------------------- scaled_dot_score
    Blind(name="scaled_by_num_keys", cell="scaled_dot_score", test_cell="check_scaled_dot_score",
          source='''def scaled_dot_score(Q, K):
    """Scaled dot-product scores q_i . k_j / sqrt(d_k): Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k)."""
    return dot_score(Q, K) / math.sqrt(K.shape[-2])
''',
          mistake="Divides by the square root of the number of keys (K.shape[-2]) instead of the key length d_k (K.shape[-1]).",
          names_it=(("d_k",), ("shape[-1]",), ("last axis",), ("length of",)),
          part="the scaling factor"),
    Blind(name="scaled_no_sqrt", cell="scaled_dot_score", test_cell="check_scaled_dot_score",
          source='''def scaled_dot_score(Q, K):
    """Scaled dot-product scores q_i . k_j / sqrt(d_k): Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k)."""
    d_k = K.shape[-1]
    return dot_score(Q, K) / d_k
''',
          mistake="Divides by d_k instead of sqrt(d_k).",
          names_it=(("sqrt",), ("square root",)),
          part="the scaling factor"),
    Blind(name="scaled_hardcoded_sqrt2", cell="scaled_dot_score", test_cell="check_scaled_dot_score",
          source='''def scaled_dot_score(Q, K):
    """Scaled dot-product scores q_i . k_j / sqrt(d_k): Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k)."""
    return dot_score(Q, K) / math.sqrt(2)
''',
          mistake="Hard-codes sqrt(2) from the small example instead of sqrt(d_k) from K's last axis; wrong for any other key length.",
          names_it=(("d_k",), ("hard-coded",), ("shape[-1]",), ("sqrt(2)",)),
          part="the scaling factor"),
    Blind(name="scaled_multiplied", cell="scaled_dot_score", test_cell="check_scaled_dot_score",
          source='''def scaled_dot_score(Q, K):
    """Scaled dot-product scores q_i . k_j / sqrt(d_k): Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k)."""
    return dot_score(Q, K) * Q.shape[-1] ** 0.5
''',
          mistake="Multiplies the scores by sqrt(d_k) instead of dividing by it.",
          names_it=(("divid",), ("multipl",)),
          part="the scaling factor"),

    # ---------------------------------------------------------------- bilinear_score
    Blind(name="bil_W_transposed", cell="bilinear_score", test_cell="check_bilinear_score",
          source='''def bilinear_score(Q, K, W):
    """Bilinear scores q_i^T W k_j: Q (..., n_q, d_q), K (..., n_k, d_k), W (d_q, d_k) -> (..., n_q, n_k)."""
    return Q @ W.T @ K.transpose(-2, -1)
''',
          mistake="Uses W.T instead of W: wrong values for a square W and a shape error when d_q != d_k.",
          names_it=(("w.t",), ("transpose",), ("d_q != d_k",)),
          part="W's orientation"),
    Blind(name="bil_K_not_transposed", cell="bilinear_score", test_cell="check_bilinear_score",
          source='''def bilinear_score(Q, K, W):
    """Bilinear scores q_i^T W k_j: Q (..., n_q, d_q), K (..., n_k, d_k), W (d_q, d_k) -> (..., n_q, n_k)."""
    return torch.matmul(torch.matmul(Q, W), K)
''',
          mistake="Multiplies (Q W) by K without transposing K's last two axes: a shape error (or a wrong product when the sizes happen to match).",
          names_it=(("transpose",), ("k.transpose(-2, -1)",), ("shape",)),
          part="transposing K"),
    Blind(name="bil_keys_first", cell="bilinear_score", test_cell="check_bilinear_score",
          source='''def bilinear_score(Q, K, W):
    """Bilinear scores q_i^T W k_j: Q (..., n_q, d_q), K (..., n_k, d_k), W (d_q, d_k) -> (..., n_q, n_k)."""
    return K @ W.transpose(-2, -1) @ Q.transpose(-2, -1)
''',
          mistake="Computes K W^T Q^T, the transpose of the asked scores: (..., n_k, n_q) instead of (..., n_q, n_k).",
          names_it=(("(..., n_q, n_k)",), ("transpose",), ("rows", "queries"), ("shape",)),
          part="the order of the product"),

    # ---------------------------------------------------------------- additive_score
    Blind(name="add_relu", cell="additive_score", test_cell="check_additive_score",
          source='''def additive_score(Q, K, W, U, v):
    """Additive (MLP) scores v . tanh(W q_i + U k_j): Q (..., n_q, d_q), K (..., n_k, d_k),
    W (d_a, d_q), U (d_a, d_k), v (d_a,) -> (..., n_q, n_k)."""
    hidden = torch.relu((Q @ W.T).unsqueeze(-2) + (K @ U.T).unsqueeze(-3))
    return hidden @ v
''',
          mistake="Uses ReLU in the score's hidden layer instead of tanh.",
          names_it=(("tanh",), ("relu",)),
          part="the activation"),
    Blind(name="add_W_not_transposed", cell="additive_score", test_cell="check_additive_score",
          source='''def additive_score(Q, K, W, U, v):
    """Additive (MLP) scores v . tanh(W q_i + U k_j): Q (..., n_q, d_q), K (..., n_k, d_k),
    W (d_a, d_q), U (d_a, d_k), v (d_a,) -> (..., n_q, n_k)."""
    wq = Q @ W
    uk = K @ U
    return torch.tanh(wq[..., :, None, :] + uk[..., None, :, :]) @ v
''',
          mistake="Computes Q @ W and K @ U instead of Q @ W.T and K @ U.T; W is (d_a, d_q), so this is a shape error whenever d_a != d_q.",
          names_it=(("w.t",), ("transpose",), ("(d_a, d_q)",)),
          part="projecting the queries and keys"),
    Blind(name="add_broadcast_same_axis", cell="additive_score", test_cell="check_additive_score",
          source='''def additive_score(Q, K, W, U, v):
    """Additive (MLP) scores v . tanh(W q_i + U k_j): Q (..., n_q, d_q), K (..., n_k, d_k),
    W (d_a, d_q), U (d_a, d_k), v (d_a,) -> (..., n_q, n_k)."""
    wq = (Q @ W.T).unsqueeze(-2)   # (..., n_q, 1, d_a)
    uk = (K @ U.T).unsqueeze(-2)   # (..., n_k, 1, d_a)
    return (torch.tanh(wq + uk) * v).sum(-1)
''',
          mistake="Unsqueezes both projections at the same axis, so queries are paired with keys position by position instead of every pair: wrong shape, or a broadcast error when n_q != n_k; the keys need (..., 1, n_k, d_a).",
          names_it=(("broadcast",), ("(..., 1, n_k, d_a)",), ("every pair",), ("unsqueeze",)),
          part="broadcasting the pairs"),
    Blind(name="add_v_before_tanh", cell="additive_score", test_cell="check_additive_score",
          source='''def additive_score(Q, K, W, U, v):
    """Additive (MLP) scores v . tanh(W q_i + U k_j): Q (..., n_q, d_q), K (..., n_k, d_k),
    W (d_a, d_q), U (d_a, d_k), v (d_a,) -> (..., n_q, n_k)."""
    pairs = (Q @ W.T)[..., :, None, :] + (K @ U.T)[..., None, :, :]
    return torch.tanh(pairs @ v)
''',
          mistake="Takes the dot product with v first and the tanh afterwards: tanh(v . (Wq + Uk)) instead of v . tanh(Wq + Uk).",
          names_it=(("tanh", "before"), ("tanh", "after"), ("order",), ("inside",)),
          part="where the tanh goes"),
    Blind(name="add_sum_wrong_axis", cell="additive_score", test_cell="check_additive_score",
          source='''def additive_score(Q, K, W, U, v):
    """Additive (MLP) scores v . tanh(W q_i + U k_j): Q (..., n_q, d_q), K (..., n_k, d_k),
    W (d_a, d_q), U (d_a, d_k), v (d_a,) -> (..., n_q, n_k)."""
    h = torch.tanh((Q @ W.T).unsqueeze(-2) + (K @ U.T).unsqueeze(-3))   # (..., n_q, n_k, d_a)
    return (h * v).sum(dim=-2)
''',
          mistake="After multiplying by v it sums over the keys axis (-2) instead of the d_a axis (-1), so the result is (..., n_q, d_a).",
          names_it=(("axis",), ("dim=-1",), ("d_a",), ("sum over",)),
          part="the axis of the sum"),

    # ---------------------------------------------------------------- the table, step by step
    Blind(name="table_one_based_index", cell="table_scores", test_cell="check_table_scores",
          source='''machines_scores = K @ Q[4]   # machines is the 4th word
print(machines_scores)
''',
          mistake="Indexes the fourth word as Q[4] (counting from 1): index 4 is out of range for 4 words; machines is Q[3].",
          names_it=(("q[3]",), ("index",), ("out of range",), ("out of bounds",)),
          part="picking the query of machines"),
    Blind(name="table_scores_sum_over_words", cell="table_scores", test_cell="check_table_scores",
          source='''q = Q[3]
machines_scores = (q * K).sum(dim=0)
print(machines_scores)
''',
          mistake="Sums q * K over the words (dim 0) instead of over the two coordinates (dim 1), giving 2 numbers instead of 4 dot products.",
          names_it=(("dim=1",), ("axis",), ("four",), ("4 numbers",), ("one per word",)),
          part="the axis of the sum"),
    Blind(name="table_scaled_no_sqrt", cell="table_scaled", test_cell="check_table_scaled",
          source='''d_k = 2
machines_scaled = machines_scores / d_k
print(machines_scaled)
''',
          mistake="Divides the scores by d_k = 2 instead of sqrt(d_k) = 1.414.",
          names_it=(("sqrt",), ("square root",), ("1.41",)),
          part="the scaling factor"),
    Blind(name="table_weights_unscaled", cell="table_weights", test_cell="check_table_weights",
          source='''machines_weights = torch.exp(machines_scores) / torch.exp(machines_scores).sum()
print(machines_weights, "sum =", float(machines_weights.sum()))
''',
          mistake="Takes the softmax of the raw scores instead of the scaled scores.",
          names_it=(("scaled",), ("sqrt",)),
          part="the softmax's input"),
    Blind(name="table_weights_no_exp", cell="table_weights", test_cell="check_table_weights",
          source='''machines_weights = machines_scaled / machines_scaled.sum()
print(machines_weights, "sum =", float(machines_weights.sum()))
''',
          mistake="Normalises the scaled scores by their sum without exponentiating them first: that is not a softmax (and a negative score gives a negative weight).",
          names_it=(("exp",), ("not a softmax",), ("exponent",)),
          part="the softmax"),
    Blind(name="table_weighted_broadcast", cell="table_weighted", test_cell="check_table_weighted",
          source='''machines_weighted_values = machines_weights * V
print(machines_weighted_values)
''',
          mistake="Multiplies the (4,) weights by the (4, 2) values directly; broadcasting lines the 4 weights up with the 2 columns and fails. The weights must be a (4, 1) column.",
          names_it=(("(4, 1)",), ("column",), ("broadcast",), ("[:, none]",)),
          part="broadcasting the weights"),
    Blind(name="table_weighted_matmul", cell="table_weighted", test_cell="check_table_weighted",
          source='''machines_weighted_values = machines_weights @ V
print(machines_weighted_values)
''',
          mistake="Uses a matrix product, which already sums the weighted rows into z (shape 2), instead of keeping one weighted row a_j v_j per word (4 x 2).",
          names_it=(("one row per word",), ("4 x 2",), ("(4, 2)",), ("rows",)),
          part="keeping the rows separate"),
    Blind(name="table_z_wrong_axis", cell="table_z", test_cell="check_table_z",
          source='''z_machines = machines_weighted_values.sum(dim=1)
print(z_machines)
''',
          mistake="Sums each row's two coordinates (dim 1) instead of adding up the four rows (dim 0): gives 4 numbers instead of the 2 of z.",
          names_it=(("dim=0",), ("axis",), ("rows",)),
          part="the axis of the sum"),
    Blind(name="table_z_mean", cell="table_z", test_cell="check_table_z",
          source='''z_machines = machines_weighted_values.mean(dim=0)
print(z_machines)
''',
          mistake="Averages the weighted rows instead of summing them (the weights already sum to 1), so z is 4 times too small.",
          names_it=(("sum of the rows",), ("average",), ("mean",), ("4 times",), ("add up",)),
          part="sum versus mean"),

    # ---------------------------------------------------------------- attention_scores
    Blind(name="scores_K_T_batched", cell="attention_scores", test_cell="check_attention_scores",
          source='''def attention_scores(Q, K):
    """Scaled dot-product scores: Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k)."""
    return Q @ K.T / math.sqrt(Q.shape[-1])
''',
          mistake="Uses K.T, which reverses all axes of a (batch, heads, n, d_k) tensor, instead of K.transpose(-2, -1): fails on batched inputs.",
          names_it=(("transpose(-2, -1)",), ("k.t",), ("last two",), ("batch",)),
          part="transposing K"),
    Blind(name="scores_dk_from_first_axis", cell="attention_scores", test_cell="check_attention_scores",
          source='''def attention_scores(Q, K):
    """Scaled dot-product scores: Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k)."""
    d_k = Q.shape[0]
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)
''',
          mistake="Reads d_k from Q.shape[0] (the number of words, or the batch) instead of Q.shape[-1].",
          names_it=(("shape[-1]",), ("d_k",), ("last axis",)),
          part="the scaling factor"),
    Blind(name="scores_unscaled", cell="attention_scores", test_cell="check_attention_scores",
          source='''def attention_scores(Q, K):
    """Scaled dot-product scores: Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k)."""
    return torch.matmul(Q, K.transpose(-2, -1))
''',
          mistake="Forgets to divide by sqrt(d_k).",
          names_it=(("sqrt",), ("scale",), ("d_k",)),
          part="the scaling factor"),

    # ---------------------------------------------------------------- softmax
    Blind(name="softmax_no_max", cell="softmax", test_cell="check_softmax",
          source='''def softmax(x, dim=-1):
    """Numerically stable softmax of x along dim."""
    e = torch.exp(x)
    return e / e.sum(dim=dim, keepdim=True)
''',
          mistake="Does not subtract the maximum before exponentiating: for inputs near 1000 exp overflows to inf and the result is nan.",
          names_it=(("maximum",), ("subtract", "max"), ("overflow",), ("nan",)),
          part="numerical stability"),
    Blind(name="softmax_sum_everything", cell="softmax", test_cell="check_softmax",
          source='''def softmax(x, dim=-1):
    """Numerically stable softmax of x along dim."""
    e = torch.exp(x - x.max(dim=dim, keepdim=True).values)
    return e / e.sum()
''',
          mistake="Divides by the sum over the whole tensor instead of the sum along dim, so the rows do not each sum to 1.",
          names_it=(("along dim",), ("whole tensor",), ("sum to 1",), ("each row",)),
          part="the axis of the sum"),
    Blind(name="softmax_keepdim_forgotten", cell="softmax", test_cell="check_softmax",
          source='''def softmax(x, dim=-1):
    """Numerically stable softmax of x along dim."""
    shifted = x - x.max(dim=dim).values
    e = torch.exp(shifted)
    return e / e.sum(dim=dim)
''',
          mistake="Leaves out keepdim=True on the max and the sum, so they broadcast against the wrong axis: a shape error for non-square inputs, wrong values otherwise.",
          names_it=(("keepdim",), ("broadcast",)),
          part="keepdim"),
    Blind(name="softmax_dim_ignored", cell="softmax", test_cell="check_softmax",
          source='''def softmax(x, dim=-1):
    """Numerically stable softmax of x along dim."""
    m = x.max(dim=-1, keepdim=True).values
    e = (x - m).exp()
    return e / e.sum(dim=-1, keepdim=True)
''',
          mistake="Always normalises along the last axis and ignores the dim argument.",
          names_it=(("dim argument",), ("along dim",), ("ignores dim",), ("dim=0",), ("given dim",)),
          part="uses the dim argument"),

    # ---------------------------------------------------------------- self_attention
    Blind(name="sa_mask_after_softmax", cell="self_attention", test_cell="check_self_attention",
          source='''def self_attention(Q, K, V, mask=None):
    """Return (output, weights) of scaled dot-product attention; mask is True where allowed."""
    weights = softmax(attention_scores(Q, K), dim=-1)
    if mask is not None:
        weights = weights * mask
    return weights @ V, weights
''',
          mistake="Zeroes the masked weights after the softmax instead of setting the scores to -inf before it, so the rows no longer sum to 1.",
          names_it=(("before the softmax",), ("-inf",), ("sum to 1",)),
          part="where the mask is applied"),
    Blind(name="sa_mask_inverted", cell="self_attention", test_cell="check_self_attention",
          source='''def self_attention(Q, K, V, mask=None):
    """Return (output, weights) of scaled dot-product attention; mask is True where allowed."""
    scores = attention_scores(Q, K)
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    weights = softmax(scores, dim=-1)
    return weights @ V, weights
''',
          mistake="Fills -inf where the mask is True, but True means attention is allowed: it blocks exactly the allowed positions (~mask is needed).",
          names_it=(("~mask",), ("true", "allowed"), ("inverted",), ("opposite",)),
          part="the mask's convention"),
    Blind(name="sa_softmax_over_queries", cell="self_attention", test_cell="check_self_attention",
          source='''def self_attention(Q, K, V, mask=None):
    """Return (output, weights) of scaled dot-product attention; mask is True where allowed."""
    scores = attention_scores(Q, K)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-2)
    return weights @ V, weights
''',
          mistake="Takes the softmax over the queries axis (dim=-2) instead of over the keys (dim=-1), so columns sum to 1 instead of rows.",
          names_it=(("dim=-1",), ("keys",), ("axis",), ("rows",)),
          part="the softmax axis"),
    Blind(name="sa_returns_swapped", cell="self_attention", test_cell="check_self_attention",
          source='''def self_attention(Q, K, V, mask=None):
    """Return (output, weights) of scaled dot-product attention; mask is True where allowed."""
    scores = attention_scores(Q, K)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores)
    output = weights @ V
    return weights, output
''',
          mistake="Returns (weights, output) instead of (output, weights).",
          names_it=(("order",), ("(output, weights)",), ("swapped",)),
          part="the returned pair"),
    Blind(name="sa_mask_fill_zero", cell="self_attention", test_cell="check_self_attention",
          source='''def self_attention(Q, K, V, mask=None):
    """Return (output, weights) of scaled dot-product attention; mask is True where allowed."""
    scores = attention_scores(Q, K)
    if mask is not None:
        scores = scores.masked_fill(~mask, 0.0)
    weights = softmax(scores, dim=-1)
    return weights @ V, weights
''',
          mistake="Sets the masked scores to 0 instead of -inf; e^0 = 1, so the future positions still get weight.",
          names_it=(("-inf",), ("infinity",), ("e^0",)),
          part="the masked score value"),
    Blind(name="sa_V_transposed", cell="self_attention", test_cell="check_self_attention",
          source='''def self_attention(Q, K, V, mask=None):
    """Return (output, weights) of scaled dot-product attention; mask is True where allowed."""
    scores = attention_scores(Q, K)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-1)
    return weights @ V.transpose(-2, -1), weights
''',
          mistake="Multiplies the weights by V transposed: (n_q, n_k) @ (d_v, n_k) is a shape error unless d_v = n_k; the output is weights @ V.",
          names_it=(("weights @ v",), ("transpose",), ("shape",)),
          part="the output product"),

    # ---------------------------------------------------------------- causal_mask
    Blind(name="mask_upper_triangle", cell="causal_mask", test_cell="check_causal_mask",
          source='''def causal_mask(n):
    """(n, n) bool tensor, True where query i may attend to key j (j <= i)."""
    return torch.ones(n, n, dtype=torch.bool).triu()
''',
          mistake="Builds the upper triangle (j >= i), which lets every word see the future, instead of the lower triangle.",
          names_it=(("lower",), ("tril",), ("upper",), ("future",)),
          part="which triangle"),
    Blind(name="mask_diagonal_excluded", cell="causal_mask", test_cell="check_causal_mask",
          source='''def causal_mask(n):
    """(n, n) bool tensor, True where query i may attend to key j (j <= i)."""
    return torch.tril(torch.ones(n, n, dtype=torch.bool), diagonal=-1)
''',
          mistake="Excludes the diagonal (j < i), so a word cannot attend to itself and the first row is all False.",
          names_it=(("diagonal",), ("itself",), ("j <= i",)),
          part="the diagonal"),
    Blind(name="mask_float", cell="causal_mask", test_cell="check_causal_mask",
          source='''def causal_mask(n):
    """(n, n) bool tensor, True where query i may attend to key j (j <= i)."""
    return torch.tril(torch.ones(n, n))
''',
          mistake="Returns a float tensor of ones and zeros instead of a bool tensor.",
          names_it=(("bool",), ("dtype",)),
          part="the dtype"),
    Blind(name="mask_hardcoded_4", cell="causal_mask", test_cell="check_causal_mask",
          source='''def causal_mask(n):
    """(n, n) bool tensor, True where query i may attend to key j (j <= i)."""
    mask = torch.zeros(4, 4, dtype=torch.bool)
    for i in range(4):
        for j in range(i + 1):
            mask[i, j] = True
    return mask
''',
          mistake="Hard-codes the size 4 of the 'I am space invader' example instead of using n.",
          names_it=(("hard-coded",), ("hardcoded",), ("any n",), ("(n, n)",), ("size 4",)),
          part="uses n"),

    # ---------------------------------------------------------------- space_invader, brown_dog
    Blind(name="si_no_mask", cell="space_invader", test_cell="check_space_invader",
          source='''space_invader_weights = softmax(si_scores, dim=-1)
print(space_invader_weights)
''',
          mistake="Takes the softmax of the scores without the causal mask, so every word attends to the future words too.",
          names_it=(("mask",), ("causal",), ("future",)),
          part="applying the causal mask"),
    Blind(name="si_mask_after_softmax", cell="space_invader", test_cell="check_space_invader",
          source='''space_invader_weights = softmax(si_scores, dim=-1) * causal_mask(4)
print(space_invader_weights)
''',
          mistake="Masks after the softmax (multiplying by the mask), so the rows sum to less than 1; the scores must be set to -inf before the softmax.",
          names_it=(("before the softmax",), ("-inf",), ("sum to 1",)),
          part="where the mask is applied"),
    Blind(name="si_softmax_columns", cell="space_invader", test_cell="check_space_invader",
          source='''masked = si_scores.masked_fill(~causal_mask(4), float("-inf"))
space_invader_weights = softmax(masked, dim=0)
print(space_invader_weights)
''',
          mistake="Normalises down the columns (dim=0) instead of along each query's row (dim=-1).",
          names_it=(("dim=-1",), ("each row",), ("column",), ("dim=0",)),
          part="the softmax axis"),
    Blind(name="brown_unscaled", cell="brown_dog", test_cell="check_brown_dog",
          source='''brown_dog_weights = softmax(brown_scores)
print(brown_dog_weights)
''',
          mistake="Takes the softmax of the raw scores without dividing by sqrt(64) = 8.",
          names_it=(("sqrt",), ("square root",), ("divid", "8"), ("scal",)),
          part="the scaling"),
    Blind(name="brown_divide_64", cell="brown_dog", test_cell="check_brown_dog",
          source='''brown_dog_weights = softmax(brown_scores / 64)
print(brown_dog_weights)
''',
          mistake="Divides the scores by d_k = 64 instead of sqrt(d_k) = 8.",
          names_it=(("sqrt",), ("square root",), ("by 8",)),
          part="the scaling"),
    Blind(name="brown_sqrt_of_words", cell="brown_dog", test_cell="check_brown_dog",
          source='''brown_dog_weights = softmax(brown_scores / math.sqrt(len(brown_scores)))
print(brown_dog_weights)
''',
          mistake="Divides by the square root of the number of words (4) instead of sqrt(d_k) = sqrt(64).",
          names_it=(("64",), ("d_k",), ("by 8",), ("sqrt(64)",)),
          part="the scaling"),
]

VALID = [
    Blind(name="valid_dot_einsum", cell="dot_score", test_cell="check_dot_score",
          source='''def dot_score(Q, K):
    """Dot-product scores q_i . k_j: Q (..., n_q, d), K (..., n_k, d) -> (..., n_q, n_k)."""
    return torch.einsum("...id,...jd->...ij", Q, K)
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_scaled_reuse", cell="scaled_dot_score", test_cell="check_scaled_dot_score",
          source='''def scaled_dot_score(Q, K):
    """Scaled dot-product scores q_i . k_j / sqrt(d_k): Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k)."""
    d_k = K.size(-1)
    return torch.matmul(Q / d_k ** 0.5, K.transpose(-1, -2))
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_bilinear_einsum", cell="bilinear_score", test_cell="check_bilinear_score",
          source='''def bilinear_score(Q, K, W):
    """Bilinear scores q_i^T W k_j: Q (..., n_q, d_q), K (..., n_k, d_k), W (d_q, d_k) -> (..., n_q, n_k)."""
    return torch.einsum("...ip,pq,...jq->...ij", Q, W, K)
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_additive_linear", cell="additive_score", test_cell="check_additive_score",
          source='''def additive_score(Q, K, W, U, v):
    """Additive (MLP) scores v . tanh(W q_i + U k_j): Q (..., n_q, d_q), K (..., n_k, d_k),
    W (d_a, d_q), U (d_a, d_k), v (d_a,) -> (..., n_q, n_k)."""
    wq = torch.einsum("...qd,ad->...qa", Q, W)
    uk = torch.einsum("...kd,ad->...ka", K, U)
    return torch.einsum("...qka,a->...qk", torch.tanh(wq.unsqueeze(-2) + uk.unsqueeze(-3)), v)
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_table_weights_loop", cell="table_weights", test_cell="check_table_weights",
          source='''exps = torch.exp(machines_scaled - machines_scaled.max())
machines_weights = exps / exps.sum()
print(machines_weights, "sum =", float(machines_weights.sum()))
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_softmax_amax", cell="softmax", test_cell="check_softmax",
          source='''def softmax(x, dim=-1):
    """Numerically stable softmax of x along dim."""
    z = torch.exp(x - torch.amax(x, dim=dim, keepdim=True))
    return z / torch.sum(z, dim=dim, keepdim=True)
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_sa_where", cell="self_attention", test_cell="check_self_attention",
          source='''def self_attention(Q, K, V, mask=None):
    """Return (output, weights) of scaled dot-product attention; mask is True where allowed."""
    scores = attention_scores(Q, K)
    if mask is not None:
        scores = torch.where(mask, scores, torch.full_like(scores, -math.inf))
    weights = softmax(scores, dim=-1)
    return torch.matmul(weights, V), weights
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_mask_arange", cell="causal_mask", test_cell="check_causal_mask",
          source='''def causal_mask(n):
    """(n, n) bool tensor, True where query i may attend to key j (j <= i)."""
    i = torch.arange(n)
    return i[None, :] <= i[:, None]
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_brown_manual", cell="brown_dog", test_cell="check_brown_dog",
          source='''scaled = brown_scores / math.sqrt(64)
e = torch.exp(scaled - scaled.max())
brown_dog_weights = e / e.sum()
print(brown_dog_weights)
''',
          mistake="", names_it=(), part=""),
]

# The same valid answers in blind_case.py's ALTERNATIVES layout ({style: {answer_cell: source}}).
ALTERNATIVES = {case.name: {case.cell: case.source} for case in VALID}
