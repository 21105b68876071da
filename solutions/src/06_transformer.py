# ---
# cell_timeout: 180
# checks: course_lib.checks.transformer
# ---

# %% [markdown]
# # 06 · The Transformer
#
# Notebook 05 built one attention head: $\mathrm{softmax}(QK^\top/\sqrt{d_k})\,V$. The Transformer
# (Vaswani et al., 2017, "Attention is all you need") is that head, several times side by side, plus
# a few parts that make it trainable and deep (the
# lectures "Machine Learning, Big Data and AI: Block 6", "LSTMs & Transformers" and "Pre-trained NLP Model: BERT"):
#
# - **positional encoding**: attention alone does not know the order of the words;
# - **multi-head attention**: $h$ heads, each in its own $d_{head} = d_{model}/h$ dimensions;
# - **add & norm**: a residual connection and a LayerNorm around every sublayer;
# - the **encoder block** (self-attention + a position-wise feed-forward network) and the
#   **decoder block** (masked self-attention + cross-attention + feed-forward).
#
# In this notebook you will write the first four as functions, each checked against PyTorch's own
# module with the same weights; measure the complexity argument of the lecture "LSTMs & Transformers"
# (attention costs $O(n^2 d)$, recurrence $O(n d^2)$ and $n$ sequential steps); write the sampler
# that turns a model's logits into text (temperature and top-k); build a character language model
# from your own blocks, train it beside the course's on the same Python source as notebook 04's LSTM
# and let it write with your sampler; then compare every language model of the course on that
# corpus. Last, the whole encoder-decoder Transformer, your encoder blocks with the course's decoder
# blocks, learns notebook 05's reversal task (its cross-attention beside 05's alignment, and the GRU
# against it at equal compute), and the output layer's cost is measured as the vocabulary grows.
#
# **How the exercises work.** As before: fill in the cells with `# YOUR CODE HERE`, then run the
# read-only `"""Check my answer ..."""` cell after it. When graded, the checks run again with hidden
# cases (other sizes, float64). Weights are passed as a dict of tensors in `nn.Linear`'s convention,
# $y = x W^\top + b$. The notebook runs in about a minute on a laptop CPU.

# %% [setup] id=setup
import math

import matplotlib.pyplot as plt
import torch
from IPython.display import Markdown, display
from torch import nn

from course_lib import complexity
from course_lib.checks import transformer as checks
from course_lib.device import get_device, torch_threads
from course_lib.lstm import LSTMLayer
from course_lib import transformer
from course_lib.transformer import BlockConfig, DecoderBlock, copy_from_torch, positional_shift_matrices
checks.install_notebook_hooks()  # an answer not written yet says so in one line, not a traceback

torch.set_printoptions(precision=4, sci_mode=False)
device = get_device()
print(f"torch {torch.__version__}, running on {device}")

# %% [markdown]
# ## 1. Where is each word? Positional encoding
#
# Self-attention treats its input as a *set*: shuffle the words and every word gets the same output
# as before, only shuffled. "Dog bites man" and "man bites dog" would look the same. The check, with
# PyTorch's attention layer:

# %% [demo]
torch.manual_seed(0)
attention = nn.MultiheadAttention(embed_dim=8, num_heads=2, batch_first=True).eval()
words = torch.randn(1, 5, 8)  # (batch, 5 words, d_model)
shuffle = torch.tensor([3, 0, 4, 1, 2])
with torch.no_grad():
    out, _ = attention(words, words, words)
    out_shuffled, _ = attention(words[:, shuffle], words[:, shuffle], words[:, shuffle])
print("shuffling the words only shuffles the outputs:", torch.allclose(out[:, shuffle], out_shuffled, atol=1e-6))

# %% [markdown]
# So the Transformer adds to each word's embedding a vector that depends on its position. The paper
# (and the lecture "Pre-trained NLP Model: BERT") uses fixed sines and cosines of different frequencies:
#
# $$PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right), \qquad
#   PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)$$
#
# Column pairs $(2i, 2i+1)$ share one frequency $\omega_i = 1/10000^{2i/d_{model}}$: the first pair
# turns fast (one turn every $2\pi \approx 6$ positions), the last ones very slowly. Positions start at 0.
#
# Write `positional_encoding(max_len, d_model)` returning the (max_len, d_model) table as a float
# tensor (`d_model` is even).

# %% [answer] id=positional_encoding
def positional_encoding(max_len, d_model):
    """The sinusoidal table: (max_len, d_model), PE[pos, 2i] = sin(pos * w_i), PE[pos, 2i+1] = cos(pos * w_i)."""
    ### BEGIN SOLUTION
    pos = torch.arange(max_len, dtype=torch.float64)[:, None]  # (max_len, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (d_model/2,): 0, 2, 4, ...
    angle = pos / 10000 ** (two_i / d_model)  # (max_len, d_model/2)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle)
    return pe
    ### END SOLUTION

# %% [tests] id=check_positional_encoding points=2
"""Check my answer: against the formula for (max_len, d_model) = (50, 16) and (7, 4)."""
checks.check_positional_encoding(positional_encoding)
### BEGIN HIDDEN TESTS
checks.check_positional_encoding(positional_encoding, sizes=((1, 2), (100, 64), (13, 6)))
### END HIDDEN TESTS

# %% [markdown]
# Each row is one position's vector. Low columns oscillate quickly along the positions, high columns
# slowly, like the digits of a counter, so every position gets a different pattern:

# %% [demo]
pe = positional_encoding(100, 64)
fig, (ax_map, ax_lines) = plt.subplots(1, 2, figsize=(12, 3.5))
image = ax_map.imshow(pe.T, aspect="auto", cmap="RdBu_r", vmin=-1, vmax=1)
ax_map.set(xlabel="position", ylabel="dimension", title="PE: one column per position")
fig.colorbar(image, ax=ax_map)
for column in (0, 1, 10, 30):
    ax_lines.plot(pe[:, column], label=f"dimension {column}")
ax_lines.set(xlabel="position", ylabel="value", title="a few dimensions along the positions")
ax_lines.legend(loc="lower left", fontsize=8)
plt.show()

# %% [markdown]
# Why sines and cosines? The paper's reason: *"for any fixed offset $k$, $PE_{pos+k}$ can be
# represented as a linear function of $PE_{pos}$."* Each (sin, cos) pair is a point on a circle at
# angle $pos\,\omega_i$; moving $k$ positions on is a **rotation** by $k\,\omega_i$, and the rotation
# matrix does not depend on $pos$:
#
# $$\begin{pmatrix}\sin((pos+k)\omega)\\ \cos((pos+k)\omega)\end{pmatrix} =
#   \begin{pmatrix}\cos k\omega & \sin k\omega\\ -\sin k\omega & \cos k\omega\end{pmatrix}
#   \begin{pmatrix}\sin(pos\,\omega)\\ \cos(pos\,\omega)\end{pmatrix}$$
#
# So "the word 3 positions back" is one fixed linear map, the same everywhere in the sentence, which
# attention's projections can learn. Checked on your table, and a consequence: the dot product of two
# position vectors depends only on their distance.

# %% [demo]
k = 3
M = torch.block_diag(*positional_shift_matrices(k, 64)).float()  # (64, 64): one rotation per (sin, cos) pair
moved = pe[:-k] @ M.T  # row pos: M @ PE[pos]
print(f"max |M_k PE[pos] - PE[pos + k]| over all positions: {(moved - pe[k:]).abs().max():.2e}")
similarity = pe @ pe.T  # (100, 100): PE[p] . PE[q]
fig, (ax_sim, ax_rows) = plt.subplots(1, 2, figsize=(11, 3.5))
ax_sim.imshow(similarity, cmap="viridis")
ax_sim.set(xlabel="position q", ylabel="position p", title="PE[p] · PE[q]")
for p in (20, 50, 75):
    ax_rows.plot(range(-20, 21), similarity[p, p - 20:p + 21], label=f"p = {p}")
ax_rows.set(xlabel="q - p", ylabel="PE[p] · PE[q]", title="the same curve around every position")
ax_rows.legend()
plt.show()

