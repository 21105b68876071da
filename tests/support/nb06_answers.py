"""Answers to notebook 06 for testing its checks: right ones written differently, and known mistakes."""
from answer_catalogue import Wrong

NOTEBOOK = "06_transformer"

_PE = '''def positional_encoding(max_len, d_model):
    pos = torch.arange({start}, max_len + {start}, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = pos / 10000 ** ({exponent} / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.{even}(angle)
    pe[:, 1::2] = torch.{odd}(angle)
    return pe
'''


def pe_source(start="0", exponent="two_i", even="sin", odd="cos"):
    return _PE.format(start=start, exponent=exponent, even=even, odd=odd)


_MHA = '''def multi_head_attention(query, key, value, weights, num_heads, mask=None):
    B, T_q, d_model = query.shape
    d_head = d_model // num_heads

    def split_heads(x):
        return {split}

    q = split_heads(query @ weights["W_q"].T + weights["b_q"])
    k = split_heads(key @ weights["W_k"].T + weights["b_k"])
    v = split_heads(value @ weights["W_v"].T + weights["b_v"])
    scores = q @ k.transpose(-2, -1) / math.sqrt({scale})
    if mask is not None:
        if mask.dim() == 3:
            mask = {mask3}
        scores = scores.masked_fill(~mask, float("-inf"))
    heads = torch.softmax(scores, dim=-1) @ v
    concatenated = {merge}
    return {out}
'''


def mha_source(split="x.view(B, x.shape[1], num_heads, d_head).transpose(1, 2)", scale="d_head", mask3="mask[:, None]",
               merge="heads.transpose(1, 2).reshape(B, T_q, d_model)",
               out='concatenated @ weights["W_o"].T + weights["b_o"]'):
    return _MHA.format(split=split, scale=scale, mask3=mask3, merge=merge, out=out)


_ADD_NORM = '''def add_norm(x, sublayer_out, gamma, beta, eps=1e-5):
    y = {y}
    mean = y.mean(dim={dim}, keepdim=True)
    var = {var}
    return {ret}
'''


def add_norm_source(y="x + sublayer_out", dim="-1", var="((y - mean) ** 2).mean(dim=-1, keepdim=True)",
                    ret="gamma * (y - mean) / torch.sqrt(var + eps) + beta"):
    return _ADD_NORM.format(y=y, dim=dim, var=var, ret=ret)


_BLOCK = '''def encoder_block(x, weights, num_heads, mask=None):
    w = weights
    attended = multi_head_attention(x, x, x, w, num_heads, mask)
    x = {first}
    ffn = {ffn}
    return {second}
'''


def block_source(first='add_norm(x, attended, w["gamma_1"], w["beta_1"])',
                 ffn='torch.relu(x @ w["W_1"].T + w["b_1"]) @ w["W_2"].T + w["b_2"]',
                 second='add_norm(x, ffn, w["gamma_2"], w["beta_2"])'):
    return _BLOCK.format(first=first, ffn=ffn, second=second)


_PRE_NORM_BLOCK = '''def encoder_block(x, weights, num_heads, mask=None):
    w = weights
    norm = lambda y, g, b: add_norm(y, torch.zeros_like(y), g, b)
    y = norm(x, w["gamma_1"], w["beta_1"])
    x = x + multi_head_attention(y, y, y, w, num_heads, mask)
    y = norm(x, w["gamma_2"], w["beta_2"])
    return x + torch.relu(y @ w["W_1"].T + w["b_1"]) @ w["W_2"].T + w["b_2"]
'''

