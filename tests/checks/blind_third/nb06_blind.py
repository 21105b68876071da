"""Third blind set for notebook 06 (Transformer), written from the student notebook only."""
from blind_case import Blind

NOTEBOOK = "06_transformer"

_INPLACE = (("modif",), ("in place",), ("in-place",), ("mutat",), ("caller",), ("overwr",))


def pe(body):
    return ('''def positional_encoding(max_len, d_model):
    """The sinusoidal table: (max_len, d_model), PE[pos, 2i] = sin(pos * w_i), PE[pos, 2i+1] = cos(pos * w_i)."""
''' + body)


def mha(body):
    return ('''def multi_head_attention(query, key, value, weights, num_heads, mask=None):
    """query (B, T_q, d_model), key and value (B, T_k, d_model) -> (B, T_q, d_model)."""
''' + body)


def an(body):
    return ('''def add_norm(x, sublayer_out, gamma, beta, eps=1e-5):
    """LayerNorm(x + sublayer_out) over the last dimension, with scale gamma and shift beta (d_model,)."""
''' + body)


def enc(body):
    return ('''def encoder_block(x, weights, num_heads, mask=None):
    """x (B, T, d_model) -> (B, T, d_model): self-attention, add & norm, feed-forward, add & norm."""
''' + body)


def sn(body):
    return ('''def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    """logits (vocab,) or (batch, vocab) -> token ids () or (batch,), int64, drawn from softmax(logits / temperature)
    restricted to the top_k largest logits (None or 0: no restriction)."""
''' + body)


_PE_OK_HEAD = '''    pos = torch.arange(max_len, dtype=torch.float32)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float32)
    w = 1.0 / 10000 ** (two_i / d_model)
'''

# the correct pieces of multi_head_attention, to vary one at a time
_MHA_PROJ = '''    B, T_q, d_model = query.shape
    T_k = key.shape[1]
    h = num_heads
    d_head = d_model // h
    q = query @ weights["W_q"].T + weights["b_q"]
    k = key @ weights["W_k"].T + weights["b_k"]
    v = value @ weights["W_v"].T + weights["b_v"]
'''
_MHA_SPLIT = '''    q = q.view(B, T_q, h, d_head).transpose(1, 2)
    k = k.view(B, T_k, h, d_head).transpose(1, 2)
    v = v.view(B, T_k, h, d_head).transpose(1, 2)
'''
_MHA_MASK = '''    if mask is not None:
        m = mask if mask.dim() == 2 else mask[:, None]
        scores = scores.masked_fill(~m, float("-inf"))
'''
_MHA_TAIL = '''    attn = torch.softmax(scores, dim=-1)
    out = (attn @ v).transpose(1, 2).reshape(B, T_q, d_model)
    return out @ weights["W_o"].T + weights["b_o"]
'''
_MHA_SCORES = '''    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
'''

_MHA_CLASS_INIT = '''class MultiHeadAttention(nn.Module):
    """Multi-head attention with trainable projections q_proj, k_proj, v_proj, out_proj (each d_model -> d_model)."""

    def __init__(self, d_model, num_heads):
        super().__init__()
'''

_ENC_FFN = '''    ffn = torch.relu(x1 @ weights["W_1"].T + weights["b_1"]) @ weights["W_2"].T + weights["b_2"]
'''

_SN_CHECKS = '''    if temperature <= 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    z = logits / temperature
    if top_k:
        if top_k > z.shape[-1]:
            raise ValueError(f"top_k = {top_k} is larger than the vocabulary of {z.shape[-1]}")
        kth = torch.topk(z, top_k, dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float("-inf"))
'''
_SN_DRAW = '''    probs = torch.softmax(z, dim=-1)
    ids = torch.multinomial(probs.reshape(-1, probs.shape[-1]), 1, generator=generator)[:, 0]
    return ids[0] if logits.dim() == 1 else ids
'''

