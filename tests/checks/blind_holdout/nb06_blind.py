"""Blind cases for 06_transformer: wrong answers and correct alternatives, written without reading the checks."""
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
'''


def _mha(project="", split="", scores="", mask_fill="", softmax="", merge="", out=""):
    """A multi-head attention answer with one step replaced (empty string: the step as a careful student writes it)."""
    project = project or '''    q = query @ weights["W_q"].T + weights["b_q"]
    k = key @ weights["W_k"].T + weights["b_k"]
    v = value @ weights["W_v"].T + weights["b_v"]
'''
    split = split or '''    q = q.view(B, T_q, num_heads, d_head).transpose(1, 2)
    k = k.view(B, T_k, num_heads, d_head).transpose(1, 2)
    v = v.view(B, T_k, num_heads, d_head).transpose(1, 2)
'''
    scores = scores or '''    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
'''
    mask_fill = mask_fill or '''    if mask is not None:
        if mask.dim() == 3:
            mask = mask.unsqueeze(1)  # same mask for every head
        scores = scores.masked_fill(~mask, float("-inf"))
'''
    softmax = softmax or '''    attn = torch.softmax(scores, dim=-1)
    heads = attn @ v
'''
    merge = merge or '''    concat = heads.transpose(1, 2).reshape(B, T_q, d_model)
'''
    out = out or '''    return concat @ weights["W_o"].T + weights["b_o"]
'''
    return (_MHA_HEAD + '''    B, T_q, d_model = query.shape
    T_k = key.shape[1]
    d_head = d_model // num_heads
''' + project + split + scores + mask_fill + softmax + merge + out)


_MOD_INIT = '''        self.num_heads = num_heads
        self.d_model = d_model
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
'''

BLIND = [
    # ---------------------------------------------------------------- positional_encoding
    Blind(
        name="pe_exponent_i_not_2i",
        cell="positional_encoding",
        source=_PE_HEAD + '''    pe = torch.zeros(max_len, d_model)
    pos = torch.arange(max_len).float().unsqueeze(1)
    i = torch.arange(d_model // 2).float()
    w = 1.0 / 10000 ** (i / d_model)
    pe[:, 0::2] = torch.sin(pos * w)
    pe[:, 1::2] = torch.cos(pos * w)
    return pe
''',
        test_cell="check_positional_encoding",
        mistake="Used the pair index i in the exponent, 10000^(i/d_model), instead of 10000^(2i/d_model), so every "
                "frequency but the first is too high (the wavelengths grow only to 100*2pi).",
        names_it=(("2i",), ("exponent",), ("frequency",), ("frequencies",), ("wavelength",)),
    ),
    Blind(
        name="pe_sin_cos_swapped",
        cell="positional_encoding",
        source=_PE_HEAD + '''    pe = torch.zeros(max_len, d_model)
    position = torch.arange(0, max_len).unsqueeze(1).float()
    div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
    pe[:, 0::2] = torch.cos(position * div_term)
    pe[:, 1::2] = torch.sin(position * div_term)
    return pe
''',
        test_cell="check_positional_encoding",
        mistake="Put the cosines in the even columns and the sines in the odd ones (sin and cos swapped).",
        names_it=(("swap",), ("sin", "cos", "even"), ("sin", "cos", "odd"), ("sine", "cosine", "even"),
                  ("sine", "cosine", "odd")),
    ),
    Blind(
        name="pe_halves_not_interleaved",
        cell="positional_encoding",
        source=_PE_HEAD + '''    pos = torch.arange(max_len, dtype=torch.float32)[:, None]
    w = 1.0 / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
    angles = pos * w  # (max_len, d_model / 2)
    return torch.cat([torch.sin(angles), torch.cos(angles)], dim=1)
''',
        test_cell="check_positional_encoding",
        mistake="Concatenated all the sines, then all the cosines ([sin | cos] halves) instead of interleaving them "
                "column by column (sin in column 2i, cos in 2i+1).",
        names_it=(("interleav",), ("concatenat",), ("halves",), ("half", "sin"), ("columns", "order"),
                  ("even", "odd", "columns")),
    ),
    Blind(
        name="pe_positions_from_1",
        cell="positional_encoding",
        source=_PE_HEAD + '''    pe = torch.zeros(max_len, d_model)
    for i in range(0, d_model, 2):
        w = 1 / 10000 ** (i / d_model)
        pos = torch.arange(1, max_len + 1, dtype=torch.float32)
        pe[:, i] = torch.sin(pos * w)
        pe[:, i + 1] = torch.cos(pos * w)
    return pe
''',
        test_cell="check_positional_encoding",
        mistake="Numbered the positions 1..max_len instead of 0..max_len-1, so every row is the next position's "
                "(the first row is not sin 0 = 0, cos 0 = 1).",
        names_it=(("start", "0"), ("shifted", "one"), ("shifted", "position"), ("off by one",), ("one position",),
                  ("position 0",), ("pos + 1",), ("positions", "1")),
    ),
    Blind(
        name="pe_column_index_exponent",
        cell="positional_encoding",
        source=_PE_HEAD + '''    pos = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)  # (max_len, 1)
    j = torch.arange(d_model, dtype=torch.float32)  # one exponent per column
    angles = pos / 10000 ** (j / d_model)  # (max_len, d_model)
    pe = torch.empty(max_len, d_model)
    pe[:, 0::2] = torch.sin(angles[:, 0::2])
    pe[:, 1::2] = torch.cos(angles[:, 1::2])
    return pe