WRONG = [
    Wrong("pe_sin_cos_swapped", "positional_encoding", pe_source(even="cos", odd="sin"), "check_positional_encoding",
          "sine and cosine are swapped"),
    Wrong("pe_no_two", "positional_encoding", pe_source(exponent="(two_i / 2)"), "check_positional_encoding",
          "your exponent is i / d_model"),
    Wrong("pe_from_one", "positional_encoding", pe_source(start="1"), "check_positional_encoding",
          "positions start at 1"),
    Wrong("pe_halves", "positional_encoding",
          pe_source().replace("pe[:, 0::2] = torch.sin(angle)\n    pe[:, 1::2] = torch.cos(angle)",
                              "pe = torch.cat([torch.sin(angle), torch.cos(angle)], dim=1).float()"),
          "check_positional_encoding", "interleaves"),
    Wrong("pe_column_exponent", "positional_encoding",
          pe_source().replace("pe[:, 0::2] = torch.sin(angle)\n    pe[:, 1::2] = torch.cos(angle)",
                              "j = torch.arange(d_model, dtype=torch.float64)\n"
                              "    a = pos / 10000 ** (j / d_model)\n"
                              "    pe[:, 0::2] = torch.sin(a[:, 0::2])\n    pe[:, 1::2] = torch.cos(a[:, 1::2])"),
          "check_positional_encoding", "column index j"),
    Wrong("mha_scale_d_model", "multi_head_attention", mha_source(scale="d_model"), "check_multi_head_attention",
          "sqrt(d_head)"),
    Wrong("mha_split_wrong_axis", "multi_head_attention",
          mha_source(split="x.reshape(B, num_heads, x.shape[1], d_head)"), "check_multi_head_attention",
          "split along the wrong axis"),
    Wrong("mha_no_output_projection", "multi_head_attention", mha_source(out="concatenated"),
          "check_multi_head_attention", "output projection is missing"),
    Wrong("mha_merge_without_transpose", "multi_head_attention", mha_source(merge="heads.reshape(B, T_q, d_model)"),
          "check_multi_head_attention", "without moving h back"),
    Wrong("mha_mask_wrong_dims", "multi_head_attention", mha_source(mask3="mask[None]"), "check_multi_head_attention",
          "broadcast over the wrong dimensions"),
    Wrong("add_norm_unbiased", "add_norm", add_norm_source(var="y.var(dim=-1, keepdim=True)"), "check_add_norm",
          "unbiased variance"),
    Wrong("add_norm_no_residual", "add_norm", add_norm_source(y="sublayer_out"), "check_add_norm",
          "residual is missing"),
    Wrong("add_norm_eps_outside", "add_norm",
          add_norm_source(ret="gamma * (y - mean) / (torch.sqrt(var) + eps) + beta"), "check_add_norm",
          "eps is outside the square root"),
    Wrong("add_norm_wrong_axis", "add_norm",
          add_norm_source(dim="-2", var="((y - mean) ** 2).mean(dim=-2, keepdim=True)"), "check_add_norm",
          "wrong axis"),
    Wrong("add_norm_no_gamma_beta", "add_norm", add_norm_source(ret="(y - mean) / torch.sqrt(var + eps)"),
          "check_add_norm", "gamma and beta are missing"),
    Wrong("block_pre_norm", "encoder_block", _PRE_NORM_BLOCK, "check_encoder_block", "pre-norm"),
    Wrong("block_no_relu", "encoder_block", block_source(ffn='(x @ w["W_1"].T + w["b_1"]) @ w["W_2"].T + w["b_2"]'),
          "check_encoder_block", "no ReLU"),
    Wrong("block_no_ffn_residual", "encoder_block",
          block_source(second='add_norm(torch.zeros_like(x), ffn, w["gamma_2"], w["beta_2"])'),
          "check_encoder_block", "residual around the feed-forward network is missing"),
    Wrong("block_norms_swapped", "encoder_block",
          block_source(first='add_norm(x, attended, w["gamma_2"], w["beta_2"])',
                       second='add_norm(x, ffn, w["gamma_1"], w["beta_1"])'),
          "check_encoder_block", "LayerNorms are swapped"),
]

