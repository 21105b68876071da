"""Blind cases for 06_transformer: wrong answers and correct-but-different answers, written without reading the checks."""
from blind_case import Blind

NOTEBOOK = "06_transformer"

_PE_HEAD = '''def positional_encoding(max_len, d_model):
    """The sinusoidal table: (max_len, d_model), PE[pos, 2i] = sin(pos * w_i), PE[pos, 2i+1] = cos(pos * w_i)."""
'''
_MHA_HEAD = '''def multi_head_attention(query, key, value, weights, num_heads, mask=None):
    """query (B, T_q, d_model), key and value (B, T_k, d_model) -> (B, T_q, d_model)."""
'''
_AN_HEAD = '''def add_norm(x, sublayer_out, gamma, beta, eps=1e-5):
    """LayerNorm(x + sublayer_out) over the last dimension, with scale gamma and shift beta (d_model,)."""
'''
_ENC_HEAD = '''def encoder_block(x, weights, num_heads, mask=None):
    """x (B, T, d_model) -> (B, T, d_model): self-attention, add & norm, feed-forward, add & norm."""
'''
_MOD_HEAD = '''class MultiHeadAttention(nn.Module):
    """Multi-head attention with trainable projections q_proj, k_proj, v_proj, out_proj (each d_model -> d_model)."""

    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
'''


def _mha(project=None, split=None, scores=None, masking=None, soft=None, merge=None, out=None):
    """A multi-head attention answer with one step swapped for a student's version."""
    project = project if project is not None else '''    B, T_q, d_model = query.shape
    T_k = key.shape[1]
    d_head = d_model // num_heads
    q = query @ weights["W_q"].T + weights["b_q"]
    k = key @ weights["W_k"].T + weights["b_k"]
    v = value @ weights["W_v"].T + weights["b_v"]
'''
    split = split if split is not None else '''    q = q.view(B, T_q, num_heads, d_head).transpose(1, 2)
    k = k.view(B, T_k, num_heads, d_head).transpose(1, 2)
    v = v.view(B, T_k, num_heads, d_head).transpose(1, 2)
'''
    scores = scores if scores is not None else '''    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
'''
    masking = masking if masking is not None else '''    if mask is not None:
        if mask.dim() == 3:
            mask = mask.unsqueeze(1)  # (B, 1, T_q, T_k): the same for every head
        scores = scores.masked_fill(~mask, float("-inf"))
'''
    soft = soft if soft is not None else '''    attn = torch.softmax(scores, dim=-1)
'''
    merge = merge if merge is not None else '''    out = (attn @ v).transpose(1, 2).reshape(B, T_q, d_model)
'''
    out = out if out is not None else '''    return out @ weights["W_o"].T + weights["b_o"]
'''
    return _MHA_HEAD + project + split + scores + masking + soft + merge + out


def _add_norm(body):
    return _AN_HEAD + body


def _encoder(body):
    return _ENC_HEAD + body


def _module(body):
    return _MOD_HEAD + body


