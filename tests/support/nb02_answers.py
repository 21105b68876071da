"""Answers to notebook 02 for testing its checks: right ones written differently, and known mistakes.

Each wrong answer replaces one answer cell (by grade_id) and must fail the given test cell with a
message that names the mistake.
"""
from answer_catalogue import Wrong

NOTEBOOK = "02_ffnn_lm"

_WINDOWS = '''def make_windows(ids, context_size, bos_id, eos_id):
    padded = [bos_id] * ({pad}) + list(ids) + {eos}
    return [({context}, padded[t]) for t in range({first}, len(padded))]
'''


def windows_source(pad="context_size", eos="[eos_id]", context="tuple(padded[t - context_size:t])",
                   first="context_size"):
    return _WINDOWS.format(pad=pad, eos=eos, context=context, first=first)


_FORWARD = '''def ffnn_forward(idx, params):
    x = {x}
    a = {a}
    hidden = {hidden}
    logits = {logits}
    if params["W"] is not None and {use_w}:
        logits = logits + x @ params["W"].T
    return {ret}
'''


def forward_source(x='params["C"][idx].flatten(1)', a='params["d"] + x @ params["H"].T', hidden="torch.tanh(a)",
                   logits='params["b"] + hidden @ params["U"].T', use_w="True", ret="logits"):
    return _FORWARD.format(x=x, a=a, hidden=hidden, logits=logits, use_w=use_w, ret=ret)


_CE = '''def cross_entropy(logits, targets):
    B = len(targets)
    top = logits.max(dim={dim}, keepdim=True).values
    log_probs = logits - top - (logits - top).exp().sum(dim={dim}, keepdim=True).log()
    picked = {picked}
    return {ret}
'''


def ce_source(dim="-1", picked="log_probs[torch.arange(B), targets]", ret="-picked.mean()"):
    return _CE.format(dim=dim, picked=picked, ret=ret)


_NEIGHBOURS = '''def nearest_neighbours(E, word_id, k):
    scores = {scores}
    {exclude}
    return scores.argsort(descending={descending})[:k].tolist()
'''


def neighbours_source(scores="(E / E.norm(dim=-1, keepdim=True)) @ (E[word_id] / E[word_id].norm())",
                      exclude="scores[word_id] = -float('inf')", descending="True"):
    return _NEIGHBOURS.format(scores=scores, exclude=exclude, descending=descending)


