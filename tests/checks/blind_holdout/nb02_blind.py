"""Blind cases for notebook 02 (the feed-forward LM), written without reading the checks."""
from blind_case import Blind

NOTEBOOK = "02_ffnn_lm"

BLIND = [
    # ---------------------------------------------------------------- make_windows
    Blind(
        name="windows_no_eos",
        cell="make_windows",
        source='''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    padded = [bos_id] * context_size + list(ids)
    pairs = []
    for t in range(context_size, len(padded)):
        pairs.append((tuple(padded[t - context_size:t]), padded[t]))
    return pairs
''',
        test_cell="check_make_windows",
        mistake="Forgot to append </s> at the end of the sentence, so the last example (predicting the end "
                "of the sentence) is missing: T examples instead of T + 1.",
        names_it=(("</s>",), ("eos",), ("end", "sentence"), ("t + 1",), ("t+1",), ("one", "missing"),
                  ("one", "too few"), ("last", "example")),
    ),
    Blind(
        name="windows_single_bos",
        cell="make_windows",
        source='''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    padded = [bos_id] + list(ids) + [eos_id]
    pairs = []
    for t in range(1, len(padded)):
        context = padded[max(0, t - context_size):t]
        pairs.append((tuple(context), padded[t]))
    return pairs
''',
        test_cell="check_make_windows",
        mistake="Put a single <s> in front whatever the context size (as for a bigram), so the first "
                "contexts are shorter than context_size.",
        names_it=(("<s>",), ("bos",), ("start", "symbol"), ("context_size", "start"), ("shorter",),
                  ("length", "context"), ("padding",)),
    ),
    Blind(
        name="windows_reversed_context",
        cell="make_windows",
        source='''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    padded = [bos_id] * context_size + list(ids) + [eos_id]
    pairs = []
    for t in range(context_size, len(padded)):
        # the previous words, nearest first
        context = tuple(padded[t - i] for i in range(1, context_size + 1))
        pairs.append((context, padded[t]))
    return pairs
''',
        test_cell="check_make_windows",
        mistake="Builds each context with the most recent word first (reversed order) instead of in "
                "sentence order.",
        names_it=(("order",), ("reversed",), ("backwards",), ("most recent", "first")),
    ),
    Blind(
        name="windows_eos_padding",
        cell="make_windows",
        source='''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    padded = [bos_id] * context_size + list(ids) + [eos_id] * context_size
    return [(tuple(padded[t - context_size:t]), padded[t]) for t in range(context_size, len(padded))]
''',
        test_cell="check_make_windows",
        mistake="Padded the end with context_size </s> symbols (mirroring the start), so there are extra "
                "examples that predict </s> after </s>.",
        names_it=(("</s>",), ("eos",), ("end", "sentence"), ("t + 1",), ("t+1",), ("too many",), ("extra",)),
    ),
    # ---------------------------------------------------------------- one_hot
    Blind(
        name="one_hot_long_dtype",
        cell="one_hot",
        source='''def one_hot(ids, vocab_size):
    """(..., vocab_size) float32 tensor: 1.0 at each id, 0.0 elsewhere."""
    out = torch.zeros(ids.shape + (vocab_size,), dtype=ids.dtype, device=ids.device)
    out.scatter_(-1, ids.unsqueeze(-1), 1)
    return out
''',
        test_cell="check_one_hot",
        mistake="Created the zeros with the ids' dtype, so the result is an integer (int64) tensor, not float32.",
        names_it=(("float32",), ("float",), ("dtype",), ("int64",), ("integer", "tensor")),
    ),
    Blind(
        name="one_hot_flattened",
        cell="one_hot",
        source='''def one_hot(ids, vocab_size):
    """(..., vocab_size) float32 tensor: 1.0 at each id, 0.0 elsewhere."""
    flat = ids.reshape(-1)
    out = torch.zeros(len(flat), vocab_size, device=ids.device)
    out[torch.arange(len(flat), device=ids.device), flat] = 1.0
    return out
''',
        test_cell="check_one_hot",
        mistake="Flattened the ids to handle any shape but never reshaped back: a 2-D batch gives "
                "(B*T, V) instead of (B, T, V).",
        names_it=(("shape",), ("flatten",), ("2-d",), ("ids.shape",), ("dimension",)),
    ),
    Blind(
        name="one_hot_vocab_axis_first",
        cell="one_hot",
        source='''def one_hot(ids, vocab_size):
    """(..., vocab_size) float32 tensor: 1.0 at each id, 0.0 elsewhere."""
    positions = torch.arange(vocab_size, device=ids.device).reshape(-1, *([1] * ids.dim()))
    return (positions == ids).float()
''',
        test_cell="check_one_hot",
        mistake="Broadcast the comparison the wrong way round, so the vocabulary axis comes first: "
                "shape (V,) + ids.shape instead of ids.shape + (V,).",
        names_it=(("shape",), ("last", "axis"), ("last", "dimension"), ("transposed",), ("vocab", "axis")),
    ),
    Blind(
        name="one_hot_off_by_one",
        cell="one_hot",
        source='''def one_hot(ids, vocab_size):
    """(..., vocab_size) float32 tensor: 1.0 at each id, 0.0 elsewhere."""
    words = torch.arange(1, vocab_size + 1, device=ids.device)
    return (ids.unsqueeze(-1) == words).to(torch.float32)
''',
        test_cell="check_one_hot",
        mistake="Numbered the vocabulary positions from 1 instead of 0, so each 1 sits one position to the "
                "left of the id (and id 0 gets an all-zero row).",
        names_it=(("off by one",), ("off-by-one",), ("shifted",), ("one position",), ("wrong position",),
                  ("from 0",), ("zero", "row")),
    ),
    # ---------------------------------------------------------------- ffnn_forward
    Blind(
        name="forward_ignores_direct",
        cell="ffnn_forward",
        source='''def ffnn_forward(idx, params):
    """Logits (B, V) of Bengio's feed-forward LM for contexts idx (B, n-1)."""
    C, H, d, U, b = params["C"], params["H"], params["d"], params["U"], params["b"]
    x = C[idx].reshape(idx.shape[0], -1)
    return b + torch.tanh(d + x @ H.T) @ U.T
''',
        test_cell="check_ffnn_forward",
        mistake="Never uses W: the direct connections W x are left out even when params['W'] is given.",
        names_it=(("direct",), ("w x",), ("wx",), ("'w'",), ('"w"',), ("w", "none")),
    ),
    Blind(
        name="forward_no_tanh",
        cell="ffnn_forward",
        source='''def ffnn_forward(idx, params):
    """Logits (B, V) of Bengio's feed-forward LM for contexts idx (B, n-1)."""
    C, H, d, U, b, W = params["C"], params["H"], params["d"], params["U"], params["b"], params["W"]
    x = C[idx].reshape(idx.shape[0], -1)
    hidden = d + x @ H.T
    logits = b + hidden @ U.T
    if W is not None:
        logits = logits + x @ W.T
    return logits
''',
        test_cell="check_ffnn_forward",
        mistake="Forgot the tanh on the hidden layer, so the network is linear.",
        names_it=(("tanh",), ("activation",), ("nonlinearity",), ("non-linearity",)),
    ),
    Blind(
        name="forward_interleaved_concat",
        cell="ffnn_forward",
        source='''def ffnn_forward(idx, params):
    """Logits (B, V) of Bengio's feed-forward LM for contexts idx (B, n-1)."""
    C, H, d, U, b, W = params["C"], params["H"], params["d"], params["U"], params["b"], params["W"]
    emb = C[idx]                                   # (B, n-1, m)
    x = emb.transpose(1, 2).reshape(idx.shape[0], -1)
    logits = b + torch.tanh(d + x @ H.T) @ U.T
    if W is not None:
        logits = logits + x @ W.T
    return logits
''',
        test_cell="check_ffnn_forward",
        mistake="Flattened the (B, n-1, m) embeddings after a transpose, so the features are interleaved "
                "instead of the embeddings being concatenated word after word.",
        names_it=(("concatenat",), ("order",), ("interleav",), ("transpose",), ("flatten",)),
    ),
    Blind(
        name="forward_returns_probs",
        cell="ffnn_forward",
        source='''def ffnn_forward(idx, params):
    """Logits (B, V) of Bengio's feed-forward LM for contexts idx (B, n-1)."""
    C, H, d, U, b, W = params["C"], params["H"], params["d"], params["U"], params["b"], params["W"]
    x = C[idx].reshape(idx.shape[0], -1)
    y = b + torch.tanh(d + x @ H.T) @ U.T
    if W is not None:
        y = y + x @ W.T
    y = torch.exp(y - y.max(dim=-1, keepdim=True).values)
    return y / y.sum(dim=-1, keepdim=True)
''',
        test_cell="check_ffnn_forward",
        mistake="Applied a softmax at the end and returned probabilities instead of the logits.",
        names_it=(("softmax",), ("probabilities",), ("sum to 1",), ("sum to one",)),
    ),
    Blind(
        name="forward_no_output_bias",
        cell="ffnn_forward",
        source='''def ffnn_forward(idx, params):
    """Logits (B, V) of Bengio's feed-forward LM for contexts idx (B, n-1)."""
    C, H, d, U, W = params["C"], params["H"], params["d"], params["U"], params["W"]
    x = C[idx].flatten(1)
    y = torch.tanh(x @ H.T + d) @ U.T
    if W is not None:
        y = y + x @ W.T
    return y
''',
        test_cell="check_ffnn_forward",
        mistake="Left out the output bias b.",
        names_it=(("bias", "b"), ("output bias",), ("+ b",), ("'b'",), ('"b"',)),
    ),
    # ---------------------------------------------------------------- cross_entropy
    Blind(
        name="ce_naive_overflow",
        cell="cross_entropy",
        source='''def cross_entropy(logits, targets):
    """Mean over the batch of -log softmax(logits)[target], numerically stable."""
    B = logits.shape[0]
    target_logits = logits[torch.arange(B, device=logits.device), targets]
    return (-target_logits + torch.log(torch.exp(logits).sum(dim=1))).mean()
''',
        test_cell="check_cross_entropy",
        mistake="Computed log sum exp directly without subtracting the maximum, so it overflows to inf/nan "
                "for logits around 1000.",
        names_it=(("maximum",), ("max",), ("overflow",), ("log-sum-exp",), ("logsumexp",), ("stable",)),
    ),
    Blind(
        name="ce_sum_not_mean",
        cell="cross_entropy",
        source='''def cross_entropy(logits, targets):
    """Mean over the batch of -log softmax(logits)[target], numerically stable."""
    B = logits.shape[0]
    m = logits.max(dim=1, keepdim=True).values
    lse = m.squeeze(1) + torch.log(torch.exp(logits - m).sum(dim=1))
    return (lse - logits[torch.arange(B, device=logits.device), targets]).sum()
''',
        test_cell="check_cross_entropy",
        mistake="Summed the per-example losses over the batch instead of averaging them.",
        names_it=(("mean",), ("average",), ("sum", "instead"), ("batch size",), ("divide", "b")),
    ),
    Blind(
        name="ce_max_not_added_back",
        cell="cross_entropy",
        source='''def cross_entropy(logits, targets):
    """Mean over the batch of -log softmax(logits)[target], numerically stable."""
    B = logits.shape[0]
    m = logits.max(dim=1, keepdim=True).values
    lse = torch.log(torch.exp(logits - m).sum(dim=1))
    return (-logits[torch.arange(B, device=logits.device), targets] + lse).mean()
''',
        test_cell="check_cross_entropy",
        mistake="Subtracted the row maximum inside the exponential but forgot to add it back outside the log.",
        names_it=(("add", "max"), ("add", "maximum"), ("added back",), ("add it back",), ("max_k",)),
    ),
    Blind(
        name="ce_wrong_indexing",
        cell="cross_entropy",
        source='''def cross_entropy(logits, targets):
    """Mean over the batch of -log softmax(logits)[target], numerically stable."""
    m = logits.max(dim=1, keepdim=True).values
    lse = m + torch.log(torch.exp(logits - m).sum(dim=1, keepdim=True))   # (B, 1)
    return (lse - logits[:, targets]).mean()
''',
        test_cell="check_cross_entropy",
        mistake="Picked the target logits with logits[:, targets], which gives a (B, B) matrix (every row at "
                "every target) instead of one target logit per row.",
        names_it=(("arange",), ("each row",), ("own target",), ("target logit",), ("(b, b)",), ("b x b",),
                  ("every target",)),
    ),
    Blind(
        name="ce_log_of_softmax",
        cell="cross_entropy",
        source='''def cross_entropy(logits, targets):
    """Mean over the batch of -log softmax(logits)[target], numerically stable."""
    B = logits.shape[0]
    shifted = logits - logits.max(dim=1, keepdim=True).values
    probs = torch.exp(shifted) / torch.exp(shifted).sum(dim=1, keepdim=True)
    return -torch.log(probs[torch.arange(B, device=logits.device), targets]).mean()
''',
        test_cell="check_cross_entropy",
        mistake="Computed a stable softmax and then took its log: a target far below the maximum gets "
                "probability 0 (underflow) and the loss becomes inf; it must stay in log space.",
        names_it=(("underflow",), ("log", "softmax"), ("log", "probabilit"), ("log space",), ("-z_t",)),
    ),
    Blind(
        name="ce_global_max",
        cell="cross_entropy",
        source='''def cross_entropy(logits, targets):
    """Mean over the batch of -log softmax(logits)[target], numerically stable."""
    B = logits.shape[0]
    m = logits.max()                      # the largest logit
    lse = m + torch.log(torch.exp(logits - m).sum(dim=1))
    return (lse - logits[torch.arange(B, device=logits.device), targets]).mean()
''',
        test_cell="check_cross_entropy",
        mistake="Subtracted the maximum of the whole batch instead of each row's maximum, so rows whose "
                "logits are far below the batch maximum underflow to log(0).",
        names_it=(("each row",), ("per row",), ("row", "max"), ("row's",), ("whole batch",), ("dim=1",)),
    ),
    # ---------------------------------------------------------------- nearest_neighbours
    Blind(
        name="nn_includes_self",
        cell="nearest_neighbours",
        source='''def nearest_neighbours(E, word_id, k):
    """The k word ids whose embeddings are most cosine-similar to E[word_id], most similar first."""
    unit = E / E.norm(dim=1, keepdim=True)
    sims = unit @ unit[word_id]
    return sims.topk(k).indices.tolist()
''',
        test_cell="check_nearest_neighbours",
        mistake="Did not leave out word_id itself, which is always its own nearest neighbour (cosine 1).",
        names_it=(("itself",), ("word_id",), ("own", "neighbour"), ("leave out",), ("exclude",)),
    ),
    Blind(
        name="nn_dot_product",
        cell="nearest_neighbours",
        source='''def nearest_neighbours(E, word_id, k):
    """The k word ids whose embeddings are most cosine-similar to E[word_id], most similar first."""
    sims = E @ E[word_id]
    sims[word_id] = -float("inf")
    return sims.topk(k).indices.tolist()
''',
        test_cell="check_nearest_neighbours",
        mistake="Ranked by the plain dot product without dividing by the norms, so long vectors win "
                "regardless of direction.",
        names_it=(("norm",), ("normalis",), ("normaliz",), ("dot product",), ("length",), ("divide",)),
    ),
    Blind(
        name="nn_ascending",
        cell="nearest_neighbours",
        source='''def nearest_neighbours(E, word_id, k):
    """The k word ids whose embeddings are most cosine-similar to E[word_id], most similar first."""
    unit = E / E.norm(dim=1, keepdim=True)
    sims = unit @ unit[word_id]
    order = torch.argsort(sims)
    return [i for i in order.tolist() if i != word_id][:k]
''',
        test_cell="check_nearest_neighbours",
        mistake="Sorted the similarities ascending (argsort's default), so it returns the least similar words.",
        names_it=(("least similar",), ("ascending",), ("descending",), ("most similar", "first"), ("order",)),
    ),
    Blind(
        name="nn_norm_wrong_axis",
        cell="nearest_neighbours",
        source='''def nearest_neighbours(E, word_id, k):
    """The k word ids whose embeddings are most cosine-similar to E[word_id], most similar first."""
    unit = E / E.norm(dim=0, keepdim=True)
    sims = unit @ unit[word_id]
    sims[word_id] = float("-inf")
    return sims.topk(k).indices.tolist()
''',
        test_cell="check_nearest_neighbours",
        mistake="Normalised the columns of E (dim=0) instead of each row, so the similarity is not the cosine "
                "between word vectors.",
        names_it=(("row",), ("dim=0",), ("axis",), ("columns",), ("each vector",)),
    ),
    Blind(
        name="nn_k_minus_one",
        cell="nearest_neighbours",
        source='''def nearest_neighbours(E, word_id, k):
    """The k word ids whose embeddings are most cosine-similar to E[word_id], most similar first."""
    unit = E / E.norm(dim=1, keepdim=True)
    sims = unit @ unit[word_id]
    top = sims.topk(k).indices.tolist()
    return [i for i in top if i != word_id]
''',
        test_cell="check_nearest_neighbours",
        mistake="Took the top k including the word itself and then removed it, leaving only k - 1 neighbours.",
        names_it=(("k - 1",), ("k-1",), ("too few",), ("only", "neighbours"), ("number", "neighbours"),
                  ("length",)),
    ),
]