''',
        test_cell="check_positional_encoding",
        mistake="Used the column index j in the exponent, 10000^(j/d_model), so the cosine in column 2i+1 gets "
                "its own frequency 10000^((2i+1)/d_model) instead of sharing the sine's.",
        names_it=(("odd", "frequency"), ("odd", "frequencies"), ("pair", "frequency"), ("share",), ("2i+1",),
                  ("2i + 1",), ("cos", "frequency"), ("cosine", "frequency")),
    ),
    # ---------------------------------------------------------------- multi_head_attention
    Blind(
        name="mha_scale_sqrt_d_model",
        cell="multi_head_attention",
        source=_mha(scores='''    scores = q @ k.transpose(-2, -1) / math.sqrt(d_model)
'''),
        test_cell="check_multi_head_attention",
        mistake="Divided the scores by sqrt(d_model) instead of sqrt(d_head), the size of one head.",
        names_it=(("sqrt", "d_head"), ("sqrt", "d_model"), ("square root",), ("scale",), ("scaling",),
                  ("scaled",)),
    ),
    Blind(
        name="mha_split_view_without_transpose",
        cell="multi_head_attention",
        source=_mha(split='''    q = q.view(B, num_heads, T_q, d_head)
    k = k.view(B, num_heads, T_k, d_head)
    v = v.view(B, num_heads, T_k, d_head)
'''),
        test_cell="check_multi_head_attention",
        mistake="Split the heads by viewing (B, T, d_model) directly as (B, h, T, d_head) instead of "
                "(B, T, h, d_head) followed by .transpose(1, 2), so each 'head' mixes positions and features.",
        names_it=(("transpose",), ("split", "head"), ("view",), ("reshape",), ("heads", "positions")),
    ),
    Blind(
        name="mha_softmax_over_queries",
        cell="multi_head_attention",
        source=_mha(softmax='''    attn = torch.softmax(scores, dim=-2)
    heads = attn @ v
'''),
        test_cell="check_multi_head_attention",
        mistake="Took the softmax over the queries (dim=-2) instead of over the keys (the last dimension).",
        names_it=(("softmax", "keys"), ("softmax", "queries"), ("softmax", "axis"), ("softmax", "dim"),
                  ("softmax", "dimension"), ("sum to 1",), ("sums to 1",)),
    ),
    Blind(
        name="mha_mask_true_blocks",
        cell="multi_head_attention",
        source=_mha(mask_fill='''    if mask is not None:
        if mask.dim() == 3:
            mask = mask.unsqueeze(1)
        scores = scores.masked_fill(mask, float("-inf"))  # fill the masked positions