WRONG = [
    Wrong("windows_list_context", "make_windows", windows_source(context="padded[t - context_size:t]"),
          "check_make_windows", "should be a tuple of ids"),
    Wrong("windows_notebook_symbols", "make_windows",
          "def make_windows(ids, context_size, bos_id, eos_id):\n"
          "    padded = [BOS] * context_size + list(ids) + [EOS]\n"
          "    return [(tuple(padded[t - context_size:t]), padded[t]) for t in range(context_size, len(padded))]\n",
          "check_make_windows", "use the arguments bos_id and eos_id"),
    Wrong("nn_drops_first_by_position", "nearest_neighbours",
          "def nearest_neighbours(E, word_id, k):\n    unit = E / E.norm(dim=1, keepdim=True)\n"
          "    return (unit @ unit[word_id]).topk(k + 1).indices[1:].tolist()\n",
          "check_nearest_neighbours", "leave it out by its id"),
    Wrong("windows_too_wide", "make_windows", windows_source(context="tuple(padded[t - context_size - 1:t])",
                                                              first="context_size + 1", pad="context_size + 1"),
          "check_make_windows", "off-by-one context window"),
    Wrong("windows_too_narrow", "make_windows", windows_source(pad="context_size - 1",
                                                                context="tuple(padded[t - context_size + 1:t])",
                                                                first="context_size - 1"),
          "check_make_windows", "off-by-one context window"),
    Wrong("windows_leak_target", "make_windows", windows_source(context="tuple(padded[t - context_size + 1:t + 1])"),
          "check_make_windows", "includes the word it should predict"),
    Wrong("windows_no_eos", "make_windows", windows_source(eos="[]"), "check_make_windows", "end of the sentence"),
    Wrong("windows_no_padding", "make_windows", windows_source(pad="0", first="context_size"),
          "check_make_windows", "first word(s) are never predicted"),
    Wrong("windows_swapped", "make_windows",
          "def make_windows(ids, context_size, bos_id, eos_id):\n"
          "    padded = [bos_id] * context_size + list(ids) + [eos_id]\n"
          "    return [(padded[t], tuple(padded[t - context_size:t])) for t in range(context_size, len(padded))]\n",
          "check_make_windows", "(context, target) pairs"),
    Wrong("one_hot_long", "one_hot",
          "def one_hot(ids, vocab_size):\n    out = torch.zeros(*ids.shape, vocab_size, dtype=torch.long)\n"
          "    return out.scatter_(-1, ids.unsqueeze(-1), 1)\n", "check_one_hot", "dtype"),
    Wrong("one_hot_transposed", "one_hot",
          "def one_hot(ids, vocab_size):\n    return (torch.arange(vocab_size)[:, None] == ids.reshape(1, -1)).float()"
          ".reshape(vocab_size, *ids.shape)\n", "check_one_hot", "transposed"),
    Wrong("one_hot_multi_hot", "one_hot",
          "def one_hot(ids, vocab_size):\n    out = torch.zeros(vocab_size)\n    out[ids.flatten()] = 1.0\n    return out\n",
          "check_one_hot", "bag of words"),
    Wrong("one_hot_shifted", "one_hot",
          "def one_hot(ids, vocab_size):\n    return torch.eye(vocab_size)[(ids + 1).clamp(max=vocab_size - 1)]\n",
          "check_one_hot", "one place to the right"),
    Wrong("forward_no_tanh", "ffnn_forward", forward_source(hidden="a"), "check_ffnn_forward", "no tanh"),
    Wrong("forward_softmax", "ffnn_forward", forward_source(ret="torch.softmax(logits, dim=-1)"),
          "check_ffnn_forward", "return probabilities"),
    Wrong("forward_no_direct", "ffnn_forward", forward_source(use_w="False"), "check_ffnn_forward", "direct connections"),
    Wrong("forward_reversed", "ffnn_forward", forward_source(x='params["C"][idx.flip(1)].flatten(1)'),
          "check_ffnn_forward", "reverse order"),
    Wrong("forward_no_d", "ffnn_forward", forward_source(a='x @ params["H"].T'), "check_ffnn_forward", "hidden bias d"),
    Wrong("forward_no_b", "ffnn_forward", forward_source(logits='hidden @ params["U"].T'),
          "check_ffnn_forward", "output bias b"),
    Wrong("forward_tanh_out", "ffnn_forward", forward_source(ret="torch.tanh(logits)"), "check_ffnn_forward",
          "tanh to the logits"),
    Wrong("ce_sum", "cross_entropy", ce_source(ret="-picked.sum()"), "check_cross_entropy", "sum over the batch"),
    Wrong("ce_no_minus", "cross_entropy", ce_source(ret="picked.mean()"), "check_cross_entropy", "negative"),
    Wrong("ce_log2", "cross_entropy", ce_source(ret="-picked.mean() / math.log(2)"), "check_cross_entropy", "base 2"),
    Wrong("ce_wrong_axis", "cross_entropy", ce_source(dim="0"), "check_cross_entropy", "over the batch (dim=0)"),
    Wrong("ce_all_targets", "cross_entropy", ce_source(picked="log_probs[:, targets]"), "check_cross_entropy",
          "logits[:, targets]"),
    Wrong("ce_per_example", "cross_entropy", ce_source(ret="-picked"), "check_cross_entropy", "one number"),
    Wrong("ce_unstable", "cross_entropy",
          "def cross_entropy(logits, targets):\n    probs = logits.exp() / logits.exp().sum(-1, keepdim=True)\n"
          "    return -probs[torch.arange(len(targets)), targets].log().mean()\n",
          "check_cross_entropy", "log-sum-exp"),
    Wrong("ce_no_log", "cross_entropy",
          "def cross_entropy(logits, targets):\n    top = logits.max(-1, keepdim=True).values\n"
          "    probs = (logits - top).exp() / (logits - top).exp().sum(-1, keepdim=True)\n"
          "    return -probs[torch.arange(len(targets)), targets].mean()\n",
          "check_cross_entropy", "log-probabilities"),
    Wrong("neighbours_dot", "nearest_neighbours", neighbours_source(scores="E @ E[word_id]"),
          "check_nearest_neighbours", "dot product"),
    Wrong("neighbours_self", "nearest_neighbours", neighbours_source(exclude="pass"),
          "check_nearest_neighbours", "the word itself"),
    Wrong("neighbours_ascending", "nearest_neighbours",
          neighbours_source(exclude="scores[word_id] = float('inf')", descending="False"),
          "check_nearest_neighbours", "least"),
    Wrong("neighbours_euclidean", "nearest_neighbours", neighbours_source(scores="-(E - E[word_id]).norm(dim=-1)"),
          "check_nearest_neighbours", "Euclidean"),
]

