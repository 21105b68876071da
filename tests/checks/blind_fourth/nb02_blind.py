"""Fourth blind set for notebook 02 (the feed-forward neural language model), written from the student notebook only."""
from blind_case import Blind

NOTEBOOK = "02_ffnn_lm"

BLIND = [
    # ---------------------------------------------------------------- make_windows
    Blind(name="windows_no_eos", cell="make_windows", test_cell="check_make_windows",
          source='''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    padded = [bos_id] * context_size + list(ids)
    return [(tuple(padded[i:i + context_size]), padded[i + context_size]) for i in range(len(ids))]
''',
          mistake="Never appends </s> (eos_id), so the sentence gives T examples instead of T + 1: the model never learns where sentences stop.",
          names_it=(("</s>",), ("eos",), ("end symbol",), ("t + 1",)),
          part="the final </s> example"),
    Blind(name="windows_one_bos_short", cell="make_windows", test_cell="check_make_windows",
          source='''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    padded = [bos_id] * (context_size - 1) + list(ids) + [eos_id]
    windows = []
    for i in range(context_size, len(padded)):
        windows.append((tuple(padded[i - context_size:i]), padded[i]))
    return windows
''',
          mistake="Pads with context_size - 1 start symbols (the n-gram habit of n - 1 with n = context_size), so the first word is never a target and there are only T examples.",
          names_it=(("<s>",), ("start symbol",), ("first word",), ("context_size start",)),
          part="the <s> padding"),
    Blind(name="windows_list_context", cell="make_windows", test_cell="check_make_windows",
          source='''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    padded = [bos_id] * context_size + ids + [eos_id]
    pairs = []
    for t in range(context_size, len(padded)):
        pairs.append((padded[t - context_size:t], padded[t]))
    return pairs
''',
          mistake="Returns each context as a list slice, not as a tuple of ids as asked.",
          names_it=(("tuple",), ("a list",), ("list instead",)),
          part="the type of the context"),
    Blind(name="windows_global_context", cell="make_windows", test_cell="check_make_windows",
          source='''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    padded = [bos_id] * CONTEXT + ids + [eos_id]
    return [(tuple(padded[i:i + CONTEXT]), padded[i + CONTEXT]) for i in range(len(ids) + 1)]
''',
          mistake="Uses the notebook's global CONTEXT (5) instead of the context_size argument (and CONTEXT is only defined in a later cell).",
          names_it=(("context_size",), ("context", "global"), ("argument",)),
          part="uses the context_size argument"),
    Blind(name="windows_index_error", cell="make_windows", test_cell="check_make_windows",
          source='''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    padded = [bos_id] * context_size + ids + [eos_id]
    out = []
    for i in range(len(padded) - context_size + 1):
        out.append((tuple(padded[i:i + context_size]), padded[i + context_size]))
    return out
''',
          mistake="The loop runs one step too far (len(padded) - context_size + 1 windows), so the last target index is past the end of the list: IndexError.",
          names_it=(("indexerror",), ("out of range",), ("t + 1",), ("one too many",), ("off by one",)),
          part="loop range"),
    Blind(name="windows_reversed_context", cell="make_windows", test_cell="check_make_windows",
          source='''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    padded = [bos_id] * context_size + ids + [eos_id]
    windows = []
    for t in range(context_size, len(padded)):
        context = tuple(padded[t - j] for j in range(1, context_size + 1))
        windows.append((context, padded[t]))
    return windows
''',
          mistake="Builds each context from the nearest word backwards, so the context tuple is in reverse order (most recent word first).",
          names_it=(("order",), ("reversed",), ("backwards",)),
          part="the order of the context"),

    # ---------------------------------------------------------------- one_hot
    Blind(name="onehot_long_dtype", cell="one_hot", test_cell="check_one_hot",
          source='''def one_hot(ids, vocab_size):
    """(..., vocab_size) float32 tensor: 1.0 at each id, 0.0 elsewhere."""
    out = torch.zeros(*ids.shape, vocab_size, dtype=ids.dtype, device=ids.device)
    out.scatter_(-1, ids.unsqueeze(-1), 1)
    return out
''',
          mistake="Creates the tensor with the dtype of ids (int64), so the result is an integer tensor, not float32.",
          names_it=(("float32",), ("dtype",), ("float",)),
          part="the dtype"),
    Blind(name="onehot_only_1d", cell="one_hot", test_cell="check_one_hot",
          source='''def one_hot(ids, vocab_size):
    """(..., vocab_size) float32 tensor: 1.0 at each id, 0.0 elsewhere."""
    out = torch.zeros(len(ids), vocab_size, device=ids.device)
    out[torch.arange(len(ids)), ids] = 1.0
    return out
''',
          mistake="Only handles a 1-D batch: for a 2-D tensor of ids the shape is (len(ids), V) and the indexing fails, instead of ids.shape + (V,).",
          names_it=(("any shape",), ("2-d",), ("ids.shape",), ("shape", "batch")),
          part="shapes other than 1-D"),
    Blind(name="onehot_scatter_no_unsqueeze", cell="one_hot", test_cell="check_one_hot",
          source='''def one_hot(ids, vocab_size):
    """(..., vocab_size) float32 tensor: 1.0 at each id, 0.0 elsewhere."""
    out = torch.zeros(ids.shape + (vocab_size,), device=ids.device)
    return out.scatter_(-1, ids, 1.0)
''',
          mistake="Passes ids to scatter_ without a trailing dimension (ids.unsqueeze(-1)); the index has one dimension less than the output, so PyTorch raises an error.",
          names_it=(("unsqueeze",), ("index", "dimension"), ("scatter",)),
          part="the scatter index shape"),
    Blind(name="onehot_transposed", cell="one_hot", test_cell="check_one_hot",
          source='''def one_hot(ids, vocab_size):
    """(..., vocab_size) float32 tensor: 1.0 at each id, 0.0 elsewhere."""
    flat = ids.reshape(-1)
    out = torch.zeros(vocab_size, flat.numel(), device=ids.device)
    out[flat, torch.arange(flat.numel(), device=ids.device)] = 1.0
    return out.reshape(vocab_size, *ids.shape)
''',
          mistake="Puts the vocabulary axis first: the result is (V, ...) instead of (..., V).",
          names_it=(("last",), ("shape",), ("vocab_size", "axis")),
          part="where the vocabulary axis goes"),

    # ---------------------------------------------------------------- ffnn_forward
    Blind(name="ffnn_relu", cell="ffnn_forward", test_cell="check_ffnn_forward",
          source='''def ffnn_forward(idx, params):
    """Logits (B, V) of Bengio's feed-forward LM for contexts idx (B, n-1)."""
    C, H, d, U, b, W = (params[k] for k in ("C", "H", "d", "U", "b", "W"))
    x = C[idx].reshape(idx.shape[0], -1)
    y = b + torch.relu(d + x @ H.T) @ U.T
    if W is not None:
        y = y + x @ W.T
    return y
''',
          mistake="Uses ReLU in the hidden layer instead of tanh.",
          names_it=(("tanh",), ("relu",)),
          part="the hidden activation"),
    Blind(name="ffnn_sigmoid", cell="ffnn_forward", test_cell="check_ffnn_forward",
          source='''def ffnn_forward(idx, params):
    """Logits (B, V) of Bengio's feed-forward LM for contexts idx (B, n-1)."""
    x = params["C"][idx].flatten(1)
    hidden = torch.sigmoid(params["d"] + x @ params["H"].T)
    logits = params["b"] + hidden @ params["U"].T
    if params["W"] is not None:
        logits = logits + x @ params["W"].T
    return logits
''',
          mistake="Uses a sigmoid in the hidden layer instead of tanh.",
          names_it=(("tanh",), ("sigmoid",)),
          part="the hidden activation"),
    Blind(name="ffnn_direct_ignored", cell="ffnn_forward", test_cell="check_ffnn_forward",
          source='''def ffnn_forward(idx, params):
    """Logits (B, V) of Bengio's feed-forward LM for contexts idx (B, n-1)."""
    x = params["C"][idx].view(idx.shape[0], -1)
    h = torch.tanh(x @ params["H"].T + params["d"])
    return h @ params["U"].T + params["b"]
''',
          mistake="Ignores the direct connections W: when params['W'] is given, the W x term is missing from the logits.",
          names_it=(("direct",), ("w x",), ("wx",)),
          part="the direct connections"),
    Blind(name="ffnn_sum_embeddings", cell="ffnn_forward", test_cell="check_ffnn_forward",
          source='''def ffnn_forward(idx, params):
    """Logits (B, V) of Bengio's feed-forward LM for contexts idx (B, n-1)."""
    x = params["C"][idx].sum(dim=1)
    logits = params["b"] + torch.tanh(params["d"] + x @ params["H"].T) @ params["U"].T
    if params["W"] is not None:
        logits = logits + x @ params["W"].T
    return logits
''',
          mistake="Sums the context embeddings instead of concatenating them; x has length m instead of (n-1)m, so the product with H fails for a context of more than one word.",
          names_it=(("concatenat",), ("(n-1)m",), ("(n-1) m",)),
          part="concatenating the embeddings"),
    Blind(name="ffnn_untransposed_H", cell="ffnn_forward", test_cell="check_ffnn_forward",
          source='''def ffnn_forward(idx, params):
    """Logits (B, V) of Bengio's feed-forward LM for contexts idx (B, n-1)."""
    B = idx.shape[0]
    x = params["C"][idx].reshape(B, -1)
    hidden = torch.tanh(params["d"] + x @ params["H"])
    y = params["b"] + hidden @ params["U"]
    if params["W"] is not None:
        y = y + x @ params["W"]
    return y
''',
          mistake="Multiplies by H, U and W without transposing them: the weights are stored (out, in), so x @ H fails on the shapes.",
          names_it=(("transpose",), (".t",), ("(out, in)",)),
          part="transposing the weight matrices"),
    Blind(name="ffnn_if_tensor_truth", cell="ffnn_forward", test_cell="check_ffnn_forward",
          source='''def ffnn_forward(idx, params):
    """Logits (B, V) of Bengio's feed-forward LM for contexts idx (B, n-1)."""
    x = params["C"][idx].reshape(len(idx), -1)
    y = params["b"] + torch.tanh(params["d"] + x @ params["H"].T) @ params["U"].T
    if params["W"]:
        y = y + x @ params["W"].T
    return y
''',
          mistake="Tests `if params['W']:` on a tensor: with direct connections PyTorch raises 'Boolean value of Tensor with more than one value is ambiguous'; it must test `is not None`.",
          names_it=(("is not none",), ("ambiguous",), ("none",)),
          part="the test for W"),
    Blind(name="ffnn_interleaved_concat", cell="ffnn_forward", test_cell="check_ffnn_forward",
          source='''def ffnn_forward(idx, params):
    """Logits (B, V) of Bengio's feed-forward LM for contexts idx (B, n-1)."""
    emb = params["C"][idx]                      # (B, n-1, m)
    x = emb.transpose(1, 2).reshape(idx.shape[0], -1)
    y = params["b"] + torch.tanh(params["d"] + x @ params["H"].T) @ params["U"].T
    if params["W"] is not None:
        y = y + x @ params["W"].T
    return y
''',
          mistake="Transposes the embeddings to (B, m, n-1) before flattening, so x interleaves the words' features instead of concatenating one word's embedding after the other.",
          names_it=(("concatenat",), ("order",), ("interleav",)),
          part="concatenating the embeddings"),
    Blind(name="ffnn_returns_probs", cell="ffnn_forward", test_cell="check_ffnn_forward",
          source='''def ffnn_forward(idx, params):
    """Logits (B, V) of Bengio's feed-forward LM for contexts idx (B, n-1)."""
    x = params["C"][idx].reshape(idx.shape[0], -1)
    y = params["b"] + torch.tanh(params["d"] + x @ params["H"].T) @ params["U"].T
    if params["W"] is not None:
        y = y + x @ params["W"].T
    return torch.softmax(y, dim=-1)
''',
          mistake="Applies a softmax and returns probabilities instead of the logits.",
          names_it=(("logits",), ("softmax",), ("probabilities",)),
          part="returns logits"),

    # ---------------------------------------------------------------- cross_entropy
    Blind(name="ce_no_max", cell="cross_entropy", test_cell="check_cross_entropy",
          source='''def cross_entropy(logits, targets):
    """Mean over the batch of -log softmax(logits)[target], numerically stable."""
    B = logits.shape[0]
    log_z = torch.log(torch.exp(logits).sum(dim=1))
    return (log_z - logits[torch.arange(B), targets]).mean()
''',
          mistake="Exponentiates the logits without subtracting the maximum: for logits around 1000 exp overflows to inf and the loss is inf or nan.",
          names_it=(("maximum",), ("overflow",), ("log-sum-exp",), ("subtract", "max"), ("large logits",)),
          part="numerical stability"),
    Blind(name="ce_sum_not_mean", cell="cross_entropy", test_cell="check_cross_entropy",
          source='''def cross_entropy(logits, targets):
    """Mean over the batch of -log softmax(logits)[target], numerically stable."""
    m = logits.max(dim=1, keepdim=True).values
    lse = m.squeeze(1) + torch.log(torch.exp(logits - m).sum(dim=1))
    return (lse - logits[torch.arange(len(targets)), targets]).sum()
''',
          mistake="Sums the per-example losses over the batch instead of taking their mean.",
          names_it=(("mean",), ("average",), ("divide", "batch")),
          part="reducing over the batch"),
    Blind(name="ce_max_over_batch", cell="cross_entropy", test_cell="check_cross_entropy",
          source='''def cross_entropy(logits, targets):
    """Mean over the batch of -log softmax(logits)[target], numerically stable."""
    m = logits.max(dim=0, keepdim=True).values
    shifted = logits - m
    log_probs = shifted - torch.log(torch.exp(shifted).sum(dim=1, keepdim=True))
    return -log_probs[torch.arange(logits.shape[0]), targets].mean()
''',
          mistake="Takes the maximum over the batch axis (dim=0, one max per vocabulary column) instead of per row: subtracting a different constant from every column changes the softmax.",
          names_it=(("dim=0",), ("axis",), ("per row",), ("dimension",)),
          part="the axis of the maximum"),
    Blind(name="ce_max_not_added_back", cell="cross_entropy", test_cell="check_cross_entropy",
          source='''def cross_entropy(logits, targets):
    """Mean over the batch of -log softmax(logits)[target], numerically stable."""
    m = logits.max(dim=1).values
    lse = torch.log(torch.exp(logits - m[:, None]).sum(dim=1))
    target_logits = logits[torch.arange(logits.shape[0]), targets]
    return (-target_logits + lse).mean()
''',
          mistake="Subtracts the maximum inside the exp but does not add it back to the log-sum-exp (the target logit is not shifted either), so the loss is off by max z per row.",
          names_it=(("add", "maximum"), ("add the max",), ("max_k z_k",), ("added back",), ("off by the max",)),
          part="the log-sum-exp trick"),
    Blind(name="ce_keepdim_forgotten", cell="cross_entropy", test_cell="check_cross_entropy",
          source='''def cross_entropy(logits, targets):
    """Mean over the batch of -log softmax(logits)[target], numerically stable."""
    m = logits.max(dim=1).values
    lse = m + torch.log(torch.exp(logits - m).sum(dim=1))
    return (lse - logits[torch.arange(logits.shape[0]), targets]).mean()
''',
          mistake="Subtracts the (B,) row maxima from the (B, V) logits without keepdim / [:, None]: it broadcasts along the wrong axis (a shape error when B != V, a wrong loss when B == V).",
          names_it=(("keepdim",), ("broadcast",), ("[:, none]",)),
          part="broadcasting the maximum"),
    Blind(name="ce_all_pairs_targets", cell="cross_entropy", test_cell="check_cross_entropy",
          source='''def cross_entropy(logits, targets):
    """Mean over the batch of -log softmax(logits)[target], numerically stable."""
    m = logits.max(dim=-1, keepdim=True).values
    log_probs = logits - m - torch.log(torch.exp(logits - m).sum(dim=-1, keepdim=True))
    return -log_probs[:, targets].mean()
''',
          mistake="Picks the target log-probabilities with log_probs[:, targets], a (B, B) block of every row against every target, instead of log_probs[torch.arange(B), targets].",
          names_it=(("arange",), ("each row",), ("(b, b)",), ("own target",)),
          part="picking each row's target"),

    # ---------------------------------------------------------------- nearest_neighbours
    Blind(name="nn_includes_self", cell="nearest_neighbours", test_cell="check_nearest_neighbours",
          source='''def nearest_neighbours(E, word_id, k):
    """The k word ids whose embeddings are most cosine-similar to E[word_id], most similar first."""
    En = E / E.norm(dim=1, keepdim=True)
    sims = En @ En[word_id]
    return sims.topk(k).indices.tolist()
''',
          mistake="Does not leave out word_id itself, which is always its own nearest neighbour (cosine 1).",
          names_it=(("itself",), ("word_id",), ("leave out",), ("exclude",)),
          part="excluding the word itself"),
    Blind(name="nn_dot_not_cosine", cell="nearest_neighbours", test_cell="check_nearest_neighbours",
          source='''def nearest_neighbours(E, word_id, k):
    """The k word ids whose embeddings are most cosine-similar to E[word_id], most similar first."""
    sims = E @ E[word_id]
    sims[word_id] = -float("inf")
    return torch.argsort(sims, descending=True)[:k].tolist()
''',
          mistake="Ranks by the raw dot product without dividing by the norms: longer vectors win, which is not cosine similarity.",
          names_it=(("norm",), ("cosine",), ("length",), ("normalis",)),
          part="normalising by the lengths"),
    Blind(name="nn_ascending", cell="nearest_neighbours", test_cell="check_nearest_neighbours",
          source='''def nearest_neighbours(E, word_id, k):
    """The k word ids whose embeddings are most cosine-similar to E[word_id], most similar first."""
    sims = (E @ E[word_id]) / (E.norm(dim=1) * E[word_id].norm())
    order = torch.argsort(sims)
    order = order[order != word_id]
    return order[:k].tolist()
''',
          mistake="Sorts in ascending order, so it returns the k least similar words instead of the most similar.",
          names_it=(("descending",), ("least similar",), ("most similar first",), ("ascending",)),
          part="the sort order"),
    Blind(name="nn_normalise_columns", cell="nearest_neighbours", test_cell="check_nearest_neighbours",
          source='''def nearest_neighbours(E, word_id, k):
    """The k word ids whose embeddings are most cosine-similar to E[word_id], most similar first."""
    En = E / E.norm(dim=0, keepdim=True)
    sims = En @ En[word_id]
    sims[word_id] = float("-inf")
    return sims.topk(k).indices.tolist()
''',
          mistake="Normalises each column (dim=0) instead of each row's embedding (dim=1), so the scores are not cosine similarities between words.",
          names_it=(("dim=1",), ("each row",), ("per word",), ("dim=0",), ("columns",)),
          part="the axis of the normalisation"),
    Blind(name="nn_removed_row_shift", cell="nearest_neighbours", test_cell="check_nearest_neighbours",
          source='''def nearest_neighbours(E, word_id, k):
    """The k word ids whose embeddings are most cosine-similar to E[word_id], most similar first."""
    query = E[word_id]
    others = torch.cat([E[:word_id], E[word_id + 1:]])
    sims = others @ query / (others.norm(dim=1) * query.norm())
    return torch.topk(sims, k).indices.tolist()
''',
          mistake="Removes the word's row before ranking and returns positions in the shortened matrix: every id after word_id is one too small.",
          names_it=(("shift",), ("one too small",), ("off by one",), ("index", "removed")),
          part="the ids returned"),
    Blind(name="nn_torch_dot_matrix", cell="nearest_neighbours", test_cell="check_nearest_neighbours",
          source='''def nearest_neighbours(E, word_id, k):
    """The k word ids whose embeddings are most cosine-similar to E[word_id], most similar first."""
    q = E[word_id]
    sims = torch.dot(E, q) / (E.norm(dim=1) * q.norm())
    sims[word_id] = -1e9
    return sims.argsort(descending=True)[:k].tolist()
''',
          mistake="Uses torch.dot with the matrix E: torch.dot accepts only 1-D tensors, so it raises an error; a matrix-vector product (E @ q) is needed.",
          names_it=(("torch.dot",), ("1d",), ("1-d",), ("matrix-vector",)),
          part="the similarity computation"),
]