#: Correct answers in other styles: explicit loops over heads, einsum, numpy.
ALTERNATIVES = {
    "loops": {
        "positional_encoding": '''def positional_encoding(max_len, d_model):
    pe = torch.empty(max_len, d_model)
    for pos in range(max_len):
        for i in range(d_model // 2):
            angle = pos / 10000 ** (2 * i / d_model)
            pe[pos, 2 * i] = math.sin(angle)
            pe[pos, 2 * i + 1] = math.cos(angle)
    return pe
''',
        "multi_head_attention": '''def multi_head_attention(query, key, value, weights, num_heads, mask=None):
    d_model = query.shape[-1]
    d_head = d_model // num_heads
    q = query @ weights["W_q"].T + weights["b_q"]
    k = key @ weights["W_k"].T + weights["b_k"]
    v = value @ weights["W_v"].T + weights["b_v"]
    outputs = []
    for h in range(num_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        scores = q[..., cols] @ k[..., cols].transpose(-2, -1) / d_head ** 0.5
        if mask is not None:
            scores = scores.masked_fill(~mask, -float("inf"))
        outputs.append(torch.softmax(scores, dim=-1) @ v[..., cols])
    return torch.cat(outputs, dim=-1) @ weights["W_o"].T + weights["b_o"]
''',
        "encoder_block": '''def encoder_block(x, weights, num_heads, mask=None):
    x = add_norm(x, multi_head_attention(x, x, x, weights, num_heads, mask=mask), weights["gamma_1"], weights["beta_1"])
    hidden = (x @ weights["W_1"].T + weights["b_1"]).clamp(min=0)
    return add_norm(x, hidden @ weights["W_2"].T + weights["b_2"], weights["gamma_2"], weights["beta_2"])
''',
    },
    "einsum_numpy": {
        "positional_encoding": '''import numpy as np
def positional_encoding(max_len, d_model):
    pos = np.arange(max_len)[:, None]
    freq = np.exp(-np.log(10000.0) * np.arange(0, d_model, 2) / d_model)
    table = np.stack([np.sin(pos * freq), np.cos(pos * freq)], axis=-1).reshape(max_len, d_model)
    return torch.from_numpy(table)
''',
        "multi_head_attention": '''def multi_head_attention(query, key, value, weights, num_heads, mask=None):
    B, T_q, d_model = query.shape
    h, d = num_heads, d_model // num_heads
    q = torch.einsum("btd,ed->bte", query, weights["W_q"]) + weights["b_q"]
    k = torch.einsum("btd,ed->bte", key, weights["W_k"]) + weights["b_k"]
    v = torch.einsum("btd,ed->bte", value, weights["W_v"]) + weights["b_v"]
    q, k, v = (t.unflatten(-1, (h, d)) for t in (q, k, v))  # (B, T, h, d)
    scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(d)
    if mask is not None:
        m = mask if mask.dim() == 2 else mask.unsqueeze(1)
        scores = torch.where(m, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
    attn = scores.softmax(-1)
    out = torch.einsum("bhqk,bkhd->bqhd", attn, v).flatten(2)
    return out @ weights["W_o"].T + weights["b_o"]
''',
        "add_norm": '''def add_norm(x, sublayer_out, gamma, beta, eps=1e-5):
    y = x + sublayer_out
    var, mean = torch.var_mean(y, dim=-1, keepdim=True, unbiased=False)
    return (y - mean) * torch.rsqrt(var + eps) * gamma + beta
''',
    },
}