_PAIRS = '''def skipgram_pairs(ids, window):
    pairs = []
    for i in range({centers}):
        for j in range({lo}, {hi}):
            if {keep}:
                pairs.append((ids[i], ids[j]))
    return pairs
'''


def pairs_source(centers="len(ids)", lo="max(0, i - window)", hi="min(len(ids), i + window + 1)", keep="j != i"):
    return _PAIRS.format(centers=centers, lo=lo, hi=hi, keep=keep)


_SGNS = '''def sgns_loss(v_center, u_context, u_negative):
    positive = (u_context * v_center).sum(-1)
    negative = {negative}
    per_pair = {per_pair}
    return {ret}
'''


def sgns_source(negative="(u_negative * v_center[:, None, :]).sum(-1)",
                per_pair="-F.logsigmoid(positive) - F.logsigmoid(-negative).sum(-1)", ret="per_pair.mean()"):
    return _SGNS.format(negative=negative, per_pair=per_pair, ret=ret)


WRONG += [
    Wrong("pairs_with_itself", "skipgram_pairs", pairs_source(keep="True"), "check_skipgram_pairs",
          "itself at its own position"),
    Wrong("pairs_skip_equal_ids", "skipgram_pairs", pairs_source(keep="ids[j] != ids[i]"), "check_skipgram_pairs",
          "only the center's own position"),
    Wrong("pairs_window_too_wide", "skipgram_pairs",
          pairs_source(lo="max(0, i - window - 1)", hi="min(len(ids), i + window + 2)"), "check_skipgram_pairs",
          "window off by one"),
    Wrong("pairs_window_too_narrow", "skipgram_pairs",
          pairs_source(lo="max(0, i - window + 1)", hi="min(len(ids), i + window)"), "check_skipgram_pairs",
          "window off by one"),
    Wrong("pairs_right_short", "skipgram_pairs", pairs_source(hi="min(len(ids), i + window)"), "check_skipgram_pairs",
          "one word less to the right"),
    Wrong("pairs_after_only", "skipgram_pairs", pairs_source(lo="i + 1"), "check_skipgram_pairs",
          "only pair each word with the words after it"),
    Wrong("pairs_full_windows_only", "skipgram_pairs",
          "def skipgram_pairs(ids, window):\n    pairs = []\n    for i in range(window, len(ids) - window):\n"
          "        for j in range(i - window, i + window + 1):\n            if j != i:\n"
          "                pairs.append((ids[i], ids[j]))\n    return pairs\n",
          "check_skipgram_pairs", "missing as centers"),
    Wrong("pairs_negative_slice", "skipgram_pairs",
          "def skipgram_pairs(ids, window):\n    pairs = []\n    for i, center in enumerate(ids):\n"
          "        for other in ids[i - window:i] + ids[i + 1:i + window + 1]:\n"
          "            pairs.append((center, other))\n    return pairs\n",
          "check_skipgram_pairs", "negative counts from the end"),
    Wrong("pairs_set", "skipgram_pairs", pairs_source().replace("return pairs", "return list(set(pairs))"),
          "check_skipgram_pairs", "removed repeated pairs"),
    Wrong("pairs_window_in_all", "skipgram_pairs",
          pairs_source(lo="max(0, i - window // 2)", hi="min(len(ids), i + window // 2 + 1)"), "check_skipgram_pairs",
          "on *each* side"),
    Wrong("dist_cubed", "negative_distribution",
          "def negative_distribution(counts):\n    w = counts.double() ** 3 / 4\n    return w / w.sum()\n",
          "check_negative_distribution", "power 3"),
    Wrong("pairs_positions", "skipgram_pairs", pairs_source().replace("(ids[i], ids[j])", "(i, j)"),
          "check_skipgram_pairs", "hold positions (i, j)"),
    Wrong("pairs_last_not_center", "skipgram_pairs", pairs_source(centers="len(ids) - 1"), "check_skipgram_pairs",
          "last word is never a center"),
    Wrong("pairs_wrap_left", "skipgram_pairs", pairs_source(lo="i - window", keep="j != i and j < len(ids)"),
          "check_skipgram_pairs", "wrap around"),
    Wrong("dist_numpy", "negative_distribution",
          "import numpy as np\ndef negative_distribution(counts):\n    w = counts.numpy() ** 0.75\n"
          "    return w / w.sum()\n", "check_negative_distribution", "return a torch tensor"),
    Wrong("dist_power_zero", "negative_distribution",
          "def negative_distribution(counts):\n    w = counts.float() ** (3 // 4)\n    return w / w.sum()\n",
          "check_negative_distribution", "integer division"),
    Wrong("dist_add_one", "negative_distribution",
          "def negative_distribution(counts):\n    w = (counts + 1.0) ** 0.75\n    return w / w.sum()\n",
          "check_negative_distribution", "added one"),
    Wrong("dist_softmax", "negative_distribution",
          "def negative_distribution(counts):\n    return torch.exp(counts.double() ** 0.75) / "
          "torch.exp(counts.double() ** 0.75).sum()\n", "check_negative_distribution", "softmax"),
    Wrong("dist_max", "negative_distribution",
          "def negative_distribution(counts):\n    w = counts.double() ** 0.75\n    return w / w.max()\n",
          "check_negative_distribution", "largest"),
    Wrong("draw_shifted", "draw_negatives",
          "def draw_negatives(distribution, num_pairs, k):\n"
          "    starts = torch.cumsum(distribution, 0) - distribution\n"
          "    return torch.searchsorted(starts, torch.rand(num_pairs, k))\n",
          "check_draw_negatives", "shifted by one"),
    Wrong("draw_softmax", "draw_negatives",
          "def draw_negatives(distribution, num_pairs, k):\n    p = distribution.exp() / distribution.exp().sum()\n"
          "    return torch.multinomial(p, num_pairs * k, replacement=True).view(num_pairs, k)\n",
          "check_draw_negatives", "softmax(distribution)"),
    Wrong("sgns_positive_sign", "sgns_loss",
          sgns_source(per_pair="-F.logsigmoid(-positive) - F.logsigmoid(-negative).sum(-1)"), "check_sgns_loss",
          "context word's term"),
    Wrong("sgns_mean_all_terms", "sgns_loss",
          sgns_source(ret="(per_pair / (1 + u_negative.shape[1])).mean()"), "check_sgns_loss", "B * (k + 1)"),
    Wrong("sgns_softmax", "sgns_loss",
          sgns_source(per_pair="torch.cat([positive[:, None], negative], 1).exp().sum(1).log() - positive"),
          "check_sgns_loss", "a softmax"),
    Wrong("sgns_clamped", "sgns_loss",
          sgns_source(per_pair="-torch.log(torch.sigmoid(positive).clamp(min=1e-7)) - "
                               "torch.log(torch.sigmoid(-negative).clamp(min=1e-7)).sum(-1)"),
          "check_sgns_loss", "a clamp or an epsilon"),
    Wrong("dist_no_power", "negative_distribution",
          "def negative_distribution(counts):\n    return counts.float() / counts.sum()\n",
          "check_negative_distribution", "raise each count to the 3/4 power"),
    Wrong("dist_not_renormalised", "negative_distribution",
          "def negative_distribution(counts):\n    return counts.float() ** 0.75\n",
          "check_negative_distribution", "renormalise"),
    Wrong("dist_normalised_first", "negative_distribution",
          "def negative_distribution(counts):\n    return (counts / counts.sum()) ** 0.75\n",
          "check_negative_distribution", "normalised before"),
    Wrong("dist_four_thirds", "negative_distribution",
          "def negative_distribution(counts):\n    w = counts.double() ** (4 / 3)\n    return w / w.sum()\n",
          "check_negative_distribution", "power 4/3"),
    Wrong("dist_integer", "negative_distribution",
          "def negative_distribution(counts):\n    return counts * 3 // 4\n",
          "check_negative_distribution", "integers"),
    Wrong("draw_uniform", "draw_negatives",
          "def draw_negatives(distribution, num_pairs, k):\n    return torch.randint(len(distribution), (num_pairs, k))\n",
          "check_draw_negatives", "uniform"),
    Wrong("draw_transposed", "draw_negatives",
          "def draw_negatives(distribution, num_pairs, k):\n"
          "    return torch.multinomial(distribution, num_pairs * k, replacement=True).view(k, num_pairs)\n",
          "check_draw_negatives", "(k, num_pairs)"),
    Wrong("draw_without_replacement", "draw_negatives",
          "def draw_negatives(distribution, num_pairs, k):\n"
          "    return torch.stack([torch.multinomial(distribution, k) for _ in range(num_pairs)])\n",
          "check_draw_negatives", "without replacement"),
    Wrong("draw_powered_again", "draw_negatives",
          "def draw_negatives(distribution, num_pairs, k):\n    p = distribution ** 0.75\n"
          "    return torch.multinomial(p / p.sum(), num_pairs * k, replacement=True).view(num_pairs, k)\n",
          "check_draw_negatives", "3/4 power again"),
    Wrong("draw_same_row", "draw_negatives",
          "def draw_negatives(distribution, num_pairs, k):\n"
          "    return torch.multinomial(distribution, k, replacement=True).repeat(num_pairs, 1)\n",
          "check_draw_negatives", "same k negatives"),
    Wrong("draw_float", "draw_negatives",
          "def draw_negatives(distribution, num_pairs, k):\n"
          "    return torch.multinomial(distribution, num_pairs * k, replacement=True).view(num_pairs, k).float()\n",
          "check_draw_negatives", "integer (long)"),
    Wrong("sgns_negative_sign", "sgns_loss",
          sgns_source(per_pair="-F.logsigmoid(positive) - F.logsigmoid(negative).sum(-1)"), "check_sgns_loss",
          "sign of the negative term"),
    Wrong("sgns_mean_over_k", "sgns_loss",
          sgns_source(per_pair="-F.logsigmoid(positive) - F.logsigmoid(-negative).mean(-1)"), "check_sgns_loss",
          "averaged the k negatives"),
    Wrong("sgns_sum_over_batch", "sgns_loss", sgns_source(ret="per_pair.sum()"), "check_sgns_loss",
          "sum over the batch"),
    Wrong("sgns_no_minus", "sgns_loss", sgns_source(ret="-per_pair.mean()"), "check_sgns_loss", "negative of the right"),
    Wrong("sgns_per_pair", "sgns_loss", sgns_source(ret="per_pair"), "check_sgns_loss", "not one loss per pair"),
    Wrong("sgns_unstable", "sgns_loss",
          sgns_source(per_pair="-torch.log(torch.sigmoid(positive)) - torch.log(torch.sigmoid(-negative)).sum(-1)"),
          "check_sgns_loss", "F.logsigmoid"),
    Wrong("sgns_all_centers", "sgns_loss", sgns_source(negative="(u_negative @ v_center.T).sum(-1)"),
          "check_sgns_loss", "mix the pairs"),
    Wrong("sgns_no_negatives", "sgns_loss", sgns_source(per_pair="-F.logsigmoid(positive)"), "check_sgns_loss",
          "negative term is missing"),
    Wrong("sgns_detached", "sgns_loss", sgns_source(ret="torch.tensor(per_pair.mean().item())"), "check_sgns_loss",
          "no gradient reaches"),
]