BLIND = [
    # ---- positional_encoding
    Blind(name="pe_sin_cos_swapped", cell="positional_encoding", test_cell="check_positional_encoding",
          source=pe(_PE_OK_HEAD + '''    table = torch.zeros(max_len, d_model)
    table[:, 0::2] = torch.cos(pos * w)
    table[:, 1::2] = torch.sin(pos * w)
    return table
'''),
          mistake="cos in the even columns and sin in the odd ones",
          names_it=(("sin",), ("cos",), ("even",)),
          part="sin and cos swapped"),
    Blind(name="pe_halves", cell="positional_encoding", test_cell="check_positional_encoding",
          source=pe(_PE_OK_HEAD + '''    return torch.cat([torch.sin(pos * w), torch.cos(pos * w)], dim=1)
'''),
          mistake="puts all sines in the first half and all cosines in the second instead of interleaving columns 2i, 2i+1",
          names_it=(("interleav",), ("2i",), ("column",), ("even",), ("odd",)),
          part="the column layout"),
    Blind(name="pe_pos_from_one", cell="positional_encoding", test_cell="check_positional_encoding",
          source=pe('''    pos = torch.arange(1, max_len + 1, dtype=torch.float32)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float32)
    w = 1.0 / 10000 ** (two_i / d_model)
    table = torch.zeros(max_len, d_model)
    table[:, 0::2] = torch.sin(pos * w)
    table[:, 1::2] = torch.cos(pos * w)
    return table
'''),
          mistake="positions start at 1 instead of 0",
          names_it=(("start at 0",), ("position 0",), ("positions start",), ("off by one",), ("first row",)),
          part="the first position"),
    Blind(name="pe_column_exponent", cell="positional_encoding", test_cell="check_positional_encoding",
          source=pe('''    pos = torch.arange(max_len, dtype=torch.float32)[:, None]
    j = torch.arange(d_model, dtype=torch.float32)
    angles = pos / 10000 ** (j / d_model)          # every column its own frequency
    table = torch.zeros(max_len, d_model)
    table[:, 0::2] = torch.sin(angles[:, 0::2])
    table[:, 1::2] = torch.cos(angles[:, 1::2])
    return table
'''),
          mistake="gives the cosine column 2i+1 the exponent (2i+1)/d instead of sharing 2i/d with its sine column",
          names_it=(("frequency",), ("pair",), ("2i",), ("share",)),
          part="the cos column's frequency"),
    Blind(name="pe_pair_index", cell="positional_encoding", test_cell="check_positional_encoding",
          source=pe('''    pos = torch.arange(max_len, dtype=torch.float32)[:, None]
    i = torch.arange(d_model // 2, dtype=torch.float32)
    w = 1.0 / 10000 ** (i / d_model)                 # forgot the 2 in 2i
    table = torch.zeros(max_len, d_model)
    table[:, 0::2] = torch.sin(pos * w)
    table[:, 1::2] = torch.cos(pos * w)
    return table
'''),
          mistake="uses i / d_model instead of 2i / d_model in the exponent",
          names_it=(("2i",), ("frequency",), ("exponent",)),
          part="the exponent of 10000"),
    # ---- multi_head_attention
    Blind(name="mha_scale_d_model", cell="multi_head_attention", test_cell="check_multi_head_attention",
          source=mha(_MHA_PROJ + _MHA_SPLIT + '''    scores = q @ k.transpose(-2, -1) / math.sqrt(d_model)
''' + _MHA_MASK + _MHA_TAIL),
          mistake="divides the scores by sqrt(d_model) instead of sqrt(d_head)",
          names_it=(("d_head",), ("sqrt",), ("scal",)),
          part="the scale"),
    Blind(name="mha_split_without_transpose", cell="multi_head_attention", test_cell="check_multi_head_attention",
          source=mha(_MHA_PROJ + '''    q = q.reshape(B, h, T_q, d_head)
    k = k.reshape(B, h, T_k, d_head)
    v = v.reshape(B, h, T_k, d_head)
''' + _MHA_SCORES + _MHA_MASK + _MHA_TAIL),
          mistake="reshapes (B, T, d_model) straight to (B, h, T, d_head), mixing positions and heads, instead of view then transpose",
          names_it=(("split",), ("transpose",), ("heads",), ("(b, t, h, d_head)",)),
          part="splitting the heads"),
    Blind(name="mha_dhead_as_heads", cell="multi_head_attention", test_cell="check_multi_head_attention",
          source=mha(_MHA_PROJ + '''    q = q.view(B, T_q, d_head, h).transpose(1, 2)
    k = k.view(B, T_k, d_head, h).transpose(1, 2)
    v = v.view(B, T_k, d_head, h).transpose(1, 2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
''' + '''    if mask is not None:
        m = mask if mask.dim() == 2 else mask[:, None]
        scores = scores.masked_fill(~m, float("-inf"))
    attn = torch.softmax(scores, dim=-1)
    out = (attn @ v).transpose(1, 2).reshape(B, T_q, d_model)
    return out @ weights["W_o"].T + weights["b_o"]
'''),
          mistake="views the features as (d_head, h) instead of (h, d_head): d_head groups are used as heads",
          names_it=(("d_head",), ("num_heads",), ("heads",), ("split",)),
          part="d_head and num_heads swapped in the split"),
    Blind(name="mha_concat_no_transpose", cell="multi_head_attention", test_cell="check_multi_head_attention",
          source=mha(_MHA_PROJ + _MHA_SPLIT + _MHA_SCORES + _MHA_MASK + '''    attn = torch.softmax(scores, dim=-1)
    out = (attn @ v).reshape(B, T_q, d_model)
    return out @ weights["W_o"].T + weights["b_o"]
'''),
          mistake="reshapes (B, h, T, d_head) back to (B, T, d_model) without transposing first",
          names_it=(("concat",), ("transpose",), ("merge",), ("heads",)),
          part="concatenating the heads"),
    Blind(name="mha_no_out_proj", cell="multi_head_attention", test_cell="check_multi_head_attention",
          source=mha(_MHA_PROJ + _MHA_SPLIT + _MHA_SCORES + _MHA_MASK + '''    attn = torch.softmax(scores, dim=-1)
    return (attn @ v).transpose(1, 2).reshape(B, T_q, d_model)
'''),
          mistake="never applies the output projection W_o, b_o",
          names_it=(("w_o",), ("output projection",), ("out_proj",)),
          part="the output projection"),
    Blind(name="mha_kv_from_query", cell="multi_head_attention", test_cell="check_multi_head_attention",
          source=mha('''    B, T_q, d_model = query.shape
    h = num_heads
    d_head = d_model // h
    T_k = T_q
    q = query @ weights["W_q"].T + weights["b_q"]
    k = query @ weights["W_k"].T + weights["b_k"]
    v = query @ weights["W_v"].T + weights["b_v"]
''' + _MHA_SPLIT + _MHA_SCORES + _MHA_MASK + _MHA_TAIL),
          mistake="projects the keys and values from query (self-attention only), ignoring key and value",
          names_it=(("cross",), ("key",), ("value",)),
          part="keys and values taken from query"),
    Blind(name="mha_mask_no_head_axis", cell="multi_head_attention", test_cell="check_multi_head_attention",
          source=mha(_MHA_PROJ + _MHA_SPLIT + _MHA_SCORES + '''    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
''' + _MHA_TAIL),
          mistake="uses a per-sequence (B, T_q, T_k) mask without adding the head axis, so it lines up B with the heads",
          names_it=(("per-sequence",), ("(b, t_q, t_k)",), ("head axis",), ("broadcast",), ("every head",)),
          part="the per-sequence mask's broadcasting"),
    Blind(name="mha_mask_zero", cell="multi_head_attention", test_cell="check_multi_head_attention",
          source=mha(_MHA_PROJ + _MHA_SPLIT + _MHA_SCORES + '''    if mask is not None:
        m = mask if mask.dim() == 2 else mask[:, None]
        scores = scores * m
''' + _MHA_TAIL),
          mistake="multiplies the scores by the mask (0 instead of -inf), so masked keys keep weight",
          names_it=(("-inf",), ("mask",), ("weight 0",), ("future",)),
          part="the value given to masked scores"),
    # ---- MultiHeadAttention module
    Blind(name="module_detached_weights", cell="MultiHeadAttention", test_cell="check_MultiHeadAttention",
          source=_MHA_CLASS_INIT + '''        self.num_heads = num_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        weights = {}
        for name, layer in [("q", self.q_proj), ("k", self.k_proj), ("v", self.v_proj), ("o", self.out_proj)]:
            weights["W_" + name] = layer.weight.detach()
            weights["b_" + name] = layer.bias.detach()
        return multi_head_attention(query, key, value, weights, self.num_heads, mask)
''',
          mistake="passes detached weights, so no gradient reaches the four layers",
          names_it=(("gradient",), ("detach",), ("requires_grad",), ("trainable",)),
          part="weights detached"),
    Blind(name="module_hardcoded_heads", cell="MultiHeadAttention", test_cell="check_MultiHeadAttention",
          source=_MHA_CLASS_INIT + '''        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        weights = {"W_q": self.q_proj.weight, "b_q": self.q_proj.bias, "W_k": self.k_proj.weight,
                   "b_k": self.k_proj.bias, "W_v": self.v_proj.weight, "b_v": self.v_proj.bias,
                   "W_o": self.out_proj.weight, "b_o": self.out_proj.bias}
        return multi_head_attention(query, key, value, weights, 8, mask)
''',
          mistake="forgets to store num_heads and passes the paper's 8 heads",
          names_it=(("num_heads",), ("heads",)),
          part="a hard-coded number of heads"),
    Blind(name="module_no_bias", cell="MultiHeadAttention", test_cell="check_MultiHeadAttention",
          source=_MHA_CLASS_INIT + '''        self.num_heads = num_heads
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.k_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_proj = nn.Linear(d_model, d_model, bias=False)
        self.out_proj = nn.Linear(d_model, d_model, bias=False)

    def forward(self, query, key, value, mask=None):
        zero = torch.zeros(self.q_proj.weight.shape[0], device=query.device, dtype=query.dtype)
        weights = {"W_q": self.q_proj.weight, "b_q": zero, "W_k": self.k_proj.weight, "b_k": zero,
                   "W_v": self.v_proj.weight, "b_v": zero, "W_o": self.out_proj.weight, "b_o": zero}
        return multi_head_attention(query, key, value, weights, self.num_heads, mask)
''',
          mistake="builds the four layers without biases",
          names_it=(("bias",),),
          part="the layers' biases"),
    Blind(name="module_v_uses_k", cell="MultiHeadAttention", test_cell="check_MultiHeadAttention",
          source=_MHA_CLASS_INIT + '''        self.num_heads = num_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        weights = {"W_q": self.q_proj.weight, "b_q": self.q_proj.bias, "W_k": self.k_proj.weight,
                   "b_k": self.k_proj.bias, "W_v": self.k_proj.weight, "b_v": self.k_proj.bias,
                   "W_o": self.out_proj.weight, "b_o": self.out_proj.bias}
        return multi_head_attention(query, key, value, weights, self.num_heads, mask)
''',
          mistake="passes k_proj's weights as the value projection (copy-paste slip); v_proj is never used",
          names_it=(("v_proj",), ("value",)),
          part="the value projection's weights"),
    # ---- add_norm
    Blind(name="an_no_eps", cell="add_norm", test_cell="check_add_norm",
          source=an('''    y = x + sublayer_out
    mu = y.mean(dim=-1, keepdim=True)
    var = ((y - mu) ** 2).mean(dim=-1, keepdim=True)
    return gamma * (y - mu) / torch.sqrt(var) + beta
'''),
          mistake="ignores eps",
          names_it=(("eps",), ("epsilon",)),
          part="eps"),
    Blind(name="an_unbiased_var", cell="add_norm", test_cell="check_add_norm",
          source=an('''    y = x + sublayer_out
    mu = y.mean(dim=-1, keepdim=True)
    var = y.var(dim=-1, keepdim=True)
    return gamma * (y - mu) / torch.sqrt(var + eps) + beta
'''),
          mistake="uses the unbiased variance (divides by d - 1)",
          names_it=(("d - 1",), ("unbiased",), ("biased",), ("divid",)),
          part="biased vs unbiased variance"),
    Blind(name="an_uncentred_var", cell="add_norm", test_cell="check_add_norm",
          source=an('''    y = x + sublayer_out
    mu = y.mean(dim=-1, keepdim=True)
    var = (y ** 2).mean(dim=-1, keepdim=True)
    return gamma * (y - mu) / torch.sqrt(var + eps) + beta
'''),
          mistake="computes the variance as the mean of y^2 without subtracting the mean",
          names_it=(("variance",), ("mean",), ("centr",)),
          part="the variance not centred"),
    Blind(name="an_no_residual", cell="add_norm", test_cell="check_add_norm",
          source=an('''    y = sublayer_out
    mu = y.mean(dim=-1, keepdim=True)
    var = ((y - mu) ** 2).mean(dim=-1, keepdim=True)
    return gamma * (y - mu) / torch.sqrt(var + eps) + beta
'''),
          mistake="normalises only the sublayer's output, without adding the residual x",
          names_it=(("residual",), ("x +",), ("x + sublayer",)),
          part="the residual connection"),
    Blind(name="an_eps_outside", cell="add_norm", test_cell="check_add_norm",
          source=an('''    y = x + sublayer_out
    mu = y.mean(dim=-1, keepdim=True)
    var = ((y - mu) ** 2).mean(dim=-1, keepdim=True)
    return gamma * (y - mu) / (torch.sqrt(var) + eps) + beta
'''),
          mistake="adds eps to the standard deviation instead of inside the square root",
          names_it=(("eps",), ("inside",), ("square root",), ("sqrt",)),
          part="where eps is added"),
    Blind(name="an_x_in_place", cell="add_norm", test_cell="check_add_norm",
          source=an('''    x += sublayer_out
    mu = x.mean(dim=-1, keepdim=True)
    var = ((x - mu) ** 2).mean(dim=-1, keepdim=True)
    return gamma * (x - mu) / torch.sqrt(var + eps) + beta
'''),
          mistake="adds the sublayer's output into the caller's x in place",
          names_it=_INPLACE + (("changed", "x"),),
          part="x changed in place"),
    Blind(name="an_all_dims", cell="add_norm", test_cell="check_add_norm",
          source=an('''    y = x + sublayer_out
    mu = y.mean()
    var = ((y - mu) ** 2).mean()
    return gamma * (y - mu) / torch.sqrt(var + eps) + beta
'''),
          mistake="takes the mean and variance over the whole tensor instead of the last dimension",
          names_it=(("last dim",), ("each position",), ("per position",), ("over the last",)),
          part="the normalisation axis"),
    # ---- encoder_block
    Blind(name="enc_gelu", cell="encoder_block", test_cell="check_encoder_block",
          source=enc('''    a = multi_head_attention(x, x, x, weights, num_heads, mask)
    x1 = add_norm(x, a, weights["gamma_1"], weights["beta_1"])
    ffn = torch.nn.functional.gelu(x1 @ weights["W_1"].T + weights["b_1"]) @ weights["W_2"].T + weights["b_2"]
    return add_norm(x1, ffn, weights["gamma_2"], weights["beta_2"])
'''),
          mistake="uses GELU in the feed-forward network instead of ReLU (max(0, .))",
          names_it=(("relu",), ("max(0",)),
          part="the feed-forward activation"),
    Blind(name="enc_pre_norm", cell="encoder_block", test_cell="check_encoder_block",
          source=enc('''    zero = torch.zeros_like(x)
    n1 = add_norm(x, zero, weights["gamma_1"], weights["beta_1"])
    x1 = x + multi_head_attention(n1, n1, n1, weights, num_heads, mask)
    n2 = add_norm(x1, torch.zeros_like(x1), weights["gamma_2"], weights["beta_2"])
    return x1 + torch.relu(n2 @ weights["W_1"].T + weights["b_1"]) @ weights["W_2"].T + weights["b_2"]
'''),
          mistake="pre-norm (normalise, sublayer, add) instead of the paper's post-norm",
          names_it=(("post-norm",), ("pre-norm",), ("order",)),
          part="the norm's position"),
    Blind(name="enc_second_residual_from_x", cell="encoder_block", test_cell="check_encoder_block",
          source=enc('''    a = multi_head_attention(x, x, x, weights, num_heads, mask)
    x1 = add_norm(x, a, weights["gamma_1"], weights["beta_1"])
''' + _ENC_FFN + '''    return add_norm(x, ffn, weights["gamma_2"], weights["beta_2"])
'''),
          mistake="the second residual adds the block's input x instead of x'",
          names_it=(("residual",), ("x'",), ("second",)),
          part="the second residual"),
    Blind(name="enc_mask_ignored", cell="encoder_block", test_cell="check_encoder_block",
          source=enc('''    a = multi_head_attention(x, x, x, weights, num_heads)
    x1 = add_norm(x, a, weights["gamma_1"], weights["beta_1"])
''' + _ENC_FFN + '''    return add_norm(x1, ffn, weights["gamma_2"], weights["beta_2"])
'''),
          mistake="never passes the mask on to the attention",
          names_it=(("mask",), ("causal",)),
          part="the mask"),
    Blind(name="enc_same_norm", cell="encoder_block", test_cell="check_encoder_block",
          source=enc('''    a = multi_head_attention(x, x, x, weights, num_heads, mask)
    x1 = add_norm(x, a, weights["gamma_1"], weights["beta_1"])
''' + _ENC_FFN + '''    return add_norm(x1, ffn, weights["gamma_1"], weights["beta_1"])
'''),
          mistake="uses the first LayerNorm's gamma_1, beta_1 for the second one too",
          names_it=(("gamma_2",), ("second layernorm",), ("second norm",)),
          part="the second LayerNorm's parameters"),
    # ---- sample_next
    Blind(name="sn_reseeds", cell="sample_next", test_cell="check_sample_next",
          source=sn(_SN_CHECKS + '''    probs = torch.softmax(z, dim=-1)
    fixed = torch.Generator(device=logits.device).manual_seed(0)     # reproducible
    ids = torch.multinomial(probs.reshape(-1, probs.shape[-1]), 1, generator=fixed)[:, 0]
    return ids[0] if logits.dim() == 1 else ids
'''),
          mistake="draws from a freshly seeded generator instead of the one it is given",
          names_it=(("generator",), ("seed",)),
          part="the random generator"),
    Blind(name="sn_in_place_temperature", cell="sample_next", test_cell="check_sample_next",
          source=sn('''    if temperature <= 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    logits /= temperature
    z = logits
    if top_k:
        if top_k > z.shape[-1]:
            raise ValueError(f"top_k = {top_k} is larger than the vocabulary of {z.shape[-1]}")
        kth = torch.topk(z, top_k, dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float("-inf"))
''' + _SN_DRAW),
          mistake="divides the caller's logits by the temperature in place",
          names_it=_INPLACE + (("changed", "logits"),),
          part="logits divided in place"),
    Blind(name="sn_topk_drops_ties", cell="sample_next", test_cell="check_sample_next",
          source=sn('''    if temperature <= 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    z = logits / temperature
    if top_k:
        if top_k > z.shape[-1]:
            raise ValueError(f"top_k = {top_k} is larger than the vocabulary of {z.shape[-1]}")
        keep = torch.topk(z, top_k, dim=-1).indices
        z = torch.full_like(z, float("-inf")).scatter(-1, keep, z.gather(-1, keep))
''' + _SN_DRAW),
          mistake="keeps exactly the k indices topk returns, dropping logits tied with the k-th largest",
          names_it=(("tie",), ("equal",), ("k-th",)),
          part="ties at the k-th logit"),
    Blind(name="sn_multiply_temperature", cell="sample_next", test_cell="check_sample_next",
          source=sn('''    if temperature <= 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    z = logits * temperature
    if top_k:
        if top_k > z.shape[-1]:
            raise ValueError(f"top_k = {top_k} is larger than the vocabulary of {z.shape[-1]}")
        kth = torch.topk(z, top_k, dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float("-inf"))
''' + _SN_DRAW),
          mistake="multiplies the logits by the temperature instead of dividing",
          names_it=(("temperature",), ("divid",)),
          part="temperature applied the wrong way"),
    Blind(name="sn_argmax", cell="sample_next", test_cell="check_sample_next",
          source=sn(_SN_CHECKS + '''    ids = z.reshape(-1, z.shape[-1]).argmax(dim=-1)
    return ids[0] if logits.dim() == 1 else ids
'''),
          mistake="takes the argmax (greedy) instead of drawing",
          names_it=(("frequenc",), ("draw",), ("sampl",), ("argmax",), ("probabilit",)),
          part="greedy instead of sampling"),
    Blind(name="sn_zero_only", cell="sample_next", test_cell="check_sample_next",
          source=sn('''    if temperature == 0:
        raise ValueError("temperature 0 is not a distribution")
    z = logits / temperature
    if top_k:
        if top_k > z.shape[-1]:
            raise ValueError(f"top_k = {top_k} is larger than the vocabulary of {z.shape[-1]}")
        kth = torch.topk(z, top_k, dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float("-inf"))
''' + _SN_DRAW),
          mistake="raises ValueError only for temperature == 0, not for negative temperatures",
          names_it=(("valueerror",), ("negative",), ("temperature <= 0",), ("temperature",)),
          part="the temperature check"),
    Blind(name="sn_no_topk_check", cell="sample_next", test_cell="check_sample_next",
          source=sn('''    if temperature <= 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    z = logits / temperature
    if top_k:
        kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float("-inf"))
''' + _SN_DRAW),
          mistake="silently caps top_k at the vocabulary size instead of raising ValueError",
          names_it=(("valueerror",), ("top_k", "larger"), ("vocabulary",)),
          part="the top_k check"),
    Blind(name="sn_1d_shape", cell="sample_next", test_cell="check_sample_next",
          source=sn(_SN_CHECKS + '''    probs = torch.softmax(z, dim=-1)
    if probs.dim() == 1:
        return torch.multinomial(probs, 1, generator=generator)
    return torch.multinomial(probs, 1, generator=generator)[:, 0]
'''),
          mistake="returns shape (1,) for a single (vocab,) row instead of a 0-dimensional tensor",
          names_it=(("0-dimensional",), ("0-d",), ("shape",), ("scalar",)),
          part="the shape for a single row"),
    Blind(name="sn_top_k_zero", cell="sample_next", test_cell="check_sample_next",
          source=sn('''    if temperature <= 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    z = logits / temperature
    if top_k is not None:
        if top_k > z.shape[-1]:
            raise ValueError(f"top_k = {top_k} is larger than the vocabulary of {z.shape[-1]}")
        kth = torch.topk(z, top_k, dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float("-inf"))
''' + _SN_DRAW),
          mistake="treats top_k = 0 as a restriction instead of 'no restriction'",
          names_it=(("top_k = 0",), ("top_k=0",), ("no restriction",), ("0 means",)),
          part="top_k = 0"),
    Blind(name="sn_shared_uniform", cell="sample_next", test_cell="check_sample_next",
          source=sn(_SN_CHECKS + '''    probs = torch.softmax(z, dim=-1).reshape(-1, z.shape[-1])
    u = torch.rand(1, generator=generator, device=probs.device, dtype=probs.dtype)   # one uniform number
    ids = (probs.cumsum(dim=-1) < u).sum(dim=-1).clamp(max=probs.shape[-1] - 1)
    return ids[0] if logits.dim() == 1 else ids
'''),
          mistake="draws one uniform number for the whole batch: the rows' draws are not independent",
          names_it=(("independent",), ("per row",), ("each row",), ("frequenc",)),
          part="one draw shared by all rows"),
]