'''),
        test_cell="check_multi_head_attention",
        mistake="Used PyTorch's mask convention (True = blocked) and filled the True entries with -inf, so the "
                "allowed keys are blocked and the forbidden ones attended (NaN where a row allows everything).",
        names_it=(("mask", "invert"), ("mask", "opposite"), ("mask", "true", "attend"), ("mask", "true", "block"),
                  ("mask", "~"), ("mask", "convention"), ("mask", "reversed")),
    ),
    Blind(
        name="mha_merge_without_transpose",
        cell="multi_head_attention",
        source=_mha(merge='''    concat = heads.reshape(B, T_q, d_model)  # concatenate the heads
'''),
        test_cell="check_multi_head_attention",
        mistake="Concatenated the heads by reshaping (B, h, T_q, d_head) straight to (B, T_q, d_model) without "
                "transposing back to (B, T_q, h, d_head) first, which scrambles positions and heads.",
        names_it=(("transpose",), ("concatenat",), ("merge",), ("heads", "positions"), ("reshape",)),
    ),
    Blind(
        name="mha_no_output_bias",
        cell="multi_head_attention",
        source=_mha(out='''    return concat @ weights["W_o"].T
'''),
        test_cell="check_multi_head_attention",
        mistake="Applied the output projection W_o but forgot its bias b_o.",
        names_it=(("b_o",), ("output bias",), ("bias",)),
    ),
    Blind(
        name="mha_weights_not_transposed",
        cell="multi_head_attention",
        source=_mha(project='''    q = query @ weights["W_q"] + weights["b_q"]
    k = key @ weights["W_k"] + weights["b_k"]
    v = value @ weights["W_v"] + weights["b_v"]
'''),
        test_cell="check_multi_head_attention",
        mistake="Projected with x @ W instead of nn.Linear's x @ W.T for W_q, W_k and W_v (square matrices, so "
                "no shape error).",
        names_it=(("transpose",), ("w.t",), ("w^t",), ("w_q.t",), ("w_q^t",), ("x @ w",), ("nn.linear", "convention")),
    ),
    # ---------------------------------------------------------------- MultiHeadAttention (module)
    Blind(
        name="module_weight_data_no_grad",
        cell="MultiHeadAttention",
        source=_MOD_HEAD + _MOD_INIT + '''        weights = {"W_q": self.q_proj.weight.data, "b_q": self.q_proj.bias.data,
                   "W_k": self.k_proj.weight.data, "b_k": self.k_proj.bias.data,
                   "W_v": self.v_proj.weight.data, "b_v": self.v_proj.bias.data,
                   "W_o": self.out_proj.weight.data, "b_o": self.out_proj.bias.data}
        return multi_head_attention(query, key, value, weights, self.num_heads, mask)
''',
        test_cell="check_MultiHeadAttention",
        mistake="Passed the layers' .weight.data and .bias.data, which are detached from autograd, so the output "
                "is right but no gradient reaches the four projections.",
        names_it=(("gradient",), ("grad",), ("detach",), (".data",)),
    ),
    Blind(
        name="module_k_v_projections_swapped",
        cell="MultiHeadAttention",
        source=_MOD_HEAD + _MOD_INIT + '''        weights = {"W_q": self.q_proj.weight, "b_q": self.q_proj.bias,
                   "W_k": self.v_proj.weight, "b_k": self.v_proj.bias,
                   "W_v": self.k_proj.weight, "b_v": self.k_proj.bias,
                   "W_o": self.out_proj.weight, "b_o": self.out_proj.bias}
        return multi_head_attention(query, key, value, weights, self.num_heads, mask)