#: Correct answers in other styles: plain loops, numpy, torch.eye, einsum.
ALTERNATIVES = {
    "loops": {
        "skipgram_pairs": '''def skipgram_pairs(ids, window):
    pairs = []
    for i, center in enumerate(ids):
        before = ids[max(0, i - window):i]
        after = ids[i + 1:i + 1 + window]
        pairs += [[center, other] for other in before + after]
    return pairs
''',
        "negative_distribution": '''def negative_distribution(counts):
    powered = [c ** 0.75 for c in counts.tolist()]
    total = sum(powered)
    return torch.tensor([p / total for p in powered])
''',
        "draw_negatives": '''import random
def draw_negatives(distribution, num_pairs, k):
    words = list(range(len(distribution)))
    weights = distribution.tolist()
    return torch.tensor([random.choices(words, weights, k=k) for _ in range(num_pairs)])
''',
        "sgns_loss": '''import math
def sgns_loss(v_center, u_context, u_negative):
    losses = []
    for v, u, negs in zip(v_center, u_context, u_negative):
        loss = -torch.nn.functional.logsigmoid(u @ v)
        for n in negs:
            loss = loss - torch.nn.functional.logsigmoid(-(n @ v))
        losses.append(loss)
    return sum(losses) / len(losses)
''',
        "make_windows": '''def make_windows(ids, context_size, bos_id, eos_id):
    history = [bos_id] * context_size
    pairs = []
    for word in list(ids) + [eos_id]:
        pairs.append((tuple(history[-context_size:]), word))
        history.append(word)
    return pairs
''',
        "one_hot": '''def one_hot(ids, vocab_size):
    flat = ids.reshape(-1)
    out = torch.zeros(len(flat), vocab_size, device=ids.device)
    for row, i in enumerate(flat.tolist()):
        out[row, i] = 1.0
    return out.reshape(*ids.shape, vocab_size)
''',
        "ffnn_forward": '''def ffnn_forward(idx, params):
    B, n = idx.shape
    x = torch.cat([params["C"][idx[:, j]] for j in range(n)], dim=1)
    logits = []
    for row in x:
        h = torch.tanh(params["H"] @ row + params["d"])
        y = params["U"] @ h + params["b"]
        if params["W"] is not None:
            y = y + params["W"] @ row
        logits.append(y)
    return torch.stack(logits)
''',
        "cross_entropy": '''def cross_entropy(logits, targets):
    losses = []
    for row, t in zip(logits, targets.tolist()):
        m = row.max()
        losses.append(m + (row - m).exp().sum().log() - row[t])
    return torch.stack(losses).mean()
''',
        "nearest_neighbours": '''def nearest_neighbours(E, word_id, k):
    def cos(u, v):
        return float(u @ v) / (float(u.norm()) * float(v.norm()))
    scored = [(cos(E[word_id], E[i]), i) for i in range(len(E)) if i != word_id]
    scored.sort(reverse=True)
    return [i for _, i in scored[:k]]
''',
    },
    "vectorised": {
        "skipgram_pairs": '''def skipgram_pairs(ids, window):
    ids = torch.tensor(ids, dtype=torch.long)
    chunks = []
    for offset in range(1, window + 1):
        chunks.append(torch.stack([ids[:-offset], ids[offset:]], 1))
        chunks.append(torch.stack([ids[offset:], ids[:-offset]], 1))
    return torch.cat(chunks) if len(ids) > 1 else torch.zeros(0, 2, dtype=torch.long)
''',
        "negative_distribution": '''import numpy as np
def negative_distribution(counts):
    w = np.power(counts.numpy().astype(np.float64), 0.75)
    return torch.from_numpy(w / w.sum())
''',
        "draw_negatives": '''import numpy as np
def draw_negatives(distribution, num_pairs, k):
    p = distribution.double().numpy()
    return torch.from_numpy(np.random.default_rng().choice(len(p), size=(num_pairs, k), p=p / p.sum()))
''',
        "sgns_loss": '''def sgns_loss(v_center, u_context, u_negative):
    scores = torch.bmm(torch.cat([u_context[:, None, :], -u_negative], 1), v_center[:, :, None])[..., 0]  # (B, 1 + k)
    return torch.nn.functional.softplus(-scores).sum(1).mean()
''',
        "one_hot": '''def one_hot(ids, vocab_size):
    return torch.eye(vocab_size, device=ids.device)[ids]
''',
        "ffnn_forward": '''def ffnn_forward(idx, params):
    x = torch.nn.functional.embedding(idx, params["C"]).reshape(idx.shape[0], -1)
    h = torch.tanh(torch.einsum("hi,bi->bh", params["H"], x) + params["d"])
    y = torch.nn.functional.linear(h, params["U"], params["b"])
    return y if params["W"] is None else y + torch.nn.functional.linear(x, params["W"])
''',
        "cross_entropy": '''import numpy as np
def cross_entropy(logits, targets):
    z = logits.detach().cpu().double().numpy()
    m = z.max(axis=1, keepdims=True)
    lse = (m + np.log(np.exp(z - m).sum(axis=1, keepdims=True)))[:, 0]
    loss = (lse - z[np.arange(len(z)), targets.cpu().numpy()]).mean()
    return torch.tensor(loss, dtype=logits.dtype, device=logits.device)
''',
        "nearest_neighbours": '''def nearest_neighbours(E, word_id, k):
    sims = torch.nn.functional.cosine_similarity(E, E[word_id:word_id + 1], dim=1)
    sims[word_id] = sims.min() - 1
    return torch.topk(sims, k).indices
''',
    },
}