# %% [markdown]
# ## 2. Multi-head attention
#
# One head averages the values with one set of weights, so it can follow one kind of relation at a
# time. The Transformer runs $h$ heads in parallel, each in a $d_{head} = d_{model}/h$ dimensional
# subspace (the lecture "Pre-trained NLP Model: BERT": $h = 8$, $d_{model} = 512$, $d_{head} = 64$),
# so the total cost is that of one full-width head:
#
# $$\mathrm{MultiHead}(Q, K, V) = \mathrm{Concat}(\mathrm{head}_1, \ldots, \mathrm{head}_h)\,W^O, \qquad
#   \mathrm{head}_j = \mathrm{softmax}\!\left(\frac{Q W^Q_j (K W^K_j)^\top}{\sqrt{d_{head}}}\right) V W^V_j$$
#
# In code, all heads' projections are one (d_model, d_model) matrix each, `W_q`, `W_k`, `W_v`, whose
# output columns are head 1's $d_{head}$ columns, then head 2's, and so on. Step by step, for
# `query` (B, T_q, d_model) and `key`, `value` (B, T_k, d_model):
#
# 1. project: `q = query @ W_q.T + b_q`, (B, T_q, d_model), and the same for k and v;
# 2. **split the heads**: view (B, T, d_model) as (B, T, h, d_head), then `.transpose(1, 2)` to
#    (B, h, T, d_head), so that every head is a separate "batch" entry;
# 3. attend in every head at once: scores (B, h, T_q, T_k) divided by $\sqrt{d_{head}}$, the mask,
#    softmax over the keys, times v;
# 4. **concatenate**: back to (B, T_q, h, d_head) and reshape to (B, T_q, d_model);
# 5. project with `W_o`, `b_o`.
#
# The mask is bool with True = may attend, either (T_q, T_k) for every sequence (a causal mask) or
# (B, T_q, T_k), one per sequence; the same for every head. Write
# `multi_head_attention(query, key, value, weights, num_heads, mask=None)` returning the output
# (B, T_q, d_model). `weights` holds `W_q, b_q, W_k, b_k, W_v, b_v, W_o, b_o`. PyTorch's attention
# functions and the course's own are switched off while it is graded; `torch.softmax` is fine.

# %% [answer] id=multi_head_attention
def multi_head_attention(query, key, value, weights, num_heads, mask=None):
    """query (B, T_q, d_model), key and value (B, T_k, d_model) -> (B, T_q, d_model)."""
    ### BEGIN SOLUTION
    B, T_q, d_model = query.shape
    d_head = d_model // num_heads

    def split_heads(x):  # (B, T, d_model) -> (B, h, T, d_head)
        return x.view(B, x.shape[1], num_heads, d_head).transpose(1, 2)

    q = split_heads(query @ weights["W_q"].T + weights["b_q"])
    k = split_heads(key @ weights["W_k"].T + weights["b_k"])
    v = split_heads(value @ weights["W_v"].T + weights["b_v"])
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)  # (B, h, T_q, T_k)
    if mask is not None:
        if mask.dim() == 3:  # (B, T_q, T_k): the same for every head
            mask = mask[:, None]
        scores = scores.masked_fill(~mask, float("-inf"))
    heads = torch.softmax(scores, dim=-1) @ v  # (B, h, T_q, d_head)
    concatenated = heads.transpose(1, 2).reshape(B, T_q, d_model)  # (B, T_q, d_model)
    return concatenated @ weights["W_o"].T + weights["b_o"]
    ### END SOLUTION

# %% [tests] id=check_multi_head_attention points=4
"""Check my answer: against nn.MultiheadAttention with the same weights (no mask, causal, per-sequence,
cross-attention)."""
checks.check_multi_head_attention(multi_head_attention)
### BEGIN HIDDEN TESTS
checks.check_multi_head_attention(multi_head_attention, batch=3, t_q=4, t_k=7, d_model=12, num_heads=3,
                                  dtype=torch.float64, seed=5)
checks.check_multi_head_attention(multi_head_attention, batch=4, t_q=6, t_k=6, d_model=16, num_heads=4,
                                  masks=("per_sequence",), seed=9)
### END HIDDEN TESTS

# %% [markdown]
# What the check compares, in the open: PyTorch's `nn.MultiheadAttention` keeps $W^Q, W^K, W^V$
# stacked in one `in_proj_weight` (3 d_model, d_model) and $W^O$ in `out_proj`; its masks use the
# opposite convention (True = *blocked*), hence the `~`.

# %% [demo]
weights = checks.mha_weights(8, seed=0, device=device)
torch_attention = checks.torch_mha(weights, num_heads=2)
x = torch.randn(2, 5, 8, device=device)
causal = torch.ones(5, 5, dtype=torch.bool, device=device).tril()
with torch.no_grad():
    theirs, _ = torch_attention(x, x, x, attn_mask=~causal)
mine = multi_head_attention(x, x, x, weights, num_heads=2, mask=causal)
print("largest difference from nn.MultiheadAttention:", f"{(mine - theirs).abs().max():.2e}")

# %% [markdown]
# In a model the projections are trainable layers. Wrap your function in a module: `MultiHeadAttention(d_model,
# num_heads)` owns four `nn.Linear(d_model, d_model)` layers named `q_proj`, `k_proj`, `v_proj` and `out_proj`
# (an `nn.Linear` stores exactly the $W$ and $b$ of $y = x W^\top + b$), and its
# `forward(query, key, value, mask=None)` calls your `multi_head_attention` with their weights and biases. The
# check copies `nn.MultiheadAttention`'s weights into your four layers and compares, then checks that the
# gradient reaches all four.

# %% [answer] id=MultiHeadAttention
class MultiHeadAttention(nn.Module):
    """Multi-head attention with trainable projections q_proj, k_proj, v_proj, out_proj (each d_model -> d_model)."""

    def __init__(self, d_model, num_heads):
        super().__init__()
        ### BEGIN SOLUTION
        self.num_heads = num_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)
        ### END SOLUTION

    def forward(self, query, key, value, mask=None):
        ### BEGIN SOLUTION
        weights = {"W_q": self.q_proj.weight, "b_q": self.q_proj.bias, "W_k": self.k_proj.weight,
                   "b_k": self.k_proj.bias, "W_v": self.v_proj.weight, "b_v": self.v_proj.bias,
                   "W_o": self.out_proj.weight, "b_o": self.out_proj.bias}
        return multi_head_attention(query, key, value, weights, self.num_heads, mask)
        ### END SOLUTION

# %% [tests] id=check_MultiHeadAttention points=1
"""Check my answer: nn.MultiheadAttention's weights copied into your q_proj, k_proj, v_proj, out_proj give the
same output."""
checks.check_mha_module(MultiHeadAttention)
### BEGIN HIDDEN TESTS
checks.check_mha_module(MultiHeadAttention, batch=3, length=6, d_model=12, num_heads=4, dtype=torch.float64, seed=2)
### END HIDDEN TESTS

# %% [markdown]
# ## 3. Add & norm
#
# Every sublayer (attention, feed-forward) sits inside a **residual connection** followed by **layer
# normalisation**: $\mathrm{LayerNorm}(x + \mathrm{Sublayer}(x))$ (the lecture "Pre-trained NLP Model: BERT").
# The residual gives the gradient a path around the sublayer, as the LSTM's cell did through time;
# the LayerNorm rescales each position's vector to mean 0 and variance 1 over its $d_{model}$
# features, then applies a learnt scale $\gamma$ and shift $\beta$:
#
# $$\mathrm{LayerNorm}(y) = \gamma \odot \frac{y - \mu}{\sqrt{\sigma^2 + \epsilon}} + \beta, \qquad
#   \mu = \frac{1}{d}\sum_j y_j, \quad \sigma^2 = \frac{1}{d}\sum_j (y_j - \mu)^2$$
#
# (over the last dimension only, and dividing by $d$, not $d - 1$). Write
# `add_norm(x, sublayer_out, gamma, beta, eps=1e-5)` for tensors (..., d_model). `F.layer_norm` and
# `nn.LayerNorm` are switched off while it is graded.

# %% [answer] id=add_norm
def add_norm(x, sublayer_out, gamma, beta, eps=1e-5):
    """LayerNorm(x + sublayer_out) over the last dimension, with scale gamma and shift beta (d_model,)."""
    ### BEGIN SOLUTION
    y = x + sublayer_out
    mean = y.mean(dim=-1, keepdim=True)
    var = ((y - mean) ** 2).mean(dim=-1, keepdim=True)
    return gamma * (y - mean) / torch.sqrt(var + eps) + beta
    ### END SOLUTION

# %% [tests] id=check_add_norm points=2
"""Check my answer: against F.layer_norm(x + sublayer_out), with eps = 1e-5 and with a large eps = 0.5."""
checks.check_add_norm(add_norm)
### BEGIN HIDDEN TESTS
checks.check_add_norm(add_norm, shape=(4, 10), dtype=torch.float64, seed=3)
checks.check_add_norm(add_norm, shape=(1, 2, 3, 5), eps_values=(1e-3,), seed=4)
### END HIDDEN TESTS