''',
        test_cell="check_MultiHeadAttention",
        mistake="Copy-paste slip: gave v_proj's weights as W_k, b_k and k_proj's as W_v, b_v (key and value "
                "projections swapped).",
        names_it=(("k_proj", "v_proj"), ("swap",), ("key", "value", "projection"), ("w_k", "w_v")),
    ),
    Blind(
        name="module_d_head_as_num_heads",
        cell="MultiHeadAttention",
        source=_MOD_HEAD + '''        self.d_head = d_model // num_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        weights = {"W_q": self.q_proj.weight, "b_q": self.q_proj.bias,
                   "W_k": self.k_proj.weight, "b_k": self.k_proj.bias,
                   "W_v": self.v_proj.weight, "b_v": self.v_proj.bias,
                   "W_o": self.out_proj.weight, "b_o": self.out_proj.bias}
        return multi_head_attention(query, key, value, weights, self.d_head, mask)
''',
        test_cell="check_MultiHeadAttention",
        mistake="Stored d_head = d_model // num_heads and passed it where multi_head_attention expects the number "
                "of heads, so the module attends with d_model/h heads instead of h.",
        names_it=(("num_heads",), ("number of heads",), ("heads", "d_head"), ("wrong", "heads")),
    ),
    # ---------------------------------------------------------------- add_norm
    Blind(
        name="add_norm_unbiased_variance",
        cell="add_norm",
        source=_AN_HEAD + '''    y = x + sublayer_out
    mean = y.mean(dim=-1, keepdim=True)
    var = y.var(dim=-1, keepdim=True)
    return gamma * (y - mean) / torch.sqrt(var + eps) + beta
''',
        test_cell="check_add_norm",
        mistake="Used torch.var's default unbiased variance (dividing by d - 1) instead of dividing by d.",
        names_it=(("d - 1",), ("d-1",), ("unbiased",), ("bessel",), ("n - 1",), ("n-1",), ("biased",)),
    ),
    Blind(
        name="add_norm_eps_outside_sqrt",
        cell="add_norm",
        source=_AN_HEAD + '''    y = x + sublayer_out
    mu = y.mean(-1, keepdim=True)
    std = y.std(-1, keepdim=True, unbiased=False)
    return gamma * (y - mu) / (std + eps) + beta
''',
        test_cell="check_add_norm",
        mistake="Added eps to the standard deviation, (y - mu) / (sigma + eps), instead of inside the square root, "
                "(y - mu) / sqrt(sigma^2 + eps); only visible with a large eps.",
        names_it=(("eps", "inside"), ("eps", "outside"), ("eps", "sqrt"), ("epsilon", "square root"),
                  ("eps", "square root"), ("epsilon", "sqrt"), ("eps", "standard deviation")),
    ),
    Blind(
        name="add_norm_no_residual",
        cell="add_norm",
        source=_AN_HEAD + '''    mu = sublayer_out.mean(dim=-1, keepdim=True)
    var = ((sublayer_out - mu) ** 2).mean(dim=-1, keepdim=True)
    return gamma * (sublayer_out - mu) / torch.sqrt(var + eps) + beta
''',
        test_cell="check_add_norm",
        mistake="Normalised the sublayer's output alone and forgot the residual connection: LayerNorm(sublayer_out) "
                "instead of LayerNorm(x + sublayer_out).",
        names_it=(("residual",), ("x +",), ("add", "x"), ("skip",), ("without", "x")),
    ),
    Blind(
        name="add_norm_batch_axis",
        cell="add_norm",
        source=_AN_HEAD + '''    y = x + sublayer_out
    mu = y.mean(dim=0, keepdim=True)
    var = ((y - mu) ** 2).mean(dim=0, keepdim=True)
    return gamma * (y - mu) / torch.sqrt(var + eps) + beta