VALID = [
    Blind(name="valid_windows_sliding", cell="make_windows", test_cell="check_make_windows",
          source='''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    context = [bos_id] * context_size
    windows = []
    for target in list(ids) + [eos_id]:
        windows.append((tuple(context), target))
        context = context[1:] + [target]
    return windows
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_onehot_eye", cell="one_hot", test_cell="check_one_hot",
          source='''def one_hot(ids, vocab_size):
    """(..., vocab_size) float32 tensor: 1.0 at each id, 0.0 elsewhere."""
    return torch.eye(vocab_size, dtype=torch.float32, device=ids.device)[ids]
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_ffnn_einsum", cell="ffnn_forward", test_cell="check_ffnn_forward",
          source='''def ffnn_forward(idx, params):
    """Logits (B, V) of Bengio's feed-forward LM for contexts idx (B, n-1)."""
    x = torch.cat([params["C"][idx[:, j]] for j in range(idx.shape[1])], dim=1)
    a = torch.einsum("bi,hi->bh", x, params["H"]) + params["d"]
    y = torch.einsum("bh,vh->bv", torch.tanh(a), params["U"]) + params["b"]
    if params.get("W") is not None:
        y = y + torch.einsum("bi,vi->bv", x, params["W"])
    return y
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_ce_gather_amax", cell="cross_entropy", test_cell="check_cross_entropy",
          source='''def cross_entropy(logits, targets):
    """Mean over the batch of -log softmax(logits)[target], numerically stable."""
    shifted = logits - logits.amax(dim=-1, keepdim=True)
    log_probs = shifted - shifted.exp().sum(dim=-1, keepdim=True).log()
    return -log_probs.gather(1, targets[:, None]).squeeze(1).mean()
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_nn_normalize", cell="nearest_neighbours", test_cell="check_nearest_neighbours",
          source='''def nearest_neighbours(E, word_id, k):
    """The k word ids whose embeddings are most cosine-similar to E[word_id], most similar first."""
    unit = F.normalize(E, dim=1)
    sims = unit @ unit[word_id]
    ranked = [int(i) for i in torch.argsort(sims, descending=True) if int(i) != word_id]
    return ranked[:k]
''',
          mistake="", names_it=(), part=""),
]

# The same valid answers in blind_case.py's ALTERNATIVES layout ({style: {answer_cell: source}}).
ALTERNATIVES = {case.name: {case.cell: case.source} for case in VALID}