ALTERNATIVES = {
    "explicit_loops": {
        "make_windows": '''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    history = [bos_id] * context_size
    pairs = []
    for word in list(ids) + [eos_id]:
        pairs.append((tuple(history), word))
        history = history[1:] + [word]
    return pairs
''',
        "one_hot": '''def one_hot(ids, vocab_size):
    """(..., vocab_size) float32 tensor: 1.0 at each id, 0.0 elsewhere."""
    flat = ids.reshape(-1).tolist()
    out = torch.zeros(len(flat), vocab_size, dtype=torch.float32, device=ids.device)
    for row, i in enumerate(flat):
        out[row, i] = 1.0
    return out.reshape(*ids.shape, vocab_size)
''',
        "ffnn_forward": '''def ffnn_forward(idx, params):
    """Logits (B, V) of Bengio's feed-forward LM for contexts idx (B, n-1)."""
    C = params["C"]
    pieces = [C[idx[:, j]] for j in range(idx.shape[1])]   # n-1 tensors of (B, m)
    x = torch.cat(pieces, dim=1)
    hidden = torch.tanh(params["d"] + torch.matmul(x, params["H"].t()))
    logits = params["b"] + torch.matmul(hidden, params["U"].t())
    if params.get("W") is not None:
        logits = logits + torch.matmul(x, params["W"].t())
    return logits
''',
        "cross_entropy": '''def cross_entropy(logits, targets):
    """Mean over the batch of -log softmax(logits)[target], numerically stable."""
    losses = []
    for row, t in zip(logits, targets):
        m = torch.max(row)
        log_z = m + torch.log(torch.sum(torch.exp(row - m)))
        losses.append(log_z - row[t])
    return torch.stack(losses).mean()
''',
        "nearest_neighbours": '''def nearest_neighbours(E, word_id, k):
    """The k word ids whose embeddings are most cosine-similar to E[word_id], most similar first."""
    query = E[word_id]
    scores = []
    for i in range(E.shape[0]):
        if i == word_id:
            continue
        cos = torch.dot(E[i], query) / (torch.linalg.norm(E[i]) * torch.linalg.norm(query))
        scores.append((cos.item(), i))
    scores.sort(key=lambda pair: pair[0], reverse=True)
    return [i for _, i in scores[:k]]
''',
    },
    "vectorised_other_ops": {
        "make_windows": '''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    seq = [bos_id] * context_size + [int(i) for i in ids] + [eos_id]
    contexts = [tuple(seq[s:s + context_size]) for s in range(len(seq) - context_size)]
    return list(zip(contexts, seq[context_size:]))
''',
        "one_hot": '''def one_hot(ids, vocab_size):
    """(..., vocab_size) float32 tensor: 1.0 at each id, 0.0 elsewhere."""
    return (ids[..., None] == torch.arange(vocab_size, device=ids.device)).to(dtype=torch.float32)
''',
        "ffnn_forward": '''def ffnn_forward(idx, params):
    """Logits (B, V) of Bengio's feed-forward LM for contexts idx (B, n-1)."""
    C, H, d, U, b, W = (params[name] for name in ("C", "H", "d", "U", "b", "W"))
    B, n_ctx = idx.shape
    x = torch.index_select(C, 0, idx.reshape(-1)).view(B, n_ctx * C.shape[1])
    y = torch.addmm(b, torch.tanh(torch.addmm(d, x, H.T)), U.T)
    return y if W is None else y + x @ W.T
''',
        "cross_entropy": '''def cross_entropy(logits, targets):
    """Mean over the batch of -log softmax(logits)[target], numerically stable."""
    m, _ = torch.max(logits, dim=-1, keepdim=True)
    shifted = logits - m
    log_probs = shifted - torch.log(torch.exp(shifted).sum(dim=-1, keepdim=True))
    return -log_probs.gather(1, targets.long().unsqueeze(1)).squeeze(1).mean()
''',
        "nearest_neighbours": '''def nearest_neighbours(E, word_id, k):
    """The k word ids whose embeddings are most cosine-similar to E[word_id], most similar first."""
    unit = F.normalize(E, dim=1)
    sims = unit @ unit[word_id]
    order = torch.argsort(sims, descending=True)
    return order[order != word_id][:k]
''',
    },
    "numpy_inside": {
        "nearest_neighbours": '''import numpy as np


def nearest_neighbours(E, word_id, k):
    """The k word ids whose embeddings are most cosine-similar to E[word_id], most similar first."""
    e = E.detach().cpu().numpy()
    norms = np.linalg.norm(e, axis=1)
    cos = (e @ e[word_id]) / (norms * norms[word_id])
    cos[word_id] = -np.inf
    return [int(i) for i in np.argsort(-cos, kind="stable")[:k]]
''',
        "make_windows": '''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    seq = [bos_id] * context_size + list(ids) + [eos_id]
    out = []
    t = context_size
    while t < len(seq):
        out.append((tuple(seq[t - context_size:t]), seq[t]))
        t += 1
    return out
''',
    },
}