#: Answers that call what the exercise asks the student to write.
CHEATS = [
    Wrong("windows_calls_course_lib", "make_windows",
          "from course_lib.ffnn import context_windows\ndef make_windows(ids, context_size, bos_id, eos_id):\n"
          "    X, Y = context_windows([ids], context_size, bos_id, eos_id)\n"
          "    return [(tuple(x), y) for x, y in zip(X.tolist(), Y.tolist())]\n",
          "check_make_windows", "switched off"),
    Wrong("one_hot_calls_torch", "one_hot",
          "import torch.nn.functional as F\ndef one_hot(ids, vocab_size):\n    return F.one_hot(ids, vocab_size).float()\n",
          "check_one_hot", "switched off"),
    Wrong("ce_calls_torch", "cross_entropy",
          "import torch.nn.functional as F\ndef cross_entropy(logits, targets):\n    return F.cross_entropy(logits, targets)\n",
          "check_cross_entropy", "switched off"),
    Wrong("ce_logsumexp", "cross_entropy",
          "def cross_entropy(logits, targets):\n"
          "    return (logits.logsumexp(-1) - logits[torch.arange(len(targets)), targets]).mean()\n",
          "check_cross_entropy", "switched off"),
    Wrong("forward_calls_model", "ffnn_forward",
          "from course_lib.ffnn import FFNNConfig, FFNNLanguageModel\ndef ffnn_forward(idx, params):\n"
          "    V, m = params['C'].shape\n"
          "    net = FFNNLanguageModel(FFNNConfig(V, idx.shape[1], m, params['H'].shape[0], params['W'] is not None))\n"
          "    net.C.weight.data = params['C']; net.H.weight.data = params['H']; net.H.bias.data = params['d']\n"
          "    net.U.weight.data = params['U']; net.U.bias.data = params['b']\n"
          "    if net.W is not None:\n        net.W.weight.data = params['W']\n"
          "    return net(idx)[0]\n",
          "check_ffnn_forward", "switched off"),
]

