"""Answers to notebook 05 for testing its checks: right ones written differently, and known mistakes.

Each wrong answer replaces one answer cell (by grade_id) and must fail exactly one
test cell with a message that names the mistake.
"""
from answer_catalogue import Wrong

NOTEBOOK = "05_self_attention"

_SELF_ATTENTION = '''def self_attention(Q, K, V, mask=None):
    scores = attention_scores(Q, K)
    if mask is not None:
        {mask_line}
    weights = softmax(scores, dim={dim})
    {after}
    return {output}, weights
'''


def self_attention_source(mask_line='scores = scores.masked_fill(~mask, float("-inf"))', dim="-1", after="",
                          output="weights @ V"):
    return _SELF_ATTENTION.format(mask_line=mask_line, dim=dim, after=after or "pass", output=output)




_ADDITIVE = '''def additive_score(Q, K, W, U, v):
    q = ({q}).unsqueeze(-2)
    k = ({k}).unsqueeze(-3)
    hidden = {hidden}
    return {score}
'''


def _additive_source(q="Q @ W.T", k="K @ U.T", hidden="torch.tanh(q + k)", score="hidden @ v"):
    return _ADDITIVE.format(q=q, k=k, hidden=hidden, score=score)


WRONG = [
    Wrong("no_scaling", "attention_scores", "def attention_scores(Q, K):\n    return Q @ K.transpose(-2, -1)\n",
          "check_attention_scores", "not divided by sqrt(d_k)"),
    Wrong("transposed_roles", "attention_scores",
          "import math\ndef attention_scores(Q, K):\n    return K @ Q.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n",
          "check_attention_scores", "transposed"),
    Wrong("softmax_wrong_axis", "softmax",
          "def softmax(x, dim=-1):\n    e = torch.exp(x - x.amax(dim=0, keepdim=True))\n    return e / e.sum(dim=0, keepdim=True)\n",
          "check_softmax", "wrong axis", also_fails=("check_space_invader",)),
    Wrong("softmax_global_max", "softmax",
          "def softmax(x, dim=-1):\n    e = torch.exp(x - x.max())\n    return e / e.sum(dim=dim, keepdim=True)\n",
          "check_softmax", "a maximum that is not each row's own"),
    Wrong("softmax_unstable", "softmax",
          "def softmax(x, dim=-1):\n    e = torch.exp(x)\n    return e / e.sum(dim=dim, keepdim=True)\n",
          "check_softmax", "subtract the maximum"),
    Wrong("attention_softmax_wrong_axis", "self_attention", self_attention_source(dim="-2"),
          "check_self_attention", "wrong axis"),
    Wrong("mask_after_softmax", "self_attention",
          self_attention_source(mask_line="pass", after="weights = weights.masked_fill(~mask, 0.0) if mask is not None else weights"),
          "check_self_attention", "after the softmax"),
    Wrong("mask_with_zero", "self_attention", self_attention_source(mask_line="scores = scores.masked_fill(~mask, 0.0)"),
          "check_self_attention", "instead of -inf"),
    Wrong("weights_not_times_V", "self_attention", self_attention_source(output="weights"),
          "check_self_attention", "multiply them by V"),
    Wrong("causal_mask_inverted", "causal_mask",
          "def causal_mask(n):\n    return torch.ones(n, n, dtype=torch.bool).triu(1)\n",
          "check_causal_mask", "inverted", also_fails=("check_space_invader",)),
    Wrong("slide_z", "table_z", "z_machines = [0.24, 0.55]\n", "check_table_z", "slide"),
    Wrong("typed_rounded_z", "table_z", "z_machines = [0.2331, 0.5464]\n", "check_table_z", "instead of typing"),
    Wrong("typed_rounded_brown_dog", "brown_dog", "brown_dog_weights = [0.0180, 0.9820, 0.0, 0.0]\n",
          "check_brown_dog", "instead of typing"),
    Wrong("brown_dog_divided_by_dk", "brown_dog", "brown_dog_weights = softmax(brown_scores / 64)\n",
          "check_brown_dog", "divided by d_k"),
    Wrong("brown_dog_unscaled", "brown_dog", "brown_dog_weights = softmax(brown_scores)\n",
          "check_brown_dog", "without the division by sqrt(64)"),
    Wrong("brown_dog_scaled_after_softmax", "brown_dog", "brown_dog_weights = softmax(brown_scores) / 8\n",
          "check_brown_dog", "after the softmax instead of before it"),
    Wrong("causal_mask_no_diagonal", "causal_mask",
          "def causal_mask(n):\n    return torch.ones(n, n, dtype=torch.bool).tril(-1)\n",
          "check_causal_mask", "the diagonal must be True", also_fails=("check_space_invader",)),
    # the score functions of section 1
    Wrong("dot_transposed", "dot_score", "def dot_score(Q, K):\n    return K @ Q.transpose(-2, -1)\n",
          "check_dot_score", "transposed"),
    Wrong("dot_scaled", "dot_score", "def dot_score(Q, K):\n    return Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n",
          "check_dot_score", "no scaling"),
    Wrong("dot_same_position_only", "dot_score", "def dot_score(Q, K):\n    return (Q * K).sum(-1)\n",
          "check_dot_score", "key i only"),
    Wrong("dot_K_T_in_a_batch", "dot_score", "def dot_score(Q, K):\n    return Q @ K.T\n",
          "check_dot_score", "K.transpose(-2, -1)"),
    Wrong("scaled_not_scaled", "scaled_dot_score", "def scaled_dot_score(Q, K):\n    return dot_score(Q, K)\n",
          "check_scaled_dot_score", "not divided by sqrt(d_k)"),
    Wrong("scaled_by_dk", "scaled_dot_score", "def scaled_dot_score(Q, K):\n    return dot_score(Q, K) / Q.shape[-1]\n",
          "check_scaled_dot_score", "divided by d_k"),
    Wrong("scaled_by_sqrt_n_k", "scaled_dot_score",
          "def scaled_dot_score(Q, K):\n    return Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-2])\n",
          "check_scaled_dot_score", "number of keys"),
    Wrong("scaled_by_sqrt_shape_1", "scaled_dot_score",
          "def scaled_dot_score(Q, K):\n    return Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[1])\n",
          "check_scaled_dot_score", "number of queries"),
    Wrong("bilinear_W_transposed", "bilinear_score",
          "def bilinear_score(Q, K, W):\n    return Q @ W.T @ K.transpose(-2, -1)\n",
          "check_bilinear_score", "W transposed"),
    Wrong("bilinear_keys_times_W", "bilinear_score",
          "def bilinear_score(Q, K, W):\n    return Q @ (K @ W).transpose(-2, -1)\n",
          "check_bilinear_score", "W transposed"),
    Wrong("bilinear_W_ignored", "bilinear_score", "def bilinear_score(Q, K, W):\n    return Q @ K.transpose(-2, -1)\n",
          "check_bilinear_score", "ignores W"),
    Wrong("bilinear_transposed_roles", "bilinear_score",
          "def bilinear_score(Q, K, W):\n    return K @ W.T @ Q.transpose(-2, -1)\n",
          "check_bilinear_score", "transposed: entry"),
    Wrong("additive_no_tanh", "additive_score", _additive_source(hidden="q + k"),
          "check_additive_score", "no tanh"),
    Wrong("additive_tanh_after_v", "additive_score", _additive_source(hidden="q + k", score="torch.tanh(hidden @ v)"),
          "check_additive_score", "tanh after the dot product with v"),
    Wrong("additive_W_U_swapped", "additive_score", _additive_source(q="Q @ U.T", k="K @ W.T"),
          "check_additive_score", "swapped"),
    Wrong("additive_untransposed", "additive_score", _additive_source(q="Q @ W", k="K @ U"),
          "check_additive_score", "untransposed"),
    Wrong("additive_no_v", "additive_score", _additive_source(score="hidden.sum(-1)"),
          "check_additive_score", "weighting them by v"),
    Wrong("additive_tanh_each_part", "additive_score", _additive_source(hidden="torch.tanh(q) + torch.tanh(k)"),
          "check_additive_score", "separately"),
    # from the blind set (written without seeing the checks)
    Wrong("dot_bmm", "dot_score", "def dot_score(Q, K):\n    return torch.bmm(Q, K.transpose(1, 2))\n",
          "check_dot_score", "exactly one batch axis"),
    Wrong("dot_softmax", "dot_score", "def dot_score(Q, K):\n    return torch.softmax(Q @ K.transpose(-2, -1), dim=-1)\n",
          "check_dot_score", "return the raw scores"),
    Wrong("dot_cosine", "dot_score",
          "def dot_score(Q, K):\n    Q = Q / Q.norm(dim=-1, keepdim=True)\n    K = K / K.norm(dim=-1, keepdim=True)\n"
          "    return Q @ K.transpose(-2, -1)\n", "check_dot_score", "cosine"),
    Wrong("dot_float32", "dot_score", "def dot_score(Q, K):\n    return Q.float() @ K.float().transpose(-2, -1)\n",
          "check_dot_score", "dtype float32 where float64"),
    Wrong("scaled_precedence", "scaled_dot_score",
          "def scaled_dot_score(Q, K):\n    d_k = K.shape[-1]\n    return dot_score(Q, K) / d_k ** 1/2\n",
          "check_scaled_dot_score", "binds tighter"),
    Wrong("scaled_fixed_sqrt_2", "scaled_dot_score", "def scaled_dot_score(Q, K):\n    return dot_score(Q, K) / math.sqrt(2)\n",
          "check_scaled_dot_score", "the small example's d_k"),
    Wrong("scaled_K_shape_1", "scaled_dot_score",
          "def scaled_dot_score(Q, K):\n    return dot_score(Q, K) / math.sqrt(K.shape[1])\n",
          "check_scaled_dot_score", "number of keys"),
    Wrong("bilinear_mm", "bilinear_score", "def bilinear_score(Q, K, W):\n    return torch.mm(torch.mm(Q, W), K.t())\n",
          "check_bilinear_score", "any number of leading batch axes"),
    Wrong("bilinear_same_position_only", "bilinear_score", "def bilinear_score(Q, K, W):\n    return ((Q @ W) * K).sum(-1)\n",
          "check_bilinear_score", "key i only"),
    Wrong("additive_two_dims_only", "additive_score",
          "def additive_score(Q, K, W, U, v):\n    h = torch.tanh((Q @ W.T)[:, None, :] + (K @ U.T)[None, :, :])\n"
          "    return (h * v).sum(-1)\n", "check_additive_score", "single sequence"),
    Wrong("additive_softmax", "additive_score", _additive_source(score="torch.softmax(hidden @ v, dim=-1)"),
          "check_additive_score", "return the raw scores"),
]

