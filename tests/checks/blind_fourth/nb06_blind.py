"""Fourth blind set for notebook 06 (the Transformer), written from the student notebook only."""
from blind_case import Blind

NOTEBOOK = "06_transformer"

BLIND = [
    # ---------------------------------------------------------------- positional_encoding
    Blind(name="pe_sin_cos_swapped", cell="positional_encoding", test_cell="check_positional_encoding",
          source='''def positional_encoding(max_len, d_model):
    """The sinusoidal table: (max_len, d_model), PE[pos, 2i] = sin(pos * w_i), PE[pos, 2i+1] = cos(pos * w_i)."""
    pos = torch.arange(max_len, dtype=torch.float32)[:, None]
    w = 1.0 / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.cos(pos * w)
    pe[:, 1::2] = torch.sin(pos * w)
    return pe
''',
          mistake="Puts the cosines in the even columns and the sines in the odd ones; the even columns 2i are sin, the odd 2i+1 cos.",
          names_it=(("sin", "even"), ("cos", "odd"), ("swapped",)),
          part="which columns get sin and cos"),
    Blind(name="pe_exponent_i_not_2i", cell="positional_encoding", test_cell="check_positional_encoding",
          source='''def positional_encoding(max_len, d_model):
    """The sinusoidal table: (max_len, d_model), PE[pos, 2i] = sin(pos * w_i), PE[pos, 2i+1] = cos(pos * w_i)."""
    pe = torch.zeros(max_len, d_model)
    for pos in range(max_len):
        for i in range(d_model // 2):
            angle = pos / 10000 ** (i / d_model)
            pe[pos, 2 * i] = math.sin(angle)
            pe[pos, 2 * i + 1] = math.cos(angle)
    return pe
''',
          mistake="Uses 10000^(i/d_model) for the pair i instead of 10000^(2i/d_model), so the frequencies fall only half as fast.",
          names_it=(("2i",), ("2 * i",), ("frequenc",), ("exponent",)),
          part="the frequencies"),
    Blind(name="pe_exponent_column_index", cell="positional_encoding", test_cell="check_positional_encoding",
          source='''def positional_encoding(max_len, d_model):
    """The sinusoidal table: (max_len, d_model), PE[pos, 2i] = sin(pos * w_i), PE[pos, 2i+1] = cos(pos * w_i)."""
    pos = torch.arange(max_len).unsqueeze(1).float()
    j = torch.arange(d_model).float()
    angles = pos / torch.pow(10000.0, j / d_model)
    return torch.where(j.long() % 2 == 0, torch.sin(angles), torch.cos(angles))
''',
          mistake="Uses each column's own index j in the exponent, so column 2i+1 gets the frequency 1/10000^((2i+1)/d) instead of sharing 1/10000^(2i/d) with column 2i.",
          names_it=(("share",), ("same frequency",), ("pair",), ("2i+1",), ("2i + 1",)),
          part="the frequencies"),
    Blind(name="pe_positions_from_one", cell="positional_encoding", test_cell="check_positional_encoding",
          source='''def positional_encoding(max_len, d_model):
    """The sinusoidal table: (max_len, d_model), PE[pos, 2i] = sin(pos * w_i), PE[pos, 2i+1] = cos(pos * w_i)."""
    positions = torch.arange(1, max_len + 1, dtype=torch.float32).unsqueeze(1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float32)
    angles = positions / (10000 ** (two_i / d_model))
    pe = torch.empty(max_len, d_model)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles)
    return pe
''',
          mistake="Numbers the positions from 1 instead of 0, so every row is shifted by one position.",
          names_it=(("start at 0",), ("from 0",), ("position 0",), ("shifted",), ("off by one",)),
          part="the positions"),
    Blind(name="pe_concat_halves", cell="positional_encoding", test_cell="check_positional_encoding",
          source='''def positional_encoding(max_len, d_model):
    """The sinusoidal table: (max_len, d_model), PE[pos, 2i] = sin(pos * w_i), PE[pos, 2i+1] = cos(pos * w_i)."""
    pos = torch.arange(max_len, dtype=torch.float32)[:, None]
    w = torch.exp(-math.log(10000.0) * torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
    return torch.cat([torch.sin(pos * w), torch.cos(pos * w)], dim=1)
''',
          mistake="Puts all the sines in the first half of the columns and all the cosines in the second half instead of interleaving them (sin in column 2i, cos in 2i+1).",
          names_it=(("interleav",), ("2i",), ("halves",), ("even", "odd")),
          part="the column layout"),
    Blind(name="pe_positions_not_column", cell="positional_encoding", test_cell="check_positional_encoding",
          source='''def positional_encoding(max_len, d_model):
    """The sinusoidal table: (max_len, d_model), PE[pos, 2i] = sin(pos * w_i), PE[pos, 2i+1] = cos(pos * w_i)."""
    pos = torch.arange(max_len, dtype=torch.float32)
    w = 1.0 / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(pos * w)
    pe[:, 1::2] = torch.cos(pos * w)
    return pe
''',
          mistake="Multiplies the (max_len,) positions by the (d_model/2,) frequencies without making positions a column (pos[:, None]): a broadcast error unless max_len = d_model/2.",
          names_it=(("[:, none]",), ("unsqueeze",), ("column",), ("broadcast",), ("outer",)),
          part="broadcasting positions against frequencies"),
    Blind(name="pe_integer_exponent", cell="positional_encoding", test_cell="check_positional_encoding",
          source='''def positional_encoding(max_len, d_model):
    """The sinusoidal table: (max_len, d_model), PE[pos, 2i] = sin(pos * w_i), PE[pos, 2i+1] = cos(pos * w_i)."""
    pe = torch.zeros(max_len, d_model)
    for pos in range(max_len):
        for i in range(0, d_model, 2):
            w = 1 / 10000 ** (i // d_model)
            pe[pos, i] = math.sin(pos * w)
            pe[pos, i + 1] = math.cos(pos * w)
    return pe
''',
          mistake="Writes the exponent with integer division (i // d_model), which is 0 for every column, so every pair gets the same frequency 1.",
          names_it=(("integer division",), ("//",), ("frequenc",)),
          part="the frequencies"),

    # ---------------------------------------------------------------- multi_head_attention
    Blind(name="mha_scale_d_model", cell="multi_head_attention", test_cell="check_multi_head_attention",
          source='''def multi_head_attention(query, key, value, weights, num_heads, mask=None):
    """query (B, T_q, d_model), key and value (B, T_k, d_model) -> (B, T_q, d_model)."""
    B, T_q, d_model = query.shape
    T_k = key.shape[1]
    d_head = d_model // num_heads
    q = (query @ weights["W_q"].T + weights["b_q"]).view(B, T_q, num_heads, d_head).transpose(1, 2)
    k = (key @ weights["W_k"].T + weights["b_k"]).view(B, T_k, num_heads, d_head).transpose(1, 2)
    v = (value @ weights["W_v"].T + weights["b_v"]).view(B, T_k, num_heads, d_head).transpose(1, 2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_model)
    if mask is not None:
        if mask.dim() == 3:
            mask = mask.unsqueeze(1)
        scores = scores.masked_fill(~mask, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    out = out.transpose(1, 2).reshape(B, T_q, d_model)
    return out @ weights["W_o"].T + weights["b_o"]
''',
          mistake="Divides the scores by sqrt(d_model) instead of sqrt(d_head).",
          names_it=(("d_head",), ("sqrt(d_head)",)),
          part="the scaling factor"),
    Blind(name="mha_split_heads_wrong_order", cell="multi_head_attention", test_cell="check_multi_head_attention",
          source='''def multi_head_attention(query, key, value, weights, num_heads, mask=None):
    """query (B, T_q, d_model), key and value (B, T_k, d_model) -> (B, T_q, d_model)."""
    B, T_q, d_model = query.shape
    T_k = key.shape[1]
    d_head = d_model // num_heads
    q = (query @ weights["W_q"].T + weights["b_q"]).reshape(B, num_heads, T_q, d_head)
    k = (key @ weights["W_k"].T + weights["b_k"]).reshape(B, num_heads, T_k, d_head)
    v = (value @ weights["W_v"].T + weights["b_v"]).reshape(B, num_heads, T_k, d_head)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
    if mask is not None:
        if mask.dim() == 3:
            mask = mask[:, None]
        scores = scores.masked_fill(~mask, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    out = out.reshape(B, T_q, d_model)
    return out @ weights["W_o"].T + weights["b_o"]
''',
          mistake="Splits the heads by reshaping (B, T, d_model) straight to (B, h, T, d_head) instead of viewing as (B, T, h, d_head) and transposing: the heads get rows of mixed positions and features (and the merge back is wrong the same way).",
          names_it=(("transpose",), ("(b, t, h, d_head)",), ("split", "heads")),
          part="splitting the heads"),
    Blind(name="mha_d_head_as_heads", cell="multi_head_attention", test_cell="check_multi_head_attention",
          source='''def multi_head_attention(query, key, value, weights, num_heads, mask=None):
    """query (B, T_q, d_model), key and value (B, T_k, d_model) -> (B, T_q, d_model)."""
    B, T_q, d_model = query.shape
    T_k = key.shape[1]
    d_head = d_model // num_heads

    def split(x, T):
        return x.view(B, T, d_head, num_heads).transpose(1, 2)   # (B, d_head, T, num_heads)

    q = split(query @ weights["W_q"].T + weights["b_q"], T_q)
    k = split(key @ weights["W_k"].T + weights["b_k"], T_k)
    v = split(value @ weights["W_v"].T + weights["b_v"], T_k)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
    if mask is not None:
        if mask.dim() == 3:
            mask = mask.unsqueeze(1)
        scores = scores.masked_fill(~mask, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    out = out.transpose(1, 2).reshape(B, T_q, d_model)
    return out @ weights["W_o"].T + weights["b_o"]
''',
          mistake="Swaps the roles of num_heads and d_head when splitting: views (B, T, d_head, num_heads), so there are d_head heads of num_heads features each.",
          names_it=(("num_heads",), ("d_head", "heads"), ("swapped",)),
          part="splitting the heads"),
    Blind(name="mha_softmax_over_queries", cell="multi_head_attention", test_cell="check_multi_head_attention",
          source='''def multi_head_attention(query, key, value, weights, num_heads, mask=None):
    """query (B, T_q, d_model), key and value (B, T_k, d_model) -> (B, T_q, d_model)."""
    B, T_q, d_model = query.shape
    T_k = key.shape[1]
    h, d_head = num_heads, d_model // num_heads
    q = (query @ weights["W_q"].T + weights["b_q"]).view(B, T_q, h, d_head).transpose(1, 2)
    k = (key @ weights["W_k"].T + weights["b_k"]).view(B, T_k, h, d_head).transpose(1, 2)
    v = (value @ weights["W_v"].T + weights["b_v"]).view(B, T_k, h, d_head).transpose(1, 2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
    if mask is not None:
        scores = scores.masked_fill(~(mask.unsqueeze(1) if mask.dim() == 3 else mask), float("-inf"))
    attn = torch.softmax(scores, dim=-2)
    out = (attn @ v).transpose(1, 2).reshape(B, T_q, d_model)
    return out @ weights["W_o"].T + weights["b_o"]
''',
          mistake="Takes the softmax over the queries axis (dim=-2) instead of over the keys (dim=-1).",
          names_it=(("dim=-1",), ("over the keys",), ("axis",)),
          part="the softmax axis"),
    Blind(name="mha_mask_inverted", cell="multi_head_attention", test_cell="check_multi_head_attention",
          source='''def multi_head_attention(query, key, value, weights, num_heads, mask=None):
    """query (B, T_q, d_model), key and value (B, T_k, d_model) -> (B, T_q, d_model)."""
    B, T_q, d_model = query.shape
    T_k = key.shape[1]
    d_head = d_model // num_heads
    q = (query @ weights["W_q"].T + weights["b_q"]).view(B, T_q, num_heads, d_head).transpose(1, 2)
    k = (key @ weights["W_k"].T + weights["b_k"]).view(B, T_k, num_heads, d_head).transpose(1, 2)
    v = (value @ weights["W_v"].T + weights["b_v"]).view(B, T_k, num_heads, d_head).transpose(1, 2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
    if mask is not None:
        if mask.dim() == 3:
            mask = mask.unsqueeze(1)
        scores = scores.masked_fill(mask, float("-inf"))   # like nn.MultiheadAttention
    out = torch.softmax(scores, dim=-1) @ v
    out = out.transpose(1, 2).reshape(B, T_q, d_model)
    return out @ weights["W_o"].T + weights["b_o"]
''',
          mistake="Uses nn.MultiheadAttention's convention (True = blocked) and fills -inf where the mask is True, but here True means 'may attend': it blocks the allowed positions.",
          names_it=(("~mask",), ("true", "attend"), ("inverted",), ("convention",)),
          part="the mask's convention"),
    Blind(name="mha_merge_without_transpose", cell="multi_head_attention", test_cell="check_multi_head_attention",
          source='''def multi_head_attention(query, key, value, weights, num_heads, mask=None):
    """query (B, T_q, d_model), key and value (B, T_k, d_model) -> (B, T_q, d_model)."""
    B, T_q, d_model = query.shape
    T_k = key.shape[1]
    d_head = d_model // num_heads
    q = (query @ weights["W_q"].T + weights["b_q"]).view(B, T_q, num_heads, d_head).transpose(1, 2)
    k = (key @ weights["W_k"].T + weights["b_k"]).view(B, T_k, num_heads, d_head).transpose(1, 2)
    v = (value @ weights["W_v"].T + weights["b_v"]).view(B, T_k, num_heads, d_head).transpose(1, 2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
    if mask is not None:
        if mask.dim() == 3:
            mask = mask.unsqueeze(1)
        scores = scores.masked_fill(~mask, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v          # (B, h, T_q, d_head)
    out = out.reshape(B, T_q, d_model)
    return out @ weights["W_o"].T + weights["b_o"]
''',
          mistake="Concatenates the heads by reshaping (B, h, T_q, d_head) directly to (B, T_q, d_model) without transposing back to (B, T_q, h, d_head) first, which mixes positions across heads.",
          names_it=(("transpose",), ("(b, t_q, h, d_head)",), ("concatenat",)),
          part="merging the heads"),
    Blind(name="mha_no_output_projection", cell="multi_head_attention", test_cell="check_multi_head_attention",
          source='''def multi_head_attention(query, key, value, weights, num_heads, mask=None):
    """query (B, T_q, d_model), key and value (B, T_k, d_model) -> (B, T_q, d_model)."""
    B, T_q, d_model = query.shape
    T_k = key.shape[1]
    d_head = d_model // num_heads
    q = (query @ weights["W_q"].T + weights["b_q"]).view(B, T_q, num_heads, d_head).transpose(1, 2)
    k = (key @ weights["W_k"].T + weights["b_k"]).view(B, T_k, num_heads, d_head).transpose(1, 2)
    v = (value @ weights["W_v"].T + weights["b_v"]).view(B, T_k, num_heads, d_head).transpose(1, 2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
    if mask is not None:
        if mask.dim() == 3:
            mask = mask.unsqueeze(1)
        scores = scores.masked_fill(~mask, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return out.transpose(1, 2).reshape(B, T_q, d_model)
''',
          mistake="Stops after concatenating the heads: the output projection with W_o and b_o is missing.",
          names_it=(("w_o",), ("output projection",), ("project",)),
          part="the output projection"),
    Blind(name="mha_mask_no_head_axis", cell="multi_head_attention", test_cell="check_multi_head_attention",
          source='''def multi_head_attention(query, key, value, weights, num_heads, mask=None):
    """query (B, T_q, d_model), key and value (B, T_k, d_model) -> (B, T_q, d_model)."""
    B, T_q, d_model = query.shape
    T_k = key.shape[1]
    d_head = d_model // num_heads
    q = (query @ weights["W_q"].T + weights["b_q"]).view(B, T_q, num_heads, d_head).transpose(1, 2)
    k = (key @ weights["W_k"].T + weights["b_k"]).view(B, T_k, num_heads, d_head).transpose(1, 2)
    v = (value @ weights["W_v"].T + weights["b_v"]).view(B, T_k, num_heads, d_head).transpose(1, 2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    out = out.transpose(1, 2).reshape(B, T_q, d_model)
    return out @ weights["W_o"].T + weights["b_o"]
''',
          mistake="Applies a per-sequence (B, T_q, T_k) mask to the (B, h, T_q, T_k) scores without adding a head axis, so it broadcasts the batch axis against the heads axis: a shape error when B != h, the wrong sequence's mask otherwise.",
          names_it=(("head axis",), ("unsqueeze(1)",), ("per-sequence",), ("broadcast",)),
          part="broadcasting a per-sequence mask"),
    Blind(name="mha_key_reshaped_with_T_q", cell="multi_head_attention", test_cell="check_multi_head_attention",
          source='''def multi_head_attention(query, key, value, weights, num_heads, mask=None):
    """query (B, T_q, d_model), key and value (B, T_k, d_model) -> (B, T_q, d_model)."""
    B, T, d_model = query.shape
    d_head = d_model // num_heads

    def heads(x):
        return x.view(B, T, num_heads, d_head).transpose(1, 2)

    q = heads(query @ weights["W_q"].T + weights["b_q"])
    k = heads(key @ weights["W_k"].T + weights["b_k"])
    v = heads(value @ weights["W_v"].T + weights["b_v"])
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
    if mask is not None:
        if mask.dim() == 3:
            mask = mask.unsqueeze(1)
        scores = scores.masked_fill(~mask, float("-inf"))
    out = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(B, T, d_model)
    return out @ weights["W_o"].T + weights["b_o"]
''',
          mistake="Reshapes the keys and values with the query length T_q; in cross-attention T_k differs and the view fails.",
          names_it=(("t_k",), ("cross-attention",), ("key length",)),
          part="the key and value lengths"),
    Blind(name="mha_no_biases", cell="multi_head_attention", test_cell="check_multi_head_attention",
          source='''def multi_head_attention(query, key, value, weights, num_heads, mask=None):
    """query (B, T_q, d_model), key and value (B, T_k, d_model) -> (B, T_q, d_model)."""
    B, T_q, d_model = query.shape
    T_k = key.shape[1]
    d_head = d_model // num_heads
    q = (query @ weights["W_q"].T).view(B, T_q, num_heads, d_head).transpose(1, 2)
    k = (key @ weights["W_k"].T).view(B, T_k, num_heads, d_head).transpose(1, 2)
    v = (value @ weights["W_v"].T).view(B, T_k, num_heads, d_head).transpose(1, 2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
    if mask is not None:
        if mask.dim() == 3:
            mask = mask.unsqueeze(1)
        scores = scores.masked_fill(~mask, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    out = out.transpose(1, 2).reshape(B, T_q, d_model)
    return out @ weights["W_o"].T
''',
          mistake="Leaves out all four biases b_q, b_k, b_v and b_o.",
          names_it=(("bias",), ("b_q",), ("b_o",)),
          part="the biases"),

    # ---------------------------------------------------------------- MultiHeadAttention module
    Blind(name="mod_fused_qkv", cell="MultiHeadAttention", test_cell="check_MultiHeadAttention",
          source='''class MultiHeadAttention(nn.Module):
    """Multi-head attention with trainable projections q_proj, k_proj, v_proj, out_proj (each d_model -> d_model)."""

    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.in_proj = nn.Linear(d_model, 3 * d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        W_q, W_k, W_v = self.in_proj.weight.chunk(3)
        b_q, b_k, b_v = self.in_proj.bias.chunk(3)
        weights = {"W_q": W_q, "b_q": b_q, "W_k": W_k, "b_k": b_k, "W_v": W_v, "b_v": b_v,
                   "W_o": self.out_proj.weight, "b_o": self.out_proj.bias}
        return multi_head_attention(query, key, value, weights, self.num_heads, mask)
''',
          mistake="Stores the three input projections in one fused in_proj layer (like nn.MultiheadAttention) instead of the four named layers q_proj, k_proj, v_proj, out_proj the exercise asks for.",
          names_it=(("q_proj",), ("four", "linear"), ("named",)),
          part="the layers' names"),
    Blind(name="mod_detached_weights", cell="MultiHeadAttention", test_cell="check_MultiHeadAttention",
          source='''class MultiHeadAttention(nn.Module):
    """Multi-head attention with trainable projections q_proj, k_proj, v_proj, out_proj (each d_model -> d_model)."""

    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        weights = {}
        for name, layer in [("q", self.q_proj), ("k", self.k_proj), ("v", self.v_proj), ("o", self.out_proj)]:
            weights["W_" + name] = layer.weight.data
            weights["b_" + name] = layer.bias.data
        return multi_head_attention(query, key, value, weights, self.num_heads, mask)
''',
          mistake="Passes layer.weight.data and layer.bias.data, which are cut off from autograd: the output is right but no gradient reaches the four layers.",
          names_it=(("gradient",), (".data",), ("detach",)),
          part="the gradient to the layers"),
    Blind(name="mod_no_bias", cell="MultiHeadAttention", test_cell="check_MultiHeadAttention",
          source='''class MultiHeadAttention(nn.Module):
    """Multi-head attention with trainable projections q_proj, k_proj, v_proj, out_proj (each d_model -> d_model)."""

    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.k_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_proj = nn.Linear(d_model, d_model, bias=False)
        self.out_proj = nn.Linear(d_model, d_model, bias=False)

    def forward(self, query, key, value, mask=None):
        zero = torch.zeros(self.q_proj.out_features, device=query.device, dtype=query.dtype)
        weights = {"W_q": self.q_proj.weight, "b_q": zero, "W_k": self.k_proj.weight, "b_k": zero,
                   "W_v": self.v_proj.weight, "b_v": zero, "W_o": self.out_proj.weight, "b_o": zero}
        return multi_head_attention(query, key, value, weights, self.num_heads, mask)
''',
          mistake="Creates the four nn.Linear layers with bias=False and passes zero biases, so the biases of y = x W^T + b are missing.",
          names_it=(("bias",), ("bias=false",), ("b_q",)),
          part="the biases"),
    Blind(name="mod_passes_d_head", cell="MultiHeadAttention", test_cell="check_MultiHeadAttention",
          source='''class MultiHeadAttention(nn.Module):
    """Multi-head attention with trainable projections q_proj, k_proj, v_proj, out_proj (each d_model -> d_model)."""

    def __init__(self, d_model, num_heads):
        super().__init__()
        self.d_head = d_model // num_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        weights = {"W_q": self.q_proj.weight, "b_q": self.q_proj.bias, "W_k": self.k_proj.weight,
                   "b_k": self.k_proj.bias, "W_v": self.v_proj.weight, "b_v": self.v_proj.bias,
                   "W_o": self.out_proj.weight, "b_o": self.out_proj.bias}
        return multi_head_attention(query, key, value, weights, self.d_head, mask)
''',
          mistake="Passes d_head (d_model // num_heads) where multi_head_attention expects num_heads, so the attention runs with the wrong number of heads.",
          names_it=(("num_heads",), ("d_head",), ("number of heads",)),
          part="the number of heads passed"),
    Blind(name="mod_q_k_weights_swapped", cell="MultiHeadAttention", test_cell="check_MultiHeadAttention",
          source='''class MultiHeadAttention(nn.Module):
    """Multi-head attention with trainable projections q_proj, k_proj, v_proj, out_proj (each d_model -> d_model)."""

    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        weights = {"W_q": self.k_proj.weight, "b_q": self.k_proj.bias,
                   "W_k": self.q_proj.weight, "b_k": self.q_proj.bias,
                   "W_v": self.v_proj.weight, "b_v": self.v_proj.bias,
                   "W_o": self.out_proj.weight, "b_o": self.out_proj.bias}
        return multi_head_attention(query, key, value, weights, self.num_heads, mask)
''',
          mistake="Hands k_proj's weights in as W_q and q_proj's as W_k (a copy-paste swap), so queries and keys are projected with each other's matrices.",
          names_it=(("q_proj",), ("k_proj",), ("swapped",)),
          part="which layer's weights go where"),
    Blind(name="mod_no_super_init", cell="MultiHeadAttention", test_cell="check_MultiHeadAttention",
          source='''class MultiHeadAttention(nn.Module):
    """Multi-head attention with trainable projections q_proj, k_proj, v_proj, out_proj (each d_model -> d_model)."""

    def __init__(self, d_model, num_heads):
        self.num_heads = num_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        weights = {"W_q": self.q_proj.weight, "b_q": self.q_proj.bias, "W_k": self.k_proj.weight,
                   "b_k": self.k_proj.bias, "W_v": self.v_proj.weight, "b_v": self.v_proj.bias,
                   "W_o": self.out_proj.weight, "b_o": self.out_proj.bias}
        return multi_head_attention(query, key, value, weights, self.num_heads, mask)
''',
          mistake="Removes the super().__init__() call, so assigning the nn.Linear submodules raises 'cannot assign module before Module.__init__() call'.",
          names_it=(("super().__init__()",), ("super",), ("module.__init__",)),
          part="the constructor"),

    # ---------------------------------------------------------------- add_norm
    Blind(name="an_eps_ignored", cell="add_norm", test_cell="check_add_norm",
          source='''def add_norm(x, sublayer_out, gamma, beta, eps=1e-5):
    """LayerNorm(x + sublayer_out) over the last dimension, with scale gamma and shift beta (d_model,)."""
    y = x + sublayer_out
    mu = y.mean(dim=-1, keepdim=True)
    var = ((y - mu) ** 2).mean(dim=-1, keepdim=True)
    return gamma * (y - mu) / torch.sqrt(var) + beta
''',
          mistake="Ignores eps: divides by sqrt(var) instead of sqrt(var + eps), which is visibly wrong for a large eps such as 0.5.",
          names_it=(("eps",), ("epsilon",)),
          part="eps"),
    Blind(name="an_eps_outside_sqrt", cell="add_norm", test_cell="check_add_norm",
          source='''def add_norm(x, sublayer_out, gamma, beta, eps=1e-5):
    """LayerNorm(x + sublayer_out) over the last dimension, with scale gamma and shift beta (d_model,)."""
    y = x + sublayer_out
    mu = y.mean(-1, keepdim=True)
    sigma = ((y - mu) ** 2).mean(-1, keepdim=True).sqrt()
    return gamma * (y - mu) / (sigma + eps) + beta
''',
          mistake="Adds eps to the standard deviation, outside the square root, instead of to the variance inside it.",
          names_it=(("inside",), ("sqrt(var + eps)",), ("outside",), ("eps", "variance")),
          part="where eps is added"),
    Blind(name="an_variance_not_centred", cell="add_norm", test_cell="check_add_norm",
          source='''def add_norm(x, sublayer_out, gamma, beta, eps=1e-5):
    """LayerNorm(x + sublayer_out) over the last dimension, with scale gamma and shift beta (d_model,)."""
    y = x + sublayer_out
    mean = y.mean(dim=-1, keepdim=True)
    var = (y ** 2).mean(dim=-1, keepdim=True)
    return gamma * (y - mean) / torch.sqrt(var + eps) + beta
''',
          mistake="Computes the variance as the mean of y^2 without subtracting the mean first (the second moment, not the variance).",
          names_it=(("subtract", "mean"), ("centred",), ("centered",), ("y - mu",)),
          part="the variance"),
    Blind(name="an_unbiased_variance", cell="add_norm", test_cell="check_add_norm",
          source='''def add_norm(x, sublayer_out, gamma, beta, eps=1e-5):
    """LayerNorm(x + sublayer_out) over the last dimension, with scale gamma and shift beta (d_model,)."""
    y = x + sublayer_out
    mean = y.mean(dim=-1, keepdim=True)
    var = y.var(dim=-1, keepdim=True)
    return gamma * (y - mean) / torch.sqrt(var + eps) + beta
''',
          mistake="Uses torch.var's default unbiased variance (dividing by d - 1) instead of dividing by d.",
          names_it=(("unbiased",), ("d - 1",), ("n - 1",), ("biased",)),
          part="the variance"),
    Blind(name="an_normalise_over_batch", cell="add_norm", test_cell="check_add_norm",
          source='''def add_norm(x, sublayer_out, gamma, beta, eps=1e-5):
    """LayerNorm(x + sublayer_out) over the last dimension, with scale gamma and shift beta (d_model,)."""
    y = x + sublayer_out
    mu = y.mean(dim=0, keepdim=True)
    var = ((y - mu) ** 2).mean(dim=0, keepdim=True)
    return gamma * (y - mu) / torch.sqrt(var + eps) + beta
''',
          mistake="Takes the mean and variance over dim 0 (across the batch, like batch norm) instead of over the last dimension.",
          names_it=(("last dimension",), ("dim=-1",), ("axis",), ("batch",)),
          part="the normalisation axis"),
    Blind(name="an_no_residual", cell="add_norm", test_cell="check_add_norm",
          source='''def add_norm(x, sublayer_out, gamma, beta, eps=1e-5):
    """LayerNorm(x + sublayer_out) over the last dimension, with scale gamma and shift beta (d_model,)."""
    mu = sublayer_out.mean(-1, keepdim=True)
    var = sublayer_out.var(-1, unbiased=False, keepdim=True)
    return gamma * (sublayer_out - mu) / torch.sqrt(var + eps) + beta
''',
          mistake="Normalises only the sublayer's output; the residual x is never added.",
          names_it=(("residual",), ("x + sublayer_out",), ("skip",)),
          part="the residual connection"),
    Blind(name="an_keepdim_forgotten", cell="add_norm", test_cell="check_add_norm",
          source='''def add_norm(x, sublayer_out, gamma, beta, eps=1e-5):
    """LayerNorm(x + sublayer_out) over the last dimension, with scale gamma and shift beta (d_model,)."""
    y = x + sublayer_out
    mu = y.mean(-1)
    var = ((y - mu) ** 2).mean(-1)
    return gamma * (y - mu) / torch.sqrt(var + eps) + beta
''',
          mistake="Leaves out keepdim=True: the (..., ) mean broadcasts against the feature axis instead of per position, a shape error for typical sizes.",
          names_it=(("keepdim",), ("broadcast",)),
          part="keepdim"),
    Blind(name="an_gamma_beta_swapped", cell="add_norm", test_cell="check_add_norm",
          source='''def add_norm(x, sublayer_out, gamma, beta, eps=1e-5):
    """LayerNorm(x + sublayer_out) over the last dimension, with scale gamma and shift beta (d_model,)."""
    y = x + sublayer_out
    mu = y.mean(-1, keepdim=True)
    var = ((y - mu) ** 2).mean(-1, keepdim=True)
    return beta * (y - mu) / torch.sqrt(var + eps) + gamma
''',
          mistake="Scales by beta and shifts by gamma: the roles of the two are swapped.",
          names_it=(("gamma",), ("beta",), ("swapped",)),
          part="scale and shift"),
    Blind(name="an_in_place_argument", cell="add_norm", test_cell="check_add_norm",
          source='''def add_norm(x, sublayer_out, gamma, beta, eps=1e-5):
    """LayerNorm(x + sublayer_out) over the last dimension, with scale gamma and shift beta (d_model,)."""
    x += sublayer_out
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return gamma * (x - mu) / torch.sqrt(var + eps) + beta
''',
          mistake="Adds the sublayer output into x in place (x += ...), changing the caller's tensor (and failing on a leaf tensor that requires grad).",
          names_it=(("in place",), ("in-place",), ("changes x",), ("modif",)),
          part="changing the argument"),

    # ---------------------------------------------------------------- encoder_block
    Blind(name="eb_pre_norm", cell="encoder_block", test_cell="check_encoder_block",
          source='''def encoder_block(x, weights, num_heads, mask=None):
    """x (B, T, d_model) -> (B, T, d_model): self-attention, add & norm, feed-forward, add & norm."""
    zeros = torch.zeros_like(x)
    h = add_norm(x, zeros, weights["gamma_1"], weights["beta_1"])
    x = x + multi_head_attention(h, h, h, weights, num_heads, mask)
    h = add_norm(x, zeros, weights["gamma_2"], weights["beta_2"])
    ff = torch.relu(h @ weights["W_1"].T + weights["b_1"]) @ weights["W_2"].T + weights["b_2"]
    return x + ff
''',
          mistake="Builds a pre-norm block (normalise, sublayer, add) instead of the paper's post-norm LayerNorm(x + Sublayer(x)).",
          names_it=(("post-norm",), ("pre-norm",), ("after",)),
          part="where the LayerNorm sits"),
    Blind(name="eb_gelu", cell="encoder_block", test_cell="check_encoder_block",
          source='''def encoder_block(x, weights, num_heads, mask=None):
    """x (B, T, d_model) -> (B, T, d_model): self-attention, add & norm, feed-forward, add & norm."""
    x1 = add_norm(x, multi_head_attention(x, x, x, weights, num_heads, mask), weights["gamma_1"], weights["beta_1"])
    hidden = torch.nn.functional.gelu(x1 @ weights["W_1"].T + weights["b_1"])
    ffn = hidden @ weights["W_2"].T + weights["b_2"]
    return add_norm(x1, ffn, weights["gamma_2"], weights["beta_2"])
''',
          mistake="Uses GELU (BERT's activation) in the feed-forward network instead of ReLU, max(0, .).",
          names_it=(("relu",), ("gelu",), ("max(0",)),
          part="the feed-forward activation"),
    Blind(name="eb_second_residual_from_input", cell="encoder_block", test_cell="check_encoder_block",
          source='''def encoder_block(x, weights, num_heads, mask=None):
    """x (B, T, d_model) -> (B, T, d_model): self-attention, add & norm, feed-forward, add & norm."""
    attn = multi_head_attention(x, x, x, weights, num_heads, mask)
    x1 = add_norm(x, attn, weights["gamma_1"], weights["beta_1"])
    ffn = torch.relu(x1 @ weights["W_1"].T + weights["b_1"]) @ weights["W_2"].T + weights["b_2"]
    return add_norm(x, ffn, weights["gamma_2"], weights["beta_2"])
''',
          mistake="The second residual adds the FFN output to the block's input x instead of to x', the output of the first add & norm.",
          names_it=(("x'",), ("residual",), ("first add & norm",)),
          part="the second residual"),
    Blind(name="eb_mask_dropped", cell="encoder_block", test_cell="check_encoder_block",
          source='''def encoder_block(x, weights, num_heads, mask=None):
    """x (B, T, d_model) -> (B, T, d_model): self-attention, add & norm, feed-forward, add & norm."""
    x1 = add_norm(x, multi_head_attention(x, x, x, weights, num_heads), weights["gamma_1"], weights["beta_1"])
    ff = torch.relu(x1 @ weights["W_1"].T + weights["b_1"]) @ weights["W_2"].T + weights["b_2"]
    return add_norm(x1, ff, weights["gamma_2"], weights["beta_2"])
''',
          mistake="Never passes mask to multi_head_attention, so a causal mask is ignored.",
          names_it=(("mask",), ("causal",), ("masked",)),
          part="passing the mask"),
    Blind(name="eb_ffn_on_input", cell="encoder_block", test_cell="check_encoder_block",
          source='''def encoder_block(x, weights, num_heads, mask=None):
    """x (B, T, d_model) -> (B, T, d_model): self-attention, add & norm, feed-forward, add & norm."""
    x1 = add_norm(x, multi_head_attention(x, x, x, weights, num_heads, mask), weights["gamma_1"], weights["beta_1"])
    ff = torch.relu(x @ weights["W_1"].T + weights["b_1"]) @ weights["W_2"].T + weights["b_2"]
    return add_norm(x1, ff, weights["gamma_2"], weights["beta_2"])
''',
          mistake="Feeds the block's input x to the feed-forward network instead of x', the output of the attention sublayer.",
          names_it=(("x'",), ("ffn(x')",), ("input of the feed-forward",)),
          part="the feed-forward network's input"),
    Blind(name="eb_W1_not_transposed", cell="encoder_block", test_cell="check_encoder_block",
          source='''def encoder_block(x, weights, num_heads, mask=None):
    """x (B, T, d_model) -> (B, T, d_model): self-attention, add & norm, feed-forward, add & norm."""
    x1 = add_norm(x, multi_head_attention(x, x, x, weights, num_heads, mask), weights["gamma_1"], weights["beta_1"])
    ff = torch.relu(x1 @ weights["W_1"] + weights["b_1"]) @ weights["W_2"] + weights["b_2"]
    return add_norm(x1, ff, weights["gamma_2"], weights["beta_2"])
''',
          mistake="Multiplies by W_1 and W_2 without transposing; W_1 is (d_ff, d_model), so x' @ W_1 is a shape error.",
          names_it=(("transpose",), (".t",), ("(d_ff, d_model)",)),
          part="the feed-forward weights"),
    Blind(name="eb_norm_params_swapped", cell="encoder_block", test_cell="check_encoder_block",
          source='''def encoder_block(x, weights, num_heads, mask=None):
    """x (B, T, d_model) -> (B, T, d_model): self-attention, add & norm, feed-forward, add & norm."""
    a = multi_head_attention(x, x, x, weights, num_heads, mask)
    x1 = add_norm(x, a, weights["gamma_2"], weights["beta_2"])
    f = torch.relu(x1 @ weights["W_1"].T + weights["b_1"]) @ weights["W_2"].T + weights["b_2"]
    return add_norm(x1, f, weights["gamma_1"], weights["beta_1"])
''',
          mistake="Uses the second LayerNorm's gamma_2, beta_2 after the attention and the first one's after the feed-forward network.",
          names_it=(("gamma_1",), ("first layernorm",), ("swapped",)),
          part="which LayerNorm parameters"),
    Blind(name="eb_relu_on_output", cell="encoder_block", test_cell="check_encoder_block",
          source='''def encoder_block(x, weights, num_heads, mask=None):
    """x (B, T, d_model) -> (B, T, d_model): self-attention, add & norm, feed-forward, add & norm."""
    x1 = add_norm(x, multi_head_attention(x, x, x, weights, num_heads, mask), weights["gamma_1"], weights["beta_1"])
    h = torch.relu(x1 @ weights["W_1"].T + weights["b_1"])
    ff = torch.relu(h @ weights["W_2"].T + weights["b_2"])
    return add_norm(x1, ff, weights["gamma_2"], weights["beta_2"])
''',
          mistake="Applies a second ReLU after the feed-forward network's output layer; FFN(z) has the ReLU only between the two layers.",
          names_it=(("second relu",), ("relu", "output"), ("relu", "second layer"), ("only", "relu")),
          part="the feed-forward network"),

    # ---------------------------------------------------------------- sample_next
    Blind(name="sn_times_temperature", cell="sample_next", test_cell="check_sample_next",
          source='''def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    """logits (vocab,) or (batch, vocab) -> token ids () or (batch,), int64, drawn from softmax(logits / temperature)
    restricted to the top_k largest logits (None or 0: no restriction)."""
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    z = logits * temperature
    if top_k:
        if top_k > z.shape[-1]:
            raise ValueError("top_k is larger than the vocabulary")
        kth = torch.topk(z, top_k, dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float("-inf"))
    probs = torch.softmax(z, dim=-1)
    ids = torch.multinomial(probs.reshape(-1, probs.shape[-1]), 1, generator=generator)
    return ids.reshape(logits.shape[:-1])
''',
          mistake="Multiplies the logits by the temperature instead of dividing: T < 1 flattens and T > 1 sharpens, the opposite of what temperature does.",
          names_it=(("divid",), ("multipl",), ("z / t",)),
          part="applying the temperature"),
    Blind(name="sn_argmax", cell="sample_next", test_cell="check_sample_next",
          source='''def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    """logits (vocab,) or (batch, vocab) -> token ids () or (batch,), int64, drawn from softmax(logits / temperature)
    restricted to the top_k largest logits (None or 0: no restriction)."""
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    if top_k and top_k > logits.shape[-1]:
        raise ValueError("top_k larger than the vocabulary")
    probs = torch.softmax(logits / temperature, dim=-1)
    return probs.argmax(dim=-1)
''',
          mistake="Returns the most likely token (argmax) instead of drawing from the distribution: every draw is the same token.",
          names_it=(("argmax",), ("draw",), ("random",), ("sampl",)),
          part="drawing"),
    Blind(name="sn_topk_strictly_greater", cell="sample_next", test_cell="check_sample_next",
          source='''def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    """logits (vocab,) or (batch, vocab) -> token ids () or (batch,), int64, drawn from softmax(logits / temperature)
    restricted to the top_k largest logits (None or 0: no restriction)."""
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    z = logits / temperature
    if top_k:
        if top_k > z.shape[-1]:
            raise ValueError("top_k is larger than the vocabulary")
        kth = torch.sort(z, dim=-1, descending=True).values[..., top_k - 1:top_k]
        z = torch.where(z > kth, z, torch.full_like(z, float("-inf")))
    probs = torch.softmax(z, dim=-1)
    flat = probs.reshape(-1, probs.shape[-1])
    return torch.multinomial(flat, 1, generator=generator).reshape(logits.shape[:-1])
''',
          mistake="Keeps only the logits strictly greater than the k-th largest, so the k-th itself (and any tie with it) is dropped: only k - 1 tokens survive.",
          names_it=(("greater than or equal",), (">=",), ("k-th",), ("k - 1",)),
          part="the top-k comparison"),
    Blind(name="sn_topk_drops_ties", cell="sample_next", test_cell="check_sample_next",
          source='''def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    """logits (vocab,) or (batch, vocab) -> token ids () or (batch,), int64, drawn from softmax(logits / temperature)
    restricted to the top_k largest logits (None or 0: no restriction)."""
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    z = logits / temperature
    if top_k:
        if top_k > z.shape[-1]:
            raise ValueError("top_k is larger than the vocabulary")
        idx = torch.topk(z, top_k, dim=-1).indices
        keep = torch.zeros_like(z, dtype=torch.bool).scatter(-1, idx, True)
        z = z.masked_fill(~keep, float("-inf"))
    probs = torch.softmax(z, dim=-1)
    ids = torch.multinomial(probs.reshape(-1, z.shape[-1]), 1, generator=generator)
    return ids.reshape(logits.shape[:-1])
''',
          mistake="Keeps exactly the k indices torch.topk returns, so logits tied with the k-th largest are dropped arbitrarily instead of all kept.",
          names_it=(("tie",), ("equal",), ("greater than or equal",)),
          part="ties at the k-th logit"),
    Blind(name="sn_multinomial_on_logits", cell="sample_next", test_cell="check_sample_next",
          source='''def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    """logits (vocab,) or (batch, vocab) -> token ids () or (batch,), int64, drawn from softmax(logits / temperature)
    restricted to the top_k largest logits (None or 0: no restriction)."""
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    z = logits / temperature
    if top_k:
        if top_k > z.shape[-1]:
            raise ValueError("top_k is larger than the vocabulary")
        kth = torch.sort(z, dim=-1, descending=True).values[..., top_k - 1, None]
        z = z.masked_fill(z < kth, 0.0)
    ids = torch.multinomial(z.reshape(-1, z.shape[-1]), 1, generator=generator)
    return ids.reshape(logits.shape[:-1])
''',
          mistake="Passes the (scaled) logits to torch.multinomial instead of the softmax probabilities: negative logits make it raise 'invalid multinomial distribution', and the weights are not exp(z).",
          names_it=(("softmax",), ("probabilities",), ("negative",)),
          part="turning logits into probabilities"),
    Blind(name="sn_no_temperature_check", cell="sample_next", test_cell="check_sample_next",
          source='''def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    """logits (vocab,) or (batch, vocab) -> token ids () or (batch,), int64, drawn from softmax(logits / temperature)
    restricted to the top_k largest logits (None or 0: no restriction)."""
    z = logits / temperature
    if top_k:
        if top_k > z.shape[-1]:
            raise ValueError("top_k is larger than the vocabulary")
        kth = torch.sort(z, dim=-1, descending=True).values[..., top_k - 1:top_k]
        z = z.masked_fill(z < kth, float("-inf"))
    probs = torch.softmax(z, dim=-1)
    ids = torch.multinomial(probs.reshape(-1, probs.shape[-1]), 1, generator=generator)
    return ids.reshape(logits.shape[:-1])
''',
          mistake="Never raises ValueError for temperature <= 0: temperature 0 divides by zero, and a negative temperature silently inverts the distribution.",
          names_it=(("valueerror",), ("temperature <= 0",), ("temperature", "raise")),
          part="validating the temperature"),
    Blind(name="sn_in_place", cell="sample_next", test_cell="check_sample_next",
          source='''def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    """logits (vocab,) or (batch, vocab) -> token ids () or (batch,), int64, drawn from softmax(logits / temperature)
    restricted to the top_k largest logits (None or 0: no restriction)."""
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    if top_k and top_k > logits.shape[-1]:
        raise ValueError("top_k is larger than the vocabulary")
    logits /= temperature
    if top_k:
        kth = torch.sort(logits, dim=-1, descending=True).values[..., top_k - 1:top_k]
        logits[logits < kth] = float("-inf")
    probs = torch.softmax(logits, dim=-1)
    ids = torch.multinomial(probs.reshape(-1, probs.shape[-1]), 1, generator=generator)
    return ids.reshape(probs.shape[:-1])
''',
          mistake="Divides and masks the logits in place (logits /= temperature, logits[...] = -inf), changing the caller's tensor.",
          names_it=(("in place",), ("in-place",), ("modif",), ("changes the logits",)),
          part="changing the argument"),
    Blind(name="sn_single_row_shape", cell="sample_next", test_cell="check_sample_next",
          source='''def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    """logits (vocab,) or (batch, vocab) -> token ids () or (batch,), int64, drawn from softmax(logits / temperature)
    restricted to the top_k largest logits (None or 0: no restriction)."""
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    z = logits / temperature
    if top_k:
        if top_k > z.shape[-1]:
            raise ValueError("top_k is larger than the vocabulary")
        kth = torch.sort(z, dim=-1, descending=True).values[..., top_k - 1:top_k]
        z = z.masked_fill(z < kth, float("-inf"))
    probs = torch.softmax(z, dim=-1)
    if probs.dim() == 1:
        return torch.multinomial(probs, 1, generator=generator)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
''',
          mistake="For a single (vocab,) row it returns a tensor of shape (1,) instead of a 0-dimensional id.",
          names_it=(("0-dimensional",), ("0-d",), ("scalar",), ("shape (1,)",)),
          part="the shape for a single row"),
    Blind(name="sn_softmax_over_batch", cell="sample_next", test_cell="check_sample_next",
          source='''def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    """logits (vocab,) or (batch, vocab) -> token ids () or (batch,), int64, drawn from softmax(logits / temperature)
    restricted to the top_k largest logits (None or 0: no restriction)."""
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    z = logits / temperature
    if top_k:
        if top_k > z.shape[-1]:
            raise ValueError("top_k is larger than the vocabulary")
        kth = torch.sort(z, dim=-1, descending=True).values[..., top_k - 1:top_k]
        z = z.masked_fill(z < kth, float("-inf"))
    probs = torch.softmax(z, dim=0)
    if probs.dim() == 1:
        return torch.multinomial(probs, 1, generator=generator)[0]
    return torch.multinomial(probs, 1, generator=generator)[:, 0]
''',
          mistake="Takes the softmax over dim 0, which for a (batch, vocab) tensor normalises across the batch instead of over each row's vocabulary.",
          names_it=(("dim=-1",), ("each row",), ("axis",), ("batch",)),
          part="the softmax axis"),
    Blind(name="sn_ignores_generator", cell="sample_next", test_cell="check_sample_next",
          source='''def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    """logits (vocab,) or (batch, vocab) -> token ids () or (batch,), int64, drawn from softmax(logits / temperature)
    restricted to the top_k largest logits (None or 0: no restriction)."""
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    z = logits / temperature
    if top_k:
        if top_k > z.shape[-1]:
            raise ValueError("top_k is larger than the vocabulary")
        kth = torch.sort(z, dim=-1, descending=True).values[..., top_k - 1:top_k]
        z = z.masked_fill(z < kth, float("-inf"))
    probs = torch.softmax(z, dim=-1)
    ids = torch.multinomial(probs.reshape(-1, probs.shape[-1]), 1)
    return ids.reshape(logits.shape[:-1])
''',
          mistake="Draws with torch.multinomial without passing generator, so two generators seeded alike do not give the same ids.",
          names_it=(("generator",), ("seed",)),
          part="using the generator"),
    Blind(name="sn_top_k_zero_crash", cell="sample_next", test_cell="check_sample_next",
          source='''def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    """logits (vocab,) or (batch, vocab) -> token ids () or (batch,), int64, drawn from softmax(logits / temperature)
    restricted to the top_k largest logits (None or 0: no restriction)."""
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    z = logits / temperature
    if top_k is not None:
        if top_k > z.shape[-1]:
            raise ValueError("top_k is larger than the vocabulary")
        kth = torch.topk(z, top_k, dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float("-inf"))
    probs = torch.softmax(z, dim=-1)
    ids = torch.multinomial(probs.reshape(-1, probs.shape[-1]), 1, generator=generator)
    return ids.reshape(logits.shape[:-1])
''',
          mistake="Tests `top_k is not None` only, so top_k = 0 (which means no restriction) calls topk with k = 0 and indexing the empty result fails.",
          names_it=(("top_k = 0",), ("top_k=0",), ("0 means",), ("no restriction",)),
          part="top_k = 0"),
    Blind(name="sn_kth_index_off_by_one", cell="sample_next", test_cell="check_sample_next",
          source='''def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    """logits (vocab,) or (batch, vocab) -> token ids () or (batch,), int64, drawn from softmax(logits / temperature)
    restricted to the top_k largest logits (None or 0: no restriction)."""
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    z = logits / temperature
    if top_k:
        if top_k > z.shape[-1]:
            raise ValueError("top_k is larger than the vocabulary")
        sorted_z = torch.sort(z, dim=-1, descending=True).values
        kth = sorted_z[..., min(top_k, z.shape[-1] - 1)].unsqueeze(-1)
        z = z.masked_fill(z < kth, float("-inf"))
    probs = torch.softmax(z, dim=-1)
    ids = torch.multinomial(probs.reshape(-1, probs.shape[-1]), 1, generator=generator)
    return ids.reshape(logits.shape[:-1])
''',
          mistake="Takes the k-th largest as sorted[..., top_k] (0-based index k, the (k+1)-th largest), so one token too many survives top-k.",
          names_it=(("top_k - 1",), ("k + 1",), ("one too many",), ("off by one",)),
          part="the k-th largest logit"),
    Blind(name="sn_topk_too_large_not_raised", cell="sample_next", test_cell="check_sample_next",
          source='''def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    """logits (vocab,) or (batch, vocab) -> token ids () or (batch,), int64, drawn from softmax(logits / temperature)
    restricted to the top_k largest logits (None or 0: no restriction)."""
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    z = logits / temperature
    if top_k:
        k = min(top_k, z.shape[-1])
        kth = torch.topk(z, k, dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float("-inf"))
    probs = torch.softmax(z, dim=-1)
    ids = torch.multinomial(probs.reshape(-1, probs.shape[-1]), 1, generator=generator)
    return ids.reshape(logits.shape[:-1])
''',
          mistake="Silently caps top_k at the vocabulary size instead of raising a ValueError when top_k is larger than the vocabulary.",
          names_it=(("valueerror",), ("larger than the vocabulary",), ("raise",)),
          part="validating top_k"),
]