ALTERNATIVES = {
    "explicit_loops": {
        "positional_encoding": pe('''    table = torch.zeros(max_len, d_model)
    for pos in range(max_len):
        for i in range(d_model // 2):
            angle = pos / (10000 ** (2 * i / d_model))
            table[pos, 2 * i] = math.sin(angle)
            table[pos, 2 * i + 1] = math.cos(angle)
    return table
'''),
        "multi_head_attention": mha(_MHA_PROJ + _MHA_SPLIT + _MHA_SCORES + _MHA_MASK + _MHA_TAIL),
        "MultiHeadAttention": _MHA_CLASS_INIT + '''        self.num_heads = num_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        weights = {}
        for short, layer in (("q", self.q_proj), ("k", self.k_proj), ("v", self.v_proj), ("o", self.out_proj)):
            weights[f"W_{short}"], weights[f"b_{short}"] = layer.weight, layer.bias
        return multi_head_attention(query, key, value, weights, self.num_heads, mask=mask)
''',
        "add_norm": an('''    y = x + sublayer_out
    mu = y.mean(dim=-1, keepdim=True)
    var = ((y - mu) ** 2).mean(dim=-1, keepdim=True)
    return gamma * (y - mu) / torch.sqrt(var + eps) + beta
'''),
        "encoder_block": enc('''    attended = multi_head_attention(x, x, x, weights, num_heads, mask=mask)
    x1 = add_norm(x, attended, weights["gamma_1"], weights["beta_1"])
    hidden = torch.clamp(x1 @ weights["W_1"].T + weights["b_1"], min=0)
    ffn = hidden @ weights["W_2"].T + weights["b_2"]
    return add_norm(x1, ffn, weights["gamma_2"], weights["beta_2"])
'''),
        "sample_next": sn(_SN_CHECKS + _SN_DRAW),
    },
    "einsum_functional": {
        "positional_encoding": pe('''    pos = torch.arange(max_len, dtype=torch.float32)
    freqs = torch.exp(-math.log(10000.0) * torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
    angles = torch.outer(pos, freqs)
    return torch.stack([torch.sin(angles), torch.cos(angles)], dim=-1).reshape(max_len, d_model)
'''),
        "multi_head_attention": mha('''    B, T_q, D = query.shape
    T_k = key.shape[1]
    h, dh = num_heads, D // num_heads
    F = torch.nn.functional
    q = F.linear(query, weights["W_q"], weights["b_q"]).reshape(B, T_q, h, dh)
    k = F.linear(key, weights["W_k"], weights["b_k"]).reshape(B, T_k, h, dh)
    v = F.linear(value, weights["W_v"], weights["b_v"]).reshape(B, T_k, h, dh)
    scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / dh ** 0.5
    if mask is not None:
        allowed = mask.unsqueeze(-3) if mask.dim() == 3 else mask
        scores = torch.where(allowed, scores, torch.full_like(scores, float("-inf")))
    attn = torch.softmax(scores, dim=-1)
    out = torch.einsum("bhqk,bkhd->bqhd", attn, v).reshape(B, T_q, D)
    return F.linear(out, weights["W_o"], weights["b_o"])
'''),
        "MultiHeadAttention": _MHA_CLASS_INIT + '''        self.h = num_heads
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (nn.Linear(d_model, d_model) for _ in range(4))

    def forward(self, query, key, value, mask=None):
        return multi_head_attention(query, key, value, dict(
            W_q=self.q_proj.weight, b_q=self.q_proj.bias, W_k=self.k_proj.weight, b_k=self.k_proj.bias,
            W_v=self.v_proj.weight, b_v=self.v_proj.bias, W_o=self.out_proj.weight, b_o=self.out_proj.bias),
            num_heads=self.h, mask=mask)
''',
        "add_norm": an('''    y = x + sublayer_out
    var, mu = torch.var_mean(y, dim=-1, unbiased=False, keepdim=True)
    return (y - mu) * torch.rsqrt(var + eps) * gamma + beta
'''),
        "encoder_block": enc('''    F = torch.nn.functional
    x1 = add_norm(x, multi_head_attention(x, x, x, weights, num_heads, mask), weights["gamma_1"], weights["beta_1"])
    ffn = F.linear(F.relu(F.linear(x1, weights["W_1"], weights["b_1"])), weights["W_2"], weights["b_2"])
    return add_norm(x1, ffn, weights["gamma_2"], weights["beta_2"], eps=1e-5)
'''),
        "sample_next": sn('''    if not temperature > 0:
        raise ValueError("temperature must be > 0: z / T is not a distribution otherwise")
    single = logits.dim() == 1
    z = (logits[None] if single else logits) / temperature
    if top_k is not None and top_k != 0:
        if top_k > z.shape[-1]:
            raise ValueError("top_k cannot be larger than the vocabulary")
        threshold = z.sort(dim=-1, descending=True).values[:, top_k - 1:top_k]
        z = torch.where(z >= threshold, z, torch.full_like(z, float("-inf")))
    ids = torch.multinomial(torch.softmax(z, dim=-1), num_samples=1, generator=generator).squeeze(-1)
    return ids.squeeze(0) if single else ids
'''),
    },
    "inverse_cdf": {
        "positional_encoding": pe('''    pe_table = torch.empty(max_len, d_model)
    position = torch.arange(max_len).unsqueeze(1).float()
    div = torch.pow(10000.0, torch.arange(0, d_model, 2).float() / d_model)
    pe_table[:, 0::2] = torch.sin(position / div)
    pe_table[:, 1::2] = torch.cos(position / div)
    return pe_table
'''),
        "multi_head_attention": mha('''    B, T_q, d_model = query.shape
    d_head = d_model // num_heads

    def heads(t, W, b):
        return (t @ W.T + b).view(t.shape[0], t.shape[1], num_heads, d_head).permute(0, 2, 1, 3)

    q = heads(query, weights["W_q"], weights["b_q"])
    k = heads(key, weights["W_k"], weights["b_k"])
    v = heads(value, weights["W_v"], weights["b_v"])
    scores = (q / math.sqrt(d_head)) @ k.transpose(-1, -2)
    if mask is not None:
        if mask.dim() == 3:
            mask = mask[:, None, :, :]
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    out = out.permute(0, 2, 1, 3).reshape(B, T_q, d_model)
    return out @ weights["W_o"].T + weights["b_o"]
'''),
        "MultiHeadAttention": _MHA_CLASS_INIT + '''        self.num_heads = num_heads
        self.q_proj = nn.Linear(in_features=d_model, out_features=d_model, bias=True)
        self.k_proj = nn.Linear(in_features=d_model, out_features=d_model, bias=True)
        self.v_proj = nn.Linear(in_features=d_model, out_features=d_model, bias=True)
        self.out_proj = nn.Linear(in_features=d_model, out_features=d_model, bias=True)

    def forward(self, query, key, value, mask=None):
        layers = {"q": self.q_proj, "k": self.k_proj, "v": self.v_proj, "o": self.out_proj}
        weights = {f"{kind}_{name}": getattr(layer, "weight" if kind == "W" else "bias")
                   for name, layer in layers.items() for kind in ("W", "b")}
        return multi_head_attention(query, key, value, weights, num_heads=self.num_heads, mask=mask)
''',
        "add_norm": an('''    y = x + sublayer_out
    centred = y - y.mean(-1, keepdim=True)
    std = torch.sqrt(centred.pow(2).mean(-1, keepdim=True) + eps)
    return centred / std * gamma + beta
'''),
        "encoder_block": enc('''    h1 = add_norm(x, multi_head_attention(x, x, x, weights, num_heads, mask), weights["gamma_1"], weights["beta_1"])
    inner = torch.relu(torch.einsum("btd,fd->btf", h1, weights["W_1"]) + weights["b_1"])
    out = torch.einsum("btf,df->btd", inner, weights["W_2"]) + weights["b_2"]
    return add_norm(h1, out, weights["gamma_2"], weights["beta_2"])
'''),
        "sample_next": sn(_SN_CHECKS + '''    probs = torch.softmax(z.double(), dim=-1).reshape(-1, z.shape[-1])
    u = torch.rand(probs.shape[0], 1, generator=generator, dtype=torch.float64, device=probs.device)
    ids = (probs.cumsum(dim=-1) < u).sum(dim=-1).clamp(max=probs.shape[-1] - 1).long()
    return ids[0] if logits.dim() == 1 else ids
'''),
    },
}