#: Correct answers in other styles: explicit loops, numpy inside, other torch idioms.
ALTERNATIVES = {
    "loops": {
        "attention_scores": '''def attention_scores(Q, K):
    n_q, n_k, d_k = Q.shape[-2], K.shape[-2], Q.shape[-1]
    out = torch.zeros(*Q.shape[:-2], n_q, n_k, dtype=Q.dtype, device=Q.device)
    for i in range(n_q):
        for j in range(n_k):
            out[..., i, j] = (Q[..., i, :] * K[..., j, :]).sum(-1) / d_k ** 0.5
    return out
''',
        "softmax": '''def softmax(x, dim=-1):
    x = x.movedim(dim, -1)
    flat = x.reshape(-1, x.shape[-1])
    rows = []
    for row in flat:
        m = max(float(v) for v in row)
        e = [math.exp(float(v) - m) for v in row]
        total = sum(e)
        rows.append([v / total for v in e])
    return torch.tensor(rows, dtype=x.dtype, device=x.device).reshape(x.shape).movedim(-1, dim)
''',
        "causal_mask": '''def causal_mask(n):
    return torch.tensor([[j <= i for j in range(n)] for i in range(n)])
''',
        "dot_score": '''def dot_score(Q, K):
    out = torch.zeros(*Q.shape[:-1], K.shape[-2], dtype=Q.dtype, device=Q.device)
    for j in range(K.shape[-2]):
        out[..., j] = (Q * K[..., j:j + 1, :]).sum(-1)
    return out
''',
        "scaled_dot_score": '''def scaled_dot_score(Q, K):
    return dot_score(Q, K) / K.shape[-1] ** 0.5
''',
        "bilinear_score": '''def bilinear_score(Q, K, W):
    out = torch.empty(*Q.shape[:-1], K.shape[-2], dtype=Q.dtype, device=Q.device)
    for i in range(Q.shape[-2]):
        for j in range(K.shape[-2]):
            out[..., i, j] = ((Q[..., i, :] @ W) * K[..., j, :]).sum(-1)
    return out
''',
        "additive_score": '''def additive_score(Q, K, W, U, v):
    out = torch.empty(*Q.shape[:-1], K.shape[-2], dtype=Q.dtype, device=Q.device)
    for i in range(Q.shape[-2]):
        for j in range(K.shape[-2]):
            hidden = torch.tanh(Q[..., i, :] @ W.T + K[..., j, :] @ U.T)
            out[..., i, j] = hidden @ v
    return out
''',
    },
    "numpy": {
        "attention_scores": '''import numpy as np
def attention_scores(Q, K):
    q, k = Q.detach().cpu().numpy(), K.detach().cpu().numpy()
    s = np.matmul(q, np.swapaxes(k, -1, -2)) / np.sqrt(q.shape[-1])
    return torch.from_numpy(s).to(device=Q.device, dtype=Q.dtype)
''',
        "softmax": '''import numpy as np
def softmax(x, dim=-1):
    a = x.detach().cpu().numpy()
    e = np.exp(a - a.max(axis=dim, keepdims=True))
    return torch.from_numpy(e / e.sum(axis=dim, keepdims=True)).to(x.device)
''',
        "self_attention": '''def self_attention(Q, K, V, mask=None):
    scores = torch.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(K.size(-1))
    if mask is not None:
        scores = torch.where(mask, scores, torch.full_like(scores, -math.inf))
    weights = softmax(scores, dim=-1)
    return torch.einsum("...qk,...kd->...qd", weights, V), weights
''',
        "table_z": "z_machines = [float(v) for v in machines_weighted_values.sum(0)]\n",
        "dot_score": '''import numpy as np
def dot_score(Q, K):
    q, k = Q.detach().cpu().numpy(), K.detach().cpu().numpy()
    return torch.from_numpy(np.matmul(q, np.swapaxes(k, -1, -2))).to(Q.device)
''',
        "bilinear_score": '''import numpy as np
def bilinear_score(Q, K, W):
    q, k, w = (t.detach().cpu().numpy() for t in (Q, K, W))
    return torch.from_numpy(np.einsum("...ia,ab,...jb->...ij", q, w, k)).to(Q.device)
''',
    },
    "idioms": {
        "dot_score": '''def dot_score(Q, K):
    return torch.einsum("...qd,...kd->...qk", Q, K)
''',
        "scaled_dot_score": '''def scaled_dot_score(Q, K):
    d_k = K.size(-1)
    return torch.matmul(Q, K.mT) * d_k ** -0.5
''',
        "bilinear_score": '''def bilinear_score(Q, K, W):
    return Q @ (K @ W.T).transpose(-2, -1)
''',
        "additive_score": '''import torch.nn.functional as F
def additive_score(Q, K, W, U, v):
    hidden = torch.tanh(F.linear(Q, W)[..., :, None, :] + F.linear(K, U)[..., None, :, :])
    return F.linear(hidden, v[None]).squeeze(-1)
''',
        "attention_scores": '''def attention_scores(Q, K):
    return scaled_dot_score(Q, K)
''',
        # stable through the log-sum-exp, not the maximum: right, though its exponent rounds in float32 near 1000
        "softmax": '''def softmax(x, dim=-1):
    return torch.exp(x - torch.logsumexp(x, dim=dim, keepdim=True))
''',
    },
    "broadcast": {
        "dot_score": '''def dot_score(Q, K):
    return (Q.unsqueeze(-2) * K.unsqueeze(-3)).sum(dim=-1)
''',
        "scaled_dot_score": '''def scaled_dot_score(Q, K):
    return torch.matmul(Q / math.sqrt(Q.shape[-1]), K.transpose(-2, -1))
''',
        "bilinear_score": '''def bilinear_score(Q, K, W):
    keys = K @ W.transpose(0, 1)
    return (Q.unsqueeze(-2) * keys.unsqueeze(-3)).sum(dim=-1)
''',
        "additive_score": '''def additive_score(Q, K, W, U, v):
    Wq = torch.einsum("ad,...id->...ia", W, Q)
    Uk = torch.einsum("ad,...jd->...ja", U, K)
    return torch.einsum("...ija,a->...ij", torch.tanh(Wq[..., :, None, :] + Uk[..., None, :, :]), v)
''',
    },
    "concatenation": {
        "additive_score": '''def additive_score(Q, K, W, U, v):
    n_q, n_k = Q.shape[-2], K.shape[-2]
    queries = Q.unsqueeze(-2).expand(*Q.shape[:-2], n_q, n_k, Q.shape[-1])
    keys = K.unsqueeze(-3).expand(*K.shape[:-2], n_q, n_k, K.shape[-1])
    W1 = torch.cat([W, U], dim=1)                 # the lecture's W_1 [q; k]
    return torch.tanh(torch.cat([queries, keys], dim=-1) @ W1.T) @ v
''',
    },
}