BLIND = [
    # ------------------------------------------------------------------ positional_encoding
    Blind(
        name="pe_sin_cos_swapped",
        cell="positional_encoding",
        source=_PE_HEAD + '''    pos = torch.arange(max_len).float().unsqueeze(1)
    w = 1.0 / 10000 ** (torch.arange(0, d_model, 2).float() / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.cos(pos * w)
    pe[:, 1::2] = torch.sin(pos * w)
    return pe
''',
        test_cell="check_positional_encoding",
        mistake="Put the cosines in the even columns and the sines in the odd columns (swapped sin and cos).",
        names_it=(("swap",), ("even", "cos"), ("odd", "sin"), ("sin", "cos", "order"), ("sin", "cos", "exchang"),
                  ("sin", "cos", "revers"), ("sine", "odd"), ("cosine", "even")),
    ),
    Blind(
        name="pe_exponent_missing_2",
        cell="positional_encoding",
        source=_PE_HEAD + '''    pe = torch.zeros(max_len, d_model)
    pos = torch.arange(max_len).float().unsqueeze(1)
    i = torch.arange(d_model // 2).float()  # pair index
    w = 1.0 / 10000 ** (i / d_model)
    pe[:, 0::2] = torch.sin(pos * w)
    pe[:, 1::2] = torch.cos(pos * w)
    return pe
''',
        test_cell="check_positional_encoding",
        mistake="Used the pair index i in the exponent as 10000^(i/d_model) instead of 10000^(2i/d_model), so the frequencies fall off half as fast.",
        names_it=(("frequenc",), ("exponent",), ("2i",), ("wavelength",), ("10000",)),
    ),
    Blind(
        name="pe_odd_columns_own_index",
        cell="positional_encoding",
        source=_PE_HEAD + '''    pe = torch.zeros(max_len, d_model)
    for pos in range(max_len):
        for j in range(d_model):
            angle = pos / 10000 ** (j / d_model)
            if j % 2 == 0:
                pe[pos, j] = math.sin(angle)
            else:
                pe[pos, j] = math.cos(angle)
    return pe
''',
        test_cell="check_positional_encoding",
        mistake="Used each column's own index j in the exponent, so the cosine column 2i+1 gets exponent (2i+1)/d_model instead of sharing 2i/d_model with its sine partner.",
        names_it=(("pair", "frequenc"), ("share",), ("2i+1",), ("2i + 1",), ("odd", "frequenc"), ("odd", "exponent"),
                  ("cos", "frequenc"), ("column index",)),
    ),
    Blind(
        name="pe_positions_start_at_1",
        cell="positional_encoding",
        source=_PE_HEAD + '''    pos = torch.arange(1, max_len + 1, dtype=torch.float32)[:, None]
    div = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(pos * div)
    pe[:, 1::2] = torch.cos(pos * div)
    return pe
''',
        test_cell="check_positional_encoding",
        mistake="Numbered the positions 1..max_len instead of 0..max_len-1, so every row is shifted by one position.",
        names_it=(("position", "0"), ("position", "zero"), ("off by one",), ("off-by-one",), ("shift",), ("start", "0"),
                  ("first row",)),
    ),
    Blind(
        name="pe_frequency_not_inverted",
        cell="positional_encoding",
        source=_PE_HEAD + '''    pos = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * math.log(10000.0) / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(pos * div_term)
    pe[:, 1::2] = torch.cos(pos * div_term)
    return pe
''',
        test_cell="check_positional_encoding",
        mistake="Dropped the minus sign in the log-space formula, so positions are multiplied by 10000^(2i/d_model) instead of divided by it.",
        names_it=(("divide",), ("divid",), ("invers",), ("reciprocal",), ("frequenc",), ("minus",), ("sign",)),
    ),
    # ------------------------------------------------------------------ multi_head_attention
    Blind(
        name="mha_scale_by_d_model",
        cell="multi_head_attention",
        source=_mha(scores='''    scores = q @ k.transpose(-2, -1) / math.sqrt(d_model)
'''),
        test_cell="check_multi_head_attention",
        mistake="Divided the scores by sqrt(d_model) instead of sqrt(d_head), the dimension of one head.",
        names_it=(("d_head",), ("sqrt", "head"), ("scal", "head"), ("head dimension",), ("d_model", "sqrt")),
    ),
    Blind(
        name="mha_split_without_transpose",
        cell="multi_head_attention",
        source=_mha(split='''    q = q.reshape(B, num_heads, T_q, d_head)
    k = k.reshape(B, num_heads, T_k, d_head)
    v = v.reshape(B, num_heads, T_k, d_head)
'''),
        test_cell="check_multi_head_attention",
        mistake="Split the heads by reshaping (B, T, d_model) straight to (B, h, T, d_head) instead of viewing as (B, T, h, d_head) and transposing, which mixes positions and features across heads.",
        names_it=(("split",), ("transpose",), ("view", "head"), ("reshape", "head")),
    ),
    Blind(
        name="mha_merge_without_transpose",
        cell="multi_head_attention",
        source=_mha(merge='''    out = (attn @ v).reshape(B, T_q, d_model)
'''),
        test_cell="check_multi_head_attention",
        mistake="Concatenated the heads by reshaping (B, h, T_q, d_head) directly to (B, T_q, d_model), forgetting to transpose back to (B, T_q, h, d_head) first.",
        names_it=(("concat",), ("merg",), ("combin", "head"), ("transpose", "back"), ("transpose",)),
    ),
    Blind(
        name="mha_softmax_over_queries",
        cell="multi_head_attention",
        source=_mha(soft='''    attn = torch.softmax(scores, dim=-2)
'''),
        test_cell="check_multi_head_attention",
        mistake="Took the softmax over the query axis (dim=-2) instead of over the keys (dim=-1).",
        names_it=(("softmax", "key"), ("softmax", "dim"), ("softmax", "axis"), ("normali", "key"), ("sum to 1", "key"),
                  ("softmax", "last")),
    ),
    Blind(
        name="mha_mask_inverted",
        cell="multi_head_attention",
        source=_mha(masking='''    if mask is not None:
        if mask.dim() == 3:
            mask = mask.unsqueeze(1)
        scores = scores.masked_fill(mask, float("-inf"))
'''),
        test_cell="check_multi_head_attention",
        mistake="Used PyTorch's convention (True = blocked) for the mask: filled -inf where the mask is True, i.e. blocked exactly the positions that may be attended.",
        names_it=(("mask", "invert"), ("mask", "opposite"), ("mask", "convention"), ("mask", "true", "attend"),
                  ("mask", "blocked"), ("mask", "revers"), ("~mask",)),
    ),
    Blind(
        name="mha_mask_after_softmax",
        cell="multi_head_attention",
        source=_mha(masking="", soft='''    attn = torch.softmax(scores, dim=-1)
    if mask is not None:
        if mask.dim() == 3:
            mask = mask.unsqueeze(1)
        attn = attn * mask  # zero the weights of the blocked keys
'''),
        test_cell="check_multi_head_attention",
        mistake="Applied the mask after the softmax by zeroing the blocked weights, so the remaining weights no longer sum to 1 (the mask must set scores to -inf before the softmax).",
        names_it=(("mask", "before", "softmax"), ("mask", "after", "softmax"), ("sum to 1",), ("sum to one",),
                  ("renormali",), ("mask", "-inf"), ("mask", "infinity")),
    ),
    Blind(
        name="mha_bias_copy_paste",
        cell="multi_head_attention",
        source=_mha(project='''    B, T_q, d_model = query.shape
    T_k = key.shape[1]
    d_head = d_model // num_heads
    q = query @ weights["W_q"].T + weights["b_q"]
    k = key @ weights["W_k"].T + weights["b_q"]
    v = value @ weights["W_v"].T + weights["b_q"]
'''),
        test_cell="check_multi_head_attention",
        mistake="Copy-paste slip: added b_q to the key and value projections instead of b_k and b_v.",
        names_it=(("b_k",), ("b_v",), ("bias",)),
    ),
    Blind(
        name="mha_no_output_projection",
        cell="multi_head_attention",
        source=_mha(out='''    return out
'''),
        test_cell="check_multi_head_attention",
        mistake="Returned the concatenated heads without the final output projection W_o, b_o.",
        names_it=(("w_o",), ("b_o",), ("output projection",), ("out_proj",), ("project", "output")),
    ),
    Blind(
        name="mha_weights_not_transposed",
        cell="multi_head_attention",
        source=_mha(project='''    B, T_q, d_model = query.shape
    T_k = key.shape[1]
    d_head = d_model // num_heads
    q = query @ weights["W_q"] + weights["b_q"]
    k = key @ weights["W_k"] + weights["b_k"]
    v = value @ weights["W_v"] + weights["b_v"]
''', out='''    return out @ weights["W_o"] + weights["b_o"]
'''),
        test_cell="check_multi_head_attention",
        mistake="Multiplied by the weight matrices without transposing them (x @ W instead of x @ W.T, nn.Linear's y = x W^T + b).",
        names_it=(("transpos", "weight"), ("transpos", "w_"), ("w.t",), ("w^t",), ("x w^t",), ("nn.linear", "convention")),
    ),
    # ------------------------------------------------------------------ MultiHeadAttention (module)
    Blind(
        name="module_k_v_proj_swapped",
        cell="MultiHeadAttention",
        source=_module('''        weights = {"W_q": self.q_proj.weight, "b_q": self.q_proj.bias,
                   "W_k": self.v_proj.weight, "b_k": self.v_proj.bias,
                   "W_v": self.k_proj.weight, "b_v": self.k_proj.bias,
                   "W_o": self.out_proj.weight, "b_o": self.out_proj.bias}
        return multi_head_attention(query, key, value, weights, self.num_heads, mask)
'''),
        test_cell="check_MultiHeadAttention",
        mistake="Passed v_proj's weight and bias as W_k, b_k and k_proj's as W_v, b_v (key and value projections swapped).",
        names_it=(("k_proj",), ("v_proj",), ("key", "value", "swap")),
    ),
    Blind(
        name="module_mask_not_passed",
        cell="MultiHeadAttention",
        source=_module('''        weights = {"W_q": self.q_proj.weight, "b_q": self.q_proj.bias,
                   "W_k": self.k_proj.weight, "b_k": self.k_proj.bias,
                   "W_v": self.v_proj.weight, "b_v": self.v_proj.bias,
                   "W_o": self.out_proj.weight, "b_o": self.out_proj.bias}
        return multi_head_attention(query, key, value, weights, self.num_heads)
'''),
        test_cell="check_MultiHeadAttention",
        mistake="forward accepts a mask but does not pass it on to multi_head_attention, so masked calls attend everywhere.",
        names_it=(("mask",),),
    ),
    Blind(
        name="module_weights_detached",
        cell="MultiHeadAttention",
        source=_module('''        weights = {}
        for name, layer in (("q", self.q_proj), ("k", self.k_proj), ("v", self.v_proj), ("o", self.out_proj)):
            weights["W_" + name] = layer.weight.data
            weights["b_" + name] = layer.bias
        return multi_head_attention(query, key, value, weights, self.num_heads, mask)
'''),
        test_cell="check_MultiHeadAttention",
        mistake="Passed layer.weight.data (detached from autograd) for the four weight matrices: the output is right but no gradient reaches the projection weights, only the biases.",
        names_it=(("grad",), ("detach",), (".data",), ("autograd",)),
    ),
    # ------------------------------------------------------------------ add_norm
    Blind(
        name="addnorm_unbiased_variance",
        cell="add_norm",
        source=_add_norm('''    y = x + sublayer_out
    mean = y.mean(dim=-1, keepdim=True)
    var = y.var(dim=-1, keepdim=True)
    return gamma * (y - mean) / torch.sqrt(var + eps) + beta
'''),
        test_cell="check_add_norm",
        mistake="Used Tensor.var's default unbiased estimate (dividing by d - 1) instead of the population variance (dividing by d).",
        names_it=(("d - 1",), ("d-1",), ("n - 1",), ("n-1",), ("unbiased",), ("bessel",), ("biased",)),
    ),
    Blind(
        name="addnorm_eps_outside_sqrt",
        cell="add_norm",
        source=_add_norm('''    y = x + sublayer_out
    mu = y.mean(-1, keepdim=True)
    sigma = ((y - mu) ** 2).mean(-1, keepdim=True).sqrt()
    return gamma * (y - mu) / (sigma + eps) + beta
'''),
        test_cell="check_add_norm",
        mistake="Added eps to the standard deviation, (y - mu) / (sigma + eps), instead of inside the square root, sqrt(sigma^2 + eps).",
        names_it=(("eps", "sqrt"), ("epsilon", "sqrt"), ("eps", "inside"), ("epsilon", "inside"), ("eps", "square root"),
                  ("epsilon", "square root"), ("eps", "variance"), ("epsilon", "variance")),
    ),
    Blind(
        name="addnorm_no_residual",
        cell="add_norm",
        source=_add_norm('''    mu = sublayer_out.mean(dim=-1, keepdim=True)
    var = ((sublayer_out - mu) ** 2).mean(dim=-1, keepdim=True)
    return gamma * (sublayer_out - mu) / torch.sqrt(var + eps) + beta
'''),
        test_cell="check_add_norm",
        mistake="Normalised only sublayer_out and forgot the residual connection: x is never added.",
        names_it=(("residual",), ("x +",), ("add", "x"), ("skip",)),
    ),
    Blind(
        name="addnorm_stats_over_whole_tensor",
        cell="add_norm",
        source=_add_norm('''    y = x + sublayer_out
    mu = y.mean()
    var = ((y - mu) ** 2).mean()
    return gamma * (y - mu) / torch.sqrt(var + eps) + beta
'''),
        test_cell="check_add_norm",
        mistake="Computed the mean and variance over the whole tensor instead of over the last dimension of each position.",
        names_it=(("last dim",), ("last axis",), ("dim=-1",), ("each position",), ("per position",), ("whole tensor",),
                  ("all elements",), ("axis",), ("over the last",)),
    ),
    Blind(
        name="addnorm_gamma_beta_swapped",
        cell="add_norm",
        source=_add_norm('''    y = x + sublayer_out
    mu = y.mean(dim=-1, keepdim=True)
    var = y.var(dim=-1, keepdim=True, unbiased=False)
    return beta * (y - mu) / torch.sqrt(var + eps) + gamma
'''),
        test_cell="check_add_norm",
        mistake="Used beta as the scale and gamma as the shift (gamma and beta swapped).",
        names_it=(("gamma", "beta", "swap"), ("gamma", "scale"), ("beta", "shift"), ("gamma", "beta", "order"),
                  ("gamma", "beta", "exchang"), ("gamma", "beta", "revers")),
    ),
    # ------------------------------------------------------------------ encoder_block
    Blind(
        name="encoder_ffn_without_relu",
        cell="encoder_block",
        source=_encoder('''    attn = multi_head_attention(x, x, x, weights, num_heads, mask)
    x1 = add_norm(x, attn, weights["gamma_1"], weights["beta_1"])
    hidden = x1 @ weights["W_1"].T + weights["b_1"]
    ffn = hidden @ weights["W_2"].T + weights["b_2"]
    return add_norm(x1, ffn, weights["gamma_2"], weights["beta_2"])
'''),
        test_cell="check_encoder_block",
        mistake="Left out the ReLU between the two linear layers of the feed-forward network.",
        names_it=(("relu",), ("activation",), ("max(0",), ("nonlinear",), ("non-linear",)),
    ),
    Blind(
        name="encoder_second_residual_from_x",
        cell="encoder_block",
        source=_encoder('''    attn = multi_head_attention(x, x, x, weights, num_heads, mask)
    x1 = add_norm(x, attn, weights["gamma_1"], weights["beta_1"])
    ffn = torch.relu(x1 @ weights["W_1"].T + weights["b_1"]) @ weights["W_2"].T + weights["b_2"]
    return add_norm(x, ffn, weights["gamma_2"], weights["beta_2"])
'''),
        test_cell="check_encoder_block",
        mistake="The second add & norm adds the FFN output to the block's input x instead of to x' (the output of the first add & norm).",
        names_it=(("x'",), ("second", "residual"), ("second", "add"), ("residual", "first add"), ("residual", "attention"),
                  ("residual", "feed-forward")),
    ),
    Blind(
        name="encoder_mask_ignored",
        cell="encoder_block",
        source=_encoder('''    attn = multi_head_attention(x, x, x, weights, num_heads)
    x1 = add_norm(x, attn, weights["gamma_1"], weights["beta_1"])
    ffn = torch.relu(x1 @ weights["W_1"].T + weights["b_1"]) @ weights["W_2"].T + weights["b_2"]
    return add_norm(x1, ffn, weights["gamma_2"], weights["beta_2"])
'''),
        test_cell="check_encoder_block",
        mistake="Never passed the mask on to the self-attention, so the causal case attends to future positions.",
        names_it=(("mask",),),
    ),
    Blind(
        name="encoder_pre_norm",
        cell="encoder_block",
        source=_encoder('''    def layer_norm(z, gamma, beta):
        return add_norm(z, torch.zeros_like(z), gamma, beta)

    h = layer_norm(x, weights["gamma_1"], weights["beta_1"])
    x1 = x + multi_head_attention(h, h, h, weights, num_heads, mask)
    h = layer_norm(x1, weights["gamma_2"], weights["beta_2"])
    return x1 + torch.relu(h @ weights["W_1"].T + weights["b_1"]) @ weights["W_2"].T + weights["b_2"]
'''),
        test_cell="check_encoder_block",
        mistake="Wrote a pre-norm block, x + Sublayer(LayerNorm(x)), instead of the paper's post-norm LayerNorm(x + Sublayer(x)).",
        names_it=(("post-norm",), ("pre-norm",), ("post norm",), ("pre norm",), ("postnorm",), ("prenorm",), ("norm_first",),
                  ("layernorm", "after")),
    ),
    Blind(
        name="encoder_layernorm_params_mixed",
        cell="encoder_block",
        source=_encoder('''    attn = multi_head_attention(x, x, x, weights, num_heads, mask)
    x1 = add_norm(x, attn, weights["gamma_1"], weights["beta_2"])
    ffn = torch.relu(x1 @ weights["W_1"].T + weights["b_1"]) @ weights["W_2"].T + weights["b_2"]
    return add_norm(x1, ffn, weights["gamma_2"], weights["beta_1"])
'''),
        test_cell="check_encoder_block",
        mistake="Typo in the LayerNorm parameters: paired gamma_1 with beta_2 and gamma_2 with beta_1.",
        names_it=(("beta_1",), ("beta_2",), ("beta", "layernorm"), ("shift", "layernorm")),
    ),
]