# %% [markdown]
# ## 4. The encoder block
#
# Now the pieces assemble into one block of the paper's encoder (post-norm, as in 2017):
#
# $$x' = \mathrm{AddNorm}_1\big(x,\ \mathrm{MultiHead}(x, x, x)\big), \qquad
#   \mathrm{out} = \mathrm{AddNorm}_2\big(x',\ \mathrm{FFN}(x')\big), \qquad
#   \mathrm{FFN}(z) = \max(0,\ z W_1^\top + b_1)\, W_2^\top + b_2$$
#
# The feed-forward network is applied to every position separately; it widens to $d_{ff}$ (2048 =
# 4 × 512 in the paper) and back. `weights` holds the attention's eight tensors and `gamma_1,
# beta_1` (the first LayerNorm), `W_1` (d_ff, d_model), `b_1`, `W_2` (d_model, d_ff), `b_2`, `gamma_2,
# beta_2`. Write `encoder_block(x, weights, num_heads, mask=None)` with your `multi_head_attention`
# and `add_norm`. It is checked against `nn.TransformerEncoderLayer`; while it is graded, your two
# helpers are replaced by correct ones, so a mistake in them is not counted twice.

# %% [answer] id=encoder_block
def encoder_block(x, weights, num_heads, mask=None):
    """x (B, T, d_model) -> (B, T, d_model): self-attention, add & norm, feed-forward, add & norm."""
    ### BEGIN SOLUTION
    w = weights
    attended = multi_head_attention(x, x, x, w, num_heads, mask)
    x = add_norm(x, attended, w["gamma_1"], w["beta_1"])
    ffn = torch.relu(x @ w["W_1"].T + w["b_1"]) @ w["W_2"].T + w["b_2"]
    return add_norm(x, ffn, w["gamma_2"], w["beta_2"])
    ### END SOLUTION

# %% [tests] id=check_encoder_block points=3
"""Check my answer: against nn.TransformerEncoderLayer (post-norm, ReLU) with the same weights, with and without
a causal mask."""
checks.check_encoder_block(encoder_block)
### BEGIN HIDDEN TESTS
checks.check_encoder_block(encoder_block, batch=3, length=7, d_model=12, num_heads=3, d_ff=20, dtype=torch.float64,
                           seed=4, masks=("per_sequence", "causal"))
### END HIDDEN TESTS

# %% [markdown]
# The **decoder block** adds one sublayer between the two: **cross-attention**, whose queries come
# from the decoder and whose keys and values come from the encoder's output (the "memory"), and its
# self-attention is masked so that position $t$ sees only positions up to $t$. The course's
# `DecoderBlock` is the same function as PyTorch's `nn.TransformerDecoderLayer`:

# %% [demo]
torch.manual_seed(0)
theirs = nn.TransformerDecoderLayer(d_model=16, nhead=4, dim_feedforward=32, dropout=0.0, batch_first=True).eval()
ours = copy_from_torch(DecoderBlock(BlockConfig(d_model=16, num_heads=4, d_ff=32)), theirs).eval()
target, memory = torch.randn(2, 5, 16), torch.randn(2, 7, 16)  # 5 decoder positions, 7 encoder positions
causal = torch.ones(5, 5, dtype=torch.bool).tril()
with torch.no_grad():
    difference = (ours(target, memory, causal) - theirs(target, memory, tgt_mask=~causal)).abs().max()
print(f"largest difference from nn.TransformerDecoderLayer: {difference:.2e}")

# %% [markdown]
# ## 5. What attention costs: the table of the lecture "LSTMs & Transformers", measured
#
# | layer | operations per layer | sequential steps | longest path between two words |
# |---|---|---|---|
# | self-attention | $O(n^2 \cdot d)$ | $O(1)$ | $O(1)$ |
# | recurrent | $O(n \cdot d^2)$ | $O(n)$ | $O(n)$ |
#
# Attention compares every position with every other, so its work grows with $n^2$, but all of it
# can run at once; a recurrent layer does $n$ steps of a $d \times d$ product one after the other.
# Below: the time of one forward pass and the memory autograd keeps for the backward pass, against
# the sequence length $n$, for the course's multi-head attention (the readable path, which stores the
# $n \times n$ weights), the same layer with PyTorch's fused attention kernel, and an LSTM layer, all
# with $d_{model} = 64$. The slopes on log–log axes are the exponents: 1 is linear, 2 quadratic.

# %% [demo]
lengths = [128, 256, 512, 1024, 2048]
d = 64
layers = {"self-attention (stores the n×n weights)": transformer.MultiHeadAttention(d, 4, fast=False),
          "self-attention, fused kernel": transformer.MultiHeadAttention(d, 4, fast=True),
          "LSTM layer": LSTMLayer(d, d)}
scaling = {}
with torch_threads(1):  # steadier timings: one core, the best of 5 runs per length
    for name, layer in layers.items():
        call = (lambda m, x: m(x, x, x)[0]) if isinstance(layer, transformer.MultiHeadAttention) else None
        scaling[name] = complexity.measure_scaling(layer.to(device), lengths, d, call=call, repeats=5)

fig, (ax_time, ax_memory) = plt.subplots(1, 2, figsize=(12, 4))
for name, s in scaling.items():
    time_slope, memory_slope = s.slopes()
    ax_time.loglog(s.lengths, [t * 1e3 for t in s.seconds], "o-", label=f"{name}: slope {time_slope:.2f}")
    ax_memory.loglog(s.lengths, [b / 2 ** 20 for b in s.saved_bytes], "o-", label=f"{name}: slope {memory_slope:.2f}")
ax_time.set(xlabel="sequence length n", ylabel="milliseconds per forward pass", title=f"time on {device}")
ax_memory.set(xlabel="sequence length n", ylabel="MiB saved for the backward pass", title="memory")
for ax in (ax_time, ax_memory):
    ax.set_xticks(lengths, [str(n) for n in lengths], minor=False)
    ax.set_xticks([], minor=True)  # no labels between the measured lengths
    ax.legend(fontsize=8)
plt.show()

# %% [demo]
def crossing(name):
    """Where, among the measured lengths, the LSTM layer's time passes (or stays below) this attention's."""
    attention_s, lstm_s = scaling[name].seconds, scaling["LSTM layer"].seconds
    faster = [n for n, a, r in zip(lengths, attention_s, lstm_s) if a < r]  # lengths where attention was faster
    if len(faster) == len(lengths):
        return f"the {name} was faster than the LSTM at every measured length, n = {lengths[0]} to {lengths[-1]}"
    if not faster:
        return f"the {name} was slower than the LSTM at every measured length, n = {lengths[0]} to {lengths[-1]}"
    if faster == lengths[:len(faster)]:
        return (f"the {name} was faster than the LSTM up to n = {faster[-1]} and slower from "
                f"n = {lengths[len(faster)]} on: the lines cross between those two lengths")
    return f"the {name} was faster than the LSTM at n = {', '.join(map(str, faster))} and slower at the other lengths"


display(Markdown("Measured here, one forward pass on one thread: "
                 f"{crossing('self-attention (stores the n×n weights)')}; {crossing('self-attention, fused kernel')}."))

# %% [markdown]
# The readable attention's time and memory grow with slope close to 2: doubling the text quadruples
# the cost, and at $n = 2048$ the weights alone are $4 \times 2048^2$ numbers per head-batch. The
# LSTM grows linearly. Counting operations, the table puts the crossing near $n = d$ (here 64): below
# it attention does fewer, above it more. No length below 128 was measured, and where the measured
# lines cross (the sentence above) depends on more than the operation count: the LSTM pays for $n$
# small sequential steps, each a separate call with its own overhead, where attention pays for a few
# large matrix products that run at full speed. Attention also has no chain of $n$ steps for the
# gradient to cross. The fused kernel (FlashAttention-style) still does $O(n^2)$ work but never
# stores the $n \times n$ matrix, so its memory grows linearly: the quadratic *memory* is a property
# of the simple algorithm, the quadratic *time* is not avoidable for exact attention. The LSTM's
# time grows linearly but its $n$ steps cannot run in parallel; on a GPU that, not the operation
# count, is what makes it slow.

# %% [markdown]
# **Question (graded by your instructor).** A recurrent layer needs $n$ sequential steps and
# self-attention needs one. Why does this matter more for training on a GPU than the operation counts
# in the table, and what does it mean for the *longest path* a gradient has to travel between the
# first and the last word? Two or three sentences.