''',
        test_cell="check_add_norm",
        mistake="Computed the mean and variance over the first dimension (across the batch, like BatchNorm) "
                "instead of over the last dimension (each position's d_model features).",
        names_it=(("last dimension",), ("last dim",), ("axis",), ("batch norm",), ("batchnorm",),
                  ("over the features",), ("each position",), ("per position",), ("dim=0",), ("first dimension",)),
    ),
    Blind(
        name="add_norm_shift_before_scale",
        cell="add_norm",
        source=_AN_HEAD + '''    y = x + sublayer_out
    mu = y.mean(dim=-1, keepdim=True)
    var = y.var(dim=-1, keepdim=True, unbiased=False)
    return (y - mu) / torch.sqrt(var + eps) * gamma + beta * gamma
''',
        test_cell="check_add_norm",
        mistake="Applied the shift before the scale, gamma * (normalised + beta), so beta is multiplied by gamma.",
        names_it=(("beta", "gamma"), ("shift", "scale"), ("beta", "scaled")),
    ),
    # ---------------------------------------------------------------- encoder_block
    Blind(
        name="enc_ffn_no_relu",
        cell="encoder_block",
        source=_ENC_HEAD + '''    a = multi_head_attention(x, x, x, weights, num_heads, mask)
    x1 = add_norm(x, a, weights["gamma_1"], weights["beta_1"])
    h = x1 @ weights["W_1"].T + weights["b_1"]
    f = h @ weights["W_2"].T + weights["b_2"]
    return add_norm(x1, f, weights["gamma_2"], weights["beta_2"])
''',
        test_cell="check_encoder_block",
        mistake="Left out the ReLU between the feed-forward network's two linear layers.",
        names_it=(("relu",), ("max(0",), ("activation",), ("nonlinear",), ("non-linear",)),
    ),
    Blind(
        name="enc_ffn_reads_x",
        cell="encoder_block",
        source=_ENC_HEAD + '''    attention_out = multi_head_attention(x, x, x, weights, num_heads, mask)
    x_prime = add_norm(x, attention_out, weights["gamma_1"], weights["beta_1"])
    ffn_out = torch.relu(x @ weights["W_1"].T + weights["b_1"]) @ weights["W_2"].T + weights["b_2"]
    return add_norm(x_prime, ffn_out, weights["gamma_2"], weights["beta_2"])
''',
        test_cell="check_encoder_block",
        mistake="Fed the block's input x to the feed-forward network instead of x' (the output of the first "
                "add & norm).",
        names_it=(("feed-forward", "x'"), ("ffn", "x'"), ("feed-forward", "input"), ("ffn", "input"),
                  ("feed-forward", "first add"), ("ffn", "first add"), ("feed-forward", "attention")),
    ),
    Blind(
        name="enc_second_residual_from_x",
        cell="encoder_block",
        source=_ENC_HEAD + '''    x1 = add_norm(x, multi_head_attention(x, x, x, weights, num_heads, mask), weights["gamma_1"], weights["beta_1"])
    ff = torch.relu(x1 @ weights["W_1"].T + weights["b_1"]) @ weights["W_2"].T + weights["b_2"]
    return add_norm(x, ff, weights["gamma_2"], weights["beta_2"])
''',
        test_cell="check_encoder_block",
        mistake="Took the second residual from the block's input x instead of x': AddNorm_2(x, FFN(x')) in place "
                "of AddNorm_2(x', FFN(x')).",
        names_it=(("residual", "x'"), ("second residual",), ("residual", "second"), ("skip", "x'"),
                  ("residual", "input")),
    ),
    Blind(
        name="enc_first_norm_params_twice",
        cell="encoder_block",
        source=_ENC_HEAD + '''    gamma, beta = weights["gamma_1"], weights["beta_1"]
    x = add_norm(x, multi_head_attention(x, x, x, weights, num_heads, mask), gamma, beta)
    ffn = torch.relu(x @ weights["W_1"].T + weights["b_1"]) @ weights["W_2"].T + weights["b_2"]
    return add_norm(x, ffn, gamma, beta)
