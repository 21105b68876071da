"""Third blind set for notebook 02 (feed-forward LM), written from the student notebook only."""
from blind_case import Blind

NOTEBOOK = "02_ffnn_lm"

_INPLACE = (("modif",), ("in place",), ("in-place",), ("mutat",), ("caller",))


def _ffnn(body):
    return ('''def ffnn_forward(idx, params):
    """Logits (B, V) of Bengio's feed-forward LM for contexts idx (B, n-1)."""
''' + body)


def _ce(body):
    return ('''def cross_entropy(logits, targets):
    """Mean over the batch of -log softmax(logits)[target], numerically stable."""
''' + body)


def _nn(body):
    return ('''def nearest_neighbours(E, word_id, k):
    """The k word ids whose embeddings are most cosine-similar to E[word_id], most similar first."""
''' + body)


BLIND = [
    # ---- make_windows
    Blind(name="windows_no_eos", cell="make_windows", test_cell="check_make_windows",
          source='''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    padded = [bos_id] * context_size + list(ids)
    return [(tuple(padded[i:i + context_size]), padded[i + context_size]) for i in range(len(ids))]
''',
          mistake="no </s> target: T examples instead of T + 1",
          names_it=(("</s>",), ("eos",), ("t + 1",), ("end symbol",), ("last example",)),
          part="the final </s> example"),
    Blind(name="windows_list_context", cell="make_windows", test_cell="check_make_windows",
          source='''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    padded = [bos_id] * context_size + list(ids) + [eos_id]
    return [(padded[i:i + context_size], padded[i + context_size]) for i in range(len(ids) + 1)]
''',
          mistake="contexts are lists, not tuples",
          names_it=(("tuple",),),
          part="the context's type"),
    Blind(name="windows_short_padding", cell="make_windows", test_cell="check_make_windows",
          source='''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    padded = [bos_id] * (context_size - 1) + list(ids) + [eos_id]
    return [(tuple(padded[i:i + context_size]), padded[i + context_size]) for i in range(len(padded) - context_size)]
''',
          mistake="pads with context_size - 1 start symbols (the n - 1 of notebook 01), so the first word is never a target",
          names_it=(("<s>",), ("bos",), ("start symbol",), ("first word",), ("t + 1",)),
          part="the number of <s>"),
    Blind(name="windows_pads_in_place", cell="make_windows", test_cell="check_make_windows",
          source='''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    ids[:0] = [bos_id] * context_size
    ids.append(eos_id)
    return [(tuple(ids[i:i + context_size]), ids[i + context_size]) for i in range(len(ids) - context_size)]
''',
          mistake="pads the caller's list of ids in place: the windows are right but the sentence is changed",
          names_it=_INPLACE + (("changed", "ids"), ("changed", "sentence")),
          part="the caller's ids padded in place"),
    Blind(name="windows_global_bos_eos", cell="make_windows", test_cell="check_make_windows",
          source='''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    padded = [BOS] * context_size + list(ids) + [EOS]
    return [(tuple(padded[i:i + context_size]), padded[i + context_size]) for i in range(len(ids) + 1)]
''',
          mistake="uses the notebook's BOS and EOS globals instead of the bos_id and eos_id arguments",
          names_it=(("bos_id",), ("eos_id",), ("argument",), ("global",)),
          part="globals BOS/EOS instead of the arguments"),
    Blind(name="windows_reversed_context", cell="make_windows", test_cell="check_make_windows",
          source='''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    padded = [bos_id] * context_size + list(ids) + [eos_id]
    out = []
    for i in range(context_size, len(padded)):
        context = tuple(padded[i - j] for j in range(1, context_size + 1))   # previous word first
        out.append((context, padded[i]))
    return out
''',
          mistake="the context is in reverse order (the most recent word first)",
          names_it=(("order",), ("reverse",), ("backwards",)),
          part="the order of the context words"),
    # ---- one_hot
    Blind(name="one_hot_int_dtype", cell="one_hot", test_cell="check_one_hot",
          source='''def one_hot(ids, vocab_size):
    """(..., vocab_size) float32 tensor: 1.0 at each id, 0.0 elsewhere."""
    out = torch.zeros(*ids.shape, vocab_size, dtype=ids.dtype, device=ids.device)
    out.scatter_(-1, ids.unsqueeze(-1), 1)
    return out
''',
          mistake="the result has the ids' integer dtype, not float32",
          names_it=(("float32",), ("dtype",), ("float",)),
          part="the dtype"),
    Blind(name="one_hot_only_1d", cell="one_hot", test_cell="check_one_hot",
          source='''def one_hot(ids, vocab_size):
    """(..., vocab_size) float32 tensor: 1.0 at each id, 0.0 elsewhere."""
    flat = ids.reshape(-1)
    out = torch.zeros(len(flat), vocab_size, dtype=torch.float32, device=ids.device)
    out[torch.arange(len(flat)), flat] = 1.0
    return out
''',
          mistake="flattens the ids and never restores their shape: a 2-D batch gives (B*T, V) instead of (B, T, V)",
          names_it=(("shape",), ("2-d",), ("2d",), ("ids.shape",)),
          part="the output shape for 2-D ids"),
    Blind(name="one_hot_width_from_max", cell="one_hot", test_cell="check_one_hot",
          source='''def one_hot(ids, vocab_size):
    """(..., vocab_size) float32 tensor: 1.0 at each id, 0.0 elsewhere."""
    width = int(ids.max()) + 1
    out = torch.zeros(*ids.shape, width, dtype=torch.float32, device=ids.device)
    out.scatter_(-1, ids.unsqueeze(-1), 1.0)
    return out
''',
          mistake="sizes the last axis by the largest id + 1 instead of vocab_size",
          names_it=(("vocab_size",), ("shape",), ("last axis",), ("width",)),
          part="the last dimension's size"),
    # ---- ffnn_forward
    Blind(name="ffnn_relu", cell="ffnn_forward", test_cell="check_ffnn_forward",
          source=_ffnn('''    x = params["C"][idx].reshape(idx.shape[0], -1)
    y = params["b"] + torch.relu(params["d"] + x @ params["H"].T) @ params["U"].T
    if params["W"] is not None:
        y = y + x @ params["W"].T
    return y
'''),
          mistake="uses relu instead of tanh in the hidden layer",
          names_it=(("tanh",),),
          part="the hidden activation"),
    Blind(name="ffnn_no_direct", cell="ffnn_forward", test_cell="check_ffnn_forward",
          source=_ffnn('''    x = params["C"][idx].reshape(idx.shape[0], -1)
    return params["b"] + torch.tanh(params["d"] + x @ params["H"].T) @ params["U"].T
'''),
          mistake="never adds the direct connections W x, even when W is given",
          names_it=(("direct",), ("wx",), ("w x",), ("w is",)),
          part="the direct connections"),
    Blind(name="ffnn_probabilities", cell="ffnn_forward", test_cell="check_ffnn_forward",
          source=_ffnn('''    x = params["C"][idx].reshape(idx.shape[0], -1)
    y = params["b"] + torch.tanh(params["d"] + x @ params["H"].T) @ params["U"].T
    if params["W"] is not None:
        y = y + x @ params["W"].T
    return torch.softmax(y, dim=-1)
'''),
          mistake="returns softmax probabilities instead of the logits",
          names_it=(("logit",), ("probabilit",), ("softmax",)),
          part="softmax applied to the output"),
    Blind(name="ffnn_bias_after_tanh", cell="ffnn_forward", test_cell="check_ffnn_forward",
          source=_ffnn('''    x = params["C"][idx].reshape(idx.shape[0], -1)
    hidden = torch.tanh(x @ params["H"].T) + params["d"]
    y = params["b"] + hidden @ params["U"].T
    if params["W"] is not None:
        y = y + x @ params["W"].T
    return y
'''),
          mistake="adds the hidden bias d after the tanh instead of inside it",
          names_it=(("bias",), ("inside",), ("before the tanh",), ("d + hx",)),
          part="where d is added"),
    Blind(name="ffnn_interleaved_concat", cell="ffnn_forward", test_cell="check_ffnn_forward",
          source=_ffnn('''    emb = params["C"][idx]                       # (B, n-1, m)
    x = emb.transpose(1, 2).reshape(idx.shape[0], -1)
    y = params["b"] + torch.tanh(params["d"] + x @ params["H"].T) @ params["U"].T
    if params["W"] is not None:
        y = y + x @ params["W"].T
    return y
'''),
          mistake="concatenates the embeddings feature by feature (transposed before flattening) instead of word after word",
          names_it=(("concat",), ("order",), ("one after",), ("x =",)),
          part="the order of the concatenated embeddings"),
    Blind(name="ffnn_global_context", cell="ffnn_forward", test_cell="check_ffnn_forward",
          source=_ffnn('''    m = params["C"].shape[1]
    x = params["C"][idx].reshape(-1, CONTEXT * m)
    y = params["b"] + torch.tanh(params["d"] + x @ params["H"].T) @ params["U"].T
    if params["W"] is not None:
        y = y + x @ params["W"].T
    return y
'''),
          mistake="reshapes with the notebook's CONTEXT = 5 instead of the context length of idx",
          names_it=(("context",), ("n-1",), ("n - 1",), ("global",)),
          part="a global CONTEXT instead of idx.shape[1]"),
    Blind(name="ffnn_tanh_on_output", cell="ffnn_forward", test_cell="check_ffnn_forward",
          source=_ffnn('''    x = params["C"][idx].reshape(idx.shape[0], -1)
    y = params["b"] + torch.tanh(params["d"] + x @ params["H"].T) @ params["U"].T
    if params["W"] is not None:
        y = y + x @ params["W"].T
    return torch.tanh(y)
'''),
          mistake="squashes the logits with a tanh as well",
          names_it=(("tanh",), ("logit",), ("output",)),
          part="a tanh on the output layer"),
    # ---- cross_entropy
    Blind(name="ce_global_max", cell="cross_entropy", test_cell="check_cross_entropy",
          source=_ce('''    m = logits.max()
    lse = m + torch.log(torch.exp(logits - m).sum(dim=1))
    return (lse - logits[torch.arange(logits.shape[0]), targets]).mean()
'''),
          mistake="subtracts one global maximum instead of each row's: a row hundreds below the others underflows to log 0",
          names_it=(("each row",), ("per row",), ("row's max",), ("row max",), ("global max",), ("underflow",)),
          part="the max subtracted for stability"),
    Blind(name="ce_in_place_shift", cell="cross_entropy", test_cell="check_cross_entropy",
          source=_ce('''    logits -= logits.max(dim=1, keepdim=True).values
    lse = torch.log(torch.exp(logits).sum(dim=1))
    return (lse - logits[torch.arange(logits.shape[0]), targets]).mean()
'''),
          mistake="subtracts the row maxima from the caller's logits in place; the loss is right but the logits are changed",
          names_it=_INPLACE + (("changed", "logits"),),
          part="the caller's logits shifted in place"),
    Blind(name="ce_sum", cell="cross_entropy", test_cell="check_cross_entropy",
          source=_ce('''    m = logits.max(dim=1, keepdim=True).values
    lse = m.squeeze(1) + torch.log(torch.exp(logits - m).sum(dim=1))
    return (lse - logits[torch.arange(logits.shape[0]), targets]).sum()
'''),
          mistake="sums the loss over the batch instead of taking the mean",
          names_it=(("mean",), ("sum",), ("average",)),
          part="mean vs sum over the batch"),
    Blind(name="ce_naive", cell="cross_entropy", test_cell="check_cross_entropy",
          source=_ce('''    lse = torch.log(torch.exp(logits).sum(dim=1))
    return (lse - logits[torch.arange(logits.shape[0]), targets]).mean()
'''),
          mistake="no max subtracted: exp overflows for logits around 1000",
          names_it=(("1000",), ("overflow",), ("max",), ("stable",), ("inf",), ("nan",)),
          part="the log-sum-exp trick"),
    Blind(name="ce_column_pick", cell="cross_entropy", test_cell="check_cross_entropy",
          source=_ce('''    m = logits.max(dim=1, keepdim=True).values
    lse = m + torch.log(torch.exp(logits - m).sum(dim=1, keepdim=True))   # (B, 1)
    return (lse - logits[:, targets]).mean()
'''),
          mistake="logits[:, targets] takes every row's logit at every target (a B x B matrix), not each row's own target",
          names_it=(("target",), ("each row",), ("own",), ("arange",)),
          part="the target logit picked"),
    Blind(name="ce_max_not_added_back", cell="cross_entropy", test_cell="check_cross_entropy",
          source=_ce('''    shifted = logits - logits.max(dim=1, keepdim=True).values
    lse = torch.log(torch.exp(shifted).sum(dim=1))
    return (lse - logits[torch.arange(logits.shape[0]), targets]).mean()
'''),
          mistake="subtracts the max inside the exp but never adds it back (mixes shifted and unshifted logits)",
          names_it=(("max",), ("add", "back"), ("log-sum-exp",), ("logsumexp",)),
          part="the max added back"),
    # ---- nearest_neighbours
    Blind(name="nn_dot_product", cell="nearest_neighbours", test_cell="check_nearest_neighbours",
          source=_nn('''    sims = E @ E[word_id]
    sims[word_id] = -float("inf")
    return sims.argsort(descending=True)[:k].tolist()
'''),
          mistake="ranks by the dot product, not the cosine: long vectors win",
          names_it=(("cosine",), ("length",), ("norm",), ("dot product",)),
          part="similarity not normalised"),
    Blind(name="nn_includes_self", cell="nearest_neighbours", test_cell="check_nearest_neighbours",
          source=_nn('''    unit = E / E.norm(dim=1, keepdim=True)
    sims = unit @ unit[word_id]
    return sims.argsort(descending=True)[:k].tolist()
'''),
          mistake="does not leave out word_id itself, which is always its own nearest neighbour",
          names_it=(("itself",), ("word_id",), ("own",), ("without",)),
          part="the word itself not excluded"),
    Blind(name="nn_ascending", cell="nearest_neighbours", test_cell="check_nearest_neighbours",
          source=_nn('''    unit = E / E.norm(dim=1, keepdim=True)
    sims = unit @ unit[word_id]
    order = [i for i in sims.argsort().tolist() if i != word_id]
    return order[:k]
'''),
          mistake="sorts in ascending order: returns the least similar words",
          names_it=(("most similar",), ("descending",), ("order",), ("least",)),
          part="the sort direction"),
    Blind(name="nn_normalises_in_place", cell="nearest_neighbours", test_cell="check_nearest_neighbours",
          source=_nn('''    E /= E.norm(dim=1, keepdim=True)
    sims = E @ E[word_id]
    sims[word_id] = -float("inf")
    return sims.argsort(descending=True)[:k].tolist()
'''),
          mistake="normalises the caller's embedding table in place; the neighbours are right but E is changed",
          names_it=_INPLACE + (("changed", "e"), ("embedding", "changed")),
          part="the caller's E normalised in place"),
    Blind(name="nn_normalise_columns", cell="nearest_neighbours", test_cell="check_nearest_neighbours",
          source=_nn('''    unit = E / E.norm(dim=0, keepdim=True)
    sims = unit @ unit[word_id]
    sims[word_id] = -float("inf")
    return sims.argsort(descending=True)[:k].tolist()
'''),
          mistake="normalises the columns (dim=0) instead of each word's row",
          names_it=(("cosine",), ("row",), ("norm",), ("axis",), ("dim",)),
          part="the normalisation axis"),
    Blind(name="nn_drop_first", cell="nearest_neighbours", test_cell="check_nearest_neighbours",
          source=_nn('''    unit = E / E.norm(dim=1, keepdim=True)
    sims = unit @ unit[word_id]
    return sims.topk(k + 1).indices[1:].tolist()      # the first one is the word itself
'''),
          mistake="drops the first of the top k + 1 assuming it is word_id; when another row points the same way, word_id itself can be returned",
          names_it=(("itself",), ("word_id",), ("duplicate",), ("tie",), ("same direction",)),
          part="excluding the word by position"),
]