# %% [written] id=why_parallel points=2
# *Model answer (instructors only).* A GPU is fast because it does many operations at once; the n
# steps of a recurrent layer each need the previous step's result, so they run one after the other
# and the hardware is mostly idle, while attention over all n positions is a few large matrix
# products that run in parallel. The longest path between two words is one attention step instead
# of n recurrent steps, so the gradient between the first and the last word is not multiplied by n
# Jacobians and does not vanish with distance (notebook 03).
#
# *Marking:* 1 point for "sequential steps cannot be parallelised, attention is a few big parallel
# matrix products"; 1 point for "path length O(1) vs O(n): the gradient between distant words does
# not pass through n steps (no vanishing over distance)".

# %% [markdown]
# ## 6. Drawing the next token: temperature and top-k
#
# A language model gives, at every position, one **logit** $z_j$ per token of the vocabulary; the
# softmax turns them into the probabilities of the next token. To *generate* text, draw the next token
# from those probabilities, append it, and run the model again. Two knobs change the distribution
# before the draw:
#
# - **temperature** $T > 0$: $p = \mathrm{softmax}(z / T)$. With $T < 1$ the differences between the
#   logits grow and the distribution sharpens (as $T \to 0$ it becomes the argmax: always the likeliest
#   token); with $T > 1$ it flattens (as $T \to \infty$ it becomes uniform). $T = 1$ is the model's own
#   distribution. $T = 0$ itself is not allowed: $z / 0$ is not a distribution.
# - **top-k**: keep only the $k$ largest logits of each row and set the others to $-\infty$, so that
#   they get probability exactly 0 and the softmax shares the whole probability among the kept tokens.
#   It cuts off the long tail of unlikely tokens: each is rare, but there are many of them, and one bad
#   character is enough to derail a sample.
#
# For example, with logits $z = (2, 1, 0, -1)$: at $T = 1$ the probabilities are
# $(0.644, 0.237, 0.087, 0.032)$; at $T = 0.5$, $(0.865, 0.117, 0.016, 0.002)$; at $T = 2$,
# $(0.455, 0.276, 0.167, 0.102)$; and with $T = 1$, top-$k = 2$: $(0.731, 0.269, 0, 0)$.
#
# Write `sample_next(logits, temperature=1.0, top_k=None, generator=None)`:
#
# - `logits` is a float tensor of shape (vocab,) or (batch, vocab). Return the drawn token ids as an
#   int64 (`torch.long`) tensor on the same device: a 0-dimensional tensor for (vocab,) logits, shape
#   (batch,) for (batch, vocab) logits, with **one independent draw per row**.
# - Divide the logits by `temperature`. Raise a `ValueError` (with a sentence saying why) when
#   `temperature <= 0`.
# - `top_k`: `None` or `0` means no restriction. Otherwise keep, in each row, every logit that is
#   greater than or equal to the row's k-th largest logit and set the others to $-\infty$. When several
#   logits tie with the k-th largest value they are all kept (so more than k tokens can survive): which
#   of two equal logits to drop would otherwise be arbitrary. Raise a `ValueError` when `top_k` is
#   larger than the vocabulary.
# - Draw every random number from `generator` (a `torch.Generator`), so that a generator seeded the
#   same way gives the same ids: `torch.multinomial(probs, 1, generator=generator)` draws one id per
#   row. Any other correct way of drawing is fine too.
# - Do not change `logits` in place.
#
# `torch.softmax`, `torch.topk` and `torch.multinomial` are all allowed; the course's own sampler
# (`course_lib.train.sample`) is switched off while your function is graded.
#
# **How it is checked.** Your function draws thousands of times from the same logits (rows of a
# batch repeated 4000 times each, one call), and the check compares how often each token came out with
# the exact probabilities, computed in float64: every frequency must lie within 5 standard deviations
# of its probability (the check uses a fixed seed, so its verdict is the same every time you run it),
# and a token outside the top k must never come out. It also checks that two generators seeded alike
# give the same ids and different seeds different ones, that a single (vocab,) row gives a
# 0-dimensional id, and that a bad `temperature` or `top_k` raises `ValueError`.

# %% [answer] id=sample_next
def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    """logits (vocab,) or (batch, vocab) -> token ids () or (batch,), int64, drawn from softmax(logits / temperature)
    restricted to the top_k largest logits (None or 0: no restriction)."""
    ### BEGIN SOLUTION
    if temperature <= 0:
        raise ValueError(f"temperature must be positive, got {temperature}: "
                         "logits / temperature must be a distribution.")
    vocab_size = logits.shape[-1]
    if top_k is not None and top_k > vocab_size:
        raise ValueError(f"top_k = {top_k} is larger than the vocabulary ({vocab_size} tokens).")
    scaled = logits / temperature  # (..., vocab): a new tensor, the caller's logits stay as they were
    if top_k:
        kth = torch.topk(scaled, top_k, dim=-1).values[..., -1:]  # (..., 1): the k-th largest of each row
        scaled = scaled.masked_fill(scaled < kth, float("-inf"))  # ties with the k-th are kept
    probs = torch.softmax(scaled, dim=-1)  # (..., vocab)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)  # (...,): one draw per row
    ### END SOLUTION

# %% [tests] id=check_sample_next points=3
"""Check my answer: draw frequencies against the exact probabilities (temperature 0.5, 2 and 1.3; top_k None, 3 and 0;
ties at the k-th logit), a single (vocab,) row, a seeded generator, and ValueError for a bad temperature or top_k."""
checks.check_sample_next(sample_next)
### BEGIN HIDDEN TESTS
checks.check_sample_next(sample_next, vocab_size=20, draws=2500, dtype=torch.float64, seed=3)
checks.check_sample_next(sample_next, vocab_size=50, draws=2000, seed=11)
### END HIDDEN TESTS

# %% [markdown]
# What the two knobs do, on one row of logits: the bars are the exact probabilities, the dots how often
# your `sample_next` drew each token in 20 000 draws.

# %% [demo]
z = torch.tensor([2.0, 1.0, 0.5, 0.0, -0.5, -1.0, -1.5, -2.0])  # one row of logits, 8 tokens
settings = [(0.5, None), (1.0, None), (2.0, None), (1.0, 3)]
fig, axes = plt.subplots(1, len(settings), figsize=(13, 2.8), sharey=True)
for ax, (T, k) in zip(axes, settings):
    exact = torch.softmax(z / T, dim=-1)
    if k:
        exact = torch.where(z >= torch.sort(z, descending=True).values[k - 1], exact, torch.zeros(()))
        exact = exact / exact.sum()
    ids = sample_next(z.repeat(20_000, 1), T, k, torch.Generator().manual_seed(0))  # (20000,)
    drawn = torch.bincount(ids, minlength=len(z)) / len(ids)
    ax.bar(range(len(z)), exact, color="C0", alpha=0.6, label="softmax(z / T), top k")
    ax.plot(range(len(z)), drawn, "o", color="C3", label="your draws")
    ax.set(title=f"T = {T:g}" + (f", top-k = {k}" if k else ""), xlabel="token")
axes[0].set_ylabel("probability")
axes[0].legend(fontsize=8)
plt.show()

# %% [markdown]
# ## 7. Your own Transformer language model
#
# Your pieces are enough for a language model. `CharTransformer` below is written with them only: a
# character embedding plus **your** `positional_encoding`, then a few of **your** `encoder_block`s, each
# with a causal mask (position $t$ may look at positions $0..t$ only, so that it cannot peek at the
# character it predicts), then a linear layer to one logit per character. Each block keeps its weights
# in your `MultiHeadAttention`'s four projections, two `nn.Linear` layers for the feed-forward network
# and two `nn.LayerNorm`s (used only to hold $\gamma$ and $\beta$), and hands them to your
# `encoder_block` as the dict it expects. It follows the course's model contract,
# `logits, loss = model(idx, targets=None)`, so the course's training loop trains it.
#
# Below, it and the course's `TransformerLM` (the same sizes, but pre-norm and PyTorch's fused
# attention) are trained for the same few seconds on the same characters of notebook 04's corpus, and
# both are scored on the same held-out text. The yardstick is the **unigram entropy** of the corpus:
# the loss of a model that knows only how often each character occurs and ignores the context. A
# model that learnt anything about context must get well below it.

# %% [demo] pace=3
from IPython.display import Markdown, display

from course_lib import data
from course_lib.train import TrainConfig, evaluate, iterate_batches, lm_loss, sequence_batches, train
from course_lib.transformer import TransformerConfig, TransformerLM