''',
        test_cell="check_encoder_block",
        mistake="Used the first LayerNorm's gamma_1, beta_1 for the second add & norm as well, instead of "
                "gamma_2, beta_2.",
        names_it=(("gamma_2",), ("beta_2",), ("second layernorm",), ("second norm",), ("second add",),
                  ("gamma_1",)),
    ),
    Blind(
        name="enc_mask_not_passed",
        cell="encoder_block",
        source=_ENC_HEAD + '''    attn = multi_head_attention(x, x, x, weights, num_heads)
    x = add_norm(x, attn, weights["gamma_1"], weights["beta_1"])
    ffn = torch.relu(x @ weights["W_1"].T + weights["b_1"]) @ weights["W_2"].T + weights["b_2"]
    return add_norm(x, ffn, weights["gamma_2"], weights["beta_2"])
''',
        test_cell="check_encoder_block",
        mistake="Did not pass the mask on to multi_head_attention, so a causal mask has no effect.",
        names_it=(("mask", "ignor"), ("mask", "not used"), ("mask", "not passed"), ("mask", "not applied"),
                  ("mask", "no effect"), ("without", "mask"), ("mask", "pass")),
    ),
    Blind(
        name="enc_pre_norm",
        cell="encoder_block",
        source=_ENC_HEAD + '''    zeros = torch.zeros_like(x)
    h = add_norm(x, zeros, weights["gamma_1"], weights["beta_1"])  # LayerNorm(x)
    x = x + multi_head_attention(h, h, h, weights, num_heads, mask)
    h = add_norm(x, zeros, weights["gamma_2"], weights["beta_2"])
    return x + torch.relu(h @ weights["W_1"].T + weights["b_1"]) @ weights["W_2"].T + weights["b_2"]