#: Answers that call what the exercise asks the student to write.
CHEATS = [
    Wrong("softmax_calls_torch", "softmax", "def softmax(x, dim=-1):\n    return torch.softmax(x, dim)\n",
          "check_softmax", "switched off"),
    Wrong("softmax_imported_alias", "softmax",
          "from torch.nn.functional import softmax as _sm\ndef softmax(x, dim=-1):\n    return _sm(x, dim=dim)\n",
          "check_softmax", "switched off"),
    Wrong("softmax_method", "softmax", "def softmax(x, dim=-1):\n    return x.softmax(dim)\n",
          "check_softmax", "switched off"),
    Wrong("attention_calls_sdpa", "self_attention",
          "import torch.nn.functional as F\ndef self_attention(Q, K, V, mask=None):\n"
          "    out = F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)\n"
          "    return out, softmax(attention_scores(Q, K), -1)\n",
          "check_self_attention", "switched off"),
    Wrong("bilinear_calls_torch", "bilinear_score",
          "import torch.nn.functional as F\ndef bilinear_score(Q, K, W):\n"
          "    n_q, n_k = Q.shape[-2], K.shape[-2]\n"
          "    q = Q.unsqueeze(-2).expand(*Q.shape[:-2], n_q, n_k, Q.shape[-1]).contiguous()\n"
          "    k = K.unsqueeze(-3).expand(*K.shape[:-2], n_q, n_k, K.shape[-1]).contiguous()\n"
          "    return F.bilinear(q, k, W[None]).squeeze(-1)\n",
          "check_bilinear_score", "switched off"),
    Wrong("dot_calls_course_lib", "dot_score",
          "from course_lib.seq2seq import dot_score as reference\ndef dot_score(Q, K):\n    return reference(Q, K)\n",
          "check_dot_score", "switched off"),
    Wrong("scaled_calls_course_lib", "scaled_dot_score",
          "from course_lib.attention import attention_scores\ndef scaled_dot_score(Q, K):\n    return attention_scores(Q, K)\n",
          "check_scaled_dot_score", "switched off"),
    Wrong("attention_calls_course_lib", "self_attention",
          "from course_lib.attention import scaled_dot_product_attention\n"
          "def self_attention(Q, K, V, mask=None):\n    return scaled_dot_product_attention(Q, K, V, mask)\n",
          "check_self_attention", "switched off"),
]

#: Answer cells replaced by a stub that raises NotImplementedError, and the test cell that must say so.
STUBS = [("attention_scores", "check_attention_scores"), ("softmax", "check_softmax"),
         ("self_attention", "check_self_attention"), ("causal_mask", "check_causal_mask"),
         ("dot_score", "check_dot_score"), ("scaled_dot_score", "check_scaled_dot_score"),
         ("bilinear_score", "check_bilinear_score"), ("additive_score", "check_additive_score")]

#: An answer cell whose infinite loop costs only its own test cell.
LOOP = ("brown_dog", "check_brown_dog")