class YourBlock(nn.Module):
    """The weights of one encoder block; the computation is your encoder_block."""

    def __init__(self, d_model, num_heads, d_ff):
        super().__init__()
        self.num_heads = num_heads
        self.attention = MultiHeadAttention(d_model, num_heads)  # q_proj, k_proj, v_proj, out_proj
        self.norm_1, self.norm_2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)  # gamma and beta only
        self.ff_1, self.ff_2 = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)

    def forward(self, x, mask):
        a = self.attention
        weights = {"W_q": a.q_proj.weight, "b_q": a.q_proj.bias, "W_k": a.k_proj.weight, "b_k": a.k_proj.bias,
                   "W_v": a.v_proj.weight, "b_v": a.v_proj.bias, "W_o": a.out_proj.weight, "b_o": a.out_proj.bias,
                   "gamma_1": self.norm_1.weight, "beta_1": self.norm_1.bias, "W_1": self.ff_1.weight,
                   "b_1": self.ff_1.bias, "W_2": self.ff_2.weight, "b_2": self.ff_2.bias,
                   "gamma_2": self.norm_2.weight, "beta_2": self.norm_2.bias}
        return encoder_block(x, weights, self.num_heads, mask)


class CharTransformer(nn.Module):
    """Embedding + your positional encoding -> your encoder blocks (causal) -> logits for the next character."""

    def __init__(self, vocab_size, block_size, d_model=64, num_heads=4, d_ff=128, num_layers=2):
        super().__init__()
        self.block_size = block_size
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.register_buffer("positions", positional_encoding(block_size, d_model).float())  # (block_size, d_model)
        self.blocks = nn.ModuleList(YourBlock(d_model, num_heads, d_ff) for _ in range(num_layers))
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx, targets=None):
        T = idx.shape[1]  # idx (B, T) character ids, T <= block_size
        x = self.embedding(idx) + self.positions[:T]  # (B, T, d_model)
        causal = torch.ones(T, T, dtype=torch.bool, device=idx.device).tril()  # (T, T): key j <= query i
        for block in self.blocks:
            x = block(x, causal)  # (B, T, d_model)
        logits = self.head(x)  # (B, T, vocab)
        return logits, None if targets is None else lm_loss(logits, targets)


text = data.stdlib_source_text(max_chars=400_000, seed=0)  # notebook 04's corpus
itos, stoi = data.char_vocab(text)
ids = torch.tensor([stoi[c] for c in text])
split = int(0.9 * len(ids))
train_ids, valid_ids = ids[:split], ids[split:]
frequencies = torch.bincount(train_ids, minlength=len(itos)).double() / len(train_ids)
unigram_nats = float(-(frequencies[frequencies > 0] * frequencies[frequencies > 0].log()).sum())

block_size, seconds = 64, 3.0  # seconds of training per model
n_valid = 128 * block_size  # 8192 held-out characters to score
valid_x, valid_y = valid_ids[:n_valid].view(-1, block_size), valid_ids[1:n_valid + 1].view(-1, block_size)  # (128, 64)
models = {"your CharTransformer": CharTransformer(len(itos), block_size),
          "course TransformerLM": TransformerLM(TransformerConfig(vocab_size=len(itos), block_size=block_size,
                                                                 d_model=64, num_heads=4, num_layers=2, d_ff=128))}
histories, valid_nats = {}, {}
with torch_threads(1):
    for name, model in models.items():
        torch.manual_seed(0)
        model.to(device)
        histories[name] = train(model, sequence_batches(train_ids, block_size, 16),
                                TrainConfig(steps=10 ** 9, lr=1e-2, time_budget_s=seconds, progress=False))
        valid_nats[name] = evaluate(model, iterate_batches(valid_x, valid_y, 64))["loss"]

fig, ax = plt.subplots(figsize=(7, 3.5))
for name, h in histories.items():
    t = torch.tensor(h.train_steps, dtype=torch.float64) * h.seconds / len(h.train_steps)  # seconds, roughly
    width = min(10, len(h.train_loss))  # a mean over the last 10 steps
    smooth = torch.tensor(h.train_loss).unfold(0, width, 1).mean(1)
    ax.plot(t[width - 1:], smooth, label=f"{name}: {len(h.train_steps)} steps")
ax.axhline(unigram_nats, color="k", ls="--", lw=1, label="unigram entropy (no context)")
ax.set(xlabel="training seconds", ylabel="training loss (nats per character, mean of 10 steps)",
       title="the same seconds, the same characters")
ax.legend(fontsize=8)
plt.show()
checks.check_char_lm(models["your CharTransformer"], valid_nats["your CharTransformer"], unigram_nats)

# %% [demo]
yours, course = valid_nats["your CharTransformer"], valid_nats["course TransformerLM"]
steps = {name: len(h.train_steps) for name, h in histories.items()}
if abs(yours - course) < 0.05:
    verdict = "The two are within 0.05 nats of each other: the same kind of model, the same data and the same time."
else:
    ahead = "yours" if yours < course else "the course's"
    verdict = (f"After so few steps {ahead} is ahead by {abs(yours - course):.2f} nats; with more training both go "
               "on falling, and the difference between post-norm (yours, as in the 2017 paper) and pre-norm (the "
               "course's, as in GPT-2) matters more in deeper models than in these two layers.")
display(Markdown(
    f"On {n_valid} held-out characters your model's loss is **{yours:.3f} nats per character** "
    f"({yours / math.log(2):.2f} bits) after {steps['your CharTransformer']} steps in {seconds:g} seconds; "
    f"the course's `TransformerLM` reaches {course:.3f} nats ({course / math.log(2):.2f} bits) in "
    f"{steps['course TransformerLM']} steps. The unigram entropy of the training text is {unigram_nats:.3f} nats "
    f"({unigram_nats / math.log(2):.2f} bits), so your model is {unigram_nats - yours:.2f} nats below what "
    f"character frequencies alone give: it uses the context. {verdict}"))

# %% [markdown]
# Now text, drawn with **your** `sample_next`: the model reads the last `block_size` characters,
# `sample_next` draws the next one from the logits at the last position, and the loop appends it.
# The same prompt and the same seed at three temperatures, and once with top-k:

# %% [demo]
@torch.no_grad()
def generate(model, prompt, length, temperature, top_k=None, seed=0):
    """Extend the string ``prompt`` by ``length`` characters, each drawn with your sample_next."""
    generator = torch.Generator(device=device).manual_seed(seed)
    idx = torch.tensor([[stoi[c] for c in prompt]], device=device)  # (1, T)
    for _ in range(length):
        logits, _ = model(idx[:, -model.block_size:])  # (1, T, vocab)
        next_id = sample_next(logits[:, -1], temperature, top_k, generator)  # (1,)
        idx = torch.cat([idx, next_id[:, None]], dim=1)
    return "".join(itos[i] for i in idx[0].tolist())


yours_model = models["your CharTransformer"].eval()
for temperature, top_k in ((0.5, None), (1.0, None), (1.5, None), (1.5, 5)):
    text_out = generate(yours_model, "    def ", 120, temperature, top_k)
    print(f"--- temperature {temperature:g}" + (f", top-k {top_k}" if top_k else "") +
          f": {len(set(text_out))} distinct characters ---")
    print(text_out)

# %% [markdown]
# At $T = 0.5$ the sample keeps to the likeliest characters (common letters and spaces) and repeats
# itself: it uses the fewest distinct characters. At $T = 1$, the model's own distribution, it is more
# varied and makes more mistakes. At $T = 1.5$ rare characters (capitals, digits, punctuation) come
# out often enough to break every word. Top-k at the same $T = 1.5$ keeps the high temperature's
# variety among the 5 likeliest characters of each step but never draws from the long tail, so the
# rare characters disappear again. A few seconds of training teach the model common letters, spaces
# and short fragments, not yet Python; the knobs change how it draws, not what it knows.
# GPT-style systems combine both knobs (and top-p, which keeps the smallest set of tokens whose probabilities
# add up to $p$).

# %% [markdown]
# ## 8. A Transformer language model, and every model of the course on one corpus
#
# Section 7's model is a decoder-only ("GPT") language model: a few blocks with a causal mask on top
# of token embeddings and positions, and a linear layer, so that position $t$ predicts character
# $t+1$ from characters $0..t$. The course's `TransformerLM` is exactly that, built from the same
# pieces you wrote (pre-norm, as in GPT-2, which trains more easily than the paper's post-norm).
#
# How good is it? `course_lib.compare` trains **every language model of the course** on notebook 04's
# corpus (400 000 characters of the standard library's source, the last 10% held out) under the
# **same wall-clock budget**, and scores them on exactly the same held-out characters, in bits per
# character (lower is better; guessing uniformly among the 96 characters costs 6.6 bits):
#
# - the **n-gram** (notebook 01), a character model with Kneser–Ney smoothing, order chosen on a
#   development split (counting takes a second, so the budget does not bind);
# - the **FFNN** (notebook 02) with a 16-character window;
# - the **RNN** (notebook 03), the **LSTM** (notebook 04), and the **Transformer**, each with the number
#   of parameters its row of the table gives (tens to a couple of hundred thousand).
#
# Four and a half seconds of training each here, so that the notebook stays short; `benchmarks/` runs
# the same function with longer budgets, and on a GPU when there is one. About 25 seconds.