#: Answers that call what the exercise asks the student to write.
CHEATS = [
    Wrong("mha_calls_torch", "multi_head_attention",
          "def multi_head_attention(query, key, value, weights, num_heads, mask=None):\n"
          "    import torch.nn.functional as F\n"
          "    B, T, d = query.shape\n"
          "    q = (query @ weights['W_q'].T + weights['b_q']).view(B, T, num_heads, -1).transpose(1, 2)\n"
          "    k = (key @ weights['W_k'].T + weights['b_k']).view(B, key.shape[1], num_heads, -1).transpose(1, 2)\n"
          "    v = (value @ weights['W_v'].T + weights['b_v']).view(B, key.shape[1], num_heads, -1).transpose(1, 2)\n"
          "    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)\n"
          "    return out.transpose(1, 2).reshape(B, T, d) @ weights['W_o'].T + weights['b_o']\n",
          "check_multi_head_attention", "switched off"),
    Wrong("add_norm_calls_layer_norm", "add_norm",
          "def add_norm(x, sublayer_out, gamma, beta, eps=1e-5):\n"
          "    return torch.nn.functional.layer_norm(x + sublayer_out, gamma.shape, gamma, beta, eps)\n",
          "check_add_norm", "switched off"),
    Wrong("pe_calls_course_lib", "positional_encoding",
          "from course_lib.transformer import positional_encoding as _pe\n"
          "def positional_encoding(max_len, d_model):\n    return _pe(max_len, d_model)\n",
          "check_positional_encoding", "switched off"),
    Wrong("block_calls_torch_layer", "encoder_block",
          "def encoder_block(x, weights, num_heads, mask=None):\n"
          "    layer = checks.torch_encoder_layer(weights, num_heads)\n"
          "    return layer(x, src_mask=None if mask is None else ~mask)\n",
          "check_encoder_block", "switched off"),
]

#: Answer cells replaced by a stub that raises NotImplementedError, and the test cell that must say so.
STUBS = [("positional_encoding", "check_positional_encoding"), ("multi_head_attention", "check_multi_head_attention"),
         ("add_norm", "check_add_norm"), ("encoder_block", "check_encoder_block")]

#: An answer cell whose infinite loop costs only its own test cell.
LOOP = ("add_norm", "check_add_norm")

_MODULE = '''class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.q_proj = nn.Linear(d_model, d_model{bias})
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)
        {extra}

    def forward(self, query, key, value, mask=None):
        weights = {{"W_q": self.q_proj.weight, "b_q": self.q_proj.bias, "W_k": self.k_proj.weight,
                   "b_k": self.k_proj.bias, "W_v": self.v_proj.weight, "b_v": self.v_proj.bias,
                   "W_o": self.out_proj.weight, "b_o": self.out_proj.bias}}
        {ret}
'''


def module_source(bias="", extra="pass", ret="return multi_head_attention(query, key, value, weights, self.num_heads, mask)"):
    return _MODULE.format(bias=bias, extra=extra, ret=ret)


WRONG += [
    Wrong("module_no_bias", "MultiHeadAttention", module_source(bias=", bias=False"), "check_MultiHeadAttention",
          "with a bias"),
    Wrong("module_extra_parameters", "MultiHeadAttention",
          module_source(extra="self.scale = nn.Parameter(torch.ones(1))"), "check_MultiHeadAttention",
          "Register nothing else"),
    Wrong("module_detached", "MultiHeadAttention",
          module_source(ret="weights = {k: v.detach() for k, v in weights.items()}\n"
                            "        return multi_head_attention(query, key, value, weights, self.num_heads, mask)"),
          "check_MultiHeadAttention", "no gradient"),
]
STUBS += [("MultiHeadAttention", "check_MultiHeadAttention")]

# ---------------------------------------------------------------------------
# sample_next(logits, temperature=1.0, top_k=None, generator=None)

_SAMPLE = '''def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    if {t_check}:
        raise ValueError(f"temperature must be positive, got {{temperature}}")
    vocab_size = logits.shape[-1]
    if {k_check}:
        raise ValueError(f"top_k = {{top_k}} is larger than the vocabulary ({{vocab_size}} tokens)")
    scaled = {scaled}
    if {k_test}:
        {filter}
    probs = torch.softmax(scaled, dim={dim})
    return {draw}
'''

_TOP_K_FILTER = ('kth = torch.topk(scaled, top_k, dim=-1).values[..., -1:]\n'
                 '        scaled = scaled.masked_fill(scaled {keep_out} kth, {fill})')