VALID = [
    Blind(name="valid_pe_exp_log", cell="positional_encoding", test_cell="check_positional_encoding",
          source='''def positional_encoding(max_len, d_model):
    """The sinusoidal table: (max_len, d_model), PE[pos, 2i] = sin(pos * w_i), PE[pos, 2i+1] = cos(pos * w_i)."""
    position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)
    div = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(10000.0) / d_model))
    angles = position * div                               # (max_len, d_model / 2)
    pe = torch.stack([torch.sin(angles), torch.cos(angles)], dim=-1).reshape(max_len, d_model)
    return pe.float()
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_mha_einsum", cell="multi_head_attention", test_cell="check_multi_head_attention",
          source='''def multi_head_attention(query, key, value, weights, num_heads, mask=None):
    """query (B, T_q, d_model), key and value (B, T_k, d_model) -> (B, T_q, d_model)."""
    B, T_q, d_model = query.shape
    T_k = key.shape[1]
    h = num_heads
    d_head = d_model // h
    q = torch.nn.functional.linear(query, weights["W_q"], weights["b_q"]).reshape(B, T_q, h, d_head)
    k = torch.nn.functional.linear(key, weights["W_k"], weights["b_k"]).reshape(B, T_k, h, d_head)
    v = torch.nn.functional.linear(value, weights["W_v"], weights["b_v"]).reshape(B, T_k, h, d_head)
    scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(d_head)
    if mask is not None:
        m = mask if mask.dim() == 2 else mask[:, None, :, :]
        scores = torch.where(m, scores, torch.tensor(float("-inf"), dtype=scores.dtype, device=scores.device))
    attn = torch.softmax(scores, dim=-1)
    out = torch.einsum("bhqk,bkhd->bqhd", attn, v).reshape(B, T_q, d_model)
    return torch.nn.functional.linear(out, weights["W_o"], weights["b_o"])
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_module_dict_comprehension", cell="MultiHeadAttention", test_cell="check_MultiHeadAttention",
          source='''class MultiHeadAttention(nn.Module):
    """Multi-head attention with trainable projections q_proj, k_proj, v_proj, out_proj (each d_model -> d_model)."""

    def __init__(self, d_model, num_heads):
        super().__init__()
        assert d_model % num_heads == 0
        self.num_heads = num_heads
        self.q_proj, self.k_proj = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)
        self.v_proj, self.out_proj = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        layers = {"q": self.q_proj, "k": self.k_proj, "v": self.v_proj, "o": self.out_proj}
        weights = {}
        for short, layer in layers.items():
            weights[f"W_{short}"], weights[f"b_{short}"] = layer.weight, layer.bias
        return multi_head_attention(query, key, value, weights, num_heads=self.num_heads, mask=mask)
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_add_norm_var_biased", cell="add_norm", test_cell="check_add_norm",
          source='''def add_norm(x, sublayer_out, gamma, beta, eps=1e-5):
    """LayerNorm(x + sublayer_out) over the last dimension, with scale gamma and shift beta (d_model,)."""
    y = x + sublayer_out
    var, mean = torch.var_mean(y, dim=-1, unbiased=False, keepdim=True)
    return (y - mean) * torch.rsqrt(var + eps) * gamma + beta
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_encoder_named_steps", cell="encoder_block", test_cell="check_encoder_block",
          source='''def encoder_block(x, weights, num_heads, mask=None):
    """x (B, T, d_model) -> (B, T, d_model): self-attention, add & norm, feed-forward, add & norm."""
    w = weights
    attended = multi_head_attention(x, x, x, w, num_heads, mask=mask)
    x = add_norm(x, attended, w["gamma_1"], w["beta_1"])
    hidden = torch.clamp(torch.nn.functional.linear(x, w["W_1"], w["b_1"]), min=0)
    return add_norm(x, torch.nn.functional.linear(hidden, w["W_2"], w["b_2"]), w["gamma_2"], w["beta_2"])
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_sample_gumbel", cell="sample_next", test_cell="check_sample_next",
          source='''def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    """logits (vocab,) or (batch, vocab) -> token ids () or (batch,), int64, drawn from softmax(logits / temperature)
    restricted to the top_k largest logits (None or 0: no restriction)."""
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    vocab = logits.shape[-1]
    if top_k is not None and top_k > vocab:
        raise ValueError(f"top_k = {top_k} is larger than the vocabulary ({vocab})")
    z = logits.double() / temperature
    if top_k:
        kth = z.sort(dim=-1, descending=True).values[..., top_k - 1].unsqueeze(-1)
        z = torch.where(z >= kth, z, torch.full_like(z, -math.inf))
    u = torch.rand(z.shape, generator=generator, dtype=torch.float64, device=z.device)
    gumbel = -torch.log(-torch.log(u.clamp_min(1e-300)))
    return (z + gumbel).argmax(dim=-1)
''',
          mistake="", names_it=(), part=""),
]

# The same valid answers in blind_case.py's ALTERNATIVES layout ({style: {answer_cell: source}}).
ALTERNATIVES = {case.name: {case.cell: case.source} for case in VALID}