# %% [demo]
from IPython.display import Markdown, display

from course_lib.compare import CompareConfig, compare_char_models, markdown_table, plot_comparison

with torch_threads(1):  # small models gain little from more threads, and each model's speed depends less on the machine
    results = compare_char_models(CompareConfig(budget_s=4.5), device=device)
display(Markdown(markdown_table(results)))
plot_comparison(results)
plt.show()

# %% [markdown]
# ### Seconds are not the whole story: the same compute for every model, and two ways to hold text out
#
# A few seconds is a snapshot early in training. `benchmarks/crossover.py` (in the course's repository)
# gives every neural model the **same training compute**, and the x axis is that compute, not seconds,
# so that it does not depend on the machine: about $6N$ FLOPs per training character ($N$ weights that
# multiply each character, times 2 for a multiply and an add, times 3 for the forward and the backward
# pass; plus the Transformer's attention). Each model is scored at checkpoints along its run (1/128,
# 1/64, ... of the budget, then all of it), and every model is trained the same way: AdamW, a linear
# **warm-up** over the first 5% of the steps, then a **cosine decay**, and a peak learning rate
# chosen for each model from the same three values on development files. (The table above trains at
# one fixed learning rate without warm-up, which handicaps the Transformer most: a warm-up is part of
# its recipe since the 2017 paper.)
#
# Every checkpoint is scored on two held-out texts:
#
# - **held-out files**: whole files of the standard library that no training character comes from;
# - **the continuation**: the table's split, the characters right after the training text. The text
#   is the standard library's files end to end, so this is the rest of the file whose first part ends
#   the training text.
#
# The n-gram is not trained by FLOPs: it counts. Its score with all the training text counted is a
# **baseline line** across each panel (dashed; dotted with half of the text), not a point on the
# FLOPs axis. The stars are **your run above**, on the panel of the split it was scored on.

# %% [demo]
from course_lib.compare import crossover_table, load_crossover, plot_crossover
from course_lib.crossover_summary import crossover_summary

crossover = load_crossover()  # measured by benchmarks/crossover.py; the file ships with course_lib
plot_crossover(crossover, live=results)  # the stars: the table's run above, on the continuation split
plt.show()
display(Markdown(crossover_table(crossover)))
display(Markdown(crossover_summary(crossover)))  # sentences written from the results file: no number typed

# %% [markdown]
# Samples from the LSTM and the Transformer, at temperature 0.8, from the same prompt. After seconds
# of training both have the look of Python (indentation, parentheses, underscores) without its sense:

# %% [demo]
from course_lib import data
from course_lib.train import sample

source = data.stdlib_source_text(max_chars=400_000, seed=0)
itos, stoi = data.char_vocab(source)
prompt = torch.tensor([[stoi[ch] for ch in "    def "]])
for result in results:
    if result.model in ("LSTM", "Transformer"):
        context = getattr(result.trained, "block_size", None)
        out = sample(result.trained, prompt, 200, context_size=context, temperature=0.8,
                     generator=torch.Generator().manual_seed(0))
        print(f"--- {result.model} ({result.bits_per_char:.2f} bits per character) ---")
        print("".join(itos[i] for i in out[0].tolist()))

# %% [markdown]
# What the table and the curves show, and why. Every model beats the uniform guess by a wide margin.
# Which one leads depends on three things besides the model, and the sentences under the curves
# measure each.
#
# - **How the text is held out.** The continuation rewards recall: an 8-gram that has counted the
#   first part of a module recalls its names and phrases verbatim in the rest of it, and the n-gram's
#   own numbers show it (compare what the second half of the training text gains it on each split).
#   Held-out files ask what carries over to files never seen: Python's syntax, its common words and
#   idioms, which is what a language model is for. Quote held-out files; the table above, scored on
#   the continuation, flatters the n-gram.
# - **The same compute, trained the same way.** Per FLOP the cheap models make more updates (the
#   FFNN's and the RNN's steps cost less than the LSTM's and the Transformer's), so early checkpoints
#   favour them; at the budget, the order is the one the sentences give. A Transformer at a fixed
#   high learning rate without warm-up, as in the table's few seconds, is not a fair contender.
# - **Small models, little compute.** Tens to a couple of hundred thousand weights and minutes of
#   one CPU core. The decks' claim that neural models beat counts holds where counting cannot
#   generalise: contexts never seen whole (notebook 02's cat/dog sentences), and far more text and
#   bigger models than a table of counts can keep up with. The Transformer's real advantages are the
#   ones section 5 measured: no chain of $n$ sequential steps, so on a GPU its training parallelises
#   over all positions, and a direct path between any two characters in its window. With far more
#   data, time and parameters (and a GPU), that is where it pulls ahead, which is why every large
#   language model since 2018 is a Transformer; curves of minutes on one core cannot show that scale.
#
# Try `python benchmarks/crossover.py` to measure the curves on your machine (the first sentence
# under the curves says how long it took on the course's).

# %% [markdown]
# ## 9. The whole Transformer: an encoder, a decoder and cross-attention
#
# The 2017 Transformer was not a language model but a translator: an **encoder** reads the source
# sentence, a **decoder** writes the output one token at a time, and the two meet in the decoder
# block's **cross-attention**, whose queries come from the output written so far and whose keys and
# values come from the encoder's output (the *memory*). That is notebook 05's attention, with the
# GRUs replaced by blocks. Here it learns notebook 05's task, **reversing** sequences of 3 to 10 of 8
# letters, so its cross-attention can be set beside notebook 05's alignment:
#
# - the encoder: the letters' embeddings plus positions, then **your** `encoder_block` (through section
#   7's `YourBlock`) with no mask, since the whole source is known;
# - the decoder: the letters written so far (a start symbol first) plus positions, then the course's
#   `DecoderBlock` of section 4: masked self-attention, cross-attention over your encoder's output,
#   feed-forward, each in an add & norm;
# - a linear layer to one logit per letter. It trains with teacher forcing (the decoder reads the true
#   previous letters, all positions at once, which the causal mask makes honest) and writes greedily.
#
# One encoder block and one decoder block (so that one layer's cross-attention must do all the
# aligning), $d_{model} = 32$, 2 heads. A few seconds of training here:

# %% [demo] pace=3
from course_lib import seq2seq, viz
from course_lib.encoder_decoder import EncoderDecoderConfig, TransformerSeq2Seq, load_comparison, mean_training_flops
from course_lib.train import TrainConfig, train

NUM_SYMBOLS, LENGTHS, REVERSAL_STEPS = 8, list(range(3, 11)), 300  # notebook 05's task
reversal_config = EncoderDecoderConfig(NUM_SYMBOLS, d_model=32, num_heads=2, d_ff=64, num_layers=1)
torch.manual_seed(0)
reverser = TransformerSeq2Seq(reversal_config, make_encoder_block=lambda: YourBlock(
    reversal_config.d_model, reversal_config.num_heads, reversal_config.d_ff)).to(device)
with torch_threads(1):
    reverser_history = train(reverser, seq2seq.reversal_batches(LENGTHS, batch_size=64, num_symbols=NUM_SYMBOLS),
                             TrainConfig(steps=REVERSAL_STEPS, lr=5e-3, progress=False, seed=0))
    reverser_flops = mean_training_flops(reverser, 64, LENGTHS) * len(reverser_history.train_steps)
    test_lengths = list(range(3, 13))
    reverser_accuracy = {n: seq2seq.reversal_accuracy(reverser, n, n=200)["symbols"] for n in test_lengths}
print(f"{len(reverser_history.train_steps)} steps in {reverser_history.seconds:.1f} s, {reverser_flops:.2e} training "
      f"FLOPs; letters right: " + ", ".join(f"length {n}: {reverser_accuracy[n]:.2f}" for n in (3, 6, 10, 12)))