def sample_source(t_check="temperature <= 0", k_check="top_k is not None and top_k > vocab_size",
                  scaled="logits / temperature", k_test="top_k", filter=None, keep_out="<", fill='float("-inf")',
                  dim="-1", draw="torch.multinomial(probs, 1, generator=generator).squeeze(-1)"):
    filter = filter or _TOP_K_FILTER.format(keep_out=keep_out, fill=fill)
    return _SAMPLE.format(t_check=t_check, k_check=k_check, scaled=scaled, k_test=k_test, filter=filter, dim=dim,
                          draw=draw)


WRONG += [
    Wrong("sample_temperature_multiplied", "sample_next", sample_source(scaled="logits * temperature"),
          "check_sample_next", "multiplied the logits by the temperature"),
    Wrong("sample_temperature_ignored", "sample_next", sample_source(scaled="logits.clone()"),
          "check_sample_next", "whatever the temperature"),
    Wrong("sample_reseeds", "sample_next",
          sample_source(draw="torch.multinomial(probs, 1, generator=torch.Generator(device=logits.device)"
                             ".manual_seed(generator.initial_seed())).squeeze(-1)"),
          "check_sample_next", "starts the generator over"),
    Wrong("sample_argmax", "sample_next", sample_source(draw="probs.argmax(dim=-1)"), "check_sample_next",
          "most likely token (argmax)"),
    Wrong("sample_smallest_k", "sample_next",
          sample_source(filter='kth = torch.topk(scaled, top_k, dim=-1, largest=False).values[..., -1:]\n'
                               '        scaled = scaled.masked_fill(scaled > kth, float("-inf"))'),
          "check_sample_next", "k SMALLEST logits"),
    Wrong("sample_strict_top_k", "sample_next", sample_source(keep_out="<="), "check_sample_next",
          "strictly greater than the k-th largest"),
    Wrong("sample_zero_filled", "sample_next", sample_source(fill="0.0"), "check_sample_next",
          "set their logits to 0"),
    Wrong("sample_second_softmax", "sample_next",
          sample_source(filter='p = torch.softmax(scaled, dim=-1)\n'
                               '        kth = torch.topk(p, top_k, dim=-1).values[..., -1:]\n'
                               '        scaled = torch.where(p >= kth, p, torch.zeros_like(p))'),
          "check_sample_next", "applied softmax to the probabilities again"),
    Wrong("sample_batch_axis", "sample_next", sample_source(dim="0"), "check_sample_next", "over the batch axis"),
    Wrong("sample_ignores_generator", "sample_next",
          sample_source(draw="torch.multinomial(probs, 1).squeeze(-1)"), "check_sample_next",
          "generators seeded alike gave different ids"),
    Wrong("sample_own_generator", "sample_next",
          sample_source(draw="torch.multinomial(probs, 1, generator=torch.Generator().manual_seed(0)).squeeze(-1)"),
          "check_sample_next", "different seeds gave the same ids"),
    Wrong("sample_exactly_k_on_ties", "sample_next",
          sample_source(filter='values, indices = torch.topk(scaled, top_k, dim=-1)\n'
                               '        scaled = torch.full_like(scaled, float("-inf")).scatter(-1, indices, values)'),
          "check_sample_next", "tied tokens are treated alike"),
    Wrong("sample_top_k_zero_breaks", "sample_next", sample_source(k_test="top_k is not None"), "check_sample_next",
          "top_k = 0 means no restriction"),
    Wrong("sample_keeps_column", "sample_next", sample_source(draw="torch.multinomial(probs, 1, generator=generator)"),
          "check_sample_next", ".squeeze(-1)"),
    Wrong("sample_no_temperature_check", "sample_next", sample_source(t_check="temperature == 0"), "check_sample_next",
          "temperature=-1"),
    Wrong("sample_top_k_clamped", "sample_next",
          sample_source(k_check="False", filter='kth = torch.topk(scaled, min(top_k, vocab_size), dim=-1).values[..., -1:]\n'
                                               '        scaled = scaled.masked_fill(scaled < kth, float("-inf"))'),
          "check_sample_next", "instead of raising ValueError"),
    Wrong("sample_k_plus_one", "sample_next",
          sample_source(filter='kth = torch.sort(scaled, dim=-1, descending=True).values[..., top_k:top_k + 1]\n'
                               '        scaled = scaled.masked_fill(scaled < kth, float("-inf"))'),
          "check_sample_next", "you kept k + 1 tokens"),
    Wrong("sample_kthvalue_smallest", "sample_next",
          sample_source(filter='kth = torch.kthvalue(scaled, top_k, dim=-1, keepdim=True).values\n'
                               '        scaled = scaled.masked_fill(scaled < kth, float("-inf"))'),
          "check_sample_next", "k-th SMALLEST logit"),
    Wrong("sample_not_renormalised", "sample_next",
          '''def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    if temperature <= 0 or (top_k or 0) > logits.shape[-1]:
        raise ValueError("bad temperature or top_k")
    probs = torch.softmax(logits / temperature, dim=-1)
    if top_k:
        kth = torch.topk(probs, top_k, dim=-1).values[..., -1:]
        probs = torch.where(probs >= kth, probs, torch.zeros_like(probs))
    u = torch.rand(probs.shape[:-1] + (1,), generator=generator, dtype=probs.dtype)
    return torch.searchsorted(probs.cumsum(-1), u).squeeze(-1).clamp(max=logits.shape[-1] - 1)
''', "check_sample_next", "do not sum to 1"),
    Wrong("sample_refuses_top_k_equal_vocab", "sample_next",
          sample_source(k_check="top_k is not None and top_k >= vocab_size"), "check_sample_next",
          "top_k equal to the vocabulary is allowed"),
    Wrong("sample_batch_only", "sample_next",
          sample_source(draw="torch.multinomial(probs, 1, generator=generator).squeeze(1)"), "check_sample_next",
          "A single row must work too"),
    Wrong("sample_in_place", "sample_next",
          sample_source(scaled="logits.div_(temperature)"), "check_sample_next", "changed its argument `logits` in place"),
]