ALTERNATIVES = {
    "loops": {
        "positional_encoding": _PE_HEAD + '''    pe = torch.empty(max_len, d_model)
    for pos in range(max_len):
        for i in range(d_model // 2):
            angle = pos / (10000 ** (2 * i / d_model))
            pe[pos, 2 * i] = math.sin(angle)
            pe[pos, 2 * i + 1] = math.cos(angle)
    return pe
''',
        "multi_head_attention": _MHA_HEAD + '''    d_model = query.shape[-1]
    d_head = d_model // num_heads
    q = query @ weights["W_q"].T + weights["b_q"]
    k = key @ weights["W_k"].T + weights["b_k"]
    v = value @ weights["W_v"].T + weights["b_v"]
    heads = []
    for h in range(num_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        scores = q[..., cols] @ k[..., cols].transpose(1, 2) / d_head ** 0.5  # (B, T_q, T_k)
        if mask is not None:
            scores = scores.masked_fill(mask.logical_not(), float("-inf"))  # (T_q, T_k) or (B, T_q, T_k) both broadcast
        heads.append(torch.softmax(scores, dim=-1) @ v[..., cols])
    return torch.cat(heads, dim=-1) @ weights["W_o"].T + weights["b_o"]
''',
        "MultiHeadAttention": '''class MultiHeadAttention(nn.Module):
    """Multi-head attention with trainable projections q_proj, k_proj, v_proj, out_proj (each d_model -> d_model)."""

    def __init__(self, d_model, num_heads):
        super().__init__()
        self.h = num_heads
        for name in ("q_proj", "k_proj", "v_proj", "out_proj"):
            setattr(self, name, nn.Linear(in_features=d_model, out_features=d_model, bias=True))

    def forward(self, query, key, value, mask=None):
        weights = {}
        for letter, layer in zip("qkvo", (self.q_proj, self.k_proj, self.v_proj, self.out_proj)):
            weights[f"W_{letter}"] = layer.weight
            weights[f"b_{letter}"] = layer.bias
        return multi_head_attention(query=query, key=key, value=value, weights=weights, num_heads=self.h, mask=mask)
''',
        "add_norm": _AN_HEAD + '''    y = x + sublayer_out
    d = y.shape[-1]
    mu = y.sum(dim=-1, keepdim=True) / d
    centred = y - mu
    var = (centred * centred).sum(dim=-1, keepdim=True) / d
    return centred * torch.rsqrt(var + eps) * gamma + beta
''',
        "encoder_block": _ENC_HEAD + '''    attended = multi_head_attention(query=x, key=x, value=x, weights=weights, num_heads=num_heads, mask=mask)
    x_prime = add_norm(x, attended, gamma=weights["gamma_1"], beta=weights["beta_1"])
    hidden = torch.clamp(torch.matmul(x_prime, weights["W_1"].t()) + weights["b_1"], min=0)
    ffn = torch.matmul(hidden, weights["W_2"].t()) + weights["b_2"]
    return add_norm(x_prime, ffn, gamma=weights["gamma_2"], beta=weights["beta_2"])
''',
    },
    "vectorised": {
        "positional_encoding": _PE_HEAD + '''    positions = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)      # (max_len, 1)
    frequencies = torch.exp(-math.log(10000.0) * torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angles = positions * frequencies                                           # (max_len, d_model/2)
    return torch.stack([angles.sin(), angles.cos()], dim=-1).reshape(max_len, d_model).to(torch.float32)
''',
        "multi_head_attention": _MHA_HEAD + '''    B, T_q, d_model = query.shape
    T_k = key.shape[1]
    d_head = d_model // num_heads

    def split(t, T):
        return t.reshape(B, T, num_heads, d_head).permute(0, 2, 1, 3)

    q = split(torch.nn.functional.linear(query, weights["W_q"], weights["b_q"]), T_q)
    k = split(torch.nn.functional.linear(key, weights["W_k"], weights["b_k"]), T_k)
    v = split(torch.nn.functional.linear(value, weights["W_v"], weights["b_v"]), T_k)
    scores = torch.einsum("bhqd,bhkd->bhqk", q / math.sqrt(d_head), k)
    if mask is not None:
        m = mask if mask.dim() == 2 else mask[:, None]
        scores = torch.where(m, scores, torch.full_like(scores, float("-inf")))
    weights_ = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    weights_ = weights_ / weights_.sum(dim=-1, keepdim=True)
    out = torch.einsum("bhqk,bhkd->bqhd", weights_, v).reshape(B, T_q, d_model)
    return torch.nn.functional.linear(out, weights["W_o"], weights["b_o"])
''',
        "MultiHeadAttention": '''class MultiHeadAttention(nn.Module):
    """Multi-head attention with trainable projections q_proj, k_proj, v_proj, out_proj (each d_model -> d_model)."""

    def __init__(self, d_model, num_heads):
        super().__init__()
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (nn.Linear(d_model, d_model) for _ in range(4))
        self.num_heads = num_heads

    def forward(self, query, key, value, mask=None):
        w = dict(W_q=self.q_proj.weight, W_k=self.k_proj.weight, W_v=self.v_proj.weight, W_o=self.out_proj.weight,
                 b_q=self.q_proj.bias, b_k=self.k_proj.bias, b_v=self.v_proj.bias, b_o=self.out_proj.bias)
        return multi_head_attention(query, key, value, w, self.num_heads, mask=mask)
''',
        "add_norm": _AN_HEAD + '''    y = x + sublayer_out
    var, mean = torch.var_mean(y, dim=-1, keepdim=True, correction=0)
    return (y - mean) / (var + eps).sqrt() * gamma + beta
''',
        "encoder_block": _ENC_HEAD + '''    import torch.nn.functional as F
    x = add_norm(x, multi_head_attention(x, x, x, weights, num_heads, mask), weights["gamma_1"], weights["beta_1"])
    ffn = F.linear(F.relu(F.linear(x, weights["W_1"], weights["b_1"])), weights["W_2"], weights["b_2"])
    return add_norm(x, ffn, weights["gamma_2"], weights["beta_2"])
''',
    },
    "numpy_table": {
        "positional_encoding": _PE_HEAD + '''    import numpy as np
    pos = np.arange(max_len)[:, np.newaxis]
    i = np.arange(d_model)[np.newaxis, :]
    angle_rates = 1 / np.power(10000, (2 * (i // 2)) / np.float64(d_model))
    angles = pos * angle_rates
    angles[:, 0::2] = np.sin(angles[:, 0::2])
    angles[:, 1::2] = np.cos(angles[:, 1::2])
    return torch.from_numpy(angles).float()
''',
    },
}