# %% [markdown]
# Is it better or worse than notebook 05's GRU with attention? Only a comparison at **equal compute**
# says. `benchmarks/encoder_decoder.py` (in the course's repository; its results ship with `course_lib`)
# trains 05's GRU model and this Transformer (the course's `EncoderBlock`, which computes your
# `encoder_block`'s function) on batches drawn the same way, for the same number of **training FLOPs**: the
# floating-point operations of every matrix product of a training step, forward and backward, counted
# by PyTorch's `FlopCounterMode` (element-wise work such as the gates, softmax and LayerNorm is not
# counted, for either model), times the steps. At each doubling of compute both decode fresh
# sequences of every length; lengths 11 and 12 are longer than any seen in training. The star is your
# run above.

# %% [demo]
comparison = load_comparison()
runs = comparison["models"]
fig, (ax_compute, ax_length) = plt.subplots(1, 2, figsize=(13, 4))
for (name, run), color in zip(runs.items(), ("C0", "C3")):
    points = run["checkpoints"]
    ax_compute.semilogx([p["flops"] for p in points], [p["symbols"]["10"] for p in points], "o-", color=color,
                        label=f"{name} ({run['parameters']:,} weights, {run['flops_per_step']:.1e} FLOPs a step)")
    ax_length.plot(test_lengths, [points[-1]["symbols"][str(n)] for n in test_lengths], "o-", color=color,
                   label=f"{name}, {points[-1]['flops']:.1e} FLOPs ({points[-1]['steps']:,} steps)")
ax_compute.plot(reverser_flops, reverser_accuracy[10], "*", color="k", ms=14, label="your run above")
ax_length.plot(test_lengths, [reverser_accuracy[n] for n in test_lengths], "*--", color="k",
               label=f"your run above, {reverser_flops:.1e} FLOPs")
ax_length.axvspan(LENGTHS[-1] + 0.5, test_lengths[-1] + 0.5, color="0.9", label="longer than in training")
ax_compute.set(xlabel="training FLOPs", ylabel="letters right at length 10", ylim=(0, 1.02),
               title="reversal: accuracy against training compute")
ax_length.set(xlabel="sequence length", ylabel="letters right", ylim=(0, 1.02),
              title="at the same compute (the last checkpoints)")
for ax in (ax_compute, ax_length):
    ax.axhline(1 / NUM_SYMBOLS, color="0.6", ls=":")
    ax.legend(fontsize=8, loc="lower left")
plt.show()

gru, tf = (runs[name]["checkpoints"] for name in ("GRU with attention", "Transformer"))
ahead_at = [p["flops"] for p, q in zip(tf, gru) if p["symbols"]["10"] > q["symbols"]["10"]]
measured, per_step = comparison["meta"], {name: run["flops_per_step"] for name, run in runs.items()}
display(Markdown(
    f"Measured with `{comparison['command']}` on {measured['cpu']} ({measured['date'][:10]}, one thread, 1-minute "
    f"load {measured['load_1min']}). One training step of the Transformer costs {per_step['Transformer']:.2e} "
    f"FLOPs, one of the GRU {per_step['GRU with attention']:.2e}; at the last checkpoint, {tf[-1]['flops']:.1e} "
    f"FLOPs each, letters right at length 10: Transformer {tf[-1]['symbols']['10']:.3f} ({tf[-1]['steps']:,} steps, "
    f"{tf[-1]['seconds']:.0f} s), GRU {gru[-1]['symbols']['10']:.3f} ({gru[-1]['steps']:,} steps, "
    f"{gru[-1]['seconds']:.0f} s); at length 12, never seen in training: {tf[-1]['symbols']['12']:.3f} and "
    f"{gru[-1]['symbols']['12']:.3f}. "
    + (f"The Transformer is ahead at length 10 at {len(ahead_at)} of the {len(tf)} checkpoints (from "
       f"{min(ahead_at):.1e} FLOPs on)." if ahead_at else "The Transformer is behind at every checkpoint.")))

# %% [markdown]
# Where does it look? Notebook 05's example input (`reversal_batch(1, 9, 8)` with seed 7): left, the GRU's
# alignment (its additive attention, trained in the benchmark); then the Transformer's cross-attention at
# the same compute, each of its two heads; right, your model from above, its heads averaged. Each row
# is one output letter, its weights over the source letters.

# %% [demo]
example = comparison["task"]["example"]
source, _ = seq2seq.reversal_batch(1, example["length"], NUM_SYMBOLS, torch.Generator().manual_seed(example["seed"]))
with torch.no_grad():
    logits, your_weights = reverser.decode(source.to(device), need_weights=True)  # (1, T, V), (layers, 1, h, T, S)
maps = []
for name in ("GRU with attention", "Transformer"):
    shown = runs[name]["example"]
    weights = torch.tensor(shown["weights"]).view(*shown["weights_shape"])  # GRU (T, S); Transformer (L, h, T, S)
    output = seq2seq.symbols(shown["output"])
    if weights.dim() == 2:
        maps.append((f"{name}: its alignment", weights, output))
    else:
        maps += [(f"{name}: cross-attention, head {h + 1}", weights[-1, h], output) for h in range(weights.shape[1])]
maps.append(("your run above: heads averaged", your_weights[-1, 0].mean(0), seq2seq.symbols(logits[0].argmax(-1))))
fig, axes = plt.subplots(1, len(maps), figsize=(4.6 * len(maps), 4.6))
for ax, (title, weights, output) in zip(axes, maps):
    viz.attention_heatmap(weights, output, seq2seq.symbols(source[0]), ax=ax, title=title)
    ax.set(xlabel="source letter (key)", ylabel="output letter (query)")
    ax.title.set_fontsize(9)
fig.tight_layout()
plt.show()

# %% [markdown]
# To write output letter $t$ both read source letter $n - 1 - t$: the anti-diagonal, as in notebook 05.
# They get there differently. The GRU decoder's state can count the steps it has taken, and its
# bidirectional encoder's states already know what comes after each letter. The Transformer has no
# state, only positions: its decoder knows $t$ from the positional encoding, but $n - 1 - t$ depends on
# the length $n$, so its encoder must first work out, for each source letter, how far it is from the
# end, by attending over the whole source. That takes longer to learn, and it is learnt for the
# positions seen in training: at position 10 or 11, which no training sequence reached, the sinusoid
# is a vector the model never saw, and the counting does not carry over (the accuracy at lengths 11
# and 12 above). The Transformer's gains are elsewhere: no chain of $n$ steps, so all positions train
# at once on parallel hardware, and a direct path from every output to every source letter; the same
# blocks, scaled up and trained on millions of sentence pairs, are what translated in the 2017 paper.

# %% [markdown]
# ## 10. The cost of the output layer
#
# Every language model of the course ends the same way: a linear layer $z = h W^\top + b$ with one row
# of $W$ per token of the vocabulary, and a softmax over all $V$ logits. With characters ($V \approx 100$)
# that is nothing. With words it dominates, and a word vocabulary easily has 100 000 entries: the
# lecture "Neural Network Language Models & BERT" ends on the challenges of neural language models,
# and the **class-based output layer** (below) is one of them. Per token of every batch the layer
# computes $V$ dot products of length $d$ (forward, and twice as many backward), keeps $V$ numbers for
# the backward pass, and owns $V \times d$ weights, with as many gradients and, with Adam, twice as
# many moments.
#
# Measured now: one forward and backward pass of `F.cross_entropy(h @ W.T + b, y)` for 32 tokens,
# $d = 256$, $V$ from 1 000 to 100 000 (the best of 3, one thread), with
# `course_lib.output_layer.measure_output_layer`.
#
# One remedy is the **sampled softmax** (Jean et al., 2015): train with the true word's logit against
# the logits of only $K$ words drawn from a proposal distribution $Q$ (the same draw for the whole
# batch), each corrected by $-\log(K\,Q(c))$ so that the $K$ words stand in for the whole vocabulary
# (an importance sample), and a drawn word that happens to be the true one masked out. The cost per
# token is $K + 1$ dot products instead of $V$; the timing below uses $K = 256$, and a sparse gradient
# that holds only the rows of $W$ it touched. (The lecture's remedy, the class-based output layer,
# first picks a class of words and then a word within the class, so each softmax is over about
# $\sqrt{V}$ entries, and it gives exact probabilities at test time too; PyTorch has a variant as
# `nn.AdaptiveLogSoftmaxWithLoss`. Subword vocabularies keep $V$ near 30 000 in the first place, as
# BERT's WordPiece does in notebook 07.)

# %% [demo]
from course_lib.output_layer import load_output_layer_results, measure_output_layer

vocab_sizes = [1_000, 3_000, 10_000, 30_000, 100_000]
with torch_threads(1):
    output_cost = measure_output_layer(vocab_sizes, d_model=256, tokens=32, repeats=3, num_sampled=256, device=device)
