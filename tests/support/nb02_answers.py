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

#: Correct answers in other styles: plain loops, numpy, torch.eye, einsum.
ALTERNATIVES = {
    "loops": {
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

#: Answer cells replaced by a stub that raises NotImplementedError, and the test cell that must say so.
STUBS = [("make_windows", "check_make_windows"), ("one_hot", "check_one_hot"), ("ffnn_forward", "check_ffnn_forward"),
         ("cross_entropy", "check_cross_entropy"), ("nearest_neighbours", "check_nearest_neighbours")]

#: An answer cell whose infinite loop costs only its own test cell.
LOOP = ("nearest_neighbours", "check_nearest_neighbours")