CHEATS += [
    Wrong("sgns_calls_bce", "sgns_loss",
          "import torch.nn.functional as F\ndef sgns_loss(v_center, u_context, u_negative):\n"
          "    logits = torch.cat([(u_context * v_center).sum(-1, keepdim=True),\n"
          "                        (u_negative * v_center[:, None]).sum(-1)], 1)\n"
          "    labels = torch.zeros_like(logits)\n    labels[:, 0] = 1\n"
          "    return F.binary_cross_entropy_with_logits(logits, labels, reduction='none').sum(1).mean()\n",
          "check_sgns_loss", "switched off"),
    Wrong("sgns_calls_course_lib", "sgns_loss",
          "from course_lib.skipgram import sgns_loss as course_loss\n"
          "def sgns_loss(v_center, u_context, u_negative):\n    return course_loss(v_center, u_context, u_negative)\n",
          "check_sgns_loss", "switched off"),
    Wrong("pairs_calls_course_lib", "skipgram_pairs",
          "import course_lib.skipgram as sg\ndef skipgram_pairs(ids, window):\n"
          "    return sg.skipgram_pairs([ids], window).tolist()\n",
          "check_skipgram_pairs", "switched off"),
]

#: Answer cells replaced by a stub that raises NotImplementedError, and the test cell that must say so.
STUBS = [("make_windows", "check_make_windows"), ("one_hot", "check_one_hot"), ("ffnn_forward", "check_ffnn_forward"),
         ("cross_entropy", "check_cross_entropy"), ("nearest_neighbours", "check_nearest_neighbours"),
         ("skipgram_pairs", "check_skipgram_pairs"), ("negative_distribution", "check_negative_distribution"),
         ("draw_negatives", "check_draw_negatives"), ("sgns_loss", "check_sgns_loss")]

#: An answer cell whose infinite loop costs only its own test cell.
LOOP = ("nearest_neighbours", "check_nearest_neighbours")