ALTERNATIVES["loops"]["sample_next"] = '''def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    if not temperature > 0:
        raise ValueError("the temperature must be greater than 0")
    if top_k and top_k > logits.shape[-1]:
        raise ValueError("top_k is larger than the vocabulary")
    z = logits / temperature
    V = z.shape[-1]
    if top_k:  # kept: fewer than top_k logits of the row are strictly larger
        larger = torch.zeros_like(z)
        for j in range(V):
            larger += (z[..., j:j + 1] > z).to(z.dtype)
        z = torch.where(larger < top_k, z, torch.full_like(z, -math.inf))
    w = torch.exp(z - z.max(dim=-1, keepdim=True).values)
    u = torch.rand(z.shape[:-1], generator=generator, dtype=w.dtype, device=w.device) * w.sum(dim=-1)
    ids = torch.zeros(z.shape[:-1], dtype=torch.long, device=z.device)
    running = torch.zeros_like(u)
    for j in range(V):  # the id is how many cumulative sums lie below u
        running = running + w[..., j]
        ids += (running < u).long()
    return ids.clamp(max=V - 1)
'''

ALTERNATIVES["einsum_numpy"]["sample_next"] = '''def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    """Gumbel-max: argmax(z / T + Gumbel noise) is a draw from softmax(z / T)."""
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    if top_k is not None and top_k > logits.size(-1):
        raise ValueError("top_k > vocabulary size")
    z = logits.double() / temperature
    if top_k:
        kth = z.sort(dim=-1, descending=True).values[..., top_k - 1:top_k]
        z = torch.where(z >= kth, z, torch.tensor(-float("inf"), dtype=z.dtype, device=z.device))
    u = torch.rand(z.shape, generator=generator, dtype=z.dtype, device=z.device).clamp_min(1e-300)
    return (z - torch.log(-torch.log(u))).argmax(dim=-1)
'''