''',
        test_cell="check_encoder_block",
        mistake="Wrote a pre-norm block (x + Sublayer(LayerNorm(x)), as in GPT-2) instead of the paper's "
                "post-norm LayerNorm(x + Sublayer(x)).",
        names_it=(("pre-norm",), ("post-norm",), ("prenorm",), ("postnorm",), ("norm_first",), ("norm first",),
                  ("layernorm", "after")),
    ),
]

ALTERNATIVES = {
    "loops_and_math": {
        "positional_encoding": _PE_HEAD + '''    pe = torch.zeros(max_len, d_model)
    for pos in range(max_len):
        for i in range(d_model // 2):
            angle = pos / (10000 ** (2 * i / d_model))
            pe[pos, 2 * i] = math.sin(angle)
            pe[pos, 2 * i + 1] = math.cos(angle)
    return pe
''',
        "multi_head_attention": _MHA_HEAD + '''    B, T_q, d_model = query.shape
    d_head = d_model // num_heads
    q = torch.nn.functional.linear(query, weights["W_q"], weights["b_q"])
    k = torch.nn.functional.linear(key, weights["W_k"], weights["b_k"])
    v = torch.nn.functional.linear(value, weights["W_v"], weights["b_v"])
    outputs = []
    for h in range(num_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        scores = q[..., cols] @ k[..., cols].transpose(1, 2) / d_head ** 0.5  # (B, T_q, T_k)
        if mask is not None:
            scores = scores.masked_fill(mask == False, -float("inf"))
        outputs.append(torch.softmax(scores, dim=2) @ v[..., cols])
    concat = torch.cat(outputs, dim=-1)
    return torch.nn.functional.linear(concat, weights["W_o"], weights["b_o"])
''',
        "add_norm": _AN_HEAD + '''    y = x + sublayer_out
    d = y.shape[-1]
    mu = y.sum(dim=-1, keepdim=True) / d
    centred = y - mu
    var = (centred * centred).sum(dim=-1, keepdim=True) / d
    return centred * torch.rsqrt(var + eps) * gamma + beta
''',
        "encoder_block": _ENC_HEAD + '''    def feed_forward(z):
        hidden = z @ weights["W_1"].t() + weights["b_1"]
        hidden = torch.clamp(hidden, min=0)
        return hidden @ weights["W_2"].t() + weights["b_2"]

    x_prime = add_norm(x, multi_head_attention(x, x, x, weights, num_heads, mask=mask),
                       gamma=weights["gamma_1"], beta=weights["beta_1"])
    return add_norm(x_prime, feed_forward(x_prime), gamma=weights["gamma_2"], beta=weights["beta_2"])
''',
        "MultiHeadAttention": _MOD_HEAD + '''        self.heads = num_heads
        for name in ("q_proj", "k_proj", "v_proj", "out_proj"):
            setattr(self, name, nn.Linear(d_model, d_model))

    def forward(self, query, key, value, mask=None):
        weights = {}
        for letter, layer in zip("qkvo", (self.q_proj, self.k_proj, self.v_proj, self.out_proj)):
            weights["W_" + letter] = layer.weight
            weights["b_" + letter] = layer.bias
        return multi_head_attention(query=query, key=key, value=value, weights=weights,
                                    num_heads=self.heads, mask=mask)
''',
    },
    "numpy_and_einsum": {
        "positional_encoding": _PE_HEAD + '''    import numpy as np
    pos = np.arange(max_len)[:, None]
    two_i = np.arange(0, d_model, 2)[None, :]
    angles = pos * np.exp(-two_i * np.log(10000.0) / d_model)
    table = np.empty((max_len, d_model))
    table[:, ::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles)
    return torch.from_numpy(table).float()
''',
        "multi_head_attention": _MHA_HEAD + '''    B, T_q, D = query.shape
    T_k = key.shape[1]
    h = num_heads
    q = torch.einsum("btd,ed->bte", query, weights["W_q"]) + weights["b_q"]
    k = torch.einsum("btd,ed->bte", key, weights["W_k"]) + weights["b_k"]
    v = torch.einsum("btd,ed->bte", value, weights["W_v"]) + weights["b_v"]
    q = q.reshape(B, T_q, h, D // h)
    k = k.reshape(B, T_k, h, D // h)
    v = v.reshape(B, T_k, h, D // h)
    scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(D // h)
    if mask is not None:
        m = mask if mask.dim() == 2 else mask[:, None, :, :]
        scores = torch.where(m, scores, torch.full_like(scores, float("-inf")))
    w = torch.softmax(scores, dim=-1)
    heads = torch.einsum("bhqk,bkhd->bqhd", w, v).reshape(B, T_q, D)
    return torch.einsum("btd,ed->bte", heads, weights["W_o"]) + weights["b_o"]
''',
        "add_norm": _AN_HEAD + '''    y = sublayer_out + x
    var, mean = torch.var_mean(y, dim=-1, keepdim=True, unbiased=False)
    return (y - mean) / (var + eps).sqrt() * gamma + beta
''',
        "encoder_block": _ENC_HEAD + '''    B, T, D = x.shape
    x_prime = add_norm(x, multi_head_attention(x, x, x, weights, num_heads, mask), weights["gamma_1"], weights["beta_1"])
    flat = x_prime.reshape(B * T, D)  # the FFN acts on each position separately
    hidden = torch.addmm(weights["b_1"], flat, weights["W_1"].T).relu()
    ffn = torch.addmm(weights["b_2"], hidden, weights["W_2"].T).reshape(B, T, D)
    return add_norm(x_prime, ffn, weights["gamma_2"], weights["beta_2"])
''',
    },
    "module_with_param_dict": {
        "MultiHeadAttention": _MOD_HEAD + '''        assert d_model % num_heads == 0
        self.num_heads = num_heads
        self.q_proj, self.k_proj = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)
        self.v_proj, self.out_proj = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        layers = dict(q=self.q_proj, k=self.k_proj, v=self.v_proj, o=self.out_proj)
        weights = {f"W_{n}": l.weight for n, l in layers.items()}
        weights.update({f"b_{n}": l.bias for n, l in layers.items()})
        return multi_head_attention(query, key, value, weights, self.num_heads, mask=mask)
''',
    },
}
