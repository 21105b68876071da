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




WRONG = [
    Wrong("no_scaling", "attention_scores", "def attention_scores(Q, K):\n    return Q @ K.transpose(-2, -1)\n",
          "check_attention_scores", "not divided by sqrt(d_k)"),
    Wrong("transposed_roles", "attention_scores",
          "import math\ndef attention_scores(Q, K):\n    return K @ Q.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n",
          "check_attention_scores", "transposed"),
    Wrong("softmax_wrong_axis", "softmax",
          "def softmax(x, dim=-1):\n    e = torch.exp(x - x.amax(dim=0, keepdim=True))\n    return e / e.sum(dim=0, keepdim=True)\n",
          "check_softmax", "wrong axis", also_fails=("check_space_invader",)),
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
    Wrong("attention_calls_course_lib", "self_attention",
          "from course_lib.attention import scaled_dot_product_attention\n"
          "def self_attention(Q, K, V, mask=None):\n    return scaled_dot_product_attention(Q, K, V, mask)\n",
          "check_self_attention", "switched off"),
]

#: Answer cells replaced by a stub that raises NotImplementedError, and the test cell that must say so.
STUBS = [("attention_scores", "check_attention_scores"), ("softmax", "check_softmax"),
         ("self_attention", "check_self_attention"), ("causal_mask", "check_causal_mask")]

#: An answer cell whose infinite loop costs only its own test cell.
LOOP = ("brown_dog", "check_brown_dog")