ALTERNATIVES["inverse_cdf"] = {"sample_next": '''def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    if temperature <= 0 or (top_k or 0) > logits.shape[-1]:
        raise ValueError(f"need temperature > 0 and top_k <= vocabulary, got {temperature}, {top_k}")
    probs = torch.softmax(logits, dim=-1) ** (1 / temperature)  # proportional to exp(z / T)
    if top_k:
        kth = torch.kthvalue(logits, logits.shape[-1] - top_k + 1, dim=-1, keepdim=True).values
        probs = probs * (logits >= kth)
    cdf = (probs / probs.sum(-1, keepdim=True)).cumsum(-1)
    u = torch.rand(cdf.shape[:-1] + (1,), generator=generator, device=logits.device, dtype=cdf.dtype)
    return torch.searchsorted(cdf, u).squeeze(-1).clamp(max=logits.shape[-1] - 1)
'''}

#: from the blind set: one threshold from a descending sort, F.softmax, indexing instead of squeeze
ALTERNATIVES["sort_threshold"] = {"sample_next": '''import torch.nn.functional as F
def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    """logits (vocab,) or (batch, vocab) -> token ids () or (batch,), int64, drawn from softmax(logits / temperature)
    restricted to the top_k largest logits (None or 0: no restriction)."""
    if not temperature > 0:
        raise ValueError("The temperature has to be strictly positive, otherwise z / T is not a distribution")
    z = logits / temperature          # new tensor, logits untouched
    V = z.size(-1)
    if top_k is not None and top_k != 0:
        if top_k > V:
            raise ValueError("top_k cannot be larger than the vocabulary size")
        sorted_z, _ = torch.sort(z, dim=-1, descending=True)
        threshold = sorted_z[..., top_k - 1].unsqueeze(-1)
        z = torch.where(z >= threshold, z, torch.full_like(z, float('-inf')))
    p = F.softmax(z, dim=-1)
    if p.dim() == 1:
        return torch.multinomial(p, 1, generator=generator)[0]
    return torch.multinomial(p, 1, generator=generator)[:, 0]
'''}

WRONG += [
    Wrong("sample_one_uniform_per_batch", "sample_next", '''def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    """logits (vocab,) or (batch, vocab) -> token ids () or (batch,), int64, drawn from softmax(logits / temperature)
    restricted to the top_k largest logits (None or 0: no restriction)."""
    if temperature <= 0:
        raise ValueError("temperature must be positive: z / T is not a distribution for T <= 0")
    z = logits / temperature
    V = z.shape[-1]
    if top_k:
        if top_k > V:
            raise ValueError("top_k is larger than the vocabulary")
        kth = torch.topk(z, top_k, dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float("-inf"))
    probs = torch.softmax(z.double(), dim=-1)
    cdf = probs.cumsum(dim=-1)
    u = torch.rand(1, generator=generator, dtype=torch.float64)
    u = (u * cdf[..., -1:]).contiguous()
    ids = torch.searchsorted(cdf.contiguous(), u, right=True).clamp(max=V - 1)
    return ids.squeeze(-1).long()
''', "check_sample_next",
          "draw one independent id per row"),
]

CHEATS += [
    Wrong("sample_calls_course_sampler", "sample_next",
          "def sample_next(logits, temperature=1.0, top_k=None, generator=None):\n"
          "    from course_lib.train import sample\n"
          "    class Fixed(nn.Module):\n"
          "        def forward(self, idx):\n"
          "            return logits.reshape(-1, logits.shape[-1]), None\n"
          "    rows = logits.reshape(-1, logits.shape[-1])\n"
          "    out = sample(Fixed(), torch.zeros(len(rows), 1, dtype=torch.long), 1, temperature=temperature,\n"
          "                 top_k=top_k or None, generator=generator)\n"
          "    return out[:, -1].reshape(logits.shape[:-1])\n",
          "check_sample_next", "switched off"),
]
STUBS += [("sample_next", "check_sample_next")]