ALTERNATIVES = {
    "loops": {
        "make_windows": '''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    context = [bos_id] * context_size
    windows = []
    for target in list(ids) + [eos_id]:
        windows.append((tuple(context), target))
        context = context[1:] + [target]
    return windows
''',
        "one_hot": '''def one_hot(ids, vocab_size):
    """(..., vocab_size) float32 tensor: 1.0 at each id, 0.0 elsewhere."""
    out = torch.zeros(ids.numel(), vocab_size, dtype=torch.float32, device=ids.device)
    for row, i in enumerate(ids.reshape(-1).tolist()):
        out[row, i] = 1.0
    return out.reshape(*ids.shape, vocab_size)
''',
        "ffnn_forward": _ffnn('''    C, H, d, U, b, W = (params[key] for key in ("C", "H", "d", "U", "b", "W"))
    x = torch.cat([C[idx[:, j]] for j in range(idx.shape[1])], dim=1)
    y = b + torch.tanh(d + x @ H.T) @ U.T
    if W is not None:
        y = y + x @ W.T
    return y
'''),
        "cross_entropy": _ce('''    losses = []
    for row, t in zip(logits, targets):
        m = row.max()
        losses.append(m + torch.log(torch.exp(row - m).sum()) - row[t])
    return torch.stack(losses).mean()
'''),
        "nearest_neighbours": _nn('''    target = E[word_id]
    scores = []
    for i in range(E.shape[0]):
        if i == word_id:
            continue
        cos = float(E[i] @ target) / (float(E[i].norm()) * float(target.norm()))
        scores.append((cos, i))
    scores.sort(key=lambda pair: -pair[0])
    return [i for _, i in scores[:k]]
'''),
    },
    "torch_builtins": {
        "make_windows": '''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    padded = [bos_id] * context_size + [int(i) for i in ids] + [eos_id]
    return [(tuple(padded[t - context_size:t]), padded[t]) for t in range(context_size, len(padded))]
''',
        "one_hot": '''def one_hot(ids, vocab_size):
    """(..., vocab_size) float32 tensor: 1.0 at each id, 0.0 elsewhere."""
    return torch.eye(vocab_size, dtype=torch.float32, device=ids.device)[ids]
''',
        "ffnn_forward": _ffnn('''    x = F.embedding(idx, params["C"]).flatten(start_dim=1)
    y = F.linear(torch.tanh(F.linear(x, params["H"], params["d"])), params["U"], params["b"])
    if params.get("W") is not None:
        y = y + F.linear(x, params["W"])
    return y
'''),
        "cross_entropy": _ce('''    m = logits.max(dim=-1, keepdim=True).values
    log_probs = logits - m - torch.log(torch.exp(logits - m).sum(dim=-1, keepdim=True))
    return -log_probs.gather(1, targets.unsqueeze(1)).mean()
'''),
        "nearest_neighbours": _nn('''    sims = F.cosine_similarity(E, E[word_id].unsqueeze(0), dim=1)
    sims[word_id] = float("-inf")
    return torch.topk(sims, k).indices
'''),
    },
    "einsum_and_masks": {
        "make_windows": '''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    seq = (bos_id,) * context_size + tuple(ids) + (eos_id,)
    return list(zip((seq[i:i + context_size] for i in range(len(seq) - context_size)), seq[context_size:]))
''',
        "one_hot": '''def one_hot(ids, vocab_size):
    """(..., vocab_size) float32 tensor: 1.0 at each id, 0.0 elsewhere."""
    return (ids.unsqueeze(-1) == torch.arange(vocab_size, device=ids.device)).to(torch.float32)
''',
        "ffnn_forward": _ffnn('''    B = idx.shape[0]
    x = params["C"][idx].view(B, -1)
    h = torch.tanh(torch.einsum("bi,hi->bh", x, params["H"]) + params["d"])
    y = torch.einsum("bh,vh->bv", h, params["U"]) + params["b"]
    W = params["W"]
    return y if W is None else y + torch.einsum("bi,vi->bv", x, W)
'''),
        "cross_entropy": _ce('''    B = logits.shape[0]
    m = logits.amax(dim=1)
    lse = m + (logits - m[:, None]).exp().sum(dim=1).log()
    mask = torch.zeros_like(logits, dtype=torch.bool)
    mask[torch.arange(B), targets] = True
    return (lse - logits[mask]).mean()
'''),
        "nearest_neighbours": _nn('''    unit = E / E.norm(dim=1, keepdim=True)
    sims = torch.einsum("vm,m->v", unit, unit[word_id])
    keep = torch.arange(E.shape[0]) != word_id
    ids = torch.arange(E.shape[0])[keep]
    return ids[sims[keep].argsort(descending=True)[:k]].tolist()
'''),
    },
}