MiB = 2 ** 20
fig, (ax_time, ax_memory) = plt.subplots(1, 2, figsize=(12, 4))
ax_time.loglog(vocab_sizes, [t * 1e3 for t in output_cost.seconds], "o-",
               label=f"full softmax: slope {complexity.loglog_slope(vocab_sizes, output_cost.seconds):.2f}")
ax_time.loglog(vocab_sizes, [t * 1e3 for t in output_cost.sampled_seconds], "o-", label="sampled softmax, K = 256")
ax_time.set(xlabel="vocabulary size V", ylabel="milliseconds per forward + backward pass",
            title=f"32 tokens, d = 256, on {device}")
ax_memory.loglog(vocab_sizes, [4 * b / MiB for b in output_cost.weight_bytes], "o-",
                 label="W and b, their gradient and Adam's two moments")
ax_memory.loglog(vocab_sizes, [b / MiB for b in output_cost.saved_bytes], "o-",
                 label="kept for the backward pass (the 32 x V log-probabilities)")
ax_memory.set(xlabel="vocabulary size V", ylabel="MiB", title="memory")
for ax in (ax_time, ax_memory):
    ax.legend(fontsize=8)
plt.show()
display(Markdown(
    f"From V = {vocab_sizes[0]:,} to {vocab_sizes[-1]:,} ({vocab_sizes[-1] // vocab_sizes[0]} times more words) the "
    f"full softmax's step went from {output_cost.seconds[0] * 1e3:.2f} to {output_cost.seconds[-1] * 1e3:.1f} ms "
    f"({output_cost.seconds[-1] / output_cost.seconds[0]:.0f} times), and the output layer's weights with their "
    f"gradient and Adam's moments from {4 * output_cost.weight_bytes[0] / MiB:.1f} to "
    f"{4 * output_cost.weight_bytes[-1] / MiB:.0f} MiB; the sampled softmax's step took "
    f"{min(output_cost.sampled_seconds) * 1e3:.2f} to {max(output_cost.sampled_seconds) * 1e3:.2f} ms at every size."))

# %% [markdown]
# Cheaper per step, but does it learn the same thing? `benchmarks/output_layer.py` trains a small word
# model both ways: a neural bigram model, $z = E[\text{previous word}]\,W^\top + b$, on the English
# docstrings of the standard library (words seen twice or more, the others `<unk>`). One copy trains
# with the full softmax, two with the sampled one ($K = 64$ and $K = 256$, words drawn from their
# frequencies in the training text), on the same batches for the same number of steps. Every
# checkpoint scores the held-out sentences (modules no training sentence comes from) with the **full**
# softmax, the true loss.

# %% [demo]
output_results = load_output_layer_results()
bigram = output_results["bigram"]
fig, (ax_steps, ax_seconds) = plt.subplots(1, 2, figsize=(12, 4))
for name, run in bigram["runs"].items():
    curve = run["curve"]
    ax_steps.plot([p["steps"] for p in curve], [p["valid_nats"] for p in curve], "o-", ms=3, label=name)
    ax_seconds.plot([p["seconds"] for p in curve], [p["valid_nats"] for p in curve], "o-", ms=3, label=name)
for ax, xlabel in ((ax_steps, "training steps"), (ax_seconds, "training seconds (one thread)")):
    ax.axhline(bigram["valid_unigram_nats"], color="0.6", ls=":", label="unigram (no context)")
    ax.set(xlabel=xlabel, ylabel="held-out loss, full softmax (nats per word)")
    ax.legend(fontsize=8)
ax_steps.set_title(f"a bigram word model, V = {bigram['vocab_size']:,}")
plt.show()
best = {name: min(run["curve"], key=lambda p: p["valid_nats"]) for name, run in bigram["runs"].items()}
last = {name: run["curve"][-1] for name, run in bigram["runs"].items()}
full_best = best["full softmax"]
display(Markdown(
    f"Measured with `{output_results['command']}` on {output_results['meta']['cpu']} "
    f"({output_results['meta']['date'][:10]}, one thread, 1-minute load {output_results['meta']['load_1min']} on a "
    "shared machine: the seconds are slow, their ratios less so). Lowest held-out loss of each run: full softmax "
    f"{full_best['valid_nats']:.3f} nats per word (after {full_best['steps']:,} steps, {full_best['seconds']:.1f} s of "
    "training); " + "; ".join(f"{name} {p['valid_nats']:.3f} ({p['valid_nats'] - full_best['valid_nats']:+.3f}; "
                              f"{p['steps']:,} steps, {p['seconds']:.1f} s)" for name, p in best.items()
                              if name != "full softmax")
    + f". The unigram model, which ignores the previous word, has {bigram['valid_unigram_nats']:.3f}. After all "
    f"{last['full softmax']['steps']:,} steps: "
    + ", ".join(f"{name} {p['valid_nats']:.3f}" for name, p in last.items())
    + " (a loss that rises again is the model learning its training pairs by heart: early stopping picks the lowest)."))

# %% [markdown]
# ## 11. Going further (optional): Transformer-XL's segment recurrence
#
# A Transformer LM sees at most `block_size` tokens: text is cut into segments and each is read on
# its own, so the first characters of a segment have almost no context, and nothing crosses a
# segment boundary. **Transformer-XL** (Dai et al., 2019; the lecture "Neural Network Language Models & BERT")
# keeps the hidden states of the previous segment as a **memory**: while reading segment $s$, every
# layer's queries come from segment $s$, and its keys and values from [memory of segment $s-1$ ;
# segment $s$]. The memory is not trained through (its gradient is stopped), so the cost of a step
# stays that of one segment, but information now flows from segment to segment: with $N$ layers, a
# token can depend on about $N \times L$ tokens back, where $L$ is the segment length. (Positions
# must then be relative, since "position 3" exists in every segment; Transformer-XL adds relative
# position terms to the scores.)
#
# The attention pattern of one layer, for segments of 6 tokens and a memory of 6:

# %% [demo]
L_segment, memory_length = 6, 6
current = torch.ones(L_segment, L_segment, dtype=torch.bool).tril()  # causal within the segment
with_memory = torch.cat([torch.ones(L_segment, memory_length, dtype=torch.bool), current], dim=1)  # (L, M + L)
fig, axes = plt.subplots(1, 2, figsize=(9, 3))
for ax, mask, title in ((axes[0], current, "vanilla: this segment only"),
                        (axes[1], with_memory, "Transformer-XL: memory + this segment")):
    ax.imshow(mask, cmap="Greens", vmin=0, vmax=1.5)
    ax.set(xlabel="key position", ylabel="query position", title=title)
axes[1].axvline(memory_length - 0.5, color="k", lw=1)
axes[1].text(memory_length / 2 - 0.5, L_segment / 2 - 0.5, "memory\n(no gradient)", ha="center", va="center",
             color="white", fontsize=9)
plt.show()

# %% [markdown]
# ## Summary
#
# - Attention does not see order; the sinusoidal encoding adds it, and "k positions later" is a
#   rotation of each (sin, cos) pair, a linear map the same at every position.
# - Multi-head attention splits $d_{model}$ into $h$ heads of $d_{head}$, attends in each with scores
#   divided by $\sqrt{d_{head}}$, concatenates the heads and mixes them with $W^O$.
# - Every sublayer sits in $\mathrm{LayerNorm}(x + \mathrm{Sublayer}(x))$ (post-norm, 2017) or
#   $x + \mathrm{Sublayer}(\mathrm{LayerNorm}(x))$ (pre-norm, GPT-2 onwards).
# - Attention's time is $O(n^2 d)$ and, computed plainly, its memory $O(n^2)$; recurrence is $O(n d^2)$
#   but needs $n$ sequential steps.
# - Text is drawn token by token from softmax(logits / T) over the top k logits: a low temperature
#   sharpens the distribution towards the argmax, a high one flattens it, and top-k removes the long
#   tail of unlikely tokens.
# - Embeddings, positions, a stack of causal encoder blocks and a linear layer make a language model;
#   yours learns the context (its loss falls well below the unigram entropy) within seconds.
# - The encoder-decoder Transformer joins the two halves with cross-attention: queries from the output
#   written so far, keys and values from the encoder's output. On reversal its cross-attention finds
#   notebook 05's anti-diagonal; at equal compute it was compared with 05's GRU, and its absolute
#   positions do not carry it past the lengths it was trained on.
# - The output layer costs $V \times d$ weights and $V$ dot products per token: with a word vocabulary
#   it dominates a small model. The sampled softmax trains with $K \ll V$ of them; the model is still
#   scored with the full softmax.
#
# Next, notebook 07: BERT, an encoder-only Transformer trained by filling in masked words.
